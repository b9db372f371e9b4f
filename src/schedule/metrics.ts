/**
 * Metrics of a schedule, and their lexicographic comparison.
 *
 *   peak_vgpr / peak_agpr / peak_sgpr  peak live registers (liveness per 32-bit unit)
 *   s_waitcnt / s_nop                  waits and nops in the kernel
 *   total_instructions                 instructions in the kernel
 *   occupancy                          waves per SIMD that the peak live registers allow (with
 *                                      the descriptor's LDS), printed `occupancy (peak live)`;
 *                                      reordering does not change which registers are named, so
 *                                      this is the occupancy a register allocation of the
 *                                      schedule could reach (analysis/resources.ts: peakLive)
 *   est_cycles                         the kernel as it runs (src/cycles/kernel-time.ts): every
 *                                      block once plus each loop's steady state times its trip
 *                                      count, the waves of the kernel's occupancy sharing the
 *                                      SIMD; `wave_cycles` (the same for one wave) breaks its ties
 *
 * Two ways to get them:
 *   - `Evaluator.evaluate(state)`: fast, per region and cached on the region's version. Peaks are
 *     exact (waits and nops hold no registers). A changed region counts the waits it has plus the
 *     change that the wait model (waits.ts, from the region's entry state in the original
 *     program) sees between the original order and the new one, the s_nop the hazard engine pads
 *     it with (on a window around the region). est_cycles is the original's plus, per changed
 *     region, the change of the region alone between its original order and the new one, and
 *     per loop holding a changed region, the weight times the change of its steady state; the
 *     loop body is simulated as it will be written: the new orders with the waits the wait
 *     model gives them (synthetic waits of the cycle model), the rest as written.
 *     An unchanged region counts what it has.
 *   - `programMetrics(loaded, kernel)`: exact, on a program text (what `apply` reports and
 *     compares after re-deriving waits and nops).
 */
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { kernelResources } from '../analysis/resources.js';
import { computeOccupancy } from '../analysis/occupancy.js';
import { ConductorError } from '../errors.js';
import type { KernelContext } from '../analysis/types.js';
import { AGPR_BASE, FLAT_SCRATCH_LO, VGPR_BASE, UNIT_COUNT } from '../asm/registers.js';
import type { Region, ScheduleKernel } from './kernel.js';
import { rederiveWaits } from '../waitcnt/index.js';
import type { ScheduleState } from './state.js';
import { counterMax, kernelWaits, sequenceWaits, flatEffects, CounterScores, type CounterMax, type FlatEffects } from './waits.js';
import { cycleEngineFor } from '../cycles/estimate.js';
import type { CycleEngine } from '../cycles/engine.js';
import { syntheticWait } from '../cycles/model.js';
import { kernelTime, runWaves, steadyState, type KernelLoop, type WaveCycles } from '../cycles/kernel-time.js';
import type { CycleParams } from '../targets/latency.js';
import { windowNopModel, type WindowNopModel } from './hazard-model.js';

export const METRIC_NAMES = ['peak_vgpr', 'peak_agpr', 'peak_sgpr', 's_waitcnt', 's_nop', 'total_instructions', 'occupancy', 'est_cycles'] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

export interface Metrics {
  peak_vgpr: number;
  peak_agpr: number;
  peak_sgpr: number;
  s_waitcnt: number;
  s_nop: number;
  total_instructions: number;
  occupancy: number;
  est_cycles: number;
  /**
   * est_cycles of one wave alone; breaks ties of est_cycles (equal at the kernel's occupancy,
   * the schedule with more slack wins: a wave that runs with fewer co-resident waves, at the
   * end of a dispatch or beside other kernels, shows it). Not an objective name of its own.
   */
  wave_cycles?: number;
}

/**
 * The default objective: the kernel's time (est_cycles), then register pressure, waits, nops and
 * instructions. Whatever the objective, a schedule that lowers the occupancy its peak live
 * registers allow is never better (compareMetrics' `minOccupancy`).
 */
export const DEFAULT_OBJECTIVE: readonly MetricName[] = ['est_cycles', 'peak_vgpr', 's_waitcnt', 's_nop', 'total_instructions'];
/** `--objective conductor`: the original Conductor's order (registers first; est_cycles breaks ties in the search). */
export const CONDUCTOR_OBJECTIVE: readonly MetricName[] = ['peak_vgpr', 's_waitcnt', 's_nop', 'total_instructions'];
/** Named objectives `--objective` accepts besides a metric list. */
export const NAMED_OBJECTIVES: Readonly<Record<string, readonly MetricName[]>> = { default: DEFAULT_OBJECTIVE, conductor: CONDUCTOR_OBJECTIVE };

/** Higher is better only for occupancy. */
export function higherIsBetter(m: MetricName): boolean { return m === 'occupancy'; }

export function parseObjective(text: string): MetricName[] {
  const named = NAMED_OBJECTIVES[text.trim()];
  if (named) return [...named];
  const names = text.split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (names.length === 0) throw new ConductorError('empty objective');
  for (const n of names) {
    if (!(METRIC_NAMES as readonly string[]).includes(n)) {
      throw new ConductorError(`unknown metric '${n}' in the objective (metrics: ${METRIC_NAMES.join(', ')}; or one of: ${Object.keys(NAMED_OBJECTIVES).join(', ')})`);
    }
  }
  return names as MetricName[];
}

/**
 * Negative when a is better than b, positive when worse, 0 when equal on the objective. With
 * `minOccupancy`, a schedule below it (its peak live registers cross an occupancy breakpoint
 * the input stays inside) is worse than any that is not.
 */
export function compareMetrics(a: Metrics, b: Metrics, objective: readonly MetricName[] = DEFAULT_OBJECTIVE, minOccupancy = 0): number {
  const fa = a.occupancy >= minOccupancy;
  if (fa !== (b.occupancy >= minOccupancy)) return fa ? -1 : 1;
  for (const m of objective) {
    const d = a[m] - b[m];
    if (d !== 0) return higherIsBetter(m) ? -d : d;
    if (m === 'est_cycles') {
      const w = (a.wave_cycles ?? 0) - (b.wave_cycles ?? 0);
      if (w !== 0) return w;
    }
  }
  return 0;
}

/** The first metric of the objective on which a is worse than b ("s_waitcnt 12 -> 14"). */
export function worseningText(a: Metrics, b: Metrics, objective: readonly MetricName[] = DEFAULT_OBJECTIVE, minOccupancy = 0): string {
  if (a.occupancy < minOccupancy && b.occupancy >= minOccupancy) return `occupancy ${b.occupancy} -> ${a.occupancy} waves per SIMD`;
  for (const m of objective) {
    if (a[m] === b[m]) {
      if (m === 'est_cycles' && (a.wave_cycles ?? 0) !== (b.wave_cycles ?? 0)) return `est_cycles ${a[m]}, one wave ${b.wave_cycles} -> ${a.wave_cycles}`;
      continue;
    }
    return `${m} ${b[m]} -> ${a[m]}`;
  }
  return '';
}

/**
 * How far a fast estimate (Evaluator.evaluate) was from the exact metrics of the same schedule
 * (programMetrics after emission): estimate minus exact per metric, and est_cycles' difference
 * relative to the exact value.
 */
export interface MetricDrift {
  difference: Record<MetricName, number>;
  estCyclesRelative: number;
}

export function metricDrift(estimate: Metrics, exact: Metrics): MetricDrift {
  const difference = {} as Record<MetricName, number>;
  for (const m of METRIC_NAMES) difference[m] = estimate[m] - exact[m];
  const rel = exact.est_cycles === 0 ? 0 : (estimate.est_cycles - exact.est_cycles) / exact.est_cycles;
  return { difference, estCyclesRelative: Math.round(rel * 1e6) / 1e6 };
}

/** How a metric is named in output: its name, `occupancy (peak live)` for occupancy. */
export function metricLabel(n: MetricName): string {
  return n === 'occupancy' ? 'occupancy (peak live)' : n;
}

export function formatMetrics(m: Metrics): string {
  return METRIC_NAMES.map((n) => `${metricLabel(n)} ${m[n]}`).join(', ');
}

/* ---------------------------------------------------------------------------------------------- */
/* Pressure                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

const SGPR_END = FLAT_SCRATCH_LO;

/** Reusable scratch for pressure scans. */
export class PressureScanner {
  private readonly live = new Uint32Array(UNIT_COUNT);
  private epoch = 1;

  /**
   * Peak pressure of a sequence ending with `liveOut` live: per instruction
   * max(live before, live after + written), as computePressure defines it. Result in out[0..2]
   * (vgpr, agpr, sgpr); `points`, when given, receives the VGPR pressure at each position.
   */
  scan(k: Pick<ScheduleKernel, 'defOff' | 'defUnits' | 'useOff' | 'useUnits'>, seq: ArrayLike<number>, liveOut: Uint32Array,
    out: Int32Array, points?: Int32Array): void {
    const e = ++this.epoch;
    if (e > 0x7ffffff0) { this.live.fill(0); this.epoch = 1; }
    const live = this.live;
    let v = 0; let a = 0; let s = 0;
    for (let w = 0; w < liveOut.length; w++) {
      let bits = liveOut[w]!;
      while (bits) {
        const t = bits & -bits;
        const u = (w << 5) + (31 - Math.clz32(t));
        bits ^= t;
        live[u] = this.epoch;
        if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) s++;
      }
    }
    const ep = this.epoch;
    let pv = 0; let pa = 0; let ps = 0;
    const { defOff, defUnits, useOff, useUnits } = k;
    for (let p = seq.length - 1; p >= 0; p--) {
      const i = seq[p]!;
      let av = 0; let aa = 0; let as = 0;
      const d0 = defOff[i]!; const d1 = defOff[i + 1]!;
      for (let q = d0; q < d1; q++) {
        const u = defUnits[q]!;
        if (live[u] !== ep) { if (u >= AGPR_BASE) aa++; else if (u >= VGPR_BASE) av++; else if (u < SGPR_END) as++; }
      }
      let xv = v + av; let xa = a + aa; let xs = s + as;
      for (let q = d0; q < d1; q++) {
        const u = defUnits[q]!;
        if (live[u] === ep) { live[u] = 0; if (u >= AGPR_BASE) a--; else if (u >= VGPR_BASE) v--; else if (u < SGPR_END) s--; }
      }
      for (let q = useOff[i]!; q < useOff[i + 1]!; q++) {
        const u = useUnits[q]!;
        if (live[u] !== ep) { live[u] = ep; if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) s++; }
      }
      if (v > xv) xv = v;
      if (a > xa) xa = a;
      if (s > xs) xs = s;
      if (points) points[p] = xv;
      if (xv > pv) pv = xv;
      if (xa > pa) pa = xa;
      if (xs > ps) ps = xs;
    }
    out[0] = pv; out[1] = pa; out[2] = ps;
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* Evaluator                                                                                       */
/* ---------------------------------------------------------------------------------------------- */

export interface EvaluatorOptions {
  /** Cycle model parameters (default: the target's). */
  cycleParams?: CycleParams;
  /** Trip count of loops whose count the code does not give (default: the kernel's option, else DEFAULT_TRIP). */
  trip?: number;
  /** Estimate s_nop of changed regions with the hazard engine (default true when it is available). */
  nops?: boolean;
  /** Instructions before and after a region given to the hazard engine (default 24). */
  nopWindow?: number;
  /**
   * Recompute every cached or incremental result from scratch when it is used and throw when
   * the two differ (default: the CONDUCTOR_CHECK_FAST environment variable is 1). Slow: for
   * tests and for hunting a wrong estimate.
   */
  checkFast?: boolean;
}

/** Whether the environment asks for the fast paths to be checked (CONDUCTOR_CHECK_FAST=1). */
export function checkFastFromEnv(): boolean {
  return process.env['CONDUCTOR_CHECK_FAST'] === '1';
}

/** A cached or incremental result that differs from the same thing computed from scratch. */
export class FastPathMismatch extends Error {
  override name = 'FastPathMismatch';
}

function expectSame(what: string, cached: unknown, exact: unknown): void {
  const a = JSON.stringify(cached, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
  const b = JSON.stringify(exact, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
  if (a !== b) throw new FastPathMismatch(`fast path check: ${what}: cached ${a}, recomputed ${b}`);
}

/**
 * Peak live VGPR / AGPR / SGPR of a sequence ending with `liveOut` live, computed the plain way
 * (a set of live units, walked backwards; per instruction max(live before, live after + written),
 * as computePressure defines it): the reference the PressureScanner is checked against.
 */
export function exactSequencePeaks(k: Pick<ScheduleKernel, 'insns'>, seq: ArrayLike<number>, liveOut: Uint32Array): [number, number, number] {
  const live = new Set<number>();
  for (let u = 0; u < liveOut.length * 32; u++) if ((liveOut[u >>> 5]! >>> (u & 31)) & 1) live.add(u);
  const count = (set: Iterable<number>): [number, number, number] => {
    let v = 0; let a = 0; let sg = 0;
    for (const u of set) { if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) sg++; }
    return [v, a, sg];
  };
  const peak: [number, number, number] = [0, 0, 0];
  const raise = (c: [number, number, number]) => { for (let x = 0; x < 3; x++) if (c[x]! > peak[x]!) peak[x] = c[x]!; };
  for (let p = seq.length - 1; p >= 0; p--) {
    const r = k.insns[seq[p]!]!;
    raise(count(new Set([...live, ...r.defs])));
    for (const u of r.defs) live.delete(u);
    for (const u of r.uses) live.add(u);
    raise(count(live));
  }
  return peak;
}

/** Positions per s_nop estimation segment (see Evaluator.regionNops). */
const NOP_SEGMENT = 32;

export interface RegionEval {
  peak_vgpr: number;
  peak_agpr: number;
  peak_sgpr: number;
  waits: number;
  nops: number;
  /** Change of the walk's cycles against the original order (the region alone, every wave). */
  cyclesDelta: number;
  /** The same for one wave alone. */
  cyclesDeltaOne: number;
  /** The region in this order with the waits the wait model gives it (synthetic model entries), for loop bodies. */
  cycleSeq?: Int32Array;
}

interface Slot extends RegionEval { version: number }

/** A padded s_nop segment: its position in the region, whether it ends it, the instructions from the window before it to its end. */
interface NopSegment { at: number; last: boolean; window: Int32Array; nops: number }

function sameSegment(e: NopSegment, at: number, last: boolean, seq: ArrayLike<number>, from: number, to: number): boolean {
  if (e.at !== at || e.last !== last || e.window.length !== to - from) return false;
  for (let p = from; p < to; p++) if (e.window[p - from] !== seq[p]) return false;
  return true;
}

/** Loop bodies cached per loop (keyed on the versions of its regions). */
const LOOP_CACHE_MAX = 4096;

export class Evaluator {
  readonly k: ScheduleKernel;
  readonly flatEffects: FlatEffects;
  readonly max: CounterMax;
  private readonly waitEntry: CounterScores[];
  private readonly identity: RegionEval[];
  private readonly identityCycles: Float64Array;
  private readonly identityCyclesOne: Float64Array;
  private readonly engine: CycleEngine;
  /** Waves sharing a SIMD (the kernel's occupancy): est_cycles simulates them together. */
  readonly waves: number;
  /** The kernel's loops (kernel-time.ts) and, per loop, its regions and original cycles per iteration. */
  readonly loops: readonly KernelLoop[];
  private readonly loopRegions: Int32Array[];
  private readonly loopOrig: Float64Array;
  private readonly loopOrigOne: Float64Array;
  private readonly loopCache: Map<string, WaveCycles>[];
  private readonly slots: (Slot | undefined)[];
  private readonly nopModel?: WindowNopModel;
  private readonly nopWindow: number;
  private readonly nopCache: (Map<number, NopSegment> | undefined)[] = [];
  private readonly idWaits: Int32Array;
  /** Per region: the waits the waitcnt analysis re-derives for the original order (what emission writes for a changed region). */
  private readonly anchorWaits: Int32Array;
  private readonly scanner = new PressureScanner();
  private readonly out3 = new Int32Array(3);
  private readonly need = new Int32Array(3);
  private readonly scratchWait = new CounterScores();
  private readonly seqs: Int32Array[];
  /** est_cycles of the original program as written (kernel-time.ts), and of one wave alone. */
  readonly baseCycles: number;
  readonly baseCyclesOne: number;
  readonly ldsBytes: number;
  /** Every cached result is checked against a fresh computation (EvaluatorOptions.checkFast). */
  readonly checkFast: boolean;

  constructor(k: ScheduleKernel, opts: EvaluatorOptions = {}) {
    this.k = k;
    this.checkFast = opts.checkFast ?? checkFastFromEnv();
    this.max = counterMax(k.target);
    const cfg = k.ctx.cfg;
    this.flatEffects = flatEffects(k.insns, cfg.control);
    this.ldsBytes = k.kernel.descriptor?.values['group_segment_fixed_size'] ?? 0;
    const firsts = k.regions.map((r) => r.first);
    const kw = kernelWaits(cfg, this.flatEffects, this.max, { at: firsts });
    this.waitEntry = k.regions.map((r) => kw.before.get(r.first) ?? new CounterScores());
    // Emission re-derives every wait of a changed region with the waitcnt analysis (weakest
    // waits, so often more of them than a hand-placed wait that covers several reads). A changed
    // region is counted from that baseline plus the change the wait model sees.
    this.anchorWaits = new Int32Array(k.regions.length);
    const stripped: number[] = [];
    for (const rg of k.regions) for (const i of rg.stripped) if (k.insns[i]!.insn.base === 's_waitcnt') stripped.push(i);
    for (const w of rederiveWaits(k.ctx, stripped)) {
      const r = k.regionOf[w.before]!;
      if (r >= 0) this.anchorWaits[r]!++;
    }
    this.engine = cycleEngineFor(k.ctx, opts.cycleParams);
    const kt = kernelTime(k.ctx, { trip: opts.trip ?? k.options.trip, params: opts.cycleParams });
    this.baseCycles = kt.cycles;
    this.baseCyclesOne = kt.cyclesOne;
    this.waves = kt.waves;
    this.loops = kt.loops.map((l) => l.loop);
    this.loopOrig = Float64Array.from(kt.loops, (l) => l.perIteration);
    this.loopOrigOne = Float64Array.from(kt.loops, (l) => l.perIterationOne);
    this.loopRegions = this.loops.map((l) => Int32Array.from(k.regions.filter((r) => r.first >= l.start && r.last < l.end).map((r) => r.id)));
    this.loopCache = this.loops.map(() => new Map());
    this.nopWindow = opts.nopWindow ?? 24;
    if (opts.nops !== false) this.nopModel = windowNopModel(k.ctx);
    this.seqs = k.regions.map((r) => new Int32Array(r.nodes.length));
    this.idWaits = new Int32Array(k.regions.length).fill(-1);
    this.slots = new Array(k.regions.length);
    this.identityCycles = new Float64Array(k.regions.length).fill(NaN);
    this.identityCyclesOne = new Float64Array(k.regions.length);
    this.identity = k.regions.map((r) => this.identityRegion(r));
  }

  /** Metrics of region r in its original order (what it has: its own waits and nops). */
  private identityRegion(r: Region): RegionEval {
    this.scanner.scan(this.k, r.nodes, r.liveOut, this.out3);
    if (this.checkFast) expectSame(`peaks of region ${r.id} as written`, Array.from(this.out3), exactSequencePeaks(this.k, r.nodes, r.liveOut));
    return { peak_vgpr: this.out3[0]!, peak_agpr: this.out3[1]!, peak_sgpr: this.out3[2]!, waits: r.strippedWaits, nops: r.strippedNops, cyclesDelta: 0, cyclesDeltaOne: 0 };
  }

  /**
   * A region sequence (kernel instruction indexes) with the waits the wait model gives it from
   * the region's entry state, as cycle-model entries; `count` gets the number of waits.
   */
  private withWaits(r: number, seq: ArrayLike<number>, count: { waits: number }): Int32Array {
    const st = this.scratchWait;
    st.copy(this.waitEntry[r]!);
    const at: { at: number; vm: number; lgkm: number; exp: number }[] = [];
    count.waits = sequenceWaits(this.flatEffects, st, seq, this.max, this.need, at);
    const out: number[] = [];
    let q = 0;
    for (let p = 0; p < seq.length; p++) {
      while (q < at.length && at[q]!.at === p) { const w = at[q++]!; syntheticWait(this.engine.m, w.vm, w.lgkm, w.exp, out); }
      out.push(seq[p]!);
    }
    return Int32Array.from(out);
  }

  /** Cycles of a sequence alone (nothing outstanding before it): one wave, all waves. */
  private aloneCycles(seq: ArrayLike<number>): WaveCycles {
    return runWaves(this.engine, seq, this.waves);
  }

  /** Metrics of region r in the original order. */
  originalRegion(r: number): RegionEval { return this.identity[r]!; }

  /** Is a hazard engine estimating s_nop of changed regions? */
  get estimatesNops(): boolean { return this.nopModel !== undefined; }

  /** Metrics of one region in the state's order (cached on the region's version). */
  region(s: ScheduleState, r: number): RegionEval {
    const v = s.version[r]!;
    if (v === 0 || !s.isChanged(r)) {
      if (this.checkFast && v === 0) expectSame(`region ${r} as written`, this.identity[r], this.identityRegion(this.k.regions[r]!));
      if (v === 0) return this.identity[r]!;
    }
    const slot = this.slots[r];
    if (slot && slot.version === v) {
      if (this.checkFast) {
        const { version: _v, ...cached } = slot;
        expectSame(`region ${r} at version ${v}`, cached, s.isChanged(r) ? this.computeRegion(s, r) : this.identity[r]);
      }
      return slot;
    }
    const e = s.isChanged(r) ? this.computeRegion(s, r) : this.identity[r]!;
    this.slots[r] = { ...e, version: v };
    return e;
  }

  private computeRegion(s: ScheduleState, r: number): RegionEval {
    const k = this.k;
    const rg = k.regions[r]!;
    const seq = this.seqs[r]!;
    const o = s.order[r]!;
    for (let p = 0; p < o.length; p++) seq[p] = rg.nodes[o[p]!]!;
    this.scanner.scan(k, seq, rg.liveOut, this.out3);
    if (this.checkFast) expectSame(`peaks of region ${r}`, Array.from(this.out3), exactSequencePeaks(k, seq, rg.liveOut));
    // Waits: the region's own count plus the change the model sees against the original order
    // (the model's pessimism about the region's entry cancels out). Nops: the hazard engine's
    // padding, which is what emission inserts. Cycles: the region alone with the model's
    // waits, against the original order with the model's waits (so the change is the order's).
    const count = { waits: 0 };
    const cycleSeq = this.withWaits(r, seq, count);
    const waits = Math.max(0, this.anchorWaits[r]! + count.waits - this.identityModelWaits(r));
    const nops = this.nopModel ? this.regionNops(r, seq) : rg.strippedNops;
    if (Number.isNaN(this.identityCycles[r]!)) {
      const id = this.aloneCycles(this.withWaits(r, rg.nodes, { waits: 0 }));
      this.identityCycles[r] = id.all;
      this.identityCyclesOne[r] = id.one;
    } else if (this.checkFast) {
      const id = this.aloneCycles(this.withWaits(r, rg.nodes, { waits: 0 }));
      expectSame(`cycles of region ${r} as written`, [this.identityCycles[r], this.identityCyclesOne[r]], [id.all, id.one]);
    }
    const now = this.aloneCycles(cycleSeq);
    return {
      peak_vgpr: this.out3[0]!, peak_agpr: this.out3[1]!, peak_sgpr: this.out3[2]!, waits, nops,
      cyclesDelta: now.all - this.identityCycles[r]!, cyclesDeltaOne: now.one - this.identityCyclesOne[r]!, cycleSeq,
    };
  }

  /**
   * s_nop of a region sequence, by segments of NOP_SEGMENT positions: each segment is padded by
   * the hazard engine after the `nopWindow` instructions before it, and cached on those
   * instructions (a hash finds the entry, the instructions themselves confirm it), so a move
   * re-pads only the segments it touches. (Padding decided in an earlier segment is not counted
   * as distance in the next one: at worst an overestimate.)
   */
  private regionNops(r: number, seq: Int32Array | ArrayLike<number>): number {
    const k = this.k;
    const rg = k.regions[r]!;
    const W = this.nopWindow;
    let cache = this.nopCache[r];
    if (!cache) { cache = new Map(); this.nopCache[r] = cache; }
    if (cache.size > 50000) cache.clear();
    const m = seq.length;
    const pre: number[] = [];
    for (let i = Math.max(0, rg.first - W); i < rg.first; i++) pre.push(i);
    let total = 0;
    for (let a = 0; a < m; a += NOP_SEGMENT) {
      const b = Math.min(m, a + NOP_SEGMENT);
      const last = b === m;
      const from = Math.max(0, a - W);
      let h1 = 0x811c9dc5 ^ a;
      let h2 = 0x9e3779b9 ^ (last ? 1 : 0);
      for (let p = from; p < b; p++) {
        const x = seq[p]!;
        h1 = Math.imul(h1 ^ x, 0x01000193);
        h2 = Math.imul(h2 + x, 0x85ebca6b) ^ (h2 >>> 13);
      }
      const key = (h1 >>> 0) * 2097152 + ((h2 >>> 0) & 0x1fffff);
      const hit = cache.get(key);
      const pad = () => {
        const before: number[] = a - W < 0 ? pre.slice(Math.max(0, pre.length - (W - a))) : [];
        for (let p = from; p < a; p++) before.push(seq[p]!);
        const after: number[] = [];
        if (last) for (let i = rg.last + 1; i < Math.min(k.n, rg.last + 1 + W); i++) after.push(i);
        return this.nopModel!.nops(before, Array.prototype.slice.call(seq, a, b) as number[], after);
      };
      if (hit !== undefined && sameSegment(hit, a, last, seq, from, b)) {
        if (this.checkFast) expectSame(`s_nop of segment ${a} of region ${r}`, hit.nops, pad());
        total += hit.nops;
        continue;
      }
      const n = pad();
      cache.set(key, { at: a, last, window: Int32Array.from(Array.prototype.slice.call(seq, from, b) as number[]), nops: n });
      total += n;
    }
    return total;
  }

  private identityModelWaits(r: number): number {
    let v = this.idWaits[r];
    if (v === undefined || v < 0) {
      v = this.modelWaits(r);
      this.idWaits[r] = v;
    } else if (this.checkFast) {
      expectSame(`model waits of region ${r} as written`, v, this.modelWaits(r));
    }
    return v;
  }

  /** The waits the wait model gives region r in its original order, from its entry state. */
  private modelWaits(r: number): number {
    const st = this.scratchWait;
    st.copy(this.waitEntry[r]!);
    return sequenceWaits(this.flatEffects, st, this.k.regions[r]!.nodes, this.max, this.need);
  }

  /**
   * Cycles per iteration of loop l in steady state under the state's schedule, all waves: the
   * body as written with each changed region in its new order and the wait model's waits
   * (cached on the versions of the loop's regions).
   */
  loopIteration(s: ScheduleState, l: number): WaveCycles {
    const regions = this.loopRegions[l]!;
    let changed = false;
    let key = '';
    for (let x = 0; x < regions.length; x++) {
      const r = regions[x]!;
      const v = s.version[r]!;
      key += `${v},`;
      if (v !== 0 && this.region(s, r).cycleSeq) changed = true;
    }
    if (!changed) return { all: this.loopOrig[l]!, one: this.loopOrigOne[l]! };
    const cache = this.loopCache[l]!;
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (this.checkFast) expectSame(`cycles per iteration of loop ${l} at versions ${key}`, hit, this.loopBody(s, l));
      return hit;
    }
    const per = this.loopBody(s, l);
    if (cache.size >= LOOP_CACHE_MAX) cache.clear();
    cache.set(key, per);
    return per;
  }

  /** Cycles per iteration of loop l's body as the state will write it (see loopIteration). */
  private loopBody(s: ScheduleState, l: number): WaveCycles {
    const k = this.k;
    const loop = this.loops[l]!;
    const body: number[] = [];
    for (let i = loop.start; i < loop.end; i++) {
      const r = k.regionOf[i]!;
      const e = r >= 0 ? this.region(s, r) : undefined;
      if (e?.cycleSeq) {
        for (let q = 0; q < e.cycleSeq.length; q++) body.push(e.cycleSeq[q]!);
        i = k.regions[r]!.last;
        continue;
      }
      body.push(i);
    }
    return steadyState(this.engine, body, this.waves);
  }

  /** Metrics of the whole kernel under the state's schedule. */
  evaluate(s: ScheduleState): Metrics {
    const k = this.k;
    let pv = k.fixedPeak.vgpr; let pa = k.fixedPeak.agpr; let ps = k.fixedPeak.sgpr;
    let waits = k.fixedWaits; let nops = k.fixedNops; let cycles = this.baseCycles; let cyclesOne = this.baseCyclesOne;
    for (let r = 0; r < k.regions.length; r++) {
      const e = this.region(s, r);
      if (e.peak_vgpr > pv) pv = e.peak_vgpr;
      if (e.peak_agpr > pa) pa = e.peak_agpr;
      if (e.peak_sgpr > ps) ps = e.peak_sgpr;
      waits += e.waits;
      nops += e.nops;
      cycles += e.cyclesDelta;
      cyclesOne += e.cyclesDeltaOne;
    }
    for (let l = 0; l < this.loops.length; l++) {
      const w = this.loops[l]!.weight;
      if (w === 0) continue;
      const it = this.loopIteration(s, l);
      cycles += w * (it.all - this.loopOrig[l]!);
      cyclesOne += w * (it.one - this.loopOrigOne[l]!);
    }
    const total = k.fixedInstructions + (waits - k.fixedWaits) + (nops - k.fixedNops);
    return {
      peak_vgpr: pv, peak_agpr: pa, peak_sgpr: ps, s_waitcnt: waits, s_nop: nops, total_instructions: total,
      occupancy: occupancyOf(this.k.ctx, pv, pa, ps, this.ldsBytes), est_cycles: Math.round(cycles), wave_cycles: Math.round(cyclesOne),
    };
  }
}

const occCache = new WeakMap<object, Map<string, number>>();

/** Waves per SIMD for peak live register counts (cached). */
export function occupancyOf(ctx: KernelContext, vgpr: number, agpr: number, sgpr: number, ldsBytes: number): number {
  let m = occCache.get(ctx.target);
  if (!m) { m = new Map(); occCache.set(ctx.target, m); }
  const key = `${vgpr},${agpr},${sgpr},${ldsBytes}`;
  let w = m.get(key);
  if (w === undefined) {
    const agprs = ctx.target.registers.maxAgprs.value === 0 ? 0 : agpr;
    w = computeOccupancy(ctx.target, { vgprs: vgpr, agprs, sgprs: sgpr, ldsBytes }).wavesPerSimd;
    m.set(key, w);
  }
  return w;
}

/* ---------------------------------------------------------------------------------------------- */
/* Exact metrics of a program                                                                      */
/* ---------------------------------------------------------------------------------------------- */

export interface MetricOptions {
  /** Trip count of loops whose count the code does not give (default DEFAULT_TRIP). */
  trip?: number;
}

/** Metrics of kernel `name` of a loaded program (the program as written, waits and nops included). */
export function programMetrics(loaded: Loaded, name: string, opts: MetricOptions = {}): Metrics {
  const ctx = kernelContexts(loaded).find((c) => c.kernel.name === name);
  if (!ctx) throw new ConductorError(`no kernel named '${name}' in ${loaded.program.file}`);
  return contextMetrics(ctx, opts);
}

export function contextMetrics(ctx: KernelContext, opts: MetricOptions = {}): Metrics {
  const { resources } = kernelResources(ctx);
  let waits = 0;
  let nops = 0;
  for (const r of ctx.insns) {
    if (r.insn.base === 's_waitcnt') waits++;
    else if (r.insn.base === 's_nop') nops++;
  }
  const occ = resources.occupancy.descriptor ?? resources.occupancy.registersUsed;
  const kt = kernelTime(ctx, { trip: opts.trip, waves: Math.max(1, occ.wavesPerSimd) });
  const lds = ctx.kernel.descriptor?.values['group_segment_fixed_size'] ?? 0;
  const pv = resources.peak.vgpr.value;
  const pa = resources.peak.agpr.value;
  const ps = resources.peak.sgpr.value;
  return {
    peak_vgpr: pv, peak_agpr: pa, peak_sgpr: ps, s_waitcnt: waits, s_nop: nops, total_instructions: ctx.insns.length,
    occupancy: occupancyOf(ctx, pv, pa, ps, lds), est_cycles: Math.round(kt.cycles), wave_cycles: Math.round(kt.cyclesOne),
  };
}
