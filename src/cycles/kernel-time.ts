/**
 * The kernel as it runs: the scheduler's `est_cycles`.
 *
 *   est_cycles = walk + sum over loops of weight x perIteration
 *
 * - walk: every basic block once in layout order (loops once), run by the waves that share a
 *   SIMD at the kernel's occupancy, until every wave has drained;
 * - perIteration: the loop body (its blocks from the header to the latch, the back edge taken)
 *   in steady state, for the same waves together: cycles per iteration of all of them;
 * - weight: the iterations the walk does not run, (trip - 1) times the trip counts of the
 *   enclosing loops. The trip count comes from the code when a simple scalar counter gives it
 *   (tripFromCode), else from the caller (`--trip N`), else DEFAULT_TRIP.
 *
 * With W waves est_cycles is the time the SIMD needs to run W waves of the kernel (the
 * hardware's view at that occupancy: one wave's stalls are filled by the others), so a kernel at
 * occupancy 8 depends much less on its instruction order than one at occupancy 1 or 2.
 * Waves: the occupancy the descriptor gives (what the hardware launches), else the one the
 * registers used allow. W co-resident waves of the same code (`coResident`): each wave runs at
 * its own pace (the single-wave simulation: its dependencies, waits and issue), and the SIMD's
 * pipes and its issue port serve all W, so the time is the larger of one wave's time and W
 * times the busiest pipe's (or the port's) share. The interleaved simulation (engine.ts
 * runMulti, `simulate --waves`) is not used here: with the waves started together its steady
 * state depends on their phase (lockstep starts, oldest-first arbitration starving the youngest
 * wave) by up to 10% between run lengths on the corpus' LDS GEMM loops, more than the order
 * changes it would be asked to judge.
 *
 * Per loop there is also a lower bound per iteration that no instruction order can beat: the
 * busiest pipe (all waves), the issue port, the longest dependency chain of one iteration and
 * the loop-carried recurrence (both latency-only, without waits: the order of a legal schedule
 * does not change them), with the constraint that binds.
 */
import type { KernelContext } from '../analysis/types.js';
import { isWaitOrNop } from '../asm/program.js';
import { dominates, dominators } from '../analysis/cfg.js';
import { kernelResources } from '../analysis/resources.js';
import type { CycleParams } from '../targets/latency.js';
import { cycleEngineFor } from './estimate.js';
import { once } from '../analysis/memo.js';
import { PeriodState, type CycleEngine } from './engine.js';
import { checkFastFromEnv, FastPathMismatch } from '../errors.js';
import {
  FLAG, NPIPES, PIPE_NAMES,
} from './model.js';
import { SCC, VGPR_BASE } from '../asm/registers.js';
import { constantAdd, intOperand, sgprOperand } from '../isa/scalar-add.js';

/**
 * Trip count of a loop whose count the code does not give and the caller does not set: a GEMM
 * main loop over K = 4096 at a depth of 64 runs 64 iterations. Not a hardware fact: the weight
 * given to loop bodies against straight-line code; `--trip N` replaces it.
 */
export const DEFAULT_TRIP = 64;
/** Largest trip count read from the code (beyond it the count is treated as unknown). */
const MAX_CODE_TRIP = 1 << 20;

export type TripSource = 'code' | 'option' | 'default';

export interface KernelLoop {
  header: number;
  /** The last block with a back edge to the header (in layout order): the body ends with it. */
  latch: number;
  /** Every block with a back edge to the header, in layout order (the last one is `latch`). */
  latches: number[];
  /** Line of each back edge (the branch ending each of `latches`). */
  backEdgeLines: number[];
  /** Kernel instruction range of the body [start, end): blocks header..latch in layout order. */
  start: number;
  end: number;
  /** Index of the innermost enclosing loop in the list, -1 at the top level. */
  parent: number;
  trip: number;
  tripFrom: TripSource;
  /** Iterations beyond the walk's one: (trip - 1) x the trips of the enclosing loops. */
  weight: number;
  /** Line of the header's first instruction. */
  line: number;
  /** Iterations of the source loop one iteration stands for: 2 for a loop pipelined by two stages (twoStageRotation), else 1. */
  unroll: number;
}

/** A loop's blocks (header to last latch) and its instructions. */
interface LoopRange { header: number; latch: number; size: number }

/**
 * Of `ranges`, the innermost that holds `r` (its header before r's, its last latch at or after
 * r's): its index (the first of the fewest instructions), -1 when none.
 */
function innermostAround(ranges: readonly LoopRange[], r: LoopRange): number {
  let best = -1;
  ranges.forEach((o, y) => {
    if (o.header >= r.header || o.latch < r.latch) return;
    if (best < 0 || o.size < ranges[best]!.size) best = y;
  });
  return best;
}

/**
 * Loops of a kernel, one per header (a natural loop): a block ending in a branch to a block at
 * or before it that can reach the branch again inside that range is a back edge (a backward
 * jump its target cannot reach again is a jump to shared code, not a loop). The back edges to
 * one header make one loop (a `continue` is a second back edge, not a second loop); its body
 * runs from the header to the last of them. A loop is nested in another when its body lies
 * inside the other's. Outer loops first.
 */
export function kernelLoops(ctx: KernelContext, trip?: number): KernelLoop[] {
  const { cfg } = ctx;
  const latchesOf = new Map<number, number[]>();
  for (const b of cfg.blocks) {
    if (b.end <= b.start) continue;
    for (const s of b.succs) {
      if (s > b.id || !reaches(ctx, s, b.id)) continue;
      const ls = latchesOf.get(s) ?? [];
      if (!ls.includes(b.id)) ls.push(b.id);
      latchesOf.set(s, ls);
    }
  }
  // A loop laid out rotated (LLVM's block placement: the header in the middle of the body,
  // entered from outside by a forward `s_branch`) has a layout-backward edge from its header to a
  // block placed before it; that edge stays inside one iteration, so the range it spans is no
  // loop of its own: it is entered, from outside the loop around it, at a block other than its
  // first (a loop's header dominates its body, so a nested loop is entered at its header only).
  const rangeOf = (header: number): LoopRange => {
    const latch = latchesOf.get(header)!.reduce((m, x) => Math.max(m, x), header);
    return { header, latch, size: cfg.blocks[latch]!.end - cfg.blocks[header]!.start };
  };
  for (const h of [...latchesOf.keys()]) {
    const ranges = [...latchesOf.keys()].map(rangeOf);
    const own = rangeOf(h);
    const o = innermostAround(ranges, own);
    if (o < 0) continue;
    const outer = ranges[o]!;
    const enteredInside = cfg.blocks.some((b) => (b.id < outer.header || b.id > outer.latch)
      && b.succs.some((s) => s > h && s <= own.latch));
    if (enteredInside) latchesOf.delete(h);
  }
  rotatedNaturalLoops(ctx, latchesOf);
  const headers = [...latchesOf.keys()].sort((a, b) => a - b);
  const lastLine = (blk: number) => {
    const B = cfg.blocks[blk]!;
    return cfg.insns[B.end - 1]?.loc.line ?? B.loc.line;
  };
  const loops: KernelLoop[] = headers.map((header) => {
    const latches = latchesOf.get(header)!.sort((a, b) => a - b);
    const latch = latches[latches.length - 1]!;
    const start = cfg.blocks[header]!.start;
    const end = cfg.blocks[latch]!.end;
    const code = tripFromCode(ctx, header, latch, latches);
    const given = trip ?? DEFAULT_TRIP;
    const two = latches.length === 1 && twoStageRotation(ctx, header, latch);
    const t = code ?? (two ? Math.max(1, Math.floor((given - 4) / 2)) : guardedRotation(ctx, header, latch) ? Math.max(1, given - 1) : given);
    return {
      header, latch, latches, backEdgeLines: latches.map(lastLine), start, end, parent: -1, trip: t, unroll: two ? 2 : 1,
      tripFrom: code !== undefined ? 'code' : trip !== undefined ? 'option' : 'default', weight: 0,
      line: cfg.insns[start]?.loc.line ?? cfg.blocks[header]!.loc.line,
    };
  });
  const ranges = loops.map((l): LoopRange => ({ header: l.header, latch: l.latch, size: l.end - l.start }));
  loops.forEach((l, x) => { l.parent = innermostAround(ranges, ranges[x]!); });
  for (const l of loops) {
    let outer = 1;
    for (let p = l.parent; p >= 0; p = loops[p]!.parent) outer *= loops[p]!.trip;
    l.weight = (l.trip - 1) * outer;
  }
  return loops;
}

/**
 * Natural loops laid out in one range of blocks whose header is not the first of them (LLVM lays
 * out a loop with an if/else, or with an inner loop left by a break, around its header: the
 * entry jumps forward into the middle, and the arms placed before the header are entered by
 * layout-backward branches from inside the loop). The layout's backward edges alone make such a
 * loop two overlapping ranges, or miss it: the project's lds_double_buffer kernel (one loop,
 * blocks 2-5, header 4) was two loops of 64 iterations each (blocks 2-4 and 3-5), and a nested
 * loop left by a break lost its outer loop. Each such loop is one range, its first block to its
 * last, entered at its first (the walk runs its blocks in layout order, as for any loop); the
 * backward-edge ranges inside it whose first block heads no loop are dropped. A natural loop
 * whose blocks are not one range (llc -O0 places a latch after the exit) keeps the ranges of its
 * backward edges. Natural loops: a back edge is an edge to a block that dominates its source.
 */
function rotatedNaturalLoops(ctx: KernelContext, latchesOf: Map<number, number[]>): void {
  const blocks = ctx.cfg.blocks;
  const { idom, rank } = dominators(blocks);
  const bodies = new Map<number, Set<number>>();
  blocks.forEach((b, u) => {
    for (const h of b.succs) {
      if (!dominates(idom, rank, h, u)) continue;
      const body = bodies.get(h) ?? new Set([h]);
      const stack = [u];
      while (stack.length) {
        const x = stack.pop()!;
        if (body.has(x)) continue;
        body.add(x);
        for (const p of blocks[x]!.preds) stack.push(p);
      }
      bodies.set(h, body);
    }
  });
  for (const [h, body] of bodies) {
    let lo = h;
    let hi = h;
    for (const x of body) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
    if (lo === h || hi - lo + 1 !== body.size) continue;
    const first = latchesOf.get(lo) ?? [];
    for (const [t, ls] of [...latchesOf]) {
      const end = Math.max(t, ...ls);
      if (t >= lo && end <= hi && !(t === lo && end === hi) && !bodies.has(t)) latchesOf.delete(t);
    }
    latchesOf.set(lo, [...new Set([...first.filter((x) => x <= hi), hi])]);
  }
}

/**
 * A loop in the form `schedule` writes when it pipelines one (src/schedule/pipeline): the code
 * right before it ends with the loop's own compare and a branch, on the loop's exit condition,
 * to the code right after it (the peeled last iteration). Such a loop runs its body once less
 * than the trip count it stands for (the last iteration runs after it), so a trip count that
 * does not come from the code counts one iteration less.
 */
export function guardedRotation(ctx: KernelContext, header: number, latch: number): boolean {
  const { cfg, insns } = ctx;
  if (header === 0 || latch + 1 >= cfg.blocks.length) return false;
  const pre = cfg.blocks[header - 1]!;
  const lb = cfg.blocks[latch]!;
  if (pre.end - pre.start < 2 || !pre.succs.includes(latch + 1)) return false;
  const guard = insns[pre.end - 1]!.insn.base;
  const back = insns[lb.end - 1]!.insn.base;
  const senses: Record<string, string> = { s_cbranch_scc0: 's_cbranch_scc1', s_cbranch_scc1: 's_cbranch_scc0' };
  if (senses[back] === undefined || senses[back] !== guard) return false;
  const lastScc = (from: number, to: number) => {
    for (let i = to - 1; i >= from; i--) if (insns[i]!.defs.includes(SCC)) return i;
    return -1;
  };
  const a = lastScc(pre.start, pre.end - 1);
  const b = lastScc(lb.start, lb.end - 1);
  if (a < 0 || b < 0 || !/^s_cmpk?_/.test(insns[b]!.insn.base)) return false;
  const text = (i: number) => `${insns[i]!.insn.mnemonic} ${insns[i]!.insn.operands.map((o) => o.text).join(',')}`;
  return text(a) === text(b);
}

/**
 * A loop in the form `schedule` writes when it pipelines one by two stages (src/schedule/pipeline,
 * pipelineTwoStage): two blocks, each an iteration of the source loop ending with the loop's own
 * compare, the first left by a branch on the exit condition, entered past a guard (guardedRotation).
 * Its body stands for two iterations, and the code after it holds four more (two on the even way
 * out, one on the odd way, one on the way for a single iteration; the block walk of est_cycles
 * runs each block once): a trip count that does not come from the code counts (trip - 4) / 2
 * iterations, so that est_cycles runs the source loop's body as often as for the loop as written.
 */
export function twoStageRotation(ctx: KernelContext, header: number, latch: number): boolean {
  const { cfg, insns } = ctx;
  if (latch !== header + 1 || !guardedRotation(ctx, header, latch)) return false;
  const h = cfg.blocks[header]!;
  const l = cfg.blocks[latch]!;
  const exitBranch = insns[h.end - 1]!.insn.base;
  const back = insns[l.end - 1]!.insn.base;
  if (!/^s_cbranch_scc[01]$/.test(exitBranch) || exitBranch === back) return false;
  const lastCmp = (b: typeof h) => {
    for (let i = b.end - 2; i >= b.start; i--) if (insns[i]!.defs.includes(SCC)) return /^s_cmpk?_/.test(insns[i]!.insn.base) ? `${insns[i]!.insn.mnemonic} ${insns[i]!.insn.operands.map((o) => o.text).join(',')}` : undefined;
    return undefined;
  };
  const c = lastCmp(h);
  return c !== undefined && c === lastCmp(l);
}

/** Does every way from the header to one of the latches (inside the body) pass through block `via`? */
function dominatesLatches(ctx: KernelContext, header: number, via: number, latches: readonly number[]): boolean {
  if (via === header) return true;
  const last = latches[latches.length - 1]!;
  const seen = new Set<number>([header]);
  const stack = [header];
  while (stack.length > 0) {
    const b = stack.pop()!;
    if (latches.includes(b)) return false;
    for (const s of ctx.cfg.blocks[b]!.succs) {
      if (s === via || s < header || s > last || seen.has(s)) continue;
      seen.add(s);
      stack.push(s);
    }
  }
  return true;
}

/**
 * Whether, from block `via` on, the loop's code runs forward to its back edges: no block from
 * `via` to the last latch jumps back to `via` or before except by a back edge to the header (what
 * runs after `via` in an iteration is then laid out after it).
 */
function forwardFrom(ctx: KernelContext, header: number, via: number, latches: readonly number[]): boolean {
  const last = latches[latches.length - 1]!;
  for (let b = via; b <= last; b++) {
    for (const s of ctx.cfg.blocks[b]!.succs) if (s >= header && s <= via && !(s === header && latches.includes(b))) return false;
  }
  return true;
}

/** Can block `to` be reached from block `from` through blocks inside [from, to]? */
function reaches(ctx: KernelContext, from: number, to: number): boolean {
  if (from === to) return true;
  const seen = new Set<number>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const b = stack.pop()!;
    for (const s of ctx.cfg.blocks[b]!.succs) {
      if (s === to) return true;
      if (s < from || s > to || seen.has(s)) continue;
      seen.add(s);
      stack.push(s);
    }
  }
  return false;
}

const CMP = /^s_cmpk?_(eq|lg|gt|ge|lt|le)_(i32|u32)$/;

/**
 * Trip count from a simple scalar counter, or undefined: the latch ends in s_cbranch_scc0/1
 * after an s_cmp(k) of an SGPR with a constant; each write of that SGPR in the body is s_add/s_sub
 * of a constant to itself (or s_addk_i32) on every way round; before the header (in the blocks
 * that lead to it alone) it is set to a constant (initialValue). The loop is then run on
 * those values (32-bit wrap, signed or unsigned compare as the s_cmp says). With several back
 * edges (`latches`) an iteration that goes back through an earlier back edge skips the compare,
 * so the count is then the least the loop runs.
 * A counter set by s_and_b32 with a constant mask (LLVM's remainder loop after an unrolled one:
 * `s_and_b32 s2, s10, 7`) starts anywhere in [0, mask]: the count is then the most the loop runs
 * from any of those values that leaves it (a start the loop never leaves is one its guard skips).
 */
export function tripFromCode(ctx: KernelContext, header: number, latch: number, latches: readonly number[] = [latch]): number | undefined {
  const { cfg, insns } = ctx;
  const lb = cfg.blocks[latch]!;
  const br = insns[lb.end - 1]!;
  const onTrue = br.insn.base === 's_cbranch_scc1' ? true : br.insn.base === 's_cbranch_scc0' ? false : undefined;
  if (onTrue === undefined) return undefined;
  const start = cfg.blocks[header]!.start;
  // the compare: last SCC writer before the branch
  let cmpAt = -1;
  for (let i = lb.end - 2; i >= start; i--) {
    if (CMP.test(insns[i]!.insn.base)) { cmpAt = i; break; }
    if (insns[i]!.defs.includes(SCC)) return undefined;
  }
  if (cmpAt < 0) return undefined;
  const cmp = insns[cmpAt]!;
  const [, op, ty] = CMP.exec(cmp.insn.base)!;
  let counter = sgprOperand(cmp.insn, 0);
  let bound = intOperand(cmp.insn, 1);
  let swapped = false;
  if (counter === undefined || bound === undefined) {
    counter = sgprOperand(cmp.insn, 1); bound = intOperand(cmp.insn, 0); swapped = true;
  }
  if (counter === undefined || bound === undefined) return undefined;
  // a loop schedule pipelined with the counter's next value (src/schedule/pipeline, LoopCounter
  // 'next'): the compared SGPR is made once in the body by the counter's own step into it
  // (`s_add_i32 t, c, s` after `s_add_i32 c, c, s`): the trip counts c's steps, the compare
  // reading c plus that step
  let split = cmpAt;
  let delta = 0;
  const made = nextValueOf(ctx, start, lb.end, counter);
  if (made && made.at < cmpAt) { counter = made.counter; split = made.at; delta = made.delta; }
  const unit = counter;
  // the step: every write of the counter in the body adds a constant to it (MIOpen's conv1x1u
  // counts down twice an iteration, once in each half of its unrolled body); each runs on every
  // way round. `pre`: what the writes before the compare add; `post`: the writes after it.
  let pre = 0;
  let post = 0;
  let steps = 0;
  let lastStep = -1;
  // a counter kept in a lane of a VGPR between iterations (MIOpen's conv7x7: `v_readlane_b32 s21,
  // v22, 2`, `s_sub_u32 s21, s21, 1`, `v_writelane_b32 v22, s21, 2`, then the compare)
  let reload: { at: number; vgpr: number; lane: number } | undefined;
  for (let i = cmpAt - 1; i >= start && !reload; i--) {
    const r = insns[i]!;
    if (!r.defs.includes(unit) || r.insn.base !== 'v_readlane_b32' || sgprOperand(r.insn, 0) !== counter) continue;
    const lane = intOperand(r.insn, 2);
    const vgpr = r.uses.find((u) => u >= VGPR_BASE);
    if (lane === undefined || vgpr === undefined || !forwardFrom(ctx, header, cfg.blockOf[i]!, latches)) return undefined;
    reload = { at: i, vgpr, lane };
  }
  // with a reload what the counter held before it is overwritten (conv7x7 loads s[16:31] early
  // in the body): the steps count from there
  for (let i = reload ? reload.at + 1 : start; i < lb.end; i++) {
    const r = insns[i]!;
    if (!r.defs.includes(unit)) continue;
    // each must run on every way round: its block on every path from the header to each back edge
    if (!dominatesLatches(ctx, header, cfg.blockOf[i]!, latches)) return undefined;
    const x = counterStep(r, counter);
    if (x === undefined) return undefined;
    if (i < split) pre += x; else post += x;
    steps++;
    lastStep = i;
  }
  if (reload && !dominatesLatches(ctx, header, cfg.blockOf[reload.at]!, latches)) return undefined;
  if (steps === 0 || pre + post === 0) return undefined;
  let init: { value: number; mask?: number } | undefined;
  if (reload) {
    // the lane is written once in the body, with the counter after its steps and before the
    // compare; the VGPR's other writes are of other lanes
    let writeAt = -1;
    for (let i = start; i < lb.end; i++) {
      const r = insns[i]!;
      if (!r.defs.includes(reload.vgpr)) continue;
      const l = r.insn.base === 'v_writelane_b32' ? intOperand(r.insn, 2) : undefined;
      if (l === undefined) return undefined;
      if (l !== reload.lane) continue;
      if (writeAt >= 0 || sgprOperand(r.insn, 1) !== counter) return undefined;
      writeAt = i;
    }
    if (post !== 0 || writeAt < lastStep || writeAt > cmpAt || !dominatesLatches(ctx, header, cfg.blockOf[writeAt]!, latches)) return undefined;
    init = laneValue(ctx, header, latch, reload.vgpr, reload.lane);
  } else {
    // the initial value: the last write before the header on the only way into it
    init = initialValue(ctx, header, latch, counter);
  }
  if (init === undefined) return undefined;
  const signed = ty === 'i32';
  const norm = (v: number) => (signed ? v | 0 : v >>> 0);
  const test = (v: number) => {
    let a = norm(v); let b = norm(bound!);
    if (swapped) { const t = a; a = b; b = t; }
    switch (op) {
      case 'eq': return a === b;
      case 'lg': return a !== b;
      case 'gt': return a > b;
      case 'ge': return a >= b;
      case 'lt': return a < b;
      default: return a <= b;
    }
  };
  const run = (start: number, limit: number): number | undefined => {
    let v = start;
    for (let n = 1; n <= limit; n++) {
      // one iteration: the steps before the compare, the compare, the steps after it
      v = norm(v + pre);
      const c = test(norm(v + delta));
      v = norm(v + post);
      if (c !== onTrue) return n;
    }
    return undefined;
  };
  if (init.mask === undefined) return run(init.value, MAX_CODE_TRIP);
  // a start in [0, mask]: a counter that stays in that range leaves within mask + 1 iterations
  let most: number | undefined;
  for (let v0 = 0; v0 <= init.mask; v0++) {
    const n = run(v0, init.mask + 1);
    if (n !== undefined && (most === undefined || n > most)) most = n;
  }
  return most;
}

/**
 * The counter whose next value SGPR `t` holds in the body [start, end): t's only write there is
 * an s_add/s_sub of a constant to another SGPR c that the body writes (its counter); the write's
 * position and what it adds.
 */
function nextValueOf(ctx: KernelContext, start: number, end: number, t: number): { counter: number; at: number; delta: number } | undefined {
  const { insns } = ctx;
  let at = -1;
  for (let i = start; i < end; i++) if (insns[i]!.defs.includes(t)) { if (at >= 0) return undefined; at = i; }
  if (at < 0) return undefined;
  const a = constantAdd(insns[at]!.insn);
  if (!a || a.dst !== t || a.src === t) return undefined;
  let written = false;
  for (let i = start; i < end && !written; i++) written = insns[i]!.defs.includes(a.src);
  return written ? { counter: a.src, at, delta: a.add } : undefined;
}

/** What `r` adds to the counter SGPR when it is s_add/s_sub of a constant to it or s_addk_i32; else undefined. */
function counterStep(r: KernelContext['insns'][number], counter: number): number | undefined {
  if (r.insn.base === 's_addk_i32') return sgprOperand(r.insn, 0) === counter ? intOperand(r.insn, 1) : undefined;
  const a = constantAdd(r.insn);
  return a && a.dst === counter && a.src === counter ? a.add : undefined;
}

/** Largest s_and_b32 mask read as a trip-count range (a remainder loop's is 2^k - 1, small). */
const MAX_TRIP_MASK = 1024;

/**
 * The counter's value before the loop: a constant, or (`mask`) any value in [0, mask]. Found by
 * the writes before the header on the only way into it, last first: s_mov_b32 / s_movk_i32 of a
 * constant or s_and_b32 with a constant mask sets it; s_add / s_sub / s_addk_i32 of a constant
 * after the set adds to a constant (conv1x1u: `s_mov_b32 s4, 64` then `s_addk_i32 s4, -2`); an
 * s_cmov_b32 / s_cmovk_i32 of the value the counter already holds leaves it as it is.
 */
function initialValue(ctx: KernelContext, header: number, latch: number, sgpr: number,
  from?: { block: number; index: number }): { value: number; mask?: number } | undefined {
  // the writes after the set, last first: a constant added, or a conditional move of a constant
  const later: { add?: number; cmov?: number }[] = [];
  const settle = (set: { value: number; mask?: number }): { value: number; mask?: number } | undefined => {
    let v = set.value;
    for (let j = later.length - 1; j >= 0; j--) {
      const w = later[j]!;
      if (set.mask !== undefined) return undefined;
      if (w.add !== undefined) v = (v + w.add) | 0;
      else if ((w.cmov! | 0) !== (v | 0)) return undefined;
    }
    return set.mask === undefined ? { value: v } : set;
  };
  return lastWritesBefore(ctx, header, latch, sgpr, from, (r) => {
    const base = r.insn.base;
    if ((base === 's_mov_b32' || base === 's_movk_i32') && sgprOperand(r.insn, 0) === sgpr) {
      const v = intOperand(r.insn, 1);
      return v === undefined ? undefined : settle({ value: v });
    }
    if (base === 's_and_b32' && sgprOperand(r.insn, 0) === sgpr) {
      const m = intOperand(r.insn, 2) ?? intOperand(r.insn, 1);
      return m !== undefined && m >= 0 && m <= MAX_TRIP_MASK ? settle({ value: 0, mask: m }) : undefined;
    }
    const add = counterStep(r, sgpr);
    if (add !== undefined) { later.push({ add }); return 'on'; }
    if ((base === 's_cmov_b32' || base === 's_cmovk_i32') && sgprOperand(r.insn, 0) === sgpr) {
      const v = intOperand(r.insn, 1);
      if (v === undefined) return undefined;
      later.push({ cmov: v });
      return 'on';
    }
    return undefined;
  });
}

/**
 * The writes of register unit `unit` before the loop's header (or before instruction `from.index`
 * of block `from.block`, then on), last first, on the only way into it (at most 8 blocks back):
 * `visit` gives the answer, or 'on' to look at the write before. Undefined at a join or when
 * nothing decides.
 */
function lastWritesBefore<T>(ctx: KernelContext, header: number, latch: number, unit: number, from: { block: number; index: number } | undefined,
  visit: (r: KernelContext['insns'][number], i: number) => T | 'on' | undefined): T | undefined {
  const { cfg, insns } = ctx;
  let b = from?.block ?? header;
  let end = from?.index;
  let fromLoop = from === undefined;
  for (let hops = 0; hops < 8; hops++) {
    if (end === undefined) {
      const preds = cfg.blocks[b]!.preds.filter((p) => !(fromLoop && p >= header && p <= latch));
      fromLoop = false;
      if (preds.length !== 1) return undefined;
      b = preds[0]!;
    }
    const blk = cfg.blocks[b]!;
    for (let i = (end ?? blk.end) - 1; i >= blk.start; i--) {
      const r = insns[i]!;
      if (!r.defs.includes(unit)) continue;
      const v = visit(r, i);
      if (v !== 'on') return v;
    }
    end = undefined;
  }
  return undefined;
}

/**
 * The value lane `lane` of the VGPR of unit `vgpr` holds before the loop: the last
 * v_writelane_b32 of that lane before the header (writes of other lanes pass), of an SGPR whose
 * value there initialValue gives. Undefined when another write of the VGPR comes between.
 */
function laneValue(ctx: KernelContext, header: number, latch: number, vgpr: number, lane: number): { value: number; mask?: number } | undefined {
  const index = lastWritesBefore(ctx, header, latch, vgpr, undefined, (r, i) => {
    if (r.insn.base !== 'v_writelane_b32') return undefined;
    const l = intOperand(r.insn, 2);
    if (l === undefined) return undefined;
    return l === lane ? i : 'on';
  });
  const src = index !== undefined ? sgprOperand(ctx.insns[index]!.insn, 1) : undefined;
  if (index === undefined || src === undefined) return undefined;
  return initialValue(ctx, header, latch, src, { block: ctx.cfg.blockOf[index]!, index });
}

/** Waves of the kernel on one SIMD: occupancy (descriptor), what the hardware runs, else occupancy (registers used). */
export function kernelWaves(ctx: KernelContext): { waves: number; from: string } {
  const occ = kernelResources(ctx).resources.occupancy;
  const o = occ.descriptor ?? occ.registersUsed;
  return { waves: Math.max(1, o.wavesPerSimd), from: `occupancy (${occ.descriptor ? 'descriptor' : 'registers used'}), limited by ${o.limiter}` };
}

// What W waves of a sequence share: the busiest pipe's cycles per wave, and the instructions
// that take an issue-port cycle (synthetic wait parts take none).
const PIPE_SCRATCH = new Float64Array(NPIPES);

/** The busiest pipe's occupancy over a sequence. */
function busiestPipe(engine: CycleEngine, seq: ArrayLike<number>, taken?: ArrayLike<number>): number {
  const pipes = PIPE_SCRATCH;
  engine.resourceSumsInto(seq, 0, seq.length, pipes, taken);
  let pipe = 0;
  for (let p = 1; p < NPIPES; p++) if (pipes[p]! > pipe) pipe = pipes[p]!;
  return pipe;
}

/** Issue-port slots a sequence takes (its instructions that are not free). */
function portSlots(engine: CycleEngine, seq: ArrayLike<number>): number {
  let port = 0;
  const f = engine.m.flags;
  for (let k = 0; k < seq.length; k++) if ((f[seq[k]!]! & FLAG.free) === 0) port++;
  return port;
}

/**
 * Cycles for W co-resident waves given one wave's cycles for a sequence: the larger of that and
 * W times the busiest pipe's or the issue port's share.
 */
export function coResident(engine: CycleEngine, seq: ArrayLike<number>, waves: number, single: number, taken?: ArrayLike<number>): number {
  if (waves <= 1) return single;
  return Math.max(single, waves * busiestPipe(engine, seq, taken), waves * portSlots(engine, seq));
}

/** Per position of a loop body: 1 when the branch there is taken (the last one: the back edge). */
export function bodyTaken(engine: CycleEngine, body: ArrayLike<number>): Uint8Array {
  const t = new Uint8Array(body.length);
  const f = engine.m.flags;
  for (let k = 0; k < body.length; k++) t[k] = (f[body[k]!]! & FLAG.jump) !== 0 ? 1 : 0;
  if (body.length > 0) t[body.length - 1] = 1;
  return t;
}

/** The state one iteration back, for afterKand2K (one run at a time on a thread). */
let periodScratch: PeriodState | undefined;

/** Iterations afterKand2K ran, and those it knew from a period instead (for the bench and tests). */
export const periodStats = { run: 0, known: 0 };

/**
 * The engine's measure (`at`: drained() or time()) after k and after 2k iterations of a body,
 * from the engine as `reset` leaves it, in one run of 2k iterations: an in-order model times an
 * instruction from the ones before it only, so the first k iterations of 2k run as k iterations
 * alone do, and the body is run again in place instead of written out k times. Once the state after an iteration
 * is the state after the one before, D later (CycleEngine.periodShift), each later iteration runs
 * as that one did, D later: the measure after n iterations is the one after j plus (n - j) D, and
 * the rest is not run. `period` false: every iteration is run (the reference of that shortcut,
 * which CONDUCTOR_CHECK_FAST=1 runs as well: FastPathMismatch when the two differ).
 */
export function afterKand2K(engine: CycleEngine, body: ArrayLike<number>, taken: Uint8Array, k: number, reset: () => void,
  at: () => number, period = true): { k: number; k2: number } {
  const r = iterate(engine, body, taken, k, reset, at, period);
  if (period && checkFastFromEnv()) {
    const ref = iterate(engine, body, taken, k, reset, at, false);
    if (ref.k !== r.k || ref.k2 !== r.k2) {
      throw new FastPathMismatch(`fast path check: a loop body of ${body.length} instructions after ${k} and ${2 * k} iterations: ${r.k}, ${r.k2} from its period, ${ref.k}, ${ref.k2} run`);
    }
  }
  return r;
}

function iterate(engine: CycleEngine, body: ArrayLike<number>, taken: Uint8Array, k: number, reset: () => void,
  at: () => number, period: boolean): { k: number; k2: number } {
  reset();
  const opts = { taken };
  const saved = period ? (periodScratch ??= new PeriodState()) : undefined;
  let atK = 0;
  for (let j = 1; ; j++) {
    engine.runSingle(body, 0, body.length, opts);
    periodStats.run++;
    const x = at();
    if (j === k) atK = x;
    if (j === 2 * k) return { k: atK, k2: x };
    if (!saved) continue;
    if (j >= 2) {
      const D = engine.periodShift(saved);
      if (D === D) {
        periodStats.known += 2 * k - j;
        return { k: j >= k ? atK : x + (k - j) * D, k2: x + (2 * k - j) * D };
      }
    }
    engine.savePeriod(saved);
  }
}

/** Iterations simulated for a steady state: enough to cover the latencies in flight. */
function reps(len: number): number {
  return Math.max(2, Math.min(8, Math.ceil(256 / Math.max(1, len))));
}

/** Cycles of one wave alone and of the W co-resident waves together. */
export interface WaveCycles { one: number; all: number }

/**
 * Cycles per iteration of a loop body in steady state: one wave's (the difference between
 * running 2k and k iterations, divided by k), and `waves` waves together: that, or W times the
 * busiest pipe's or the issue port's share when that is larger (coResident).
 */
export function steadyState(engine: CycleEngine, body: ArrayLike<number>, waves: number, taken?: Uint8Array): WaveCycles {
  const len = body.length;
  if (len === 0) return { one: 0, all: 0 };
  const tk = taken ?? bodyTaken(engine, body);
  const k = reps(len);
  const r = afterKand2K(engine, body, tk, k, () => engine.reset(1), () => engine.drained(0));
  const one = (r.k2 - r.k) / k;
  return { one, all: coResident(engine, body, waves, one, tk) };
}

export interface LoopBound {
  /** The largest of the constraints below: no order of the body beats it. */
  bound: number;
  /** What sets it: a pipe name, 'issue', 'port', 'critical path' or 'recurrence'. */
  limiter: string;
  /** Cycles each pipe is busy per iteration, all waves together. */
  pipes: Record<string, number>;
  /** One wave's issue cycles per iteration. */
  issue: number;
  /** Instructions x waves: the SIMD issues one instruction per cycle. */
  port: number;
  /** Longest dependency chain of one iteration (latency only, issue to issue). */
  criticalPath: number;
  /** Loop-carried recurrence: latency-only cycles per iteration in steady state. */
  recurrence: number;
}

/** Lower bound per iteration of a loop body for `waves` waves (waits and nops left out). */
export function loopBound(engine: CycleEngine, body: ArrayLike<number>, waves: number): LoopBound {
  const m = engine.m;
  const core: number[] = [];
  for (let k = 0; k < body.length; k++) {
    const i = body[k]!;
    if (i >= m.n) continue;
    if (isWaitOrNop(m.ctx.insns[i]!.insn)) continue;
    core.push(i);
  }
  const taken = bodyTaken(engine, core);
  const sums = engine.resourceSums(core, 0, core.length, taken);
  engine.reset(1, false);
  engine.runSingle(core, 0, core.length, { taken });
  const criticalPath = engine.time(0);
  const k = reps(core.length);
  let recurrence = 0;
  if (core.length > 0) {
    const r = afterKand2K(engine, core, taken, k, () => engine.reset(1, false), () => engine.time(0));
    recurrence = (r.k2 - r.k) / k;
  }
  const pipes: Record<string, number> = {};
  let bound = sums.issue;
  let limiter = 'issue';
  for (let p = 1; p < NPIPES; p++) {
    const v = sums.pipes[p]! * waves;
    pipes[PIPE_NAMES[p]!] = v;
    if (v > bound) { bound = v; limiter = PIPE_NAMES[p]!; }
  }
  const port = waves > 1 ? core.length * waves : 0;
  if (port > bound) { bound = port; limiter = 'port'; }
  if (criticalPath > bound) { bound = criticalPath; limiter = 'critical path'; }
  if (recurrence > bound) { bound = recurrence; limiter = 'recurrence'; }
  return { bound, limiter, pipes, issue: sums.issue, port, criticalPath, recurrence };
}

export interface LoopTime {
  loop: KernelLoop;
  /** Cycles per iteration, all waves together, in steady state. */
  perIteration: number;
  /** The same for one wave alone. */
  perIterationOne: number;
  bound?: LoopBound;
}

export interface KernelTime {
  /** walk + sum of weight x perIteration. */
  cycles: number;
  /** The same for one wave alone (what breaks ties of est_cycles). */
  cyclesOne: number;
  waves: number;
  wavesFrom: string;
  /** Every block once (loops once), all waves. */
  walk: number;
  loops: LoopTime[];
}

export interface KernelTimeOptions {
  /** Trip count of loops whose count the code does not give (default DEFAULT_TRIP). */
  trip?: number;
  /** Waves on the SIMD (default kernelWaves). */
  waves?: number;
  params?: CycleParams;
  /** Compute each loop's lower bound too. */
  bounds?: boolean;
}

/** The block walk of a kernel: every block once in layout order, unconditional branches taken. */
export function walkOf(engine: CycleEngine, ctx: KernelContext): { seq: Int32Array; taken: Uint8Array } {
  const n = ctx.insns.length;
  const seq = new Int32Array(n);
  const taken = new Uint8Array(n);
  const f = engine.m.flags;
  for (let i = 0; i < n; i++) { seq[i] = i; taken[i] = (f[i]! & FLAG.jump) !== 0 ? 1 : 0; }
  return { seq, taken };
}

/** Cycles of a sequence from an idle SIMD until every wave has drained: one wave, and `waves` co-resident waves. */
export function runWaves(engine: CycleEngine, seq: ArrayLike<number>, waves: number, taken?: ArrayLike<number>): WaveCycles {
  engine.reset(1);
  engine.runSingle(seq, 0, seq.length, taken ? { taken } : {});
  const one = engine.drained(0);
  return { one, all: coResident(engine, seq, waves, one, taken) };
}

/** est_cycles of a kernel as written (see the file comment). */
export function kernelTime(ctx: KernelContext, opts: KernelTimeOptions = {}): KernelTime {
  const engine = cycleEngineFor(ctx, opts.params);
  const kw = opts.waves !== undefined ? { waves: opts.waves, from: 'given' } : kernelWaves(ctx);
  // kept per engine (one per context and parameters: analysis/memo.ts) and what the time depends on
  const t = once(engine, `kernelTime ${opts.trip ?? 'default'} ${kw.waves} ${opts.bounds ? 'bounds' : ''}`, () => timeOf(engine, ctx, kw.waves, opts));
  return { ...t, loops: t.loops.slice(), wavesFrom: kw.from };
}

function timeOf(engine: CycleEngine, ctx: KernelContext, waves: number, opts: KernelTimeOptions): Omit<KernelTime, 'wavesFrom'> {
  const w = walkOf(engine, ctx);
  const walk = runWaves(engine, w.seq, waves, w.taken);
  let cycles = walk.all;
  let cyclesOne = walk.one;
  const loops: LoopTime[] = [];
  for (const loop of kernelLoops(ctx, opts.trip)) {
    const body = w.seq.subarray(loop.start, loop.end);
    const per = steadyState(engine, body, waves);
    cycles += loop.weight * per.all;
    cyclesOne += loop.weight * per.one;
    loops.push({ loop, perIteration: per.all, perIterationOne: per.one, bound: opts.bounds ? loopBound(engine, body, waves) : undefined });
  }
  return { cycles, cyclesOne, waves, walk: walk.all, loops };
}

/** One loop of a kernel before and after: cycles per iteration (all waves), its bound and the gap. */
export interface LoopChange {
  /** Line of the loop header in the input. */
  line: number;
  /** The included file `line` is in (schedule of a file with `.include`); absent: the input file. */
  file?: string;
  /** Lines of its back edges in the input (several when more than one branch goes back to the header). */
  backEdgeLines: number[];
  instructions: number;
  trip: number;
  tripFrom: TripSource;
  /** Iterations beyond the walk's one that est_cycles counts. */
  weight: number;
  before: number;
  after: number;
  /** The same for one wave alone. */
  beforeOne: number;
  afterOne: number;
  /** Lower bound per iteration (no order of the body beats it) and what sets it. */
  bound: number;
  limiter: string;
  /** (after - bound) / bound, in percent. */
  gapPercent: number;
  /**
   * Loops directly inside this one. Its figures walk each of their bodies once per iteration
   * (est_cycles counts their other iterations with them), so where a schedule changes what one
   * iteration of an inner loop's code is (a loop pipelined, its last iteration peeled), its
   * figures before and after are not alike.
   */
  inner: number;
}

/** Per loop, before and after (with the bound of the scheduled body). */
export function loopChanges(before: KernelContext, after: KernelContext, trip: number | undefined): LoopChange[] {
  const a = kernelTime(before, { trip });
  const b = kernelTime(after, { trip, bounds: true });
  // per iteration of the source loop (a loop pipelined by two stages runs two in one)
  return b.loops.map((l, x) => {
    const o = a.loops[x];
    const bound = l.bound!;
    const u = l.loop.unroll;
    const uo = o?.loop.unroll ?? 1;
    return {
      line: o?.loop.line ?? l.loop.line, backEdgeLines: o?.loop.backEdgeLines ?? l.loop.backEdgeLines, instructions: l.loop.end - l.loop.start,
      // the source loop's trip (a pipelined loop as written out runs one or two fewer), the scheduled loop's weight
      trip: o?.loop.trip ?? l.loop.trip, tripFrom: o?.loop.tripFrom ?? l.loop.tripFrom, weight: l.loop.weight,
      before: round2(o ? o.perIteration / uo : l.perIteration / u), after: round2(l.perIteration / u),
      beforeOne: round2(o ? o.perIterationOne / uo : l.perIterationOne / u), afterOne: round2(l.perIterationOne / u), bound: round2(bound.bound / u), limiter: bound.limiter,
      gapPercent: bound.bound > 0 ? round2(((l.perIteration - bound.bound) / bound.bound) * 100) : 0,
      inner: b.loops.filter((y) => y.loop.parent === x).length,
    };
  });
}

function round2(x: number): number { return Math.round(x * 100) / 100; }
