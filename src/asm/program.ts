/**
 * The parsed program as parseProgram returns it: the Program interface over the instruction
 * store. `lines`, `statements` and `instructions` are built on first access (and kept): a
 * caller that reads only the store, the kernels and the symbols never pays for them. An
 * instruction's statement is a view that reads the store; the other statements (labels,
 * directives, macro calls) are plain objects made by the parser.
 */
import type {
  AmdhsaDescriptor, Diagnostic, Instruction, KernelSymbol, Loc, MacroDef, Program, SourceLine, Statement, StatementKind,
} from './ast.js';
import type { Note } from '../errors.js';
import { LineIndex, splitLines } from './source.js';
import { InsnStore, StoredInstruction } from './store.js';

type Expansion = NonNullable<Statement['expansion']>;

export interface ProgramParts {
  file: string;
  source: string;
  store: InsnStore;
  /** Statements in order: objects, or the index of an instruction in the store. */
  statements: (Statement | number)[];
  /** Expansion of each instruction statement that has one, by instruction index. */
  expansions: Map<number, Expansion>;
  kernels: KernelSymbol[];
  declaredTarget?: Program['declaredTarget'];
  symbols: Map<string, number>;
  macros: Map<string, MacroDef>;
  rawWords: number;
  diagnostics: Diagnostic[];
  descriptors: Map<string, AmdhsaDescriptor>;
  /** Parsed copying an earlier parse's rows (ParseOptions.reuse): per instruction, the row it copied (-1: scanned). */
  reusedFrom?: Int32Array;
}

export class ParsedProgram implements Program {
  readonly file: string;
  /** The text parsed: printing an unedited program gives it back. */
  readonly source: string;
  /** The instructions in typed arrays (index i is instructions[i]). */
  readonly store: InsnStore;
  kernels: KernelSymbol[];
  declaredTarget?: Program['declaredTarget'];
  symbols: Map<string, number>;
  macros: Map<string, MacroDef>;
  rawWords: number;
  diagnostics: Diagnostic[];
  /** ProgramParts.reusedFrom. */
  readonly reusedFrom: Int32Array | undefined;
  readonly #parts: (Statement | number)[];
  readonly #expansions: Map<number, Expansion>;
  #lines: SourceLine[] | undefined;
  #lineIndex: LineIndex | undefined;
  #statements: Statement[] | undefined;
  #instructions: Instruction[] | undefined;

  constructor(p: ProgramParts) {
    this.file = p.file;
    this.source = p.source;
    this.store = p.store;
    this.kernels = p.kernels;
    this.declaredTarget = p.declaredTarget;
    this.symbols = p.symbols;
    this.macros = p.macros;
    this.rawWords = p.rawWords;
    this.diagnostics = p.diagnostics;
    this.reusedFrom = p.reusedFrom;
    this.#parts = p.statements;
    this.#expansions = p.expansions;
    this.#lines = undefined;
    this.#lineIndex = undefined;
    this.#statements = undefined;
    this.#instructions = undefined;
  }

  /** Number of statements (without building them). */
  get statementCount(): number { return this.#parts.length; }

  /** The expansion an instruction came from, by instruction index. */
  expansionOf(i: number): Expansion | undefined { return this.#expansions.get(i); }

  /** True once `lines` was built (it may have been edited since). */
  get linesBuilt(): boolean { return this.#lines !== undefined; }

  /** The instructions of a kernel as [first, end) indexes into `instructions` (and the store). */
  kernelRange(kernel: KernelSymbol): [number, number] {
    const stmt = this.store.stmt;
    const n = this.store.n;
    const lowerBound = (v: number) => {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (stmt[mid]! < v) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return [lowerBound(kernel.start), lowerBound(kernel.end)];
  }

  get lines(): SourceLine[] {
    return (this.#lines ??= splitLines(this.source));
  }

  get lineIndex(): LineIndex {
    return (this.#lineIndex ??= new LineIndex(this.source));
  }

  get instructions(): Instruction[] {
    if (this.#instructions === undefined) {
      const n = this.store.n;
      const out: Instruction[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = new StoredInstruction(this.store, i);
      this.#instructions = out;
    }
    return this.#instructions;
  }

  /**
   * Statement k, without building `statements` when it is not built yet (an instruction's
   * statement is then a view made for this call).
   */
  statementAt(k: number): Statement | undefined {
    if (this.#statements !== undefined) return this.#statements[k];
    const s = this.#parts[k];
    return typeof s === 'number' ? new InstructionStatement(this, s) : s;
  }

  /** The instruction of statement k when it is one read from the store (no statement view made), else undefined. */
  storedInstructionAt(k: number): Instruction | undefined {
    const s = this.#parts[k];
    return typeof s === 'number' ? this.instructions[s] : undefined;
  }

  /**
   * fn(s, k) for each statement k kept as an object (labels, directives, macro calls, raw
   * statements), and insn(i, k), when given, for each instruction read from the store (store
   * index i), without making its view.
   */
  forEachStoredStatement(fn: (s: Statement, k: number) => void, insn?: (i: number, k: number) => void): void {
    const parts = this.#parts;
    for (let k = 0; k < parts.length; k++) {
      const s = parts[k]!;
      if (typeof s !== 'number') fn(s, k);
      else if (insn) insn(s, k);
    }
  }

  get statements(): Statement[] {
    if (this.#statements === undefined) {
      const parts = this.#parts;
      const out: Statement[] = new Array(parts.length);
      for (let k = 0; k < parts.length; k++) {
        const s = parts[k]!;
        out[k] = typeof s === 'number' ? new InstructionStatement(this, s) : s;
      }
      this.#statements = out;
    }
    return this.#statements;
  }
}

/** The statement of instruction i: every field read from the store. */
class InstructionStatement implements Statement {
  readonly #p: ParsedProgram;
  readonly #i: number;

  constructor(p: ParsedProgram, i: number) {
    this.#p = p;
    this.#i = i;
  }

  get kind(): StatementKind { return 'instruction'; }
  get text(): string { return this.#p.store.text(this.#i); }
  get loc(): Loc { return this.#p.store.loc(this.#i); }
  get lineIndex(): number { return this.#p.store.line[this.#i]! - 1; }
  get insn(): Instruction { return this.#p.instructions[this.#i]!; }
  get name(): undefined { return undefined; }
  get args(): undefined { return undefined; }
  get expansion(): Expansion | undefined { return this.#p.expansionOf(this.#i); }
  get blockEnd(): undefined { return undefined; }
}

/** Whether an instruction is an s_waitcnt or an s_nop (what emission re-derives; what moves leave behind). */
export function isWaitOrNop(insn: { readonly base: string } | undefined): boolean {
  const base = insn?.base;
  return base === 's_waitcnt' || base === 's_nop';
}

/** The immediate of an s_nop as written (0 when it is not a non-negative integer). */
export function nopImmediate(insn: Instruction): number {
  const op = insn.operands[0];
  return op && op.kind === 'imm' && Number.isInteger(op.value) && op.value >= 0 ? op.value : 0;
}

/**
 * fn(s, k) for each statement of a program that is not an instruction read from a parsed
 * program's store (those go to `insn` with their store index, when it is given, without making
 * their views): what a walk that looks only at labels, directives and macro calls needs. A
 * program not read from a store gives every statement to fn.
 */
export function forEachStatementObject(program: Program, fn: (s: Statement, k: number) => void, insn?: (i: number, k: number) => void): void {
  if (program instanceof ParsedProgram) program.forEachStoredStatement(fn, insn);
  else program.statements.forEach(fn);
}

/** Statement k of a program (a parsed program's statement list is not built for it). */
export function statementAt(program: Program, k: number): Statement | undefined {
  return program instanceof ParsedProgram ? program.statementAt(k) : program.statements[k];
}

/**
 * Repeat blocks, closed by `.endr` (`.rep` is LLVM's other spelling of `.rept`): an expansion's
 * `macro` is one of these, or a macro's name, which may begin with a dot too.
 */
export const REPEATS: ReadonlySet<string> = new Set(['.rept', '.rep', '.irp', '.irpc']);

/**
 * The note for a problem at statement `k` when a macro or repeat block wrote it (its location is
 * the call, where the user can act, as llvm-mc's first line is): the body line it came from (as
 * llvm-mc's `<instantiation>` line and clang's "expanded from macro" do). Undefined otherwise.
 */
export function expansionNote(program: Program, k: number): (Note & { loc: Loc }) | undefined {
  const x = statementAt(program, k)?.expansion;
  if (!x) return undefined;
  const from = 'expanded from this line of';
  return { loc: x.macroLoc, kind: 'expansion', message: REPEATS.has(x.macro) ? `${from} a ${x.macro} block` : `${from} macro '${x.macro}'` };
}

/**
 * The same problem again at the same call and body line of a macro or repeat block (each
 * repetition of a `.rept`): shown once, where it was first kept (`at`: the diagnostic, or its
 * place in a printed list), with its expansion note counting the repetitions (inExpansions).
 * What is counted is the caller's: the summary line and JSON still count each.
 */
export class ExpansionRepeats<T> {
  readonly #seen = new Map<string, { at: T; n: number }>();

  /** When `key` was kept before: its count raised, `show(at, n)` called with the new count, and true. */
  again(key: string, show: (at: T, n: number) => void): boolean {
    const s = this.#seen.get(key);
    if (!s) return false;
    show(s.at, ++s.n);
    return true;
  }

  /** `key` kept for the first time, shown at `at`. */
  keep(key: string, at: T): void { this.#seen.set(key, { at, n: 1 }); }
}

/** An expansion note's text (or a finding's, ending in it) counting `n` repetitions. */
export function inExpansions(text: string, n: number): string { return `${text} (the same in ${n} expansions)`; }

/** Number of statements of a program (a parsed program's statement list is not built for it). */
export function statementCount(program: Program): number {
  return program instanceof ParsedProgram ? program.statementCount : program.statements.length;
}

/**
 * Where the lines of an edited text come from (check/edit.ts applyStatementEdits,
 * schedule/reorder.ts reorderedText): runs of lines copied from the program's text as they are,
 * and between them lines an edit wrote.
 */
export class LineOrigins {
  /**
   * Per run, four numbers: its first line in the new text, its first line in the program's text,
   * its length in lines, and how far it moved (its start in the new text less its start in the
   * program's).
   */
  readonly runs: number[] = [];
  /** Lines of the new text so far. */
  lines = 0;

  /** `count` lines copied from the program's text from its line `from`, moved by `shift`. */
  copied(from: number, count: number, shift: number): void {
    if (count <= 0) return;
    this.runs.push(this.lines, from, count, shift);
    this.lines += count;
  }

  /** `count` lines an edit wrote. */
  written(count: number): void { this.lines += count; }
}

/**
 * An edited program's text written piece by piece (check/edit.ts applyStatementEdits,
 * schedule/reorder.ts reorderedText): runs of the program's lines as they are, and pieces an edit
 * writes; with `origins`, where each of its lines comes from.
 */
export class EditedText {
  private readonly out: string[] = [];
  private length = 0;

  constructor(private readonly index: LineIndex, private readonly origins?: LineOrigins) {}

  /** Lines [a, b) of the program as they are. */
  copy(a: number, b: number): void {
    if (b <= a) return;
    this.origins?.copied(a, b - a, this.length - this.index.start[a]!);
    this.push(this.index.slice(a, b));
  }

  /** A piece an edit writes: one line that is the program's line `from` as written, or (from -1) any lines. */
  write(piece: string, from = -1): void {
    const o = this.origins;
    if (o && from >= 0) o.copied(from, 1, this.length - this.index.start[from]!);
    else if (o) {
      let lines = piece.length > 0 && piece.charCodeAt(piece.length - 1) !== 10 ? 1 : 0;
      for (let p = piece.indexOf('\n'); p >= 0; p = piece.indexOf('\n', p + 1)) lines++;
      o.written(lines);
    }
    this.push(piece);
  }

  text(): string { return this.out.join(''); }

  private push(piece: string): void {
    this.out.push(piece);
    this.length += piece.length;
  }
}

/**
 * What a parse may copy from an earlier parse of the text it was edited from (ParseOptions.reuse):
 * per line of the new text, the earlier store's row scanned from the same characters (-1: none),
 * and how far the line moved. Only rows that keep no detail in `aux` (InsnStore.hasAux), come from
 * the file's own text and are the only instruction of their line are offered. Sound when every
 * symbol has the value there that it had at the same line of the earlier text: so when the edit
 * inserts, replaces or removes only lines of one s_waitcnt or s_nop (which set no symbol, define
 * no label and name no register `.amdgcn.next_free_*` counts) and touches no line of a macro or
 * repeat expansion (check/edit.ts carriedEdit), or when it moves instruction lines within the
 * scheduler's regions, which hold no directive (schedule/reorder.ts reorderReuse).
 */
export interface LineReuse {
  store: InsnStore;
  row: Int32Array;
  shift: Float64Array;
}

/** The rows of `program` (parsed from a text without `.include`d files) the text edited from it (`origins`) may copy. */
export function lineReuse(program: Program, origins: LineOrigins): LineReuse | undefined {
  if (!(program instanceof ParsedProgram) || program.store.lineMap !== undefined) return undefined;
  const st = program.store;
  const rowOf = new Int32Array(program.lineIndex.count).fill(-1);
  for (let i = 0; i < st.n; i++) {
    if (st.textId[i] !== 0) continue;
    const l = st.line[i]! - 1;
    // a second instruction on the line, or one with details, is scanned again
    rowOf[l] = rowOf[l] === -1 && !st.hasAux(i) && program.expansionOf(i) === undefined ? i : -2;
  }
  const row = new Int32Array(origins.lines).fill(-1);
  const shift = new Float64Array(origins.lines);
  const runs = origins.runs;
  for (let x = 0; x < runs.length; x += 4) {
    const at = runs[x]!; const from = runs[x + 1]!; const count = runs[x + 2]!; const d = runs[x + 3]!;
    for (let l = 0; l < count; l++) { const r = rowOf[from + l]!; if (r >= 0) row[at + l] = r; shift[at + l] = d; }
  }
  return { store: st, row, shift };
}

/**
 * Where two parses differ (undefined when they are the same): the instruction stores row by row,
 * the statements, expansions, kernels, symbols, macros and diagnostics. The check of a parse that
 * copied rows (LineReuse) against the text parsed again from scratch (CONDUCTOR_CHECK_FAST=1).
 */
export function parseDifference(a: ParsedProgram, b: ParsedProgram): string | undefined {
  const sa = a.store;
  const sb = b.store;
  for (const f of ['n', 'nOps', 'nMods'] as const) if (sa[f] !== sb[f]) return `store.${f}: ${sa[f]} and ${sb[f]}`;
  if (sa.texts.length !== sb.texts.length || sa.texts.some((t, x) => t !== sb.texts[x])) return 'store.texts';
  const rows = (names: readonly (keyof InsnStore)[], count: number): string | undefined => {
    for (const name of names) {
      const x = sa[name] as ArrayLike<number>;
      const y = sb[name] as ArrayLike<number>;
      for (let i = 0; i < count; i++) if (x[i] !== y[i]) return `store.${String(name)}[${i}]: ${x[i]} and ${y[i]}`;
    }
    return undefined;
  };
  const d = rows(['opcode', 'textId', 'tStart', 'tEnd', 'line', 'col', 'stmt'], sa.n) ?? rows(['opBegin', 'modBegin'], sa.n + 1)
    ?? rows(['oKind', 'oFile', 'oFlags', 'oFirst', 'oCount', 'oIndex', 'oStart', 'oEnd', 'oValue', 'oAux'], sa.nOps)
    ?? rows(['mName', 'mFlags', 'mStart', 'mVStart', 'mEnd', 'mNum', 'mAux'], sa.nMods);
  if (d) return d;
  if (JSON.stringify(sa.aux) !== JSON.stringify(sb.aux)) return 'store.aux';
  if (a.statementCount !== b.statementCount) return `statements: ${a.statementCount} and ${b.statementCount}`;
  const parts = (p: ParsedProgram): string[] => {
    const out: string[] = [];
    p.forEachStoredStatement((s, k) => out.push(`${k}:${JSON.stringify(s)}`), (i, k) => out.push(`${k}:#${i}:${JSON.stringify(p.expansionOf(i) ?? null)}`));
    return out;
  };
  const pa = parts(a);
  const pb = parts(b);
  for (let x = 0; x < pa.length; x++) if (pa[x] !== pb[x]) return `statement ${pa[x]} and ${pb[x]}`;
  const whole = (p: ParsedProgram) => JSON.stringify([p.file, p.kernels, p.declaredTarget ?? null, [...p.symbols], [...p.macros], p.rawWords, p.diagnostics]);
  if (whole(a) !== whole(b)) return 'kernels, target, symbols, macros or diagnostics';
  return undefined;
}
