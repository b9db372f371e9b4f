/**
 * `conductor schedule`: automatic scheduling of the kernels of a file, one after the other.
 *
 * Per kernel:
 *   phase 1  list and beam (whichever are asked for), in parallel on worker threads;
 *   phase 2  anneal from the best state of phase 1 (or from the input), two replicas by default
 *            (seeds seed, seed+1), in parallel;
 *   choose   candidates in order of their fast estimate are replayed through validation in the
 *            main thread, brought back toward the input's order where that loses nothing
 *            (`preferOriginal`), emitted (waits and nops re-derived, checked clean) and measured
 *            exactly; the best one that beats the input under the objective wins. When none
 *            does, the input is returned unchanged: never worse than the input, and never a
 *            lower occupancy than the input's (compareMetrics' floor).
 *
 * Only the kernels asked for change (all kernels with code by default). A kernel asked for with
 * errors (missing s_waitcnt or s_nop) is fixed first, as `check --fix` does, and scheduled from
 * there: its output always checks clean. Other kernels are left exactly as written.
 *
 * Results are cached per kernel under the SHA-256 of (input text, target, kernel, options,
 * version) in the user's cache directory (src/cache.ts); a hit replays the cached moves through
 * validation. With a budget (evaluations) the result depends only on the seed, not on --jobs.
 */
import { defaultJobs } from '../../threads.js';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import { loadText, type Loaded } from '../../load.js';
import { checkContexts, rawJumpReason, rawWordsReason, refusal } from '../../check/check.js';
import { kernelContextNamed, kernelContexts } from '../../analysis/context.js';
import { forget } from '../../analysis/memo.js';
import type { KernelContext } from '../../analysis/types.js';
import { changeText, fixLoaded, fixSummary, unfixableErrors } from '../../check/fix.js';
import { keptFenceWaits, type PathsMode } from '../../waitcnt/index.js';
import { ConductorError } from '../../errors.js';
import { cacheKey, ResultCache, sha256 } from '../../cache.js';
import { VERSION } from '../../version.js';
import { pickKernel, prepareKernel, type ScheduleKernel } from '../kernel.js';
import { DEFAULT_OBJECTIVE, Evaluator, contextMetrics, contextOccupancy, type MetricName, type Metrics } from '../metrics.js';
import { emitSchedule, type Emitted } from '../emit.js';
import { movesFromState, replayMoves } from '../replay.js';
import type { Disambiguation } from '../deps.js';
import type { ScheduleState } from '../state.js';
import { searchCompare, STRATEGIES, type StrategyName } from './search.js';
import { answerWarm, preferredState, runTask, WARM, warmSignal, type PrepareTask, type StrategyOutcome, type StrategyTask } from './task.js';
import { ownString } from '../../asm/intern.js';
import { memMark } from '../../memtrace.js';
import { kernelTime, loopChanges, type LoopChange } from '../../cycles/kernel-time.js';
import { cycleTablesFor } from '../../cycles/estimate.js';
import { lineBefore, type Hunk } from '../../check/line-diff.js';
import { lineRef, placedLines, type InputLine } from '../../asm/include.js';
import { pipelineProgram, pipelineTwoStage, planPipelines, type PipelinedLoop, type PipelinedProgram, type PipelinePlan } from '../pipeline/index.js';
import { counted } from '../../text.js';
import { ruleById } from '../../hazards/index.js';

export { defaultJobs };

export interface ScheduleRunOptions {
  /** One kernel (error when the file has no such kernel). */
  kernel?: string;
  /** Several kernels; default: every kernel of the file with instructions. */
  kernels?: string[];
  /** Strategies to run (default all three). */
  strategies?: StrategyName[];
  objective?: readonly MetricName[];
  /** Evaluations per strategy run (default 2000). */
  budget?: number;
  /** Wall-clock seconds per strategy run (default 10). */
  seconds?: number;
  seed?: number;
  /** Threads the search runs on (default defaultJobs(): one less than the machine's parallelism, at most 4; 1: this thread alone). */
  jobs?: number;
  disambiguate?: Disambiguation;
  /** Trip count of loops whose count the code does not give (est_cycles; default DEFAULT_TRIP). */
  trip?: number;
  /** Use the result cache (default true). */
  cache?: boolean;
  /** Cache directory (default: the user's cache directory). */
  cacheDir?: string;
  /** Anneal runs from the best of phase 1, seeds seed, seed+1, ... (default 2; independent of jobs, so results are too). */
  annealReplicas?: number;
  /** Candidates measured exactly, best fast estimate first (default 3). */
  candidates?: number;
  /** Progress: total evaluations planned, and done so far over all runs (of the kernel being scheduled). */
  progress?: (done: number, total: number, phase: string) => void;
  /** Which missing waits of the input are errors and fixed first (waitcnt PathsMode; default 'every'). */
  paths?: PathsMode;
  /**
   * Also search the program with its loops pipelined by one stage (src/schedule/pipeline), a
   * candidate like any other (default true).
   */
  pipeline?: boolean;
  /**
   * An independent check of a pipelined program before it is taken (the command line gives
   * verify's equivalence proof; this layer does not know verify): the reason to refuse it, or
   * undefined. A refused program loses to the best one without pipelining, and the notes say why.
   */
  checkPipelined?: (original: Loaded, scheduled: Loaded) => string | undefined;
  /**
   * Worker threads shared with the caller's other files (SearchWorkers): the caller sets `more`
   * while another file follows and ends them when done. Default: the file's own, ended with it.
   */
  workers?: SearchWorkers;
  /**
   * Where a line of the text scheduled is in the files the user wrote, for the notes that name
   * lines (LineMap.place: a file read with `.include` is scheduled as its flattened text).
   * Default: the line itself.
   */
  place?: (line: number) => InputLine;
}

/** A line of the text scheduled, as itself (ScheduleRunOptions.place's default). */
const asWritten = (line: number): InputLine => ({ line });

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

export type { LoopChange } from '../../cycles/kernel-time.js';

export interface ScheduleRunResult {
  file: string;
  kernel: string;
  /** A kernel (with a descriptor) or a function (called: its occupancy is its callers'). */
  kind: 'kernel' | 'function';
  arch: string;
  /** The winning run's label, or 'input' when nothing beat the input. */
  strategy: string;
  objective: MetricName[];
  evaluations: number;
  seconds: number;
  evaluationsPerSecond: number;
  before: Metrics;
  after: Metrics;
  /** The search's fast estimate of the result (equal to `after` when it is the input). */
  estimate: Metrics;
  /** Waves sharing a SIMD in est_cycles. */
  waves: number;
  loops: LoopChange[];
  /**
   * Moves from the input to the result (replayable with `conductor apply --moves-file`); when
   * `pipelined` is set, from the pipelined program to the result.
   */
  moves: string[];
  /** The loops the result pipelines (software pipelining by one stage), when it does. */
  pipelined?: PipelinedLoop[];
  /** The whole file's text after this kernel (and the ones before it) were scheduled. */
  text: string;
  runs: StrategyReport[];
  cached: boolean;
  /**
   * The kernel had check errors and was scheduled from the file as check --fix writes it, which
   * `before` measures: the output has those fixes even when its order is the input's.
   */
  fixedInput: boolean;
  notes: string[];
}

export interface ScheduleFileResult {
  file: string;
  arch: string;
  /** The file with every scheduled kernel written in its new order. */
  text: string;
  kernels: ScheduleRunResult[];
  /** About the file as a whole (inputs fixed, kernels left alone). */
  notes: string[];
  seconds: number;
}

interface CacheEntry { version: string; strategy: string; moves: string[]; evaluations: number; seconds: number; runs: StrategyReport[]; estimate: Metrics; pipelined?: PipelineVariant }

/**
 * The pipelined programs searched: 'renamed', the loads of P into free registers copied at the
 * top of the loop where the plan found some (so they can pass this iteration's readers), and,
 * when it did, also 'in place', the same rotation with every load writing its own registers (no
 * copies: the next loads wait behind this iteration's readers, but a loop bound by its VALU work
 * pays no v_mov_b32 for them); and 'two stages' where a loop allows it (plan.ts, TwoStage: the
 * loads of iteration i+2 start in iteration i, into registers that alternate between iterations).
 */
type PipelineVariant = 'renamed' | 'in place' | 'two stages';
const PIPELINE_VARIANTS: readonly PipelineVariant[] = ['renamed', 'in place'];

interface Settings {
  objective: MetricName[];
  strategies: StrategyName[];
  budget: number;
  seconds: number;
  seed: number;
  disambiguate: Disambiguation;
  jobs: number;
  annealReplicas: number;
  /** A pool whose worker is preparing the input's kernel (scheduleFile), for the first launch to take. */
  warm?: Warm;
  /** The worker pool of the file's launches (SearchWorkers), the caller's or the file's own. */
  shared: SearchWorkers;
}

/**
 * The worker pool of a run's launches (each kernel's search of its input, then of each pipelined
 * program; the kernels of a file; the files of a command when it passes one to each file), kept
 * from one launch to the next while another follows: its worker is up and its code compiled,
 * where a new pool would start a thread and compile everything again. The last launch ends it
 * before its candidates are emitted (the idle worker's heap would live through that); `end`
 * ends it whatever is left.
 */
export class SearchWorkers {
  pool?: Piscina;
  /** Another file's launches follow (set by the caller that shares these workers). */
  more = false;

  async end(): Promise<void> {
    const p = this.pool;
    this.pool = undefined;
    await p?.destroy();
  }
}

/**
 * A worker pool started before the input was checked (scheduleFile), preparing the input's kernel
 * (`text`; task.ts `warm`) as the check's answer on `signal` tells it (task.ts WARM: cancelled
 * when the input has errors, the search then running on its fixed text; else the check's fence
 * waits of `kernel`); `taken` once a launch took it.
 */
interface Warm { pool: Piscina; taken: boolean; text: string; kernel: string; signal: Int32Array }

/** Longest wait for a warm pool's worker to come up and take its first task (it is usually up long before). */
const WARM_HANDOVER_MS = 2000;

/**
 * How long a pool's idle worker stays up: past the emission of a launch's candidates (seconds on
 * a large kernel), so that the next launch finds it (SearchWorkers).
 */
const KEPT_POOL_IDLE_MS = 60_000;


function settings(opts: ScheduleRunOptions): Settings {
  const objective = [...(opts.objective ?? DEFAULT_OBJECTIVE)];
  const strategies = opts.strategies ?? [...STRATEGIES];
  for (const s of strategies) if (!(STRATEGIES as readonly string[]).includes(s)) throw new ConductorError(`unknown strategy '${s}' (strategies: ${STRATEGIES.join(', ')})`);
  const budget = opts.budget ?? 2000;
  const seconds = opts.seconds ?? 10;
  if (!(budget >= 1) || !(seconds > 0)) throw new ConductorError('--budget must be at least 1 and --seconds above 0');
  if (opts.trip !== undefined && (!Number.isInteger(opts.trip) || opts.trip < 1)) throw new ConductorError(`--trip must be a positive integer, got ${opts.trip}`);
  return {
    objective, strategies, budget, seconds, seed: opts.seed ?? 1, disambiguate: opts.disambiguate ?? true,
    jobs: Math.max(1, Math.floor(opts.jobs ?? defaultJobs())),
    annealReplicas: strategies.includes('anneal') ? Math.max(1, Math.floor(opts.annealReplicas ?? 2)) : 0,
    shared: opts.workers ?? new SearchWorkers(),
  };
}

/**
 * The errors (missing s_waitcnt / s_nop) of the named kernels fixed as `check --fix` fixes them
 * (with the same `paths`); every other kernel stays as written. Returns the input when there is
 * nothing to fix; the note gives the errors of the kernels scheduled and every line changed.
 */
function fixKernels(loaded: Loaded, text: string, names: ReadonlySet<string>, opts: ScheduleRunOptions, checks: KernelChecks):
  { loaded: Loaded; text: string; errors: number; note?: string; hunks?: Hunk[] } {
  const { paths, place = asWritten } = opts;
  const checkOpts = paths ? { paths } : {};
  const errorsByKernel = new Map(checks.map((c) => [c.name, c.findings.filter((f) => f.severity === 'error').length]));
  let own = 0;
  let others = 0;
  for (const [name, n] of errorsByKernel) if (names.has(name)) own += n; else others += n;
  if (own === 0) return { loaded, text, errors: 0 };
  const fixed = fixLoaded(loaded, { ...checkOpts, kernels: names, checks });
  // the input's analyses served the fix; what follows reads the fixed program
  forget(loaded);
  const shown = fixed.changes.slice(0, 20).map((c) => changeText({ ...c, ...place(c.line) }));
  if (fixed.changes.length > shown.length) shown.push(`... ${fixed.changes.length - shown.length} more`);
  const which = names.size === 1 ? `kernel ${[...names][0]}` : `the kernels scheduled`;
  return {
    // the fixed text as fixLoaded loaded and checked it (its contexts and their analyses made once)
    loaded: fixed.loaded ?? loadText(fixed.text, loaded.program.file, { arch: loaded.target.name }), text: fixed.text, errors: own,
    ...(fixed.hunks ? { hunks: fixed.hunks } : {}),
    note: `${which} ha${names.size === 1 ? 's' : 've'} ${counted(own, 'check error')}${others > 0 ? ` (the file ${own + others})` : ''} (see conductor check); ` +
      `scheduled from the file as check --fix writes it, which 'before' measures: ${fixSummary(fixed)} (${shown.join('; ')})`,
  };
}

type KernelChecks = ReturnType<typeof checkContexts>;

/** Why a kernel is left out of a run: the note that says so, and the run's error when none is left. */
interface LeftOut { note: string; error: ConductorError }

/**
 * The kernels of `names` a run schedules when none is named: those `leftOut` keeps, with a note
 * (`kernel K not scheduled: ...`) for each other; when that leaves none, the first one's error,
 * or none at all when `noneLeft` (the file is then written as it is).
 */
function keptKernels(names: string[], leftOut: (name: string) => LeftOut | undefined, notes: string[], noneLeft = false): string[] {
  const why = names.map(leftOut);
  if (why.every((w) => !w)) return names;
  if (why.every((w) => w) && !noneLeft) throw why[0]!.error;
  names.forEach((n, k) => { if (why[k]) notes.push(`kernel ${n} not scheduled: ${why[k]!.note}`); });
  return names.filter((_, k) => !why[k]);
}

/** A kernel with an error that no s_nop or s_waitcnt fixes is left out (its first such error named). */
function unfixable(checks: KernelChecks, place: (line: number) => InputLine = asWritten): (name: string) => LeftOut | undefined {
  const byName = new Map(checks.map((c) => [c.name, unfixableErrors(c.findings)]));
  return (n) => {
    const e = byName.get(n) ?? [];
    if (e.length === 0) return undefined;
    const first = e[0]!;
    const at = place(first.loc.line);
    const message = placedLines(first.message, place);
    return {
      note: `${counted(e.length, 'check error')} that need a change other than s_nop or s_waitcnt, the first at ${lineRef(at)}: ${message} [${first.rule}] (see conductor check)`,
      error: new ConductorError(`cannot schedule: ${message} [${first.rule}] (an error that needs a change other than s_nop or s_waitcnt)`,
        { ...first.loc, line: at.line, ...(at.file !== undefined ? { file: at.file } : {}) }),
    };
  };
}

/** A kernel that jumps by raw offset (rawJumpReason) or holds data words among its instructions (rawWordsReason) is left out. */
function layoutBound(loaded: Loaded): (name: string) => LeftOut | undefined {
  const ctxOf = new Map(kernelContexts(loaded).map((c) => [c.kernel.name, c]));
  return (n) => {
    const c = ctxOf.get(n);
    const r = c && (rawJumpReason(c) ?? rawWordsReason(c));
    return r && { note: r.reason, error: refusal(c, 'schedule', r)! };
  };
}

/** The kernels a run schedules: the ones named, else every one with instructions. */
function chosenKernels(loaded: Loaded, opts: ScheduleRunOptions): string[] {
  const ctxs = kernelContexts(loaded);
  const names = opts.kernels ?? (opts.kernel !== undefined ? [opts.kernel] : undefined);
  if (names) {
    for (const n of names) {
      if (!ctxs.some((c) => c.kernel.name === n)) {
        throw new ConductorError(`no kernel named '${n}' in ${loaded.program.file} (kernels: ${ctxs.map((c) => c.kernel.name).join(', ') || 'none'})`);
      }
    }
    return [...new Set(names)];
  }
  // names that share no memory with the text: they outlive it (the run goes on with the fixed text)
  const withCode = ctxs.filter((c) => c.insns.length > 0).map((c) => ownString(c.kernel.name));
  if (withCode.length === 0) throw new ConductorError(`${loaded.program.file} has no instructions to schedule`);
  return withCode;
}

/**
 * Schedule the kernels of a file (every kernel with code, or the ones named), one after the other.
 * When a kernel asked for has check errors, `loaded` is not kept once the fixed file is loaded:
 * nothing here holds it while the kernels are scheduled.
 */
export function scheduleFile(loaded: Loaded, text: string, opts: ScheduleRunOptions = {}): Promise<ScheduleFileResult> {
  const t0 = Date.now();
  let set: Settings;
  let chosen: string[];
  let task: PrepareTask | undefined;
  try {
    set = settings(opts);
    memMark('scheduleFile start');
    chosen = chosenKernels(loaded, opts);
    task = warmTask(loaded, text, chosen[0]!, opts, set);
  } catch (e) {
    return Promise.reject(e as Error);
  }
  // the file's own workers end with it; the caller's, when the caller is done
  const ended = () => (opts.workers ? undefined : set.shared.end());
  if (!task) return checkAndSchedule(loaded, text, chosen, opts, set, t0).finally(ended);
  // held until the check below takes it: nothing here keeps the input once it is fixed
  let input: { loaded: Loaded; text: string } | undefined = { loaded, text };
  return warmPool(task, set.jobs, kernelContextNamed(loaded, task.kernel)?.insns.length ?? 0).then((warm) => {
    const { loaded: l, text: t } = input!;
    input = undefined;
    return checkAndSchedule(l, t, chosen, opts, { ...set, warm }, t0).finally(() => Promise.all([ended(), warm.taken ? undefined : warm.pool.destroy()]));
  });
}

/**
 * The result cache's key of a kernel's schedule: the text, the target and launch it was
 * loaded with, the kernel and every option the result depends on.
 */
function scheduleCacheKey(text: string, loaded: Loaded, kernel: string, set: Settings, opts: ScheduleRunOptions): string {
  const { objective, strategies, budget, seconds, seed, disambiguate, annealReplicas } = set;
  return cacheKey({
    version: VERSION, text: sha256(text), arch: loaded.target.name, launch: loaded.launch, kernel, strategies, objective, budget, seconds, seed,
    disambiguate, annealReplicas, trip: opts.trip, pipeline: opts.pipeline !== false,
  });
}

/** What a worker loads a text with besides the text: the loaded program's target and launch. */
function loadedAs(loaded: Loaded): Pick<PrepareTask, 'arch' | 'launch'> {
  return { arch: loaded.target.name, ...(loaded.launch !== undefined ? { launch: loaded.launch } : {}) };
}

/**
 * What a worker can prepare while this thread checks the input (task.ts `warm`): the first
 * kernel asked for, from the input's text, when the search will run on worker threads (the
 * search launched on the same text, the input needing no fix, finds it ready; on a fixed text
 * the same worker prepares that text next); else undefined.
 */
function warmTask(loaded: Loaded, text: string, kernel: string, opts: ScheduleRunOptions, set: Settings): PrepareTask | undefined {
  const phase1 = set.strategies.filter((s) => s !== 'anneal').length;
  // workers already up (an earlier file's) serve the search as they are
  if (set.jobs < 2 || (phase1 < 2 && set.annealReplicas < 2) || set.shared.pool) return undefined;
  // a cached result is replayed without a search
  if (opts.cache !== false && new ResultCache('schedule', opts.cacheDir).get(scheduleCacheKey(text, loaded, kernel, set, opts)) !== undefined) return undefined;
  return { text, file: loaded.program.file, ...loadedAs(loaded), kernel, disambiguate: set.disambiguate, trip: opts.trip };
}

/**
 * A worker pool whose first worker starts now and prepares `task` as soon as it is up (task.ts:
 * the pool's worker data names it; without Atomics waits its event loop runs it), while this
 * thread checks and fixes the input. The first launch takes the pool (KernelSchedule.takeWarm).
 */
async function warmPool(task: PrepareTask, jobs: number, instructions: number): Promise<Warm> {
  const signal = warmSignal(instructions);
  const pool = await workerPool(jobs, { minThreads: 1, idleTimeout: KEPT_POOL_IDLE_MS, atomics: 'disabled', workerData: { warm: task, signal } });
  return { pool, taken: false, text: task.text, kernel: task.kernel, signal };
}

type PiscinaOptions = NonNullable<ConstructorParameters<typeof Piscina>[0]>;

/** Worker pools started (for tests: launches share one, SearchWorkers). */
export const poolsStarted = { count: 0 };

/** The worker threads of a search (the task module's default export runs a strategy). */
async function workerPool(jobs: number, more: Partial<PiscinaOptions> = {}): Promise<Piscina> {
  poolsStarted.count++;
  return new (await import('piscina')).Piscina({ filename: new URL('./task.js', import.meta.url).href, maxThreads: jobs - 1, minThreads: 0, idleTimeout: 1000, ...more });
}

/** The input checked, its kernels fixed, then the kernels `chosen` (chosenKernels) scheduled one after the other. */
function checkAndSchedule(loaded: Loaded, text: string, chosen: string[], opts: ScheduleRunOptions, set: Settings, t0: number): Promise<ScheduleFileResult> {
  let prep: FilePrep;
  try {
    const skipped: string[] = [];
    const named = opts.kernels !== undefined || opts.kernel !== undefined;
    const others = kernelContexts(loaded).filter((c) => c.insns.length > 0 && !chosen.includes(c.kernel.name)).map((c) => ownString(c.kernel.name));
    // the check of every kernel, made once: it picks the kernels and serves their fix
    const checks = checkContexts(kernelContexts(loaded), opts.paths ? { paths: opts.paths } : {});
    // A kernel laid out by raw offsets or data words is valid code that no reordering may touch:
    // when it is all the file asks for, the file is written as it is (a schedule that changes
    // nothing, exit 0), unless such a kernel has check errors, which then stay (exit 2)
    // (a kernel named is refused, before any fix of its errors is tried)
    const layout = layoutBound(loaded);
    if (named) for (const n of chosen) { const w = layout(n); if (w) throw w.error; }
    const clean = chosen.every((n) => !checks.some((c) => c.name === n && c.findings.some((f) => f.severity === 'error')));
    const names = named ? chosen : keptKernels(keptKernels(chosen, layout, skipped, clean), unfixable(checks, opts.place), skipped);
    // A kernel with errors is searched on its fixed text: the warm worker need not finish the
    // input's. Else it is given the fence waits the check found (it waits for them once it has
    // loaded the text, instead of making the waitcnt analysis again).
    const w = set.warm;
    if (w) {
      if (checks.some((k) => names.includes(k.name) && k.findings.some((f) => f.severity === 'error'))) answerWarm(w.signal, WARM.cancelled);
      else {
        const c = kernelContextNamed(loaded, w.kernel);
        answerWarm(w.signal, WARM.fences, c && keptFenceWaits(c));
      }
    }
    const fixed = fixKernels(loaded, text, new Set(names), opts, checks);
    memMark('fixed');
    prep = { file: loaded.program.file, arch: loaded.target.name, names, others, ...fixed, skipped, hazardWarnings: hazardWarnings(checks) };
  } catch (e) {
    // a warm worker waiting for the check's answer: the search does not run
    if (set.warm && Atomics.load(set.warm.signal, 0) === WARM.pending) answerWarm(set.warm.signal, WARM.cancelled);
    return Promise.reject(e as Error);
  }
  return scheduleFixed(prep, opts, set, t0);
}

/** A file ready to schedule: the kernels asked for, the others, and the file as fixKernels left it (`loaded`: its text loaded). */
/** `skipped`: a note per kernel not scheduled for an error no s_nop or s_waitcnt fixes. */
/** `hunks`: how `text` (the fixed file) differs from the input, when the fix changed it (FixResult.hunks), to give the input's lines. */
/** `hazardWarnings`: per kernel, the input's hazard warnings by rule (a schedule's output pads them: hazardWarningNote). */
interface FilePrep {
  file: string; arch: string; names: string[]; others: string[]; loaded?: Loaded; text: string; errors: number; note?: string; skipped: string[]; hunks?: Hunk[];
  hazardWarnings: Map<string, Map<string, number>>;
}

/** Each kernel's hazard warnings (hazard rules reported as warnings: LLVM pads them, the hardware documents may not ask for them), by rule. */
function hazardWarnings(checks: KernelChecks): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const c of checks) {
    for (const f of c.findings) {
      if (f.severity !== 'warning' || !ruleById(f.rule)) continue;
      let m = out.get(c.name);
      if (!m) out.set(c.name, m = new Map());
      m.set(f.rule, (m.get(f.rule) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * The note of a scheduled kernel whose input has hazard warnings: a schedule's output satisfies
 * every hazard rule (emission pads warned ones too, or the new order keeps them apart), while
 * 'before' measures the input as written (a new user's trial: s_nop 4 after v_cmpx in MIOpen's
 * loops, with nothing said).
 */
function hazardWarningNote(byRule: Map<string, number> | undefined): string | undefined {
  if (!byRule || byRule.size === 0) return undefined;
  const n = [...byRule.values()].reduce((a, b) => a + b, 0);
  const rules = [...byRule].map(([r, k]) => `${r} x${k}`).join(', ');
  return `the input has ${counted(n, 'hazard warning')} (${rules}): the output satisfies them too (with s_nop where the new order does not keep them apart), ` +
    `while 'before' measures the input as written`;
}

/** The kernels of a file scheduled one after the other from the file as fixKernels left it. */
async function scheduleFixed(f: FilePrep, opts: ScheduleRunOptions, set: Settings, t0: number): Promise<ScheduleFileResult> {
  const { file, arch, names, others, errors } = f;
  const notes: string[] = [...f.skipped, ...(f.note ? [f.note] : [])];
  const kernels: ScheduleRunResult[] = [];
  // the file as the kernels before this one left it, loaded when a next kernel needs it (and
  // held only here, so that it goes once a kernel changes the text)
  let cur: Loaded | undefined = f.loaded;
  f.loaded = undefined;
  let curText = f.text;
  // a kernel is searched in the file as the kernels before it left it (and the fix before that):
  // its report gives the input's lines (LoopChange, PipelinedLoop), through where its label moved
  // and what the fix inserted
  const fixedStart = cur ? kernelStarts(cur) : undefined;
  const hunks = f.hunks;
  f.hunks = undefined;
  for (const [x, name] of names.entries()) {
    cur ??= loadText(curText, file, { arch });
    const from = kernelStarts(cur).get(name);
    const to = fixedStart?.get(name);
    const shift = from !== undefined && to !== undefined ? from - to : 0;
    const inputLine = (line: number) => (hunks ? lineBefore(hunks, line - shift) : line - shift);
    // another kernel's search follows, of this file or (SearchWorkers.more) the next
    const s0 = await scheduleKernel(cur, curText, name, opts, set, errors > 0, x < names.length - 1 || set.shared.more);
    const warned = s0.strategy !== 'input' ? hazardWarningNote(f.hazardWarnings.get(name)) : undefined;
    const s = warned ? { ...s0, notes: [...s0.notes, warned] } : s0;
    const r: ScheduleRunResult = shift === 0 && !hunks ? s : {
      ...s,
      loops: s.loops.map((l) => ({ ...l, line: inputLine(l.line), backEdgeLines: l.backEdgeLines.map(inputLine) })),
      ...(s.pipelined ? { pipelined: s.pipelined.map((p) => ({ ...p, line: inputLine(p.line) })) } : {}),
    };
    kernels.push(r);
    if (r.text !== curText) { curText = r.text; cur = undefined; }
  }
  if (others.length > 0) notes.push(`left as written (not asked for): ${others.join(', ')}`);
  return { file, arch, text: curText, kernels, notes, seconds: (Date.now() - t0) / 1000 };
}

/** The line of each kernel's label in a loaded file. */
function kernelStarts(l: Loaded): Map<string, number> {
  return new Map(l.program.kernels.map((k) => [k.name, k.loc.line]));
}

/**
 * Schedule one kernel (the one named, else the only one; a file with several kernels needs
 * `kernel`, or scheduleFile). The result's text is the whole file.
 */
export async function scheduleLoaded(loaded: Loaded, text: string, opts: ScheduleRunOptions = {}): Promise<ScheduleRunResult> {
  const name = opts.kernel ?? pickKernel(loaded).name;
  const r = await scheduleFile(loaded, text, { ...opts, kernel: name, kernels: [name] });
  const k = r.kernels[0]!;
  return { ...k, notes: [...r.notes.filter((n) => !n.startsWith('left as written')), ...k.notes] };
}

async function scheduleKernel(loaded: Loaded, text: string, name: string, opts: ScheduleRunOptions, set: Settings, fixedInput: boolean,
  more = false): Promise<ScheduleRunResult> {
  return new KernelSchedule(loaded, text, name, opts, set, fixedInput, more).run();
}

/**
 * A candidate for emission: the best state of run `label` (`x`: its index in the runs) replayed and
 * brought toward the program's order, and that state's moves. The run's own outcome is not kept.
 */
interface Candidate { label: string; x: number; simple: { state: ScheduleState; metrics: Metrics }; moves: string[] }

/** A winner keeps its loop changes, not its loaded program, while later candidates are emitted. */
interface Win { label: string; moves: string[]; metrics: Metrics; estimate: Metrics; text: string; notes: string[]; loops: LoopChange[]; pipelined?: PipelinedLoop[] }

/** What the search of one program gives: its winner (if one beats the bar), the runs' reports, and their totals. */
interface Searched { win?: Win; runs: StrategyReport[]; evaluations: number; seconds: number }

/**
 * The search of one program (the input, or a pipelined program) once launched: its tasks, and
 * when strategies run in parallel, the worker threads and the phase-1 tasks they already run.
 */
interface Launch {
  base: Omit<StrategyTask, 'strategy' | 'startMoves' | 'seed' | 'label'>;
  prefix: string;
  phase1: StrategyTask[];
  pool?: Piscina;
  early?: Promise<StrategyOutcome>[];
}

/**
 * The schedule of one kernel, in named steps: `run` answers from the cache (`fromCache`) or
 * searches the input and each pipelined program (`launch`, `searchFrom`: the strategies, then
 * `chooseCandidate` emits the best few and measures them exactly) and keeps the best.
 */
class KernelSchedule {
  private readonly t0 = Date.now();
  private readonly notes: string[] = [];
  private readonly ctx: KernelContext;
  /** The input's metrics, made when first needed (after the workers have their first tasks). */
  private beforeMetrics: Metrics | undefined;
  /** The input's occupancy: no result may have less. */
  private readonly floor: number;
  private waves = 1;
  /** The kernel as the search and emission see it, prepared once when first needed. */
  private kernel: ScheduleKernel | undefined;
  /** The pipelined programs (the loops rotated by one stage), when a loop qualifies. */
  private readonly piped = new Map<PipelineVariant, PipelinedProgram | undefined>();
  private plans: PipelinePlan[] | undefined;
  /**
   * Progress: the evaluations planned are known once the pipelined programs are chosen; until
   * then (0; a worker's first report can come earlier) the runs' counts are only noted.
   */
  private totalPlanned = 0;
  private readonly done = new Map<string, number>();
  /** Whether the pool (Settings.shared) outlives the launch in progress: another launch follows, of this kernel, the next kernel or the next file. */
  private keepPool = false;

  constructor(private readonly loaded: Loaded, private readonly text: string, private readonly name: string,
    private readonly opts: ScheduleRunOptions, private readonly set: Settings, private readonly fixedInput: boolean,
    /** Another kernel is scheduled after this one (of this file or the next). */
    private readonly more = false) {
    this.ctx = this.ctxOf(loaded);
    this.floor = contextOccupancy(this.ctx);
  }

  private get before(): Metrics {
    return (this.beforeMetrics ??= contextMetrics(this.ctx, { trip: this.opts.trip }));
  }

  private ctxOf(l: Loaded): KernelContext {
    return kernelContextNamed(l, this.name)!;
  }

  private prepared(): ScheduleKernel {
    return (this.kernel ??= prepareKernel(this.loaded, this.ctx, { disambiguate: this.set.disambiguate, trip: this.opts.trip }));
  }

  private prepare(l: Loaded): ScheduleKernel {
    return prepareKernel(l, this.ctxOf(l), { disambiguate: this.set.disambiguate, trip: this.opts.trip });
  }

  private pipelinedProgram(variant: PipelineVariant): PipelinedProgram | undefined {
    if (this.piped.has(variant)) return this.piped.get(variant);
    const plans = (this.plans ??= planPipelines(this.prepared()).plans);
    const these = variant === 'renamed' ? plans : variant === 'two stages' ? plans.filter((p) => p.twoStage) : plans.map((p) => ({ ...p, renames: [] }));
    let out: PipelinedProgram | undefined;
    if (these.length > 0) {
      try {
        out = variant === 'two stages' ? pipelineTwoStage(this.prepared(), these) : pipelineProgram(this.prepared(), these);
      } catch (err) {
        if (!(err instanceof ConductorError)) throw err;
        this.notes.push(`the loops could not be pipelined${variant === 'renamed' ? '' : ` ${variant === 'in place' ? 'in place' : 'by two stages'}`}: ${err.message}`);
      }
    }
    this.piped.set(variant, out);
    return out;
  }

  /** Does some loop of the renamed program have a higher lower bound than the same loop in place? */
  private copiesBind(): boolean {
    const renamed = this.pipelinedProgram('renamed');
    const inPlace = this.pipelinedProgram('in place');
    if (!renamed || !inPlace) return inPlace !== undefined;
    const bounds = (pp: PipelinedProgram) => kernelTime(this.ctxOf(pp.loaded), { trip: this.opts.trip, bounds: true }).loops.map((l) => l.bound?.bound ?? 0);
    const a = bounds(renamed);
    const b = bounds(inPlace);
    return a.some((x, i) => x > (b[i] ?? x));
  }

  private cacheKey(): string {
    return scheduleCacheKey(this.text, this.loaded, this.name, this.set, this.opts);
  }

  private finish(strategy: string, moves: string[], after: Metrics, estimate: Metrics, out: string, runs: StrategyReport[], evaluations: number,
    searchSeconds: number, cached: boolean, loops: LoopChange[], pipelined?: PipelinedLoop[]): ScheduleRunResult {
    return {
      file: this.loaded.program.file, kernel: this.name, kind: this.ctx.kernel.kind, arch: this.loaded.target.name, strategy, objective: this.set.objective, evaluations,
      seconds: (Date.now() - this.t0) / 1000,
      evaluationsPerSecond: searchSeconds > 0 ? Math.round(evaluations / searchSeconds) : 0,
      before: this.before, after, estimate, waves: this.waves, loops, moves, text: out, runs, cached, fixedInput: this.fixedInput, notes: this.notes,
      ...(pipelined ? { pipelined } : {}),
    };
  }

  /** A cache hit replayed through validation, emitted, and still better than the input; else undefined (the entry is dropped). */
  private fromCache(hit: CacheEntry, cache: ResultCache, key: string): ScheduleRunResult | undefined {
    const k = this.prepared();
    this.waves = new Evaluator(k).waves;
    if (hit.moves.length === 0 && !hit.pipelined) {
      return this.finish(hit.strategy, [], this.before, this.before, this.text, hit.runs, hit.evaluations, hit.seconds, true, loopChanges(this.ctx, this.ctx, this.opts.trip));
    }
    const pp = hit.pipelined ? this.pipelinedProgram(hit.pipelined) : undefined;
    const kk = pp ? this.prepare(pp.loaded) : k;
    const r = !hit.pipelined || pp ? replayMoves(kk, hit.moves) : undefined;
    if (r && 'state' in r) {
      const e = emitSchedule(r.state);
      if (searchCompare(e.metrics, this.before, this.set.objective, this.floor) < 0) {
        this.notes.push(...e.notes);
        return this.finish(hit.strategy, hit.moves, e.metrics, hit.estimate ?? e.metrics, e.text, hit.runs, hit.evaluations, hit.seconds, true,
          loopChanges(this.ctx, this.ctxOf(e.loaded), this.opts.trip), pp?.loops);
      }
    }
    this.notes.push('the cached result no longer replays or no longer beats the input; searched again');
    cache.delete(key);
    return undefined;
  }

  private report(phase: string): (label: string, n: number) => void {
    return (label, n) => {
      this.done.set(label, n);
      if (this.opts.progress && this.totalPlanned > 0) {
        let s = 0;
        for (const v of this.done.values()) s += v;
        this.opts.progress(Math.min(s, this.totalPlanned), this.totalPlanned, phase);
      }
    };
  }

  private parallel(tasks: readonly StrategyTask[]): boolean { return this.set.jobs > 1 && tasks.length > 1; }

  /**
   * The pool scheduleFile started, for the first launch. When that launch searches another text
   * (the input was fixed) the pool serves it all the same: its worker is up, its code compiled,
   * and it prepares the launch's text once it has done with the input's (task.ts drops the
   * input's kernel first), where a new pool would start a thread and compile everything again.
   */
  private takeWarm(text: string): Piscina | undefined {
    const w = this.set.warm;
    if (!w || w.taken) return undefined;
    w.taken = true;
    // the worker stops preparing the input's kernel at its next step (task.ts)
    if (text !== w.text) answerWarm(w.signal, WARM.cancelled);
    return w.pool;
  }

  /**
   * Hand `tasks` but the first to worker threads (this thread runs the first on the kernel it has
   * prepared; each worker prepares its own copy of the kernel, once for both phases). Resolves
   * once the workers have their tasks: this thread then runs its own without yielding.
   */
  private async submit(l: Launch, tasks: StrategyTask[], phase: string): Promise<Promise<StrategyOutcome>[]> {
    const jobs = this.set.jobs;
    // the worker pool's module only when strategies run in parallel
    const shared = this.set.shared;
    const warm = l.pool === undefined && shared.pool === undefined ? this.takeWarm(l.base.text) : undefined;
    l.pool ??= warm ?? shared.pool ?? await workerPool(jobs, { idleTimeout: KEPT_POOL_IDLE_MS });
    const p = (shared.pool = l.pool);
    const started: Promise<void>[] = [];
    const others = tasks.slice(1).map((t) => {
      const { port1, port2 } = new MessageChannel();
      const cb = this.report(phase);
      let begun: () => void = () => {};
      started.push(new Promise<void>((res) => { begun = res; }));
      port1.on('message', (m: { label: string; evaluations: number }) => { begun(); cb(m.label, m.evaluations); });
      return (p.run({ ...t, port: port2 }, { transferList: [port2] }) as Promise<StrategyOutcome>).finally(() => { begun(); port1.close(); });
    });
    if (warm) {
      // the warm worker runs its task once it has prepared the kernel: this thread waits only
      // until the pool has handed the task over (its worker up), not for the task to start
      const t0 = Date.now();
      while (p.queueSize > 0 && Date.now() - t0 < WARM_HANDOVER_MS) await new Promise<void>((res) => setImmediate(res));
    } else await Promise.race([Promise.all(started.slice(0, jobs - 1)), Promise.allSettled(others)]);
    return others;
  }

  /**
   * Start the search of `srcText`: the worker threads get their phase-1 tasks (which need only
   * the text) before this thread prepares its kernel and evaluator, so the two prepare at once.
   * `ctx`: the kernel in `srcText` as this thread loaded it; the fence waits its check found go
   * with the tasks (keptFenceWaits), so that a worker need not make that analysis again.
   */
  private async launch(srcText: string, prefix: string, ctx: KernelContext): Promise<Launch> {
    const { disambiguate, objective, budget, seconds, strategies, seed } = this.set;
    const fences = keptFenceWaits(ctx);
    // The kernel's time as written and the cycle model it is simulated with: this thread's
    // evaluator of the same text needs both too (kept on the context), and a worker given them
    // does not simulate the kernel nor build the model again. Made before the tasks go: on the
    // largest kernel a worker's evaluator took about 260 ms of its preparation for the time (with
    // the resources its waves come from) and 90 for the model, this thread about 105 for both.
    const time = kernelTime(ctx, { trip: this.opts.trip });
    const base: Launch['base'] = {
      text: srcText, file: this.loaded.program.file, ...loadedAs(this.loaded), kernel: this.name, disambiguate, objective,
      minOccupancy: this.floor, trip: this.opts.trip, budget, seconds, ...(fences ? { fences } : {}), kernelTime: time,
    };
    // the model goes with the first tasks only: an anneal task finds the kernel prepared
    const phase1Base = { ...base, cycleTables: cycleTablesFor(ctx) };
    const phase1 = strategies.filter((s) => s !== 'anneal').map((s): StrategyTask => ({ ...phase1Base, strategy: s, startMoves: [], seed, label: `${prefix}${s}` }));
    const l: Launch = { base, prefix, phase1 };
    if (this.parallel(phase1)) l.early = await this.submit(l, phase1, `${prefix}list/beam`);
    return l;
  }

  /** Launch the search of `srcText` and prepare this thread's kernel for it meanwhile. */
  private async launchAndPrepare(srcText: string, prefix: string, ctx: KernelContext, prepare: () => ScheduleKernel): Promise<{ l: Launch; kk: ScheduleKernel }> {
    const l = await this.launch(srcText, prefix, ctx);
    try {
      const kk = prepare();
      memMark('prepared ' + prefix);
      return { l, kk };
    } catch (e) {
      await abandon(l, this.set.shared);
      throw e;
    }
  }

  /** The strategies of both phases on one launched program, run here and on the workers. */
  private async runStrategies(l: Launch, here: { k: ScheduleKernel; ev: Evaluator }): Promise<StrategyOutcome[]> {
    const { objective, annealReplicas, seed } = this.set;
    const run = async (tasks: StrategyTask[], phase: string, early?: Promise<StrategyOutcome>[]): Promise<StrategyOutcome[]> => {
      if (tasks.length === 0) return [];
      if (!this.parallel(tasks)) return tasks.map((t) => runTask(t, this.report(phase), here));
      const others = early ?? await this.submit(l, tasks, phase);
      let first: StrategyOutcome;
      try {
        first = runTask(tasks[0]!, this.report(phase), here);
      } catch (e) {
        await Promise.allSettled(others);
        throw e;
      }
      return [first, ...await Promise.all(others)];
    };
    let outcomes = await run(l.phase1, `${l.prefix}list/beam`, l.early);
    if (annealReplicas > 0) {
      const from = bestOutcome(outcomes, objective, this.floor);
      const tasks = Array.from({ length: annealReplicas }, (_, x): StrategyTask => ({
        ...l.base, ...(this.keepPool ? { release: true } : {}), strategy: 'anneal', startMoves: from?.moves ?? [], seed: seed + x, label: `${l.prefix}${annealReplicas > 1 ? `anneal#${x + 1}` : 'anneal'}`,
      }));
      outcomes = outcomes.concat(await run(tasks, `${l.prefix}anneal`));
    }
    return outcomes;
  }

  /**
   * The strategies on one program, then the best few distinct candidates, brought back toward
   * that program's order where that loses nothing, measured exactly; the best that beats `bar`
   * (the input, or the best so far) wins.
   */
  private async searchFrom(l: Launch, kk: ScheduleKernel, bar: Metrics, pipelined?: PipelinedLoop[]): Promise<Searched> {
    const { runs, evaluations, seconds, candidates } = await this.searchCandidates(l, kk, pipelined);
    memMark('candidates');
    const win = this.chooseCandidate(candidates, runs, bar, pipelined);
    return { win, runs, evaluations, seconds };
  }

  /**
   * The strategies on one program, their reports, and the candidates to emit. The evaluator
   * lives only here: its caches are most of what the search keeps, and emission does not need
   * them.
   */
  private async searchCandidates(l: Launch, kk: ScheduleKernel, pipelined?: PipelinedLoop[]):
    Promise<{ runs: StrategyReport[]; evaluations: number; seconds: number; candidates: Candidate[] }> {
    let ev: Evaluator;
    let outcomes: StrategyOutcome[];
    let failed = true;
    try {
      try {
        ev = new Evaluator(kk);
      } catch (e) {
        unheard(l);
        throw e;
      }
      this.waves = ev.waves;
      memMark('evaluator');
      outcomes = await this.runStrategies(l, { k: kk, ev });
      failed = false;
    } catch (e) {
      throw e instanceof ConductorError ? e : new ConductorError(`the search failed: ${(e as Error).message}`);
    } finally {
      memMark('strategies done');
      // a failed search's tasks may still run on the workers: they end with them
      if ((failed || !this.keepPool) && l.pool) await this.set.shared.end();
      memMark('pool destroyed');
    }
    const runs: StrategyReport[] = outcomes.map((o) => ({
      label: o.label, strategy: o.strategy, seed: o.seed, evaluations: o.evaluations, seconds: round3(o.seconds), estimate: o.metrics, moves: o.moves.length,
    }));
    // the outcomes (their move lists) are not kept past here: a candidate has its own moves
    return {
      runs, evaluations: outcomes.reduce((a, o) => a + o.evaluations, 0), seconds: outcomes.reduce((a, o) => a + o.seconds, 0),
      candidates: this.candidateStates(kk, ev, outcomes, runs, pipelined),
    };
  }

  /**
   * The best few distinct candidates in order of their estimate (at most `candidates`), each
   * replayed and brought back toward the program's order where that loses nothing: all the
   * evaluator is needed for, so that the caller can let it go before emitting them. A candidate
   * that does not replay, or comes back to the program itself, is rejected here.
   */
  private candidateStates(kk: ScheduleKernel, ev: Evaluator, outcomes: StrategyOutcome[], runs: StrategyReport[],
    pipelined?: PipelinedLoop[]): Candidate[] {
    const { objective } = this.set;
    const floor = this.floor;
    const order = outcomes.map((o, x) => ({ o, x })).filter(({ o }) => o.moves.length > 0 || pipelined)
      .sort((a, b) => searchCompare(a.o.metrics, b.o.metrics, objective, floor) || a.x - b.x);
    const tried = new Set<string>();
    const out: Candidate[] = [];
    for (const { o, x } of order) {
      if (tried.size >= (this.opts.candidates ?? 3)) break;
      const sig = o.moves.join('\n');
      if (tried.has(sig)) continue;
      tried.add(sig);
      const simple = preferredState(kk, ev, o, { objective, minOccupancy: floor });
      if ('failure' in simple) { runs[x]!.rejected = `does not replay: ${simple.failure.command}: ${simple.failure.reason}`; continue; }
      const moves = movesFromState(simple.state);
      if (moves.length === 0 && !pipelined) { runs[x]!.rejected = 'no better than the input once moves that gain nothing are undone'; continue; }
      out.push({ label: o.label, x, simple, moves });
    }
    return out;
  }

  /**
   * The candidates emitted and measured exactly, in order; the best that beats `bar` wins. Each
   * run's report says why its candidate lost.
   */
  private chooseCandidate(candidates: Candidate[], runs: StrategyReport[], bar: Metrics, pipelined?: PipelinedLoop[]): Win | undefined {
    // Candidates that come back to the same schedule once brought toward the input's order are
    // emitted once: what a later one needs is the exact metrics (it cannot beat its twin).
    const emitted = new Map<string, Metrics | ConductorError>();
    let win: Win | undefined;
    for (const c of candidates) win = this.judgeCandidate(c, emitted, runs, bar, win, pipelined);
    return win;
  }

  /**
   * One candidate of chooseCandidate emitted (unless a twin was) and measured: the new winner
   * when it beats `bar` and `win`, else `win`. The emitted program lives only in this call: a
   * frame that stays (the loop's) would keep it in the interpreter's registers, which hold the
   * last value they were given, while the candidates after it are emitted; on the largest
   * kernel that program and its analyses are about 22 MiB of heap and 16 of array buffers.
   */
  private judgeCandidate({ label, x, simple, moves }: Candidate, emitted: Map<string, Metrics | ConductorError>, runs: StrategyReport[], bar: Metrics,
    win: Win | undefined, pipelined: PipelinedLoop[] | undefined): Win | undefined {
    const { objective } = this.set;
    const floor = this.floor;
    const twin = emitted.get(moves.join('\n'));
    let e: Emitted | undefined;
    let metrics: Metrics;
    if (twin instanceof ConductorError) { runs[x]!.rejected = `could not be emitted: ${twin.message}`; return win; }
    if (twin) metrics = twin;
    else {
      try {
        memMark('emit ' + label);
        e = emitSchedule(simple.state);
        memMark('emitted ' + label);
      } catch (err) {
        if (!(err instanceof ConductorError)) throw err;
        emitted.set(moves.join('\n'), err);
        runs[x]!.rejected = `could not be emitted: ${err.message}`;
        return win;
      }
      metrics = e.metrics;
      emitted.set(moves.join('\n'), metrics);
    }
    runs[x]!.exact = metrics;
    if (searchCompare(metrics, bar, objective, floor) >= 0) { runs[x]!.rejected = 'not better than the input when measured exactly'; return win; }
    if (win && searchCompare(metrics, win.metrics, objective, floor) >= 0) { runs[x]!.rejected = `not better than ${win.label}`; return win; }
    // a twin of an earlier candidate ties with it or with the winner that beat it: never here
    e ??= emitSchedule(simple.state);
    if (win) for (const rr of runs) if (rr.label === win.label) rr.rejected = `not better than ${label}`;
    return { label, moves, metrics: e.metrics, estimate: simple.metrics, text: e.text, notes: e.notes, loops: loopChanges(this.ctx, this.ctxOf(e.loaded), this.opts.trip), pipelined };
  }

  /** The pipelined programs searched besides the input (plans made while the first search launches). */
  private async searchedVariants(firstLaunch: Launch): Promise<PipelineVariant[]> {
    const planned = this.plans ?? [];
    let variants: PipelineVariant[];
    try {
      // 'in place' only where the copies of 'renamed' raise a pipelined loop's lower bound at the
      // occupancy (elsewhere they cost that loop no time, and the renamed loads hide latency the
      // in-place ones cannot)
      variants = planned.length === 0 ? [] : planned.some((p) => p.renames.length > 0) && this.copiesBind() ? [...PIPELINE_VARIANTS] : PIPELINE_VARIANTS.slice(0, 1);
    } catch (e) {
      await abandon(firstLaunch, this.set.shared);
      throw e;
    }
    if (planned.some((p) => p.twoStage)) variants.push('two stages');
    return variants;
  }

  async run(): Promise<ScheduleRunResult> {
    const { strategies, budget, objective, annealReplicas } = this.set;
    const key = this.cacheKey();
    const cache = this.opts.cache === false ? undefined : new ResultCache('schedule', this.opts.cacheDir);
    // Cache hit: replay through validation, emit, and check it is still better.
    const hit = cache?.get<CacheEntry>(key);
    if (hit && hit.version === VERSION) {
      const r = this.fromCache(hit, cache!, key);
      if (r) return r;
    }
    const { l: firstLaunch, kk: k } = await this.launchAndPrepare(this.text, '', this.ctx, () => {
      const kk = this.prepared();
      this.plans = this.opts.pipeline !== false ? planPipelines(kk).plans : [];
      return kk;
    });
    const variants = await this.searchedVariants(firstLaunch);
    this.totalPlanned = budget * (strategies.filter((s) => s !== 'anneal').length + annealReplicas) * (1 + variants.length);
    this.keepPool = variants.length > 0 || this.more;
    const first = await this.searchFrom(firstLaunch, k, this.before);
    let win = first.win;
    // the best program without pipelining, which a pipelined one's loops must beat
    const plain = first.win;
    const runs = first.runs;
    let evaluations = first.evaluations;
    let searchSeconds = first.seconds;
    // Software pipelining: the same search on each pipelined program, judged the same way.
    for (const [x, variant] of variants.entries()) {
      const pp = this.pipelinedProgram(variant);
      if (!pp) continue;
      this.keepPool = x < variants.length - 1 || this.more;
      const { l, kk: kp } = await this.launchAndPrepare(pp.text, `pipelined ${variant === 'renamed' ? '' : `${variant} `}`, this.ctxOf(pp.loaded), () => this.prepare(pp.loaded));
      const second = await this.searchFrom(l, kp, this.before, pp.loops);
      evaluations += second.evaluations;
      searchSeconds += second.seconds;
      runs.push(...second.runs);
      let w2 = second.win;
      const beats = (w: Win): boolean => !win || searchCompare(w.metrics, win.metrics, objective, this.floor) < 0;
      // pipelining pays in code and registers for loop speed: a pipelined program whose loops
      // are none faster per iteration than without it (for the waves of the occupancy or for one
      // wave) gains only outside its loops, and is not taken
      const slower = w2 && beats(w2) ? noLoopFaster(w2.loops, plain?.loops, this.opts.place) : undefined;
      if (w2 && slower !== undefined) {
        for (const rr of runs) if (rr.label === w2.label) rr.rejected = `no loop is faster per iteration than ${plain ? `without pipelining (${plain.label})` : 'in the input'}: ${slower}`;
        this.notes.push(`the pipelined program (${variant}) was not taken: its loops are none faster per iteration than ${plain ? 'without pipelining' : 'in the input'} (${slower}); its gain is outside them`);
        continue;
      }
      if (w2 && beats(w2) && this.opts.checkPipelined) {
        // named apart from the input: the proof's places in it are not the input's lines
        const refused = this.opts.checkPipelined(this.loaded, loadText(w2.text, `${this.loaded.program.file} (pipelined program)`, { arch: this.loaded.target.name }));
        if (refused !== undefined) {
          for (const rr of runs) if (rr.label === w2.label) rr.rejected = `its pipelined program is not proven equivalent to the input: ${refused}`;
          this.notes.push(`the pipelined program (${variant}) was not taken: it is not proven equivalent to the input (${refused})`);
          w2 = undefined;
        }
      }
      if (w2 && beats(w2)) {
        if (win) for (const rr of runs) if (rr.label === win.label) rr.rejected = `not better than ${w2.label}`;
        win = w2;
      } else if (w2 && win) {
        for (const rr of runs) if (rr.label === w2.label) rr.rejected = `not better than ${win.label}`;
      }
    }
    const result = win
      ? this.finish(win.label, win.moves, win.metrics, win.estimate, win.text, runs, evaluations, searchSeconds, false, win.loops, win.pipelined)
      : this.finish('input', [], this.before, this.before, this.text, runs, evaluations, searchSeconds, false, loopChanges(this.ctx, this.ctx, this.opts.trip));
    if (win) this.notes.push(...win.notes);
    else this.notes.push(this.fixedInput ? 'no schedule beat the input under the objective; the output is the input with its check errors fixed, in its original order'
      : 'no schedule beat the input under the objective; the input is returned unchanged');
    if (cache && !cache.set(key, {
      version: VERSION, strategy: result.strategy, moves: result.moves, evaluations, seconds: searchSeconds, runs, estimate: result.estimate,
      ...(result.pipelined ? { pipelined: result.pipelined.some((l) => l.stages === 2) ? 'two stages' : result.pipelined.some((l) => l.renamed > 0) ? 'renamed' : 'in place' } : {}),
    } satisfies CacheEntry)) {
      this.notes.push(cache.lastError ?? 'the result could not be cached');
    }
    return result;
  }
}

/**
 * undefined when some loop of a pipelined program (`loops`) is faster per iteration, for the
 * waves of the occupancy or for one wave, than in the program without pipelining (`without`,
 * matched by the input's loop line) or, with none, than in the input; else those loops' figures
 * ('line 72: 512 -> 512, one wave 420 -> 420').
 */
export function noLoopFaster(loops: readonly LoopChange[], without?: readonly LoopChange[], place: (line: number) => InputLine = asWritten): string | undefined {
  const ref = new Map((without ?? []).map((l) => [l.line, l]));
  const shown: string[] = [];
  for (const l of loops) {
    const w = ref.get(l.line);
    const all = w ? w.after : l.before;
    const one = w ? w.afterOne : l.beforeOne;
    if (l.after < all || l.afterOne < one) return undefined;
    shown.push(`${lineRef(place(l.line))}: ${all} -> ${l.after}, one wave ${one} -> ${l.afterOne}`);
  }
  return shown.join('; ');
}

/** The phase-1 tasks of a launched search not waited for: the pool's end rejects them, unheard. */
function unheard(l: Launch): void {
  for (const p of l.early ?? []) p.catch(() => undefined);
}

/** A launched search given up before it ran here: its worker tasks end with the pool it took (`shared`'s: submit). */
async function abandon(l: Launch, shared: SearchWorkers): Promise<void> {
  unheard(l);
  if (l.pool) await shared.end();
}

function bestOutcome(outcomes: StrategyOutcome[], objective: readonly MetricName[], floor: number): StrategyOutcome | undefined {
  let best: StrategyOutcome | undefined;
  for (const o of outcomes) if (!best || searchCompare(o.metrics, best.metrics, objective, floor) < 0) best = o;
  return best;
}

function round3(x: number): number { return Math.round(x * 1000) / 1000; }
