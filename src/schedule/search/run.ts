/**
 * `conductor schedule`: automatic scheduling of one kernel.
 *
 *   phase 1  list and beam (whichever are asked for), in parallel on worker threads;
 *   phase 2  anneal from the best state of phase 1 (or from the input), two replicas by default
 *            (seeds seed, seed+1), in parallel;
 *   choose   candidates in order of their fast estimate are replayed through validation in the
 *            main thread, emitted (waits and nops re-derived, checked clean) and measured
 *            exactly; the best one that beats the input under the objective wins. When none
 *            does, the input is returned unchanged: never worse than the input.
 *
 * An input with errors (missing s_waitcnt or s_nop) is fixed first, as `check --fix` does, and
 * scheduled from there: the output always checks clean.
 *
 * Results are cached under the SHA-256 of (input text, target, kernel, options, version) in the
 * user's cache directory (src/cache.ts); a hit replays the cached moves through validation.
 * With a budget (evaluations) the result depends only on the seed, not on --jobs.
 */
import * as os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { loadText, type Loaded } from '../../load.js';
import { checkContexts } from '../../check/check.js';
import { kernelContexts } from '../../check/context.js';
import { changeText, fixLoaded, fixSummary } from '../../check/fix.js';
import type { PathsMode } from '../../waitcnt/index.js';
import { ConductorError } from '../../errors.js';
import { cacheKey, ResultCache, sha256 } from '../../cache.js';
import { VERSION } from '../../version.js';
import { pickKernel, type ScheduleKernel } from '../kernel.js';
import { DEFAULT_OBJECTIVE, Evaluator, programMetrics, type MetricName, type Metrics } from '../metrics.js';
import { emitSchedule } from '../emit.js';
import { replayMoves } from '../replay.js';
import type { Disambiguation } from '../deps.js';
import { searchCompare, STRATEGIES, type StrategyName } from './search.js';
import { runTask, type StrategyOutcome, type StrategyTask } from './task.js';

export interface ScheduleRunOptions {
  kernel?: string;
  /** Strategies to run (default all three). */
  strategies?: StrategyName[];
  objective?: readonly MetricName[];
  /** Evaluations per strategy run (default 2000). */
  budget?: number;
  /** Wall-clock seconds per strategy run (default 10). */
  seconds?: number;
  seed?: number;
  /** Worker threads (default: the machine's parallelism, at most the runs of a phase; 1: in this thread). */
  jobs?: number;
  disambiguate?: Disambiguation;
  /** Use the result cache (default true). */
  cache?: boolean;
  /** Cache directory (default: the user's cache directory). */
  cacheDir?: string;
  /** Anneal runs from the best of phase 1, seeds seed, seed+1, ... (default 2; independent of jobs, so results are too). */
  annealReplicas?: number;
  /** Candidates measured exactly, best fast estimate first (default 3). */
  candidates?: number;
  /** Progress: total evaluations planned, and done so far over all runs. */
  progress?: (done: number, total: number, phase: string) => void;
  /** Which missing waits of the input are errors and fixed first (waitcnt PathsMode; default 'every'). */
  paths?: PathsMode;
}

export interface StrategyReport {
  label: string;
  strategy: StrategyName;
  seed: number;
  evaluations: number;
  seconds: number;
  /** Fast estimate of the best state the run found. */
  estimate: Metrics;
  /** Exact metrics when the candidate was emitted. */
  exact?: Metrics;
  moves: number;
  /** Why the candidate was not taken (when it was emitted and lost). */
  rejected?: string;
}

export interface ScheduleRunResult {
  file: string;
  kernel: string;
  arch: string;
  /** The winning run's label, or 'input' when nothing beat the input. */
  strategy: string;
  objective: MetricName[];
  evaluations: number;
  seconds: number;
  evaluationsPerSecond: number;
  before: Metrics;
  after: Metrics;
  /** Moves from the input to the result (replayable with `conductor apply --moves-file`). */
  moves: string[];
  text: string;
  runs: StrategyReport[];
  cached: boolean;
  notes: string[];
}

interface CacheEntry { version: string; strategy: string; moves: string[]; evaluations: number; seconds: number; runs: StrategyReport[] }

export async function scheduleLoaded(loaded: Loaded, text: string, opts: ScheduleRunOptions = {}): Promise<ScheduleRunResult> {
  const t0 = Date.now();
  const objective = [...(opts.objective ?? DEFAULT_OBJECTIVE)];
  const strategies = opts.strategies ?? [...STRATEGIES];
  for (const s of strategies) if (!(STRATEGIES as readonly string[]).includes(s)) throw new ConductorError(`unknown strategy '${s}' (strategies: ${STRATEGIES.join(', ')})`);
  const budget = opts.budget ?? 2000;
  const seconds = opts.seconds ?? 10;
  const seed = opts.seed ?? 1;
  if (!(budget >= 1) || !(seconds > 0)) throw new ConductorError('--budget must be at least 1 and --seconds above 0');
  const disambiguate = opts.disambiguate ?? true;
  const notes: string[] = [];
  // A kernel with errors (missing waits or nops) is scheduled from its fixed version, so the
  // result always checks clean.
  const paths = opts.paths ? { paths: opts.paths } : {};
  const errorsByKernel = new Map(checkContexts(kernelContexts(loaded), paths).map((c) => [c.name, c.findings.filter((f) => f.severity === 'error').length]));
  const inputErrors = [...errorsByKernel.values()].reduce((n, e) => n + e, 0);
  let fixNote: ((kernel: string) => string) | undefined;
  if (inputErrors > 0) {
    const fixed = fixLoaded(loaded, paths);
    text = fixed.text;
    loaded = loadText(text, loaded.program.file, { arch: loaded.target.name });
    const shown = fixed.changes.slice(0, 20).map(changeText);
    if (fixed.changes.length > shown.length) shown.push(`... ${fixed.changes.length - shown.length} more`);
    // counted for the kernel scheduled, whose metrics are reported (other kernels' errors aside)
    fixNote = (kernel) => {
      const own = errorsByKernel.get(kernel) ?? 0;
      const others = inputErrors - own;
      return `kernel ${kernel} has ${own} check error${own === 1 ? '' : 's'}${others > 0 ? ` (the file ${inputErrors})` : ''} (see conductor check); ` +
        `scheduled from the file as check --fix writes it, which 'before' measures: ${fixSummary(fixed)} (${shown.join('; ')})`;
    };
  }
  const k = pickKernel(loaded, opts.kernel, { disambiguate });
  if (fixNote) notes.push(fixNote(k.name));
  const arch = k.target.name;
  const file = loaded.program.file;
  const before = programMetrics(loaded, k.name);
  const jobs = Math.max(1, Math.floor(opts.jobs ?? Math.min(4, os.availableParallelism())));
  const annealReplicas = strategies.includes('anneal') ? Math.max(1, Math.floor(opts.annealReplicas ?? 2)) : 0;
  const key = cacheKey({
    version: VERSION, text: sha256(text), arch, kernel: k.name, strategies, objective, budget, seconds, seed, disambiguate, annealReplicas,
  });
  const cache = opts.cache === false ? undefined : new ResultCache('schedule', opts.cacheDir);

  const finish = (strategy: string, moves: string[], after: Metrics, out: string, runs: StrategyReport[], evaluations: number, searchSeconds: number, cached: boolean): ScheduleRunResult => ({
    file, kernel: k.name, arch, strategy, objective, evaluations, seconds: (Date.now() - t0) / 1000,
    evaluationsPerSecond: searchSeconds > 0 ? Math.round(evaluations / searchSeconds) : 0,
    before, after, moves, text: out, runs, cached, notes,
  });

  // Cache hit: replay through validation, emit, and check it is still not worse.
  const hit = cache?.get<CacheEntry>(key);
  if (hit && hit.version === VERSION) {
    if (hit.moves.length === 0) return finish(hit.strategy, [], before, text, hit.runs, hit.evaluations, hit.seconds, true);
    const r = replayMoves(k, hit.moves);
    if ('state' in r) {
      const e = emitSchedule(r.state);
      if (searchCompare(e.metrics, before, objective) < 0) {
        notes.push(...e.notes);
        return finish(hit.strategy, hit.moves, e.metrics, e.text, hit.runs, hit.evaluations, hit.seconds, true);
      }
    }
    notes.push('the cached result no longer replays or no longer beats the input; searched again');
    cache!.delete(key);
  }

  // Phases.
  const base: Omit<StrategyTask, 'strategy' | 'startMoves' | 'seed' | 'label'> = {
    text, file, arch, kernel: k.name, disambiguate, objective, budget, seconds,
  };
  const phase1 = strategies.filter((s) => s !== 'anneal').map((s): StrategyTask => ({ ...base, strategy: s, startMoves: [], seed, label: s }));
  const totalPlanned = budget * (phase1.length + annealReplicas);
  const done = new Map<string, number>();
  const report = (phase: string) => (label: string, n: number) => {
    done.set(label, n);
    if (opts.progress) { let s = 0; for (const v of done.values()) s += v; opts.progress(Math.min(s, totalPlanned), totalPlanned, phase); }
  };
  let pool: Piscina | undefined;
  let local: { k: ScheduleKernel; ev: Evaluator } | undefined;
  const run = async (tasks: StrategyTask[], phase: string): Promise<StrategyOutcome[]> => {
    if (tasks.length === 0) return [];
    if (jobs <= 1 || tasks.length === 1) {
      local ??= { k, ev: new Evaluator(k) };
      return tasks.map((t) => runTask(t, report(phase), local));
    }
    pool ??= new Piscina({ filename: new URL('./task.js', import.meta.url).href, maxThreads: jobs, minThreads: 0, idleTimeout: 1000 });
    const p = pool;
    return Promise.all(tasks.map((t) => {
      const { port1, port2 } = new MessageChannel();
      const cb = report(phase);
      port1.on('message', (m: { label: string; evaluations: number }) => cb(m.label, m.evaluations));
      return (p.run({ ...t, port: port2 }, { transferList: [port2] }) as Promise<StrategyOutcome>).finally(() => port1.close());
    }));
  };
  let outcomes: StrategyOutcome[];
  try {
    outcomes = await run(phase1, 'list/beam');
    if (annealReplicas > 0) {
      const from = bestOutcome(outcomes, objective);
      const tasks = Array.from({ length: annealReplicas }, (_, x): StrategyTask => ({
        ...base, strategy: 'anneal', startMoves: from?.moves ?? [], seed: seed + x, label: annealReplicas > 1 ? `anneal#${x + 1}` : 'anneal',
      }));
      outcomes = outcomes.concat(await run(tasks, 'anneal'));
    }
  } catch (e) {
    throw e instanceof ConductorError ? e : new ConductorError(`the search failed: ${(e as Error).message}`);
  } finally {
    await pool?.destroy();
  }
  const evaluations = outcomes.reduce((a, o) => a + o.evaluations, 0);
  const searchSeconds = outcomes.reduce((a, o) => a + o.seconds, 0);
  const runs: StrategyReport[] = outcomes.map((o) => ({
    label: o.label, strategy: o.strategy, seed: o.seed, evaluations: o.evaluations, seconds: round3(o.seconds), estimate: o.metrics, moves: o.moves.length,
  }));

  // Choose: exact measurement of the best few distinct candidates.
  const order = outcomes.map((o, x) => ({ o, x })).filter(({ o }) => o.moves.length > 0)
    .sort((a, b) => searchCompare(a.o.metrics, b.o.metrics, objective) || a.x - b.x);
  const tried = new Set<string>();
  let win: { label: string; moves: string[]; metrics: Metrics; text: string; notes: string[] } | undefined;
  for (const { o, x } of order) {
    if (tried.size >= (opts.candidates ?? 3)) break;
    const sig = o.moves.join('\n');
    if (tried.has(sig)) continue;
    tried.add(sig);
    const r = replayMoves(k, o.moves);
    if ('failure' in r) { runs[x]!.rejected = `does not replay: ${r.failure.command}: ${r.failure.reason}`; continue; }
    let e;
    try {
      e = emitSchedule(r.state);
    } catch (err) {
      if (!(err instanceof ConductorError)) throw err;
      runs[x]!.rejected = `could not be emitted: ${err.message}`;
      continue;
    }
    runs[x]!.exact = e.metrics;
    if (searchCompare(e.metrics, before, objective) >= 0) { runs[x]!.rejected = 'not better than the input when measured exactly'; continue; }
    if (win && searchCompare(e.metrics, win.metrics, objective) >= 0) { runs[x]!.rejected = `not better than ${win.label}`; continue; }
    if (win) for (const rr of runs) if (rr.label === win.label) rr.rejected = `not better than ${o.label}`;
    win = { label: o.label, moves: o.moves, metrics: e.metrics, text: e.text, notes: e.notes };
  }
  const result = win
    ? finish(win.label, win.moves, win.metrics, win.text, runs, evaluations, searchSeconds, false)
    : finish('input', [], before, text, runs, evaluations, searchSeconds, false);
  if (win) notes.push(...win.notes);
  else notes.push(fixNote ? 'no schedule beat the input under the objective; the output is the input with its check errors fixed, in its original order'
    : 'no schedule beat the input under the objective; the input is returned unchanged');
  if (cache && !cache.set(key, { version: VERSION, strategy: result.strategy, moves: result.moves, evaluations, seconds: searchSeconds, runs } satisfies CacheEntry)) {
    notes.push(cache.lastError ?? 'the result could not be cached');
  }
  return result;
}

function bestOutcome(outcomes: StrategyOutcome[], objective: readonly MetricName[]): StrategyOutcome | undefined {
  let best: StrategyOutcome | undefined;
  for (const o of outcomes) if (!best || searchCompare(o.metrics, best.metrics, objective) < 0) best = o;
  return best;
}

function round3(x: number): number { return Math.round(x * 1000) / 1000; }
