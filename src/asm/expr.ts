/**
 * Assembler expressions: integer arithmetic over numbers and symbols, with the operator
 * precedence of LLVM's GNU-style assembler (from lowest): || ; && ; comparisons ; + - ;
 * | ^ & ; * / % << >>. Unary: - ~ ! +.
 *
 * Literals are read as LLVM's assembler lexer reads them (AsmLexer::LexDigit, LexSingleQuote,
 * LexFloatLiteral, LexHexFloatLiteral; every form checked with llvm-mc 22, see
 * test/oracle/llvm-mc-literals.test.ts):
 *   - integers: decimal `[1-9][0-9]*`, octal `0[0-7]*`, hexadecimal `0x[0-9a-f]+`, binary
 *     `0b[01]+`, each followed by an ignored C suffix `U`, `L`, `UL`, `LL` or `ULL` in any case
 *     (AsmLexer's SkipIgnoredIntegerSuffix; `LU` is not one); there are no `0o` prefixes and no
 *     `h`/`b`/`o` radix suffixes (those are MASM-only); `08` is an invalid octal number; a
 *     value of 64 bits is signed (`0xffffffffffffffff` is -1), one of more bits an error;
 *   - characters: `'a'` and the escapes `'\n'`, `'\t'`, `'\r'`, `'\b'`, `'\f'`, `'\''`, `'\\'`;
 *   - floats: `1.5`, `1.`, `.5`, `1e3`, `2E-1`, and hexadecimal `0x1.8p1`;
 *   - directional labels: `1b` and `1f` name the nearest numeric label `1:` before or after
 *     (returned as the symbol `1b` / `1f`; the program parser resolves them);
 *   - quoted symbol names: `"my func"` is the symbol `my func`.
 *
 * Functions: the resource expressions LLVM's AMDGPU back end writes in descriptors and `.set`
 * lines (AMDGPUMCExpr: `max`, `or`, `alignto`, `totalnumvgprs`, `extrasgprs`), called as `name(a, b, ...)`.
 * `totalnumvgprs` depends on the target's register file, so its meaning is passed in
 * (`ExprFunctions`); a function the caller does not provide does not evaluate.
 */

import { isSpace } from './intern.js';

export interface ExprResult {
  /** The value, or undefined when a symbol is not (yet) known. */
  value: number | undefined;
  /** Symbols referenced that had no value. */
  unresolved: string[];
  /** True when a float literal was read. */
  float: boolean;
  /** Index in the input just past the expression. */
  end: number;
}

export type SymbolLookup = (name: string) => number | undefined;
/**
 * The value of the symbol text[start, end) (a plain identifier), read without copying it; the
 * program parser interns the name. Undefined when the symbol has no value.
 */
export type RangeLookup = (text: string, start: number, end: number) => number | undefined;

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 46 || c === 36;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean { return c >= 48 && c <= 57; }
function isHexDigit(c: number): boolean { return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70); }
function hexValue(c: number): number { return c <= 57 ? c - 48 : (c | 0x20) - 87; }

/**
 * Index of the closing quote of the string starting at `open` (a backslash escapes the next
 * character), or -1 when it is not closed before `end` (default: the end of the text).
 */
export function quotedEnd(text: string, open: number, end = text.length): number {
  for (let i = open + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/**
 * Length of the character literal starting at `at` ('c' or '\\c'), or 0 when there is none.
 * Comment and separator scanners skip such literals: `';'` is the number 59, not a comment.
 */
export function charLiteralLength(text: string, at: number, end = text.length): number {
  if (text.charCodeAt(at) !== 39) return 0;
  if (at + 1 < end && text.charCodeAt(at + 1) === 92) return at + 3 < end && text.charCodeAt(at + 3) === 39 ? 4 : 0;
  return at + 2 < end && text.charCodeAt(at + 2) === 39 ? 3 : 0;
}

/* Binary operators: ids, precedence (from lowest), spelling length. */
const OP_OROR = 1, OP_ANDAND = 2, OP_EQ = 3, OP_NE = 4, OP_LT = 5, OP_LE = 6, OP_GT = 7, OP_GE = 8, OP_ADD = 9,
  OP_SUB = 10, OP_OR = 11, OP_XOR = 12, OP_AND = 13, OP_MUL = 14, OP_DIV = 15, OP_MOD = 16, OP_SHL = 17, OP_SHR = 18;
const PREC = [0, 1, 2, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6];

/*
 * The scanner's state. Expressions are read by a few module-level functions over these
 * variables (no closures or objects per expression); scanExpr saves and restores them, so a
 * lookup that evaluates another expression is safe.
 */
let T = '';
let P = 0;
let E = 0;
let LK: SymbolLookup = () => undefined;
let RL: RangeLookup | undefined;
let UNRES: string[] | undefined;
let FLT = false;
/** An integer read or computed that a double does not hold exactly (beyond 2^53): see exprInexact. */
let INX = false;
let OPLEN = 0;
let FNS: ExprFunctions | undefined;

/** Functions an expression may call, by lower-case name. */
export type ExprFunctions = Readonly<Record<string, (args: number[]) => number | undefined>>;

const alignTo = (x: number, a: number) => (a > 0 ? Math.ceil(x / a) * a : undefined);

/** What AMDGPUMCExpr's target-dependent functions read of the target (undefined: unknown target). */
export interface McTarget {
  /** One VGPR/AGPR file (gfx90a+: totalnumvgprs). */
  unified?: boolean;
  /** Flat scratch set up by the hardware (gfx940+, LLVM FeatureArchitectedFlatScratch: extrasgprs). */
  architectedFlatScratch?: boolean;
}

/**
 * AMDGPUMCExpr's functions (LLVM AMDGPUMCExpr.cpp): max and or of any number of operands,
 * alignto(x, align); totalnumvgprs(agprs, vgprs) is alignto(vgprs, 4) + agprs when there are
 * AGPRs on a unified file (gfx90a+), max(vgprs, agprs) on separate files (gfx908);
 * extrasgprs(vcc_used, flat_scratch_used, xnack_used) the SGPRs a GFX9 kernel reserves past
 * its numbered ones (AMDGPUMCExpr::evaluateExtraSGPRs, AMDGPUBaseInfo getNumExtraSGPRs): 6 with
 * flat scratch used or architected (gfx940+), else 4 with XNACK, else 2 with VCC, else 0. Where
 * the target is unknown, only the cases every target agrees on evaluate.
 */
export function mcFunctions(t: McTarget = {}): ExprFunctions {
  const key = `${t.unified}/${t.architectedFlatScratch}`;
  let fns = MC_FUNCTIONS.get(key);
  if (!fns) { fns = makeMcFunctions(t); MC_FUNCTIONS.set(key, fns); }
  return fns;
}

/** The tables, built on first use (the parser asks for one per `.set` and descriptor line). */
const MC_FUNCTIONS = new Map<string, ExprFunctions>();

/** getNumExtraSGPRs of a GFX9 target (every target Conductor reads is one). */
function extraSgprs(vcc: boolean, flatScratch: boolean, xnack: boolean, architected: boolean): number {
  if (flatScratch || architected) return 6;
  if (xnack) return 4;
  return vcc ? 2 : 0;
}

function makeMcFunctions({ unified, architectedFlatScratch: arch }: McTarget): ExprFunctions {
  return {
    max: (a) => (a.length > 0 ? Math.max(...a) : undefined),
    or: (a) => (a.length > 0 ? a.reduce((x, y) => bitop(OP_OR, x, y)) : undefined),
    alignto: (a) => (a.length === 2 ? alignTo(a[0]!, a[1]!) : undefined),
    totalnumvgprs: (a) => {
      if (a.length !== 2) return undefined;
      const [agprs, vgprs] = a as [number, number];
      if (agprs === 0) return vgprs;
      if (unified === undefined) return undefined;
      return unified ? alignTo(vgprs, 4)! + agprs : Math.max(vgprs, agprs);
    },
    extrasgprs: (a) => {
      if (a.length !== 3) return undefined;
      const [vcc, flat, xnack] = a.map((x) => x !== 0) as [boolean, boolean, boolean];
      if (arch !== undefined) return extraSgprs(vcc, flat, xnack, arch);
      const n = extraSgprs(vcc, flat, xnack, false);
      return n === extraSgprs(vcc, flat, xnack, true) ? n : undefined;
    },
  };
}

/** `fn(a, b, ...)`, at the '('. */
function call(fn: (args: number[]) => number | undefined): number | undefined {
  P++;
  const args: (number | undefined)[] = [];
  for (;;) {
    args.push(binary(0));
    skipWs();
    if (cc(P) === 44 /* , */) { P++; continue; }
    if (cc(P) === 41 /* ) */) { P++; break; }
    throw new ExprError("expected ',' or ')' in a function's arguments", P);
  }
  return args.some((a) => a === undefined) ? undefined : fn(args as number[]);
}

/** After scanExpr: the index just past the expression. */
export let exprEnd = 0;
/** After scanExpr: whether a float literal was read. */
export let exprFloat = false;
/**
 * After scanExpr: whether an integer in it (a literal or a result) is beyond what a double holds
 * exactly (2^53): the value is then the nearest double, not the integer written.
 */
export let exprInexact = false;
/** After scanExpr: the symbols that had no value (undefined when every one had). */
export let exprUnresolved: string[] | undefined;

function cc(p: number): number {
  return p < E ? T.charCodeAt(p) : -1;
}

function skipWs(): void {
  while (P < E) {
    const c = T.charCodeAt(P);
    if (c === 32 || c === 9) P++;
    else break;
  }
}

/** The binary operator at P (after blanks), or 0; its length in OPLEN. */
function peekBinary(): number {
  skipWs();
  const c = cc(P);
  if (c < 0) return 0;
  const d = cc(P + 1);
  OPLEN = 2;
  if (c === 124 && d === 124) return OP_OROR;
  if (c === 38 && d === 38) return OP_ANDAND;
  if (c === 61 && d === 61) return OP_EQ;
  if (c === 33 && d === 61) return OP_NE;
  if (c === 60) {
    if (d === 62) return OP_NE;
    if (d === 61) return OP_LE;
    if (d === 60) return OP_SHL;
  }
  if (c === 62) {
    if (d === 61) return OP_GE;
    if (d === 62) return OP_SHR;
  }
  OPLEN = 1;
  switch (c) {
    case 43: return OP_ADD;
    case 45: return OP_SUB;
    case 42: return OP_MUL;
    case 47: return OP_DIV;
    case 37: return OP_MOD;
    case 124: return OP_OR;
    case 94: return OP_XOR;
    case 38: return OP_AND;
    case 60: return OP_LT;
    case 62: return OP_GT;
    default: return 0;
  }
}

function unresolved(name: string): undefined {
  (UNRES ??= []).push(name);
  return undefined;
}

function primary(): number | undefined {
  skipWs();
  const c = cc(P);
  if (c < 0) throw new ExprError('expected an expression', P);
  if (c === 40 /* ( */) {
    P++;
    const v = binary(0);
    skipWs();
    if (cc(P) !== 41) throw new ExprError("expected ')'", P);
    P++;
    return v;
  }
  if (c === 45 || c === 126 || c === 33 || c === 43) { // - ~ ! +
    P++;
    skipWs();
    const v = primary();
    if (v === undefined) return undefined;
    if (c === 45) return -v;
    if (c === 126) return Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff ? ~v : num64(BigInt.asIntN(64, ~BigInt(Math.trunc(v))));
    if (c === 33) return v === 0 ? 1 : 0;
    return v;
  }
  if (isDigit(c)) return number();
  if (c === 39 /* ' */) return charLiteral();
  if (c === 46 /* . */ && isDigit(cc(P + 1))) {
    // `.5` is a float unless the digits run on into an identifier (`.5foo`), as LexIdentifier decides.
    let e = P + 1;
    while (e < E && isDigit(T.charCodeAt(e))) e++;
    const n = cc(e);
    if (!isIdentChar(n) || n === 101 || n === 69) return floatTail(P, e);
  }
  if (c === 34 /* " */) {
    // A quoted symbol name: the text between the quotes, taken as written (LLVM does not unescape it).
    const s = P;
    const close = quotedEnd(T, P, E);
    if (close < 0) throw new ExprError('unterminated string constant', s);
    P = close + 1;
    return symbol(T.slice(s + 1, close));
  }
  if (isIdentStart(c)) {
    const s = P;
    P++;
    while (P < E && isIdentChar(T.charCodeAt(P))) P++;
    if (P === s + 1 && c === 46) throw new ExprError("'.' (the location counter) is not supported here", s);
    if (FNS !== undefined) {
      const fn = FNS[T.slice(s, P).toLowerCase()];
      if (fn) {
        const save = P;
        skipWs();
        if (cc(P) === 40 /* ( */) return call(fn);
        P = save;
      }
    }
    if (RL !== undefined && cc(P) !== 64 /* @ */) {
      const v = RL(T, s, P);
      return v === undefined ? unresolved(T.slice(s, P)) : v;
    }
    return symbol(T.slice(s, P));
  }
  throw new ExprError(`unexpected '${T[P]}' in expression`, P);
}

/** A symbol reference; relocation variants (sym@rel32@lo, sym@gotpcrel32@hi, sym@abs32@lo) stay part of its name. */
function symbol(base: string): number | undefined {
  const s = P;
  while (cc(P) === 64 && isIdentStart(cc(P + 1))) {
    P++;
    while (P < E && isIdentChar(T.charCodeAt(P))) P++;
  }
  const name = P === s ? base : base + T.slice(s, P);
  const v = LK(name);
  return v === undefined ? unresolved(name) : v;
}

/** Escapes of character literals (AsmLexer::LexSingleQuote); any other escaped character stands for itself. */
function charEscape(c: number): number {
  switch (c) {
    case 116: return 9; // t
    case 110: return 10; // n
    case 98: return 8; // b
    case 102: return 12; // f
    case 114: return 13; // r
    default: return c;
  }
}

/** 'c' or '\\c' (AsmLexer::LexSingleQuote). */
function charLiteral(): number {
  const s = P;
  let k = P + 1;
  if (k >= E) throw new ExprError('unterminated single quote', s);
  let value = T.charCodeAt(k);
  if (value === 92 /* \\ */) {
    k++;
    if (k >= E) throw new ExprError('unterminated single quote', s);
    value = charEscape(T.charCodeAt(k));
  }
  if (cc(k + 1) !== 39) throw new ExprError('single quote way too long', s);
  P = k + 2;
  return value;
}

/** The integer literal forms of AsmLexer::LexDigit, the decimal floats and the directional labels. */
function number(): number | undefined {
  const s = P;
  const c1 = cc(P + 1);
  if (T.charCodeAt(P) !== 48 || c1 === 46) {
    while (P < E && isDigit(T.charCodeAt(P))) P++;
    const n = cc(P);
    if (n === 46 || n === 101 || n === 69) return floatTail(s, n === 46 ? P + 1 : P);
    return integerEnd(s, s, 10);
  }
  if (c1 === 120 || c1 === 88) { // 0x
    P += 2;
    const ds = P;
    while (P < E && isHexDigit(T.charCodeAt(P))) P++;
    const n = cc(P);
    if (n === 46 || n === 112 || n === 80) return hexFloat(s, ds);
    if (P === ds) throw new ExprError('invalid hexadecimal number', s);
    return integerEnd(s, ds, 16);
  }
  if ((c1 === 98 || c1 === 66) && isDigit(cc(P + 2))) { // 0b
    P += 2;
    const ds = P;
    while (cc(P) === 48 || cc(P) === 49) P++;
    if (P === ds) throw new ExprError('invalid binary number', s);
    return integerEnd(s, ds, 2);
  }
  // Octal (a lone `0` included): every decimal digit is taken, and 8 or 9 makes it invalid.
  while (P < E && isDigit(T.charCodeAt(P))) P++;
  return integerEnd(s, s, 8);
}

/**
 * The digits T[ds, P) in `radix`; then the ignored suffix, or a directional label reference
 * (`1b`, `1f`) when a decimal or octal number is followed by a lone b or f.
 */
function integerEnd(s: number, ds: number, radix: number): number | undefined {
  const n = P - ds;
  let value = 0;
  if (radix === 8) for (let k = ds; k < P; k++) if (T.charCodeAt(k) >= 56) throw new ExprError('invalid octal number', s);
  if (n <= (radix === 16 ? 13 : radix === 2 ? 53 : 15)) {
    // Exact: fewer than 2^53 for these lengths.
    for (let k = ds; k < P; k++) value = value * radix + hexValue(T.charCodeAt(k));
  } else {
    const digits = T.slice(ds, P);
    const big = BigInt((radix === 16 ? '0x' : radix === 2 ? '0b' : radix === 8 ? '0o' : '') + digits);
    if (big >= 2n ** 64n) throw new ExprError('integer literal does not fit in 64 bits', s);
    // A 64-bit integer token is a signed 64-bit value (0xffffffffffffffff is -1), as LLVM reads it.
    value = num64(BigInt.asIntN(64, big));
  }
  if (radix !== 16 && radix !== 2) {
    const d = cc(P);
    if ((d === 98 || d === 102) && !isIdentChar(cc(P + 1))) {
      P++;
      return symbol(`${value}${d === 98 ? 'b' : 'f'}`);
    }
  }
  // The ignored C suffix: U, L, UL, LL, ULL in any case.
  if ((cc(P) | 0x20) === 117) P++;
  if ((cc(P) | 0x20) === 108) P++;
  if ((cc(P) | 0x20) === 108) P++;
  return value;
}

/** The rest of a decimal float whose integer part (and '.') end before `from` (AsmLexer::LexFloatLiteral). */
function floatTail(s: number, from: number): number {
  P = from;
  while (P < E && isDigit(T.charCodeAt(P))) P++;
  if (cc(P) === 45 || cc(P) === 43) throw new ExprError('invalid sign in float literal', P);
  if (cc(P) === 101 || cc(P) === 69) {
    P++;
    if (cc(P) === 43 || cc(P) === 45) P++;
    while (P < E && isDigit(T.charCodeAt(P))) P++;
  }
  FLT = true;
  const v = Number.parseFloat(T.slice(s, P));
  if (Number.isNaN(v)) throw new ExprError('invalid floating point literal', s);
  return v;
}

/** 0x[hex][.hex]p[+-]dec (AsmLexer::LexHexFloatLiteral); `ds` is the first digit after 0x. */
function hexFloat(s: number, ds: number): number {
  const intDigits = T.slice(ds, P);
  let frac = '';
  if (cc(P) === 46) {
    P++;
    const fs = P;
    while (P < E && isHexDigit(T.charCodeAt(P))) P++;
    frac = T.slice(fs, P);
  }
  if (intDigits === '' && frac === '') throw new ExprError('invalid hexadecimal floating-point constant: expected at least one significand digit', s);
  if (cc(P) !== 112 && cc(P) !== 80) throw new ExprError("invalid hexadecimal floating-point constant: expected exponent part 'p'", s);
  P++;
  let sign = 1;
  if (cc(P) === 43 || cc(P) === 45) { if (cc(P) === 45) sign = -1; P++; }
  const es = P;
  while (P < E && isDigit(T.charCodeAt(P))) P++;
  if (P === es) throw new ExprError('invalid hexadecimal floating-point constant: expected at least one exponent digit', s);
  const mantissa = Number.parseInt(intDigits + frac || '0', 16);
  FLT = true;
  return mantissa * 2 ** (sign * Number(T.slice(es, P)) - 4 * frac.length);
}

/** A 64-bit integer as a number; one a double does not hold exactly marks the expression inexact. */
function num64(big: bigint): number {
  const v = Number(big);
  if ((v > 2 ** 53 || v < -(2 ** 53)) && BigInt(v) !== big) INX = true;
  return v;
}

function isInt32(a: number): boolean {
  return Number.isInteger(a) && a >= -0x80000000 && a <= 0x7fffffff;
}

function bitop(op: number, a: number, b: number): number {
  if (isInt32(a) && isInt32(b)) return op === OP_OR ? a | b : op === OP_AND ? a & b : a ^ b;
  const x = BigInt(Math.trunc(a));
  const y = BigInt(Math.trunc(b));
  return num64(BigInt.asIntN(64, op === OP_OR ? x | y : op === OP_AND ? x & y : x ^ y));
}

/**
 * Integer arithmetic as MCExpr evaluates it: 64-bit two's complement, wrapping, and `>>` a logical
 * shift (MCAsmInfo::shouldUseLogicalShr; llvm-mc 22: `-16 >> 2` is 0x3ffffffffffffffc, which no
 * 32-bit operand takes). Results within 2^53 come from plain numbers; the rest through BigInt.
 */
function wrap64(op: number, a: number, b: number): number {
  const x = BigInt(a);
  const y = BigInt(b);
  switch (op) {
    case OP_ADD: return num64(BigInt.asIntN(64, x + y));
    case OP_SUB: return num64(BigInt.asIntN(64, x - y));
    case OP_MUL: return num64(BigInt.asIntN(64, x * y));
    case OP_SHL: return b >= 64 || b < 0 ? 0 : num64(BigInt.asIntN(64, x << y));
    default: return b >= 64 || b < 0 ? 0 : num64(BigInt.asIntN(64, BigInt.asUintN(64, x) >> y)); // OP_SHR
  }
}

function apply(op: number, a: number, b: number): number {
  const ints = Number.isInteger(a) && Number.isInteger(b);
  switch (op) {
    case OP_ADD: { const r = a + b; return ints && !Number.isSafeInteger(r) ? wrap64(op, a, b) : r; }
    case OP_SUB: { const r = a - b; return ints && !Number.isSafeInteger(r) ? wrap64(op, a, b) : r; }
    case OP_MUL: { const r = a * b; return ints && !Number.isSafeInteger(r) ? wrap64(op, a, b) : r; }
    case OP_DIV: if (b === 0) throw new ExprError('division by zero', P); return Math.trunc(a / b);
    case OP_MOD: if (b === 0) throw new ExprError('division by zero', P); return a % b;
    case OP_SHL: { const r = a * 2 ** b; return ints && !(Number.isSafeInteger(r) && b < 53) ? wrap64(op, a, b) : r; }
    case OP_SHR: return ints && (a < 0 || b >= 53) ? wrap64(op, a, b) : Math.floor(a / 2 ** b);
    case OP_OR: case OP_AND: case OP_XOR: return bitop(op, a, b);
    case OP_OROR: return a !== 0 || b !== 0 ? 1 : 0;
    case OP_ANDAND: return a !== 0 && b !== 0 ? 1 : 0;
    case OP_EQ: return a === b ? -1 : 0;
    case OP_NE: return a !== b ? -1 : 0;
    case OP_LT: return a < b ? -1 : 0;
    case OP_LE: return a <= b ? -1 : 0;
    case OP_GT: return a > b ? -1 : 0;
    default: return a >= b ? -1 : 0; // OP_GE
  }
}

function binary(minPrec: number): number | undefined {
  let lhs = primary();
  for (;;) {
    const save = P;
    const op = peekBinary();
    if (op === 0) { P = save; return lhs; }
    const prec = PREC[op]!;
    if (prec <= minPrec) { P = save; return lhs; }
    P += OPLEN;
    // A binary operator must be followed by an operand; otherwise it is not ours.
    skipWs();
    const n = cc(P);
    if (n < 0 || n === 44 || n === 93 || n === 58) { P = save; return lhs; }
    const rhs = binary(prec);
    lhs = lhs === undefined || rhs === undefined ? undefined : apply(op, lhs, rhs);
  }
}

/**
 * Read the expression starting at `start` and ending at the latest at `end`: the value
 * (undefined when a symbol has none), with exprEnd, exprFloat and exprUnresolved set. Stops at
 * the first character that cannot continue an expression (a comma, a closing bracket, a colon,
 * or a token that is not a binary operator after a complete operand). Throws ExprError.
 * `rangeLookup`, when given, reads plain identifiers without copying them.
 */
export function scanExpr(text: string, start: number, end: number, lookup: SymbolLookup, rangeLookup?: RangeLookup, fns?: ExprFunctions): number | undefined {
  const sT = T, sP = P, sE = E, sLK = LK, sRL = RL, sU = UNRES, sF = FLT, sX = INX, sFN = FNS;
  T = text; P = start; E = end; LK = lookup; RL = rangeLookup; UNRES = undefined; FLT = false; INX = false; FNS = fns;
  try {
    const v = binary(0);
    exprEnd = P;
    exprFloat = FLT;
    exprInexact = INX;
    exprUnresolved = UNRES;
    return v;
  } finally {
    T = sT; P = sP; E = sE; LK = sLK; RL = sRL; UNRES = sU; FLT = sF; INX = sX; FNS = sFN;
  }
}

/**
 * Evaluate the expression starting at `start` in `text` (up to `end`, default the end of the
 * text). Stops at the first character that cannot continue an expression. `lookup` gives
 * symbol values.
 */
export function parseExpr(text: string, start: number, lookup: SymbolLookup, end = text.length): ExprResult {
  const value = scanExpr(text, start, end, lookup);
  return { value, unresolved: exprUnresolved ?? [], float: exprFloat, end: exprEnd };
}

export class ExprError extends Error {
  constructor(message: string, public readonly pos: number) { super(message); }
}

/** Evaluate a whole string as one expression; undefined when it does not evaluate. */
export function evalExpr(text: string, lookup: SymbolLookup, fns?: ExprFunctions): number | undefined {
  return evalRange(text, 0, text.length, lookup, undefined, fns);
}

/** Evaluate text[start, end) as one expression; undefined when it does not evaluate. */
export function evalRange(text: string, start: number, end: number, lookup: SymbolLookup, rangeLookup?: RangeLookup, fns?: ExprFunctions): number | undefined {
  try {
    const v = scanExpr(text, start, end, lookup, rangeLookup, fns);
    for (let k = exprEnd; k < end; k++) if (!isSpace(text.charCodeAt(k))) return undefined;
    return v;
  } catch {
    return undefined;
  }
}
