/**
 * A witness of a wait that falls short on some paths only: one path from the producer to the
 * instruction that needs it on which the producer's operation is still outstanding, told by the
 * conditional branches on it and the way each goes.
 *
 * Along one path the in-order counters are exact: an operation with y younger same-class
 * operations is complete after a wait for a value n exactly when y >= n (an out-of-order class
 * only at n = 0). The search walks forward from the producer, breadth-first over (block,
 * younger count, path facts), and drops a path where the operation completes, where another
 * instruction reads or writes its register first (the analysis puts the wait there), where the
 * program ends, a call returns with every counter zero, a barrier or a return waits for
 * everything, or an edge the path facts exclude (paths.ts). It is bounded; undefined when it
 * finds nothing within the bound.
 */
import type { KernelContext } from '../analysis/types.js';
import { commonIdom, dominators } from '../analysis/cfg.js';
import {
  CLASS_COUNTER, CLASS_IN_ORDER, INSN_KIND, NO_WAIT, type InsnEffects,
} from './model.js';
import { afterInsn, edgeConditions, factsKey, feasibleSuccessors, liveConditions, type PathFact } from './paths.js';

export interface PathStep {
  /** Index (KernelContext.insns) of a conditional branch on the path. */
  branch: number;
  /** The branch is taken (else it falls through). */
  taken: boolean;
  /** The edge goes back to an earlier block (a loop's back-edge). */
  back: boolean;
}

const MAX_STATES = 20_000;

export interface WitnessQuery {
  producer: number;
  consumer: number;
  unit: number;
  cls: number;
  /** Counter maxima [vm, lgkm, exp]. */
  max: readonly number[];
  /** The kernel is callable (a return waits for everything). */
  callable: boolean;
}

interface Node { b: number; y: number; facts: PathFact[]; parent?: Node; from?: number }

/** Younger count while the producer has not issued yet on the path (phase 0). */
const BEFORE = -1;

/** The counter of the query's class, whether the class completes in order, and the largest younger count kept. */
function counterOf(q: WitnessQuery): { c: number; inOrder: boolean; cap: number } {
  const c = CLASS_COUNTER[q.cls]!;
  return { c, inOrder: CLASS_IN_ORDER[q.cls]!, cap: q.max[c]! + 1 };
}

/**
 * Walk instructions [from, end) of one block on a path (`y0`: the producer's younger count, BEFORE
 * until the producer issues; `facts0`: the path facts): the younger count and facts at the end,
 * 'found' when the instruction is reached with the operation outstanding, or undefined when the
 * path ends (see the module's comment).
 */
function walk(ctx: KernelContext, fx: readonly InsnEffects[], q: WitnessQuery, from: number, end: number, y0: number,
  facts0: PathFact[]): { y: number; facts: PathFact[] } | 'found' | undefined {
  const { c, inOrder, cap } = counterOf(q);
  let y = y0;
  let facts = facts0;
  for (let k = from; k < end; k++) {
    const f = fx[k]!;
    const r = ctx.insns[k]!;
    if (y === BEFORE) {
      if (k === q.producer) y = 0;
      else if (f.kind === INSN_KIND.end) return undefined;
      facts = afterInsn(facts, r);
      continue;
    }
    if (k === q.consumer) return 'found';
    if (f.kind === INSN_KIND.wait) {
      const n = f.wait![c]!;
      if (n !== NO_WAIT && (inOrder ? y >= n : n === 0)) return undefined;
      continue;
    }
    if (f.kind === INSN_KIND.end || (f.kind === INSN_KIND.call && f.callWaits)) return undefined;
    if (f.kind === INSN_KIND.return && q.callable) return undefined;
    if (r.uses.includes(q.unit) || r.defs.includes(q.unit)) return undefined;
    for (const is of f.issues) if (is.cls === q.cls) y = Math.min(cap, y + is.inc);
    facts = afterInsn(facts, r);
  }
  return { y, facts };
}

/**
 * Whether the wait falls short on the straight path from the producer: from it the program goes
 * to the instruction through no conditional branch (falling through, or jumping, into blocks one
 * after the other, each the only successor of the one before) with the operation still
 * outstanding there. Every time the producer runs, the instruction then runs after it short of
 * the wait: no path can be infeasible, so it is an error whatever the paths into the instruction
 * from elsewhere (the `if` around a guarded load: the path that skips the load has nothing
 * outstanding, and the load is always followed by the read).
 */
export function shortStraightAfter(ctx: KernelContext, fx: readonly InsnEffects[], q: WitnessQuery): boolean {
  const cfg = ctx.cfg;
  let b = cfg.blockOf[q.producer]!;
  let from = q.producer;
  let y = BEFORE;
  const entered = new Set<number>();
  for (;;) {
    const blk = cfg.blocks[b]!;
    const r = walk(ctx, fx, q, from, blk.end, y, []);
    if (r === 'found') return true;
    if (!r || blk.succs.length !== 1) return false;
    b = blk.succs[0]!;
    // each block entered once from its start (the producer's own block too, round a loop)
    if (entered.has(b)) return false;
    entered.add(b);
    from = cfg.blocks[b]!.start;
    y = r.y;
  }
}

export function shortPath(ctx: KernelContext, fx: readonly InsnEffects[], q: WitnessQuery): PathStep[] | undefined {
  const cfg = ctx.cfg;
  const conds = edgeConditions(ctx);
  const live = liveConditions(ctx, conds);
  const liveFacts = (s: number, facts: PathFact[]): PathFact[] => facts.filter((f) => live.get(f.key)?.[s]);

  // Start where the paths to the producer and to the instruction part (their nearest common
  // dominator), so that the branches that lead to the producer are named too.
  const pb = cfg.blockOf[q.producer]!;
  const d = commonDominator(cfg.blocks, pb, cfg.blockOf[q.consumer]!) ?? pb;
  const seen = new Set<string>();
  const queue: Node[] = [{ b: d, y: BEFORE, facts: [] }];
  for (let head = 0; head < queue.length && head < MAX_STATES; head++) {
    const n = queue[head]!;
    const blk = cfg.blocks[n.b]!;
    const r = walk(ctx, fx, q, blk.start, blk.end, n.y, n.facts);
    if (r === 'found') return steps(ctx, n);
    if (!r) continue;
    for (const [s, f] of feasibleSuccessors(conds[n.b], blk.succs, r.facts, liveFacts)) {
      const key = `${s}|${r.y}|${factsKey(f)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ b: s, y: r.y, facts: f, parent: n, from: n.b });
    }
  }
  return undefined;
}

/** The nearest block that dominates both a and b (undefined when either is unreachable from the entry). */
function commonDominator(blocks: readonly { succs: number[]; preds: number[] }[], a: number, b: number): number | undefined {
  const { idom, rank } = dominators(blocks);
  if (rank[a]! < 0 || rank[b]! < 0) return undefined;
  return commonIdom(idom, rank, a, b);
}

function steps(ctx: KernelContext, end: Node): PathStep[] {
  const cfg = ctx.cfg;
  const out: PathStep[] = [];
  let n = end;
  while (n.parent) {
    const from = cfg.blocks[n.from!]!;
    const last = from.end - 1;
    if (cfg.control[last] === 'cjump' && from.succs.length === 2) {
      out.push({ branch: last, taken: n.b === from.succs[0], back: n.b <= from.id });
    } else if (n.b <= from.id && cfg.control[last] === 'jump') {
      out.push({ branch: last, taken: true, back: true });
    }
    n = n.parent;
  }
  return out.reverse();
}
