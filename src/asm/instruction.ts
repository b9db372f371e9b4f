/**
 * One instruction statement -> Instruction: mnemonic, operands and trailing modifiers, in the
 * operand grammar of LLVM's AMDGPU assembler. Operands may be separated by commas or by
 * blanks (Tensile writes `v_add_u32 v[1] v[2] v[3]`); an operand that is an expression is read
 * greedily, as LLVM does, so `vcc -1` is two operands but `4 -1` is the expression 3.
 */
import type {
  EncodingSuffix, ImmOperand, Instruction, Loc, Modifier, Operand, RegOperand, SourceMods, WaitcntOperand,
} from './ast.js';
import { ExprError, charLiteralLength, evalExpr, parseExpr, quotedEnd } from './expr.js';
import { ConductorError } from '../errors.js';
import { AGPR_BASE, CONSTANT_SOURCES, SPECIAL_REGISTERS, TTMP_BASE, VGPR_BASE } from './registers.js';

export type SymbolLookup = (name: string) => number | undefined;

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

const SUFFIXES: readonly [string, EncodingSuffix][] = [
  ['_e64_dpp', 'e64_dpp'], ['_e32', 'e32'], ['_e64', 'e64'], ['_sdwa', 'sdwa'], ['_dpp', 'dpp'],
];

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 46 || c === 36;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

export function splitMnemonic(mnemonic: string): { base: string; suffix: EncodingSuffix } {
  for (const [s, e] of SUFFIXES) {
    if (mnemonic.endsWith(s) && mnemonic.length > s.length) return { base: mnemonic.slice(0, -s.length), suffix: e };
  }
  return { base: mnemonic, suffix: undefined };
}

class Cursor {
  pos = 0;
  constructor(readonly text: string, readonly loc: Loc, readonly colBase: number) {}
  ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 9) this.pos++;
      else break;
    }
  }
  peek(): string { return this.text[this.pos] ?? ''; }
  atEnd(): boolean { return this.pos >= this.text.length; }
  ident(): string {
    const s = this.pos;
    while (this.pos < this.text.length && isIdentChar(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(s, this.pos);
  }
  error(message: string, at = this.pos): ConductorError {
    return new ConductorError(message, { file: this.loc.file, line: this.loc.line, col: this.colBase + at + 1 });
  }
}

/**
 * Parse one instruction. `text` is the statement without comments; `loc.col` is the column of
 * text[0] in the source line. Throws ConductorError (with line and column) on a syntax error.
 */
export function parseInstructionText(text: string, loc: Loc, lookup: SymbolLookup, stmt = -1): Instruction {
  const cur = new Cursor(text, loc, loc.col - 1);
  cur.ws();
  const mStart = cur.pos;
  const mnemonicRaw = cur.ident();
  if (!mnemonicRaw) throw cur.error('expected an instruction mnemonic');
  const mnemonic = mnemonicRaw.toLowerCase();
  const { base, suffix } = splitMnemonic(mnemonic);
  const operands: Operand[] = [];
  const modifiers: Modifier[] = [];
  const insnLoc: Loc = { file: loc.file, line: loc.line, col: loc.col + mStart };

  if (base === 's_waitcnt') {
    cur.ws();
    if (!cur.atEnd()) operands.push(parseWaitcnt(cur, lookup));
    cur.ws();
    if (!cur.atEnd()) throw cur.error(`unexpected '${text.slice(cur.pos)}' after s_waitcnt operand`);
  } else {
    let sawComma = true;
    for (;;) {
      cur.ws();
      if (cur.atEnd()) break;
      if (cur.peek() === ',') {
        if (sawComma && operands.length + modifiers.length > 0) throw cur.error('unexpected comma');
        sawComma = true;
        cur.pos++;
        continue;
      }
      sawComma = false;
      parseItem(cur, lookup, operands, modifiers, base.startsWith('image_'));
    }
  }
  return {
    mnemonic, base, suffix, operands, modifiers,
    text: text.slice(mStart).trim(), loc: insnLoc, stmt,
  };
}

function parseItem(cur: Cursor, lookup: SymbolLookup, operands: Operand[], modifiers: Modifier[], isImage: boolean): void {
  const t = cur.text;
  const start = cur.pos;
  const c = t.charCodeAt(start);
  if (isIdentStart(c) && c !== 46 /* '.' starts a label expression */) {
    const id = cur.ident();
    const lower = id.toLowerCase();
    const next = t[cur.pos];
    if (next === ':' && t[cur.pos + 1] !== ':') {
      // name:value modifier
      cur.pos++;
      const vStart = cur.pos;
      const value = readModifierValue(cur);
      const m: Modifier = { name: lower, value, text: t.slice(start, cur.pos) };
      const wantsList = BIT_LIST_MODIFIERS.has(lower) || lower === 'quad_perm';
      if (wantsList && !value.startsWith('[')) throw cur.error('expected a left square bracket', vStart);
      if (value.startsWith('[') && wantsList) {
        m.list = parseModifierList(cur, value, vStart, lookup);
        if (BIT_LIST_MODIFIERS.has(lower)) {
          if (m.list.length > MAX_BIT_LIST) throw cur.error('expected a closing square bracket', vStart);
          if (m.list.some((b) => b !== 0 && b !== 1)) throw cur.error(`invalid ${lower} value`, vStart);
        } else if (lower === 'quad_perm' && (m.list.length !== 4 || m.list.some((b) => b < 0 || b > 3))) {
          throw cur.error('invalid quad_perm value: four lane selects 0..3 expected', vStart);
        }
      } else if (value.startsWith('[')) {
        // Other lists (format:[BUF_DATA_FORMAT_32, BUF_NUM_FORMAT_FLOAT]) may hold names: keep numbers when all evaluate.
        const items = value.slice(1, -1).split(',').map((x) => evalExpr(x.trim(), lookup));
        if (items.every((x) => x !== undefined)) m.list = items as number[];
      } else {
        const n = evalExpr(value, lookup);
        if (n !== undefined) m.num = n;
      }
      if (value === '') throw cur.error(`expected a value after '${id}:'`, vStart);
      modifiers.push(m);
      return;
    }
    // `a16` is also AGPR 16: it is the MIMG address-size modifier only on image instructions.
    if (BARE_MODIFIERS.has(lower) && lookup(id) === undefined && (lower !== 'a16' || isImage)) {
      modifiers.push({ name: lower, text: id });
      return;
    }
    if (lower === 'off') {
      operands.push({ kind: 'off', text: id });
      return;
    }
    // abs(...), neg(...), sext(...) are operand modifiers: parseOperand reads them.
    const isSourceMod = lower === 'abs' || lower === 'neg' || lower === 'sext';
    if (next === '(' && !isSourceMod && /^[a-z_][a-z0-9_]*$/.test(lower) && lookup(id) === undefined) {
      // hwreg(...), sendmsg(...), swizzle(...), gpr_idx(...)
      const close = matchClose(t, cur.pos, '(', ')');
      if (close < 0) throw cur.error(`missing ')' in ${id}(`);
      const argText = t.slice(cur.pos + 1, close);
      cur.pos = close + 1;
      operands.push({ kind: 'func', name: lower, args: splitTopLevel(argText), text: t.slice(start, cur.pos) });
      return;
    }
    cur.pos = start;
  }
  operands.push(parseOperand(cur, lookup));
}

function addMod(op: Operand, mods: SourceMods): void {
  if (op.kind === 'reg' || op.kind === 'imm' || op.kind === 'expr' || op.kind === 'const') {
    op.mods = { ...op.mods, ...mods };
  }
}

/** One operand: a register (with -, |..|, abs/neg/sext wrappers), a constant source, or an expression. */
function parseOperand(cur: Cursor, lookup: SymbolLookup): Operand {
  const t = cur.text;
  cur.ws();
  const start = cur.pos;
  const ch = t[start];
  if (ch === '-' && isRegisterAhead(t, start + 1)) {
    cur.pos++;
    const inner = parseOperand(cur, lookup);
    addMod(inner, { neg: true });
    inner.text = t.slice(start, cur.pos);
    return inner;
  }
  if (ch === '|') {
    cur.pos++;
    const inner = parseOperand(cur, lookup);
    cur.ws();
    if (cur.peek() !== '|') throw cur.error("expected '|' to close an absolute value");
    cur.pos++;
    addMod(inner, { abs: true });
    inner.text = t.slice(start, cur.pos);
    return inner;
  }
  if (ch === '[') return parseRegisterList(cur, lookup);
  const reg = tryRegister(cur, lookup);
  if (reg) return reg;
  const c = t.charCodeAt(start);
  if (isIdentStart(c)) {
    const id = cur.ident();
    const lower = id.toLowerCase();
    if (CONSTANT_SOURCES.has(lower) && lookup(id) === undefined) return { kind: 'const', name: lower, text: id };
    if ((lower === 'abs' || lower === 'neg' || lower === 'sext') && t[cur.pos] === '(') {
      cur.pos++;
      const inner = parseOperand(cur, lookup);
      cur.ws();
      if (cur.peek() !== ')') throw cur.error(`expected ')' to close ${lower}(`);
      cur.pos++;
      addMod(inner, lower === 'abs' ? { abs: true } : lower === 'neg' ? { neg: true } : { sext: true });
      inner.text = t.slice(start, cur.pos);
      return inner;
    }
    cur.pos = start;
  }
  let r;
  try {
    r = parseExpr(t, start, lookup);
  } catch (e) {
    if (e instanceof ExprError) throw cur.error(e.message, e.pos);
    throw e;
  }
  if (r.end === start) throw cur.error(`unexpected '${t[start]}'`);
  cur.pos = r.end;
  const text = t.slice(start, r.end).trim();
  if (r.value === undefined) return { kind: 'expr', text, symbols: r.unresolved };
  const imm: ImmOperand = { kind: 'imm', value: r.value, float: r.float, text };
  return imm;
}

function isRegisterAhead(t: string, pos: number): boolean {
  const rest = t.slice(pos, pos + 8).toLowerCase();
  return /^(\||abs\(|neg\(|sext\(|[vsa]\[|[vsa]\d|acc|ttmp|vcc|exec|m0\b|src_|flat_scratch|xnack_mask)/.test(rest);
}

/** Length of a register-file prefix at `start` (v, s, a, acc, ttmp) followed by a digit or '[', else 0. */
function regPrefixLength(t: string, start: number): number {
  const c = t.charCodeAt(start) | 0x20;
  let len = 0;
  if (c === 118 /* v */ || c === 115 /* s */) len = 1;
  else if (c === 97 /* a */) len = (t.charCodeAt(start + 1) | 0x20) === 99 && (t.charCodeAt(start + 2) | 0x20) === 99 ? 3 : 1;
  else if (c === 116 /* t */ && t.slice(start, start + 4).toLowerCase() === 'ttmp') len = 4;
  else return 0;
  const n = t.charCodeAt(start + len);
  return (n >= 48 && n <= 57) || n === 91 ? len : 0;
}

function tryRegister(cur: Cursor, lookup: SymbolLookup): RegOperand | undefined {
  const t = cur.text;
  const start = cur.pos;
  const plen = regPrefixLength(t, start);
  if (plen > 0) {
    const prefix = t.slice(start, start + plen).toLowerCase();
    const p = start + plen;
    if (t.charCodeAt(p) === 91 /* [ */) {
      const close = matchClose(t, p, '[', ']');
      if (close < 0) throw cur.error("missing ']' in register range", p);
      const colon = topLevelColonIn(t, p + 1, close);
      let lo: number;
      let hi: number;
      if (colon < 0) {
        lo = hi = regIndex(cur, t, p + 1, close, lookup);
      } else {
        lo = regIndex(cur, t, p + 1, colon, lookup);
        hi = regIndex(cur, t, colon + 1, close, lookup);
      }
      if (hi < lo) throw cur.error(`invalid register range: first register ${lo} is above last ${hi}`, start);
      cur.pos = close + 1;
      return makeReg(prefix, lo, hi - lo + 1, t.slice(start, cur.pos), cur, start);
    }
    // v12 / s4 / acc3 / ttmp5: the whole identifier must be prefix+digits.
    let e = p;
    let value = 0;
    while (e < t.length) {
      const d = t.charCodeAt(e);
      if (d >= 48 && d <= 57) { value = value * 10 + d - 48; e++; } else break;
    }
    if (e < t.length && isIdentChar(t.charCodeAt(e))) return undefined;
    cur.pos = e;
    return makeReg(prefix, value, 1, t.slice(start, e), cur, start);
  }
  const idEnd = identEnd(t, start);
  if (idEnd === start) return undefined;
  const name = t.slice(start, idEnd).toLowerCase();
  const sp = SPECIAL_REGISTERS[name];
  if (sp && name !== 'scc' && name !== 'mode' && lookup(t.slice(start, idEnd)) === undefined) {
    cur.pos = idEnd;
    return { kind: 'reg', file: 'special', first: sp[0], count: sp[1], index: sp[0], text: t.slice(start, idEnd) };
  }
  return undefined;
}

function topLevelColonIn(t: string, from: number, to: number): number {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = t.charCodeAt(i);
    if (c === 40 || c === 91) depth++;
    else if (c === 41 || c === 93) depth--;
    else if (c === 58 && depth === 0) return i;
  }
  return -1;
}

/** A register index between from and to: digits (fast path) or an expression over .set symbols. */
function regIndex(cur: Cursor, t: string, from: number, to: number, lookup: SymbolLookup): number {
  let i = from;
  while (i < to && (t.charCodeAt(i) === 32 || t.charCodeAt(i) === 9)) i++;
  let j = i;
  let v = 0;
  while (j < to) {
    const d = t.charCodeAt(j);
    if (d >= 48 && d <= 57) { v = v * 10 + d - 48; j++; } else break;
  }
  let k = j;
  while (k < to && (t.charCodeAt(k) === 32 || t.charCodeAt(k) === 9)) k++;
  if (j > i && k === to && !(t.charCodeAt(i) === 48 && j - i > 1)) return v;
  return evalRegIndex(cur, t.slice(from, to), lookup, from);
}

function identEnd(t: string, start: number): number {
  let p = start;
  while (p < t.length && isIdentChar(t.charCodeAt(p))) p++;
  return p;
}

function evalRegIndex(cur: Cursor, text: string, lookup: SymbolLookup, at: number): number {
  let r;
  try {
    r = parseExpr(text, 0, lookup);
  } catch (e) {
    if (e instanceof ExprError) throw cur.error(`invalid register index: ${e.message}`, at + e.pos);
    throw e;
  }
  if (text.slice(r.end).trim() !== '') throw cur.error(`invalid register index '${text.trim()}'`, at);
  if (r.value === undefined) throw cur.error(`undefined symbol '${r.unresolved[0]}' in register index`, at);
  if (!Number.isInteger(r.value) || r.value < 0) throw cur.error(`invalid register index ${r.value}`, at);
  return r.value;
}

function makeReg(prefix: string, index: number, count: number, text: string, cur: Cursor, at: number): RegOperand {
  switch (prefix) {
    case 'v':
      if (index + count > 512) throw cur.error(`register index out of range: ${text}`, at);
      return { kind: 'reg', file: 'v', first: VGPR_BASE + index, count, index, text };
    case 'a': case 'acc':
      if (index + count > 256) throw cur.error(`register index out of range: ${text}`, at);
      return { kind: 'reg', file: 'a', first: AGPR_BASE + index, count, index, text };
    case 's':
      if (index + count > 106) throw cur.error(`register index out of range: ${text}`, at);
      return { kind: 'reg', file: 's', first: index, count, index, text };
    case 'ttmp':
      if (index + count > 16) throw cur.error(`register index out of range: ${text}`, at);
      return { kind: 'reg', file: 'ttmp', first: TTMP_BASE + index, count, index, text };
    default:
      throw cur.error(`unknown register '${text}'`, at);
  }
}

/** [v0, v1, v2] register lists: consecutive registers of one file. */
function parseRegisterList(cur: Cursor, lookup: SymbolLookup): RegOperand {
  const t = cur.text;
  const start = cur.pos;
  cur.pos++;
  const regs: RegOperand[] = [];
  for (;;) {
    cur.ws();
    const r = tryRegister(cur, lookup);
    if (!r) throw cur.error('expected a register in register list');
    regs.push(r);
    cur.ws();
    if (cur.peek() === ',') { cur.pos++; continue; }
    if (cur.peek() === ']') { cur.pos++; break; }
    throw cur.error("expected ',' or ']' in register list");
  }
  const first = regs[0]!;
  let count = 0;
  for (const r of regs) {
    if (r.file !== first.file || r.first !== first.first + count) throw cur.error('registers in a list must be consecutive', start);
    count += r.count;
  }
  return { kind: 'reg', file: first.file, first: first.first, count, index: first.index, text: t.slice(start, cur.pos) };
}

export function matchClose(t: string, openPos: number, open: string, close: string): number {
  let depth = 0;
  for (let i = openPos; i < t.length; i++) {
    const c = t[i];
    if (c === open) depth++;
    else if (c === close) {
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
function parseModifierList(cur: Cursor, value: string, at: number, lookup: SymbolLookup): number[] {
  const inner = value.slice(1, -1);
  if (inner.trim() === '') throw cur.error('unknown token in expression: empty list', at);
  return inner.split(',').map((x) => {
    const v = evalExpr(x.trim(), lookup);
    if (x.trim() === '' || v === undefined) throw cur.error(`unknown token in expression: '${x.trim()}' in list`, at);
    return v;
  });
}

/** The value of a name:value modifier: a [list], a func(...), or a run up to a blank or a comma. */
function readModifierValue(cur: Cursor): string {
  const t = cur.text;
  const s = cur.pos;
  if (t[s] === '[') {
    const e = matchClose(t, s, '[', ']');
    if (e < 0) throw cur.error("missing ']'", s);
    cur.pos = e + 1;
    return t.slice(s, cur.pos);
  }
  let depth = 0;
  while (cur.pos < t.length) {
    const c = t[cur.pos];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if ((c === ' ' || c === '\t' || c === ',') && depth === 0) break;
    cur.pos++;
  }
  return t.slice(s, cur.pos);
}

/**
 * s_waitcnt operands: `0`, an expression, or `vmcnt(N) expcnt(N) lgkmcnt(N)` joined by blanks,
 * `&` or `,`. A raw immediate is decoded with the GFX9 layout (vmcnt bits 3:0 and 15:14,
 * expcnt 6:4, lgkmcnt 11:8; LLVM AMDGPUBaseInfo.cpp decodeWaitcnt / getVmcntBitShiftLo/Hi,
 * getExpcntBitShift, getLgkmcntBitShift for GFX9).
 */
function parseWaitcnt(cur: Cursor, lookup: SymbolLookup): WaitcntOperand {
  const t = cur.text;
  const start = cur.pos;
  const m = /^([a-z_]+)\s*\(/i.exec(t.slice(start));
  if (m && WAITCNT_FIELDS.has(m[1]!.toLowerCase())) {
    const op: WaitcntOperand = { kind: 'waitcnt', text: '' };
    for (;;) {
      cur.ws();
      if (cur.atEnd()) break;
      if (cur.peek() === '&' || cur.peek() === ',') { cur.pos++; continue; }
      const fStart = cur.pos;
      const name = cur.ident().toLowerCase();
      if (!WAITCNT_FIELDS.has(name)) throw cur.error(`invalid counter name '${name}'`, fStart);
      cur.ws();
      if (cur.peek() !== '(') throw cur.error(`expected '(' after ${name}`);
      const close = matchClose(t, cur.pos, '(', ')');
      if (close < 0) throw cur.error(`missing ')' after ${name}(`);
      const v = evalExpr(t.slice(cur.pos + 1, close), lookup);
      if (v === undefined || !Number.isInteger(v) || v < 0) throw cur.error(`invalid ${name} value '${t.slice(cur.pos + 1, close)}'`, cur.pos + 1);
      cur.pos = close + 1;
      const field = name.replace('_sat', '') as 'vmcnt' | 'expcnt' | 'lgkmcnt';
      if (op[field] !== undefined) throw cur.error(`duplicate ${field}`, fStart);
      op[field] = v;
    }
    op.text = t.slice(start, cur.pos).trim();
    return op;
  }
  let r;
  try {
    r = parseExpr(t, start, lookup);
  } catch (e) {
    if (e instanceof ExprError) throw cur.error(e.message, e.pos);
    throw e;
  }
  if (r.value === undefined) throw cur.error(`s_waitcnt operand '${t.slice(start, r.end).trim()}' does not evaluate to a number`, start);
  cur.pos = r.end;
  const raw = r.value & 0xffff;
  return {
    kind: 'waitcnt', raw,
    vmcnt: (raw & 0xf) | (((raw >> 14) & 0x3) << 4),
    expcnt: (raw >> 4) & 0x7,
    lgkmcnt: (raw >> 8) & 0xf,
    text: t.slice(start, r.end).trim(),
  };
}
