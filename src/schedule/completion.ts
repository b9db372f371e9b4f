/**
 * Memory operations complete at synchronization points stay complete.
 *
 * A wait placed for a register dependency may also complete other memory operations before a
 * barrier, a cache writeback/invalidate, a message, a call or a return (LLVM's memory legalizer
 * relies on that: a release fence needs no extra lgkmcnt(0) when an earlier wait already gave
 * it). Reordering and re-deriving waits can lose that. This pass compares, at every such point,
 * the memory operations of its basic block that the original has completed with the ones the
 * scheduled program has completed, and puts a wait in front of the point for any that is
 * missing.
 *
 * Completion model (per basic block, nothing assumed about earlier blocks): the counter model of
 * src/waitcnt/model.ts (its operation classes, increments and decoded waits, from
 * targets/counters.ts). An operation of an in-order class with k younger increments of its
 * class is complete after `cnt(k)`; one of an out-of-order class only after `cnt(0)`; FLAT,
 * issued on a vmcnt and an lgkmcnt class, when both are.
 */
import type { KernelContext } from '../analysis/types.js';
import { once } from '../analysis/memo.js';
import { isCacheOp } from './kernel.js';
import { CLASS_COUNTER, CLASS_IN_ORDER, INSN_KIND, NCLASSES, NO_WAIT, OP_CLASS, kernelEffects, type InsnEffects } from '../waitcnt/model.js';

/** Is instruction i a synchronization point (barrier, cache operation, message, call, return)? */
function isSyncPoint(ctx: KernelContext, fx: InsnEffects, i: number): boolean {
  return fx.kind === INSN_KIND.barrier || fx.kind === INSN_KIND.call || fx.kind === INSN_KIND.return
    || isCacheOp(ctx.insns[i]!) || ctx.insns[i]!.info.cls === 'message';
}

/** A pending operation: its instruction, and per class it issued on, the class's issue count after it. */
interface Pending { at: number; classes: readonly number[]; stamps: readonly number[] }

interface SyncState {
  /**
   * Memory operations (instruction indexes) of the point's block that are complete at it: the
   * first `doneLen` of `done`, the block's list in the order they completed (a later point of the
   * block shares it: an operation once complete stays so).
   */
  done: readonly number[];
  doneLen: number;
  /** Still pending: per counter (vm, lgkm, exp), the wait that would complete it (-1: not on that counter). */
  pending: { at: number; need: readonly number[] }[];
}

/**
 * Completion state at every synchronization point of a kernel, by instruction index (kept on the
 * context: the original's serves every candidate emitted from it).
 */
function syncStates(ctx: KernelContext): Map<number, SyncState> {
  return once(ctx, 'syncStates', () => computeSyncStates(ctx));
}

function computeSyncStates(ctx: KernelContext): Map<number, SyncState> {
  const out = new Map<number, SyncState>();
  const fxs = kernelEffects(ctx);
  /** The wait on class k's counter that completes pending p's issue on k. */
  const younger = (p: Pending, j: number, issued: readonly number[]): number => {
    const k = p.classes[j]!;
    return CLASS_IN_ORDER[k] ? issued[k]! - p.stamps[j]! : 0;
  };
  for (const b of ctx.cfg.blocks) {
    let pending: Pending[] = [];
    const issued = new Array<number>(NCLASSES).fill(0);
    const done: number[] = [];
    for (let i = b.start; i < b.end; i++) {
      const fx = fxs[i]!;
      if (fx.kind === INSN_KIND.wait) {
        const w = fx.wait!;
        const still: Pending[] = [];
        for (const p of pending) {
          let open = false;
          for (let j = 0; j < p.classes.length && !open; j++) {
            const k = w[CLASS_COUNTER[p.classes[j]!]!]!;
            open = k === NO_WAIT || younger(p, j, issued) < k;
          }
          if (open) still.push(p); else done.push(p.at);
        }
        pending = still;
        continue;
      }
      if (isSyncPoint(ctx, fx, i)) {
        out.set(i, {
          done, doneLen: done.length,
          pending: pending.map((p) => {
            const need = [-1, -1, -1];
            for (let j = 0; j < p.classes.length; j++) need[CLASS_COUNTER[p.classes[j]!]!] = younger(p, j, issued);
            return { at: p.at, need };
          }),
        });
      }
      if (fx.issues.length === 0) continue;
      // a GDS operation's expcnt class only holds its source VGPRs (register reuse, not memory
      // completion): it is complete when its lgkmcnt class is
      const classes: number[] = [];
      const stamps: number[] = [];
      for (const is of fx.issues) {
        if (is.cls === OP_CLASS.expGds) continue;
        issued[is.cls] = issued[is.cls]! + is.inc;
        classes.push(is.cls);
        stamps.push(issued[is.cls]!);
      }
      if (classes.length > 0) pending.push({ at: i, classes, stamps });
    }
  }
  return out;
}

/**
 * Waits to put in front of synchronization points of `sched` so that everything `orig` has
 * complete there is complete. `toOrig[i]` maps an instruction of `sched` to the original one
 * (-1 for waits and nops). Returns (sched instruction index -> counters, undefined = not waited).
 */
export function missingCompletions(orig: KernelContext, sched: KernelContext, toOrig: Int32Array): Map<number, { vm?: number; lgkm?: number; exp?: number }> {
  const a = syncStates(orig);
  const b = syncStates(sched);
  const out = new Map<number, { vm?: number; lgkm?: number; exp?: number }>();
  // the original's operations complete at the point in hand: those marked with its stamp
  const doneAt = new Int32Array(orig.insns.length);
  let stamp = 0;
  for (const [i, sb] of b) {
    const sa = a.get(toOrig[i]!);
    if (!sa || sa.doneLen === 0) continue;
    stamp++;
    for (let x = 0; x < sa.doneLen; x++) doneAt[sa.done[x]!] = stamp;
    const need: (number | undefined)[] = [undefined, undefined, undefined];
    for (const p of sb.pending) {
      const o = toOrig[p.at]!;
      if (o < 0 || doneAt[o] !== stamp) continue;
      for (let c = 0; c < 3; c++) {
        const k = p.need[c]!;
        if (k >= 0) need[c] = need[c] === undefined ? k : Math.min(need[c]!, k);
      }
    }
    if (need.some((x) => x !== undefined)) out.set(i, { vm: need[0], lgkm: need[1], exp: need[2] });
  }
  return out;
}
