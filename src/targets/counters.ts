/**
 * The memory counters of GFX9 and what counts on them: each waitcnt event (isa/types.ts
 * WaitEvent) issues one operation on one or two operation classes; each class counts on one
 * counter and either completes in issue order among its own kind or not. The same on the five
 * targets (GFX9 encoding); the counters' widths are per-target data (Target.counters).
 *
 * This is the one description of the counters. The waitcnt analysis (src/waitcnt/model.ts)
 * reads it for its semantics; the scheduler's fast wait estimate (src/waitcnt/estimate.ts) runs
 * the same classes over straight-line code; the cycle model (src/cycles) times completions per
 * class.
 *
 * Ordering (CDNA3 ISA §4.4; MI200 ISA §4.4): "Instructions of a given type return in order, but
 * instructions of different types can complete out-of-order". VMEM reads and writes return in
 * issue order, mixed (buffer/global/scratch, stores, LDS-DMA). LDS in order; GDS/GWS in order but
 * not with LDS; messages in order. Scalar memory returns out of order: only lgkmcnt(0) is safe.
 * FLAT counts on both vmcnt and lgkmcnt and may complete through either (CDNA3 ISA §10.2.2): only
 * a wait for 0 on both is safe. Exports and GDS hold their source VGPRs until expcnt says they
 * have been read (CDNA3 ISA §4.4 EXP_CNT; LLVM SIInsertWaitcnts::generateWaitcntInstBefore).
 */
import type { WaitEvent } from '../isa/types.js';
import { REF } from './common.js';

/** Counter indexes. */
export const COUNTER = { vm: 0, lgkm: 1, exp: 2 } as const;
export type Counter = (typeof COUNTER)[keyof typeof COUNTER];
export const COUNTER_NAMES = ['vmcnt', 'lgkmcnt', 'expcnt'] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

/** Operation classes: a class counts on exactly one counter; FLAT and GDS issue on two. */
export const OP_CLASS = {
  /** buffer/global/scratch loads, stores, atomics, LDS-DMA (vmcnt, in order; cache writebacks and invalidates count on no counter). */
  vmem: 0,
  /** flat_* on vmcnt (only 0 is safe). */
  vmFlat: 1,
  /** ds_* LDS (lgkmcnt, in order). */
  lds: 2,
  /** ds_* gds, ds_gws_*, ds_ordered_count (lgkmcnt, in order among themselves). */
  gds: 3,
  /** Scalar memory (lgkmcnt, out of order). */
  smem: 4,
  /** flat_* on lgkmcnt (only 0 is safe). */
  lgkmFlat: 5,
  /** s_sendmsg / s_sendmsghalt (lgkmcnt, in order). */
  message: 6,
  /** exp: source VGPRs held until expcnt (in order). */
  export: 7,
  /** GDS/GWS: source VGPRs held until expcnt (in order). */
  expGds: 8,
} as const;
export type OpClass = (typeof OP_CLASS)[keyof typeof OP_CLASS];
export const NCLASSES = 9;

/** Per class (OP_CLASS order): its counter, whether it completes in issue order, and its name in messages. */
export const CLASS_COUNTER: readonly Counter[] = [COUNTER.vm, COUNTER.vm, COUNTER.lgkm, COUNTER.lgkm, COUNTER.lgkm, COUNTER.lgkm, COUNTER.lgkm, COUNTER.exp, COUNTER.exp];
export const CLASS_IN_ORDER: readonly boolean[] = [true, false, true, true, false, false, true, true, true];
export const CLASS_NAMES: readonly string[] = ['VMEM', 'FLAT', 'LDS', 'GDS', 'SMEM', 'FLAT', 'message', 'export', 'GDS'];
/** Classes per counter. */
export const COUNTER_CLASSES: readonly (readonly OpClass[])[] = [
  [OP_CLASS.vmem, OP_CLASS.vmFlat],
  [OP_CLASS.lds, OP_CLASS.gds, OP_CLASS.smem, OP_CLASS.lgkmFlat, OP_CLASS.message],
  [OP_CLASS.export, OP_CLASS.expGds],
];

/**
 * The classes an event issues on (LLVM SIInsertWaitcnts::updateEventWaitcntAfter): a GDS
 * operation counts on lgkmcnt and holds its sources on expcnt; FLAT counts on both vmcnt and
 * lgkmcnt.
 */
export const EVENT_CLASSES: Readonly<Record<WaitEvent, readonly OpClass[]>> = {
  'vmem-load': [OP_CLASS.vmem],
  'vmem-store': [OP_CLASS.vmem],
  flat: [OP_CLASS.vmFlat, OP_CLASS.lgkmFlat],
  lds: [OP_CLASS.lds],
  gds: [OP_CLASS.gds, OP_CLASS.expGds],
  smem: [OP_CLASS.smem],
  message: [OP_CLASS.message],
  export: [OP_CLASS.export],
};

export const COUNTER_SOURCES = {
  widths: 'LLVM AMDGPUBaseInfo.cpp (waitcnt bit widths) and llvm/docs/AMDGPU/gfx9_waitcnt.rst; target.counters',
  ordering: `${REF.cdna3} §4.4 and §10.2.2; ${REF.mi200} §4.4`,
  events: 'LLVM SIInsertWaitcnts::updateEventWaitcntAfter',
} as const;
