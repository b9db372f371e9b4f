/**
 * One strategy run as a self-contained task (what a worker thread executes, and what the main
 * thread executes itself with --jobs 1): load the text, prepare the kernel, replay the starting
 * moves, run the strategy on the fast evaluator, and return the best state as a move list, and
 * that state brought back toward the input's order where that loses nothing (preferOriginal:
 * what the caller does to every candidate before emitting it, done here in parallel).
 */
import type { MessagePort } from 'node:worker_threads';
import { loadText, type Launch } from '../../load.js';
import { pickKernel, type ScheduleKernel } from '../kernel.js';
import { checkFastFromEnv, Evaluator, FastPathMismatch, type MetricName, type Metrics } from '../metrics.js';
import { movesFromState, replayMoves } from '../replay.js';
import type { Disambiguation } from '../deps.js';
import type { KernelTime } from '../../cycles/kernel-time.js';
import { giveCycleTables, type CycleTables } from '../../cycles/estimate.js';
import type { CommandFailure, ScheduleState } from '../state.js';
import { preferOriginal, runStrategy, type StrategyName } from './search.js';
import { isMainThread, workerData } from 'node:worker_threads';
import { memMark } from '../../memtrace.js';

export interface StrategyTask {
  text: string;
  file: string;
  arch?: string;
  /** The launch (Loaded.launch: the command's --lds / --workgroup-size, which this thread may not have). */
  launch?: Launch;
  kernel: string;
  disambiguate: Disambiguation;
  strategy: StrategyName;
  /** Moves from the input to the starting state. */
  startMoves: string[];
  objective: MetricName[];
  /** Occupancy no state may fall below (the input's). */
  minOccupancy: number;
  /** Trip count of loops the code does not give a count for. */
  trip?: number;
  /**
   * The kernel's fence waits (waitcnt keptFenceWaits), when the launching thread's check of
   * the same text made the analysis they come from: preparing the kernel does not make it again.
   */
  fences?: number[];
  /**
   * The kernel's time as written (the Evaluator's kernelTime option), as the launching thread
   * computed it for the same text: the evaluator does not simulate the kernel again.
   */
  kernelTime?: KernelTime;
  /** The cycle model's tables of the same text (cycles/estimate.ts cycleTablesFor), as the launching thread built them. */
  cycleTables?: CycleTables;
  budget: number;
  seconds: number;
  seed: number;
  /** Label of the run in progress reports (e.g. 'anneal#2'). */
  label: string;
  /** Progress messages ({label, evaluations}) go here when given. */
  port?: MessagePort;
  /**
   * The last task of its launch on this thread while the pool is kept for the next launch: the
   * worker lets its prepared kernel go when the task ends (the next launch searches another text).
   */
  release?: boolean;
}

export interface StrategyOutcome {
  label: string;
  strategy: StrategyName;
  seed: number;
  moves: string[];
  /** Fast estimates of the start and of the best state. */
  start: Metrics;
  metrics: Metrics;
  evaluations: number;
  /** Seconds of the strategy run (the search; preferOriginal after it not counted). */
  seconds: number;
  detail: string[];
  /**
   * The best state brought back toward the input's order (preferOriginal with the task's
   * objective and occupancy floor), as moves from the input, and its fast estimate (runTask
   * always gives it; preferredState brings `moves` toward that order itself when it is absent).
   * `cut`: its instruction-by-instruction pass ran out of time (preferTime) before it was through.
   */
  preferred?: { moves: string[]; metrics: Metrics; cut?: true };
}

/**
 * The kernel this thread prepared (one at a time), by its options and its text: the text compared
 * as it is (a comparison of two copies of the largest kernel takes about a millisecond where its
 * SHA-256 took about fifty, once per task).
 */
const prepared = new Map<string, { text: string; k: ScheduleKernel; ev: Evaluator }>();

/** What a task's kernel is prepared from: the text and the options that shape the kernel. */
export type PrepareTask = Pick<StrategyTask, 'text' | 'file' | 'arch' | 'launch' | 'kernel' | 'disambiguate' | 'trip' | 'fences' | 'kernelTime' | 'cycleTables'>;

/**
 * What the launching thread's check of the input tells a warm worker (the signal: a shared
 * Int32Array, `[0]` one of these, `[1]` a count, the fence waits from `[2]`): nothing yet; the
 * input has errors (the search runs on its fixed text: stop); the check's fence waits of the
 * kernel are given; prepare it alone.
 */
export const WARM = { pending: 0, cancelled: 1, fences: 2, alone: 3 } as const;

/** A warm worker's signal, with room for the fence waits of a kernel of `instructions` instructions. */
export function warmSignal(instructions: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * (2 + instructions)));
}

/**
 * Tell the warm worker what the check found (`fences` with WARM.fences; they are given only when
 * the signal has room for them, else the worker prepares alone), and wake it.
 */
export function answerWarm(signal: Int32Array, answer: typeof WARM.cancelled | typeof WARM.fences | typeof WARM.alone, fences?: readonly number[]): void {
  let a: number = answer;
  if (answer === WARM.fences) {
    if (!fences || fences.length > signal.length - 2) a = WARM.alone;
    else { signal.set(fences, 2); signal[1] = fences.length; }
  }
  Atomics.store(signal, 0, a);
  Atomics.notify(signal, 0);
}

/**
 * Longest wait of a warm worker, its text loaded, for the check's answer (the launching thread
 * answers once its check is done, which is before any task can come; this only bounds a wait
 * that an answer missed).
 */
const WARM_ANSWER_MS = 60_000;

/**
 * The kernel and evaluator of a task, prepared once per (text, options) and kept for the next
 * task of this thread. With `signal` (a warm worker's early preparation, see WARM): once the
 * text is loaded, the check's answer is awaited; undefined when it cancels, before a step: the
 * search will run on another text; the check's fence waits when it gives them (its waitcnt
 * analysis is not made again here).
 */
export function preparedFor(t: PrepareTask): { k: ScheduleKernel; ev: Evaluator };
export function preparedFor(t: PrepareTask, signal: Int32Array): { k: ScheduleKernel; ev: Evaluator } | undefined;
export function preparedFor(t: PrepareTask, signal?: Int32Array): { k: ScheduleKernel; ev: Evaluator } | undefined {
  const key = `${t.file}\0${t.arch ?? ''}\0${JSON.stringify(t.launch ?? null)}\0${t.kernel}\0${String(t.disambiguate)}\0${t.trip ?? ''}`;
  let p = prepared.get(key);
  if (p && p.text !== t.text) p = undefined;
  if (!p) {
    const cancelled = () => signal !== undefined && Atomics.load(signal, 0) === WARM.cancelled;
    // one kernel per thread: another text's (the input before its fix) goes before this one is made
    prepared.clear();
    if (cancelled()) return undefined;
    memMark('task load');
    const loaded = loadText(t.text, t.file, { arch: t.arch, ...(t.launch ? { launch: t.launch } : {}) });
    memMark('task loaded');
    let fences = t.fences;
    if (signal) {
      Atomics.wait(signal, 0, WARM.pending, WARM_ANSWER_MS);
      memMark('task answered');
      if (cancelled()) return undefined;
      if (Atomics.load(signal, 0) === WARM.fences) fences = Array.from(signal.subarray(2, 2 + signal[1]!));
    }
    const k = pickKernel(loaded, t.kernel, { disambiguate: t.disambiguate, trip: t.trip, ...(fences ? { fenceWaits: new Set(fences) } : {}) });
    memMark('task prepared');
    if (cancelled()) return undefined;
    if (t.cycleTables) giveCycleTables(k.ctx, t.cycleTables, checkFastFromEnv());
    p = { text: t.text, k, ev: new Evaluator(k, t.kernelTime ? { kernelTime: t.kernelTime } : {}) };
    memMark('task evaluator');
    prepared.set(key, p);
  }
  return p;
}

/** Run a task; kernels are prepared once per (text, options) and kept for the next task. */
export function runTask(t: StrategyTask, progress?: (label: string, evaluations: number) => void,
  ready?: { k: ScheduleKernel; ev: Evaluator }): StrategyOutcome {
  const p = ready ?? preparedFor(t);
  memMark('task start ' + t.label);
  const start = replayMoves(p.k, t.startMoves);
  if ('failure' in start) throw new Error(`internal: the starting moves do not replay: ${start.failure.command}: ${start.failure.reason}`);
  const report = (n: number) => {
    t.port?.postMessage({ label: t.label, evaluations: n });
    progress?.(t.label, n);
  };
  const r = runStrategy(t.strategy, p.k, p.ev, start.state, {
    objective: t.objective, minOccupancy: t.minOccupancy, budget: t.budget, seconds: t.seconds, seed: t.seed, progress: report,
  });
  report(r.evaluations);
  memMark('task searched ' + t.label);
  const moves = movesFromState(r.state);
  // brought toward the input's order from the search's own state: its moves reach exactly that
  // order (movesFromState), which the caller validates by replaying the moves it is given; with
  // CONDUCTOR_CHECK_FAST=1 they are replayed here too and must reach it
  if (checkFastFromEnv()) expectReplayed(p.k, t.label, moves, r.state);
  const preferred = preferOriginal(p.k, p.ev, r.state, { objective: t.objective, minOccupancy: t.minOccupancy, seconds: preferTime(t.seconds, r.seconds) });
  memMark('task done ' + t.label);
  return {
    label: t.label, strategy: t.strategy, seed: t.seed, moves, start: r.start, metrics: r.metrics,
    evaluations: r.evaluations, seconds: r.seconds, detail: r.detail,
    preferred: { moves: movesFromState(preferred.state), metrics: preferred.metrics, ...(preferred.cut ? { cut: true as const } : {}) },
  };
}

/** A state's order of every region, as text (for the comparisons of check mode). */
function orderText(s: ScheduleState): string {
  return JSON.stringify(s.order.map((x) => Array.from(x)));
}

/** The moves of a run, replayed on its kernel, reach the run's order (else FastPathMismatch). */
function expectReplayed(k: ScheduleKernel, label: string, moves: readonly string[], state: ScheduleState): void {
  const r = replayMoves(k, moves);
  if ('failure' in r) throw new FastPathMismatch(`fast path check: the moves of ${label} do not replay: ${r.failure.command}: ${r.failure.reason}`);
  if (orderText(r.state) !== orderText(state)) throw new FastPathMismatch(`fast path check: the moves of ${label} replayed reach another order than its search's`);
}

/**
 * Seconds preferOriginal's instruction-by-instruction pass may take after a search of `used`
 * seconds under a cap of `seconds` per run: what the cap leaves, and at least a tenth of it. On a
 * kernel whose loops are thousands of instructions an evaluation takes milliseconds, and the pass's
 * 1,000 evaluations took longer than the search (16 s after a 10 s search on an 8,814-instruction
 * flash attention kernel).
 */
export function preferTime(seconds: number, used: number): number {
  return Math.max(seconds - used, seconds / 10);
}

/**
 * A candidate outcome `o` brought back toward the input's order: its `preferred` moves replayed
 * on `k`. The run's own moves (`o.moves`) are replayed only when they are needed: when the task
 * found no preferred order (preferOriginal then runs here on them), and with `checkFast` (default
 * CONDUCTOR_CHECK_FAST=1), where preferOriginal runs here on them as well and the two must give
 * the same order and estimate (else FastPathMismatch). The failure of the moves replayed, when
 * they do not replay.
 */
export function preferredState(k: ScheduleKernel, ev: Evaluator, o: StrategyOutcome,
  opts: { objective: readonly MetricName[]; minOccupancy?: number }, checkFast = checkFastFromEnv()): { state: ScheduleState; metrics: Metrics } | { failure: CommandFailure } {
  if (!o.preferred) {
    const own = replayMoves(k, o.moves);
    return 'failure' in own ? { failure: own.failure } : preferOriginal(k, ev, own.state, opts);
  }
  const r = replayMoves(k, o.preferred.moves);
  if ('failure' in r) return { failure: r.failure };
  // a pass cut short by the clock ends where the time ran out: nothing to compare with
  if (checkFast && !o.preferred.cut) {
    const own = replayMoves(k, o.moves);
    if ('failure' in own) throw new FastPathMismatch(`fast path check: the moves of ${o.label} do not replay, those brought toward the input's order do`);
    const here = preferOriginal(k, ev, own.state, opts);
    const a = `${orderText(r.state)} ${JSON.stringify(o.preferred.metrics)}`;
    const b = `${orderText(here.state)} ${JSON.stringify(here.metrics)}`;
    if (a !== b) throw new FastPathMismatch(`fast path check: ${o.label} brought toward the input's order by its task differs from preferOriginal here:\n${a}\n${b}`);
  }
  return { state: r.state, metrics: o.preferred.metrics };
}

/** Worker entry (piscina calls the default export with the task). */
export default function workerTask(t: StrategyTask): StrategyOutcome {
  // the task has a thread: the caller may now run one of its own
  t.port?.postMessage({ label: t.label, evaluations: 0 });
  try {
    return runTask(t);
  } finally {
    t.port?.close();
    if (t.release) prepared.clear();
  }
}

/**
 * A pool started early (run.ts warmPool) names in its worker data the kernel to prepare: each of
 * its workers prepares it once it is up (Piscina has posted its ready message by then), so
 * that the search's first task finds it prepared, unless the caller's check cancels it first
 * (the input has errors: the search runs on its fixed text; see WARM).
 */
const early = isMainThread ? undefined : (workerData as { warm?: PrepareTask; signal: Int32Array } | undefined);
if (early?.warm) {
  const { warm, signal } = early;
  setImmediate(() => {
    try {
      preparedFor(warm, signal);
    } catch {
      // the search's own task reports what is wrong with the text
    }
  });
}
