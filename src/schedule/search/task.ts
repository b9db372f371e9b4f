/**
 * One strategy run as a self-contained task (what a worker thread executes, and what the main
 * thread executes itself with --jobs 1): load the text, prepare the kernel, replay the starting
 * moves, run the strategy on the fast evaluator, and return the best state as a move list.
 */
import type { MessagePort } from 'node:worker_threads';
import { loadText } from '../../load.js';
import { pickKernel, type ScheduleKernel } from '../kernel.js';
import { Evaluator, type MetricName, type Metrics } from '../metrics.js';
import { movesFromState, replayMoves } from '../replay.js';
import type { Disambiguation } from '../deps.js';
import { runStrategy, type StrategyName } from './search.js';
import { sha256 } from '../../cache.js';

export interface StrategyTask {
  text: string;
  file: string;
  arch?: string;
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
  budget: number;
  seconds: number;
  seed: number;
  /** Label of the run in progress reports (e.g. 'anneal#2'). */
  label: string;
  /** Progress messages ({label, evaluations}) go here when given. */
  port?: MessagePort;
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
  seconds: number;
  detail: string[];
}

const prepared = new Map<string, { k: ScheduleKernel; ev: Evaluator }>();

/** Run a task; kernels are prepared once per (text, options) and kept for the next task. */
export function runTask(t: StrategyTask, progress?: (label: string, evaluations: number) => void,
  ready?: { k: ScheduleKernel; ev: Evaluator }): StrategyOutcome {
  const key = `${t.file}\0${t.arch ?? ''}\0${t.kernel}\0${String(t.disambiguate)}\0${t.trip ?? ''}\0${sha256(t.text)}`;
  let p = ready ?? prepared.get(key);
  if (!p) {
    const loaded = loadText(t.text, t.file, { arch: t.arch });
    const k = pickKernel(loaded, t.kernel, { disambiguate: t.disambiguate, trip: t.trip });
    p = { k, ev: new Evaluator(k) };
    prepared.clear();
    prepared.set(key, p);
  }
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
  return {
    label: t.label, strategy: t.strategy, seed: t.seed, moves: movesFromState(r.state), start: r.start, metrics: r.metrics,
    evaluations: r.evaluations, seconds: r.seconds, detail: r.detail,
  };
}

/** Worker entry (piscina calls the default export with the task). */
export default function workerTask(t: StrategyTask): StrategyOutcome {
  // the task has a thread: the caller may now run one of its own
  t.port?.postMessage({ label: t.label, evaluations: 0 });
  try {
    return runTask(t);
  } finally {
    t.port?.close();
  }
}
