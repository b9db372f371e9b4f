/**
 * `npm run bench`: times `conductor analyze` against `llvm-mc -filetype=obj` on the largest
 * Tensile kernel of ../shared/corpus, in the same run, and prints the ratio. A benchmark, not a
 * test: it never fails on a number.
 *
 * Then the scheduler: candidates evaluated per second on the largest region of that kernel
 * (a random legal move, then the incremental evaluation), and the metrics per kernel of the
 * Tensile corpus and the bundled example, input against each strategy (BENCH_BUDGET
 * evaluations per run, default 400). BENCH_SCHEDULE=0 skips this part.
 *
 * Last, the speedup table: every MFMA kernel of the corpus scheduled with the default objective
 * and budget, our estimate and llvm-mca's cycles of the hottest loop before and after, with the
 * geometric mean and the direction agreement (test/oracle/speedup.ts). BENCH_SPEEDUP=0 skips it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { llvmTool, repoRoot } from './build-kernels.js';
import { parseProgram } from '../src/asm/parser.js';
import { loadText } from '../src/load.js';
import { analyzeLoaded } from '../src/check/analyze.js';
import { prepareKernels, type ScheduleKernel } from '../src/schedule/kernel.js';
import { Evaluator, type Metrics } from '../src/schedule/metrics.js';
import { ScheduleState, canMove, moveTo } from '../src/schedule/state.js';
import { scheduleLoaded } from '../src/schedule/search/run.js';
import { STRATEGIES } from '../src/schedule/search/search.js';
import { mulberry32 } from '../src/schedule/search/rng.js';
import { DEFAULT_OBJECTIVE } from '../src/schedule/metrics.js';
import { formatSpeed, speedCorpus, speedRun } from '../test/oracle/speedup.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 7);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeProcess(cmd: string, args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    const dt = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr?.toString().slice(0, 500)}`);
    times.push(dt);
  }
  return median(times);
}

function timeInProcess<T>(f: () => T): number {
  f();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function benchSchedule(files: string[], largest: string, tMc: number): Promise<void> {
  // 1. Evaluations per second on the largest region of the largest kernel.
  const loaded = loadText(readFileSync(largest, 'utf8'), largest);
  const k = prepareKernels(loaded).reduce((a: ScheduleKernel, b: ScheduleKernel) => (a.n >= b.n ? a : b));
  const rg = k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
  const ev = new Evaluator(k);
  const s = new ScheduleState(k);
  const rand = mulberry32(7);
  const m = rg.nodes.length;
  const step = () => {
    const from = Math.floor(rand() * m);
    const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 41) - 20));
    if (canMove(s, rg.id, from, to)) moveTo(s, rg.id, from, to);
    ev.evaluate(s);
  };
  for (let i = 0; i < 300; i++) step();
  const N = 3000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) step();
  const per = (performance.now() - t0) / N;
  console.log(`schedule: largest region ${rg.id} of ${k.name.slice(0, 48)}... (${m} movable of ${k.n} instructions)`);
  console.log(`  ${Math.round(1000 / per)} evaluations per second (${(per * 1000).toFixed(0)} us each: move, validate, incremental metrics incl. s_nop padding); ` +
    `one evaluation = ${((per / tMc) * 100).toFixed(2)}% of llvm-mc assembling the file`);

  // 2. Gains per kernel: input against each strategy.
  const budget = Number(process.env['BENCH_BUDGET'] ?? 400);
  const kernels = [join(repoRoot(), 'examples', 'mfma_lds_gemm.gfx942.s'), ...files.sort()];
  const mc = llvmTool('llvm-mc');
  const cell = (x: Metrics) => `${x.peak_vgpr}/${x.s_waitcnt}/${x.s_nop}/${x.est_cycles}`;
  console.log(`  metrics per kernel (peak_vgpr/s_waitcnt/s_nop/est_cycles; default objective ${DEFAULT_OBJECTIVE.join(',')}; ${budget} evaluations per run, seed 1):`);
  console.log(`  | kernel | input | ${STRATEGIES.join(' | ')} | evaluations/s |`);
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
  const corpus = process.env['CONDUCTOR_CORPUS'] ?? resolve(repoRoot(), '..', 'shared', 'corpus');
  const dir = join(corpus, 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).map((f) => join(dir, f));
  const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  const text = readFileSync(largest, 'utf8');
  const program = parseProgram(text, largest);
  const arch = program.declaredTarget?.name ?? 'gfx942';
  const mc = llvmTool('llvm-mc');
  const version = execFileSync(mc, ['--version'], { encoding: 'utf8' }).split('\n').find((l) => /version/i.test(l))?.trim();
  console.log(`bench: ${largest.split('/').pop()}`);
  console.log(`       ${(statSync(largest).size / 1e6).toFixed(2)} MB, ${program.instructions.length} instructions, ${arch}; median of ${RUNS} runs`);

  const tMc = timeProcess(mc, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${arch}`, '-filetype=obj', largest, '-o', '/dev/null']);
  const cli = join(repoRoot(), 'dist', 'src', 'cli', 'bin.js');
  const tCli = timeProcess(process.execPath, [cli, 'analyze', largest, '--json']);
  const tParse = timeInProcess(() => parseProgram(text, largest));
  const tLoad = timeInProcess(() => loadText(text, largest));
  const loaded = loadText(text, largest);
  const tAnalyze = timeInProcess(() => analyzeLoaded(loaded));
  const tNode = timeProcess(process.execPath, ['-e', '0']);

  const rows: [string, number][] = [
    [`llvm-mc -filetype=obj (${version ?? 'llvm-mc'})`, tMc],
    ['conductor analyze --json (whole process)', tCli],
    ['  node start-up alone', tNode],
    ['  parse (in process)', tParse],
    ['  parse + resolve (in process)', tLoad],
    ['  analyze after resolve (in process)', tAnalyze],
  ];
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms`);
  console.log(`  ratio conductor analyze / llvm-mc: ${(tCli / tMc).toFixed(2)}x (process wall time, same run)`);
  console.log(`  ratio in-process parse+resolve+analyze / llvm-mc: ${((tLoad + tAnalyze) / tMc).toFixed(2)}x`);
  if (process.env['BENCH_SCHEDULE'] !== '0') await benchSchedule(files, largest, tMc);
  if (process.env['BENCH_SPEEDUP'] !== '0') {
    const t0 = performance.now();
    console.log('speedup: every MFMA kernel of the corpus, default objective and budget; the hottest loop judged by llvm-mca (50 iterations)');
    console.log(formatSpeed(await speedRun(await speedCorpus(), { jobs: 2 })));
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
}

await main();
