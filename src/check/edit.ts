/**
 * Source edits at statement granularity: insert lines before a statement, replace a
 * statement's text, remove a statement. Untouched lines stay byte-identical. A macro invocation
 * whose expansion is edited is written out expanded (its statements one per line, with the
 * edits applied) because the macro body is shared by every call; so is a `.rept` / `.irp` /
 * `.irpc` block, whose lines up to its `.endr` are replaced by the expansion.
 */
import type { Program, Statement } from '../asm/ast.js';
import { printProgram } from '../asm/printer.js';
import { once } from '../analysis/memo.js';
import { EditedText, forEachStatementObject, isWaitOrNop, LineOrigins, lineReuse, statementAt, statementCount } from '../asm/program.js';
import { loadText, type Loaded } from '../load.js';
import { isRepeatName } from '../asm/parser.js';
import { isInlineAsmMarker } from '../asm/inline-asm.js';
import { counted } from '../text.js';

export interface StatementEdits {
  /** Lines (without indentation) to insert before statement index. */
  insertBefore: Map<number, string[]>;
  /** New text for a statement. */
  replace: Map<number, string>;
  /** Statements to drop. */
  remove: Set<number>;
}

export function emptyEdits(): StatementEdits {
  return { insertBefore: new Map(), replace: new Map(), remove: new Set() };
}

/** Add the edits of `from` to `into` (inserted lines after those `into` has; a replacement of `from` wins). */
export function mergeEdits(into: StatementEdits, from: StatementEdits): void {
  for (const [k, lines] of from.insertBefore) for (const l of lines) addInsert(into, k, l);
  for (const [k, t] of from.replace) into.replace.set(k, t);
  for (const k of from.remove) into.remove.add(k);
}

export function addInsert(e: StatementEdits, stmt: number, line: string, atEnd = true): void {
  const list = e.insertBefore.get(stmt) ?? [];
  if (atEnd) list.push(line); else list.unshift(line);
  e.insertBefore.set(stmt, list);
}

/** The blanks (spaces and tabs) a line starts with. */
export function indentOf(text: string): string {
  let n = 0;
  while (n < text.length && (text.charCodeAt(n) === 32 || text.charCodeAt(n) === 9)) n++;
  return n === 0 ? '' : text.slice(0, n);
}

/**
 * The indentation of an inserted line: a label at column 0, as LLVM and the parser's input
 * write it; an instruction inserted before a label at column 0 with a tab (the pipeliner's peel
 * goes in front of the label after the loop) unless it comes indented; anything else as the line
 * it goes before.
 */
function insertIndent(ins: string, indent: string, beforeLabel: boolean): string {
  if (/^[^\s;#]+:\s*$/.test(ins)) return '';
  return indent === '' && beforeLabel && !/^[ \t]/.test(ins) ? '\t' : indent;
}

/**
 * The statements on the line that holds statement k, in order (a line's statements stand
 * together in the statement stream), read one by one: a parsed program's whole list is not built.
 */
export function lineStatements(program: Program, k: number): number[] {
  const at = (x: number) => statementAt(program, x)!;
  const li = at(k).lineIndex;
  let a = k;
  while (a > 0 && at(a - 1).lineIndex === li) a--;
  const l: number[] = [];
  const n = statementCount(program);
  for (let b = a; b < n && at(b).lineIndex === li; b++) l.push(b);
  return l;
}

/** Record in `byLine` (source line -> its statements, in order) the line that holds statement k, unless it is there. */
export function addStatementLine(program: Program, k: number, byLine: Map<number, number[]>): void {
  const li = statementAt(program, k)!.lineIndex;
  if (!byLine.has(li)) byLine.set(li, lineStatements(program, k));
}

/** Apply statement edits and return the new text; `origins`, when given, gets where each of its lines comes from. */
export function applyStatementEdits(program: Program, edits: StatementEdits, origins?: LineOrigins): string {
  // the statements of each line an edit touches (read one by one: the list is not built)
  const at = (k: number) => statementAt(program, k)!;
  const byLine = new Map<number, number[]>();
  for (const k of [...edits.insertBefore.keys(), ...edits.replace.keys(), ...edits.remove]) addStatementLine(program, k, byLine);
  if (byLine.size === 0) {
    const same = printProgram(program);
    origins?.copied(0, program.lineIndex.count, 0);
    return same;
  }
  const touched = [...byLine.keys()].sort((x, y) => x - y);
  const lineEdits = new Map<number, string>();
  const writtenOut = new Map<number, number[]>();
  const text = program.lineIndex;
  for (const lineIndex of touched) {
    const stmts = byLine.get(lineIndex)!;
    const original = text.line(lineIndex);
    const indent = indentOf(original);
    const eol = text.eol(lineIndex) || '\n';
    const expanded = stmts.some((k) => at(k).expansion);
    const out: string[] = [];
    if (expanded) {
      const call = stmts.map((k) => at(k)).find((s) => s.kind === 'macroCall' && !s.expansion);
      for (let b = lineIndex + 1; b <= (call?.blockEnd ?? lineIndex); b++) lineEdits.set(b, '');
      out.push(`${indent}// expanded from: ${call ? call.text : original.trim()}`);
      for (const k of stmts) {
        const s = at(k);
        if (s.kind === 'macroCall') continue;
        for (const ins of edits.insertBefore.get(k) ?? []) out.push(indent + ins);
        if (edits.remove.has(k)) continue;
        out.push(indent + (edits.replace.get(k) ?? statementText(s)));
      }
      writtenOut.set(lineIndex, stmts);
    } else {
      // Statements written on this line: labels first, then at most one instruction or directive.
      let restFrom = 0;
      for (const k of stmts) {
        const s = at(k);
        const inserts = edits.insertBefore.get(k) ?? [];
        const isLast = k === stmts[stmts.length - 1];
        if (!isLast) {
          // A label before the statement: keep it on its own line (inserted code goes after the label).
          if (inserts.length > 0 || edits.remove.has(k) || edits.replace.has(k)) {
            for (const ins of inserts) out.push(insertIndent(ins, indent, true) + ins);
          }
          out.push(indent + statementText(s));
          restFrom = s.loc.col - 1 + s.text.length + 1;
          continue;
        }
        if (inserts.length > 0 && stmts.length === 1 && lineIndex > 0 && !lineEdits.has(lineIndex - 1)
          && isInlineAsmMarker(text.line(lineIndex - 1)) === 'start') {
          // The first statement of an inline asm: what goes before it goes before LLVM's
          // ;;#ASMSTART comment, outside the author's code (a comment: the same place to run).
          const marker = text.line(lineIndex - 1);
          const markerIndent = indentOf(marker);
          lineEdits.set(lineIndex - 1, [...inserts.map((ins) => markerIndent + ins), marker].join(text.eol(lineIndex - 1) || '\n'));
        } else {
          for (const ins of inserts) out.push(insertIndent(ins, indent, s.kind === 'label') + ins);
        }
        if (edits.remove.has(k)) continue;
        const rest = original.slice(Math.max(restFrom, s.loc.col - 1));
        const replaced = edits.replace.get(k);
        if (replaced !== undefined) {
          const tail = rest.slice(s.text.length);
          out.push(indent + replaced + tail);
        } else if (restFrom === 0 && stmts.length === 1) {
          out.push(original);
        } else {
          out.push(indent + rest.trimStart());
        }
      }
    }
    lineEdits.set(lineIndex, out.join(eol));
  }
  // The lines no edit touches go out as they are, in runs cut from the text; a removed statement
  // alone on its line removes the line.
  const numbering = new MacroNumbering(program);
  const out = new EditedText(text, origins);
  let run = 0;
  for (let i = 0; i < text.count; i++) {
    const e = lineEdits.get(i);
    if (e === undefined && !numbering.due(i)) continue;
    out.copy(run, i);
    run = i + 1;
    const original = text.line(i);
    const eol = text.eol(i);
    const pre = numbering.before(i);
    const w = writtenOut.get(i);
    if (w) numbering.written(w);
    let line = e ?? original;
    if (pre.length > 0) {
      const head = pre.map((x) => indentOf(original) + x).join(eol || '\n');
      line = line === '' ? head : head + (eol || '\n') + line;
    }
    if (e !== undefined && line === '' && original.trim() !== '') continue;
    out.write(line + eol);
  }
  out.copy(run, text.count);
  return out.text();
}

/**
 * The numbering of macro calls when some are written out expanded. llvm-mc numbers macro
 * instantiations (`\@` is the count so far: AsmParser::handleMacroEntry increments
 * NumOfMacroInstantiations; .rept, .irp and .irpc do not), and the calls written out no longer
 * count, so a later call would name its labels with a number a written-out label already has
 * ("symbol is already defined") or differently from the input. `written(stmts)` counts the
 * instantiations of a line written out; `before(line)` gives the lines to write before a source
 * line: when the line reads the count (a call of a macro whose body has `\@`, or an .irp /
 * .irpc block) and instantiations were written out since the last such line, an empty macro
 * called that many times. A macro's own call count (`\+`) is not kept.
 */
export class MacroNumbering {
  private pending = 0;
  private readonly readers: Uint8Array;
  constructor(private readonly program: Program) {
    this.readers = once(program, 'counterReaderLines', () => counterReaderLines(program));
  }

  written(stmts: readonly number[]): void {
    for (const k of stmts) {
      const s = statementAt(this.program, k)!;
      if (s.kind === 'macroCall' && s.name !== undefined && !isRepeatName(s.name)) this.pending++;
    }
  }

  /** True when `before(line)` writes something. */
  due(line: number): boolean { return this.pending > 0 && this.readers[line] === 1; }

  before(line: number): string[] {
    if (!this.due(line)) return [];
    let name = 'conductor_macro_count';
    for (let x = 2; this.program.macros.has(name); x++) name = `conductor_macro_count${x}`;
    const n = this.pending;
    this.pending = 0;
    const calls = n === 1 ? [name] : [`.rept ${n}`, name, '.endr'];
    return [`// ${counted(n, 'macro call')} written out above: counted for the \\@ numbering of later calls`,
      `.macro ${name}`, '.endm', ...calls, `.purgem ${name}`];
  }
}

/** 1 for the source lines holding a statement that reads the macro instantiation count. */
function counterReaderLines(program: Program): Uint8Array {
  const text = program.lineIndex;
  const out = new Uint8Array(text.count);
  const uses = new Map<string, boolean>();
  forEachStatementObject(program, (s) => {
    if (s.kind !== 'macroCall' || s.name === undefined || s.name === '.rept' || s.name === '.rep') return;
    let u: boolean;
    if (isRepeatName(s.name)) {
      // .irp / .irpc: a body read where it is written (in a macro's body: assumed to)
      u = s.blockEnd === undefined || text.slice(s.lineIndex + 1, s.blockEnd).includes('\\@');
    } else {
      const known = uses.get(s.name);
      if (known === undefined) {
        const def = program.macros.get(s.name) ?? program.macros.get(s.name.toLowerCase());
        u = !def || def.body.some((b) => b.text.includes('\\@'));
        uses.set(s.name, u);
      } else u = known;
    }
    if (u) out[s.lineIndex] = 1;
  });
  return out;
}

export function statementText(s: Statement): string {
  if (s.kind === 'label') return `${s.text}:`;
  return s.insn ? s.insn.text : s.text;
}

/** A line an edit may write for what is known of the program to carry over (carriedEdit): one s_waitcnt or s_nop statement. */
const WAIT_OR_NOP_LINE = /^[ \t]*s_(?:waitcnt|nop)(?:[ \t][^;\n\r]*)?$/;

/**
 * Whether every other instruction of the program parses and resolves after the edits `e` as
 * before: the edits insert lines of one s_waitcnt or s_nop statement, replace or remove s_waitcnt
 * and s_nop instructions, and no line they touch holds a statement of a macro or repeat expansion
 * (which would be written out expanded, applyStatementEdits). The other statements keep their
 * text, in their kernel and order; an s_waitcnt or s_nop defines no symbol or label, names no
 * register and sets no mode, so each parses to the rows it had (asm/program.ts LineReuse), resolves
 * as it did, and its hazard facts (a function of its resolved form) are the same.
 */
export function carriedEdit(program: Program, e: StatementEdits): boolean {
  // the statements the edits touch and their line's, read one by one (the whole list is not built)
  const at = (k: number) => statementAt(program, k)!;
  const plain = (k: number) => lineStatements(program, k).every((x) => !at(x).expansion);
  const waitOrNop = (k: number) => isWaitOrNop(at(k).insn);
  for (const [k, lines] of e.insertBefore) {
    if (!plain(k)) return false;
    for (const l of lines) if (!WAIT_OR_NOP_LINE.test(l)) return false;
  }
  for (const [k, t] of e.replace) if (!plain(k) || !waitOrNop(k) || !WAIT_OR_NOP_LINE.test(t)) return false;
  for (const k of e.remove) if (!plain(k) || !waitOrNop(k)) return false;
  return true;
}

/**
 * The program `l` with the edits `e` applied, loaded (as `file`, for `arch`). An edit of waits and
 * nops only (`carried`: carriedEdit) is parsed copying the rows of the lines it left, and their
 * resolutions (LineReuse, ResolveReuse); `checkFast` as loadText's.
 */
export function loadEdited(l: Loaded, e: StatementEdits, opts: { file: string; arch: string; checkFast?: boolean }): { text: string; loaded: Loaded; carried: boolean } {
  const carried = carriedEdit(l.program, e);
  const origins = carried ? new LineOrigins() : undefined;
  const text = applyStatementEdits(l.program, e, origins);
  const reuse = origins && lineReuse(l.program, origins);
  const loaded = loadText(text, opts.file, { arch: opts.arch, ...(reuse ? { reuse, reuseResolution: l.resolvedStore, checkFast: opts.checkFast } : {}) });
  return { text, loaded, carried };
}
