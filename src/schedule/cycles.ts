/**
 * est_cycles: a deliberately simple per-wave model, in one place so that the cycle model of
 * src/cycles/ can replace it (`CycleModel`).
 *
 * One wave, in-order issue, nothing else running:
 *   - every instruction takes 1 issue cycle (s_nop N takes N + 1) — "one instruction per cycle
 *     per wavefront" (cdna4-scheduling-guide.md, Architecture Overview);
 *   - an instruction issues when the registers it reads and writes are ready; results are ready
 *     `latency` cycles after issue: VALU 1, transcendental 2, f64/quarter-rate 4, SALU 1,
 *     LDS 20, global/buffer/flat 100, scalar memory 20 (the guide's "Instruction Latencies"
 *     table; "variable" for scalar memory is taken as 20), MFMA passes x 4 (LLVM's pass counts
 *     on the target, facts §3.2);
 *   - MFMAs share one matrix pipe: the next MFMA issues when the previous one has finished its
 *     passes (so an MFMA chain costs its passes whether or not it is dependent);
 *   - s_waitcnt waits until the counted operations it names have completed (in issue order);
 *   - branches are not followed: a kernel is its instructions in layout order, each once.
 */
import type { WaitcntOperand } from '../asm/ast.js';
import type { ResolvedInsn } from '../isa/types.js';
import { UNIT_COUNT } from '../isa/registers.js';

export const LATENCY_SOURCE = 'cdna4-scheduling-guide.md "Instruction Latencies"; MFMA: passes x 4 (hazards-and-waitcnt-facts.md §3.2)';

export interface CycleFacts {
  n: number;
  issue: Int32Array;
  latency: Int32Array;
  /** 1: MFMA (uses the matrix pipe for `latency` cycles). */
  mfma: Uint8Array;
  /** Counters the instruction's completion is tracked on: bit 0 vm, bit 1 lgkm, bit 2 exp. */
  counts: Uint8Array;
  /** s_waitcnt counter values (-1 = not waited on). */
  waitVm: Int16Array;
  waitLgkm: Int16Array;
  waitExp: Int16Array;
  useOff: Int32Array; useUnits: Int32Array;
  defOff: Int32Array; defUnits: Int32Array;
}

export function latencyOf(r: ResolvedInsn): number {
  switch (r.info.latency) {
    case 'mfma': return Math.max(1, (r.info.mfma?.passes ?? 4) * 4);
    case 'valu_trans': case 'valu_64': return 2;
    case 'valu_dp': case 'valu_quarter': return 4;
    case 'ds': return 20;
    case 'vmem': case 'flat': return 100;
    case 'smem': return 20;
    default: return 1;
  }
}

export function cycleFacts(insns: readonly ResolvedInsn[]): CycleFacts {
  const n = insns.length;
  const issue = new Int32Array(n);
  const latency = new Int32Array(n);
  const mfma = new Uint8Array(n);
  const counts = new Uint8Array(n);
  const waitVm = new Int16Array(n).fill(-1);
  const waitLgkm = new Int16Array(n).fill(-1);
  const waitExp = new Int16Array(n).fill(-1);
  const uses: number[] = []; const useOff = new Int32Array(n + 1);
  const defs: number[] = []; const defOff = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    useOff[i] = uses.length; defOff[i] = defs.length;
    for (const u of r.uses) uses.push(u);
    for (const u of r.defs) defs.push(u);
    const base = r.insn.base;
    if (base === 's_nop') {
      const op = r.insn.operands[0];
      issue[i] = 1 + (op && op.kind === 'imm' ? Math.max(0, op.value) : 0);
    } else issue[i] = 1;
    latency[i] = latencyOf(r);
    if (r.info.cls === 'mfma') mfma[i] = 1;
    const c = r.info.counters;
    counts[i] = (c.vm > 0 ? 1 : 0) | (c.lgkm > 0 ? 2 : 0) | (c.exp > 0 ? 4 : 0);
    if (base === 's_waitcnt') {
      const op = r.insn.operands[0] as WaitcntOperand | undefined;
      if (op && op.kind === 'waitcnt') {
        if (op.vmcnt !== undefined) waitVm[i] = op.vmcnt;
        if (op.lgkmcnt !== undefined) waitLgkm[i] = op.lgkmcnt;
        if (op.expcnt !== undefined) waitExp[i] = op.expcnt;
      }
    }
  }
  useOff[n] = uses.length; defOff[n] = defs.length;
  return { n, issue, latency, mfma, counts, waitVm, waitLgkm, waitExp, useOff, useUnits: Int32Array.from(uses), defOff, defUnits: Int32Array.from(defs) };
}

/** The model's state: time, when each register is ready, the matrix pipe, completions per counter. */
export class CycleState {
  t = 0;
  ready = new Float64Array(UNIT_COUNT);
  mfmaFree = 0;
  /** Completion times per counter (in issue order, non-decreasing). */
  done: number[][] = [[], [], []];

  clone(): CycleState {
    const s = new CycleState();
    s.t = this.t; s.ready.set(this.ready); s.mfmaFree = this.mfmaFree;
    s.done = this.done.map((d) => d.slice());
    return s;
  }

  /** What is still pending, with times relative to now (the entry state of a region). */
  relative(): CycleEntry {
    const t = this.t;
    const units: number[] = [];
    const ready: number[] = [];
    for (let u = 0; u < UNIT_COUNT; u++) { const r = this.ready[u]! - t; if (r > 0) { units.push(u); ready.push(r); } }
    return {
      units: Int32Array.from(units), ready: Float64Array.from(ready), mfmaFree: Math.max(0, this.mfmaFree - t),
      done: this.done.map((d) => d.map((x) => x - t).filter((x) => x > 0)),
    };
  }

  /** Start over from an entry state at time 0. */
  load(e: CycleEntry): void {
    this.t = 0;
    this.ready.fill(0);
    for (let k = 0; k < e.units.length; k++) this.ready[e.units[k]!] = e.ready[k]!;
    this.mfmaFree = e.mfmaFree;
    for (let c = 0; c < 3; c++) { const d = this.done[c]!; d.length = 0; for (const x of e.done[c]!) d.push(x); }
  }
}

/** Pending work at a region's entry, relative to the time the region starts. */
export interface CycleEntry {
  units: Int32Array;
  ready: Float64Array;
  mfmaFree: number;
  done: number[][];
}

const SCRATCH = new CycleState();

function waitUntil(d: number[], cnt: number): number {
  // Wait until at most `cnt` operations are outstanding: the (len - cnt)-th completion.
  const k = d.length - cnt - 1;
  return k >= 0 ? d[k]! : 0;
}

/** Run a sequence (instruction indexes) from state s; returns the time at the end. */
export function runCycles(f: CycleFacts, s: CycleState, seq: ArrayLike<number>): number {
  const ready = s.ready;
  let t = s.t;
  for (let p = 0; p < seq.length; p++) {
    const i = seq[p]!;
    let start = t;
    if (f.waitVm[i]! >= 0) start = Math.max(start, waitUntil(s.done[0]!, f.waitVm[i]!));
    if (f.waitLgkm[i]! >= 0) start = Math.max(start, waitUntil(s.done[1]!, f.waitLgkm[i]!));
    if (f.waitExp[i]! >= 0) start = Math.max(start, waitUntil(s.done[2]!, f.waitExp[i]!));
    for (let q = f.useOff[i]!; q < f.useOff[i + 1]!; q++) { const r = ready[f.useUnits[q]!]!; if (r > start) start = r; }
    for (let q = f.defOff[i]!; q < f.defOff[i + 1]!; q++) { const r = ready[f.defUnits[q]!]!; if (r > start) start = r; }
    const lat = f.latency[i]!;
    if (f.mfma[i]) {
      if (s.mfmaFree > start) start = s.mfmaFree;
      s.mfmaFree = start + lat;
    }
    const doneAt = start + lat;
    for (let q = f.defOff[i]!; q < f.defOff[i + 1]!; q++) ready[f.defUnits[q]!] = doneAt;
    const c = f.counts[i]!;
    if (c) {
      for (let k = 0; k < 3; k++) {
        if (!(c & (1 << k))) continue;
        const d = s.done[k]!;
        const prev = d.length ? d[d.length - 1]! : 0;
        d.push(Math.max(prev, doneAt));
        if (d.length > 64) d.splice(0, d.length - 64);
      }
    }
    t = start + f.issue[i]!;
  }
  s.t = t;
  return t;
}

/** The swappable part: cycles of a region sequence from an entry state (not modified). */
export interface CycleModel {
  readonly name: string;
  regionCycles(f: CycleFacts, entry: CycleEntry, seq: ArrayLike<number>): number;
}

export const EMPTY_ENTRY: CycleEntry = { units: new Int32Array(0), ready: new Float64Array(0), mfmaFree: 0, done: [[], [], []] };

export const simpleCycleModel: CycleModel = {
  name: 'simple in-order issue + latency (schedule/cycles.ts)',
  regionCycles(f, entry, seq) {
    SCRATCH.load(entry);
    return runCycles(f, SCRATCH, seq);
  },
};
