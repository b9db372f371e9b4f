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
 * Completion model (per basic block, nothing assumed about earlier blocks): operations of one
 * type complete in issue order (VMEM loads and stores on vmcnt, LDS on lgkmcnt, exports on
 * expcnt: CDNA3 ISA §4.4), so `cnt(k)` completes an operation with k or more younger operations
 * of its type; an operation of a kind that completes out of order (scalar memory, FLAT,
 * messages, GDS) is complete only after a wait for 0 on its counters.
 */
import type { WaitcntOperand } from '../asm/ast.js';
import type { KernelContext } from '../analysis/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { isCacheOp } from './kernel.js';

/** Is instruction i a synchronization point (barrier, cache operation, message, call, return)? */
function isSyncPoint(ctx: KernelContext, i: number): boolean {
  const r = ctx.insns[i]!;
  const cls = r.info.cls;
  if (cls === 'barrier' || cls === 'message') return true;
  if (isCacheOp(r)) return true;
  const c = ctx.cfg.control[i];
  if (c === 'call') return true;
  if (c === 'indirect' && !ctx.cfg.longBranches.some((b) => b.setpc === i)) return true;
  return false;
}

interface Pending { at: number; mask: number; ooo: boolean; type: number; stamp: number[] }

/** In-order type of an operation per counter: 0 VMEM (vm), 1 LDS (lgkm), 2 export (exp); -1 out of order. */
function orderType(r: ResolvedInsn): number {
  if (outOfOrder(r)) return -1;
  const c = r.info.counters;
  if (c.vm > 0) return 0;
  if (c.lgkm > 0) return 1;
  return 2;
}

function countersOf(r: ResolvedInsn): number {
  const c = r.info.counters;
  return (c.vm > 0 ? 1 : 0) | (c.lgkm > 0 ? 2 : 0) | (c.exp > 0 ? 4 : 0);
}

function outOfOrder(r: ResolvedInsn): boolean {
  return r.info.cls === 'smem' || r.info.cls === 'flat' || r.info.events.includes('message') || r.info.events.includes('gds');
}

interface SyncState {
  /** Memory operations (instruction indexes) of the point's block that are complete at it. */
  done: number[];
  /** Still pending, with the number of younger events per counter (vm, lgkm, exp) at the point. */
  pending: { at: number; mask: number; ooo: boolean; younger: number[] }[];
}

/** Completion state at every synchronization point of a kernel, by instruction index. */
function syncStates(ctx: KernelContext): Map<number, SyncState> {
  const out = new Map<number, SyncState>();
  const { cfg, insns } = ctx;
  for (const b of cfg.blocks) {
    let pending: Pending[] = [];
    /** Operations issued so far per in-order type (VMEM, LDS, export). */
    const issued = [0, 0, 0];
    const done: number[] = [];
    for (let i = b.start; i < b.end; i++) {
      const r = insns[i]!;
      if (r.insn.base === 's_waitcnt') {
        const w = r.insn.operands[0] as WaitcntOperand | undefined;
        if (!w || w.kind !== 'waitcnt') continue;
        const lim = [w.vmcnt, w.lgkmcnt, w.expcnt];
        const still: Pending[] = [];
        for (const p of pending) {
          let open = false;
          for (let c = 0; c < 3 && !open; c++) {
            if (!(p.mask & (1 << c))) continue;
            const k = lim[c];
            if (k === undefined) open = true;
            else if (p.ooo ? k !== 0 : issued[p.type]! - p.stamp[p.type]! < k) open = true;
          }
          if (open) still.push(p); else done.push(p.at);
        }
        pending = still;
        continue;
      }
      if (isSyncPoint(ctx, i)) {
        out.set(i, {
          done: done.slice(),
          pending: pending.map((p) => ({ at: p.at, mask: p.mask, ooo: p.ooo, younger: [0, 1, 2].map(() => (p.ooo ? 0 : issued[p.type]! - p.stamp[p.type]!)) })),
        });
      }
      const mask = countersOf(r);
      if (mask) {
        const type = orderType(r);
        const stamp = [0, 0, 0];
        if (type >= 0) stamp[type] = ++issued[type]!;
        pending.push({ at: i, mask, ooo: type < 0, type, stamp });
      }
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
  for (const [i, sb] of b) {
    const sa = a.get(toOrig[i]!);
    if (!sa || sa.done.length === 0) continue;
    const doneA = new Set(sa.done);
    const need: (number | undefined)[] = [undefined, undefined, undefined];
    for (const p of sb.pending) {
      if (!doneA.has(toOrig[p.at]!)) continue;
      for (let c = 0; c < 3; c++) {
        if (!(p.mask & (1 << c))) continue;
        const k = p.ooo ? 0 : p.younger[c]!;
        need[c] = need[c] === undefined ? k : Math.min(need[c]!, k);
      }
    }
    if (need.some((x) => x !== undefined)) out.set(i, { vm: need[0], lgkm: need[1], exp: need[2] });
  }
  return out;
}
