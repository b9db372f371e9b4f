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
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.text;
    // Fast path: no comment characters and not inside a block comment.
    if (!inBlock && t.indexOf(';') < 0 && t.indexOf('/') < 0 && t.indexOf('#') < 0) {
      out[i] = trimEnd(t);
      continue;
    }
    let code = '';
    let j = 0;
    let segStart = 0;
    let inString = false;
    const n = t.length;
    if (inBlock) {
      const e = t.indexOf('*/');
      if (e < 0) { out[i] = ''; continue; }
      code = ' '.repeat(e + 2);
      j = e + 2;
      segStart = j;
      inBlock = false;
    } else {
      // '#' as the first non-blank character starts a comment line (LLVM lexes '# N "file"' markers this way).
      let k = 0;
      while (k < n && (t[k] === ' ' || t[k] === '\t')) k++;
      if (t[k] === '#') { out[i] = ''; continue; }
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
        if (e < 0) { inBlock = true; ended = true; break; }
        code += ' '.repeat(e + 2 - j);
        j = e + 2;
        segStart = j;
        continue;
      }
      j++;
    }
    if (!ended) code += t.slice(segStart);
    out[i] = trimEnd(code);
  }
  return out;
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
