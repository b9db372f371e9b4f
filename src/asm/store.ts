/**
 * The flat instruction store: every instruction of a program in typed arrays, written by one
 * pass of the parser over the file's text.
 *
 * Instruction i has an opcode id (`opcode[i]`, interned mnemonic as written, lower-cased: see
 * OPCODES), its text as offsets into one of the store's texts (`texts[textId[i]]`,
 * [tStart[i], tEnd[i]): the file itself is text 0; a line of a macro or repeat expansion, or a
 * line whose block comment had to be blanked, has its own text), its location (`line[i]`,
 * `col[i]`: 1-based, the invocation's for an expansion), its statement index (`stmt[i]`), and
 * its operands [opBegin[i], opBegin[i + 1]) and modifiers [modBegin[i], modBegin[i + 1]) in
 * two shared pools.
 *
 * Operand k: `oKind[k]` (OP_*), for registers `oFile[k]` (FILE_*), `oFirst[k]` (first register
 * unit), `oCount[k]` (units), `oIndex[k]` (index in its own file); for immediates `oValue[k]`
 * and the OPF_FLOAT bit of `oFlags[k]`; source modifiers as OPF_NEG / OPF_ABS / OPF_SEXT bits
 * of `oFlags[k]`; its text as offsets [oStart[k], oEnd[k]) into the instruction's text; the
 * rare kinds' details (an expression's symbols, a function's name and arguments, a constant's
 * name, s_waitcnt's counters) in `aux[oAux[k]]`.
 *
 * Modifier m: `mName[m]` (id in MODIFIER_NAMES, lower-cased), its text [mStart[m], mEnd[m]),
 * its value text [mVStart[m], mEnd[m]) when MF_VALUE is set in `mFlags[m]`, `mNum[m]` when
 * MF_NUM is set, a list (`aux[mAux[m]]`, numbers) when MF_LIST is set.
 *
 * Readers that only need numbers (the resolver; the checks later) read the arrays directly;
 * `instructionAt` materialises the object form (Instruction, Operand, Modifier) from them. The
 * texts are never copied per line: a string is made only when someone asks for one.
 */
import type { EncodingSuffix, Instruction, Loc, Modifier, Operand, RegOperand, SourceMods } from './ast.js';
import { Interner } from './intern.js';
import type { LineMap } from './include.js';

export const OP_REG = 0;
export const OP_IMM = 1;
export const OP_EXPR = 2;
export const OP_OFF = 3;
export const OP_CONST = 4;
export const OP_WAITCNT = 5;
export const OP_FUNC = 6;
const OP_KIND_NAMES = ['reg', 'imm', 'expr', 'off', 'const', 'waitcnt', 'func'] as const;

export const FILE_V = 0;
export const FILE_S = 1;
export const FILE_A = 2;
export const FILE_TTMP = 3;
export const FILE_SPECIAL = 4;
export const FILE_NAMES = ['v', 's', 'a', 'ttmp', 'special'] as const;

/** Operand flag bits. */
export const OPF_NEG = 1;
export const OPF_ABS = 2;
export const OPF_SEXT = 4;
export const OPF_FLOAT = 8;
/** Written as lit(N): an immediate llvm-mc encodes as a 32-bit literal even when it is an inline constant. */
export const OPF_LIT = 16;
/** An integer beyond 2^53 that the value (a double) does not hold exactly: never an inline constant, never a 32-bit literal. */
export const OPF_INEXACT = 32;

/** Modifier flag bits. */
export const MF_VALUE = 1;
export const MF_NUM = 2;
export const MF_LIST = 4;

/** s_waitcnt's operand details (aux entry of an OP_WAITCNT operand). */
export interface WaitcntAux {
  vmcnt?: number;
  expcnt?: number;
  lgkmcnt?: number;
  raw?: number;
}

/** hwreg(...) and the other function-like operands (aux entry of an OP_FUNC operand). */
export interface FuncAux {
  name: string;
  args: string[];
  /**
   * Each argument's value with the file's symbols (null when it does not evaluate: a name such
   * as HW_REG_MODE that no symbol defines). Absent when the operand was built without the
   * file's symbols (an Instruction object): the values are then unknown.
   */
  vals?: (number | null)[];
}

const SUFFIXES: readonly [string, EncodingSuffix][] = [
  ['_e64_dpp', 'e64_dpp'], ['_e32', 'e32'], ['_e64', 'e64'], ['_sdwa', 'sdwa'], ['_dpp', 'dpp'],
];

export function splitMnemonic(mnemonic: string): { base: string; suffix: EncodingSuffix } {
  for (const [s, e] of SUFFIXES) {
    if (mnemonic.endsWith(s) && mnemonic.length > s.length) return { base: mnemonic.slice(0, -s.length), suffix: e };
  }
  return { base: mnemonic, suffix: undefined };
}

/**
 * Opcodes: every mnemonic seen (lower-cased, as written with its encoding suffix) gets an id
 * for the life of the process, with its base and suffix. Shared by every store, so a table
 * indexed by opcode id (the resolver's catalogue memo) serves every program.
 */
/**
 * OpcodeTable.flags: s_waitcnt (its operand has a grammar of its own); an image instruction (a16
 * is a modifier); a vector memory instruction (buffer, tbuffer, flat, global, scratch, image:
 * `scc` is its cache-policy modifier, elsewhere the source src_scc, as llvm-mc 22 reads
 * `v_mov_b32 v0, scc`).
 */
export const OPC_WAITCNT = 1;
export const OPC_IMAGE = 2;
export const OPC_VMEM = 4;

const VMEM_PREFIX = /^(buffer|tbuffer|flat|global|scratch|image)_/;

class OpcodeTable {
  private readonly names = new Interner();
  readonly mnemonic: string[] = [];
  readonly base: string[] = [];
  readonly suffix: EncodingSuffix[] = [];
  /** OPC_* bits of each opcode: how the parser reads its operands. */
  readonly flags: number[] = [];

  get size(): number { return this.mnemonic.length; }

  /** The opcode of a lower-case mnemonic. */
  of(mnemonic: string): number {
    const id = this.names.idOf(mnemonic);
    if (id === this.mnemonic.length) {
      const { base, suffix } = splitMnemonic(mnemonic);
      this.mnemonic.push(this.names.str(id));
      this.base.push(base);
      this.suffix.push(suffix);
      this.flags.push((base === 's_waitcnt' ? OPC_WAITCNT : 0) | (base.startsWith('image_') ? OPC_IMAGE : 0) | (VMEM_PREFIX.test(base) ? OPC_VMEM : 0));
    }
    return id;
  }
}
export const OPCODES = new OpcodeTable();

/** Modifier names (lower-cased), interned for the life of the process. */
export const MODIFIER_NAMES = new Interner();

function grow<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

export class InsnStore {
  /** Instructions stored. */
  n = 0;
  /** The texts instructions are read from; texts[0] is the file. */
  readonly texts: string[];
  /** The file name (for locations). */
  readonly file: string;
  /**
   * Where each line comes from when `.include`d files are spliced into the text parsed
   * (asm/include.ts): `line[i]` is then the line of that text and `loc(i)` the file's own.
   */
  lineMap: LineMap | undefined = undefined;

  opcode: Uint32Array;
  textId: Uint32Array;
  tStart: Uint32Array;
  tEnd: Uint32Array;
  line: Uint32Array;
  col: Uint32Array;
  stmt: Uint32Array;
  /** n + 1 fence posts into the operand pool. */
  opBegin: Uint32Array;
  /** n + 1 fence posts into the modifier pool. */
  modBegin: Uint32Array;

  /** Operands stored. */
  nOps = 0;
  oKind: Uint8Array;
  oFile: Uint8Array;
  oFlags: Uint8Array;
  oFirst: Uint16Array;
  oCount: Uint16Array;
  oIndex: Uint16Array;
  oStart: Uint32Array;
  oEnd: Uint32Array;
  oValue: Float64Array;
  oAux: Int32Array;

  /** Modifiers stored. */
  nMods = 0;
  mName: Uint32Array;
  mFlags: Uint8Array;
  mStart: Uint32Array;
  mVStart: Uint32Array;
  mEnd: Uint32Array;
  mNum: Float64Array;
  mAux: Int32Array;

  /** Details of the rare operand kinds and modifier lists. */
  readonly aux: unknown[] = [];

  constructor(file: string, source: string, capacity = 64) {
    this.file = file;
    this.texts = [source];
    const c = Math.max(4, capacity);
    this.opcode = new Uint32Array(c);
    this.textId = new Uint32Array(c);
    this.tStart = new Uint32Array(c);
    this.tEnd = new Uint32Array(c);
    this.line = new Uint32Array(c);
    this.col = new Uint32Array(c);
    this.stmt = new Uint32Array(c);
    this.opBegin = new Uint32Array(c + 1);
    this.modBegin = new Uint32Array(c + 1);
    const o = c * 3;
    this.oKind = new Uint8Array(o);
    this.oFile = new Uint8Array(o);
    this.oFlags = new Uint8Array(o);
    this.oFirst = new Uint16Array(o);
    this.oCount = new Uint16Array(o);
    this.oIndex = new Uint16Array(o);
    this.oStart = new Uint32Array(o);
    this.oEnd = new Uint32Array(o);
    this.oValue = new Float64Array(o);
    this.oAux = new Int32Array(o);
    const m = Math.max(4, c >> 1);
    this.mName = new Uint32Array(m);
    this.mFlags = new Uint8Array(m);
    this.mStart = new Uint32Array(m);
    this.mVStart = new Uint32Array(m);
    this.mEnd = new Uint32Array(m);
    this.mNum = new Float64Array(m);
    this.mAux = new Int32Array(m);
  }

  /* --- writing (the parser) ------------------------------------------------------------ */

  /** Add a text (an expansion line); returns its id. */
  addText(text: string): number {
    this.texts.push(text);
    return this.texts.length - 1;
  }

  /** Start instruction n (its operands and modifiers follow); commit() ends it, rollback() drops it. */
  begin(): void {
    if (this.n + 1 >= this.opcode.length) this.growInsns();
    this.opBegin[this.n] = this.nOps;
    this.modBegin[this.n] = this.nMods;
  }

  commit(opcode: number, textId: number, tStart: number, tEnd: number, line: number, col: number, stmt: number): number {
    const i = this.n++;
    this.opcode[i] = opcode;
    this.textId[i] = textId;
    this.tStart[i] = tStart;
    this.tEnd[i] = tEnd;
    this.line[i] = line;
    this.col[i] = col;
    this.stmt[i] = stmt;
    this.opBegin[i + 1] = this.nOps;
    this.modBegin[i + 1] = this.nMods;
    return i;
  }

  /** Drop the operands and modifiers written since begin(). */
  rollback(): void {
    this.nOps = this.opBegin[this.n]!;
    this.nMods = this.modBegin[this.n]!;
  }

  /** Append a register operand; returns its index. */
  addRegister(start: number, end: number, file: number, first: number, count: number, index: number): number {
    const k = this.nOps++;
    if (k >= this.oKind.length) this.growOps();
    this.oKind[k] = OP_REG;
    this.oFile[k] = file;
    this.oFlags[k] = 0;
    this.oFirst[k] = first;
    this.oCount[k] = count;
    this.oIndex[k] = index;
    this.oStart[k] = start;
    this.oEnd[k] = end;
    this.oValue[k] = 0;
    this.oAux[k] = -1;
    return k;
  }

  /** Append an operand; returns its index. */
  addOperand(kind: number, start: number, end: number): number {
    const k = this.nOps++;
    if (k >= this.oKind.length) this.growOps();
    this.oKind[k] = kind;
    this.oFile[k] = 0;
    this.oFlags[k] = 0;
    this.oFirst[k] = 0;
    this.oCount[k] = 0;
    this.oIndex[k] = 0;
    this.oStart[k] = start;
    this.oEnd[k] = end;
    this.oValue[k] = 0;
    this.oAux[k] = -1;
    return k;
  }

  setAux(k: number, value: unknown): void {
    this.oAux[k] = this.aux.length;
    this.aux.push(value);
  }

  /** Append a modifier; returns its index. */
  addModifier(name: number, start: number, vStart: number, end: number, flags: number): number {
    const m = this.nMods++;
    if (m >= this.mName.length) this.growMods();
    this.mName[m] = name;
    this.mFlags[m] = flags;
    this.mStart[m] = start;
    this.mVStart[m] = vStart;
    this.mEnd[m] = end;
    this.mNum[m] = 0;
    this.mAux[m] = -1;
    return m;
  }

  /**
   * Append instruction i of `from` (its operands, modifiers and details as they are); its text
   * is this store's text `textId`, which must hold from's text at the same offsets.
   */
  appendFrom(from: InsnStore, i: number, textId: number): number {
    this.begin();
    this.copyRows(from, i, 0);
    return this.commit(from.opcode[i]!, textId, from.tStart[i]!, from.tEnd[i]!, from.line[i]!, from.col[i]!, from.stmt[i]!);
  }

  /**
   * Append a copy of this store's instruction i written elsewhere: its text is text `textId`
   * from `tStart` (the same characters as i's), its location `line`/`col`, its statement
   * `stmt`; its operands and modifiers are i's with their offsets moved along.
   */
  appendMoved(i: number, textId: number, tStart: number, line: number, col: number, stmt: number): number {
    return this.appendCopy(this, i, textId, tStart, line, col, stmt);
  }

  /** appendMoved of instruction i of the store `from` (another parse of the same line: ParseOptions.reuse). */
  appendCopy(from: InsnStore, i: number, textId: number, tStart: number, line: number, col: number, stmt: number): number {
    const d = tStart - from.tStart[i]!;
    this.begin();
    this.copyRows(from, i, d);
    return this.commit(from.opcode[i]!, textId, tStart, from.tEnd[i]! + d, line, col, stmt);
  }

  /** Whether instruction i keeps details in `aux` (an expression, a function, s_waitcnt's counters, a modifier list). */
  hasAux(i: number): boolean {
    for (let k = this.opBegin[i]!, e = this.opBegin[i + 1]!; k < e; k++) if (this.oAux[k]! >= 0) return true;
    for (let m = this.modBegin[i]!, e = this.modBegin[i + 1]!; m < e; m++) if (this.mAux[m]! >= 0) return true;
    return false;
  }

  /** The operands and modifiers of `from`'s instruction i as the ones of the instruction begun, their text offsets moved by d. */
  private copyRows(from: InsnStore, i: number, d: number): void {
    for (let k = from.opBegin[i]!, e = from.opBegin[i + 1]!; k < e; k++) {
      const c = this.addOperand(from.oKind[k]!, from.oStart[k]! + d, from.oEnd[k]! + d);
      this.oFile[c] = from.oFile[k]!;
      this.oFlags[c] = from.oFlags[k]!;
      this.oFirst[c] = from.oFirst[k]!;
      this.oCount[c] = from.oCount[k]!;
      this.oIndex[c] = from.oIndex[k]!;
      this.oValue[c] = from.oValue[k]!;
      if (from.oAux[k]! >= 0) this.setAux(c, from.aux[from.oAux[k]!]);
    }
    for (let m = from.modBegin[i]!, e = from.modBegin[i + 1]!; m < e; m++) {
      const f = from.mFlags[m]!;
      const c = this.addModifier(from.mName[m]!, from.mStart[m]! + d, f & MF_VALUE ? from.mVStart[m]! + d : from.mVStart[m]!, from.mEnd[m]! + d, f);
      this.mNum[c] = from.mNum[m]!;
      if (from.mAux[m]! >= 0) { this.mAux[c] = this.aux.length; this.aux.push(from.aux[from.mAux[m]!]); }
    }
  }

  private growInsns(): void {
    const c = this.opcode.length * 2;
    this.opcode = grow(this.opcode, c);
    this.textId = grow(this.textId, c);
    this.tStart = grow(this.tStart, c);
    this.tEnd = grow(this.tEnd, c);
    this.line = grow(this.line, c);
    this.col = grow(this.col, c);
    this.stmt = grow(this.stmt, c);
    this.opBegin = grow(this.opBegin, c + 1);
    this.modBegin = grow(this.modBegin, c + 1);
  }

  private growOps(): void {
    const c = this.oKind.length * 2;
    this.oKind = grow(this.oKind, c);
    this.oFile = grow(this.oFile, c);
    this.oFlags = grow(this.oFlags, c);
    this.oFirst = grow(this.oFirst, c);
    this.oCount = grow(this.oCount, c);
    this.oIndex = grow(this.oIndex, c);
    this.oStart = grow(this.oStart, c);
    this.oEnd = grow(this.oEnd, c);
    this.oValue = grow(this.oValue, c);
    this.oAux = grow(this.oAux, c);
  }

  private growMods(): void {
    const c = this.mName.length * 2;
    this.mName = grow(this.mName, c);
    this.mFlags = grow(this.mFlags, c);
    this.mStart = grow(this.mStart, c);
    this.mVStart = grow(this.mVStart, c);
    this.mEnd = grow(this.mEnd, c);
    this.mNum = grow(this.mNum, c);
    this.mAux = grow(this.mAux, c);
  }

  /* --- reading ------------------------------------------------------------------------- */

  /** The instruction's text as written (from the mnemonic, comments removed, trimmed). */
  text(i: number): string {
    return this.texts[this.textId[i]!]!.slice(this.tStart[i], this.tEnd[i]);
  }

  /** Whether the instruction's text (text(i)) holds `needle`, read in place (no string made). */
  textHas(i: number, needle: string): boolean {
    const T = this.texts[this.textId[i]!]!;
    const c0 = needle.charCodeAt(0);
    for (let p = this.tStart[i]!, last = this.tEnd[i]! - needle.length; p <= last; p++) {
      if (T.charCodeAt(p) === c0 && T.startsWith(needle, p)) return true;
    }
    return false;
  }

  mnemonic(i: number): string { return OPCODES.mnemonic[this.opcode[i]!]!; }
  base(i: number): string { return OPCODES.base[this.opcode[i]!]!; }

  loc(i: number): Loc {
    if (this.lineMap) return this.lineMap.loc(this.line[i]! - 1, this.col[i]!);
    return { file: this.file, line: this.line[i]!, col: this.col[i]! };
  }

  /**
   * Operand k's location: its own column when instruction i is read from the file's text (text 0),
   * as llvm-mc points at the operand; the instruction's location for an expansion's line.
   */
  operandLoc(i: number, k: number): Loc {
    const l = this.loc(i);
    return this.textId[i] === 0 ? { ...l, col: l.col + this.oStart[k]! - this.tStart[i]! } : l;
  }

  /** Operand k's text. */
  operandText(i: number, k: number): string {
    return this.texts[this.textId[i]!]!.slice(this.oStart[k], this.oEnd[k]);
  }

  /** Modifier m's text. */
  modifierText(i: number, m: number): string {
    return this.texts[this.textId[i]!]!.slice(this.mStart[m], this.mEnd[m]);
  }

  /** Modifier m's value text (undefined for a bare keyword). */
  modifierValue(i: number, m: number): string | undefined {
    return this.mFlags[m]! & MF_VALUE ? this.texts[this.textId[i]!]!.slice(this.mVStart[m], this.mEnd[m]) : undefined;
  }

  /** Index of the first modifier of instruction i named `name` (a MODIFIER_NAMES id), or -1. */
  findModifier(i: number, name: number): number {
    for (let m = this.modBegin[i]!, e = this.modBegin[i + 1]!; m < e; m++) if (this.mName[m] === name) return m;
    return -1;
  }

  /** The object form of operand k of instruction i (a new object). */
  operandAt(i: number, k: number): Operand {
    const kind = this.oKind[k]!;
    const text = this.operandText(i, k);
    let o: Operand;
    switch (kind) {
      case OP_REG:
        o = { kind: 'reg', file: FILE_NAMES[this.oFile[k]!]!, first: this.oFirst[k]!, count: this.oCount[k]!, index: this.oIndex[k]!, text };
        break;
      case OP_IMM:
        o = { kind: 'imm', value: this.oValue[k]!, float: (this.oFlags[k]! & OPF_FLOAT) !== 0, ...(this.oFlags[k]! & OPF_INEXACT ? { inexact: true as const } : {}), text };
        break;
      case OP_EXPR:
        o = { kind: 'expr', text, symbols: [...(this.aux[this.oAux[k]!] as string[])] };
        break;
      case OP_OFF:
        return { kind: 'off', text };
      case OP_CONST:
        o = { kind: 'const', name: this.aux[this.oAux[k]!] as string, text };
        break;
      case OP_WAITCNT: {
        const w = this.aux[this.oAux[k]!] as WaitcntAux;
        if (w.raw !== undefined) return { kind: 'waitcnt', raw: w.raw, vmcnt: w.vmcnt, expcnt: w.expcnt, lgkmcnt: w.lgkmcnt, text };
        const op: Operand = { kind: 'waitcnt', text };
        if (w.vmcnt !== undefined) op.vmcnt = w.vmcnt;
        if (w.expcnt !== undefined) op.expcnt = w.expcnt;
        if (w.lgkmcnt !== undefined) op.lgkmcnt = w.lgkmcnt;
        return op;
      }
      default: {
        const f = this.aux[this.oAux[k]!] as FuncAux;
        return { kind: 'func', name: f.name, args: [...f.args], text };
      }
    }
    const fl = this.oFlags[k]! & (OPF_NEG | OPF_ABS | OPF_SEXT);
    if (fl) {
      const mods: SourceMods = {};
      if (fl & OPF_NEG) mods.neg = true;
      if (fl & OPF_ABS) mods.abs = true;
      if (fl & OPF_SEXT) mods.sext = true;
      o.mods = mods;
    }
    return o;
  }

  /** The object form of modifier m of instruction i (a new object). */
  modifierAt(i: number, m: number): Modifier {
    const name = MODIFIER_NAMES.str(this.mName[m]!);
    const text = this.modifierText(i, m);
    const f = this.mFlags[m]!;
    if (!(f & MF_VALUE)) return { name, text };
    const mod: Modifier = { name, value: this.modifierValue(i, m), text };
    if (f & MF_LIST) mod.list = [...(this.aux[this.mAux[m]!] as number[])];
    if (f & MF_NUM) mod.num = this.mNum[m];
    return mod;
  }

  /** A new plain Instruction object for instruction i (what parseInstructionText returns). */
  plainInstruction(i: number): Instruction {
    const operands: Operand[] = [];
    for (let k = this.opBegin[i]!, e = this.opBegin[i + 1]!; k < e; k++) operands.push(this.operandAt(i, k));
    const modifiers: Modifier[] = [];
    for (let m = this.modBegin[i]!, e = this.modBegin[i + 1]!; m < e; m++) modifiers.push(this.modifierAt(i, m));
    const op = this.opcode[i]!;
    return {
      mnemonic: OPCODES.mnemonic[op]!, base: OPCODES.base[op]!, suffix: OPCODES.suffix[op], operands, modifiers,
      text: this.text(i), loc: this.loc(i), stmt: this.stmt[i]! === 0xffffffff ? -1 : this.stmt[i]!,
    };
  }
}

/** The kind name of an OP_* code. */
export function operandKindName(kind: number): Operand['kind'] {
  return OP_KIND_NAMES[kind]!;
}

/**
 * An Instruction read from a store: the mnemonic's fields are set when it is made (shared
 * strings), the others computed from the typed arrays when asked, its operands and modifiers
 * built on first access and kept. `store` and `index` give the numbers directly.
 */
export class StoredInstruction implements Instruction {
  readonly mnemonic: string;
  readonly base: string;
  readonly suffix: EncodingSuffix;
  readonly #s: InsnStore;
  readonly #i: number;
  #ops: Operand[] | undefined;
  #mods: Modifier[] | undefined;

  constructor(store: InsnStore, i: number) {
    const op = store.opcode[i]!;
    this.mnemonic = OPCODES.mnemonic[op]!;
    this.base = OPCODES.base[op]!;
    this.suffix = OPCODES.suffix[op];
    this.#s = store;
    this.#i = i;
    this.#ops = undefined;
    this.#mods = undefined;
  }

  /** The store this instruction lives in. */
  get store(): InsnStore { return this.#s; }
  /** Its index in the store (= its index in Program.instructions). */
  get index(): number { return this.#i; }

  get text(): string { return this.#s.text(this.#i); }
  get loc(): Loc { return this.#s.loc(this.#i); }
  get stmt(): number { return this.#s.stmt[this.#i]!; }

  get operands(): Operand[] {
    if (this.#ops === undefined) {
      const s = this.#s;
      const i = this.#i;
      const b = s.opBegin[i]!;
      const e = s.opBegin[i + 1]!;
      const ops: Operand[] = new Array(e - b);
      for (let k = b; k < e; k++) ops[k - b] = s.operandAt(i, k);
      this.#ops = ops;
    }
    return this.#ops;
  }

  get modifiers(): Modifier[] {
    if (this.#mods === undefined) {
      const s = this.#s;
      const i = this.#i;
      const b = s.modBegin[i]!;
      const e = s.modBegin[i + 1]!;
      const mods: Modifier[] = new Array(e - b);
      for (let m = b; m < e; m++) mods[m - b] = s.modifierAt(i, m);
      this.#mods = mods;
    }
    return this.#mods;
  }
}

/**
 * Whether a register operand of `insn` overlaps registers first..first+count-1 of `file`, read
 * from the store's rows when the instruction lives in one (no operand objects made).
 */
export function namesRegisters(insn: Instruction, file: RegOperand['file'], first: number, count: number): boolean {
  if (insn instanceof StoredInstruction) {
    const s = insn.store;
    const i = insn.index;
    for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
      if (s.oKind[k] !== OP_REG || FILE_NAMES[s.oFile[k]!] !== file) continue;
      if (s.oFirst[k]! < first + count && first < s.oFirst[k]! + s.oCount[k]!) return true;
    }
    return false;
  }
  return insn.operands.some((o) => o.kind === 'reg' && o.file === file && o.first < first + count && first < o.first + o.count);
}

/**
 * Called for each register operand: its file, first register unit, count, index as written, and
 * its position among the instruction's operands (operandText gives its text).
 */
export type RegisterVisit = (file: RegOperand['file'], first: number, count: number, index: number, at: number) => void;

/**
 * The register operands of an instruction, in order, without building operand objects when the
 * instruction lives in a store (the same values as `insn.operands` filtered to kind 'reg').
 */
export function forEachRegister(insn: Instruction, visit: RegisterVisit): void {
  if (insn instanceof StoredInstruction) {
    const s = insn.store;
    const i = insn.index;
    const b = s.opBegin[i]!;
    for (let k = b, e = s.opBegin[i + 1]!; k < e; k++) {
      if (s.oKind[k] !== OP_REG) continue;
      visit(FILE_NAMES[s.oFile[k]!]!, s.oFirst[k]!, s.oCount[k]!, s.oIndex[k]!, k - b);
    }
    return;
  }
  const ops = insn.operands;
  for (let k = 0; k < ops.length; k++) {
    const o = ops[k]!;
    if (o.kind === 'reg') visit(o.file, o.first, o.count, o.index, k);
  }
}

/**
 * Does an operand of the instruction name a symbol (an expression with symbols)? Read from the
 * store without building operand objects when the instruction lives in one (the same answer as
 * `insn.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0)`).
 */
export function namesSymbol(insn: Instruction): boolean {
  if (insn instanceof StoredInstruction) {
    const s = insn.store;
    const i = insn.index;
    for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
      if (s.oKind[k] === OP_EXPR && (s.aux[s.oAux[k]!] as readonly string[]).length > 0) return true;
    }
    return false;
  }
  return insn.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0);
}

/**
 * Does an operand of the instruction name one of the constants `names` (an operand of kind
 * 'const')? Read from the store without building operand objects when the instruction lives in
 * one (the same answer as `insn.operands.some((o) => o.kind === 'const' && names.includes(o.name))`).
 */
export function namesConstant(insn: Instruction, names: readonly string[]): boolean {
  if (insn instanceof StoredInstruction) {
    const s = insn.store;
    const i = insn.index;
    for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
      if (s.oKind[k] === OP_CONST && names.includes(s.aux[s.oAux[k]!] as string)) return true;
    }
    return false;
  }
  return insn.operands.some((o) => o.kind === 'const' && names.includes(o.name));
}

/** The text of operand `at` of an instruction (from the store's offsets when it lives in one). */
export function operandText(insn: Instruction, at: number): string {
  if (insn instanceof StoredInstruction) return insn.store.operandText(insn.index, insn.store.opBegin[insn.index]! + at);
  return insn.operands[at]!.text;
}
