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
 *     exact (waits and nops hold no registers). A changed region counts the waits the wait
 *     model (waitcnt/estimate.ts: the waitcnt analysis' effects and rules, from the region's entry
 *     state as the analysis finds it) places in the new order, which in the original order are
 *     the waits the analysis inserts, plus its closing wait, and the s_nop the hazard engine pads
 *     it with (on a window around the region). est_cycles is the original's plus, per changed
 *     region, the change of the region alone between its original order and the new one, and
 *     per loop holding a changed region, the weight times the change of its steady state; the
 *     loop body is simulated as it will be written: the new orders with the waits the wait
 *     model gives them (synthetic waits of the cycle model), the rest as written.
 *     An unchanged region counts what it has.
 *     The work follows the change: evaluate() keeps running totals and visits only the regions
 *     whose version changed (read from the state's journal); a changed region's wait model
 *     resumes from its first changed position (IncrementalWaits), its s_nop segments whose
 *     window did not change keep their count and the others are padded again from the change
 *     (NopWindow). Every such shortcut is compared with the exact computation in check mode.
 *   - `programMetrics(loaded, kernel)`: exact, on a program text (what `apply` reports and
 *     compares after re-deriving waits and nops).
 */
import type { Loaded } from '../load.js';
import { kernelContextNamed } from '../analysis/context.js';
import { kernelLdsBytes, kernelResources, workgroupInput } from '../analysis/resources.js';
import { computeOccupancy } from '../analysis/occupancy.js';
import { checkFastFromEnv, ConductorError, FastPathMismatch } from '../errors.js';
import type { KernelContext } from '../analysis/types.js';
import { UNIT_COUNT } from '../asm/registers.js';
import type { Region, ScheduleKernel } from './kernel.js';
import { analyzeWaitcnt } from '../waitcnt/index.js';
import type { ScheduleState } from './state.js';
import { counterMax, sequenceWaits, flatEffects, scoresOf, scoreIndexes, CounterScores, EVERY_SCORE, IncrementalWaits, ScoreSnapshot, SCORE_SIZE, type CounterMax, type EntryCounts, type FlatEffects, type ScoreSource } from '../waitcnt/estimate.js';
import { cycleEngineFor } from '../cycles/estimate.js';
import type { CycleEngine } from '../cycles/engine.js';
import { syntheticWait, syntheticWaitInto } from '../cycles/model.js';
import { ResumableCycles } from '../cycles/resumable.js';
import { kernelTime, runWaves, steadyState, type KernelLoop, type KernelTime, type WaveCycles } from '../cycles/kernel-time.js';
import type { CycleParams } from '../targets/latency.js';
import { exactSequencePeaks, IncrementalPressure, sequencePeaks } from '../analysis/pressure-incremental.js';
import { closingWait, originalClosings, type RegionClosing } from './closing.js';
import { traitsOf, type KernelTraits } from '../isa/traits.js';
import { NCLASSES } from '../targets/counters.js';
import { windowNopModel, type NopWindow, type PairTable, type WindowNopModel } from '../hazards/window.js';

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
   * Bound the pairwise hazard rules of each region by a table of the wait states each
   * producer/consumer pair needs (default true); the rules run only where it shows a shortfall.
   */
  pairTables?: boolean;
  /**
   * Recompute every cached or incremental result from scratch when it is used and throw when
   * the two differ (default: the CONDUCTOR_CHECK_FAST environment variable is 1). Slow: for
   * tests and for hunting a wrong estimate.
   */
  checkFast?: boolean;
  /** Regions whose incremental wait model is kept at once, the oldest made dropped first (default 256; each holds its sequence's waits and window bounds). */
  waitModels?: number;
  /** Of those, how many keep their dense counter state (37 KB) between runs, the others parked at a few dozen numbers (default DENSE_WAITS). */
  denseWaits?: number;
  /** Regions of at least this many instructions keep a cycle run of their own (default OWN_CYCLES_MIN; see Evaluator.cycles). */
  ownCycles?: number;
  /**
   * The kernel's time as written, `kernelTime(k.ctx, { trip })` with the target's cycle
   * parameters, when another thread computed it for the same text (search/task.ts): not
   * simulated again (compared with a fresh simulation under checkFast). Ignored with cycleParams.
   */
  kernelTime?: KernelTime;
}

export { checkFastFromEnv, FastPathMismatch } from '../errors.js';

function expectSame(what: string, cached: unknown, exact: unknown): void {
  const a = JSON.stringify(cached, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
  const b = JSON.stringify(exact, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v));
  if (a !== b) throw new FastPathMismatch(`fast path check: ${what}: cached ${a}, recomputed ${b}`);
}

/** Positions per s_nop estimation segment (see Evaluator.regionNops). */
const NOP_SEGMENT = 32;

/** What the evaluator's incremental paths did (for the bench and tests): counts since the Evaluator was made. */
export interface EvaluatorStats {
  /** Regions evaluated in a new order (not from a cache). */
  regions: number;
  /** Instructions in those regions. */
  instructions: number;
  /** Positions the wait model stepped through (from each order's first change to the region's end). */
  waitSteps: number;
  /** Positions of the cycle model's sequences simulated (from each sequence's first change to its end). */
  cycleSteps: number;
  /** s_nop segments counted, and how many of them were padded again (the rest kept or found in the cache). */
  segments: number;
  segmentsPadded: number;
  /** Consumers whose hazard rules ran while padding again (the others kept their padding). */
  consumersChecked: number;
  /**
   * Of those, consumers whose pairwise rules the pair table answered (it showed no shortfall):
   * only the rules that are not pairwise ran; for the others every rule ran.
   */
  consumersByTable: number;
  /** Instructions in the windows padded again. */
  windowInstructions: number;
}

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
  /**
   * The region in this order with the waits the wait model gives it (synthetic model entries),
   * for loop bodies (kept for regions inside loops only). Always present, undefined when not
   * kept, so that every RegionEval has one shape (the code that reads them stays monomorphic).
   */
  cycleSeq: Int32Array | undefined;
}

/**
 * Padded s_nop segments of one region, cached on the instructions from the window before each
 * segment to its end: a direct-mapped table in typed arrays (the hash of the window picks the
 * slot, the window itself confirms a hit), so a lookup allocates nothing; an entry is replaced by
 * the next window hashed to its slot. The table starts small and doubles, up to `maxSlots`
 * entries, when a new window would replace an entry while a quarter of the slots are in use:
 * most regions are padded in a few dozen windows over a whole search. A window holds kernel
 * instruction indexes of the region, kept as offsets from `first`, its first instruction, in 16
 * bits (a region of more instructions than that is never cached).
 */
export class SegmentCache {
  at: Int32Array;
  last: Uint8Array;
  len: Int32Array;
  /** s_nop of each entry (-1: empty). */
  nops: Int32Array;
  /** Each slot's window, `width` entries (a window longer than that is never cached). */
  private windows: Uint16Array;
  private slots: number;
  /** Slots that hold an entry. */
  private used = 0;
  private readonly width: number;

  /** @param instructions the kernel instructions from `first` the windows may hold */
  constructor(private readonly maxSlots: number, width: number, private readonly first = 0, instructions = 0, slots = Math.min(maxSlots, SEGMENT_SLOTS_FIRST)) {
    this.width = instructions > 0x10000 ? 0 : width;
    this.slots = slots;
    this.at = new Int32Array(slots);
    this.last = new Uint8Array(slots);
    this.len = new Int32Array(slots);
    this.nops = new Int32Array(slots).fill(-1);
    this.windows = new Uint16Array(slots * this.width);
  }

  /** Slots in the table now. */
  get size(): number { return this.slots; }

  /** The slot of a window (seq[from..to) of the segment at `at`, `last` when it ends the region). */
  slot(at: number, last: boolean, seq: ArrayLike<number>, from: number, to: number): number {
    return this.hash(at, last, seq, from, to, this.first);
  }

  /** The slot of the window seq[from..to) less `first`. */
  private hash(at: number, last: boolean, seq: ArrayLike<number>, from: number, to: number, first: number): number {
    let h = Math.imul(0x811c9dc5 ^ at, 0x01000193) ^ (last ? 0x5bd1e995 : 0);
    for (let p = from; p < to; p++) h = Math.imul(h ^ (seq[p]! - first), 0x01000193);
    h ^= h >>> 15;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    return (h >>> 0) % this.slots;
  }

  /** s_nop of the entry in `slot` when it holds this window, else -1. */
  get(slot: number, at: number, last: boolean, seq: ArrayLike<number>, from: number, to: number): number {
    if (to - from > this.width) return -1;
    const n = this.nops[slot]!;
    if (n < 0 || this.at[slot] !== at || this.last[slot] !== (last ? 1 : 0) || this.len[slot] !== to - from) return -1;
    const w = this.windows;
    const base = slot * this.width - from;
    const first = this.first;
    for (let p = from; p < to; p++) if (w[base + p]! + first !== seq[p]) return -1;
    return n;
  }

  /** Store the window's count (`slot` from slot(): the table may grow first, and the window then hashed again). */
  set(slot: number, at: number, last: boolean, seq: ArrayLike<number>, from: number, to: number, nops: number): void {
    if (to - from > this.width) return;
    if (this.nops[slot]! >= 0 && this.used * 4 >= this.slots && this.slots < this.maxSlots) {
      this.grow();
      slot = this.slot(at, last, seq, from, to);
    }
    if (this.nops[slot]! < 0) this.used++;
    this.put(slot, at, last ? 1 : 0, seq, from, to, this.first, nops);
  }

  /** Store seq[from..to) less `first` in `slot`. */
  private put(slot: number, at: number, last: number, seq: ArrayLike<number>, from: number, to: number, first: number, nops: number): void {
    this.at[slot] = at;
    this.last[slot] = last;
    this.len[slot] = to - from;
    this.nops[slot] = nops;
    const w = this.windows;
    const base = slot * this.width - from;
    for (let p = from; p < to; p++) w[base + p] = seq[p]! - first;
  }

  /** Double the table (at most maxSlots), every entry hashed again into it (of two in one slot, the later stays). */
  private grow(): void {
    const { at, last, len, nops, windows } = this;
    const old = this.slots;
    const width = this.width;
    this.slots = Math.min(this.maxSlots, old * 2);
    this.at = new Int32Array(this.slots);
    this.last = new Uint8Array(this.slots);
    this.len = new Int32Array(this.slots);
    this.nops = new Int32Array(this.slots).fill(-1);
    this.windows = new Uint16Array(this.slots * width);
    this.used = 0;
    for (let x = 0; x < old; x++) {
      if (nops[x]! < 0) continue;
      const from = x * width;
      const to = from + len[x]!;
      const slot = this.hash(at[x]!, last[x] === 1, windows, from, to, 0);
      if (this.nops[slot]! < 0) this.used++;
      this.put(slot, at[x]!, last[x]!, windows, from, to, 0, nops[x]!);
    }
  }
}

/** Entries of a region's SegmentCache at first, and at most. */
const SEGMENT_SLOTS_FIRST = 16;
const SEGMENT_SLOTS = 256;

/** Incremental wait models that keep their dense state (37 KB) between runs; the others are parked. */
const DENSE_WAITS = 8;

/** Loop bodies cached per loop (keyed on the versions of its regions). */
const LOOP_CACHE_MAX = 4096;

/**
 * Regions of at least this many instructions keep a cycle run of their own (Evaluator.cycles):
 * a resumed evaluation simulates a few dozen positions, a fresh one the whole region. Each run
 * keeps its engine's register state (24 KB) and its journal (up to 2 KB per 8 positions).
 */
const OWN_CYCLES_MIN = 128;

export class Evaluator {
  readonly k: ScheduleKernel;
  readonly flatEffects: FlatEffects;
  readonly max: CounterMax;
  /** Per region: the waitcnt analysis' state at its entry (what scoresOf reads of it), and the wait model's (made on first use). */
  private readonly analysisEntry: (EntryCounts | undefined)[];
  private readonly modelEntry: (ScoreSnapshot | undefined)[];
  /** Per region that is a whole single-block loop body: the wait state entering the loop from outside. */
  private readonly loopEntry: (CounterScores | undefined)[];
  /** Per such region: the score indexes its entry's states can hold (scoresWith), made on first use. */
  private readonly loopScores: (Int32Array | undefined)[] = [];
  /** The score indexes the kernel's instructions write (scoreIndexes). */
  private readonly scoreIdx: Int32Array;
  /** Per loop region whose way in is a region in a new order: the score indexes (scoresWith) its states can hold then. */
  private readonly loopPreScores: (Int32Array | undefined)[] = [];
  /** The state entering such a loop, kept. */
  private readonly loopOutside = new CounterScores();
  /** entryState's two states, kept: the loop's entry it returns (read at once), and the state after the body. */
  private readonly loopIn = new CounterScores();
  private readonly loopIter = new CounterScores();
  /** The indexes loopIn and loopIter were last used with (their scores are 0 elsewhere). */
  private loopAt: Int32Array | undefined;
  /** Per such region: the region that ends the code leading into the loop (-1 when none). */
  private readonly loopPre: Int32Array;
  private readonly identity: RegionEval[];
  private readonly identityCycles: Float64Array;
  private readonly identityCyclesOne: Float64Array;
  private readonly engine: CycleEngine;
  /**
   * The cycles of a region's last order, resumed from the change when the region is simulated
   * again: one run kept per region of at least OWN_CYCLES_MIN instructions, and one shared by the
   * smaller regions (the region last simulated among them). A search moves in region after region
   * (the strategies pick them at random, by size): with one run for every region, a region's
   * run was nearly always another region's, and its next evaluation simulated it whole.
   */
  private readonly cycles: ResumableCycles;
  private readonly ownCycles: (ResumableCycles | undefined)[] = [];
  private readonly ownCyclesMin: number;
  /** Waves sharing a SIMD (the kernel's occupancy): est_cycles simulates them together. */
  readonly waves: number;
  /** The kernel's loops (kernel-time.ts) and, per loop, its regions and original cycles per iteration. */
  readonly loops: readonly KernelLoop[];
  private readonly loopRegions: Int32Array[];
  private readonly loopOrig: Float64Array;
  private readonly loopOrigOne: Float64Array;
  private readonly loopCache: Map<string, WaveCycles>[];
  /** Per region: its last evaluation, at the versions slotVersion (the region's) and slotPre (its loop entry's). */
  private readonly slots: (RegionEval | undefined)[];
  private readonly slotVersion: Uint32Array;
  private readonly slotPre: Uint32Array;
  private readonly nopModel?: WindowNopModel;
  private readonly nopWindow: number;
  private readonly nopCache: (SegmentCache | undefined)[] = [];
  /** Per region, per segment: the window the hazard engine pads again from its change. */
  private readonly nopWindows: (NopWindow[] | undefined)[] = [];
  /** Per region: its pair table (null when the region has none: too long, or tables are off). */
  private readonly nopTables: (PairTable | null | undefined)[] = [];
  private readonly pairTables: boolean;
  private nopContent = new Int32Array(256);
  /** Per region: the sequence regionNops last counted, and the s_nop of each of its segments. */
  private readonly nopLast: (Int32Array | undefined)[] = [];
  private readonly nopSegs: (Int32Array | undefined)[] = [];
  /** Per region: what closing it needs (closing.ts), and the kernel's traits it reads. */
  private readonly closings: RegionClosing[];
  private readonly traits: KernelTraits;
  private readonly closingOut = new Int32Array(3);
  private readonly closingPending = new Int32Array(NCLASSES);
  /** Per region: its pressure kept up to date with the last order scanned (created on first use). */
  private readonly pressures: (IncrementalPressure | undefined)[] = [];
  private readonly out3 = new Int32Array(3);
  private readonly need = new Int32Array(3);
  private readonly scratchWait = new CounterScores();
  private readonly seqs: Int32Array[];
  /** Per region: the wait model kept up to date with the last order it ran (created on first use). */
  private readonly waitRuns: (IncrementalWaits | undefined)[];
  private readonly waitRunOrder: number[] = [];
  /** The wait models that keep a dense state, the one used last first (waitRun). */
  private readonly denseRuns: IncrementalWaits[] = [];
  private readonly denseKept: number;
  private readonly waitRunsKept: number;
  private cycleScratch = new Int32Array(256);
  /**
   * Running totals (evaluate): the region evaluations counted, at which versions, and their
   * sums, so that an evaluation visits only the regions whose version changed since the last.
   */
  private readonly counted: RegionEval[];
  private readonly countedVersion: Uint32Array;
  /** The version of region loopPre[r] when region r was counted (a loop body's entry depends on it). */
  private readonly countedPre: Uint32Array;
  /** Per region, the loop-body regions whose entry it is (loopPre of theirs). */
  private readonly loopAfter: number[][];
  private sumWaits = 0;
  private sumNops = 0;
  /** Histograms of the counted regions' peaks (vgpr, agpr, sgpr) and their maxima. */
  private readonly peakHist: Int32Array[];
  private readonly peakMax = new Int32Array(3);
  /** Regions whose counted cycle change is not zero, in index order (the sum adds them in that order, as a full pass would). */
  private readonly cycleRegions = new Set<number>();
  private cycleOrder: number[] = [];
  /** Per region, the loops that hold it; per loop, its last cycles per iteration and whether a region of it changed since. */
  private readonly regionLoops: number[][];
  private readonly loopLast: (WaveCycles | undefined)[];
  /** The peaks (vgpr, agpr, sgpr) evaluate() last computed an occupancy for (-1: none yet), and that occupancy. */
  private readonly occPeaks = new Int32Array(3).fill(-1);
  private occLast = 0;
  /** The state evaluated last and how much of its journal was read. */
  private lastState?: ScheduleState;
  private lastEpoch = 0;
  private lastJournal = 0;
  /** est_cycles of the original program as written (kernel-time.ts), and of one wave alone. */
  readonly baseCycles: number;
  readonly baseCyclesOne: number;
  readonly ldsBytes: number;
  /** Every cached result is checked against a fresh computation (EvaluatorOptions.checkFast). */
  readonly checkFast: boolean;
  readonly stats: EvaluatorStats = { regions: 0, instructions: 0, waitSteps: 0, cycleSteps: 0, segments: 0, segmentsPadded: 0, consumersChecked: 0, consumersByTable: 0, windowInstructions: 0 };

  constructor(k: ScheduleKernel, opts: EvaluatorOptions = {}) {
    this.k = k;
    this.checkFast = opts.checkFast ?? checkFastFromEnv();
    this.waitRunsKept = Math.max(1, opts.waitModels ?? 256);
    this.denseKept = Math.max(1, opts.denseWaits ?? DENSE_WAITS);
    this.max = counterMax(k.target);
    const cfg = k.ctx.cfg;
    this.flatEffects = flatEffects(k.ctx);
    this.scoreIdx = scoreIndexes(this.flatEffects);
    this.ldsBytes = kernelLdsBytes(k.ctx);
    const firsts = k.regions.map((r) => r.first);
    const loopOf = k.regions.map((r) => selfLoopBlock(k, r.id));
    const outside = loopOf.flatMap((b) => (b < 0 ? [] : cfg.blocks[b]!.preds.filter((p) => p !== b).map((p) => cfg.blocks[p]!.end - 1)));
    // each region's entry as the waitcnt analysis finds it (its path classes joined): the state
    // emission's analysis starts the region from when the region is the one changed; and the
    // state before the last instruction of each block leading into a single-block loop
    const entries = analyzeWaitcnt(k.ctx, { statesAt: new Set([...firsts, ...outside]) }).states!;
    // what the wait model's entry is made from (scoresOf), without the state's per-unit masks
    this.analysisEntry = k.regions.map((r) => {
      const st = entries.get(r.first);
      return st && { issued: st.issued, pend: st.pend, wild: st.wild, ent: st.ent };
    });
    this.modelEntry = new Array(k.regions.length);
    // the region that ends the one block leading into such a loop (its last instruction may be a branch)
    this.loopPre = Int32Array.from(loopOf, (b) => {
      if (b < 0) return -1;
      const preds = cfg.blocks[b]!.preds.filter((p) => p !== b);
      if (preds.length !== 1) return -1;
      const pb = cfg.blocks[preds[0]!]!;
      const last = k.regionOf[pb.end - 1]!;
      const before = pb.end >= 2 ? k.regionOf[pb.end - 2]! : -1;
      const r2 = last >= 0 ? last : k.ctx.cfg.control[pb.end - 1] !== 'none' ? before : -1;
      return r2 >= 0 && k.regions[r2]!.last >= pb.end - 2 ? r2 : -1;
    });
    this.loopEntry = loopOf.map((b) => {
      if (b < 0) return undefined;
      let st: CounterScores | undefined;
      for (const p of cfg.blocks[b]!.preds) {
        if (p === b) continue;
        // the state after the block's last instruction: the one before it, and that instruction
        const last = cfg.blocks[p]!.end - 1;
        const before = entries.get(last);
        if (!before) return undefined;
        const e = scoresOf(before, this.max);
        sequenceWaits(this.flatEffects, e, [last], this.max, this.need);
        if (!st) st = e; else st.merge(e);
      }
      return st;
    });
    this.traits = traitsOf(k.insns);
    this.closings = originalClosings(k);
    this.engine = cycleEngineFor(k.ctx, opts.cycleParams);
    this.cycles = new ResumableCycles(this.engine.m);
    this.ownCyclesMin = opts.ownCycles ?? OWN_CYCLES_MIN;
    const trip = opts.trip ?? k.options.trip;
    const given = opts.cycleParams === undefined ? opts.kernelTime : undefined;
    const kt = given ?? kernelTime(k.ctx, { trip, params: opts.cycleParams });
    if (given && this.checkFast) expectSame('the kernel time given for the kernel as written', given, kernelTime(k.ctx, { trip }));
    this.baseCycles = kt.cycles;
    this.baseCyclesOne = kt.cyclesOne;
    this.waves = kt.waves;
    this.loops = kt.loops.map((l) => l.loop);
    this.loopOrig = Float64Array.from(kt.loops, (l) => l.perIteration);
    this.loopOrigOne = Float64Array.from(kt.loops, (l) => l.perIterationOne);
    this.loopRegions = this.loops.map((l) => Int32Array.from(k.regions.filter((r) => r.first >= l.start && r.last < l.end).map((r) => r.id)));
    this.loopCache = this.loops.map(() => new Map());
    this.nopWindow = opts.nopWindow ?? 24;
    this.pairTables = opts.pairTables ?? true;
    if (opts.nops !== false) this.nopModel = windowNopModel(k.ctx);
    this.seqs = k.regions.map((r) => new Int32Array(r.nodes.length));
    this.slots = new Array(k.regions.length);
    this.slotVersion = new Uint32Array(k.regions.length);
    this.slotPre = new Uint32Array(k.regions.length);
    this.identityCycles = new Float64Array(k.regions.length).fill(NaN);
    this.identityCyclesOne = new Float64Array(k.regions.length);
    this.identity = k.regions.map((r) => this.identityRegion(r));
    this.waitRuns = new Array(k.regions.length);
    this.counted = this.identity.slice();
    this.countedVersion = new Uint32Array(k.regions.length);
    this.countedPre = new Uint32Array(k.regions.length);
    this.loopAfter = k.regions.map(() => []);
    this.loopPre.forEach((pr, r) => { if (pr >= 0) this.loopAfter[pr]!.push(r); });
    this.peakHist = [0, 1, 2].map(() => new Int32Array(UNIT_COUNT + 1));
    for (const e of this.identity) { this.sumWaits += e.waits; this.sumNops += e.nops; this.countPeaks(e, 1); }
    // every loop a region has an instruction in (its body is simulated with the region's new order)
    this.regionLoops = k.regions.map((rg) => this.loops.flatMap((l, x) => (rg.first < l.end && rg.last >= l.start ? [x] : [])));
    this.loopLast = new Array(this.loops.length);
  }

  /** Add (sign 1) or remove (sign -1) a region evaluation's peaks from the histograms. */
  private countPeaks(e: RegionEval, sign: number): void {
    for (let x = 0; x < 3; x++) {
      const h = this.peakHist[x]!;
      const v = x === 0 ? e.peak_vgpr : x === 1 ? e.peak_agpr : e.peak_sgpr;
      h[v] += sign;
      if (sign > 0 && v > this.peakMax[x]!) this.peakMax[x] = v;
      else if (sign < 0 && v === this.peakMax[x]! && h[v] === 0) {
        let m = v;
        while (m > 0 && h[m] === 0) m--;
        this.peakMax[x] = m;
      }
    }
  }

  /** Metrics of region r in its original order (what it has: its own waits and nops). */
  private identityRegion(r: Region): RegionEval {
    sequencePeaks(this.k, r.nodes, r.liveOut, this.out3);
    if (this.checkFast) expectSame(`peaks of region ${r.id} as written`, Array.from(this.out3), exactSequencePeaks(this.k, r.nodes, r.liveOut));
    return { peak_vgpr: this.out3[0]!, peak_agpr: this.out3[1]!, peak_sgpr: this.out3[2]!, waits: r.strippedWaits, nops: r.strippedNops, cyclesDelta: 0, cyclesDeltaOne: 0, cycleSeq: undefined };
  }

  /**
   * A region sequence (kernel instruction indexes) with the waits the wait model gives it from
   * the region's entry state, as cycle-model entries; `count` gets the number of waits.
   */
  private withWaits(r: number, seq: ArrayLike<number>, count: { waits: number }, s?: ScheduleState): Int32Array {
    const st = this.scratchWait;
    this.entryState(r, seq, s).writeTo(st);
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

  /**
   * The sequence with the waits the incremental wait model found, as cycle-model entries
   * (withWaits' result), in a scratch array that the next call reuses.
   */
  private cycleSequence(run: IncrementalWaits, seq: ArrayLike<number>): Int32Array {
    // at most 4 entries per wait (syntheticWaitInto) before each instruction
    if (this.cycleScratch.length < seq.length * 5) this.cycleScratch = new Int32Array(seq.length * 10);
    const out = this.cycleScratch;
    const m = this.engine.m;
    let q = 0;
    for (let p = 0; p < seq.length; p++) {
      if (run.has[p]) q = syntheticWaitInto(m, run.vm[p]!, run.lgkm[p]!, run.exp[p]!, out, q);
      out[q++] = seq[p]!;
    }
    return out.subarray(0, q);
  }


  /** Cycles of a sequence alone (nothing outstanding before it): one wave, all waves. */
  private aloneCycles(seq: ArrayLike<number>): WaveCycles {
    return runWaves(this.engine, seq, this.waves);
  }

  /** Metrics of region r in the original order. */
  originalRegion(r: number): RegionEval { return this.identity[r]!; }

  /** Whether region r has an instruction in a loop the kernel's time counts per iteration. */
  inLoop(r: number): boolean { return this.regionLoops[r]!.length > 0; }

  /** Is a hazard engine estimating s_nop of changed regions? */
  get estimatesNops(): boolean { return this.nopModel !== undefined; }

  /** Metrics of one region in the state's order (cached on the region's version). */
  region(s: ScheduleState, r: number): RegionEval {
    const v = s.version[r]!;
    const pr = this.loopPre[r]!;
    const pv = pr >= 0 ? s.version[pr]! : 0;
    const changed = s.isChanged(r) || (pr >= 0 && s.isChanged(pr));
    if (v === 0 && pv === 0) {
      if (this.checkFast) expectSame(`region ${r} as written`, this.identity[r], this.identityRegion(this.k.regions[r]!));
      return this.identity[r]!;
    }
    const slot = this.slots[r];
    if (slot && this.slotVersion[r] === v && this.slotPre[r] === pv) {
      if (this.checkFast) expectSame(`region ${r} at version ${v}`, slot, changed ? this.computeRegion(s, r) : this.identity[r]);
      return slot;
    }
    const e = changed ? this.computeRegion(s, r) : this.identity[r]!;
    this.slots[r] = e;
    this.slotVersion[r] = v;
    this.slotPre[r] = pv;
    return e;
  }

  /** The resumable cycle run of region r (see `cycles`). */
  private cyclesOf(r: number): ResumableCycles {
    if (this.k.regions[r]!.nodes.length < this.ownCyclesMin) return this.cycles;
    return (this.ownCycles[r] ??= new ResumableCycles(this.engine.m));
  }

  private computeRegion(s: ScheduleState, r: number): RegionEval {
    const k = this.k;
    const rg = k.regions[r]!;
    const seq = this.seqs[r]!;
    const o = s.order[r]!;
    // the positions [d0, d1] where the order differs from the one the last call for r computed
    // (d0 > d1: none), which is the one the region's pressure, wait model and s_nop segments last
    // ran (each runs at every call for r, or starts from scratch: a wait model made anew)
    let d0 = o.length;
    let d1 = -1;
    for (let p = 0; p < o.length; p++) {
      const v = rg.nodes[o[p]!]!;
      if (seq[p] !== v) { seq[p] = v; if (d1 < 0) d0 = p; d1 = p; }
    }
    let press = this.pressures[r];
    if (!press) { press = new IncrementalPressure(k, rg.liveOut, seq.length); this.pressures[r] = press; }
    press.run(seq, this.out3, d0, d1);
    if (this.checkFast) expectSame(`peaks of region ${r}`, Array.from(this.out3), exactSequencePeaks(k, seq, rg.liveOut));
    // Waits: the wait model's waits for the new order from the region's entry as the waitcnt
    // analysis finds it, which are the waits emission's analysis writes into the region when it
    // is the one changed (the same classes and rules; a test compares the two on the original
    // order of every region), and the wait that closes it. Nops: the hazard engine's
    // padding, which is what emission inserts. Cycles: the region alone with the model's
    // waits, against the original order with the model's waits (so the change is the order's).
    let modelWaits: number;
    let cycleSeq: Int32Array;
    if (this.loopEntry[r]) {
      // a whole single-block loop body: its entry depends on its own order (entryState), so the
      // run from the fixed entry does not apply; the exact model
      const count = { waits: 0 };
      cycleSeq = this.withWaits(r, seq, count, s);
      modelWaits = count.waits;
    } else {
      const run = this.waitRun(r, seq.length);
      modelWaits = run.run(seq, this.need, d0, d1);
      this.stats.regions++;
      this.stats.instructions += seq.length;
      this.stats.waitSteps += run.stepped;
      cycleSeq = this.cycleSequence(run, seq);
      if (this.checkFast) {
        const count = { waits: 0 };
        const exact = this.withWaits(r, seq, count);
        const endExact = Array.from(this.scratchWait.pendingPerClass(this.max));
        expectSame(`model waits of region ${r}`, [modelWaits, Array.from(cycleSeq), Array.from(run.endPending)], [count.waits, Array.from(exact), endExact]);
      }
    }
    // emission closes a changed region that leaves more pending than the original did (closing.ts)
    const pending = this.loopEntry[r] ? this.scratchWait.pendingPerClass(this.max, this.closingPending) : this.waitRuns[r]!.endPending;
    const closes = closingWait(this.traits, this.closings[r]!, seq, pending, this.closingOut) ? 1 : 0;
    const waits = modelWaits + closes;
    const nops = this.nopModel ? this.regionNops(r, seq, d0, d1) : rg.strippedNops;
    if (Number.isNaN(this.identityCycles[r]!)) {
      const id = this.aloneCycles(this.withWaits(r, rg.nodes, { waits: 0 }));
      this.identityCycles[r] = id.all;
      this.identityCyclesOne[r] = id.one;
    } else if (this.checkFast) {
      const id = this.aloneCycles(this.withWaits(r, rg.nodes, { waits: 0 }));
      expectSame(`cycles of region ${r} as written`, [this.identityCycles[r], this.identityCyclesOne[r]], [id.all, id.one]);
    }
    const run = this.cyclesOf(r);
    const now = run.run(r, cycleSeq, this.waves);
    this.stats.cycleSteps += run.stepped;
    if (this.checkFast) {
      const exact = this.aloneCycles(cycleSeq);
      expectSame(`cycles of region ${r} resumed from its change`, [now.all, now.one], [exact.all, exact.one]);
    }
    const e: RegionEval = {
      peak_vgpr: this.out3[0]!, peak_agpr: this.out3[1]!, peak_sgpr: this.out3[2]!, waits, nops,
      cyclesDelta: now.all - this.identityCycles[r]!, cyclesDeltaOne: now.one - this.identityCyclesOne[r]!,
      // only a loop's body is simulated again with the region in it
      cycleSeq: this.regionLoops[r]!.length > 0 ? cycleSeq.slice() : undefined,
    };
    return e;
  }

  /**
   * Region r's incremental wait model, made on first use, with a dense state to run in: the
   * `denseWaits` models used last keep theirs, the others are parked (IncrementalWaits.park) and
   * the one used longest ago gives its state up to the model that needs one.
   */
  private waitRun(r: number, m: number): IncrementalWaits {
    let run = this.waitRuns[r];
    const dense = this.denseRuns;
    if (!run) {
      run = new IncrementalWaits(this.flatEffects, this.waitEntry(r), this.max, m, this.spareScores());
      this.waitRuns[r] = run;
      // each holds per-position state: the oldest made go when there are too many
      this.waitRunOrder.push(r);
      if (this.waitRunOrder.length > this.waitRunsKept) {
        const old = this.waitRunOrder.shift()!;
        const x = dense.indexOf(this.waitRuns[old]!);
        if (x >= 0) dense.splice(x, 1);
        this.waitRuns[old] = undefined;
      }
      dense.unshift(run);
    } else if (dense[0] !== run) {
      const x = dense.indexOf(run);
      if (x > 0) dense.splice(x, 1);
      else run.unpark(this.spareScores());
      dense.unshift(run);
    }
    return run;
  }

  /** A dense wait state with every score 0: the one of the model used longest ago when `denseWaits` keep one, else a new one. */
  private spareScores(): CounterScores {
    return this.denseRuns.length >= this.denseKept ? this.denseRuns.pop()!.park() : new CounterScores();
  }

  /**
   * s_nop of a region sequence, by segments of NOP_SEGMENT positions: each segment is padded by
   * the hazard engine after the `nopWindow` instructions before it, and cached on those
   * instructions (a hash finds the entry, the instructions themselves confirm it), so a move
   * re-pads only the segments it touches. (Padding decided in an earlier segment is not counted
   * as distance in the next one: at worst an overestimate.)
   */
  private regionNops(r: number, seq: Int32Array, c0: number, c1: number): number {
    const k = this.k;
    const rg = k.regions[r]!;
    const W = this.nopWindow;
    let cache = this.nopCache[r];
    const m = seq.length;
    // a window is at most the segment and the W positions before it, and never more than the region
    if (!cache) { cache = new SegmentCache(SEGMENT_SLOTS, Math.min(W + NOP_SEGMENT, m), rg.first, rg.last + 1 - rg.first); this.nopCache[r] = cache; }
    const pre = (): number[] => {
      const out: number[] = [];
      for (let i = Math.max(0, rg.first - W); i < rg.first; i++) out.push(i);
      return out;
    };
    // the segments whose window holds no position that changed since the last sequence keep their count
    let prev = this.nopLast[r];
    let segs = this.nopSegs[r];
    let d0 = 0;
    let d1 = m - 1;
    if (prev && segs) {
      // the sequence counted last is the one computeRegion's last call for r had
      if (c0 > c1) { d0 = m; d1 = m - 1; } else { d0 = c0; d1 = c1; }
      if (this.checkFast) {
        let e0 = 0;
        let e1 = m - 1;
        while (e0 < m && prev[e0] === seq[e0]) e0++;
        while (e1 >= e0 && prev[e1] === seq[e1]) e1--;
        expectSame(`positions of region ${r} changed since its s_nop were last counted`, [d0, d1], [e0, e1]);
      }
    } else {
      prev = new Int32Array(m);
      segs = new Int32Array(Math.ceil(m / NOP_SEGMENT));
      this.nopLast[r] = prev;
      this.nopSegs[r] = segs;
    }
    for (let p = d0; p <= d1; p++) prev[p] = seq[p]!;
    let total = 0;
    for (let a = 0; a < m; a += NOP_SEGMENT) {
      const b = Math.min(m, a + NOP_SEGMENT);
      const last = b === m;
      const from = Math.max(0, a - W);
      this.stats.segments++;
      if (from > d1 || b <= d0) {
        const kept = segs[a / NOP_SEGMENT]!;
        if (this.checkFast) expectSame(`s_nop of segment ${a} of region ${r}, unchanged since the last sequence`, kept, this.padSegment(r, a, b, last, seq, pre()));
        total += kept;
        continue;
      }
      const slot = cache.slot(a, last, seq, from, b);
      let n = cache.get(slot, a, last, seq, from, b);
      if (n >= 0) {
        if (this.checkFast) expectSame(`s_nop of segment ${a} of region ${r}`, n, this.padSegment(r, a, b, last, seq, pre()));
      } else {
        n = this.segmentNops(r, a, b, last, seq);
        if (this.checkFast) expectSame(`s_nop of segment ${a} of region ${r} padded again from its change`, n, this.padSegment(r, a, b, last, seq, pre()));
        cache.set(slot, a, last, seq, from, b, n);
      }
      segs[a / NOP_SEGMENT] = n;
      total += n;
    }
    return total;
  }

  /** The wait model's state at the entry of region r as the waitcnt analysis finds it (nothing pending where no path reaches). */
  private waitEntry(r: number): ScoreSnapshot {
    let e = this.modelEntry[r];
    if (!e) {
      const st = this.analysisEntry[r];
      e = new ScoreSnapshot(st ? scoresOf(st, this.max) : new CounterScores());
      this.modelEntry[r] = e;
    }
    return e;
  }

  /**
   * The wait model's state at the entry of region r for the order `seq`: the state the analysis
   * found for the original order, except for a region that is a whole single-block loop body,
   * whose entry also sees its own end through the back edge: there the state is the fixed point
   * of (the state from outside the loop) joined with (the state after `seq`).
   */
  private entryState(r: number, seq: ArrayLike<number>, s?: ScheduleState): ScoreSource {
    let outside = this.loopEntry[r];
    if (!outside) return this.waitEntry(r);
    const pr = this.loopPre[r]!;
    let at: Int32Array;
    if (s && pr >= 0 && s.isChanged(pr)) {
      // the code before the loop ends with a region in a new order: its exit is the loop's way in
      const rg = this.k.regions[pr]!;
      const o = s.order[pr]!;
      const before = this.waitEntry(pr);
      outside = this.loopOutside;
      before.writeTo(outside);
      sequenceWaits(this.flatEffects, outside, Array.from(o, (q) => rg.nodes[q]!), this.max, this.need);
      // nonzero after that region: the scores nonzero at its entry, or written by its instructions
      at = (this.loopPreScores[r] ??= this.scoresWith(before.at));
    } else at = (this.loopScores[r] ??= this.scoresWith(outside.nonzero()));
    // only the scores at `at` can be nonzero in any of these states (the way in's, and those the
    // body's instructions write), so the join reads and compares those alone
    const entry = this.loopIn;
    const st = this.loopIter;
    if (this.loopAt !== at) {
      // the kept states hold scores only at the indexes they were last used with
      entry.score.fill(0);
      st.score.fill(0);
      this.loopAt = at;
    }
    this.loopJoin(outside, seq, entry, st, at);
    if (this.checkFast) {
      const e2 = new CounterScores();
      this.loopJoin(outside, seq, e2, new CounterScores(), EVERY_SCORE);
      expectSame(`loop entry state of region ${r}`, [Array.from(entry.ub), Array.from(entry.lb), Array.from(entry.score)], [Array.from(e2.ub), Array.from(e2.lb), Array.from(e2.score)]);
    }
    return entry;
  }

  /**
   * The loop's entry into `entry`: the way in (`outside`) joined with the state after the body
   * `seq` run from the entry, until it no longer changes (`st`: the state after the body), over
   * the score indexes `at` (every score 0 elsewhere in both states and in `outside`).
   */
  private loopJoin(outside: CounterScores, seq: ArrayLike<number>, entry: CounterScores, st: CounterScores, at: Int32Array): void {
    entry.copyAt(outside, at);
    for (let iter = 0; iter < 8; iter++) {
      st.copyAt(entry, at);
      sequenceWaits(this.flatEffects, st, seq, this.max, this.need);
      st.mergeAt(outside, at);
      if (st.equalsAt(entry, this.max, at)) break;
      entry.copyAt(st, at);
    }
  }

  /** The indexes of the scores a loop entry's states can hold: those the kernel's instructions write, and `more` (the way in's nonzero ones). */
  private scoresWith(more: Int32Array): Int32Array {
    const seen = new Uint8Array(SCORE_SIZE);
    const out: number[] = [];
    for (const list of [this.scoreIdx, more]) for (const i of list) if (seen[i] === 0) { seen[i] = 1; out.push(i); }
    return Int32Array.from(out);
  }

  /** s_nop of a segment padded from scratch by the hazard engine (the reference of regionNops' caches). */
  private padSegment(r: number, a: number, b: number, last: boolean, seq: ArrayLike<number>, pre: number[]): number {
    const k = this.k;
    const rg = k.regions[r]!;
    const W = this.nopWindow;
    const from = Math.max(0, a - W);
    const before: number[] = a - W < 0 ? pre.slice(Math.max(0, pre.length - (W - a))) : [];
    for (let p = from; p < a; p++) before.push(seq[p]!);
    const after: number[] = [];
    if (last) for (let i = rg.last + 1; i < Math.min(k.n, rg.last + 1 + W); i++) after.push(i);
    return this.nopModel!.nops(before, Array.prototype.slice.call(seq, a, b) as number[], after);
  }

  /**
   * s_nop of the segment [a, b) of region r's sequence (regionNops' `pad`: the window before it,
   * the segment, and after the region when it ends it), by the segment's NopWindow, which pads
   * only from where the window changed since it last ran.
   */
  private segmentNops(r: number, a: number, b: number, last: boolean, seq: ArrayLike<number>): number {
    const k = this.k;
    const rg = k.regions[r]!;
    const W = this.nopWindow;
    const preFrom = Math.max(0, rg.first - W);
    // the window before the segment: the kernel's instructions before the region, then the region's own
    const fromPre = a - W < 0 ? Math.min(rg.first - preFrom, W - a) : 0;
    const from = Math.max(0, a - W);
    const afterEnd = last ? Math.min(k.n, rg.last + 1 + W) : rg.last + 1;
    const n = fromPre + (a - from) + (b - a) + (afterEnd - rg.last - 1);
    let wins = this.nopWindows[r];
    if (!wins) { wins = []; this.nopWindows[r] = wins; }
    const slot = a / NOP_SEGMENT;
    let win = wins[slot];
    if (!win || win.n !== n) { win = this.nopModel!.window(n, this.pairTable(r) ?? undefined); wins[slot] = win; }
    const content = this.nopContent.length >= n ? this.nopContent : (this.nopContent = new Int32Array(n * 2));
    let q = 0;
    for (let i = rg.first - fromPre; i < rg.first; i++) content[q++] = i;
    for (let p = from; p < b; p++) content[q++] = seq[p]!;
    for (let i = rg.last + 1; i < afterEnd; i++) content[q++] = i;
    const nops = win.nops(content, fromPre + (a - from));
    this.stats.segmentsPadded++;
    this.stats.consumersChecked += win.checked;
    this.stats.consumersByTable += win.byTable;
    this.stats.windowInstructions += n;
    return nops;
  }

  /** Region r's pair table: the kernel's instructions its s_nop windows hold (the region and nopWindow on each side). */
  pairTable(r: number): PairTable | null {
    let t = this.nopTables[r];
    if (t === undefined) {
      const rg = this.k.regions[r]!;
      const W = this.nopWindow;
      t = (this.pairTables ? this.nopModel?.pairTable(Math.max(0, rg.first - W), Math.min(this.k.n, rg.last + 1 + W)) : undefined) ?? null;
      this.nopTables[r] = t;
    }
    return t;
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
      const pr = this.loopPre[r]!;
      const pv = pr >= 0 ? s.version[pr]! : 0;
      key += `${v}:${pv},`;
      if ((v !== 0 || pv !== 0) && this.region(s, r).cycleSeq) changed = true;
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
    let body = this.bodyScratch;
    let n = 0;
    const room = (more: number) => {
      if (n + more <= body.length) return;
      const b = new Int32Array(Math.max(2 * body.length, n + more));
      b.set(body.subarray(0, n));
      body = this.bodyScratch = b;
    };
    // a region's entry looked up once for its run of instructions
    let lastR = -2;
    let e: ReturnType<Evaluator['region']> | undefined;
    for (let i = loop.start; i < loop.end; i++) {
      const r = k.regionOf[i]!;
      if (r !== lastR) { e = r >= 0 ? this.region(s, r) : undefined; lastR = r; }
      if (e?.cycleSeq) {
        room(e.cycleSeq.length);
        body.set(e.cycleSeq, n);
        n += e.cycleSeq.length;
        i = k.regions[r]!.last;
        lastR = -2;
        continue;
      }
      room(1);
      body[n++] = i;
    }
    return steadyState(this.engine, body.subarray(0, n), this.waves);
  }

  /** loopBody's sequence, kept between calls. */
  private bodyScratch = new Int32Array(256);

  /**
   * Metrics of the whole kernel under the state's schedule. Visits only the regions whose
   * version differs from the last evaluation's and the loops that hold them; totals are kept
   * running (the cycle changes summed in region order, as a full pass sums them).
   */
  evaluate(s: ScheduleState): Metrics {
    const k = this.k;
    const nr = k.regions.length;
    const version = s.version;
    const counted = this.countedVersion;
    if (s === this.lastState && s.journalEpoch === this.lastEpoch) {
      // the same state as last time: only the regions it changed since
      const j = s.journal;
      for (let x = this.lastJournal; x < s.journalLength; x++) {
        const r = j[x]!;
        if (version[r] !== counted[r]) this.recount(s, r);
        // a loop body whose way in is region r: its entry state changed with r
        for (const d of this.loopAfter[r]!) if (version[r] !== this.countedPre[d]) this.recount(s, d);
      }
    } else {
      for (let r = 0; r < nr; r++) {
        const pr = this.loopPre[r]!;
        if (version[r] !== counted[r] || (pr >= 0 && version[pr] !== this.countedPre[r])) this.recount(s, r);
      }
    }
    this.lastState = s;
    this.lastEpoch = s.journalEpoch;
    this.lastJournal = s.journalLength;
    let cycles = this.baseCycles; let cyclesOne = this.baseCyclesOne;
    for (const r of this.cycleOrder) { const e = this.counted[r]!; cycles += e.cyclesDelta; cyclesOne += e.cyclesDeltaOne; }
    for (let l = 0; l < this.loops.length; l++) {
      const w = this.loops[l]!.weight;
      if (w === 0) continue;
      let it = this.loopLast[l];
      if (!it) { it = this.loopIteration(s, l); this.loopLast[l] = it; }
      cycles += w * (it.all - this.loopOrig[l]!);
      cyclesOne += w * (it.one - this.loopOrigOne[l]!);
    }
    const pv = Math.max(k.fixedPeak.vgpr, this.peakMax[0]!);
    const pa = Math.max(k.fixedPeak.agpr, this.peakMax[1]!);
    const ps = Math.max(k.fixedPeak.sgpr, this.peakMax[2]!);
    const waits = k.fixedWaits + this.sumWaits;
    const nops = k.fixedNops + this.sumNops;
    const total = k.fixedInstructions + (waits - k.fixedWaits) + (nops - k.fixedNops);
    // the occupancy of the last peaks asked for (the peaks rarely change from one evaluation to the next)
    if (pv !== this.occPeaks[0] || pa !== this.occPeaks[1] || ps !== this.occPeaks[2]) {
      this.occPeaks[0] = pv; this.occPeaks[1] = pa; this.occPeaks[2] = ps;
      this.occLast = occupancyOf(this.k.ctx, pv, pa, ps, this.ldsBytes);
    }
    const m: Metrics = {
      peak_vgpr: pv, peak_agpr: pa, peak_sgpr: ps, s_waitcnt: waits, s_nop: nops, total_instructions: total,
      occupancy: this.occLast, est_cycles: Math.round(cycles), wave_cycles: Math.round(cyclesOne),
    };
    if (this.checkFast) expectSame('running totals of the kernel', [m, cycles, cyclesOne], this.evaluateAll(s));
    return m;
  }

  /** Count region r at the state's version instead of the one counted. */
  private recount(s: ScheduleState, r: number): void {
    const old = this.counted[r]!;
    const e = this.region(s, r);
    this.sumWaits += e.waits - old.waits;
    this.sumNops += e.nops - old.nops;
    if (e.peak_vgpr !== old.peak_vgpr || e.peak_agpr !== old.peak_agpr || e.peak_sgpr !== old.peak_sgpr) {
      this.countPeaks(e, 1);
      this.countPeaks(old, -1);
    }
    const had = old.cyclesDelta !== 0 || old.cyclesDeltaOne !== 0;
    const has = e.cyclesDelta !== 0 || e.cyclesDeltaOne !== 0;
    if (had !== has) {
      if (has) this.cycleRegions.add(r); else this.cycleRegions.delete(r);
      this.cycleOrder = [...this.cycleRegions].sort((a, b) => a - b);
    }
    this.counted[r] = e;
    this.countedVersion[r] = s.version[r]!;
    const pr = this.loopPre[r]!;
    if (pr >= 0) this.countedPre[r] = s.version[pr]!;
    for (const l of this.regionLoops[r]!) this.loopLast[l] = undefined;
  }

  /** evaluate() by a full pass over every region and loop (the check mode's reference), with the unrounded cycles. */
  private evaluateAll(s: ScheduleState): [Metrics, number, number] {
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
    return [{
      peak_vgpr: pv, peak_agpr: pa, peak_sgpr: ps, s_waitcnt: waits, s_nop: nops, total_instructions: total,
      occupancy: occupancyOf(this.k.ctx, pv, pa, ps, this.ldsBytes), est_cycles: Math.round(cycles), wave_cycles: Math.round(cyclesOne),
    }, cycles, cyclesOne];
  }
}

/**
 * The block of region r when r is the whole body of a single-block loop (the block branches to
 * itself and holds nothing but r, with its stripped waits and nops, and the branch that ends
 * it), else -1.
 */
export function selfLoopBlock(k: ScheduleKernel, r: number): number {
  const rg = k.regions[r]!;
  const b = k.ctx.cfg.blocks[rg.block]!;
  if (!b.succs.includes(b.id)) return -1;
  for (let i = b.start; i < b.end - 1; i++) if (k.regionOf[i] !== r) return -1;
  return b.id;
}

const occCache = new WeakMap<object, Map<string, number>>();

/** Waves per SIMD for peak live register counts, the LDS and the launch's workgroup size (cached). */
export function occupancyOf(ctx: KernelContext, vgpr: number, agpr: number, sgpr: number, ldsBytes: number): number {
  let m = occCache.get(ctx.target);
  if (!m) { m = new Map(); occCache.set(ctx.target, m); }
  const wg = workgroupInput(ctx);
  const key = `${vgpr},${agpr},${sgpr},${ldsBytes},${wg.wavesPerWorkgroup ?? ''}`;
  let w = m.get(key);
  if (w === undefined) {
    const agprs = ctx.target.registers.maxAgprs.value === 0 ? 0 : agpr;
    w = computeOccupancy(ctx.target, { vgprs: vgpr, agprs, sgprs: sgpr, ldsBytes, ...wg }).wavesPerSimd;
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
  const ctx = kernelContextNamed(loaded, name);
  if (!ctx) throw new ConductorError(`no kernel named '${name}' in ${loaded.program.file}`);
  return contextMetrics(ctx, opts);
}

/** The occupancy of contextMetrics (from the peak live registers and the launch's LDS, kernelLdsBytes), without the cycles. */
export function contextOccupancy(ctx: KernelContext): number {
  const { resources } = kernelResources(ctx);
  return occupancyOf(ctx, resources.peak.vgpr.value, resources.peak.agpr.value, resources.peak.sgpr.value, kernelLdsBytes(ctx));
}

export function contextMetrics(ctx: KernelContext, opts: MetricOptions = {}): Metrics {
  const { resources } = kernelResources(ctx);
  let waits = 0;
  let nops = 0;
  const insns = ctx.insns;
  for (let i = 0; i < insns.length; i++) {
    const base = insns[i]!.insn.base;
    if (base === 's_waitcnt') waits++;
    else if (base === 's_nop') nops++;
  }
  const occ = resources.occupancy.descriptor ?? resources.occupancy.registersUsed;
  const kt = kernelTime(ctx, { trip: opts.trip, waves: Math.max(1, occ.wavesPerSimd) });
  return {
    peak_vgpr: resources.peak.vgpr.value, peak_agpr: resources.peak.agpr.value, peak_sgpr: resources.peak.sgpr.value,
    s_waitcnt: waits, s_nop: nops, total_instructions: ctx.insns.length, occupancy: contextOccupancy(ctx), est_cycles: Math.round(kt.cycles), wave_cycles: Math.round(kt.cyclesOne),
  };
}
