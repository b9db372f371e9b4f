/**
 * Several input files in one command (`schedule`, `check`, `analyze`): directories expand to the
 * assembly files under them, `--shard i/N` keeps a deterministic share of the batch, each file is
 * processed exactly as it would be alone, and the exit code is the worst of the files' (0 clean,
 * 1 findings, 2 bad input). A file that fails is reported and the batch goes on.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ConductorError } from '../errors.js';
import type { Program } from '../asm/ast.js';
import { ParsedProgram } from '../asm/program.js';
import { colourDiagnostic } from './main.js';

export interface InputFile {
  /** Path as it is opened. */
  path: string;
  /** Path relative to the directory argument it was found under (the file name for a file argument). */
  rel: string;
  /** Why the argument cannot be read (it stays in the batch as a failed file). */
  error?: string;
}

/**
 * Assembly file extensions a directory contributes: `.amdgcn` is what Triton's AMD backend writes
 * to its cache (~/.triton/cache/<hash>/<kernel>.amdgcn) and dumps with AMDGCN_ENABLE_DUMP.
 */
const ASM = /\.(s|S|asm|amdgcn)$/;

async function walk(dir: string, base: string, out: InputFile[]): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await walk(p, base, out);
    else if (e.isFile() && ASM.test(e.name)) out.push({ path: p, rel: path.relative(base, p) });
  }
}

/**
 * The files named by the arguments: a file as it is, a directory as every assembly file under it
 * (recursively, sorted by path). With one argument a missing file is bad input (thrown); with
 * several it is a failed entry of the batch (`error`), so the others still run.
 */
export async function expandInputs(args: readonly string[]): Promise<InputFile[]> {
  const out: InputFile[] = [];
  for (const a of args) {
    let st;
    try {
      st = await fs.stat(a);
    } catch {
      const why = `cannot read '${a}': no such file or directory`;
      if (args.length === 1) throw new ConductorError(why);
      out.push({ path: a, rel: path.basename(a), error: why });
      continue;
    }
    if (st.isDirectory()) {
      const before = out.length;
      await walk(a, a, out);
      if (out.length === before) {
        const why = `'${a}' holds no assembly files (*.s, *.S, *.asm, *.amdgcn)`;
        if (args.length === 1) throw new ConductorError(why);
        out.push({ path: a, rel: path.basename(a), error: why });
      }
    } else out.push({ path: a, rel: path.basename(a) });
  }
  const seen = new Set<string>();
  return out.filter((f) => { const k = path.resolve(f.path); if (seen.has(k)) return false; seen.add(k); return true; });
}

export interface Shard { index: number; count: number }

/** `--shard i/N` (1 <= i <= N). */
export function parseShard(v: string | undefined): Shard | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v.trim());
  if (!m || Number(m[2]) < 1 || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) {
    throw new ConductorError(`--shard takes i/N with 1 <= i <= N (e.g. 2/8), got '${v}'`);
  }
  return { index: Number(m[1]), count: Number(m[2]) };
}

/**
 * The files of shard i of N: in the order of the batch (files in argument order, directories
 * sorted), every N-th file starting with the i-th. The same inputs always split the same way,
 * so N machines given shards 1/N .. N/N process every file exactly once.
 */
export function shardFiles<T>(files: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...files];
  return files.filter((_, x) => x % shard.count === shard.index - 1);
}

/** Is `out` a directory to write several outputs into (ends with a separator or is a directory)? */
export async function isOutputDir(out: string): Promise<boolean> {
  if (out.endsWith('/') || out.endsWith(path.sep)) return true;
  try { return (await fs.stat(out)).isDirectory(); } catch { return false; }
}

/**
 * Where each file's output goes: OUT for a single file, OUTDIR/<rel> for a directory. Two inputs
 * that would write the same output are bad input (nothing is written).
 */
export async function outputPaths(files: readonly InputFile[], out: string | undefined, several: boolean): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  if (out === undefined) return map;
  const dir = await isOutputDir(out);
  if (!dir) {
    if (several) throw new ConductorError(`-o ${out}: several inputs need an output directory (-o DIR/)`);
    if (files.length === 1) map.set(files[0]!.path, out);
    return map;
  }
  if (out === '-') throw new ConductorError('-o - takes a single input');
  const taken = new Map<string, string>();
  for (const f of files) {
    const o = path.join(out, f.rel);
    const prev = taken.get(path.resolve(o));
    if (prev !== undefined) throw new ConductorError(`'${prev}' and '${f.path}' would both be written to ${o}`);
    taken.set(path.resolve(o), f.path);
    if (path.resolve(o) === path.resolve(f.path)) throw new ConductorError(`${o} is the input itself: write to another directory`);
    map.set(f.path, o);
  }
  return map;
}

/**
 * Where a command with one input (`emit`, `apply`, `report`, `agent`) writes `-o OUT`: as the
 * batch commands do with one input, OUT itself, or OUT/<the input's name> when OUT is a directory
 * (an existing one, or a path ending in /); `name` gives that name from the input's (`report`
 * writes an HTML page). Called before any work, so a refused output (the input itself) costs none.
 */
export async function singleOutputPath(file: string, out: string, name: (base: string) => string = (b) => b): Promise<string> {
  return (await outputPaths([{ path: file, rel: name(path.basename(file)) }], out, false)).get(file)!;
}

/**
 * A file of a batch that could not be read, as every command's --json gives it: the error's
 * message and place (null when it has none), exit 2, and no kernels.
 */
export function failedFileJson(file: string, e: ConductorError): { file: string; error: string; loc: { line: number; col: number } | null; exit: 2; kernels: [] } {
  return { file, error: e.message, loc: e.loc ? { line: e.loc.line, col: e.loc.col } : null, exit: 2, kernels: [] };
}

/**
 * The input files of `args` (expandInputs), or, when the one input given cannot be read, the exit
 * code after `failed` has said so (e.g. failedInput: its JSON failure record).
 */
export async function inputsOr(args: readonly string[], failed: (file: string, e: unknown) => number): Promise<InputFile[] | number> {
  try {
    return await expandInputs(args);
  } catch (e) {
    if (args.length !== 1) throw e;
    return failed(args[0]!, e);
  }
}

/**
 * One input a command could not work on (bad input, a missing kernel, an option out of range for
 * it, an output it cannot write): the error on the standard error (`file:line:col: error: ...`)
 * and, with --json, the failed file's record on the standard output, the shape a batch gives it
 * (failedFileJson), so that the standard output stays one JSON document; exit 2. Another error,
 * or no --json, is rethrown (main prints it, exit 2).
 */
export function failedInput(file: string, e: unknown, json: boolean | undefined): number {
  if (!json || !(e instanceof ConductorError)) throw e;
  process.stderr.write(colourDiagnostic(e.format()) + '\n');
  process.stdout.write(JSON.stringify(failedFileJson(file, e), null, 2) + '\n');
  return 2;
}

/** Worst exit code: 2 (bad input) over 1 (findings) over 0. */
export function worstExit(codes: readonly number[]): number {
  return codes.reduce((a, b) => Math.max(a, b), 0);
}

/** `1 kernel`, `2 kernels`. */
export { counted } from '../text.js';

/**
 * A failed file's row in a batch table: `exit 2: ` and its error, cut at a word to `max`
 * characters (`...` says it was cut; the whole error is on the standard error above the table).
 */
export function failureCell(message: string, max: number): string {
  if (message.length <= max) return `exit 2: ${message}`;
  const space = message.lastIndexOf(' ', max - 4);
  const cut = message.slice(0, space > max / 2 ? space : max - 4).replace(/[\s,:;(]+$/, '');
  return `exit 2: ${cut} ...`;
}

/** A plain text table: a header row, a rule and the rows, columns padded; numbers right-aligned. */
export function formatTable(head: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [head, ...rows].map((r) => r.map((c) => String(c)));
  const width = head.map((_, x) => Math.max(...cells.map((r) => r[x]?.length ?? 0)));
  const numeric = head.map((_, x) => rows.length > 0 && rows.every((r) => typeof r[x] === 'number' || /^[-+]?[\d.]+%?$|^-$/.test(String(r[x]))));
  const line = (r: readonly string[]) => r.map((c, x) => (numeric[x] ? c.padStart(width[x]!) : c.padEnd(width[x]!))).join('  ').trimEnd();
  return [line(cells[0]!), width.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/**
 * The text a command writes for an input (`program`, or whether it has a mark) that starts with a byte order mark: the mark
 * first, as in the input, also when the input's first line was moved (it carries the mark with it)
 * or edited. Text without a mark in its input is returned as it is.
 */
export function bomFirst(program: Program | boolean, out: string): string {
  if (!(typeof program === 'boolean' ? program : hasBom(program))) return out;
  if (out.charCodeAt(0) === 0xfeff) return out;
  const moved = out.indexOf('\n\ufeff');
  return '\ufeff' + (moved >= 0 ? out.slice(0, moved + 1) + out.slice(moved + 2) : out);
}

/** Whether the text a program was parsed from starts with a byte order mark. */
export function hasBom(program: Program): boolean {
  return program instanceof ParsedProgram && program.source.charCodeAt(0) === 0xfeff;
}

/**
 * For a command that writes the program back (emit, apply, check --fix, schedule, agent): the
 * parser's warning about a byte order mark (asm/parser.ts), on the standard error, since the
 * outputs keep the mark as the input has it (bomFirst). `check` reports it among its findings.
 */
export function warnBom(program: Program): void {
  for (const d of program.diagnostics) {
    if (d.rule === 'bom') process.stderr.write(colourDiagnostic(`${d.loc.file}:${d.loc.line}:${d.loc.col}: warning: ${d.message}`) + '\n');
  }
}
