/**
 * Path facts: what the branches taken so far say about scalar values, so that the waitcnt
 * analysis does not follow paths the program cannot take.
 *
 * 1. Correlated comparisons. Generated kernels (Tensile) test the same condition twice, e.g.
 *
 *     s_cmp_eq_u32 s[sgprLoopCounterL], 1 ; s_cbranch_scc1 skip     // skip the prefetch loads
 *     ...                                                            // (counter unchanged)
 *     s_cmp_eq_u32 s[sgprLoopCounterL], 1 ; s_cbranch_scc1 tail      // and the loop that waits for them
 *
 *    The outcome of an s_cmp / s_bitcmp (keyed by its comparison and operands) taken at a
 *    conditional SCC branch is kept, until one of the compared registers is written; at a later
 *    branch on the same comparison the edge that contradicts it is not followed.
 *
 * 2. Value ranges of SGPRs (a small interval analysis of loop counters). A branch on a comparison
 *    of one SGPR with a constant (s_cmp_{eq,lg,lt,le,gt,ge}_{u32,i32}, s_cmpk_*) bounds that
 *    SGPR on each edge ([lo, hi], unsigned 32-bit); s_mov / s_movk of a constant, a copy from a
 *    bounded SGPR and s_add / s_sub / s_addk of a constant carry the bound along (a result that
 *    may wrap around is unbounded); any other write forgets it, and a call or s_movreld (which
 *    may write SGPRs it does not name) forgets every fact. An edge whose comparison no value
 *    of the range satisfies is not followed, e.g. the loop entry `s_cmp_le_u32 s12, 3 ;
 *    s_cbranch_scc1 skip_loop` on a path where `s_cmp_le_u32 s12, 2 ; s_cbranch_scc1 skip_loads`
 *    was taken.
 *
 * Facts live in path partitions of the analysis (analysis.ts): states with different facts are
 * kept apart at joins (up to a few per block; beyond that they are merged, keeping what they
 * share: the same comparison outcomes and the hull of the ranges). At a loop header, partitions
 * that differ only in ranges are merged with widening (a bound that moves goes to the end of the
 * domain), so a counter stepped in the loop does not make a partition per iteration. A fact is
 * kept only while a branch it can decide is still reachable. Everything is sound: a fact only
 * ever describes every path it is carried on; without facts every edge is followed.
 */
import type { Instruction, Operand } from '../asm/ast.js';
import type { KernelContext } from '../analysis/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { SCC } from '../asm/registers.js';

const U32_MAX = 0xffffffff;
const I32_MIN = 0x80000000;

export interface PathFact {
  /** Canonical comparison ("eq_u32 r40x1 i1"), or "v<unit>" for the range of one SGPR. */
  key: string;
  /** The comparison's outcome on this path (comparison facts). */
  val: boolean;
  /** Register units the fact depends on (a write to any of them ends or updates it). */
  units: readonly number[];
  /** Range facts: the SGPR's value lies in [lo, hi] (unsigned 32-bit). */
  lo?: number;
  hi?: number;
}

/** A comparison of one SGPR with a constant: `x op c` (op after putting the register first). */
export interface RangeTest {
  unit: number;
  op: CmpOp;
  c: number;
  signed: boolean;
}

type CmpOp = 'eq' | 'lg' | 'lt' | 'le' | 'gt' | 'ge';

/** The condition of a block's final conditional SCC branch. */
export interface EdgeCond {
  /** Block ids of the branch target and of the fall-through. */
  taken: number;
  fall: number;
  /** Index (KernelContext.insns) of the branch. */
  branch: number;
  /** Comparison key, when at least one other branch tests the same comparison. */
  key?: string;
  /** The comparison's outcome when the branch is taken. */
  keyTaken: boolean;
  /** Register units the comparison reads. */
  units: readonly number[];
  /** The comparison as a range test of one SGPR, and its outcome (SCC) when the branch is taken. */
  range?: RangeTest;
  rangeTaken: boolean;
}

const NEG: Readonly<Record<string, [string, boolean]>> = {
  eq: ['eq', false], lg: ['eq', true], lt: ['lt', false], ge: ['lt', true], gt: ['gt', false], le: ['gt', true],
};
const NOT: Readonly<Record<CmpOp, CmpOp>> = { eq: 'lg', lg: 'eq', lt: 'ge', ge: 'lt', gt: 'le', le: 'gt' };
const SWAP: Readonly<Record<CmpOp, CmpOp>> = { eq: 'eq', lg: 'lg', lt: 'gt', gt: 'lt', le: 'ge', ge: 'le' };

/** Canonical key of a comparison and whether the instruction computes its negation. */
function compareKey(insn: Instruction): { key: string; negated: boolean } | undefined {
  let m = /^s_cmpk?_(eq|lg|lt|ge|gt|le)_([iu](?:32|64))$/.exec(insn.base);
  let op: string; let negated: boolean; let type: string;
  if (m) {
    [op, negated] = NEG[m[1]!]!;
    type = m[2]!;
  } else {
    m = /^s_bitcmp([01])_(b32|b64)$/.exec(insn.base);
    if (!m) return undefined;
    op = 'bitcmp1';
    negated = m[1] === '0';
    type = m[2]!;
  }
  const parts: string[] = [];
  for (const o of insn.operands) {
    if (o.kind === 'reg') parts.push(`r${o.first}x${o.count}`);
    else if (o.kind === 'imm') parts.push(`i${o.value}`);
    else return undefined;
  }
  return { key: `${op}_${type} ${parts.join(' ')}`, negated };
}

function isSgpr(o: Operand | undefined): o is Extract<Operand, { kind: 'reg' }> {
  return !!o && o.kind === 'reg' && o.file === 's' && o.count === 1;
}

function intImm(o: Operand | undefined): number | undefined {
  return o && o.kind === 'imm' && !o.float && Number.isInteger(o.value) ? o.value : undefined;
}

const u32 = (x: number): number => x >>> 0;
const sext16 = (x: number): number => ((x & 0xffff) ^ 0x8000) - 0x8000;

/** The comparison as "SGPR op constant", when it is one (32-bit compares only). */
export function rangeTest(insn: Instruction): RangeTest | undefined {
  const m = /^s_(cmpk?)_(eq|lg|lt|ge|gt|le)_([iu])32$/.exec(insn.base);
  if (!m) return undefined;
  const signed = m[3] === 'i';
  let op = m[2] as CmpOp;
  const [a, b] = insn.operands;
  if (m[1] === 'cmpk') {
    const k = intImm(b);
    if (!isSgpr(a) || k === undefined) return undefined;
    return { unit: a.first, op, c: u32(signed ? sext16(k) : k & 0xffff), signed };
  }
  let reg = a; let imm = intImm(b);
  if (!isSgpr(reg)) { reg = b; imm = intImm(a); op = SWAP[op]; }
  if (!isSgpr(reg) || imm === undefined) return undefined;
  return { unit: reg.first, op, c: u32(imm), signed };
}

/** Values of [lo, hi] for which `x op c` is `outcome`, as a hull; undefined when none. */
export function refineRange(lo: number, hi: number, t: RangeTest, outcome: boolean): [number, number] | undefined {
  const op = outcome ? t.op : NOT[t.op];
  if (!t.signed || op === 'eq' || op === 'lg') return refineOrdered(lo, hi, op, t.c);
  // signed: split at 2^31 into pieces on which unsigned order equals signed order, refine each in
  // signed coordinates, and take the hull of what is left
  const c = t.c >= I32_MIN ? t.c - 0x100000000 : t.c;
  let out: [number, number] | undefined;
  for (const [a, b] of [[lo, Math.min(hi, I32_MIN - 1)], [Math.max(lo, I32_MIN), hi]] as [number, number][]) {
    if (a > b) continue;
    const s = a >= I32_MIN ? -0x100000000 : 0;
    const r = refineOrdered(a + s, b + s, op, c);
    if (!r) continue;
    const piece: [number, number] = [r[0] - s, r[1] - s];
    out = out ? [Math.min(out[0], piece[0]), Math.max(out[1], piece[1])] : piece;
  }
  return out;
}

function refineOrdered(lo: number, hi: number, op: CmpOp, c: number): [number, number] | undefined {
  let a = lo; let b = hi;
  switch (op) {
    case 'eq': a = Math.max(a, c); b = Math.min(b, c); break;
    case 'lg': if (a === c) a++; if (b === c) b--; break;
    case 'lt': b = Math.min(b, c - 1); break;
    case 'le': b = Math.min(b, c); break;
    case 'gt': a = Math.max(a, c + 1); break;
    case 'ge': a = Math.max(a, c); break;
  }
  return a <= b ? [a, b] : undefined;
}

/**
 * Per block: the condition of its final s_cbranch_scc0/scc1, when the SCC it tests comes from
 * a comparison in the block. The comparison key is kept only when another branch tests the same
 * comparison (a condition tested once can never contradict a comparison fact).
 */
export function edgeConditions(ctx: KernelContext): (EdgeCond | undefined)[] {
  const all = allEdgeConditions(ctx);
  const count = new Map<string, number>();
  for (const c of all) if (c?.key) count.set(c.key, (count.get(c.key) ?? 0) + 1);
  return all.map((c) => {
    if (!c || !c.key || count.get(c.key)! >= 2) return c;
    if (!c.range) return undefined;
    const { key: _unused, ...rest } = c;
    return rest;
  });
}

function allEdgeConditions(ctx: KernelContext): (EdgeCond | undefined)[] {
  const cfg = ctx.cfg;
  return cfg.blocks.map((b) => {
    const t = b.end - 1;
    const br = ctx.insns[t]!.insn.base;
    if (br !== 's_cbranch_scc0' && br !== 's_cbranch_scc1') return undefined;
    if (b.succs.length !== 2) return undefined;
    for (let j = t - 1; j >= b.start; j--) {
      const r = ctx.insns[j]!;
      if (!r.defs.includes(SCC)) continue;
      const k = compareKey(r.insn);
      if (!k) return undefined;
      const units = r.explicitUses;
      for (let x = j + 1; x < t; x++) if (ctx.insns[x]!.defs.some((u) => units.includes(u))) return undefined;
      const sccWhenTaken = br === 's_cbranch_scc1';
      const c: EdgeCond = { taken: b.succs[0]!, fall: b.succs[1]!, branch: t, key: k.key, keyTaken: sccWhenTaken !== k.negated, units, rangeTaken: sccWhenTaken };
      const range = rangeTest(r.insn);
      if (range) c.range = range;
      return c;
    }
    return undefined;
  });
}

/** Key of the range fact of a unit. */
export function rangeKey(unit: number): string {
  return `v${unit}`;
}

/**
 * For each fact key, the blocks from which a branch it can decide is still reachable: a fact is
 * kept only there (fewer path classes to keep apart).
 */
export function liveConditions(ctx: KernelContext, conds: readonly (EdgeCond | undefined)[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const blocks = ctx.cfg.blocks;
  const mark = (key: string, b: number) => {
    let live = out.get(key);
    if (!live) { live = new Uint8Array(blocks.length); out.set(key, live); }
    const stack = [b];
    while (stack.length) {
      const x = stack.pop()!;
      if (live[x]) continue;
      live[x] = 1;
      for (const p of blocks[x]!.preds) if (!live[p]) stack.push(p);
    }
  };
  conds.forEach((c, b) => {
    if (!c) return;
    if (c.key) mark(c.key, b);
    if (c.range) mark(rangeKey(c.range.unit), b);
  });
  return out;
}

export function factsKey(facts: readonly PathFact[]): string {
  return facts.map((f) => (f.lo !== undefined ? `${f.key}=${f.lo}..${f.hi}` : `${f.key}=${f.val ? 1 : 0}`)).sort().join(';');
}

/** The same comparison outcomes and range keys (the ranges themselves may differ). */
export function sameShape(a: readonly PathFact[], b: readonly PathFact[]): boolean {
  if (a.length !== b.length) return false;
  for (const f of a) {
    const g = b.find((x) => x.key === f.key);
    if (!g || (f.lo === undefined ? g.lo !== undefined || g.val !== f.val : g.lo === undefined)) return false;
  }
  return true;
}

/** The range of a unit on this path, [0, 2^32-1] when unknown. */
function rangeOf(facts: readonly PathFact[], unit: number): [number, number] {
  const k = rangeKey(unit);
  for (const f of facts) if (f.key === k) return [f.lo!, f.hi!];
  return [0, U32_MAX];
}

function withRange(facts: readonly PathFact[], unit: number, r: [number, number] | undefined): PathFact[] {
  const k = rangeKey(unit);
  const out = facts.filter((f) => f.key !== k);
  if (r && !(r[0] === 0 && r[1] === U32_MAX)) out.push({ key: k, val: true, units: [unit], lo: r[0], hi: r[1] });
  return out;
}

/**
 * The range a write gives its destination SGPR: s_mov/s_movk of a constant, a copy, or s_add /
 * s_sub / s_addk of a constant (undefined: unbounded, also when the result may wrap around).
 */
function rangeAfter(insn: Instruction, facts: readonly PathFact[]): [number, number] | undefined {
  const ops = insn.operands;
  const shift = (r: [number, number], delta: number): [number, number] | undefined => {
    const lo = r[0] + delta;
    const hi = r[1] + delta;
    return lo >= 0 && hi <= U32_MAX ? [lo, hi] : undefined;
  };
  switch (insn.base) {
    case 's_mov_b32': {
      const c = intImm(ops[1]);
      if (c !== undefined) return [u32(c), u32(c)];
      return isSgpr(ops[1]) ? rangeOf(facts, ops[1].first) : undefined;
    }
    case 's_movk_i32': {
      const c = intImm(ops[1]);
      return c === undefined ? undefined : [u32(sext16(c)), u32(sext16(c))];
    }
    case 's_addk_i32': {
      const c = intImm(ops[1]);
      return c === undefined || !isSgpr(ops[0]) ? undefined : shift(rangeOf(facts, ops[0].first), sext16(c));
    }
    case 's_add_u32': case 's_add_i32': case 's_sub_u32': case 's_sub_i32': {
      const sub = insn.base.startsWith('s_sub');
      let reg = ops[1]; let c = intImm(ops[2]);
      if (!sub && !isSgpr(reg)) { reg = ops[2]; c = intImm(ops[1]); }
      if (!isSgpr(reg) || c === undefined) return undefined;
      const delta = c | 0; // the 32-bit constant as a signed step (0xffffffff and -1 both subtract 1)
      return shift(rangeOf(facts, reg.first), sub ? -delta : delta);
    }
    default:
      return undefined;
  }
}

/**
 * Instructions that may write SGPRs their operands do not name: a call (the callee may change
 * any SGPR the calling convention does not preserve, and a subroutine of the kernel any at all)
 * and s_movreld (writes the SGPR M0 selects).
 */
const WRITES_UNNAMED = /^(s_swappc_b64|s_call_b64|s_movreld_b(32|64))$/;

/** Facts after instruction `r`: comparisons whose registers it writes end, ranges follow it. */
export function afterInsn(facts: PathFact[], r: ResolvedInsn): PathFact[] {
  const defs = r.defs;
  if (facts.length === 0) return facts;
  if (WRITES_UNNAMED.test(r.insn.base)) return [];
  if (defs.length === 0) return facts;
  let hit = false;
  for (let i = 0; i < facts.length && !hit; i++) {
    const f = facts[i]!;
    for (let a = 0; a < f.units.length && !hit; a++) for (let b = 0; b < defs.length; b++) if (defs[b] === f.units[a]) { hit = true; break; }
  }
  if (!hit) return facts;
  const dst = r.insn.operands[0];
  const tracked = isSgpr(dst) && defs.includes(dst.first) ? dst.first : -1;
  const next = tracked >= 0 && facts.some((f) => f.key === rangeKey(tracked)) ? rangeAfter(r.insn, facts) : undefined;
  const out = facts.filter((f) => !f.units.some((u) => defs.includes(u)));
  return tracked >= 0 && next ? withRange(out, tracked, next) : out;
}

/** Facts common to both lists: the same comparison outcomes, the hull of ranges. */
export function commonFacts(a: readonly PathFact[], b: readonly PathFact[]): PathFact[] {
  const out: PathFact[] = [];
  for (const f of a) {
    const g = b.find((x) => x.key === f.key);
    if (!g) continue;
    if (f.lo === undefined) { if (g.lo === undefined && g.val === f.val) out.push(f); continue; }
    if (g.lo === undefined) continue;
    const lo = Math.min(f.lo, g.lo);
    const hi = Math.max(f.hi!, g.hi!);
    if (lo === f.lo && hi === f.hi) out.push(f);
    else if (!(lo === 0 && hi === U32_MAX)) out.push({ ...f, lo, hi });
  }
  return out;
}

/**
 * Widening of `next` (a hull that includes `old`) for a loop header: a range bound that moved
 * goes to the end of the domain, so each range changes at most twice before it is dropped.
 */
export function widenFacts(old: readonly PathFact[], next: readonly PathFact[]): PathFact[] {
  const out: PathFact[] = [];
  for (const f of next) {
    const o = old.find((x) => x.key === f.key);
    if (f.lo === undefined || !o || o.lo === undefined) { out.push(f); continue; }
    const lo = f.lo < o.lo ? 0 : f.lo;
    const hi = f.hi! > o.hi! ? U32_MAX : f.hi!;
    if (lo === f.lo && hi === f.hi) out.push(f);
    else if (!(lo === 0 && hi === U32_MAX)) out.push({ ...f, lo, hi });
  }
  return out;
}

/**
 * The successors of a block that its facts allow, each with the facts on that edge (comparison
 * outcomes and refined ranges added; `live` filters what no later branch can use).
 */
export function feasibleSuccessors(cond: EdgeCond | undefined, succs: readonly number[], facts: PathFact[],
  live: (s: number, facts: PathFact[]) => PathFact[]): [number, PathFact[]][] {
  if (!cond) return succs.map((s) => [s, live(s, facts)]);
  const known = cond.key ? facts.find((f) => f.key === cond.key) : undefined;
  const out: [number, PathFact[]][] = [];
  for (const [s, taken] of [[cond.taken, true], [cond.fall, false]] as [number, boolean][]) {
    let next = facts;
    if (cond.key) {
      const val = taken === cond.keyTaken;
      if (known && known.val !== val) continue; // contradicts an earlier branch on the same comparison
      next = [...next.filter((f) => f.key !== cond.key), { key: cond.key, val, units: cond.units }];
    }
    if (cond.range) {
      const [lo, hi] = rangeOf(next, cond.range.unit);
      const r = refineRange(lo, hi, cond.range, taken === cond.rangeTaken);
      if (!r) continue; // no value of the range takes this edge
      next = withRange(next, cond.range.unit, r);
    }
    out.push([s, live(s, next)]);
  }
  return out;
}
