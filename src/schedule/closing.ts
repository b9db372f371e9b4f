/**
 * The wait that closes a changed region. Emission trusts the program's own waits outside the
 * changed regions, which is sound only if each changed region ends with no more memory operations
 * pending than the original region left: per operation class (targets/counters.ts), the operations
 * still pending must be among those the original left pending, or a wait right after the region
 * closes it (rederive.ts scheduleWaits). The scheduler's estimate (metrics.ts Evaluator) counts the
 * same wait, so that a reordering is not credited with a wait that emission puts back.
 */
import { CLASS_COUNTER, CLASS_IN_ORDER, EVENT_CLASSES, NCLASSES, type OpClass } from '../targets/counters.js';
import { EVENT, issues, traitsOf, type KernelTraits } from '../isa/traits.js';
import type { WaitEvent } from '../isa/types.js';
import type { ScheduleKernel } from './kernel.js';
import { counterMax, flatEffects, kernelWaits } from '../waitcnt/estimate.js';

/** The events (isa/traits.ts EVENT bits) that issue an operation of each class. */
const CLASS_EVENTS: readonly number[] = Array.from({ length: NCLASSES }, (_, c) => {
  let bits = 0;
  for (const [ev, classes] of Object.entries(EVENT_CLASSES)) if (classes.includes(c as OpClass)) bits |= EVENT[ev as WaitEvent];
  return bits;
});

/** Does instruction i issue an operation of class c? */
function issuesOn(t: KernelTraits, i: number, c: number): boolean {
  return issues(t, i, CLASS_EVENTS[c]!);
}

/** A region as the original wrote it: per class, its operations in order, and what it left pending. */
export interface RegionClosing {
  /** Per class: the region's instructions that issue an operation of it, in the original order. */
  ops: Int32Array[];
  /** Per class: the operations pending right after the original region (the wait model). */
  pending: Int32Array;
  /**
   * Per class: marks of the original's last `pending` operations, the ones allowed to stay
   * pending: keep[c][i - keepFrom] is 1 for such an instruction i (indexed from the region's
   * lowest instruction, `keepFrom`).
   */
  keep: (Uint8Array | undefined)[];
  keepFrom: number;
}

/** What closing a region needs to know of its original order (`nodes`: its instructions in order). */
export function regionClosing(t: KernelTraits, nodes: ArrayLike<number>, pending: ArrayLike<number>): RegionClosing {
  const ops: Int32Array[] = [];
  const keep: (Uint8Array | undefined)[] = [];
  let lo = Infinity;
  let hi = -1;
  for (let p = 0; p < nodes.length; p++) { lo = Math.min(lo, nodes[p]!); hi = Math.max(hi, nodes[p]!); }
  const keepFrom = hi < 0 ? 0 : lo;
  for (let c = 0; c < NCLASSES; c++) {
    const list: number[] = [];
    for (let p = 0; p < nodes.length; p++) if (issuesOn(t, nodes[p]!, c)) list.push(nodes[p]!);
    ops.push(Int32Array.from(list));
    const po = pending[c]!;
    if (CLASS_IN_ORDER[c] && po < list.length) {
      const marks = new Uint8Array(hi + 1 - keepFrom);
      for (const i of list.slice(list.length - po)) marks[i - keepFrom] = 1;
      keep.push(marks);
    } else keep.push(undefined);
  }
  return { ops, pending: Int32Array.from(pending), keep, keepFrom };
}

/**
 * The counters (vm, lgkm, exp in `out`; -1 = not waited on) a wait right after a changed region
 * must bring down so that it leaves no more pending than the original; false when none is needed.
 * `pending[c]`: operations of class c pending at the end of the region in its new order `seq`.
 */
export function closingWait(t: KernelTraits, rc: RegionClosing, seq: ArrayLike<number>, pending: ArrayLike<number>, out: Int32Array): boolean {
  out[0] = -1; out[1] = -1; out[2] = -1;
  let any = false;
  for (let cls = 0; cls < NCLASSES; cls++) {
    const pn = pending[cls]!;
    if (pn === 0) continue;
    const po = rc.pending[cls]!;
    const n = rc.ops[cls]!.length;
    let allowed: number;
    if (!CLASS_IN_ORDER[cls]) {
      // any order: only "nothing of the region more pending than before" is safe, else wait for 0
      if (pn <= po && (n === 0 || po >= n)) continue;
      allowed = 0;
    } else {
      const keep = rc.keep[cls];
      if (!keep) allowed = po;
      else {
        // the new order's last operations of the class that the original also left last
        let k = 0;
        const events = t.events;
        const bits = CLASS_EVENTS[cls]!;
        const from = rc.keepFrom;
        for (let p = seq.length - 1; p >= 0; p--) {
          const i = seq[p]!;
          if ((events[i]! & bits) === 0) continue;
          const x = i - from;
          if (x < 0 || x >= keep.length || keep[x] === 0) break;
          k++;
        }
        allowed = Math.min(k, po);
      }
      // an in-order class on a counter shared with an out-of-order one: cnt(allowed) still
      // completes its older operations (they count only operations of their own kind)
      if (pn <= allowed) continue;
    }
    const c = CLASS_COUNTER[cls]!;
    if (out[c]! < 0 || allowed < out[c]!) out[c] = allowed;
    any = true;
  }
  return any;
}

const closingCache = new WeakMap<ScheduleKernel, RegionClosing[]>();

/** Per region of the original: its operations per class and what it left pending (closing.ts), under the model. */
export function originalClosings(k: ScheduleKernel): RegionClosing[] {
  let e = closingCache.get(k);
  if (!e) {
    const kw = kernelWaits(k.ctx.cfg, flatEffects(k.ctx), counterMax(k.target), {
      accept: () => false, after: k.regions.map((r) => r.last),
    });
    const traits = traitsOf(k.insns);
    e = k.regions.map((r) => {
      const st = kw.after.get(r.last);
      return regionClosing(traits, r.nodes, st ? st.pendingPerClass(counterMax(k.target)) : new Int32Array(NCLASSES));
    });
    closingCache.set(k, e);
  }
  return e;
}
