/**
 * `.include "file"` (LLVM AsmParser::parseDirectiveInclude): the included file's lines are read
 * in place of the directive. The program is parsed as one text, the files spliced in (a
 * flattened text), with a map from each of its lines to the file and line it comes from, so
 * that locations name the file the user wrote. Printing such a program writes the flattened
 * text: the `.include` line becomes a comment and the file's lines follow it.
 *
 * The splice is textual and made before the parse: an `.include` inside a macro body or a
 * repeat block is spliced into the body (LLVM includes it at each expansion, the same lines);
 * one inside a branch `.if` leaves out is spliced and skipped with the branch. An `.include`
 * whose file cannot be read, that would include a file into itself, or whose name is not a
 * plain string is left as written, and the parser reports it where it is active.
 */
import { scanLines } from './source.js';
import type { Loc } from './ast.js';

/** Reads an included file: the name as written and the path of the including file; undefined when it is not found. */
export type IncludeReader = (name: string, includer: string) => IncludedFile | undefined;

/** A file read for an `.include`: its path (as locations name it), an identity (its absolute path) and its text. */
export interface IncludedFile { path: string; id: string; text: string }

/** Where each line of a flattened text comes from. */
export class LineMap {
  /** The files, by index: the main file first. */
  readonly files: string[] = [];
  /** Per file: the chain of `.include` lines that brought it in (`a.s:3 <- b.inc:7`), '' for the main file. */
  readonly chains: string[] = [];
  /** Per line of the flattened text: its file's index and its 1-based line there. */
  fileOf: Int32Array;
  lineOf: Int32Array;
  n = 0;

  constructor(capacity: number) {
    this.fileOf = new Int32Array(Math.max(16, capacity));
    this.lineOf = new Int32Array(Math.max(16, capacity));
  }

  push(file: number, line: number): void {
    if (this.n >= this.fileOf.length) {
      const f = new Int32Array(this.n * 2);
      f.set(this.fileOf);
      this.fileOf = f;
      const l = new Int32Array(this.n * 2);
      l.set(this.lineOf);
      this.lineOf = l;
    }
    this.fileOf[this.n] = file;
    this.lineOf[this.n] = line;
    this.n++;
  }

  /** The location of column `col` of flattened line `lineIndex` (0-based) in its own file. */
  loc(lineIndex: number, col: number): Loc {
    if (lineIndex < 0 || lineIndex >= this.n) return { file: this.files[0]!, line: lineIndex + 1, col };
    return { file: this.files[this.fileOf[lineIndex]!]!, line: this.lineOf[lineIndex]!, col };
  }

  /**
   * Where 1-based line `line` of the flattened text is in the files the user wrote: its line
   * there, and its file when that is not the main one.
   */
  place(line: number): InputLine {
    const at = this.loc(line - 1, 0);
    return at.file === this.files[0] ? { line: at.line } : { line: at.line, file: at.file };
  }

  /** The include chain of a file named in a location ('' for the main file or an unknown name). */
  chainOf(file: string): string {
    const k = this.files.indexOf(file);
    return k > 0 ? this.chains[k]! : '';
  }
}

/** A line of the files the user wrote: `file` names an included file, absent for the main one. */
export interface InputLine { line: number; file?: string }

/** "line 12", or "defs.inc:40" for a line of an included file. */
export function lineRef(l: InputLine): string {
  return l.file !== undefined ? `${l.file}:${l.line}` : `line ${l.line}`;
}

/** The line of `l` seen from `from`: its file named only when it is another (an `.include`d file). */
export function lineFrom(l: Loc, from: Loc): InputLine {
  return l.file === from.file ? { line: l.line } : { line: l.line, file: l.file };
}

/**
 * The line of `l` as a message at `from` names it: "line 12" in the same file, "defs.inc:40" in
 * another (a program with `.include`d files).
 */
export function lineAt(l: Loc, from: Loc): string {
  return lineRef(lineFrom(l, from));
}

/**
 * A message of a check of a flattened text (every line it names, lineAt, a line of that text)
 * naming those lines as they are in the files the user wrote (`place`: LineMap.place).
 */
export function placedLines(message: string, place: (line: number) => InputLine): string {
  return message.replace(/\bline (\d+)\b/g, (_, n: string) => lineRef(place(Number(n))));
}

export interface Flattened {
  text: string;
  /** Undefined when nothing was spliced (the text is the file's, its lines its own). */
  map: LineMap | undefined;
  /** Flattened line index of an `.include` left as written -> why (reported where the line is active). */
  failures: Map<number, string>;
}

/** `.include "name"` as a whole statement (LLVM compares directive names without case). */
const INCLUDE = /^\.include\s+"((?:[^"\\]|\\.)*)"$/i;
const MAX_DEPTH = 64;

/** Whether a text may hold an `.include` directive (a quick test before flattenIncludes). */
export function mayInclude(text: string): boolean {
  return text.indexOf('.include') >= 0 || text.indexOf('.INCLUDE') >= 0;
}

/**
 * Splice the files the text includes. `file` names the text in locations, `path` is where it
 * was read from (includes are looked up by `read`). Undefined when the text includes nothing.
 */
export function flattenIncludes(text: string, file: string, path: string, id: string, read: IncludeReader): Flattened | undefined {
  if (!mayInclude(text)) return undefined;
  const map = new LineMap(text.length >>> 5);
  const failures = new Map<number, string>();
  const out: string[] = [];
  let spliced = false;
  const walk = (t: string, fileIndex: number, fpath: string, chain: readonly string[], depth: number): void => {
    const scan = scanLines(t);
    let ls = 0;
    for (let k = 0; k < scan.n; k++) {
      const nl = t.indexOf('\n', ls);
      const next = nl < 0 ? t.length : nl + 1;
      const raw = t.slice(ls, next);
      ls = next;
      const code = scan.override.get(k) ?? t.slice(scan.start[k], scan.end[k]);
      const m = code.indexOf('.') >= 0 ? INCLUDE.exec(code.trim()) : null;
      if (!m) {
        out.push(raw.endsWith('\n') ? raw : raw + '\n');
        map.push(fileIndex, k + 1);
        continue;
      }
      const name = m[1]!;
      const here = `${map.files[fileIndex]}:${k + 1}`;
      const found = depth >= MAX_DEPTH ? undefined : read(name, fpath);
      let why: string | undefined;
      if (depth >= MAX_DEPTH) why = `.include nests more than ${MAX_DEPTH} files deep`;
      else if (!found) why = `Could not find include file '${name}'`;
      else if (chain.includes(found.id)) why = `include cycle: '${name}' is ${found.path}, which is being included already`;
      if (why !== undefined || !found) {
        failures.set(map.n, why ?? `Could not find include file '${name}'`);
        out.push(raw.endsWith('\n') ? raw : raw + '\n');
        map.push(fileIndex, k + 1);
        continue;
      }
      spliced = true;
      // the directive stays as a comment, the file's lines follow it
      const eol = raw.endsWith('\r\n') ? '\r\n' : '\n';
      out.push(`// ${raw.replace(/\r?\n$/, '')}${eol}`);
      map.push(fileIndex, k + 1);
      const fi = map.files.length;
      map.files.push(found.path);
      map.chains.push(fileIndex === 0 ? here : `${here} <- ${map.chains[fileIndex]}`);
      walk(found.text, fi, found.path, [...chain, found.id], depth + 1);
    }
  };
  map.files.push(file);
  map.chains.push('');
  walk(text, 0, path, [id], 0);
  if (failures.size === 0 && !spliced) return undefined;
  // nothing spliced: the text and its line numbers stay the file's
  return spliced ? { text: out.join(''), map, failures } : { text, map: undefined, failures };
}
