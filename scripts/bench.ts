/**
 * `npm run bench`: times `conductor analyze` against `llvm-mc -filetype=obj` on the largest
 * Tensile kernel of ../shared/corpus, in the same run, and prints the ratio. A benchmark, not a
 * test: it never fails on a number.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { llvmTool, repoRoot } from './build-kernels.js';
import { parseProgram } from '../src/asm/parser.js';
import { loadText } from '../src/load.js';
import { analyzeLoaded } from '../src/analysis/analyze.js';

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

function main(): void {
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
}

main();
