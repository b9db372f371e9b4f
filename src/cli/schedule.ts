import type { SingleBar } from 'cli-progress';
import { loadedText, loadText, type Loaded } from '../load.js';
import { checkOutputs, isStandardOutput, outputName, readSource, summaryStream, writeOutputs, type Output } from '../io.js';
import { requireCode } from '../input.js';
import { inputOccupancies, type FixedOccupancies } from './occupancy.js';
import { ConductorError } from '../errors.js';
import { intOption, numberOption } from './options.js';
import { formatMetrics, metricDrift, metricLabel, METRIC_NAMES, parseObjective, type Metrics } from '../schedule/metrics.js';
import { SearchWorkers, scheduleFile, type ScheduleFileResult, type ScheduleRunResult } from '../schedule/search/run.js';
import type { PipelinedLoop } from '../schedule/pipeline/index.js';
import { STRATEGIES, type StrategyName } from '../schedule/search/search.js';
import { pathsMode } from '../waitcnt/index.js';
import { counted, inputsOr, failedFileJson, failedInput, formatTable, outputPaths, parseShard, shardFiles, bomFirst, hasBom, warnBom, worstExit, type InputFile } from './files.js';
import { colourDiagnostic } from './main.js';
import { tuneForSchedule } from './v8-tuning.js';
import { memMark } from '../memtrace.js';
import { pipelinedMovesHeader } from '../schedule/replay.js';
import { lineRef, type LineMap, type InputLine } from '../asm/include.js';
import { ParsedProgram } from '../asm/program.js';
import { verifyLoaded } from '../verify/verify.js';

export interface ScheduleCliOptions {
  strategy?: string;
  objective?: string;
  seconds?: string;
  budget?: string;
  jobs?: string;
  seed?: string;
  /** Kernel names (repeated or comma-separated). */
  kernel?: string[];
  arch?: string;
  trip?: string;
  shard?: string;
  perLane?: boolean;
  cache?: boolean;
  pipeline?: boolean;
  output?: string;
  saveMoves?: string;
  paths?: string;
  json?: boolean;
}

function parseStrategies(v: string | undefined): StrategyName[] | undefined {
  if (v === undefined || v === 'all') return undefined;
  const names = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const n of names) if (!(STRATEGIES as readonly string[]).includes(n)) throw new ConductorError(`unknown strategy '${n}' (strategies: ${STRATEGIES.join(', ')}, all)`);
  return names as StrategyName[];
}

/** `occupancies`: the input's, per kernel (fixedOccupancies), taken when it is loaded; the input's Loaded itself is not kept. */
interface FileOutcome { input: InputFile; occupancies?: Map<string, FixedOccupancies>; result?: ScheduleFileResult; error?: ConductorError; code: number; output?: string; bom?: boolean }

/**
 * `conductor schedule FILE|DIR... [--kernel K]... [--strategy ...] [--objective ...] [--trip N]
 * [--seconds S] [--budget N] [--jobs N] [--seed N] [--shard i/N] [-o OUT | -o OUTDIR/] [--json]`.
 * Every kernel of each file is scheduled (or the ones named). Exit 0 (each result, possibly the
 * input unchanged when nothing beat it), 2 bad input (the worst over the files; a file that fails
 * is reported, writes nothing, and the batch goes on).
 */
export async function commandSchedule(args: string[], opts: ScheduleCliOptions): Promise<number> {
  tuneForSchedule();
  checkOutputs(opts.json, [opts.output, opts.saveMoves]);
  const objective = opts.objective !== undefined ? parseObjective(opts.objective) : undefined;
  const strategies = parseStrategies(opts.strategy);
  const budget = intOption('--budget', opts.budget, 1);
  const jobs = intOption('--jobs', opts.jobs, 1);
  const seed = intOption('--seed', opts.seed, 0);
  const trip = intOption('--trip', opts.trip, 1);
  const seconds = numberOption('--seconds', opts.seconds, 0.001, 86_400);
  const paths = pathsMode(opts.paths);
  const shard = parseShard(opts.shard);
  const all = await inputsOr(args, (f, e) => failedInput(f, e, opts.json));
  if (typeof all === 'number') return all;
  const files = shardFiles(all, shard);
  const several = all.length > 1 || args.length > 1;
  if (several && opts.saveMoves) throw new ConductorError('--save-moves takes a single input file');
  if (opts.output !== undefined && isStandardOutput(opts.output) && several) throw new ConductorError('-o - takes a single input');
  const outs = await outputPaths(files, opts.output, several);
  const kernels = opts.kernel && opts.kernel.length > 0 ? opts.kernel : undefined;
  const outcomes: FileOutcome[] = [];
  // the progress bar's module only when there is a terminal to draw it on
  const progress = !opts.json && process.stderr.isTTY === true ? await import('cli-progress') : undefined;
  // one worker pool for every file's search (SearchWorkers), ended when the last is done or one fails
  const workers = new SearchWorkers();
  try {
    for (const [x, input] of files.entries()) {
      // the worker threads stay up for the next file (its search would start them again)
      workers.more = x < files.length - 1;
      const o: FileOutcome = { input, code: 0 };
      outcomes.push(o);
      const bar: SingleBar | undefined = progress ? new progress.SingleBar({ format: `schedule {phase} [{bar}] {percentage}% | {value}/{total} evaluations | {duration}s`, hideCursor: true, clearOnComplete: true, stream: process.stderr }, progress.Presets.shades_classic) : undefined;
      let started = false;
      try {
        if (input.error) throw new ConductorError(input.error);
        // the input's text is held by this call alone, not across the run: the run goes on with the
        // text as the check's fix leaves it
        o.result = await readSource(input.path).then((text) => {
          memMark('read');
          const { loaded, map } = loadInput(o, text, opts.arch, outs.has(input.path));
          // a file with .include is scheduled (and written) as one text, its files spliced in
          return scheduleFile(loaded, loadedText(loaded, text), {
            kernels, strategies, objective, budget, seconds, seed, jobs, trip, paths, workers, ...(map ? { place: (line: number) => map.place(line) } : {}),
            disambiguate: opts.perLane ? 'per-lane' : true, cache: opts.cache !== false, pipeline: opts.pipeline !== false,
            // a pipelined program is taken only when verify proves it equivalent (check 6, clean, emission made sure of)
            checkPipelined: (original, scheduled) => {
              const r = verifyLoaded(original, scheduled, { disambiguate: opts.perLane ? 'per-lane' : true, skipCheck: true });
              return r.equivalent ? undefined : r.difference?.message ?? 'not equivalent';
            },
            progress: bar ? (done, total, phase) => {
              if (!started) { bar.start(total, 0, { phase }); started = true; }
              bar.setTotal(total);
              bar.update(done, { phase });
            } : undefined,
          }).then((r) => (map ? inputLines(r, map) : r));
        });
      } catch (e) {
        if (!(e instanceof ConductorError)) throw e;
        // one input: --json gives the failed file's record, as check does
        if (!several) return failedInput(input.path, e, opts.json);
        o.code = 2;
        o.error = e;
        process.stderr.write(colourDiagnostic(e.format()) + '\n');
      } finally {
        if (started) bar!.stop();
      }
      if (!o.result) continue;
      // the scheduled file and its moves are written together, or neither
      const outputs: Output[] = [];
      const out = outs.get(input.path);
      if (out) {
        outputs.push({ path: out, text: bomFirst(o.bom === true, o.result.text) });
        o.output = out;
      }
      if (opts.saveMoves) {
        const moves = o.result.kernels.flatMap((k) => [
          ...(o.result!.kernels.length > 1 ? [`# kernel ${k.kernel}`] : []),
          ...(k.pipelined ? [pipelinedMovesHeader(k.pipelined)] : []),
          ...k.moves,
        ]);
        outputs.push({ path: opts.saveMoves, text: moves.map((m) => m + '\n').join('') });
      }
      memMark('scheduled');
      try {
        await writeOutputs(outputs);
      } catch (e) {
        if (several) throw e;
        return failedInput(input.path, e, opts.json);
      }
      if (!opts.json) summaryStream([opts.output, opts.saveMoves]).write(formatFileSchedule(o.result, o.occupancies, o.output, opts.saveMoves) + '\n');
    }
  } finally {
    await workers.end();
  }
  if (opts.json) {
    const single = !several && outcomes.length === 1 && outcomes[0]!.result?.kernels.length === 1;
    const j = single ? kernelJson(outcomes[0]!.result!.kernels[0]!, outcomes[0]!.output ?? null, outcomes[0]!.occupancies)
      : { files: outcomes.map(fileJson), summary: summaryJson(outcomes), shard: shard ? `${shard.index}/${shard.count}` : null };
    process.stdout.write(JSON.stringify(j, null, 2) + '\n');
  } else if (!(opts.output !== undefined && isStandardOutput(opts.output)) && (several || outcomes.some((o) => (o.result?.kernels.length ?? 0) > 1))) {
    process.stdout.write(formatSummary(outcomes, shard ? `shard ${shard.index}/${shard.count}: ${files.length} of ${all.length} files` : undefined) + '\n');
  }
  return worstExit(outcomes.map((o) => o.code));
}

/**
 * The input loaded for scheduling, its code required and its kernels' occupancies noted in `o`
 * (and, when the result is written, a byte order mark warned about: the output keeps it).
 * The caller passes it straight on, so that nothing in the command holds it during the run.
 */
function loadInput(o: FileOutcome, text: string, arch: string | undefined, writes: boolean): { loaded: Loaded; map?: LineMap } {
  let loaded = loadText(text, o.input.path, { arch });
  let map: LineMap | undefined;
  // a file with .include is scheduled as the one text written, its files spliced in; the report
  // names the lines of the files the user wrote (inputLines)
  const flat = loadedText(loaded, text);
  if (flat !== text) {
    if (loaded.program instanceof ParsedProgram) map = loaded.program.store.lineMap;
    loaded = loadText(flat, o.input.path, { arch });
  }
  memMark('loaded');
  requireCode(loaded);
  o.bom = hasBom(loaded.program);
  if (writes) warnBom(loaded.program);
  o.occupancies = inputOccupancies(loaded);
  return { loaded, ...(map ? { map } : {}) };
}

/**
 * The report's loop lines in the files the user wrote: a file with `.include` is scheduled as its
 * flattened text, whose lines `map` gives back. A loop in an included file names that file.
 */
function inputLines(r: ScheduleFileResult, map: LineMap): ScheduleFileResult {
  const placed = <T extends InputLine>(x: T): T => ({ ...x, ...map.place(x.line) });
  return {
    ...r,
    kernels: r.kernels.map((k) => ({
      ...k,
      loops: k.loops.map((l) => ({ ...placed(l), backEdgeLines: l.backEdgeLines.map((b) => map.place(b).line) })),
      ...(k.pipelined ? { pipelined: k.pipelined.map(placed) } : {}),
    })),
  };
}

const moveCount = (n: number): string => counted(n, 'move');

function round(x: number): number { return Math.round(x * 1000) / 1000; }

function kernelJson(r: ScheduleRunResult, output: string | null, occupancies?: Map<string, FixedOccupancies>): Record<string, unknown> {
  return {
    strategy: r.strategy, evaluations: r.evaluations, seconds: round(r.seconds), before: r.before, after: r.after, estimate: r.estimate,
    drift: metricDrift(r.estimate, r.after),
    occupancy: occupancies?.get(r.kernel)?.json,
    file: r.file, kernel: r.kernel, kind: r.kind, arch: r.arch, objective: r.objective, waves: r.waves, loops: r.loops, pipelined: r.pipelined ?? [],
    evaluationsPerSecond: r.evaluationsPerSecond, cached: r.cached, fixedInput: r.fixedInput, moves: r.moves, runs: r.runs, notes: r.notes, output,
  };
}

function fileJson(o: FileOutcome): Record<string, unknown> {
  if (!o.result) return failedFileJson(o.input.path, o.error ?? new ConductorError('failed'));
  return {
    file: o.input.path, output: o.output ?? null, seconds: round(o.result.seconds), notes: o.result.notes, exit: o.code,
    kernels: o.result.kernels.map((k) => { const j = kernelJson(k, o.output ?? null, o.occupancies); delete j['file']; delete j['output']; return j; }),
  };
}

function summaryJson(outcomes: FileOutcome[]): Record<string, unknown> {
  const ks = outcomes.flatMap((o) => o.result?.kernels ?? []);
  return {
    files: outcomes.length, failed: outcomes.filter((o) => !o.result).length, kernels: ks.length,
    improved: ks.filter((k) => k.strategy !== 'input').length,
    faster: ks.filter((k) => k.after.est_cycles < k.before.est_cycles).length,
    geomeanCycles: geomean(ks.filter((k) => k.before.est_cycles > 0).map((k) => k.after.est_cycles / k.before.est_cycles)),
  };
}

function geomean(xs: number[]): number | null {
  return xs.length === 0 ? null : round(Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length));
}

function deltaText(a: Metrics, b: Metrics): string {
  const parts: string[] = [];
  for (const n of METRIC_NAMES) if (a[n] !== b[n]) parts.push(`${metricLabel(n)} ${b[n]} -> ${a[n]}`);
  // est_cycles at the kernel's occupancy can tie while one wave alone gets faster: the tie-break
  if (a.est_cycles === b.est_cycles && a.wave_cycles !== undefined && a.wave_cycles !== b.wave_cycles) parts.push(`one wave's cycles ${b.wave_cycles} -> ${a.wave_cycles}`);
  return parts.length ? parts.join(', ') : 'no change';
}

/**
 * A loop's cycles per iteration for one wave, beside those at the kernel's waves when they tell
 * another story (the objective breaks a tie at the occupancy on one wave's time: a loop changed
 * at the same cycles per iteration shows why).
 */
function oneWave(l: { before: number; after: number; beforeOne: number; afterOne: number }, waves: number): string {
  if (waves <= 1 || (l.beforeOne === l.afterOne && l.before === l.after)) return '';
  if (l.beforeOne === l.before && l.afterOne === l.after) return '';
  return `, one wave ${fmt(l.beforeOne)} -> ${fmt(l.afterOne)} (${pct(l.afterOne, l.beforeOne)})`;
}

function pct(a: number, b: number): string {
  if (b === 0) return '-';
  const x = ((a - b) / b) * 100;
  return `${x > 0 ? '+' : ''}${x.toFixed(1)}%`;
}

function fmt(x: number): string { return Number.isInteger(x) ? String(x) : x.toFixed(1); }

/** One kernel's report: runs, winner, metrics before and after, loops with their bounds. */
export function formatSchedule(r: ScheduleRunResult, output?: string, savedMoves?: string, occupancy?: string): string {
  const ties = r.objective.includes('est_cycles') ? ' (a tie on est_cycles goes to the shorter time of one wave)' : '';
  // a function runs in its callers' waves: its own registers give the occupancy it is measured at
  const waves = `est_cycles for ${counted(r.waves, 'wave')} per SIMD${r.kind === 'function' ? ' (as its own registers allow; a caller may allow fewer)' : ''}`;
  const out: string[] = [`${r.file}: ${r.kind} ${r.kernel} (${r.arch}), objective ${r.objective.join(',')}${ties}; ${waves}`];
  if (r.cached) out.push('cached result (replayed and validated)');
  // the labels in one column, as wide as the longest ('pipelined in place anneal#1')
  const width = Math.max(9, ...r.runs.map((run) => run.label.length));
  for (const run of r.runs) {
    const m = (x: Metrics) => `est_cycles ${x.est_cycles}, peak VGPR ${x.peak_vgpr}, ${counted(x.s_waitcnt, 'wait')}, ${counted(x.s_nop, 'nop')}`;
    // the exact measure (emitted and measured) decides between candidates: shown when taken
    const est = run.exact ? `exact: ${m(run.exact)}${run.exact.est_cycles === run.estimate.est_cycles ? '' : ` (estimate ${run.estimate.est_cycles})`}` : `estimate: ${m(run.estimate)}`;
    out.push(`  ${run.label.padEnd(width)} ${String(run.evaluations).padStart(6)} evaluations in ${run.seconds.toFixed(2)} s; ${moveCount(run.moves)}; ${est}${run.rejected ? ` (${run.rejected})` : ''}`);
  }
  // the winner brought back toward the input's order: the run's moves that gain nothing are undone
  const run = r.runs.find((x) => x.label === r.strategy);
  const undone = run && run.moves > r.moves.length ? ` (the run's ${run.moves} less those that gain nothing)` : '';
  const input = r.fixedInput ? 'the input order, with check --fix\'s fixes (nothing beat it)' : 'the input order (nothing beat it)';
  out.push(`result: ${r.strategy === 'input' ? input : `${r.strategy}, ${moveCount(r.moves.length)}${undone}`}; ${r.evaluations} evaluations, ${r.evaluationsPerSecond}/s; ${r.seconds.toFixed(1)} s in all`);
  for (const l of r.pipelined ?? []) out.push(pipelinedText(l));
  out.push(`before: ${formatMetrics(r.before)}`);
  out.push(`after:  ${formatMetrics(r.after)}`);
  // 'before' is the input as check --fix writes it: its fixes are in the output, not in the change
  out.push(`change: ${deltaText(r.after, r.before)}${r.fixedInput ? ' (from the input with check --fix\'s fixes)' : ''}`);
  if (occupancy) out.push(occupancy);
  for (const l of r.loops) {
    const at = l.gapPercent <= 1 ? `at its bound: ${l.limiter} binds` : `bound ${fmt(l.bound)} (${l.limiter}), gap ${l.gapPercent.toFixed(1)}%`;
    out.push(`loop at ${lineRef(l)} (${l.backEdgeLines.length > 1 ? `back edges at lines ${l.backEdgeLines.join(', ')}; ` : ''}${counted(l.instructions, 'instruction')}, trip ${l.trip} ${l.tripFrom === 'code' ? 'from the code' : l.tripFrom === 'option' ? 'from --trip' : 'by default'}): ` +
      `${fmt(l.before)} -> ${fmt(l.after)} cycles per iteration (${pct(l.after, l.before)})${oneWave(l, r.waves)}; ${at}` +
      (l.inner > 0 ? `; its inner loop${l.inner === 1 ? '' : 's'} counted once per iteration (est_cycles counts the rest)` : ''));
  }
  for (const n of r.notes) out.push(`note: ${n}`);
  if (output) out.push(`wrote ${outputName(output)}`);
  if (savedMoves) out.push(`wrote the moves to ${outputName(savedMoves)}`);
  return out.join('\n');
}

/** What software pipelining did to one loop. */
export function pipelinedText(l: PipelinedLoop): string {
  if (l.stages === 2) {
    return `pipelined by two stages: loop at ${lineRef(l)} (${l.label}): ${counted(l.loads, 'load')} of the iteration after next and their address code (${l.p} instructions) start in this one, ` +
      'into registers that alternate between even and odd iterations (the loop body holds two); the first two iterations\' loads before the loop, ' +
      `the last iterations after it (${l.peel} and the labels beside it), guards for loops that run once or twice`;
  }
  const renamed = l.renamed === 0 ? 'writing their own registers (the next loads wait for this iteration\'s readers)'
    : l.renamed === l.loads ? 'into free registers copied at the top of the loop' : `${l.renamed} of them into free registers copied at the top of the loop`;
  return `pipelined: loop at ${lineRef(l)} (${l.label}): ${counted(l.loads, 'load')} of the next iteration and their address code (${l.p} instructions) start in this one, ${renamed}; ` +
    `the first iteration's before the loop, the last iteration peeled after it (${l.peel}), a guard for a loop that runs once`;
}

/** A file's report: each kernel's, then the file's own notes. */
export function formatFileSchedule(f: ScheduleFileResult, occupancies?: Map<string, FixedOccupancies>, output?: string, savedMoves?: string): string {
  const parts = f.kernels.map((k) => formatSchedule(k, undefined, undefined, occupancies?.get(k.kernel)?.text));
  for (const n of f.notes) parts.push(`note: ${n}`);
  if (output) parts.push(`wrote ${outputName(output)}`);
  else parts.push('no -o: nothing written (-o FILE writes the scheduled kernel, -o - prints it)');
  if (savedMoves) parts.push(`wrote the moves to ${outputName(savedMoves)}`);
  return parts.join('\n');
}

/** One row per kernel of every file, then the totals. */
export function formatSummary(outcomes: readonly FileOutcome[], heading?: string): string {
  const rows: (string | number)[][] = [];
  for (const o of outcomes) {
    if (!o.result) { rows.push([o.input.path, '-', '-', '-', '-', '-', '-', 'error (exit 2)']); continue; }
    for (const k of o.result.kernels) {
      rows.push([o.input.path, k.kernel, k.arch, k.before.est_cycles, k.after.est_cycles, pct(k.after.est_cycles, k.before.est_cycles), `${k.before.peak_vgpr}->${k.after.peak_vgpr}`,
        k.strategy === 'input' ? (k.fixedInput ? 'fixed only' : 'unchanged') : moveCount(k.moves.length)]);
    }
  }
  const s = summaryJson(outcomes as FileOutcome[]);
  const lines = [formatTable(['file', 'kernel', 'target', 'est_cycles', 'after', 'change', 'peak_vgpr', 'result'], rows)];
  lines.push(`${counted(s['files'] as number, 'file')}, ${counted(s['kernels'] as number, 'kernel')}, ${s['improved']} changed (${s['faster']} faster by est_cycles), ${s['failed']} failed; geomean est_cycles after/before ${s['geomeanCycles'] ?? '-'}`);
  if (heading) lines.unshift(heading);
  return lines.join('\n');
}
