/**
 * The cycle engine: runs a sequence of instruction indices (into a CycleModel) for one wave, or
 * for N waves interleaved on one SIMD, and returns cycle counts. All state lives in typed arrays
 * allocated once per model; register state is invalidated by a generation stamp, so a run
 * allocates nothing and costs O(instructions + register operands).
 *
 * Multi-wave arbitration (documented model): the SIMD issues at most one instruction per cycle.
 * At each step every wave computes the earliest cycle its next instruction could issue (its own
 * dependencies, waits and issue cadence, the shared pipes' busy times and the issue port); the
 * wave with the smallest such cycle issues, ties going to the oldest wave (the lowest index:
 * waves are launched together in index order). Pipes (VALU, matrix, LDS, VMEM, SALU, SMEM,
 * branch) are shared, so one wave's MFMA or memory traffic delays another's; latency one wave
 * waits on is filled by the others. s_barrier releases when every unfinished wave of the SIMD
 * has arrived (the waves are assumed to be one workgroup), `barrier` cycles after the last one.
 */
import { COUNTER, NCLASSES, OP_CLASS } from '../targets/counters.js';
import {
  type CycleModel, CONSUMER, FLAG, EXP_QUEUE, VM_QUEUE, MFMA_SLOT, NPIPES, PIPE, PRODUCER, READ_ROLE,
} from './model.js';
import { UNIT_COUNT, VGPR_BASE } from '../asm/registers.js';

const U = UNIT_COUNT;
const VMCAP = 64;
const LGKMCAP = 32;
const EXPCAP = 8;

/** Why an instruction issued later than the wave was ready for it. */
export const WHY = { none: 0, dep: 1, wait: 2, pipe: 3, port: 4, full: 5, barrier: 6, waw: 7 } as const;

/** Dependency kinds (whyB of WHY.dep / WHY.waw). */
export const DEP = {
  result: 0, mfmaSame: 1, mfmaSrcC: 2, mfmaSrcAB: 3, mfmaValu: 4, mfmaMem: 5, valuMfma: 6,
  sgprSalu: 7, sgprVmem: 8, sgprValu: 9, trans: 10, dot: 11, branch: 12, mem: 13,
} as const;

/** The counters of WHY.wait / WHY.full (whyB) are targets/counters.ts COUNTER. */

/** One issued instruction, as recorded when tracing. */
export interface TraceRow {
  /** Position in the sequence. */
  pos: number;
  /** Instruction index (into the model / KernelContext.insns). */
  insn: number;
  wave: number;
  /** Cycle it issued. */
  issue: number;
  /** Cycles it waited after the wave could have issued it. */
  stall: number;
  why: number;
  whyA: number;
  whyB: number;
  /** Cycles until the same wave may issue again. */
  cost: number;
}

export interface RunOptions {
  /** Per position of the sequence: 1 when that branch is taken. */
  taken?: ArrayLike<number>;
  /** Collect one TraceRow per issued instruction. */
  trace?: TraceRow[];
  /**
   * false: ignore pipes, issue costs and the issue port (only latencies and waits count):
   * the critical-path part of the lower bound.
   */
  resources?: boolean;
}

export class CycleEngine {
  readonly m: CycleModel;
  private cap = 0;
  // per wave
  private t = new Float64Array(0);
  private maxDone = new Float64Array(0);
  private readyAt = new Float64Array(0);
  private defT = new Float64Array(0);
  private prod = new Int32Array(0);
  private stamp = new Int32Array(0);
  private vmDone = new Float64Array(0);
  private vmIdx = new Int32Array(0);
  private vmLen = new Int32Array(0);
  private lgDone = new Float64Array(0);
  private lgIdx = new Int32Array(0);
  private lgLen = new Int32Array(0);
  private exDone = new Float64Array(0);
  private exIdx = new Int32Array(0);
  private exLen = new Int32Array(0);
  private lastDone = new Float64Array(0);
  private gen = 0;
  private waves = 1;
  // shared
  private readonly pipeFree = new Float64Array(NPIPES);
  private readonly pipeBy = new Int32Array(NPIPES);
  private portFree = 0;
  private resources = true;
  // scratch
  private readonly scrT = new Float64Array(VMCAP);
  private readonly scrI = new Int32Array(VMCAP);
  private waitIdx = -1;
  /** The undo journal of a resumable single-wave run (runJournaled), when one is kept. */
  private journal?: RunJournal;
  /** Scratch of runConverging. */
  private tracking?: UnitTracking;

  // last earliest() explanation
  private why = 0;
  private whyA = -1;
  private whyB = 0;

  /**
   * Per instruction, as consumer: the MFMA latency slot and the dependence kind of a read (or a
   * write) of an MFMA result that is not an MFMA's srcC read (MFMA_SLOT.srcAB for an MFMA, .mem
   * for VMEM and DS, .valu otherwise). A table rather than a test of the consumer class at each
   * such read, so that earliest() has no branch that a kernel may reach first after it was
   * optimized.
   */
  private readonly mfmaReadSlot: Uint8Array;
  private readonly mfmaReadDep: Uint8Array;
  /**
   * Per instruction, as producer: heldUntil's offset from the def time (the longest MFMA slot
   * latency; the VALU forwarding penalties and branch-after-write delay; SALU's branch delay;
   * -Infinity for other producers), so that heldUntil() is one max whatever the producer.
   */
  private readonly holdAfterDef: Float64Array;
  /**
   * Every time constant of the model is a whole number, so every time a run computes is one (far
   * below 2^53) and adding a shift commutes with the model's sums and maxima exactly: a resumed
   * run may then meet the last run's state up to a time shift (shiftFromOld).
   */
  private readonly integral: boolean;
  /** Runs that took over the last run's rest shifted in time (for the bench and tests). */
  shiftedStops = 0;
  /** Every pipe occupancy of the model is a whole number (sums of them do not depend on the order they are added in). */
  readonly wholeOccupancies: boolean;

  constructor(m: CycleModel) {
    this.m = m;
    this.ensure(1);
    ({ mfmaReadSlot: this.mfmaReadSlot, mfmaReadDep: this.mfmaReadDep, holdAfterDef: this.holdAfterDef, integral: this.integral,
      wholeOccupancies: this.wholeOccupancies } = modelTables(m));
  }

  private ensure(w: number): void {
    if (w <= this.cap) return;
    const c = Math.max(w, this.cap * 2, 1);
    this.t = new Float64Array(c);
    this.maxDone = new Float64Array(c);
    this.readyAt = new Float64Array(c * U);
    this.defT = new Float64Array(c * U);
    this.prod = new Int32Array(c * U);
    this.stamp = new Int32Array(c * U);
    this.vmDone = new Float64Array(c * VMCAP);
    this.vmIdx = new Int32Array(c * VMCAP);
    this.vmLen = new Int32Array(c);
    this.lgDone = new Float64Array(c * LGKMCAP);
    this.lgIdx = new Int32Array(c * LGKMCAP);
    this.lgLen = new Int32Array(c);
    this.exDone = new Float64Array(c * EXPCAP);
    this.exIdx = new Int32Array(c * EXPCAP);
    this.exLen = new Int32Array(c);
    this.lastDone = new Float64Array(c * NCLASSES);
    this.gen = 0;
    this.cap = c;
  }

  /** Start a new simulation of `waves` waves at cycle 0 with nothing outstanding. */
  reset(waves = 1, resources = true): void {
    this.ensure(waves);
    this.waves = waves;
    this.resources = resources;
    if (++this.gen >= 0x3fffffff) { this.stamp.fill(0); this.gen = 1; }
    this.t.fill(0, 0, waves);
    this.maxDone.fill(0, 0, waves);
    this.vmLen.fill(0, 0, waves);
    this.lgLen.fill(0, 0, waves);
    this.exLen.fill(0, 0, waves);
    this.lastDone.fill(0, 0, waves * NCLASSES);
    this.pipeFree.fill(0);
    this.pipeBy.fill(-1);
    this.portFree = 0;
  }

  /** Cycle at which wave w may issue its next instruction. */
  time(w = 0): number { return this.t[w]!; }

  /** Cycle by which wave w has issued everything and every result has arrived. */
  drained(w = 0): number { return Math.max(this.t[w]!, this.maxDone[w]!); }

  /** Latest drained() over all waves. */
  drainedAll(): number {
    let x = 0;
    for (let w = 0; w < this.waves; w++) x = Math.max(x, this.t[w]!, this.maxDone[w]!);
    return x;
  }

  /**
   * Run positions [from, to) of `seq` on wave 0 (single-wave model), continuing from the
   * current state. Returns the wave's issue time after the last instruction.
   */
  runSingle(seq: ArrayLike<number>, from: number, to: number, opts: RunOptions = {}): number {
    const taken = opts.taken;
    const trace = opts.trace;
    for (let pos = from; pos < to; pos++) {
      const i = seq[pos]!;
      const before = this.t[0]!;
      const e = this.earliest(0, i);
      const tk = taken !== undefined ? taken[pos] === 1 : (this.m.flags[i]! & FLAG.jump) !== 0;
      this.commit(0, i, e, tk);
      if (trace) {
        trace.push({ pos, insn: i, wave: 0, issue: e, stall: e - before, why: e > before ? this.why : 0, whyA: this.whyA, whyB: this.whyB, cost: this.t[0]! - e });
      }
    }
    return this.t[0]!;
  }

  /**
   * Run the whole of `seq` on `waves` waves interleaved on one SIMD, from a fresh state.
   * Returns the cycle at which every wave has drained. Rows of every wave go to opts.trace.
   */
  runMulti(seq: ArrayLike<number>, waves: number, opts: RunOptions = {}): number {
    this.reset(waves, opts.resources ?? true);
    const len = seq.length;
    const taken = opts.taken;
    const trace = opts.trace;
    const pos = new Int32Array(waves);
    const atBarrier = new Uint8Array(waves);
    const arrival = new Float64Array(waves);
    let active = waves;
    let waiting = 0;
    const barrierCost = this.m.params.values['barrier'].value;
    for (;;) {
      let best = -1;
      let bestE = Infinity;
      let bw = 0; let ba = -1; let bb = 0;
      for (let w = 0; w < waves; w++) {
        if (pos[w]! >= len || atBarrier[w]) continue;
        const iw = seq[pos[w]!]!;
        let e = this.earliest(w, iw);
        let why = e > this.t[w]! ? this.why : 0;
        if (this.resources && this.portFree > e && (this.m.flags[iw]! & FLAG.free) === 0) { e = this.portFree; why = WHY.port; }
        if (e < bestE) { bestE = e; best = w; bw = why; ba = this.whyA; bb = this.whyB; }
      }
      if (best < 0) break;
      const p = pos[best]!;
      const i = seq[p]!;
      const before = this.t[best]!;
      const tk = taken !== undefined ? taken[p] === 1 : (this.m.flags[i]! & FLAG.jump) !== 0;
      this.commit(best, i, bestE, tk);
      if (this.resources && (this.m.flags[i]! & FLAG.free) === 0) this.portFree = bestE + 1;
      if (trace) trace.push({ pos: p, insn: i, wave: best, issue: bestE, stall: bestE - before, why: bestE > before ? bw : 0, whyA: ba, whyB: bb, cost: this.t[best]! - bestE });
      pos[best] = p + 1;
      if (p + 1 >= len) active--;
      if (this.m.flags[i]! & FLAG.barrier) {
        atBarrier[best] = 1;
        arrival[best] = bestE;
        waiting++;
      }
      if (waiting > 0 && waiting >= active) {
        let r = 0;
        for (let w = 0; w < waves; w++) if (atBarrier[w]) r = Math.max(r, arrival[w]!);
        r += barrierCost;
        for (let w = 0; w < waves; w++) {
          if (!atBarrier[w]) continue;
          atBarrier[w] = 0;
          if (this.t[w]! < r) this.t[w] = r;
        }
        waiting = 0;
      }
    }
    return this.drainedAll();
  }

  /** The kind of dependency (DEP) readReady last found binding. */
  private depKind = 0;

  /**
   * When instruction i's read k may see the result its unit o (wave state index; written in
   * this run) holds, as a consumer of class cc: the producer's ready time, or for an MFMA result
   * its issue plus the latency of the reading slot, and the forwarding delays of a VALU or SALU
   * result (VALU to MFMA, SGPR to SALU/VMEM/VALU, trans, dot, branch after a write). Sets
   * depKind to the binding one. earliest and the journaled runs' advance share it.
   */
  private readReady(i: number, k: number, o: number, cc: number): number {
    const m = this.m;
    const p = this.prod[o]!;
    const pk = m.pk[p]!;
    const defT = this.defT;
    let r: number;
    let d: number = DEP.result;
    if (pk === PRODUCER.mfma) {
      let slot: number;
      if (cc === CONSUMER.mfma && m.useRole[k] === READ_ROLE.srcC) {
        const same = m.mfmaDstFirst[p] === m.mfmaCFirst[i] && m.mfmaDstCount[p] === m.mfmaCCount[i] && m.passes[p] === m.passes[i];
        slot = same ? MFMA_SLOT.same : MFMA_SLOT.srcC; d = same ? DEP.mfmaSame : DEP.mfmaSrcC;
      } else { slot = this.mfmaReadSlot[i]!; d = this.mfmaReadDep[i]!; }
      r = defT[o]! + m.mfmaLat[p * 5 + slot]!;
    } else {
      r = this.readyAt[o]!;
      if (pk === PRODUCER.mem) d = DEP.mem;
      else if (pk === PRODUCER.valu) {
        const u = m.useUnit[k]!;
        const dt = defT[o]!;
        if (cc === CONSUMER.mfma) {
          if (u >= VGPR_BASE) { const x = dt + m.valuToMfma; if (x > r) { r = x; d = DEP.valuMfma; } }
        } else if (u < VGPR_BASE) {
          if (cc === CONSUMER.scalar) { const x = dt + m.sgprToSalu; if (x > r) { r = x; d = DEP.sgprSalu; } }
          else if (cc === CONSUMER.vmem) { const x = dt + m.sgprToVmem; if (x > r) { r = x; d = DEP.sgprVmem; } }
          else if (cc === CONSUMER.valu && m.useRole[k] !== READ_ROLE.implicit) { const x = dt + m.sgprToValu; if (x > r) { r = x; d = DEP.sgprValu; } }
        }
        const fp = m.flags[p]!;
        if (fp !== 0) {
          if ((fp & FLAG.trans) !== 0 && cc === CONSUMER.valu && (m.flags[i]! & FLAG.trans) === 0) {
            const x = dt + m.transToValu; if (x > r) { r = x; d = DEP.trans; }
          }
          if ((fp & FLAG.dot) !== 0 && !(m.useRole[k] === READ_ROLE.src2 && m.opId[p] === m.opId[i])) {
            const x = dt + m.dotLat; if (x > r) { r = x; d = DEP.dot; }
          }
        }
        if (cc === CONSUMER.branch) { const x = dt + m.lat[p]! + m.afterWrite; if (x > r) { r = x; d = DEP.branch; } }
      } else if (pk === PRODUCER.salu && cc === CONSUMER.branch) {
        const x = defT[o]! + m.lat[p]! + m.afterWrite; if (x > r) { r = x; d = DEP.branch; }
      }
    }
    this.depKind = d;
    return r;
  }

  /**
   * When instruction i (consumer class cc) may write unit o (wave state index; written in this
   * run) over a result still in flight: a memory result's ready time (not for a later load of the
   * same in-order kind: VMEM loads write VGPRs in order and LDS operations complete in order,
   * waitcnt/model.ts inOrderClass; the LDS pipe's GDS operations, gfx906/gfx908 only, are timed
   * alike), an MFMA result's issue plus the latency of i's reading slot for a non-MFMA writer;
   * else -Infinity (no wait). earliest and the journaled runs' advance share it.
   */
  private writeReady(i: number, o: number, cc: number): number {
    const m = this.m;
    const p = this.prod[o]!;
    const pk = m.pk[p]!;
    if (pk === PRODUCER.mem) {
      if ((m.flags[p]! & FLAG.vmemLoad) !== 0 && (m.flags[i]! & FLAG.vmemLoad) !== 0) return -Infinity;
      if (m.pipeA[p] === PIPE.lds && m.pipeA[i] === PIPE.lds) return -Infinity;
      return this.readyAt[o]!;
    }
    if (pk === PRODUCER.mfma && cc !== CONSUMER.mfma) return this.defT[o]! + m.mfmaLat[p * 5 + this.mfmaReadSlot[i]!]!;
    return -Infinity;
  }

  /** Earliest cycle wave w can issue instruction i; sets why/whyA/whyB to the binding constraint. */
  private earliest(w: number, i: number): number {
    const m = this.m;
    let e = this.t[w]!;
    let why = 0; let whyA = -1; let whyB = 0;
    if (this.resources) {
      const pipeFree = this.pipeFree;
      const pa = m.pipeA[i]!;
      if (pa !== 0 && pipeFree[pa]! > e) { e = pipeFree[pa]!; why = WHY.pipe; whyA = this.pipeBy[pa]!; whyB = pa; }
      const pb = m.pipeB[i]!;
      if (pb !== 0 && pipeFree[pb]! > e) { e = pipeFree[pb]!; why = WHY.pipe; whyA = this.pipeBy[pb]!; whyB = pb; }
    }
    const base = w * U;
    const gen = this.gen;
    const stamp = this.stamp;
    const prod = this.prod;
    const cc = m.cc[i]!;
    // register reads
    const useUnit = m.useUnit;
    const ue = m.useEnd[i]!;
    for (let k = m.useStart[i]!; k < ue; k++) {
      const o = base + useUnit[k]!;
      if (stamp[o] !== gen) continue;
      const r = this.readReady(i, k, o, cc);
      if (r > e) { e = r; why = WHY.dep; whyA = prod[o]!; whyB = this.depKind; }
    }
    // register writes over results still in flight (memory, MFMA)
    const defUnit = m.defUnit;
    const de = m.defEnd[i]!;
    for (let k = m.defStart[i]!; k < de; k++) {
      const o = base + defUnit[k]!;
      if (stamp[o] !== gen) continue;
      const r = this.writeReady(i, o, cc);
      if (r > e) { e = r; why = WHY.waw; whyA = prod[o]!; whyB = m.pk[prod[o]!] === PRODUCER.mem ? DEP.mem : DEP.mfmaValu; }
    }
    // s_waitcnt, and counter capacity
    const ew = this.counterWaits(w, i, e);
    if (ew > e) { e = ew; why = this.why; whyA = this.whyA; whyB = this.whyB; }
    this.why = why; this.whyA = whyA; this.whyB = whyB;
    return e;
  }

  /**
   * The cycle (>= e) at which wave w's counters allow instruction i: its s_waitcnt counts, and
   * room in each counter it increments (a memory operation). When that is later than e, sets
   * why/whyA/whyB to the binding counter.
   */
  private counterWaits(w: number, i: number, e: number): number {
    const m = this.m;
    const wv = m.wVm[i]!;
    if (wv >= 0) {
      const r = this.waitCounter(this.vmDone, this.vmIdx, w * VMCAP, this.vmLen[w]!, e, wv, true);
      if (r > e) { e = r; this.why = WHY.wait; this.whyA = this.waitIdx; this.whyB = COUNTER.vm; }
    }
    const wl = m.wLgkm[i]!;
    if (wl >= 0) {
      const r = this.waitCounter(this.lgDone, this.lgIdx, w * LGKMCAP, this.lgLen[w]!, e, wl, false);
      if (r > e) { e = r; this.why = WHY.wait; this.whyA = this.waitIdx; this.whyB = COUNTER.lgkm; }
    }
    const wx = m.wExp[i]!;
    if (wx >= 0) {
      const r = this.waitCounter(this.exDone, this.exIdx, w * EXPCAP, this.exLen[w]!, e, wx, false);
      if (r > e) { e = r; this.why = WHY.wait; this.whyA = this.waitIdx; this.whyB = COUNTER.exp; }
    }
    // counter capacity
    if (m.pk[i] === PRODUCER.mem) {
      const vi = m.vmInc[i]!;
      if (vi > 0 && this.vmLen[w]! > m.vmMax - vi) {
        const r = this.waitCounter(this.vmDone, this.vmIdx, w * VMCAP, this.vmLen[w]!, e, m.vmMax - vi, true);
        if (r > e) { e = r; this.why = WHY.full; this.whyA = this.waitIdx; this.whyB = COUNTER.vm; }
      }
      const li = m.lgkmInc[i]!;
      if (li > 0 && this.lgLen[w]! > m.lgkmMax - li) {
        const r = this.waitCounter(this.lgDone, this.lgIdx, w * LGKMCAP, this.lgLen[w]!, e, m.lgkmMax - li, false);
        if (r > e) { e = r; this.why = WHY.full; this.whyA = this.waitIdx; this.whyB = COUNTER.lgkm; }
      }
      const xi = m.expInc[i]!;
      if (xi > 0 && this.exLen[w]! > m.expMax - xi) {
        const r = this.waitCounter(this.exDone, this.exIdx, w * EXPCAP, this.exLen[w]!, e, m.expMax - xi, false);
        if (r > e) { e = r; this.why = WHY.full; this.whyA = this.waitIdx; this.whyB = COUNTER.exp; }
      }
    }
    return e;
  }

  /**
   * Cycle (>= e) at which at most `n` entries of a counter are outstanding; waitIdx gets the
   * instruction whose completion ends the wait. `sorted`: completion times are in push order.
   */
  private waitCounter(done: Float64Array, idx: Int32Array, off: number, len: number, e: number, n: number, sorted: boolean): number {
    if (len <= n) return e;
    if (sorted) {
      // entries are non-decreasing: skip the completed prefix
      let first = 0;
      while (first < len && done[off + first]! <= e) first++;
      const live = len - first;
      if (live <= n) return e;
      const k = off + first + (live - n - 1);
      this.waitIdx = idx[k]!;
      return done[k]!;
    }
    const st = this.scrT;
    const si = this.scrI;
    let c = 0;
    for (let j = 0; j < len; j++) {
      const x = done[off + j]!;
      if (x <= e) continue;
      // insertion into the sorted scratch
      let q = c++;
      while (q > 0 && st[q - 1]! > x) { st[q] = st[q - 1]!; si[q] = si[q - 1]!; q--; }
      st[q] = x; si[q] = idx[off + j]!;
    }
    if (c <= n) return e;
    this.waitIdx = si[c - n - 1]!;
    return st[c - n - 1]!;
  }

  /** Drop completed entries (done <= e) keeping order; returns the new length. */
  private prune(done: Float64Array, idx: Int32Array, off: number, len: number, e: number): number {
    let k = 0;
    for (let j = 0; j < len; j++) {
      const x = done[off + j]!;
      if (x > e) { done[off + k] = x; idx[off + k] = idx[off + j]!; k++; }
    }
    return k;
  }

  /**
   * Memory instruction i issued by wave w at e: its operations join the counters' queues (each
   * class completing in order), and the cycle its results are ready (its completion).
   */
  private commitQueues(w: number, i: number, e: number): number {
    const m = this.m;
    const lat = m.lat[i]!;
    let ready = e + lat;
    const lg = w * NCLASSES;
    const vi = m.vmInc[i]!;
    if (vi > 0) {
      const d = this.inOrder(lg + VM_QUEUE, e + lat);
      this.enqueue(this.vmDone, this.vmIdx, this.vmLen, VMCAP, w, i, e, vi, d);
      if (d > ready) ready = d;
    }
    const li = m.lgkmInc[i]!;
    if (li > 0) {
      const g = m.lgkmClass[i]!;
      // SMEM returns out of order: no order within its class
      const d = g === OP_CLASS.smem ? e + lat : this.inOrder(lg + g, e + lat);
      this.enqueue(this.lgDone, this.lgIdx, this.lgLen, LGKMCAP, w, i, e, li, d);
      if (d > ready) ready = d;
    }
    const xi = m.expInc[i]!;
    if (xi > 0) {
      const d = this.inOrder(lg + EXP_QUEUE, e + lat);
      this.enqueue(this.exDone, this.exIdx, this.exLen, EXPCAP, w, i, e, xi, d);
      if (d > ready) ready = d;
    }
    return ready;
  }

  /** The completion of an operation of in-order class q (wave's index) done at d alone: no earlier than the class's last one; becomes the last. */
  private inOrder(q: number, d: number): number {
    const last = this.lastDone[q]!;
    const x = last > d ? last : d;
    this.lastDone[q] = x;
    return x;
  }

  /** `n` entries of instruction i completing at d join wave w's queue of a counter (capacity `cap`), after its entries done by e are dropped. */
  private enqueue(done: Float64Array, idx: Int32Array, lens: Int32Array, cap: number, w: number, i: number, e: number, n: number, d: number): void {
    const off = w * cap;
    let len = this.prune(done, idx, off, lens[w]!, e);
    for (let k = 0; k < n && len < cap; k++) { done[off + len] = d; idx[off + len] = i; len++; }
    lens[w] = len;
  }

  private commit(w: number, i: number, e: number, taken: boolean): void {
    const m = this.m;
    let md = this.maxDone[w]!;
    if (this.resources) {
      const pa = m.pipeA[i]!;
      if (pa !== 0) { const x = e + m.occA[i]!; this.pipeFree[pa] = x; this.pipeBy[pa] = i; if (x > md) md = x; }
      const pb = m.pipeB[i]!;
      if (pb !== 0) { const x = e + m.occB[i]!; this.pipeFree[pb] = x; this.pipeBy[pb] = i; if (x > md) md = x; }
    }
    const ready = m.pk[i] === PRODUCER.mem ? this.commitQueues(w, i, e) : e + m.lat[i]!;
    if (ready > md) md = ready;
    const base = w * U;
    const gen = this.gen;
    const ds = m.defStart[i]!;
    const de = m.defEnd[i]!;
    const jr = this.journal;
    for (let k = ds; k < de; k++) {
      const o = base + m.defUnit[k]!;
      if (jr) jr.unit(o, this.stamp[o]!, this.prod[o]!, this.defT[o]!, this.readyAt[o]!, gen, i, e, ready);
      this.stamp[o] = gen;
      this.prod[o] = i;
      this.defT[o] = e;
      this.readyAt[o] = ready;
    }
    let t: number;
    if (this.resources) t = e + (taken ? m.issueTaken[i]! : m.issue[i]!);
    else t = e;
    this.t[w] = t;
    if (t > md) md = t;
    this.maxDone[w] = md;
  }

  /**
   * Start a resumable single-wave run: a fresh state (reset(1)) whose changes runJournaled
   * records, so that rewind() can take it back to the state before any position it ran.
   */
  startJournal(): void {
    this.reset(1);
    this.journal ??= new RunJournal();
    this.journal.clear();
  }

  /** Stop recording (the state stays as it is; rewind() is no longer possible). */
  stopJournal(): void { this.journal = undefined; }

  /**
   * runSingle of positions [from, to) of `seq` on wave 0 (branches taken as their flags say),
   * recording before each position the state it starts from (see rewind).
   */
  runJournaled(seq: ArrayLike<number>, from: number, to: number): number {
    const jr = this.journal!;
    for (let pos = from; pos < to;) {
      if (pos % CHECKPOINT === 0) jr.mark(pos, this);
      const next = Math.min(to, pos - (pos % CHECKPOINT) + CHECKPOINT);
      this.advance(seq, pos, next);
      pos = next;
    }
    if (to % CHECKPOINT === 0) jr.mark(to, this);
    jr.markEnd(this, to);
    return this.t[0]!;
  }

  /**
   * earliest(0, i) then commit(0, i, e) for the instructions i at positions [from, to) of `seq`
   * (wave 0 of a journaled run: resources counted, branches taken as their flags say), the unit
   * writes recorded in the journal: the journaled runs' steps (runJournaled, runConverging) between
   * two checkpoints. The same times as earliest and commit (the maxima of the same terms), without
   * their explanation (why), and with the model's tables and the wave's times read once for the
   * positions rather than at each; runSingle, which runs earliest and commit, is the reference the
   * tests compare these runs with.
   */
  private advance(seq: ArrayLike<number>, from: number, to: number): void {
    const m = this.m;
    const jr = this.journal!;
    const pipeA = m.pipeA; const pipeB = m.pipeB; const occA = m.occA; const occB = m.occB;
    const pkA = m.pk; const flags = m.flags; const ccA = m.cc; const lat = m.lat;
    const useStart = m.useStart; const useEnd = m.useEnd; const useUnit = m.useUnit;
    const defStart = m.defStart; const defEnd = m.defEnd; const defUnit = m.defUnit;
    const wVm = m.wVm; const wLgkm = m.wLgkm; const wExp = m.wExp;
    const issue = m.issue; const issueTaken = m.issueTaken;
    const stamp = this.stamp; const prod = this.prod; const defT = this.defT; const readyAt = this.readyAt;
    const pipeFree = this.pipeFree; const pipeBy = this.pipeBy;
    const gen = this.gen;
    const t0 = this.t;
    let t = t0[0]!;
    let md = this.maxDone[0]!;
    for (let pos = from; pos < to; pos++) {
      const i = seq[pos]!;
      // earliest(0, i)
      let e = t;
      const pa = pipeA[i]!;
      if (pa !== 0 && pipeFree[pa]! > e) e = pipeFree[pa]!;
      const pb = pipeB[i]!;
      if (pb !== 0 && pipeFree[pb]! > e) e = pipeFree[pb]!;
      const cc = ccA[i]!;
      const pki = pkA[i]!;
      const ue = useEnd[i]!;
      for (let k = useStart[i]!; k < ue; k++) {
        const u = useUnit[k]!;
        if (stamp[u] !== gen) continue;
        const r = this.readReady(i, k, u, cc);
        if (r > e) e = r;
      }
      const ds = defStart[i]!;
      const de = defEnd[i]!;
      for (let k = ds; k < de; k++) {
        const o = defUnit[k]!;
        if (stamp[o] !== gen) continue;
        const r = this.writeReady(i, o, cc);
        if (r > e) e = r;
      }
      // an s_waitcnt (a count of -1 is no wait on that counter), or a memory operation
      if ((wVm[i]! & wLgkm[i]! & wExp[i]!) >= 0 || pki === PRODUCER.mem) e = this.counterWaits(0, i, e);
      // commit(0, i, e)
      if (pa !== 0) { const x = e + occA[i]!; pipeFree[pa] = x; pipeBy[pa] = i; if (x > md) md = x; }
      if (pb !== 0) { const x = e + occB[i]!; pipeFree[pb] = x; pipeBy[pb] = i; if (x > md) md = x; }
      const ready = pki === PRODUCER.mem ? this.commitQueues(0, i, e) : e + lat[i]!;
      if (ready > md) md = ready;
      if (de > ds) {
        const un = jr.reserve(de - ds);
        let q = jr.nUnits * ENTRY;
        jr.nUnits += de - ds;
        for (let k = ds; k < de; k++, q += ENTRY) {
          const o = defUnit[k]!;
          un[q] = o; un[q + 1] = stamp[o]!; un[q + 2] = prod[o]!; un[q + 3] = defT[o]!; un[q + 4] = readyAt[o]!;
          un[q + 5] = gen; un[q + 6] = i; un[q + 7] = e; un[q + 8] = ready;
          stamp[o] = gen; prod[o] = i; defT[o] = e; readyAt[o] = ready;
        }
      }
      t = e + ((flags[i]! & FLAG.jump) !== 0 ? issueTaken[i]! : issue[i]!);
      if (t > md) md = t;
    }
    t0[0] = t;
    this.maxDone[0] = md;
  }

  /**
   * The journaled run of a sequence of the same length as the last one run, differing from it
   * only in positions [from, last]: resumed at the checkpoint at or before `from`, and at each
   * checkpoint after `last` the state is compared with the last run's state there (shiftFromOld:
   * the scalar state, every unit either run wrote since the resumption, and with a time shift the
   * units neither wrote). Once they are equal, up to a shift D, the rest runs as the last run did,
   * D later: its journal and its final state are taken over (their times plus D) and the
   * remaining positions are not simulated. Returns the positions simulated.
   */
  runConverging(seq: ArrayLike<number>, from: number, last: number): number {
    const jr = this.journal!;
    const to = jr.endPos;
    const c = from - (from % CHECKPOINT);
    jr.keepOld(c);
    jr.rewind(c, this);
    const tr = this.tracking ??= new UnitTracking();
    const ep = tr.next();
    const { seen, touched, lastStamp, lastProd, lastDefT, lastReady } = tr;
    let nt = 0;
    let oldPtr = 0;
    const E = ENTRY;
    // from checkpoint to checkpoint (c is one)
    for (let pos = c; pos < to; pos += CHECKPOINT) {
      if (pos > last && pos > c) {
        // the last run's writes before pos: the value each unit had there in that run
        const upto = jr.oldUnitAt[pos]!;
        const ou = jr.oldUnits;
        for (; oldPtr < upto; oldPtr++) {
          const q = oldPtr * E;
          const o = ou[q]!;
          if (seen[o] !== ep) { seen[o] = ep; touched[nt++] = o; }
          lastStamp[o] = ou[q + 5]!; lastProd[o] = ou[q + 6]!; lastDefT[o] = ou[q + 7]!; lastReady[o] = ou[q + 8]!;
        }
        const shift = this.shiftFromOld(pos, nt, ep);
        if (shift === shift) {
          if (shift !== 0) this.shiftedStops++;
          jr.adoptOld(pos, this, shift);
          return pos - c;
        }
      }
      jr.mark(pos, this);
      const n0 = jr.nUnits;
      this.advance(seq, pos, Math.min(to, pos + CHECKPOINT));
      // this run's writes: a unit the last run had not written yet had the value it had at c
      const un = jr.units;
      for (let x = n0; x < jr.nUnits; x++) {
        const q = x * E;
        const o = un[q]!;
        if (seen[o] !== ep) {
          seen[o] = ep; touched[nt++] = o;
          lastStamp[o] = un[q + 1]!; lastProd[o] = un[q + 2]!; lastDefT[o] = un[q + 3]!; lastReady[o] = un[q + 4]!;
        }
      }
    }
    if (to % CHECKPOINT === 0) jr.mark(to, this);
    jr.markEnd(this, to);
    return to - c;
  }

  /**
   * Whether the state before position `pos` is the kept run's there as the rest of the run can
   * tell, up to a time shift: the shift D (this run's time minus the kept run's; 0 when the
   * times agree), or NaN when the states differ. A time the wave has passed holds nothing back
   * (an issue is never earlier than the wave's time `t`): a pipe free, a queue entry done, a class
   * done, a unit whose results no reader waits for (heldUntil) by then may differ freely; every
   * other time must be the kept run's plus D, every count and identity the kept run's. The
   * units neither run wrote since the checkpoint the run resumed from hold the same values in
   * both, so with D != 0 each must hold nothing back in either run. With D != 0 only when the
   * model is integral (every later time is then exactly the kept run's plus D).
   */
  private shiftFromOld(pos: number, nt: number, ep: number): number {
    const jr = this.journal!;
    const tr = this.tracking!;
    const sc = tr.scratch;
    const len = this.saveScalars(sc, 0);
    const os = jr.oldScalars;
    const at = jr.oldScalarAt[pos]!;
    const D = this.scalarShift(sc, len, os, at);
    if (D !== D) return NaN;
    const tN = sc[0]!;
    const tO = os[at]!;
    const { touched, lastStamp, lastProd, lastDefT, lastReady } = tr;
    for (let x = 0; x < nt; x++) {
      const o = touched[x]!;
      if (!this.unitShifted(o, lastStamp[o]!, lastProd[o]!, lastDefT[o]!, lastReady[o]!, tN, tO, D)) return NaN;
    }
    if (D !== 0) {
      const seen = tr.seen;
      const lim = tN < tO ? tN : tO;
      for (let o = 0; o < U; o++) {
        if (seen[o] === ep || this.stamp[o] !== this.gen) continue;
        if (this.heldUntil(this.prod[o]!, this.defT[o]!, this.readyAt[o]!) > lim) return NaN;
      }
    }
    return D;
  }

  /**
   * shiftFromOld's test of the scalar state (saveScalars) `sc` (`len` numbers) against `os` from
   * `at`: the shift D of the wave's time (NaN when D != 0 and the model is not integral), or NaN
   * when a time that still holds something back is not the other's plus D, or a count or an
   * identity differs.
   */
  private scalarShift(sc: Float64Array, len: number, os: Float64Array, at: number): number {
    const tN = sc[0]!;
    const tO = os[at]!;
    const D = tN - tO;
    if (D !== 0 && !this.integral) return NaN;
    // a time: the kept run's plus D, or passed in both runs
    const time = (q: number): boolean => sc[q] === os[at + q]! + D || (sc[q]! <= tN && os[at + q]! <= tO);
    let q = 1;
    if (!time(q++)) return NaN; // maxDone
    for (let x = 0; x < NPIPES; x++, q += 2) {
      if (sc[q]! <= tN && os[at + q]! <= tO) continue;
      if (sc[q] !== os[at + q]! + D || sc[q + 1] !== os[at + q + 1]) return NaN;
    }
    for (let x = 0; x < NCLASSES; x++) if (!time(q++)) return NaN;
    const queued = sc[q]! + sc[q + 1]! + sc[q + 2]!;
    if (sc[q] !== os[at + q] || sc[q + 1] !== os[at + q + 1] || sc[q + 2] !== os[at + q + 2]) return NaN;
    q += 3;
    for (let x = 0; x < queued; x++, q += 2) {
      if (!time(q)) return NaN;
      if (sc[q]! > tN && sc[q + 1] !== os[at + q + 1]) return NaN;
    }
    if (q !== len) throw new Error(`internal: cycle engine state of ${len} numbers read as ${q}`);
    return D;
  }

  /**
   * Whether unit o of wave 0 is as the other state had it (stamp, producer, def and ready times,
   * the wave's times tN here and tO there) up to the shift D, as the rest of a run can tell: the
   * same producer at times D later, or holding nothing back in either state.
   */
  private unitShifted(o: number, stamp: number, prod: number, defT: number, readyAt: number, tN: number, tO: number, D: number): boolean {
    const gen = this.gen;
    const heldN = this.stamp[o] === gen && this.heldUntil(this.prod[o]!, this.defT[o]!, this.readyAt[o]!) > tN;
    const heldO = stamp === gen && this.heldUntil(prod, defT, readyAt) > tO;
    if (!heldN && !heldO) return true;
    return this.stamp[o] === stamp && this.prod[o] === prod && this.defT[o] === defT + D && this.readyAt[o] === readyAt + D;
  }

  /** Wave 0's whole state into `s` (periodShift compares a later state with it). */
  savePeriod(s: PeriodState): void {
    s.len = this.saveScalars(s.scalars, 0);
    s.stamp.set(this.stamp.subarray(0, U));
    s.prod.set(this.prod.subarray(0, U));
    s.defT.set(this.defT.subarray(0, U));
    s.readyAt.set(this.readyAt.subarray(0, U));
  }

  /**
   * Whether wave 0's state is the one saved in `s` (savePeriod, the same run earlier) up to a
   * time shift, as the rest of a run can tell (shiftFromOld's test over every unit): the shift D,
   * or NaN. When a run of a loop body's iterations meets the state it had one iteration before
   * (D later), every later iteration runs as the one before it did, D later.
   */
  periodShift(s: PeriodState): number {
    const sc = this.tracking?.scratch ?? (this.tracking = new UnitTracking()).scratch;
    const len = this.saveScalars(sc, 0);
    if (len !== s.len) return NaN;
    const D = this.scalarShift(sc, len, s.scalars, 0);
    if (D !== D) return NaN;
    const tN = sc[0]!;
    const tO = s.scalars[0]!;
    for (let o = 0; o < U; o++) if (!this.unitShifted(o, s.stamp[o]!, s.prod[o]!, s.defT[o]!, s.readyAt[o]!, tN, tO, D)) return NaN;
    return D;
  }

  /**
   * The latest cycle until which a result of producer p (issued at defT, ready at readyAt) can
   * hold a reader or a writer of its unit back, over every case of earliest(): the ready time;
   * for an MFMA its def time plus its longest slot latency; for VALU and SALU producers their
   * def time plus the forwarding penalties and the branch-after-write delay.
   */
  private heldUntil(p: number, defT: number, readyAt: number): number {
    // max over the MFMA slots of defT + latency is defT + the longest (a sum is monotone in each term, rounded too)
    const x = defT + this.holdAfterDef[p]!;
    return x > readyAt ? x : readyAt;
  }

  /**
   * Take the journaled run back to the state before a position at or before `pos` (pos at most
   * the last position run, plus one): the checkpoint there, every CHECKPOINT positions. Returns
   * that position, from which the run goes on.
   */
  rewind(pos: number): number {
    const at = pos - (pos % CHECKPOINT);
    this.journal!.rewind(at, this);
    return at;
  }

  /** The scalar state of wave 0 (for the journal): times, pipes, completion order per class, counter queues. */
  saveScalars(out: Float64Array, at: number): number {
    let q = at;
    out[q++] = this.t[0]!; out[q++] = this.maxDone[0]!;
    for (let x = 0; x < NPIPES; x++) { out[q++] = this.pipeFree[x]!; out[q++] = this.pipeBy[x]!; }
    for (let x = 0; x < NCLASSES; x++) out[q++] = this.lastDone[x]!;
    const vl = this.vmLen[0]!; const ll = this.lgLen[0]!; const xl = this.exLen[0]!;
    out[q++] = vl; out[q++] = ll; out[q++] = xl;
    for (let x = 0; x < vl; x++) { out[q++] = this.vmDone[x]!; out[q++] = this.vmIdx[x]!; }
    for (let x = 0; x < ll; x++) { out[q++] = this.lgDone[x]!; out[q++] = this.lgIdx[x]!; }
    for (let x = 0; x < xl; x++) { out[q++] = this.exDone[x]!; out[q++] = this.exIdx[x]!; }
    return q;
  }

  loadScalars(src: Float64Array, at: number): void {
    let q = at;
    this.t[0] = src[q++]!; this.maxDone[0] = src[q++]!;
    for (let x = 0; x < NPIPES; x++) { this.pipeFree[x] = src[q++]!; this.pipeBy[x] = src[q++]!; }
    for (let x = 0; x < NCLASSES; x++) this.lastDone[x] = src[q++]!;
    const vl = src[q++]!; const ll = src[q++]!; const xl = src[q++]!;
    this.vmLen[0] = vl; this.lgLen[0] = ll; this.exLen[0] = xl;
    for (let x = 0; x < vl; x++) { this.vmDone[x] = src[q++]!; this.vmIdx[x] = src[q++]!; }
    for (let x = 0; x < ll; x++) { this.lgDone[x] = src[q++]!; this.lgIdx[x] = src[q++]!; }
    for (let x = 0; x < xl; x++) { this.exDone[x] = src[q++]!; this.exIdx[x] = src[q++]!; }
  }

  /**
   * Redo the journal entry at u[q] (a unit write of wave 0): its values before the write become
   * the unit's current ones (so that undoing it comes back to this state), then the write.
   */
  redoUnit(u: Float64Array, q: number): void {
    const o = u[q]!;
    u[q + 1] = this.stamp[o]!; u[q + 2] = this.prod[o]!; u[q + 3] = this.defT[o]!; u[q + 4] = this.readyAt[o]!;
    this.stamp[o] = u[q + 5]!; this.prod[o] = u[q + 6]!; this.defT[o] = u[q + 7]!; this.readyAt[o] = u[q + 8]!;
  }

  /** Undo one per-unit write of wave 0 (the journal's). */
  restoreUnit(o: number, stamp: number, prod: number, defT: number, readyAt: number): void {
    this.stamp[o] = stamp; this.prod[o] = prod; this.defT[o] = defT; this.readyAt[o] = readyAt;
  }

  /** Sum of issue costs and per-pipe occupancy of a sequence (resource part of the lower bound). */
  resourceSums(seq: ArrayLike<number>, from: number, to: number, taken?: ArrayLike<number>): { issue: number; pipes: Float64Array } {
    const pipes = new Float64Array(NPIPES);
    const issue = this.resourceSumsInto(seq, from, to, pipes, taken);
    return { issue, pipes };
  }

  /** resourceSums into `pipes` (NPIPES entries, overwritten); returns the issue cost. */
  resourceSumsInto(seq: ArrayLike<number>, from: number, to: number, pipes: Float64Array, taken?: ArrayLike<number>): number {
    const m = this.m;
    pipes.fill(0);
    let issue = 0;
    for (let pos = from; pos < to; pos++) {
      const i = seq[pos]!;
      const tk = taken !== undefined ? taken[pos] === 1 : (m.flags[i]! & FLAG.jump) !== 0;
      issue += tk ? m.issueTaken[i]! : m.issue[i]!;
      pipes[m.pipeA[i]!] += m.occA[i]!;
      pipes[m.pipeB[i]!] += m.occB[i]!;
    }
    pipes[0] = 0;
    return issue;
  }
}


/** What every engine of a model reads per instruction (CycleEngine's fields of the same names). */
interface ModelTables { mfmaReadSlot: Uint8Array; mfmaReadDep: Uint8Array; holdAfterDef: Float64Array; integral: boolean; wholeOccupancies: boolean }

const tablesOf = new WeakMap<CycleModel, ModelTables>();

/** The tables of model m, made once per model: a kernel's engines share them (one per resumable run). */
function modelTables(m: CycleModel): ModelTables {
  let t = tablesOf.get(m);
  if (t) return t;
  const n = m.pk.length;
  const mfmaReadSlot = new Uint8Array(n);
  const mfmaReadDep = new Uint8Array(n);
  const holdAfterDef = new Float64Array(n);
  const valuHold = Math.max(m.valuToMfma, m.sgprToSalu, m.sgprToVmem, m.sgprToValu, m.transToValu, m.dotLat);
  for (let i = 0; i < n; i++) {
    const cc = m.cc[i]!;
    if (cc === CONSUMER.mfma) { mfmaReadSlot[i] = MFMA_SLOT.srcAB; mfmaReadDep[i] = DEP.mfmaSrcAB; }
    else if (cc === CONSUMER.vmem || cc === CONSUMER.ds) { mfmaReadSlot[i] = MFMA_SLOT.mem; mfmaReadDep[i] = DEP.mfmaMem; }
    else { mfmaReadSlot[i] = MFMA_SLOT.valu; mfmaReadDep[i] = DEP.mfmaValu; }
    const pk = m.pk[i]!;
    let h = -Infinity;
    if (pk === PRODUCER.mfma) { for (let s = 0; s < 5; s++) h = Math.max(h, m.mfmaLat[i * 5 + s]!); }
    else if (pk === PRODUCER.valu) h = Math.max(valuHold, m.lat[i]! + m.afterWrite);
    else if (pk === PRODUCER.salu) h = m.lat[i]! + m.afterWrite;
    holdAfterDef[i] = h;
  }
  const whole = (a: ArrayLike<number>) => { for (let i = 0; i < a.length; i++) if (!Number.isSafeInteger(a[i]!)) return false; return true; };
  const integral = whole(m.lat) && whole(m.issue) && whole(m.issueTaken) && whole(m.occA) && whole(m.occB) && whole(m.mfmaLat)
    && whole([m.valuToMfma, m.sgprToSalu, m.sgprToVmem, m.sgprToValu, m.transToValu, m.dotLat, m.afterWrite]);
  t = { mfmaReadSlot, mfmaReadDep, holdAfterDef, integral, wholeOccupancies: whole(m.occA) && whole(m.occB) };
  tablesOf.set(m, t);
  return t;
}

/** Wave 0's whole state at one point of a run (CycleEngine.savePeriod / periodShift). */
export class PeriodState {
  readonly scalars = new Float64Array(SNAPSHOT_MAX);
  len = 0;
  readonly stamp = new Int32Array(U);
  readonly prod = new Int32Array(U);
  readonly defT = new Float64Array(U);
  readonly readyAt = new Float64Array(U);
}

/** Positions between two states the journal keeps (runJournaled / rewind). */
const CHECKPOINT = 8;

/** Largest scalar snapshot of one position (saveScalars): times, pipes, classes, queue lengths and entries. */
const SNAPSHOT_MAX = 2 + 2 * NPIPES + NCLASSES + 3 + 2 * (VMCAP + LGKMCAP + EXPCAP);

/** Numbers per journal entry of a unit write: the unit, its stamp, producer, def time and ready time before the write, and after. */
const ENTRY = 9;

/**
 * Add `shift` to the times of the scalar state saved at `at` (CycleEngine.saveScalars: the
 * wave's time and last completion, each pipe's free time (then the instruction that holds it),
 * each class's last completion, the three queue lengths, then each queue entry's completion
 * time (then its instruction)).
 */
function shiftTimes(buf: Float64Array, at: number, shift: number): void {
  let q = at;
  buf[q++]! += shift;
  buf[q++]! += shift;
  for (let x = 0; x < NPIPES; x++, q += 2) buf[q]! += shift;
  for (let x = 0; x < NCLASSES; x++) buf[q++]! += shift;
  const queued = buf[q]! + buf[q + 1]! + buf[q + 2]!;
  q += 3;
  for (let x = 0; x < queued; x++, q += 2) buf[q]! += shift;
}

/**
 * The journal of a resumable run: at every CHECKPOINT-th position, the scalar state
 * (saveScalars, variable length) and where the unit writes of the positions from there begin;
 * each unit write with the values before it (to undo) and after it (to redo); the state at the
 * end. keepOld keeps the part of the last run from a checkpoint on while a new run replaces it,
 * so that the new run can take it over once the two states meet (adoptOld).
 */
class RunJournal {
  scalars = new Float64Array(4096);
  scalarAt = new Int32Array(256);
  unitAt = new Int32Array(256);
  units = new Float64Array(ENTRY * 256);
  nUnits = 0;
  scalarLen = 0;
  /** Positions marked (the last mark is for position `marked - 1`). */
  marked = 0;
  /** The state after the last position run, and that position. */
  end = new Float64Array(SNAPSHOT_MAX);
  endPos = 0;
  // the last run from checkpoint `oldFrom` on (keepOld): indexes relative to that checkpoint
  oldUnits = new Float64Array(ENTRY * 256);
  oldN = 0;
  oldUnitAt = new Int32Array(256);
  oldScalars = new Float64Array(4096);
  oldScalarAt = new Int32Array(256);
  oldScalarLen = 0;
  oldMarked = 0;
  oldEnd = new Float64Array(SNAPSHOT_MAX);
  oldEndPos = 0;

  /**
   * Where the unit writes not yet made on the engine begin (-1: none). adoptOld takes over the
   * kept run's writes after the position where the states met without making them: the result of
   * a run needs only the scalar state, and every next run rewinds first (ResumableCycles), which
   * makes the pending writes up to its checkpoint and drops the rest. A write is redone
   * (redoUnit) with the engine's value before it as the value it undoes to: a unit may differ
   * between the two runs where it holds nothing back (shiftFromOld), and the values each write
   * undoes to are this run's, not the kept run's. The engine's units do not change between the
   * take-over and the rewind, so the writes come out as if they had been made at once.
   */
  pending = -1;

  clear(): void { this.nUnits = 0; this.scalarLen = 0; this.marked = 0; this.endPos = 0; this.pending = -1; }

  /** The unit writes' array with room for `more` entries after the `nUnits` recorded. */
  reserve(more: number): Float64Array {
    if ((this.nUnits + more) * ENTRY > this.units.length) this.units = grow(this.units, Math.max(this.units.length * 2, (this.nUnits + more) * ENTRY));
    return this.units;
  }

  unit(o: number, stamp: number, prod: number, defT: number, readyAt: number, nStamp: number, nProd: number, nDefT: number, nReady: number): void {
    if ((this.nUnits + 1) * ENTRY > this.units.length) this.units = grow(this.units, this.units.length * 2);
    const q = this.nUnits++ * ENTRY;
    const u = this.units;
    u[q] = o; u[q + 1] = stamp; u[q + 2] = prod; u[q + 3] = defT; u[q + 4] = readyAt;
    u[q + 5] = nStamp; u[q + 6] = nProd; u[q + 7] = nDefT; u[q + 8] = nReady;
  }

  /** Keep the state before position `pos` (the positions marked increase; a rewind goes back to one of them). */
  mark(pos: number, e: CycleEngine): void {
    if (pos + 1 >= this.scalarAt.length) {
      this.scalarAt = growInt(this.scalarAt, (pos + 1) * 2);
      this.unitAt = growInt(this.unitAt, (pos + 1) * 2);
    }
    if (this.scalarLen + SNAPSHOT_MAX > this.scalars.length) this.scalars = grow(this.scalars, (this.scalarLen + SNAPSHOT_MAX) * 2);
    this.scalarAt[pos] = this.scalarLen;
    this.unitAt[pos] = this.nUnits;
    this.scalarLen = e.saveScalars(this.scalars, this.scalarLen);
    this.marked = pos + 1;
  }

  /** Keep the state after the last position run (`pos`). */
  markEnd(e: CycleEngine, pos: number): void {
    e.saveScalars(this.end, 0);
    this.endPos = pos;
  }

  rewind(pos: number, e: CycleEngine): void {
    if (pos >= this.marked) throw new Error(`internal: cycle journal rewound to position ${pos}, marked ${this.marked}`);
    const keep = this.unitAt[pos]!;
    const u = this.units;
    // the engine's units hold the writes before `applied`: those after `keep` are undone, those
    // pending before it redone
    const applied = this.pending >= 0 ? this.pending : this.nUnits;
    for (let x = applied - 1; x >= keep; x--) { const q = x * ENTRY; e.restoreUnit(u[q]!, u[q + 1]!, u[q + 2]!, u[q + 3]!, u[q + 4]!); }
    for (let x = applied; x < keep; x++) e.redoUnit(u, x * ENTRY);
    this.pending = -1;
    this.nUnits = keep;
    const at = this.scalarAt[pos]!;
    e.loadScalars(this.scalars, at);
    this.scalarLen = at;
    this.marked = pos;
  }

  /** Keep the last run from checkpoint c on (before a rewind to c). */
  keepOld(c: number): void {
    const u0 = this.unitAt[c]!;
    const s0 = this.scalarAt[c]!;
    const nu = (this.nUnits - u0) * ENTRY;
    if (this.oldUnits.length < nu) this.oldUnits = new Float64Array(nu * 2);
    this.oldUnits.set(this.units.subarray(u0 * ENTRY, this.nUnits * ENTRY));
    this.oldN = this.nUnits - u0;
    const ns = this.scalarLen - s0;
    if (this.oldScalars.length < ns) this.oldScalars = new Float64Array(ns * 2);
    this.oldScalars.set(this.scalars.subarray(s0, this.scalarLen));
    this.oldScalarLen = ns;
    if (this.oldUnitAt.length < this.marked) { this.oldUnitAt = new Int32Array(this.marked * 2); this.oldScalarAt = new Int32Array(this.marked * 2); }
    for (let p = c; p < this.marked; p += CHECKPOINT) { this.oldUnitAt[p] = this.unitAt[p]! - u0; this.oldScalarAt[p] = this.scalarAt[p]! - s0; }
    this.oldMarked = this.marked;
    this.oldEnd.set(this.end);
    this.oldEndPos = this.endPos;
  }

  /**
   * The state is the kept run's at checkpoint pos, `shift` later (shiftFromOld): take over the
   * kept run from there (its checkpoints, its unit writes, left pending on the engine until the
   * next rewind, and its final state), every time in them `shift` later.
   */
  adoptOld(pos: number, e: CycleEngine, shift: number): void {
    this.mark(pos, e);
    const dU = this.nUnits - this.oldUnitAt[pos]!;
    const dS = this.scalarAt[pos]! - this.oldScalarAt[pos]!;
    // unit writes from pos on, taken over but not redone on the engine yet (pending: see rewind)
    const from = this.oldUnitAt[pos]!;
    const nu = (dU + this.oldN) * ENTRY;
    if (this.units.length < nu) this.units = grow(this.units, nu * 2);
    this.units.set(this.oldUnits.subarray(from * ENTRY, this.oldN * ENTRY), this.nUnits * ENTRY);
    this.pending = this.nUnits;
    this.nUnits = dU + this.oldN;
    // the kept run's def and ready times, in this run's time
    if (shift !== 0) for (let x = this.pending; x < this.nUnits; x++) { const q = x * ENTRY; this.units[q + 7] += shift; this.units[q + 8] += shift; }
    // checkpoints after pos
    const ns = dS + this.oldScalarLen;
    if (this.scalars.length < ns) this.scalars = grow(this.scalars, ns * 2);
    this.scalars.set(this.oldScalars.subarray(this.oldScalarAt[pos]!, this.oldScalarLen), this.scalarAt[pos]!);
    this.scalarLen = ns;
    // (pos's own record too: the kept run's state there, which this run's equals up to the shift)
    if (shift !== 0) for (let p = pos; p < this.oldMarked; p += CHECKPOINT) shiftTimes(this.scalars, this.oldScalarAt[p]! + dS, shift);
    if (this.scalarAt.length < this.oldMarked + 1) { this.scalarAt = growInt(this.scalarAt, (this.oldMarked + 1) * 2); this.unitAt = growInt(this.unitAt, (this.oldMarked + 1) * 2); }
    for (let p = pos + CHECKPOINT; p < this.oldMarked; p += CHECKPOINT) { this.scalarAt[p] = this.oldScalarAt[p]! + dS; this.unitAt[p] = this.oldUnitAt[p]! + dU; }
    this.marked = this.oldMarked;
    this.end.set(this.oldEnd);
    if (shift !== 0) shiftTimes(this.end, 0, shift);
    this.endPos = this.oldEndPos;
    e.loadScalars(this.end, 0);
  }
}

/** runConverging's record of the units either run wrote since the resumption, with the last run's value of each. */
class UnitTracking {
  readonly seen = new Int32Array(U);
  readonly touched = new Int32Array(U);
  readonly lastStamp = new Float64Array(U);
  readonly lastProd = new Float64Array(U);
  readonly lastDefT = new Float64Array(U);
  readonly lastReady = new Float64Array(U);
  readonly scratch = new Float64Array(SNAPSHOT_MAX);
  private epoch = 0;

  next(): number {
    if (++this.epoch >= 0x3fffffff) { this.seen.fill(0); this.epoch = 1; }
    return this.epoch;
  }
}

function grow(a: Float64Array, n: number): Float64Array<ArrayBuffer> { const b = new Float64Array(n); b.set(a); return b; }
function growInt(a: Int32Array, n: number): Int32Array<ArrayBuffer> { const b = new Int32Array(n); b.set(a); return b; }
