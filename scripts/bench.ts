/**
 * `npm run bench`: how fast Conductor is, beside LLVM's assembler on the same file in the same
 * run, with the goals it is measured against. A benchmark, not a test: it never fails on a number.
 *
 *  1. `conductor analyze --json` (the published command, dist/bin/conductor.js, run as an installed
 *     command runs: the file itself, so its shebang's node options apply) on the largest
 *     Tensile kernel of ../shared/corpus against `llvm-mc -filetype=obj` on the same file, as whole
 *     processes: BENCH_RUNS runs of each, interleaved, medians of the wall time and of the peak
 *     RSS (GNU time's %M, when /usr/bin/time is there) and the ratios; then the in-process phases.
 *  2. The scheduler's evaluator on changed states only: a random move of an instruction of the
 *     region (at most 20 places away) that the dependency graph forbids is not evaluated and not
 *     counted (it leaves the state as it was), so evaluations/s is the rate at which the search
 *     can judge new schedules: the move, the incremental metrics, the s_nop padding. On the
 *     region of that file closest to 200 movable instructions, on its largest region, and on
 *     every region, each move in one picked by its size as the strategies pick (what a search
 *     does: a move in one region, the next in another), each beside llvm-mc's time on the file,
 *     with the CPU time per evaluation and the work each did (positions the wait model stepped,
 *     consumers the hazard rules ran on): first the
 *     evaluations after the first 300 of a fresh evaluator (V8 still compiling the hot code),
 *     then the same count after 5,000 more (warmed up); with the V8 setting `schedule` runs with
 *     (src/cli/v8-tuning.ts), as are the in-process phases of 1. Also evaluate() of
 *     an unchanged state, in that kernel and in the example (what every evaluation pays for the
 *     regions it did not change).
 *     Then the same on the loop body of the project's kernels/mfma_acc_pressure.cl built for gfx908
 *     (a whole single-block loop: each evaluation also finds the loop's entry wait state and its
 *     steady state).
 *  3. `conductor schedule` on the largest Tensile kernel with the default budget and jobs: wall
 *     time, the search's share of it (each phase as long as its busiest thread's runs,
 *     scripts/phases.ts searchSeconds) and the peak RSS; and the run's phases from its memory marks.
 *  4. (BENCH_SCHEDULE=0 skips) the metrics per kernel of the corpus and the bundled example,
 *     input against each strategy (BENCH_BUDGET evaluations per run, default 400).
 *  5. (BENCH_SPEEDUP=0 skips) the speedup table: every MFMA kernel of the corpus scheduled with the
 *     default objective and budget, our estimate and llvm-mca's cycles of the hottest loop before
 *     and after, with the geometric mean and the direction agreement (test/oracle/speedup.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildKernels, llvmTool, repoRoot } from './build-kernels.js';
import { parseProgram } from '../src/asm/parser.js';
import { loadText } from '../src/load.js';
import { analyzeLoaded } from '../src/check/analyze.js';
import { prepareKernels, type Region, type ScheduleKernel } from '../src/schedule/kernel.js';
import { Evaluator, selfLoopBlock, type Metrics } from '../src/schedule/metrics.js';
import { ScheduleState, canMove, moveTo } from '../src/schedule/state.js';
import { scheduleLoaded } from '../src/schedule/search/run.js';
import { regionPicker, STRATEGIES } from '../src/schedule/search/search.js';
import { mulberry32 } from '../src/schedule/search/rng.js';
import { DEFAULT_OBJECTIVE } from '../src/schedule/metrics.js';
import { formatSpeed, speedCorpus, speedRun } from '../test/oracle/speedup.js';
import { tuneForSchedule } from '../src/cli/v8-tuning.js';
import { formatPhases, parseMarks, schedulePhases, searchSeconds } from './phases.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 7);
const GNU_TIME = '/usr/bin/time';

/** The goals the figures are measured against (one model of the machine, fast evaluation). */
const GOALS = {
  analyzeTime: 1.0,
  analyzeRss: 1.5,
  evaluationsPerSecond: 50_000,
  searchShare: 0.5,
  scheduleRssMiB: 300,
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const goal = (met: boolean, text: string) => `goal ${text}: ${met ? 'met' : 'not met'}`;

interface ProcessRun { ms: number; rssKiB?: number; stdout: string; stderr: string }

/** One run of a command as a whole process: wall time, and peak RSS when GNU time is there. */
function runProcess(cmd: string, args: string[], env?: NodeJS.ProcessEnv): ProcessRun {
  const timed = existsSync(GNU_TIME);
  const argv = timed ? [GNU_TIME, '-f', 'conductor-bench-rss %M', cmd, ...args] : [cmd, ...args];
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20, encoding: 'utf8', ...(env ? { env: { ...process.env, ...env } } : {}) });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr?.slice(0, 500)}`);
  const rss = /conductor-bench-rss (\d+)/.exec(r.stderr ?? '')?.[1];
  return { ms, rssKiB: rss !== undefined ? Number(rss) : undefined, stdout: r.stdout, stderr: r.stderr ?? '' };
}

interface Paired { a: { ms: number; rssKiB?: number }; b: { ms: number; rssKiB?: number }; ratio: number; rssRatio?: number }

/** RUNS runs of A and B in turn (A B A B ...): medians of each, and the median of the pairwise ratios. */
function paired(a: [string, string[]], b: [string, string[]]): Paired {
  runProcess(...a);
  runProcess(...b);
  const ra: ProcessRun[] = [];
  const rb: ProcessRun[] = [];
  for (let i = 0; i < RUNS; i++) { ra.push(runProcess(...a)); rb.push(runProcess(...b)); }
  const rssA = ra.every((x) => x.rssKiB !== undefined) ? median(ra.map((x) => x.rssKiB!)) : undefined;
  const rssB = rb.every((x) => x.rssKiB !== undefined) ? median(rb.map((x) => x.rssKiB!)) : undefined;
  return {
    a: { ms: median(ra.map((x) => x.ms)), rssKiB: rssA },
    b: { ms: median(rb.map((x) => x.ms)), rssKiB: rssB },
    ratio: median(ra.map((x, i) => x.ms / rb[i]!.ms)),
    rssRatio: rssA !== undefined && rssB !== undefined ? rssA / rssB : undefined,
  };
}

/** Median time of `f` on a fresh input from `setup` each run (untimed: nothing computed for one run's input serves the next). */
function timeInProcess<I, T>(setup: () => I, f: (input: I) => T): number {
  f(setup());
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const input = setup();
    const t0 = performance.now();
    f(input);
    times.push(performance.now() - t0);
  }
  return median(times);
}

const mib = (kib: number | undefined) => (kib === undefined ? 'n/a' : `${(kib / 1024).toFixed(0)} MiB`);

interface EvalRate {
  evaluations: number; perSecond: number; us: number; illegalShare: number;
  /** CPU time per evaluation (the process' user + system time over the timed loop: less sensitive to other processes than the wall time). */
  cpuUs: number;
  /** Per evaluation: positions the wait model stepped, consumers whose hazard rules ran, segments padded again, of the region's instructions. */
  waitSteps: number; consumers: number; segments: number;
  /** Per evaluation: of those consumers, the ones whose pairwise hazard rules the pair table answered (the rest ran every rule). */
  byTable: number;
  /** Per evaluation: positions of the cycle model's sequences simulated (the rest resumed from the journal or taken over from the last run). */
  cycleSteps: number;
}

/**
 * Evaluations of changed states: random moves of an instruction of region `rg` by up to 20
 * places; a move the dependency graph forbids (or a move to where it is) changes nothing and is
 * neither evaluated nor counted; each legal one is applied and the kernel evaluated, timed.
 * `window(count, untimed)` runs `untimed` evaluations first, then times `count`; windows run one
 * after the other on the same evaluator (the first after 300: the figure with JIT compilation in
 * it; a later one after thousands more: the warmed-up figure).
 */
function changedStates(k: ScheduleKernel, regions: readonly Region[], seed: number): (count: number, untimed: number) => EvalRate {
  const ev = new Evaluator(k);
  const s = new ScheduleState(k);
  const rand = mulberry32(seed);
  // one region, or a region picked for each move by its size, as the strategies pick them
  const pick = regions.length === 1 ? () => regions[0]!.id : regionPicker(k, regions.map((r) => r.id), rand);
  let attempts = 0;
  let illegal = 0;
  let evaluations = 0;
  let ms = 0;
  const step = (timed: boolean) => {
    for (;;) {
      attempts++;
      const r = pick();
      const m = k.regions[r]!.nodes.length;
      const from = Math.floor(rand() * m);
      const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 41) - 20));
      if (from === to || !canMove(s, r, from, to)) { illegal++; continue; }
      const t0 = performance.now();
      moveTo(s, r, from, to);
      ev.evaluate(s);
      if (timed) { ms += performance.now() - t0; evaluations++; }
      return;
    }
  };
  return (count, untimed) => {
    for (let i = 0; i < untimed; i++) step(false);
    attempts = 0;
    illegal = 0;
    evaluations = 0;
    ms = 0;
    const st0 = { ...ev.stats };
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < count; i++) step(true);
    const cpu = process.cpuUsage(cpu0);
    const st = ev.stats;
    return {
      evaluations, perSecond: evaluations / (ms / 1000), us: (ms * 1000) / evaluations, illegalShare: illegal / attempts,
      cpuUs: (cpu.user + cpu.system) / evaluations,
      waitSteps: (st.waitSteps - st0.waitSteps) / evaluations, consumers: (st.consumersChecked - st0.consumersChecked) / evaluations,
      byTable: (st.consumersByTable - st0.consumersByTable) / evaluations,
      segments: (st.segmentsPadded - st0.segmentsPadded) / evaluations,
      cycleSteps: (st.cycleSteps - st0.cycleSteps) / evaluations,
    };
  };
}

/** evaluate() of a state nothing changed since the last call: the per-region overhead of every evaluation. */
function unchangedCost(k: ScheduleKernel): number {
  const ev = new Evaluator(k);
  const s = new ScheduleState(k);
  for (let i = 0; i < 500; i++) ev.evaluate(s);
  // the median of batches: the figure is a few microseconds, which one time slice lost to another process would swamp
  const batches: number[] = [];
  for (let b = 0; b < 9; b++) {
    const n = 300;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) ev.evaluate(s);
    batches.push(((performance.now() - t0) * 1000) / n);
  }
  return median(batches);
}

const closestTo = (k: ScheduleKernel, size: number): Region =>
  k.regions.reduce((a, b) => (Math.abs(b.nodes.length - size) < Math.abs(a.nodes.length - size) ? b : a));
const largestRegion = (k: ScheduleKernel): Region => k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
const largestKernel = (ks: ScheduleKernel[]): ScheduleKernel => ks.reduce((a, b) => (a.n >= b.n ? a : b));

function prepared(file: string): ScheduleKernel[] {
  try {
    return prepareKernels(loadText(readFileSync(file, 'utf8'), file)).filter((k) => k.n > 0);
  } catch {
    return [];
  }
}

/** Evaluations run untimed before the warmed-up window. */
const WARM_UP = 5000;

function benchEvaluations(largest: string, mcMs: number): void {
  const count = Number(process.env['BENCH_EVALUATIONS'] ?? 3000);
  const k = largestKernel(prepared(largest));
  const near = closestTo(k, 200);
  const big = largestRegion(k);
  console.log(`evaluator: evaluations of changed states (a random move by up to 20 places that the dependencies forbid changes nothing and is not counted), ${count} each`);
  const movable = k.regions.filter((r) => r.nodes.length >= 2);
  const rows: [string, ScheduleKernel, Region[]][] = [
    [`region ${near.id} of the largest kernel`, k, [near]], [`region ${big.id} of the largest kernel (its largest)`, k, [big]],
    // what a search does: a move in one region, the next in another
    ['every region of the largest kernel, each move in one picked by its size (as the strategies pick)', k, movable],
  ];
  let near200: EvalRate | undefined;
  let warmed200: EvalRate | undefined;
  for (const [name, kk, rgs] of rows) {
    const window = changedStates(kk, rgs, 7);
    const r = window(count, Math.min(300, count));
    near200 ??= r;
    const size = rgs.reduce((a, rg) => a + rg.nodes.length, 0);
    console.log(`  ${name}: ${size} movable instructions${rgs.length > 1 ? ` in ${rgs.length} regions` : ''}, kernel of ${kk.n} instructions in ${kk.regions.length} regions`);
    console.log(`    ${Math.round(r.perSecond)} evaluations/s (${r.us.toFixed(0)} us each, ${r.cpuUs.toFixed(0)} us of CPU); ${(r.illegalShare * 100).toFixed(0)}% of the random moves were illegal; ` +
      `${Math.round(mcMs * 1000 / r.us)} evaluations in the time llvm-mc assembles the file (${mcMs.toFixed(0)} ms)`);
    console.log(`    work per evaluation: the wait model stepped ${r.waitSteps.toFixed(0)} positions${rgs.length === 1 ? ` of ${size}` : ''}, the cycle model simulated ${r.cycleSteps.toFixed(0)}; ` +
      `${r.segments.toFixed(1)} s_nop segments padded again, the hazard rules run on ${r.consumers.toFixed(0)} consumers (the rest kept their padding); ` +
      `the pair table answered the pairwise rules for ${r.byTable.toFixed(1)} of them, every rule ran (the table showed a shortfall, or no table) for ${(r.consumers - r.byTable).toFixed(1)}`);
    const w = window(count, WARM_UP);
    warmed200 ??= w;
    console.log(`    warmed up (${WARM_UP} more evaluations first, JIT compilation done): ${Math.round(w.perSecond)} evaluations/s (${w.us.toFixed(1)} us each, ${w.cpuUs.toFixed(1)} us of CPU)`);
  }
  console.log(`  ${goal(near200!.perSecond >= GOALS.evaluationsPerSecond, `>= ${GOALS.evaluationsPerSecond} evaluations/s of changed states on a ~200-instruction region`)} ` +
    `(${Math.round(near200!.perSecond)} with JIT compilation in the window; ${Math.round(warmed200!.perSecond)} warmed up)`);
  // what every evaluation pays for the regions it did not change: the largest kernel against the example
  const example = largestKernel(prepared(join(repoRoot(), 'examples', 'mfma_lds_gemm.gfx942.s')));
  const idle = unchangedCost(k);
  const idleExample = unchangedCost(example);
  console.log(`  evaluate() of an unchanged state: ${idle.toFixed(1)} us with ${k.regions.length} regions, ${idleExample.toFixed(1)} us with ${example.regions.length} (the example); ` +
    `${((idle - idleExample) / (k.regions.length - example.regions.length) * 1000).toFixed(0)} ns per region (goal: evaluation cost independent of the number of regions)`);
}

/** The largest region that is the whole body of a single-block loop (selfLoopBlock: as the Evaluator finds one). */
function loopBodyRegion(k: ScheduleKernel): Region | undefined {
  let best: Region | undefined;
  for (const r of k.regions) if (selfLoopBlock(k, r.id) >= 0 && (!best || r.nodes.length > best.nodes.length)) best = r;
  return best;
}

/**
 * The evaluator on a loop body (a kernel of the project's own, built with clang): each evaluation
 * also finds the loop's entry wait state (the way in joined with the body's end) and the loop's
 * steady state, which the Tensile regions above, split at barriers, do not show.
 */
async function benchLoopBody(mcMs: number): Promise<void> {
  const count = Number(process.env['BENCH_EVALUATIONS'] ?? 3000);
  let file: string | undefined;
  try {
    file = (await buildKernels({ only: ['mfma_acc_pressure'], targets: ['gfx908'] }))[0]?.s;
  } catch (e) {
    console.log(`  loop body: kernels/mfma_acc_pressure.cl not built (${(e as Error).message.split('\n')[0]})`);
    return;
  }
  const k = file ? largestKernel(prepared(file)) : undefined;
  const rg = k && loopBodyRegion(k);
  if (!k || !rg) { console.log('  loop body: no single-block loop body in kernels/mfma_acc_pressure.cl (gfx908)'); return; }
  const window = changedStates(k, [rg], 7);
  const r = window(count, Math.min(300, count));
  const w = window(count, WARM_UP);
  console.log(`  the loop body of kernels/mfma_acc_pressure.cl (clang, gfx908): ${rg.nodes.length} movable instructions, kernel of ${k.n} instructions in ${k.regions.length} regions`);
  console.log(`    ${Math.round(r.perSecond)} evaluations/s (${r.us.toFixed(0)} us each, ${r.cpuUs.toFixed(0)} us of CPU), ${Math.round(w.perSecond)} warmed up; ` +
    `${(r.illegalShare * 100).toFixed(0)}% of the random moves were illegal; ${Math.round(mcMs * 1000 / r.us)} evaluations in the time llvm-mc assembles the largest kernel`);
}

function benchSchedule(largest: string, cli: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-bench-'));
  try {
    // with the memory marks, whose times give the run's phases (a mark costs about 10 microseconds; the run makes about 60)
    const r = runProcess(cli, ['schedule', largest, '--no-cache', '--json', '-o', join(dir, 'out.s')], { CONDUCTOR_MEMTRACE: '1' });
    const j = JSON.parse(r.stdout) as { seconds: number; evaluations: number; runs: { label: string; seconds: number; evaluations: number }[] };
    // the runs of a phase on several threads take as long as the busiest thread's (searchSeconds)
    const marks = parseMarks(r.stderr);
    const search = searchSeconds(j.runs, marks);
    const wall = r.ms / 1000;
    console.log(`schedule: the largest kernel, default budget and strategies (one process, no cache)`);
    console.log(`  wall ${wall.toFixed(1)} s, of which the search ${search.toFixed(1)} s (${((search / wall) * 100).toFixed(0)}%; ${j.evaluations} evaluations: ` +
      `${j.runs.map((x) => `${x.label} ${x.evaluations} in ${x.seconds.toFixed(1)} s`).join(', ')}); peak RSS ${mib(r.rssKiB)}`);
    const phases = schedulePhases(marks);
    if (phases) console.log(`  phases: ${formatPhases(phases)}`);
    console.log(`  ${goal(search / wall >= GOALS.searchShare, `search >= ${GOALS.searchShare * 100}% of the wall time`)}; ` +
      (r.rssKiB !== undefined ? goal(r.rssKiB / 1024 <= GOALS.scheduleRssMiB, `peak RSS <= ${GOALS.scheduleRssMiB} MB`) : 'peak RSS not measured (no GNU time)'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchStrategies(files: string[]): Promise<void> {
  const budget = Number(process.env['BENCH_BUDGET'] ?? 400);
  const kernels = [join(repoRoot(), 'examples', 'mfma_lds_gemm.gfx942.s'), ...[...files].sort()];
  const mc = llvmTool('llvm-mc');
  const cell = (x: Metrics) => `${x.peak_vgpr}/${x.s_waitcnt}/${x.s_nop}/${x.est_cycles}`;
  console.log(`strategies: metrics per kernel (peak_vgpr/s_waitcnt/s_nop/est_cycles; default objective ${DEFAULT_OBJECTIVE.join(',')}; ${budget} evaluations per run, seed 1):`);
  console.log(`  | kernel | input | ${STRATEGIES.join(' | ')} | search evaluations/s |`);
  console.log(`  |---|---|${STRATEGIES.map(() => '---').join('|')}|---|`);
  for (const f of kernels) {
    const text = readFileSync(f, 'utf8');
    const target = /\.amdgcn_target "amdgcn-amd-amdhsa--(gfx[0-9a-z]+)/.exec(text)?.[1] ?? 'gfx942';
    if (spawnSync(mc, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${target}`, '-filetype=obj', f, '-o', '/dev/null']).status !== 0) continue;
    let input: Metrics | undefined;
    const cells: string[] = [];
    let evals = 0;
    let secs = 0;
    try {
      for (const strategy of STRATEGIES) {
        const r = await scheduleLoaded(loadText(text, f), text, { strategies: [strategy], budget, seconds: 60, seed: 1, jobs: 1, cache: false, annealReplicas: 1 });
        input ??= r.before;
        cells.push(r.strategy === 'input' ? `${cell(r.after)} (input)` : cell(r.after));
        for (const run of r.runs) { evals += run.evaluations; secs += run.seconds; }
      }
    } catch (e) {
      if (/no decodable instructions|no kernel|no instructions to schedule/.test((e as Error).message)) continue;
      throw e;
    }
    const name = f.split('/').pop()!.replace(/^Custom_Cijk_/, '').slice(0, 40);
    console.log(`  | ${name} | ${cell(input!)} | ${cells.join(' | ')} | ${Math.round(evals / Math.max(secs, 1e-3))} |`);
  }
}

async function main(): Promise<void> {
  // the in-process rows (phases, evaluator, strategies) run with the V8 setting the commands run
  // with (src/cli/v8-tuning.ts: analyze and schedule both limit inlining)
  tuneForSchedule();
  const corpus = process.env['CONDUCTOR_CORPUS'] ?? resolve(repoRoot(), '..', 'shared', 'corpus');
  const dir = join(corpus, 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).map((f) => join(dir, f));
  const largest = [...files].sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  const text = readFileSync(largest, 'utf8');
  const program = parseProgram(text, largest);
  const arch = program.declaredTarget?.name ?? 'gfx942';
  const mc = llvmTool('llvm-mc');
  const version = execFileSync(mc, ['--version'], { encoding: 'utf8' }).split('\n').find((l) => /version/i.test(l))?.trim();
  const cli = join(repoRoot(), 'dist', 'bin', 'conductor.js');
  console.log(`bench: ${largest.split('/').pop()} (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores)`);
  console.log(`       ${(statSync(largest).size / 1e6).toFixed(2)} MB, ${program.instructions.length} instructions, ${arch}; ` +
    `medians of ${RUNS} interleaved runs; the command is ${cli.replace(repoRoot() + '/', '')}${existsSync(GNU_TIME) ? '' : '; no GNU time: no peak RSS'}`);

  const p = paired([cli, ['analyze', largest, '--json']], [mc, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${arch}`, '-filetype=obj', largest, '-o', '/dev/null']]);
  const node = paired([process.execPath, ['-e', '0']], [process.execPath, ['-e', '0']]);
  const tParse = timeInProcess(() => text, (t) => parseProgram(t, largest));
  const tLoad = timeInProcess(() => text, (t) => loadText(t, largest));
  // a fresh load each run: the kernels' contexts and what is computed per context are made once per load
  const tAnalyze = timeInProcess(() => loadText(text, largest), (l) => analyzeLoaded(l));
  const rows: [string, number, number | undefined][] = [
    [`llvm-mc -filetype=obj (${version ?? 'llvm-mc'})`, p.b.ms, p.b.rssKiB],
    ['conductor analyze --json (whole process)', p.a.ms, p.a.rssKiB],
    ['  node start-up alone (node -e 0)', node.a.ms, node.a.rssKiB],
  ];
  for (const [name, ms, rss] of rows) console.log(`  ${name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms  ${mib(rss).padStart(8)}`);
  for (const [name, ms] of [['  parse (in process)', tParse], ['  parse + resolve (in process)', tLoad], ['  analyze after resolve (in process)', tAnalyze]] as const) {
    console.log(`  ${name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms`);
  }
  console.log(`  conductor analyze / llvm-mc: ${p.ratio.toFixed(2)}x the time (${goal(p.ratio <= GOALS.analyzeTime, `<= ${GOALS.analyzeTime.toFixed(1)}x`)})` +
    (p.rssRatio !== undefined ? `, ${p.rssRatio.toFixed(2)}x the peak RSS (${goal(p.rssRatio <= GOALS.analyzeRss, `<= ${GOALS.analyzeRss}x`)})` : ''));
  console.log(`  in-process parse+resolve+analyze / llvm-mc: ${((tLoad + tAnalyze) / p.b.ms).toFixed(2)}x`);

  benchEvaluations(largest, p.b.ms);
  await benchLoopBody(p.b.ms);
  if (process.env['BENCH_SCHEDULE_LARGEST'] !== '0') benchSchedule(largest, cli);
  if (process.env['BENCH_SCHEDULE'] !== '0') await benchStrategies(files);
  if (process.env['BENCH_SPEEDUP'] !== '0') {
    const t0 = performance.now();
    console.log('speedup: every MFMA kernel of the corpus, default objective and budget; the hottest loop judged by llvm-mca (50 iterations)');
    console.log(formatSpeed(await speedRun(await speedCorpus(), { jobs: 2 })));
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}

await main();
