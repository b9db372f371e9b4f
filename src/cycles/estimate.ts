/**
 * The fast entry points: `estimateCycles` for the scheduler's est_cycles metric and
 * `lowerBound` for "how far from ideal". The per-kernel model and engine are built once per
 * (KernelContext, CycleParams) and cached, so a call costs one pass over the region.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KernelContext } from '../analysis/types.js';
import { FastPathMismatch } from '../errors.js';
import { defaultCycleParams, type CycleParams } from '../targets/latency.js';
import {
  buildCycleModel, modelDifference, NPIPES, PIPE_NAMES, type CycleModel,
} from './model.js';
import {
  CycleEngine, type RunOptions,
} from './engine.js';

interface Cached { params: CycleParams; model: CycleModel; engine: CycleEngine }
const CACHE = new WeakMap<KernelContext, Cached[]>();

/** The models and engines of `ctx` made so far (an empty list kept for it when none). */
function cached(ctx: KernelContext): Cached[] {
  let list = CACHE.get(ctx);
  if (!list) { list = []; CACHE.set(ctx, list); }
  return list;
}

/** The model and engine of a kernel for a parameter set (built on first use, then cached). */
export function cycleEngineFor(ctx: KernelContext, params?: CycleParams): CycleEngine {
  const p = params ?? defaultCycleParams(ctx.target);
  const list = cached(ctx);
  for (const c of list) if (c.params === p) return c.engine;
  const model = buildCycleModel(ctx, p);
  const engine = new CycleEngine(model);
  list.push({ params: p, model, engine });
  if (list.length > 4) list.shift();
  return engine;
}

/**
 * A cycle model's tables without its program, target and parameters: plain numbers and typed
 * arrays, which a thread preparing the same text is given (search/task.ts) instead of building
 * them again (about 90 ms of a worker's preparation of the largest kernel).
 */
export type CycleTables = Omit<CycleModel, 'ctx' | 'params' | 'target'>;

/** A model's tables (CycleTables). */
function tablesOf(m: CycleModel): CycleTables {
  const { ctx: _ctx, params: _params, target: _target, ...tables } = m;
  return tables;
}

/** The tables of `ctx`'s model with the target's cycle parameters (the model built if it is not yet). */
export function cycleTablesFor(ctx: KernelContext): CycleTables {
  return tablesOf(cycleEngineFor(ctx).m);
}

/**
 * Make `tables` (cycleTablesFor of the same text, on another thread) the model of `ctx` with the
 * target's cycle parameters, when it has none yet. With `check` they are first compared with the
 * model built here (FastPathMismatch when they differ).
 */
export function giveCycleTables(ctx: KernelContext, tables: CycleTables, check: boolean): void {
  const p = defaultCycleParams(ctx.target);
  const list = cached(ctx);
  if (list.some((c) => c.params === p)) return;
  const model: CycleModel = { ...tables, ctx, params: p, target: ctx.target };
  if (check) {
    if (!isDeepStrictEqual(tablesOf(buildCycleModel(ctx, p)), tables)) throw new FastPathMismatch(`fast path check: the cycle model given for kernel '${ctx.kernel.name}' is not the one built from its text`);
  }
  list.push({ params: p, model, engine: new CycleEngine(model) });
}

/**
 * Make the model of `ctx` with the target's cycle parameters from the model of `from` (the
 * kernel `ctx` was made from: the scheduled kernel's original, whose model the search built),
 * when `ctx` has none yet: each instruction `row` maps to one of `from`'s takes that one's rows
 * (buildCycleModel's `from`), the others are built. With `check`, the model built from scratch
 * is made too and must not differ (FastPathMismatch). Returns whether the model was made so.
 */
export function seedCycleModel(ctx: KernelContext, from: KernelContext, row: ArrayLike<number>, check: boolean): boolean {
  const p = defaultCycleParams(ctx.target);
  const list = cached(ctx);
  if (list.some((c) => c.params === p)) return false;
  const model = buildCycleModel(ctx, p, { from: { model: cycleEngineFor(from).m, row } });
  if (check) {
    const d = modelDifference(model, buildCycleModel(ctx, p));
    if (d !== undefined) throw new FastPathMismatch(`fast path check: the cycle model of kernel '${ctx.kernel.name}' made from its original's differs from the one built from its text: ${d}`);
  }
  list.push({ params: p, model, engine: new CycleEngine(model) });
  return true;
}

export interface EstimateOptions {
  /**
   * Instruction indices (into ctx.insns) in the order to evaluate: a permutation of a region.
   * When absent, the region [start, end) in program order.
   */
  order?: ArrayLike<number>;
  start?: number;
  end?: number;
  /** Waves interleaved on one SIMD (default 1: the single-wave model). */
  waves?: number;
  params?: CycleParams;
  /**
   * Per position of the order: 1 when that branch is taken. Default: unconditional branches
   * are taken, conditional ones are not.
   */
  taken?: ArrayLike<number>;
  /**
   * true (default): cycles until every result of the region has arrived (memory included);
   * false: cycles until the wave may issue the instruction after the region.
   */
  drain?: boolean;
}

const NO_OPTIONS: RunOptions = Object.freeze({});
let identity = new Int32Array(0);
function rangeSeq(start: number, end: number): Int32Array {
  if (identity.length < end) {
    identity = new Int32Array(Math.max(end, identity.length * 2));
    for (let k = 0; k < identity.length; k++) identity[k] = k;
  }
  return identity.subarray(start, end);
}

/**
 * Estimated cycles of a region of one kernel. Single wave by default: in-order issue with the
 * target's issue costs, pipes, result latencies, MFMA dependency waits and waitcnt counters
 * (see model.ts). With `waves` > 1: that many copies of the region interleaved on one SIMD.
 * Evaluates only the instructions given (state before the region: nothing outstanding).
 */
export function estimateCycles(ctx: KernelContext, opts: EstimateOptions = {}): number {
  const engine = cycleEngineFor(ctx, opts.params);
  const seq = opts.order ?? rangeSeq(opts.start ?? 0, opts.end ?? ctx.insns.length);
  const waves = opts.waves ?? 1;
  const run: RunOptions = opts.taken ? { taken: opts.taken } : NO_OPTIONS;
  if (waves <= 1) {
    engine.reset(1);
    const t = engine.runSingle(seq, 0, seq.length, run);
    return opts.drain === false ? t : engine.drained(0);
  }
  return engine.runMulti(seq, waves, run);
}

export interface LowerBound {
  /** max(criticalPath, issue, every pipe x waves, issue port). */
  bound: number;
  /** Latency-only schedule: no pipes, no issue costs (dependencies, waits, in-order memory). */
  criticalPath: number;
  /** Sum of the wave's issue costs (in-order issue of one wave). */
  issue: number;
  /** Cycles each pipe is busy, all waves together. */
  pipes: Record<string, number>;
  /** Instructions x waves - 1 (one issue per cycle per SIMD), for waves > 1. */
  port: number;
  /** What sets the bound: 'latency', 'issue', 'port' or a pipe name. */
  limiter: string;
}

/** Lower bound of a region (same options as estimateCycles); never above the estimate. */
export function lowerBound(ctx: KernelContext, opts: EstimateOptions = {}): LowerBound {
  const engine = cycleEngineFor(ctx, opts.params);
  const seq = opts.order ?? rangeSeq(opts.start ?? 0, opts.end ?? ctx.insns.length);
  return lowerBoundOf(engine, seq, opts.waves ?? 1, opts.taken);
}

export function lowerBoundOf(engine: CycleEngine, seq: ArrayLike<number>, waves: number, taken?: ArrayLike<number>): LowerBound {
  engine.reset(1, false);
  engine.runSingle(seq, 0, seq.length, taken ? { taken } : {});
  const criticalPath = engine.drained(0);
  const sums = engine.resourceSums(seq, 0, seq.length, taken);
  const pipes: Record<string, number> = {};
  let bound = criticalPath;
  let limiter = 'latency';
  if (sums.issue > bound) { bound = sums.issue; limiter = 'issue'; }
  for (let p = 1; p < NPIPES; p++) {
    const v = sums.pipes[p]! * waves;
    pipes[PIPE_NAMES[p]!] = v;
    if (v > bound) { bound = v; limiter = PIPE_NAMES[p]!; }
  }
  const port = waves > 1 ? seq.length * waves - 1 : 0;
  if (port > bound) { bound = port; limiter = 'port'; }
  return { bound, criticalPath, issue: sums.issue, pipes, port, limiter };
}
