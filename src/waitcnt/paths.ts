/**
 * Correlated scalar branches. Generated kernels (Tensile) test the same condition twice, e.g.
 *
 *     s_cmp_eq_u32 s[sgprLoopCounterL], 1 ; s_cbranch_scc1 skip     // skip the prefetch loads
 *     ...                                                            // (counter unchanged)
 *     s_cmp_eq_u32 s[sgprLoopCounterL], 1 ; s_cbranch_scc1 tail      // and the loop that waits for them
 *
 * and place their waits knowing that the second branch goes the same way as the first. A
 * path-insensitive analysis would see loads reaching the loop with no matching wait. So the
 * analysis carries "facts" along the paths: the outcome of an s_cmp / s_bitcmp (keyed by its
 * comparison and operands) taken at a conditional SCC branch, valid until one of the compared
 * registers is written. At a later branch on the same comparison, the edge that contradicts a
 * fact is not followed. States with different facts are kept apart at joins (up to a few per
 * block; beyond that they are merged, keeping only the facts they share).
 *
 * Only explicit register and immediate operands are compared; a fact says nothing about
 * anything else (the comparison's meaning is never evaluated).
 */
import type { Instruction } from '../asm/ast.js';
import type { KernelContext } from '../check/types.js';
import { SCC } from '../isa/registers.js';

export interface Fact {
  /** Canonical comparison: "eq_u32 r40x1 i1". */
  key: string;
  /** Its outcome on this path. */
  val: boolean;
  /** Register units the comparison read (a write to any of them ends the fact). */
  units: readonly number[];
}

/** The condition of a block's final conditional SCC branch, when it is a known comparison. */
export interface EdgeCond {
  key: string;
  units: readonly number[];
  /** Block id of the branch target and the comparison's outcome when the branch is taken. */
  taken: number;
  takenVal: boolean;
  /** Block id of the fall-through. */
  fall: number;
}

const NEG: Readonly<Record<string, [string, boolean]>> = {
  eq: ['eq', false], lg: ['eq', true], lt: ['lt', false], ge: ['lt', true], gt: ['gt', false], le: ['gt', true],
};

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

/**
 * Per block: the condition of its final s_cbranch_scc0/scc1, if known and tested by at least
 * one other branch (a condition tested once can never contradict anything).
 */
export function edgeConditions(ctx: KernelContext): (EdgeCond | undefined)[] {
  const all = allEdgeConditions(ctx);
  const count = new Map<string, number>();
  for (const c of all) if (c) count.set(c.key, (count.get(c.key) ?? 0) + 1);
  return all.map((c) => (c && count.get(c.key)! >= 2 ? c : undefined));
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
      return { key: k.key, units, taken: b.succs[0]!, fall: b.succs[1]!, takenVal: sccWhenTaken !== k.negated };
    }
    return undefined;
  });
}

/**
 * For each condition key, the blocks from which a branch on it can still be reached: a fact
 * is kept only while it can still decide a branch (fewer path classes to keep apart).
 */
export function liveConditions(ctx: KernelContext, conds: readonly (EdgeCond | undefined)[]): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const blocks = ctx.cfg.blocks;
  conds.forEach((c, b) => {
    if (!c) return;
    let live = out.get(c.key);
    if (!live) { live = new Uint8Array(blocks.length); out.set(c.key, live); }
    const stack = [b];
    while (stack.length) {
      const x = stack.pop()!;
      if (live[x]) continue;
      live[x] = 1;
      for (const p of blocks[x]!.preds) if (!live[p]) stack.push(p);
    }
  });
  return out;
}

export function factsKey(facts: readonly Fact[]): string {
  return facts.map((f) => `${f.key}=${f.val ? 1 : 0}`).sort().join(';');
}

/** Facts that survive an instruction writing `defs`. */
export function afterDefs(facts: Fact[], defs: readonly number[]): Fact[] {
  if (facts.length === 0 || defs.length === 0) return facts;
  let out: Fact[] | undefined;
  for (let i = 0; i < facts.length; i++) {
    const f = facts[i]!;
    let hit = false;
    for (let a = 0; a < f.units.length && !hit; a++) {
      const u = f.units[a]!;
      for (let b = 0; b < defs.length; b++) if (defs[b] === u) { hit = true; break; }
    }
    if (hit && !out) out = facts.slice(0, i);
    else if (!hit && out) out.push(f);
  }
  return out ?? facts;
}

/** Facts common to both lists (same key and value). */
export function commonFacts(a: readonly Fact[], b: readonly Fact[]): Fact[] {
  return a.filter((f) => b.some((g) => g.key === f.key && g.val === f.val));
}
