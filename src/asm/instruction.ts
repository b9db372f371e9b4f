/**
 * One instruction statement -> the instruction store: mnemonic, operands and trailing
 * modifiers, in the operand grammar of LLVM's AMDGPU assembler. Operands may be separated by
 * commas or by blanks (Tensile writes `v_add_u32 v[1] v[2] v[3]`); an operand that is an
 * expression is read greedily, as LLVM does, so `vcc -1` is two operands but `4 -1` is the
 * expression 3.
 *
 * The scanner reads a range of a larger text (a line of the file, without copying it) and
 * writes numbers into an InsnStore; `parseInstructionText` is the same scanner on a string of
 * its own, returning the object form.
 */
import type { Instruction, Loc } from './ast.js';
import { ExprError, charLiteralLength, evalExpr, evalRange, exprEnd, exprFloat, exprInexact, exprUnresolved, quotedEnd, scanExpr } from './expr.js';
import type { RangeLookup, SymbolLookup } from './expr.js';
import { Interner, isSpace, trimEndAt } from './intern.js';
import {
  FILE_A, FILE_S, FILE_SPECIAL, FILE_TTMP, FILE_V, InsnStore, MF_LIST, MF_NUM, MF_VALUE, MODIFIER_NAMES, OPCODES, OPC_IMAGE, OPC_VMEM, OPC_WAITCNT, OPF_ABS,
  OPF_FLOAT, OPF_INEXACT, OPF_LIT, OPF_NEG, OPF_SEXT, OP_CONST, OP_EXPR, OP_FUNC, OP_IMM, OP_OFF, OP_WAITCNT,
} from './store.js';
import type { FuncAux, WaitcntAux } from './store.js';
import { ConductorError } from '../errors.js';
import { AGPR_BASE, CONSTANT_SOURCES, SPECIAL_REGISTERS, TTMP_BASE, VGPR_BASE } from './registers.js';

export type { SymbolLookup } from './expr.js';
export { splitMnemonic } from './store.js';

/** Keyword modifiers written without a value. */
export const BARE_MODIFIERS: ReadonlySet<string> = new Set([
  'glc', 'slc', 'nt', 'sc0', 'sc1', 'offen', 'idxen', 'addr64', 'lds', 'gds', 'clamp', 'tfe', 'lwe', 'da', 'r128',
  'a16', 'unorm', 'd16', 'done', 'vm', 'compr', 'row_mirror', 'row_half_mirror', 'high', 'nv', 'dlc', 'scc',
  // Negated spellings LLVM 22 accepts (oracle: llvm-mc -mcpu=gfx906 on buffer/global/ds/exp/VOP3 probes).
  'noglc', 'noslc', 'nogds', 'nocompr', 'novm', 'noclamp',
]);

/** Modifiers whose value is a [list] of bits, one per operand (at most 4: three sources and the destination). */
const BIT_LIST_MODIFIERS: ReadonlySet<string> = new Set(['op_sel', 'op_sel_hi', 'neg_lo', 'neg_hi']);
const MAX_BIT_LIST = 4;

/** Waitcnt counter spellings accepted inside s_waitcnt. */
const WAITCNT_FIELDS = new Set(['vmcnt', 'expcnt', 'lgkmcnt', 'vmcnt_sat', 'expcnt_sat', 'lgkmcnt_sat']);
/**
 * The largest value of each counter field of GFX9 s_waitcnt (vmcnt 6 bits split over 3:0 and
 * 15:14, expcnt 3 bits, lgkmcnt 4 bits: LLVM AMDGPUBaseInfo.cpp getVmcntBitMask /
 * getExpcntBitMask / getLgkmcntBitMask for GFX9), the same on every target Conductor reads.
 */
const WAITCNT_MAX = { vmcnt: 63, expcnt: 7, lgkmcnt: 15 } as const;

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 46 || c === 36;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/* ------------------------------------------------------------------------------------------ */
/* Words                                                                                       */
/* ------------------------------------------------------------------------------------------ */

/*
 * Every identifier the scanner classifies is interned (WORDS): its lower-case form, what it is
 * (a bare modifier, `off`, a constant source, a special register, a source modifier function)
 * and its opcode are computed once per distinct spelling.
 */
let WORDS = new Interner();
const W_OTHER = 0;
const W_BARE = 1;
const W_OFF = 2;
const W_CONST = 3;
const W_SPECIAL = 4;
const W_SRCMOD = 5;
let wordLower: string[] = [];
let wordClass = new Uint8Array(256);
let wordOpcode = new Int32Array(256);
let wordMod = new Int32Array(256);
/** True when the lower-case word matches /^[a-z_][a-z0-9_]*$/ (a function-like operand's name). */
let wordFuncName = new Uint8Array(256);

function wordId(text: string, start: number, end: number): number {
  const id = WORDS.id(text, start, end);
  if (id === wordLower.length) classifyWord(id);
  return id;
}
// Every id of WORDS is classified: only wordId interns into it.

/** More distinct words than a program has: the table starts again (a long process reading many files). */
const WORDS_LIMIT = 1 << 20;

/**
 * Start the word table again when it has grown past WORDS_LIMIT. Word ids live only while one
 * text is read (opcode ids, kept in stores, are OPCODES', not words'): call between programs.
 */
export function trimWords(): void {
  if (WORDS.size < WORDS_LIMIT) return;
  WORDS = new Interner();
  wordLower = [];
  wordClass = new Uint8Array(256);
  wordOpcode = new Int32Array(256);
  wordMod = new Int32Array(256);
  wordFuncName = new Uint8Array(256);
}

function classifyWord(id: number): void {
  if (id >= wordClass.length) {
    const n = wordClass.length * 2;
    const c = new Uint8Array(n); c.set(wordClass); wordClass = c;
    const o = new Int32Array(n); o.set(wordOpcode); wordOpcode = o;
    const m = new Int32Array(n); m.set(wordMod); wordMod = m;
    const f = new Uint8Array(n); f.set(wordFuncName); wordFuncName = f;
  }
  const lower = WORDS.str(id).toLowerCase();
  wordLower.push(lower);
  wordClass[id] = BARE_MODIFIERS.has(lower) ? W_BARE : lower === 'off' ? W_OFF : CONSTANT_SOURCES.has(lower) ? W_CONST
    : Object.hasOwn(SPECIAL_REGISTERS, lower) && lower !== 'scc' && lower !== 'mode' ? W_SPECIAL
      : lower === 'abs' || lower === 'neg' || lower === 'sext' ? W_SRCMOD : W_OTHER;
  wordOpcode[id] = -1;
  wordMod[id] = -1;
  wordFuncName[id] = /^[a-z_][a-z0-9_]*$/.test(lower) ? 1 : 0;
}

/** The opcode of the mnemonic text[start, end) (as written; lower-cased). */
export function opcodeOfWord(text: string, start: number, end: number): number {
  return opcodeOfWordId(wordId(text, start, end));
}

/** The opcode of a word (wordIdOf) read as a mnemonic. */
export function opcodeOfWordId(id: number): number {
  let op = wordOpcode[id]!;
  if (op < 0) { op = OPCODES.of(wordLower[id]!); wordOpcode[id] = op; }
  return op;
}

/** The word id of text[start, end) (interned, classified). */
export function wordIdOf(text: string, start: number, end: number): number {
  return wordId(text, start, end);
}
export function wordString(id: number): string { return WORDS.str(id); }
export function wordLowerOf(id: number): string { return wordLower[id]!; }

/** The interned string of text[start, end). */
export function internWord(text: string, start: number, end: number): string {
  return WORDS.str(wordId(text, start, end));
}

function modifierNameOf(id: number): number {
  let m = wordMod[id]!;
  if (m < 0) { m = MODIFIER_NAMES.idOf(wordLower[id]!); wordMod[id] = m; }
  return m;
}

/* ------------------------------------------------------------------------------------------ */
/* Scanner state                                                                               */
/* ------------------------------------------------------------------------------------------ */

/*
 * The scanner reads T[P, E) and writes into S. Error columns: COLB + position + 1. A few
 * module-level functions over these variables, no objects per instruction.
 */
let T = '';
let P = 0;
let E = 0;
let COLB = 0;
let LOCF = '';
let LOCL = 0;
let LK: SymbolLookup = () => undefined;
let RL: RangeLookup | undefined;
let S: InsnStore = new InsnStore('', '');

function cc(p: number): number {
  return p < E ? T.charCodeAt(p) : -1;
}

function ws(): void {
  while (P < E) {
    const c = T.charCodeAt(P);
    if (c === 32 || c === 9) P++;
    else break;
  }
}

function ident(): void {
  while (P < E && isIdentChar(T.charCodeAt(P))) P++;
}

function error(message: string, at = P): ConductorError {
  return new ConductorError(message, { file: LOCF, line: LOCL, col: COLB + at + 1 });
}

function lookupWord(id: number): number | undefined {
  return LK(WORDS.str(id));
}

/**
 * Scan one instruction in text[start, end) into `store` as its next instruction; returns its
 * index. `col` is the column of text[start] (errors point into the text from it); `line` is
 * the line for errors. The instruction's location is `at` (line, column of the mnemonic when
 * undefined). Throws ConductorError on a syntax error (nothing is stored then).
 */
export function scanInstruction(store: InsnStore, textId: number, start: number, end: number, file: string, line: number, col: number,
  lookup: SymbolLookup, rangeLookup: RangeLookup | undefined, stmt: number, at?: { line: number; col: number }, word = -1): number {
  const text = store.texts[textId]!;
  const sT = T, sP = P, sE = E, sC = COLB, sF = LOCF, sL = LOCL, sLK = LK, sRL = RL, sS = S;
  T = text; P = start; E = end; COLB = col - 1 - start; LOCF = file; LOCL = line; LK = lookup; RL = rangeLookup; S = store;
  store.begin();
  try {
    ws();
    const mStart = P;
    ident();
    if (P === mStart) throw error('expected an instruction mnemonic');
    const opcode = word >= 0 && mStart === start && WORDS.str(word).length === P - mStart ? opcodeOfWordId(word) : opcodeOfWord(T, mStart, P);
    const flags = OPCODES.flags[opcode]!;
    if (flags & OPC_WAITCNT) {
      ws();
      if (P < E) parseWaitcnt();
      ws();
      if (P < E) throw error(`unexpected '${T.slice(P, E)}' after s_waitcnt operand`);
    } else {
      const isImage = (flags & OPC_IMAGE) !== 0;
      const isVmem = (flags & OPC_VMEM) !== 0;
      let sawComma = true;
      for (;;) {
        ws();
        if (P >= E) break;
        if (T.charCodeAt(P) === 44 /* , */) {
          if (sawComma && S.nOps + S.nMods > S.opBegin[S.n]! + S.modBegin[S.n]!) throw error('unexpected comma');
          sawComma = true;
          P++;
          continue;
        }
        sawComma = false;
        parseItem(isImage, isVmem);
      }
    }
    const tEnd = trimEndAt(T, mStart, E);
    return store.commit(opcode, textId, mStart, tEnd, at ? at.line : line, at ? at.col : COLB + mStart + 1, stmt);
  } catch (e) {
    store.rollback();
    throw e;
  } finally {
    T = sT; P = sP; E = sE; COLB = sC; LOCF = sF; LOCL = sL; LK = sLK; RL = sRL; S = sS;
  }
}

/**
 * Parse one instruction. `text` is the statement without comments; `loc.col` is the column of
 * text[0] in the source line. Throws ConductorError (with line and column) on a syntax error.
 */
export function parseInstructionText(text: string, loc: Loc, lookup: SymbolLookup, stmt = -1): Instruction {
  const store = new InsnStore(loc.file, text, 4);
  const i = scanInstruction(store, 0, 0, text.length, loc.file, loc.line, loc.col, lookup, undefined, stmt >>> 0);
  return store.plainInstruction(i);
}

/* ------------------------------------------------------------------------------------------ */
/* Items: modifiers and operands                                                               */
/* ------------------------------------------------------------------------------------------ */

function parseItem(isImage: boolean, isVmem: boolean): void {
  const start = P;
  const c = T.charCodeAt(start);
  if (isIdentStart(c) && c !== 46 /* '.' starts a label expression */) {
    ident();
    const idEnd = P;
    const next = cc(P);
    // (`v0@rel32@lo`: a symbol spelled like a register, read by parseOperand)
    if (next !== 58 && next !== 40 && next !== 64 /* @ */) {
      // v12, s4, acc3, ttmp5 (and v[ of a range): no modifier or function is spelled so (a16 on image instructions is)
      const plen = regPrefixLength(start);
      if (plen > 0) {
        if (start + plen === idEnd) {
          if (next === 91) { P = start; parseOperand(); return; }
        } else if (allDigits(start + plen, idEnd) && !(isImage && idEnd - start === 3 && startsWithLower(start, idEnd, 'a16'))) {
          let v = 0;
          for (let k = start + plen; k < idEnd; k++) v = v * 10 + T.charCodeAt(k) - 48;
          makeReg(fileOfPrefix(start, plen), v, 1, start);
          S.addRegister(start, idEnd, rFile, rFirst, rCount, rIndex);
          return;
        }
      }
    }
    const id = wordId(T, start, idEnd);
    if (next === 58 /* : */ && cc(P + 1) !== 58) {
      parseModifier(start, idEnd, id);
      return;
    }
    const wc = wordClass[id]!;
    // `a16` is also AGPR 16: it is the MIMG address-size modifier only on image instructions;
    // `scc` is a cache-policy modifier only on vector memory instructions (elsewhere src_scc)
    if (wc === W_BARE && lookupWord(id) === undefined && (wordLower[id] !== 'a16' || isImage) && (wordLower[id] !== 'scc' || isVmem)) {
      S.addModifier(modifierNameOf(id), start, 0, idEnd, 0);
      return;
    }
    if (wc === W_OFF) {
      S.addOperand(OP_OFF, start, idEnd);
      return;
    }
    // abs(...), neg(...), sext(...) are operand modifiers: parseOperand reads them.
    if (next === 40 /* ( */ && wc !== W_SRCMOD && wordFuncName[id] && lookupWord(id) === undefined && !isLit(start, idEnd)) {
      // hwreg(...), sendmsg(...), swizzle(...), gpr_idx(...)
      const close = matchClose(T, P, '(', ')', E);
      if (close < 0) throw error(`missing ')' in ${WORDS.str(id)}(`);
      const argText = T.slice(P + 1, close);
      P = close + 1;
      const k = S.addOperand(OP_FUNC, start, P);
      const args = splitTopLevel(argText);
      S.setAux(k, { name: wordLower[id]!, args, vals: args.map((a) => evalExpr(a, LK) ?? null) } satisfies FuncAux);
      return;
    }
    P = start;
  }
  parseOperand();
}

function allDigits(start: number, end: number): boolean {
  for (let k = start; k < end; k++) {
    const d = T.charCodeAt(k);
    if (d < 48 || d > 57) return false;
  }
  return true;
}

/** The register file of a prefix of length plen at start (regPrefixLength). */
function fileOfPrefix(start: number, plen: number): number {
  if (plen === 1) {
    const c = T.charCodeAt(start) | 0x20;
    return c === 118 ? FILE_V : c === 115 ? FILE_S : FILE_A;
  }
  return plen === 3 ? FILE_A : FILE_TTMP;
}

/** name:value (the identifier text[start, idEnd) is the name; P is at the ':'). */
function parseModifier(start: number, idEnd: number, id: number): void {
  const lower = wordLower[id]!;
  P++;
  while (P < E && isSpace(T.charCodeAt(P))) P++;
  const vStart = P;
  readModifierValue();
  const vEnd = P;
  const bracket = vEnd > vStart && T.charCodeAt(vStart) === 91 /* [ */;
  const wantsList = BIT_LIST_MODIFIERS.has(lower) || lower === 'quad_perm';
  if (wantsList && !bracket) throw error('expected a left square bracket', vStart);
  let flags = MF_VALUE;
  let num = 0;
  let list: number[] | undefined;
  if (bracket && wantsList) {
    list = parseModifierList(T.slice(vStart, vEnd), vStart);
    if (BIT_LIST_MODIFIERS.has(lower)) {
      if (list.length > MAX_BIT_LIST) throw error('expected a closing square bracket', vStart);
      if (list.some((b) => b !== 0 && b !== 1)) throw error(`invalid ${lower} value`, vStart);
    } else if (lower === 'quad_perm' && (list.length !== 4 || list.some((b) => b < 0 || b > 3))) {
      throw error('invalid quad_perm value: four lane selects 0..3 expected', vStart);
    }
  } else if (bracket) {
    // Other lists (format:[BUF_DATA_FORMAT_32, BUF_NUM_FORMAT_FLOAT]) may hold names: keep numbers when all evaluate.
    const items = T.slice(vStart + 1, vEnd - 1).split(',').map((x) => evalExpr(x.trim(), LK));
    if (items.every((x) => x !== undefined)) list = items as number[];
  } else {
    const d = plainDecimal(vStart, vEnd);
    const n = d >= 0 ? d : evalRange(T, vStart, vEnd, LK, RL);
    if (n !== undefined) { flags |= MF_NUM; num = n; }
  }
  if (vEnd === vStart) throw error(`expected a value after '${T.slice(start, idEnd)}:'`, vStart);
  const m = S.addModifier(modifierNameOf(id), start, vStart, vEnd, flags);
  S.mNum[m] = num;
  if (list) {
    S.mFlags[m] = flags | MF_LIST;
    S.mAux[m] = S.aux.length;
    S.aux.push(list);
  }
}

/** One operand: a register (with -, |..|, abs/neg/sext wrappers), a constant source, or an expression. Returns its index. */
function parseOperand(): number {
  ws();
  const start = P;
  const c = cc(start);
  if (c === 45 /* - */ && (isRegisterAhead(start + 1) || litAhead(start + 1))) {
    P++;
    const k = parseOperand();
    if (S.oFlags[k]! & OPF_LIT) throw error('invalid operand for instruction: lit() takes no source modifier', start);
    S.oFlags[k] |= OPF_NEG;
    S.oStart[k] = start;
    S.oEnd[k] = P;
    return k;
  }
  if (c === 124 /* | */) {
    P++;
    const k = parseOperand();
    ws();
    if (cc(P) !== 124) throw error("expected '|' to close an absolute value");
    if (S.oFlags[k]! & OPF_LIT) throw error('not a valid operand.: lit() takes no source modifier', start);
    P++;
    S.oFlags[k] |= OPF_ABS;
    S.oStart[k] = start;
    S.oEnd[k] = P;
    return k;
  }
  if (c === 91 /* [ */) return parseRegisterList();
  if (tryRegister()) {
    // a symbol spelled like a register and followed by a relocation specifier (`v0@rel32@lo+4`:
    // llc names a global `v0` so) is the symbol, as llvm-mc's lexer reads `v0@rel32@lo` as one name
    if (cc(P) !== 64 /* @ */) return addRegister(start);
    P = start;
  }
  if (isIdentStart(c)) {
    ident();
    if (isLit(start, P)) {
      let q = P;
      while (q < E && isSpace(T.charCodeAt(q))) q++;
      if (cc(q) === 40) return parseLit(start, q);
    }
    const id = wordId(T, start, P);
    const wc = wordClass[id]!;
    if (wc === W_CONST && lookupWord(id) === undefined) {
      const k = S.addOperand(OP_CONST, start, P);
      S.setAux(k, wordLower[id]!);
      return k;
    }
    // a source `scc` (parseItem leaves it to operands outside vector memory instructions): src_scc
    if (wc === W_BARE && wordLower[id] === 'scc' && lookupWord(id) === undefined) {
      const k = S.addOperand(OP_CONST, start, P);
      S.setAux(k, 'src_scc');
      return k;
    }
    if (wc === W_SRCMOD && cc(P) === 40 /* ( */) {
      const lower = wordLower[id]!;
      P++;
      const k = parseOperand();
      ws();
      if (cc(P) !== 41) throw error(`expected ')' to close ${lower}(`);
      P++;
      S.oFlags[k] |= lower === 'abs' ? OPF_ABS : lower === 'neg' ? OPF_NEG : OPF_SEXT;
      S.oStart[k] = start;
      S.oEnd[k] = P;
      return k;
    }
    P = start;
  }
  if ((c >= 48 && c <= 57) || c === 45) {
    const k = plainImmediate(start);
    if (k >= 0) return k;
  }
  const value = valueAt(start, E);
  const end = exprEnd;
  if (end === start) throw error(`unexpected '${T[start]}'`);
  P = end;
  let s = start;
  while (s < end && isSpace(T.charCodeAt(s))) s++;
  const e = trimEndAt(T, s, end);
  if (value === undefined) {
    const k = S.addOperand(OP_EXPR, s, e);
    S.setAux(k, exprUnresolved ?? []);
    return k;
  }
  const k = S.addOperand(OP_IMM, s, e);
  S.oValue[k] = value;
  if (exprFloat) S.oFlags[k] = OPF_FLOAT;
  if (exprInexact) S.oFlags[k] |= OPF_INEXACT;
  return k;
}

/** text[start, end) is `lit` (llvm-mc's forced-literal syntax; lower case only) and not a symbol. */
function isLit(start: number, end: number): boolean {
  return end - start === 3 && T.startsWith('lit', start) && LK('lit') === undefined;
}

/** `lit` then `(` at p (after a sign). */
function litAhead(p: number): boolean {
  let q = p;
  while (q < E && isIdentChar(T.charCodeAt(q))) q++;
  if (!isLit(p, q)) return false;
  while (q < E && isSpace(T.charCodeAt(q))) q++;
  return cc(q) === 40;
}

/**
 * lit(N): an immediate that llvm-mc 22 encodes as a 32-bit literal (AMDGPUAsmParser::parseImm
 * with the lit() modifier; on GFX9 too). N is a number or an expression, not a register or
 * another lit(). The operand is the immediate N, flagged OPF_LIT, spanning the whole text.
 */
function parseLit(start: number, open: number): number {
  const close = matchClose(T, open, '(', ')', E);
  if (close < 0) throw error("missing ')' in lit(", open);
  const sE = E;
  E = close;
  P = open + 1;
  let k: number;
  try {
    ws();
    if (P >= E || isLitAt(P)) throw error('unknown token in expression', P);
    k = parseOperand();
    ws();
    if (P < E) throw error(`unexpected '${T.slice(P, E)}' in lit()`, P);
  } finally {
    E = sE;
  }
  if (S.oKind[k] !== OP_IMM || S.oFlags[k]! & (OPF_NEG | OPF_ABS | OPF_SEXT)) throw error('unknown token in expression: lit() takes a number', open + 1);
  S.oFlags[k] |= OPF_LIT;
  S.oStart[k] = start;
  P = close + 1;
  S.oEnd[k] = P;
  return k;
}

function isLitAt(p: number): boolean {
  let q = p;
  while (q < E && isIdentChar(T.charCodeAt(q))) q++;
  return isLit(p, q);
}

function lowerAt(p: number, end: number): number {
  if (p >= end) return -1;
  const c = T.charCodeAt(p);
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** Does text at p (read as lower case) start with w, within end? */
function startsWithLower(p: number, end: number, w: string): boolean {
  if (p + w.length > end) return false;
  for (let k = 0; k < w.length; k++) if (lowerAt(p + k, end) !== w.charCodeAt(k)) return false;
  return true;
}

const REGISTER_AHEAD = ['|', 'abs(', 'neg(', 'sext(', 'acc', 'ttmp', 'vcc', 'exec', 'src_'];

/**
 * The value of T[start, end) when it is a plain decimal number (digits, no leading zero but
 * `0` itself, at most 15 digits: what the expression reader reads exactly so), else -1.
 */
function plainDecimal(start: number, end: number): number {
  const n = end - start;
  if (n <= 0 || n > 15 || (n > 1 && T.charCodeAt(start) === 48)) return -1;
  let v = 0;
  for (let k = start; k < end; k++) {
    const d = T.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * An immediate `N` or `-N` (plain decimal) at start that no operator continues: stored as the
 * expression reader would store it; returns its operand index, or -1 to read it as an expression.
 */
function plainImmediate(start: number): number {
  const neg = T.charCodeAt(start) === 45;
  const ds = neg ? start + 1 : start;
  let p = ds;
  while (p < E && T.charCodeAt(p) >= 48 && T.charCodeAt(p) <= 57) p++;
  const v = plainDecimal(ds, p);
  if (v < 0) return -1;
  if (p < E) {
    const c = T.charCodeAt(p);
    // a letter or '.' would make another literal (suffix, float, directional label)
    if (isIdentChar(c) || c === 39 || c === 34) return -1;
    let q = p;
    while (q < E && (T.charCodeAt(q) === 32 || T.charCodeAt(q) === 9)) q++;
    if (q < E && isOperatorStart(T.charCodeAt(q))) return -1;
  }
  P = p;
  const k = S.addOperand(OP_IMM, start, p);
  S.oValue[k] = neg ? -v : v;
  return k;
}

/** A character that may begin a binary operator (+ - * / % | ^ & < > = !). */
function isOperatorStart(c: number): boolean {
  return c === 43 || c === 45 || c === 42 || c === 47 || c === 37 || c === 124 || c === 94 || c === 38 || c === 60 || c === 62
    || c === 61 || c === 33;
}

/**
 * Does a register (or a register wrapped in a source modifier) start at p? As the pattern
 * /^(\||abs\(|neg\(|sext\(|[vsa]\[|[vsa]\d|acc|ttmp|vcc|exec|m0\b|src_)/ on the next eight
 * characters, lower-cased.
 */
function isRegisterAhead(p: number): boolean {
  const end = Math.min(E, p + 8);
  for (const w of REGISTER_AHEAD) if (startsWithLower(p, end, w)) return true;
  const l = lowerAt(p, end);
  if (l === 118 || l === 115 || l === 97) { // v s a
    const n = lowerAt(p + 1, end);
    if (n === 91 || (n >= 48 && n <= 57)) return true;
  }
  if (startsWithLower(p, end, 'm0')) {
    const n = lowerAt(p + 2, end);
    return !(n >= 0 && isIdentChar(n) && n !== 46 && n !== 36);
  }
  return false;
}

/** Length of a register-file prefix at `start` (v, s, a, acc, ttmp) followed by a digit or '[', else 0. */
function regPrefixLength(start: number): number {
  const c = cc(start) | 0x20;
  let len: number;
  if (c === 118 /* v */ || c === 115 /* s */) len = 1;
  else if (c === 97 /* a */) len = (cc(start + 1) | 0x20) === 99 && (cc(start + 2) | 0x20) === 99 ? 3 : 1;
  else if (c === 116 /* t */ && (cc(start + 1) | 0x20) === 116 && (cc(start + 2) | 0x20) === 109 && (cc(start + 3) | 0x20) === 112) len = 4;
  else return 0;
  const n = cc(start + len);
  return (n >= 48 && n <= 57) || n === 91 ? len : 0;
}

/* The register tryRegister read. */
let rFile = 0;
let rFirst = 0;
let rCount = 0;
let rIndex = 0;

function addRegister(start: number): number {
  return S.addRegister(start, P, rFile, rFirst, rCount, rIndex);
}

/** A register at P: true with rFile/rFirst/rCount/rIndex set and P past it; false (P unchanged) when there is none. */
function tryRegister(): boolean {
  const start = P;
  const plen = regPrefixLength(start);
  if (plen > 0) {
    const file = fileOfPrefix(start, plen);
    const p = start + plen;
    if (T.charCodeAt(p) === 91 /* [ */) {
      const close = matchClose(T, p, '[', ']', E);
      if (close < 0) throw error("missing ']' in register range", p);
      const colon = topLevelColonIn(p + 1, close);
      let lo: number;
      let hi: number;
      if (colon < 0) {
        lo = hi = regIndex(p + 1, close);
      } else {
        lo = regIndex(p + 1, colon);
        hi = regIndex(colon + 1, close);
      }
      if (hi < lo) throw error(`invalid register range: first register ${lo} is above last ${hi}`, start);
      P = close + 1;
      makeReg(file, lo, hi - lo + 1, start);
      return true;
    }
    // v12 / s4 / acc3 / ttmp5: the whole identifier must be prefix+digits.
    let e = p;
    let value = 0;
    while (e < E) {
      const d = T.charCodeAt(e);
      if (d >= 48 && d <= 57) { value = value * 10 + d - 48; e++; } else break;
    }
    if (e < E && isIdentChar(T.charCodeAt(e))) return false;
    P = e;
    makeReg(file, value, 1, start);
    return true;
  }
  let idEnd = start;
  while (idEnd < E && isIdentChar(T.charCodeAt(idEnd))) idEnd++;
  if (idEnd === start) return false;
  const id = wordId(T, start, idEnd);
  if (wordClass[id] === W_SPECIAL && lookupWord(id) === undefined) {
    const sp = SPECIAL_REGISTERS[wordLower[id]!]!;
    P = idEnd;
    rFile = FILE_SPECIAL;
    rFirst = sp[0];
    rCount = sp[1];
    rIndex = sp[0];
    return true;
  }
  return false;
}

function topLevelColonIn(from: number, to: number): number {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = T.charCodeAt(i);
    if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) depth--;
    else if (c === 58 && depth === 0) return i;
  }
  return -1;
}

/** A register index between from and to: digits (fast path) or an expression over .set symbols. */
function regIndex(from: number, to: number): number {
  let i = from;
  while (i < to && (T.charCodeAt(i) === 32 || T.charCodeAt(i) === 9)) i++;
  let j = i;
  let v = 0;
  while (j < to) {
    const d = T.charCodeAt(j);
    if (d >= 48 && d <= 57) { v = v * 10 + d - 48; j++; } else break;
  }
  let k = j;
  while (k < to && (T.charCodeAt(k) === 32 || T.charCodeAt(k) === 9)) k++;
  if (j > i && k === to && !(T.charCodeAt(i) === 48 && j - i > 1)) return v;
  if (j === i && RL !== undefined) {
    const sum = symbolPlusNumber(i, to);
    if (sum !== undefined) return checkedIndex(sum, from);
  }
  return evalRegIndex(from, to);
}

/**
 * `sym`, or `sym` followed by `+ N` / `- N` terms (N decimal without a leading zero), blanks
 * allowed around the operators, in T[i, to): the value when sym has one, else undefined (the
 * expression reader then says what is wrong). What Tensile writes in register indexes:
 * v[vgprValuC+68], v[vgprG2LB+4:vgprG2LB+4+3].
 */
function symbolPlusNumber(i: number, to: number): number | undefined {
  const c = T.charCodeAt(i);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36)) return undefined;
  let p = i + 1;
  while (p < to && isIdentChar(T.charCodeAt(p))) p++;
  const symEnd = p;
  for (;;) {
    while (p < to && (T.charCodeAt(p) === 32 || T.charCodeAt(p) === 9)) p++;
    if (p === to) break;
    const op = T.charCodeAt(p);
    if (op !== 43 && op !== 45) return undefined;
    p++;
    while (p < to && (T.charCodeAt(p) === 32 || T.charCodeAt(p) === 9)) p++;
    const ds = p;
    while (p < to && T.charCodeAt(p) >= 48 && T.charCodeAt(p) <= 57) p++;
    if (p === ds || (T.charCodeAt(ds) === 48 && p - ds > 1) || p - ds > 15) return undefined;
  }
  const v = RL!(T, i, symEnd);
  return v === undefined ? undefined : addTerms(v, T, symEnd, to);
}

/** v followed by the `± N` terms of T[from, to) (checked by symbolPlusNumber), added left to right as the expression reader adds them. */
function addTerms(v: number, t: string, from: number, to: number): number {
  let p = from;
  while (p < to) {
    const op = t.charCodeAt(p);
    if (op !== 43 && op !== 45) { p++; continue; }
    p++;
    while (t.charCodeAt(p) === 32 || t.charCodeAt(p) === 9) p++;
    let n = 0;
    while (p < to && t.charCodeAt(p) >= 48 && t.charCodeAt(p) <= 57) { n = n * 10 + t.charCodeAt(p) - 48; p++; }
    v = op === 43 ? v + n : v - n;
  }
  return v;
}

function checkedIndex(value: number, at: number): number {
  if (!Number.isInteger(value) || value < 0) throw error(`invalid register index ${value}`, at);
  return value;
}

/**
 * The value of the expression at [from, to) with the file's symbols (undefined when it does not
 * evaluate); its end in exprEnd. A syntax error is a ConductorError at its place, its message
 * after `prefix`.
 */
function valueAt(from: number, to: number, prefix = ''): number | undefined {
  try {
    return scanExpr(T, from, to, LK, RL);
  } catch (e) {
    if (e instanceof ExprError) throw error(prefix + e.message, e.pos);
    throw e;
  }
}

function evalRegIndex(from: number, to: number): number {
  const value = valueAt(from, to, 'invalid register index: ');
  for (let k = exprEnd; k < to; k++) {
    if (!isSpace(T.charCodeAt(k))) throw error(`invalid register index '${T.slice(from, to).trim()}'`, from);
  }
  if (value === undefined) throw error(`undefined symbol '${exprUnresolved![0]}' in register index`, from);
  return checkedIndex(value, from);
}

function makeReg(file: number, index: number, count: number, at: number): void {
  const limit = file === FILE_V ? 512 : file === FILE_A ? 256 : file === FILE_S ? 106 : 16;
  if (index + count > limit) throw error(`register index out of range: ${T.slice(at, P)}`, at);
  rFile = file;
  rFirst = file === FILE_V ? VGPR_BASE + index : file === FILE_A ? AGPR_BASE + index : file === FILE_S ? index : TTMP_BASE + index;
  rCount = count;
  rIndex = index;
}

/** [v0, v1, v2] register lists: consecutive registers of one file. */
function parseRegisterList(): number {
  const start = P;
  P++;
  const regs: number[] = [];
  for (;;) {
    ws();
    if (!tryRegister()) throw error('expected a register in register list');
    regs.push(rFile, rFirst, rCount, rIndex);
    ws();
    if (cc(P) === 44) { P++; continue; }
    if (cc(P) === 93) { P++; break; }
    throw error("expected ',' or ']' in register list");
  }
  let count = 0;
  for (let r = 0; r < regs.length; r += 4) {
    if (regs[r] !== regs[0] || regs[r + 1] !== regs[1]! + count) throw error('registers in a list must be consecutive', start);
    count += regs[r + 2]!;
  }
  rFile = regs[0]!;
  rFirst = regs[1]!;
  rCount = count;
  rIndex = regs[3]!;
  return addRegister(start);
}

/** Index of the bracket closing the one at openPos (before `end`, default the end of the text), or -1. */
export function matchClose(t: string, openPos: number, open: string, close: string, end = t.length): number {
  const o = open.charCodeAt(0);
  const c = close.charCodeAt(0);
  let depth = 0;
  for (let i = openPos; i < end; i++) {
    const x = t.charCodeAt(i);
    if (x === o) depth++;
    else if (x === c) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Split at `sep` outside parentheses, brackets, quoted strings and character literals; pieces trimmed. */
export function splitTopLevel(s: string, sep = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      const e = quotedEnd(s, i);
      if (e > 0) { i = e; continue; }
    } else if (c === "'") {
      const n = charLiteralLength(s, i);
      if (n > 0) { i += n - 1; continue; }
    }
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === sep && depth === 0) { out.push(s.slice(last, i).trim()); last = i + 1; }
  }
  const tail = s.slice(last).trim();
  if (tail !== '' || out.length > 0) out.push(tail);
  return out;
}

/** [a, b, ...]: every element an expression that evaluates to a number. */
function parseModifierList(value: string, at: number): number[] {
  const inner = value.slice(1, -1);
  if (inner.trim() === '') throw error('unknown token in expression: empty list', at);
  return inner.split(',').map((x) => {
    const v = evalExpr(x.trim(), LK);
    if (x.trim() === '' || v === undefined) throw error(`unknown token in expression: '${x.trim()}' in list`, at);
    return v;
  });
}

/** The value of a name:value modifier: a [list], a func(...), or a run up to a blank or a comma. */
function readModifierValue(): void {
  const s = P;
  if (cc(s) === 91 /* [ */) {
    const e = matchClose(T, s, '[', ']', E);
    if (e < 0) throw error("missing ']'", s);
    P = e + 1;
    return;
  }
  let depth = 0;
  while (P < E) {
    const c = T.charCodeAt(P);
    if (c === 40) depth++;
    else if (c === 41) depth--;
    else if (c === 44 && depth === 0) break;
    else if ((c === 32 || c === 9) && depth === 0) {
      // an expression goes on across blanks around a binary operator (`offset:1 * k_stride`,
      // `offset:4 + 4`), as llvm-mc reads it; any other word after a blank is the next item
      let q = P;
      while (q < E && isSpace(T.charCodeAt(q))) q++;
      if (!(isBinaryOperator(T.charCodeAt(q)) || (P > s && isBinaryOperator(T.charCodeAt(P - 1))))) break;
      P = q;
      continue;
    }
    P++;
  }
}

/** + - * / % & | ^ < > = ! (the first character of every binary operator of LLVM's expressions). */
function isBinaryOperator(c: number): boolean {
  return c === 43 || c === 45 || c === 42 || c === 47 || c === 37 || c === 38 || c === 124 || c === 94 || c === 60 || c === 62 || c === 61 || c === 33;
}

/**
 * s_waitcnt operands: `0`, an expression, or `vmcnt(N) expcnt(N) lgkmcnt(N)` joined by blanks,
 * `&` or `,`. A raw immediate is decoded with the GFX9 layout (vmcnt bits 3:0 and 15:14,
 * expcnt 6:4, lgkmcnt 11:8; LLVM AMDGPUBaseInfo.cpp decodeWaitcnt / getVmcntBitShiftLo/Hi,
 * getExpcntBitShift, getLgkmcntBitShift for GFX9).
 */
function parseWaitcnt(): void {
  const start = P;
  // `name (`: a counter when the name is one
  let q = start;
  while (q < E && (((T.charCodeAt(q) | 0x20) >= 97 && (T.charCodeAt(q) | 0x20) <= 122) || T.charCodeAt(q) === 95)) q++;
  const nameEnd = q;
  while (q < E && isSpace(T.charCodeAt(q))) q++;
  if (nameEnd > start && cc(q) === 40 && WAITCNT_FIELDS.has(T.slice(start, nameEnd).toLowerCase())) {
    const op: WaitcntAux = {};
    for (;;) {
      ws();
      if (P >= E) break;
      if (cc(P) === 38 || cc(P) === 44) { P++; continue; }
      const fStart = P;
      ident();
      const name = T.slice(fStart, P).toLowerCase();
      if (!WAITCNT_FIELDS.has(name)) throw error(`invalid counter name '${name}'`, fStart);
      ws();
      if (cc(P) !== 40) throw error(`expected '(' after ${name}`);
      const close = matchClose(T, P, '(', ')', E);
      if (close < 0) throw error(`missing ')' after ${name}(`);
      const d = plainDecimal(P + 1, close);
      const v = d >= 0 ? d : evalRange(T, P + 1, close, LK, RL);
      if (v === undefined || !Number.isInteger(v)) throw error(`invalid ${name} value '${T.slice(P + 1, close)}'`, P + 1);
      const field = name.replace('_sat', '') as 'vmcnt' | 'expcnt' | 'lgkmcnt';
      const max = WAITCNT_MAX[field];
      // llvm-mc 22 (encodeCnt): a value the field cannot hold is an error, except in the _sat
      // spellings, which clamp it; a counter written twice keeps the last value.
      if ((v < 0 || v > max) && name === field) throw error(`too large value for ${field}: ${field}(${T.slice(P + 1, close).trim()}) is outside 0..${max}`, P + 1);
      P = close + 1;
      op[field] = v < 0 || v > max ? max : v; // _sat: a negative value is a huge unsigned one
    }
    const k = S.addOperand(OP_WAITCNT, start, trimEndAt(T, start, P));
    S.setAux(k, op);
    return;
  }
  const value = valueAt(start, E);
  const end = exprEnd;
  if (value === undefined) throw error(`s_waitcnt operand '${T.slice(start, end).trim()}' does not evaluate to a number`, start);
  P = end;
  const raw = value & 0xffff;
  let s = start;
  while (s < end && isSpace(T.charCodeAt(s))) s++;
  const k = S.addOperand(OP_WAITCNT, s, trimEndAt(T, s, end));
  S.setAux(k, {
    raw, vmcnt: (raw & 0xf) | (((raw >> 14) & 0x3) << 4), expcnt: (raw >> 4) & 0x7, lgkmcnt: (raw >> 8) & 0xf,
  } satisfies WaitcntAux);
}

/** Symbol names in the store's expression operands (`1b` / `1f` are rewritten by the program parser). */
export function expressionSymbols(store: InsnStore, k: number): string[] {
  return store.aux[store.oAux[k]!] as string[];
}
