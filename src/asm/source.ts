import type { SourceLine } from './ast.js';
import { charLiteralLength } from './expr.js';

/** Split text into lines, keeping each terminator so that joining them gives the text back. */
export function splitLines(text: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  const n = text.length;
  while (start < n) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ text: text.slice(start), eol: '' });
      break;
    }
    if (nl > start && text.charCodeAt(nl - 1) === 13) lines.push({ text: text.slice(start, nl - 1), eol: '\r\n' });
    else lines.push({ text: text.slice(start, nl), eol: '\n' });
    start = nl + 1;
  }
  return lines;
}

/**
 * Where each line of a text starts, the lines cut as splitLines cuts them, without an object per
 * line: `start[li]` is the offset of line li and `start[count]` the text's length, so line li with
 * its terminator is text.slice(start[li], start[li + 1]). For the writers that copy most of a
 * program's text as it is (reorder, statement edits) and read only the lines they change.
 */
export class LineIndex {
  readonly start: Float64Array;
  readonly count: number;

  constructor(readonly text: string) {
    const n = text.length;
    let count = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
    if (n > 0 && text.charCodeAt(n - 1) !== 10) count++;
    const start = new Float64Array(count + 1);
    let li = 0;
    let from = 0;
    while (from < n) {
      start[li++] = from;
      const nl = text.indexOf('\n', from);
      from = nl < 0 ? n : nl + 1;
    }
    start[count] = n;
    this.start = start;
    this.count = count;
  }

  /** The terminator of line li: '\n', '\r\n' or '' (the last line, without one). */
  eol(li: number): string {
    const end = this.start[li + 1]!;
    if (end === this.start[li]! || this.text.charCodeAt(end - 1) !== 10) return '';
    return end - 2 >= this.start[li]! && this.text.charCodeAt(end - 2) === 13 ? '\r\n' : '\n';
  }

  /** The text of line li without its terminator. */
  line(li: number): string {
    return this.text.slice(this.start[li]!, this.start[li + 1]! - this.eol(li).length);
  }

  /** Lines [from, to) with their terminators, as they are in the text. */
  slice(from: number, to: number): string {
    return to > from ? this.text.slice(this.start[from]!, this.start[to]!) : '';
  }
}

/** Join lines back into text: the exact inverse of splitLines. */
export function joinLines(lines: readonly SourceLine[]): string {
  let out = '';
  for (const l of lines) out += l.text + l.eol;
  return out;
}

/**
 * Remove comments from every line: `;`, `//` (and `///`) to the end of the line, a `#` that
 * starts a line, and `/* ... *\/` (which may span lines). Comment characters are replaced by
 * spaces so that columns stay valid. Text inside double quotes and character literals (`';'`)
 * is kept.
 * Returns the code part of each line with trailing blanks removed.
 */
export function stripComments(lines: readonly SourceLine[]): string[] {
  const out: string[] = new Array(lines.length);
  const state = { inBlock: false };
  for (let i = 0; i < lines.length; i++) out[i] = stripLine(lines[i]!.text, state);
  return out;
}

/** One line of stripComments; `state.inBlock` carries an open block comment from line to line. */
function stripLine(t: string, state: { inBlock: boolean }): string {
  // Fast path: no comment characters and not inside a block comment.
  if (!state.inBlock && t.indexOf(';') < 0 && t.indexOf('/') < 0 && t.indexOf('#') < 0) return trimEnd(t);
  let code = '';
  let j = 0;
  let segStart = 0;
  let inString = false;
  const n = t.length;
  if (state.inBlock) {
    const e = t.indexOf('*/');
    if (e < 0) return '';
    code = ' '.repeat(e + 2);
    j = e + 2;
    segStart = j;
    state.inBlock = false;
  } else {
    // '#' as the first non-blank character starts a comment line (LLVM lexes '# N "file"' markers this way).
    let k = 0;
    while (k < n && (t[k] === ' ' || t[k] === '\t')) k++;
    if (t[k] === '#') return '';
  }
  let ended = false;
  while (j < n) {
    const c = t.charCodeAt(j);
    if (inString) {
      if (c === 92) { j += 2; continue; } // backslash escape
      if (c === 34) inString = false;
      j++;
      continue;
    }
    if (c === 34) { inString = true; j++; continue; }
    if (c === 39) {
      const len = charLiteralLength(t, j);
      if (len > 0) { j += len; continue; }
    }
    if (c === 59 || (c === 47 && t.charCodeAt(j + 1) === 47)) { // ';' or '//'
      code += t.slice(segStart, j);
      ended = true;
      break;
    }
    if (c === 47 && t.charCodeAt(j + 1) === 42) { // '/*'
      code += t.slice(segStart, j);
      const e = t.indexOf('*/', j + 2);
      if (e < 0) { state.inBlock = true; ended = true; break; }
      code += ' '.repeat(e + 2 - j);
      j = e + 2;
      segStart = j;
      continue;
    }
    j++;
  }
  if (!ended) code += t.slice(segStart);
  return trimEnd(code);
}

function trimEnd(s: string): string {
  let e = s.length;
  while (e > 0) {
    const c = s.charCodeAt(e - 1);
    if (c === 32 || c === 9 || c === 13) e--;
    else break;
  }
  return e === s.length ? s : s.slice(0, e);
}

/**
 * The lines of a text and the code of each, as offsets (stripComments without copying):
 * line k is text[start[k], start[k + 1]) with its terminator; its code (comments removed,
 * trailing blanks removed) is text[start[k], end[k]), unless a block comment had to be blanked
 * inside it: then `override` holds the line's code as stripComments gives it (column 1 at its
 * index 0).
 */
export interface LineScan {
  n: number;
  start: Uint32Array;
  end: Uint32Array;
  override: Map<number, string>;
}

export function scanLines(text: string): LineScan {
  const len = text.length;
  let count = 0;
  for (let p = text.indexOf('\n'); p >= 0; p = text.indexOf('\n', p + 1)) count++;
  if (len > 0 && text.charCodeAt(len - 1) !== 10) count++;
  const start = new Uint32Array(count + 1);
  const end = new Uint32Array(count);
  const override = new Map<number, string>();
  const state = { inBlock: false };
  // The next ';', '/', '"' and "'" at or after the current line (len when none): found with
  // indexOf, so a line without them is not scanned character by character.
  let semi = -1;
  let slash = -1;
  let quote = -1;
  let apos = -1;
  let ls = 0;
  for (let k = 0; k < count; k++) {
    const nl = text.indexOf('\n', ls);
    const next = nl < 0 ? len : nl + 1;
    let le = nl < 0 ? len : nl;
    if (nl > ls && text.charCodeAt(nl - 1) === 13) le--;
    start[k] = ls;
    let e: number;
    if (state.inBlock) e = -1;
    else {
      if (semi < ls) { semi = text.indexOf(';', ls); if (semi < 0) semi = len; }
      if (slash < ls) { slash = text.indexOf('/', ls); if (slash < 0) slash = len; }
      if (quote < ls) { quote = text.indexOf('"', ls); if (quote < 0) quote = len; }
      if (apos < ls) { apos = text.indexOf("'", ls); if (apos < 0) apos = len; }
      const first = Math.min(semi, slash, quote, apos);
      if (first >= le) e = trimCode(text, ls, hashLine(text, ls, le) ? ls : le);
      else if (first === semi) e = trimCode(text, ls, hashLine(text, ls, le) ? ls : semi);
      else if (first === slash && slash + 1 < le && text.charCodeAt(slash + 1) === 47) e = trimCode(text, ls, hashLine(text, ls, le) ? ls : slash);
      else e = codeEnd(text, ls, le);
    }
    if (e >= 0) {
      end[k] = e;
    } else {
      // A block comment: blank it as stripComments does; keep offsets when the code is a prefix of the line.
      const line = text.slice(ls, le);
      const code = stripLine(line, state);
      if (line.startsWith(code)) end[k] = ls + code.length;
      else { override.set(k, code); end[k] = ls; }
    }
    ls = next;
  }
  start[count] = len;
  return { n: count, start, end, override };
}

/** Is the first non-blank character of the line '#' (a comment line)? */
function hashLine(text: string, ls: number, le: number): boolean {
  let j = ls;
  while (j < le && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
  return j < le && text.charCodeAt(j) === 35;
}

/** `stop` moved back over trailing blanks (' ', tab, CR), not before ls. */
function trimCode(text: string, ls: number, stop: number): number {
  while (stop > ls) {
    const c = text.charCodeAt(stop - 1);
    if (c === 32 || c === 9 || c === 13) stop--;
    else break;
  }
  return stop;
}

/**
 * End of the code of the line text[ls, le) (no block comment open before it): before `;`,
 * `//`, or everything when `#` starts it, trailing blanks removed. -1 when a block comment
 * starts on the line (the caller blanks it).
 */
function codeEnd(text: string, ls: number, le: number): number {
  let j = ls;
  while (j < le && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
  if (j < le && text.charCodeAt(j) === 35 /* # */) return ls;
  j = ls;
  let stop = le;
  while (j < le) {
    const c = text.charCodeAt(j);
    if (c === 34) { // a string: to its closing quote (a backslash escapes)
      j++;
      while (j < le) {
        const d = text.charCodeAt(j);
        if (d === 92) { j += 2; continue; }
        j++;
        if (d === 34) break;
      }
      continue;
    }
    if (c === 39) {
      const n = charLiteralLength(text, j, le);
      if (n > 0) { j += n; continue; }
    }
    if (c === 59) { stop = j; break; }
    if (c === 47 && j + 1 < le) {
      const d = text.charCodeAt(j + 1);
      if (d === 47) { stop = j; break; }
      if (d === 42) return -1;
    }
    j++;
  }
  return trimCode(text, ls, stop);
}
