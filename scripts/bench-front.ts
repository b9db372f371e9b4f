/**
 * `node dist/scripts/bench-front.js [FILE]`: the front end's phases on one kernel (default: the
 * largest Tensile kernel of ../shared/corpus), in process. A benchmark, not a test.
 *
 *   - cold: each phase in a fresh process (what a one-shot `conductor` run pays: the code is not
 *     compiled yet), median of BENCH_RUNS processes;
 *   - warm: the same phase repeated in one process after warm-up runs, median;
 *   - cpu: the same phases' processor time (user + system, all threads of the process: the
 *     garbage collector's helpers too), steadier than wall time on a shared machine;
 *   - heap: bytes allocated per instruction by each phase (heapUsed before and after, no
 *     collection in between, so a collection during the phase makes it read low) and the bytes
 *     per instruction still held after a full collection (the program and its resolution).
 *
 * Phases: parse (parseProgram), resolve (resolveProgram on the parsed program), load (loadText:
 * parse, target, resolve, kernel effects), analyze (analyzeLoaded after load: the checks).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './build-kernels.js';
import { parseProgram } from '../src/asm/parser.js';
import { chooseTarget, loadText } from '../src/load.js';
import { resolveProgram } from '../src/isa/resolve.js';
import { analyzeLoaded } from '../src/check/analyze.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 7);
const PHASES = ['parse', 'resolve', 'load', 'analyze'] as const;
type Phase = typeof PHASES[number];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs one phase once; returns [wall ms, cpu ms, bytes allocated, instructions]. */
function runPhase(phase: Phase, text: string, file: string): [number, number, number, number] {
  let ms = 0;
  let cpu = 0;
  let bytes = 0;
  const measure = <T>(f: () => T): T => {
    const h = process.memoryUsage().heapUsed;
    const c = process.cpuUsage();
    const t = performance.now();
    const r = f();
    ms = performance.now() - t;
    const d = process.cpuUsage(c);
    cpu = (d.user + d.system) / 1000;
    bytes = process.memoryUsage().heapUsed - h;
    return r;
  };
  let n: number;
  if (phase === 'parse') {
    n = measure(() => parseProgram(text, file)).instructions.length;
  } else if (phase === 'resolve') {
    const p = parseProgram(text, file);
    const { target } = chooseTarget(p);
    gc();
    measure(() => resolveProgram(p, target));
    n = p.instructions.length;
  } else if (phase === 'load') {
    n = measure(() => loadText(text, file)).program.instructions.length;
  } else {
    const l = loadText(text, file);
    gc();
    measure(() => analyzeLoaded(l));
    n = l.program.instructions.length;
  }
  return [ms, cpu, bytes, n];
}

/** Bytes per instruction held after a full collection by what loadText returns. */
function retained(text: string, file: string): number {
  gc();
  const h = process.memoryUsage().heapUsed;
  const l = loadText(text, file);
  gc();
  const b = process.memoryUsage().heapUsed - h;
  return b / Math.max(1, l.resolved.length);
}

function child(phase: Phase, file: string): void {
  const text = readFileSync(file, 'utf8');
  const [ms, cpu, bytes, n] = runPhase(phase, text, file);
  process.stdout.write(JSON.stringify({ ms, cpu, bytes, n }) + '\n');
}

function largestTensile(): string {
  const corpus = process.env['CONDUCTOR_CORPUS'] ?? resolve(repoRoot(), '..', 'shared', 'corpus');
  const dir = join(corpus, 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).map((f) => join(dir, f));
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === '--child') { child(args[1] as Phase, args[2]!); return; }
  const file = args[0] ?? largestTensile();
  const text = readFileSync(file, 'utf8');
  const self = fileURLToPath(import.meta.url);
  const n = parseProgram(text, file).instructions.length;
  console.log(`bench-front: ${file.split('/').pop()}`);
  console.log(`  ${(statSync(file).size / 1e6).toFixed(2)} MB, ${n} instructions; median of ${RUNS} runs`);
  const cols = ['cold ms', 'cold cpu', 'warm ms', 'warm cpu', 'B/insn'];
  console.log(`  ${'phase'.padEnd(9)} ${cols.map((c) => c.padStart(9)).join(' ')}`);
  for (const phase of PHASES) {
    const cold: number[] = [];
    const coldCpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = spawnSync(process.execPath, ['--expose-gc', self, '--child', phase, file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`child ${phase} failed: ${r.stderr}`);
      const j = JSON.parse(r.stdout) as { ms: number; cpu: number };
      cold.push(j.ms);
      coldCpu.push(j.cpu);
    }
    const warm: number[] = [];
    const warmCpu: number[] = [];
    const alloc: number[] = [];
    for (let i = 0; i < 3 + RUNS; i++) {
      gc();
      const [ms, cpu, bytes] = runPhase(phase, text, file);
      if (i >= 3) { warm.push(ms); warmCpu.push(cpu); alloc.push(bytes); }
    }
    const cells = [median(cold), median(coldCpu), median(warm), median(warmCpu)].map((x) => x.toFixed(1).padStart(9));
    console.log(`  ${phase.padEnd(9)} ${cells.join(' ')} ${Math.round(median(alloc) / n).toString().padStart(9)}`);
  }
  console.log(`  held after load (full collection): ${Math.round(retained(text, file))} B/insn`);
  if (!(globalThis as { gc?: unknown }).gc) console.log('  (run with node --expose-gc for collections between phases)');
}

main();
