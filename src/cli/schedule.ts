import { SingleBar, Presets } from 'cli-progress';
import { loadText } from '../load.js';
import { checkOutputs, outputName, readSource, summaryStream, writeOutputs, type Output } from '../io.js';
import { requireCode } from '../input.js';
import { fixedOccupancies } from './occupancy.js';
import { ConductorError } from '../errors.js';
import { intOption, numberOption } from './options.js';
import { formatMetrics, metricLabel, METRIC_NAMES, parseObjective, type Metrics } from '../schedule/metrics.js';
import { scheduleLoaded, type ScheduleRunResult } from '../schedule/search/run.js';
import { STRATEGIES, type StrategyName } from '../schedule/search/search.js';
import { pathsMode } from '../waitcnt/index.js';

export interface ScheduleCliOptions {
  strategy?: string;
  objective?: string;
  seconds?: string;
  budget?: string;
  jobs?: string;
  seed?: string;
  kernel?: string;
  arch?: string;
  perLane?: boolean;
  cache?: boolean;
  output?: string;
  saveMoves?: string;
  json?: boolean;
  paths?: string;
}

function parseStrategies(v: string | undefined): StrategyName[] | undefined {
  if (v === undefined || v === 'all') return undefined;
  const names = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const n of names) if (!(STRATEGIES as readonly string[]).includes(n)) throw new ConductorError(`unknown strategy '${n}' (strategies: ${STRATEGIES.join(', ')}, all)`);
  return names as StrategyName[];
}

/**
 * `conductor schedule FILE [--strategy list|beam|anneal|all] [--objective ...] [--seconds S]
 * [--budget N] [--jobs N] [--seed N] [-o OUT] [--json]`. Exit 0 (the result, possibly the input
 * unchanged when nothing beat it), 2 bad input. Nothing is written when it fails.
 */
export async function commandSchedule(file: string, opts: ScheduleCliOptions): Promise<number> {
  checkOutputs(opts.json, [opts.output, opts.saveMoves]);
  const objective = opts.objective !== undefined ? parseObjective(opts.objective) : undefined;
  const strategies = parseStrategies(opts.strategy);
  const budget = intOption('--budget', opts.budget, 1);
  const jobs = intOption('--jobs', opts.jobs, 1);
  const seed = intOption('--seed', opts.seed, 0);
  const seconds = numberOption('--seconds', opts.seconds, 0.001, 86_400);
  const paths = pathsMode(opts.paths);
  const text = await readSource(file);
  const loaded = loadText(text, file, { arch: opts.arch });
  requireCode(loaded);
  const showBar = !opts.json && process.stderr.isTTY === true;
  const bar = showBar ? new SingleBar({ format: 'schedule {phase} [{bar}] {percentage}% | {value}/{total} evaluations | {duration}s', hideCursor: true, clearOnComplete: true, stream: process.stderr }, Presets.shades_classic) : undefined;
  let started = false;
  let r: ScheduleRunResult;
  try {
    r = await scheduleLoaded(loaded, text, {
      kernel: opts.kernel, strategies, objective, budget, seconds, seed, jobs,
      disambiguate: opts.perLane ? 'per-lane' : true, cache: opts.cache !== false, paths,
      progress: bar ? (done, total, phase) => {
        if (!started) { bar.start(total, 0, { phase }); started = true; }
        bar.update(done, { phase });
      } : undefined,
    });
  } finally {
    if (started) bar!.stop();
  }
  const outputs: Output[] = [];
  if (opts.output) outputs.push({ path: opts.output, text: r.text });
  if (opts.saveMoves) outputs.push({ path: opts.saveMoves, text: r.moves.map((m) => m + '\n').join('') });
  await writeOutputs(outputs);
  const occupancy = fixedOccupancies(loaded, r.kernel);
  if (opts.json) {
    process.stdout.write(JSON.stringify({
      strategy: r.strategy, evaluations: r.evaluations, seconds: round(r.seconds), before: r.before, after: r.after, occupancy: occupancy?.json,
      file: r.file, kernel: r.kernel, arch: r.arch, objective: r.objective, evaluationsPerSecond: r.evaluationsPerSecond,
      cached: r.cached, moves: r.moves, runs: r.runs, notes: r.notes, output: opts.output ?? null,
    }, null, 2) + '\n');
  } else {
    summaryStream([opts.output, opts.saveMoves]).write(formatSchedule(r, opts.output, opts.saveMoves, occupancy?.text) + '\n');
  }
  return 0;
}

function round(x: number): number { return Math.round(x * 1000) / 1000; }

function deltaText(a: Metrics, b: Metrics): string {
  const parts: string[] = [];
  for (const n of METRIC_NAMES) if (a[n] !== b[n]) parts.push(`${metricLabel(n)} ${b[n]} -> ${a[n]}`);
  return parts.length ? parts.join(', ') : 'no change';
}

export function formatSchedule(r: ScheduleRunResult, output?: string, savedMoves?: string, occupancy?: string): string {
  const out: string[] = [`${r.file}: kernel ${r.kernel} (${r.arch}), objective ${r.objective.join(',')}`];
  if (r.cached) out.push('cached result (replayed and validated)');
  for (const run of r.runs) {
    const est = `estimate: ${run.estimate.s_waitcnt} waits, ${run.estimate.s_nop} nops, peak VGPR ${run.estimate.peak_vgpr}, est_cycles ${run.estimate.est_cycles}`;
    out.push(`  ${run.label.padEnd(9)} ${String(run.evaluations).padStart(6)} evaluations in ${run.seconds.toFixed(2)} s; ${run.moves} moves; ${est}${run.rejected ? ` (${run.rejected})` : ''}`);
  }
  out.push(`result: ${r.strategy === 'input' ? 'the input order (nothing beat it)' : `${r.strategy}, ${r.moves.length} moves`}; ${r.evaluations} evaluations, ${r.evaluationsPerSecond}/s; ${r.seconds.toFixed(1)} s in all`);
  out.push(`before: ${formatMetrics(r.before)}`);
  out.push(`after:  ${formatMetrics(r.after)}`);
  out.push(`change: ${deltaText(r.after, r.before)}`);
  if (occupancy) out.push(occupancy);
  for (const n of r.notes) out.push(`note: ${n}`);
  if (output) out.push(`wrote ${outputName(output)}`);
  if (savedMoves) out.push(`wrote the moves to ${outputName(savedMoves)}`);
  return out.join('\n');
}
