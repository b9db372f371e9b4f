/**
 * Speed of schedules, judged on the hottest loop of every MFMA kernel of the corpus: our cycle
 * model (est_cycles of the kernel, the loop's steady state and lower bound) and llvm-mca 22 as a
 * peer (mca.ts), before and after `schedule`. Used by the oracle (schedule-speed.test.ts) and by
 * `npm run bench` (scripts/bench.ts).
 */
import { readFileSync } from 'node:fs';
import { buildKernels } from '../../scripts/build-kernels.js';
import { loadText } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import type { KernelContext } from '../../src/analysis/types.js';
import type { Metrics, MetricName } from '../../src/schedule/metrics.js';
import type { LoopChange } from '../../src/schedule/search/run.js';
import type { PipelinedLoop } from '../../src/schedule/pipeline/index.js';
import { scheduleFile } from '../../src/schedule/search/run.js';
import { acceptedTensileKernels } from './llvm.js';
import { geomean, hottestLoop, loopBodyText, mcaCycles, pool, type HotLoop } from './mca.js';
import { kernelLoops } from '../../src/cycles/kernel-time.js';

export interface SpeedInput { path: string; name: string; text: string; target: string; source: 'clang' | 'tensile' }

/** Every MFMA kernel file of the corpus: the clang builds for the MFMA targets and the Tensile kernels llvm-mc accepts. */
export async function speedCorpus(): Promise<SpeedInput[]> {
  const out: SpeedInput[] = [];
  for (const b of await buildKernels()) {
    if (b.target === 'gfx906') continue;
    const text = readFileSync(b.s, 'utf8');
    if (!text.includes('v_mfma')) continue;
    out.push({ path: b.s, name: `${b.name}.${b.target}`, text, target: b.target, source: 'clang' });
  }
  for (const t of await acceptedTensileKernels()) {
    if (!/v_mfma|v_smfmac/.test(t.text)) continue;
    out.push({ path: t.path, name: t.path.split('/').pop()!.replace(/\.s$/, ''), text: t.text, target: t.target, source: 'tensile' });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export interface SpeedRow {
  file: string;
  kernel: string;
  target: string;
  before: Metrics;
  after: Metrics;
  /** The search's fast estimate of the result (drift: against `after`, measured on the text written). */
  estimate: Metrics;
  strategy: string;
  /** Seconds to schedule the whole file. */
  seconds: number;
  waves: number;
  loops: LoopChange[];
  loop?: HotLoop;
  /** llvm-mca Total Cycles of the hottest loop (50 iterations), before and after. */
  mcaBefore?: number;
  mcaAfter?: number;
  mcaWhy?: string;
  /** The scheduled text. */
  text: string;
  notes: string[];
  /** Loops the result pipelines. */
  pipelined?: PipelinedLoop[];
}

export interface SpeedOptions {
  objective?: readonly MetricName[];
  budget?: number;
  seconds?: number;
  jobs?: number;
  /** Only inputs whose name matches. */
  filter?: RegExp;
  /** Called after each kernel is scheduled. */
  onRow?: (r: SpeedRow) => void;
}

function ctxOf(text: string, file: string, arch: string, kernel: string): KernelContext | undefined {
  return kernelContexts(loadText(text, file, { arch })).find((c) => c.kernel.name === kernel);
}

/** Schedule every kernel of each input file (whole file, default options unless given) and judge each MFMA kernel's hottest loop with llvm-mca. */
export async function speedRun(inputs: readonly SpeedInput[], opts: SpeedOptions = {}): Promise<SpeedRow[]> {
  const rows: SpeedRow[] = [];
  const befores = new Map<SpeedRow, KernelContext>();
  for (const inp of inputs) {
    if (opts.filter && !opts.filter.test(inp.name)) continue;
    const loaded = loadText(inp.text, inp.path, { arch: inp.target });
    const t0 = Date.now();
    const f = await scheduleFile(loaded, inp.text, { objective: opts.objective, budget: opts.budget, seconds: opts.seconds, jobs: opts.jobs ?? 1, cache: false });
    const seconds = (Date.now() - t0) / 1000;
    const ctxs = kernelContexts(loaded);
    for (const r of f.kernels) {
      const ctx = ctxs.find((c) => c.kernel.name === r.kernel)!;
      if (!ctx.insns.some((x) => x.info.cls === 'mfma')) continue;
      const row: SpeedRow = {
        file: inp.name, kernel: r.kernel, target: inp.target, before: r.before, after: r.after, estimate: r.estimate, strategy: r.strategy,
        seconds, loop: hottestLoop(ctx), text: f.text, notes: [...f.notes, ...r.notes], loops: r.loops, waves: r.waves, pipelined: r.pipelined,
      };
      rows.push(row);
      befores.set(row, ctx);
      opts.onRow?.(row);
    }
  }
  await pool(rows, 2, async (row) => {
    if (!row.loop) { row.mcaWhy = 'no loop'; return; }
    const after = ctxOf(row.text, row.file, row.target, row.kernel)!;
    const before = befores.get(row)!;
    const afterLoop = sameLoop(before, after, row.loop);
    const [a, b] = await Promise.all([mcaCycles(row.target, loopBodyText(before, row.loop)), mcaCycles(row.target, loopBodyText(after, afterLoop))]);
    row.mcaBefore = a.cycles;
    // per iteration of the source loop: a loop pipelined by two stages runs two in one
    row.mcaAfter = b.cycles === undefined ? undefined : b.cycles / (afterLoop.unroll ?? 1);
    row.mcaWhy = a.why ?? b.why;
  });
  return rows;
}

/**
 * The loop of `after` that is `loop` of `before`: the same place in the kernel's loop order
 * (a schedule keeps the loops and their order; a pipelined loop gains a prologue and a peeled
 * iteration around it, which can shift block numbers).
 */
function sameLoop(before: KernelContext, after: KernelContext, loop: HotLoop): HotLoop & { unroll?: number } {
  const x = kernelLoops(before).findIndex((l) => l.header === loop.header && l.latch === loop.latch);
  const l = kernelLoops(after)[x];
  return l ? { header: l.header, latch: l.latch, instructions: l.end - l.start, line: l.line, unroll: l.unroll } : loop;
}

export interface SpeedSummary {
  kernels: number;
  judged: number;
  geomean: number;
  slowerByModel: SpeedRow[];
  /**
   * Kernels where our change or llvm-mca's is above 2%, and where their directions agree. Our
   * change is est_cycles' as the objective compares it: the time at the kernel's occupancy, and
   * where that ties, one wave's time (wave_cycles).
   */
  changed: number;
  agree: number;
  disagreements: SpeedRow[];
  /** The same with est_cycles alone (a tie counts as no change). */
  changedStrict: number;
  agreeStrict: number;
  /** The same with our estimate of the hottest loop (like for like with llvm-mca's). */
  changedLoop: number;
  agreeLoop: number;
  loopDisagreements: SpeedRow[];
  /** Largest |estimate - exact| / exact of est_cycles over the results written. */
  drift: number;
  driftRow?: SpeedRow;
}

const rel = (a: number, b: number) => (b === 0 ? 0 : (a - b) / b);

export function summarize(rows: readonly SpeedRow[]): SpeedSummary {
  const judged = rows.filter((r) => r.mcaBefore !== undefined && r.mcaAfter !== undefined && r.mcaBefore > 0);
  const ratios = judged.map((r) => r.mcaAfter! / r.mcaBefore!);
  let changed = 0; let agree = 0; let changedStrict = 0; let agreeStrict = 0; let changedLoop = 0; let agreeLoop = 0;
  const disagreements: SpeedRow[] = [];
  const loopDisagreements: SpeedRow[] = [];
  for (const r of judged) {
    const strict = rel(r.after.est_cycles, r.before.est_cycles);
    const ours = oursChange(r);
    const theirs = rel(r.mcaAfter!, r.mcaBefore!);
    if (Math.abs(strict) > 0.02 || Math.abs(theirs) > 0.02) {
      changedStrict++;
      if (Math.sign(strict) === Math.sign(theirs) && strict !== 0) agreeStrict++;
    }
    const lc = loopChange(r) ?? 0;
    if (Math.abs(lc) > 0.02 || Math.abs(theirs) > 0.02) {
      changedLoop++;
      if (Math.sign(lc) === Math.sign(theirs) && lc !== 0) agreeLoop++; else loopDisagreements.push(r);
    }
    if (Math.abs(ours) <= 0.02 && Math.abs(theirs) <= 0.02) continue;
    changed++;
    if (Math.sign(ours) === Math.sign(theirs) && ours !== 0) agree++;
    else disagreements.push(r);
  }
  let drift = 0;
  let driftRow: SpeedRow | undefined;
  for (const r of rows) {
    const d = Math.abs(rel(r.estimate.est_cycles, r.after.est_cycles));
    if (d > drift) { drift = d; driftRow = r; }
  }
  return {
    kernels: rows.length, judged: judged.length, geomean: geomean(ratios),
    slowerByModel: rows.filter((r) => r.after.est_cycles > r.before.est_cycles), changed, agree, disagreements, changedStrict, agreeStrict, changedLoop, agreeLoop, loopDisagreements, drift, driftRow,
  };
}

/** Our relative change: est_cycles', or where it ties, one wave's (wave_cycles). */
export function oursChange(r: SpeedRow): number {
  const strict = rel(r.after.est_cycles, r.before.est_cycles);
  if (strict !== 0) return strict;
  return rel(r.after.wave_cycles ?? 0, r.before.wave_cycles ?? 0);
}

/** Our relative change on the hottest loop alone: per iteration at the occupancy, or where that ties, one wave's. */
export function loopChange(r: SpeedRow): number | undefined {
  const l = hotLoopChange(r);
  if (!l) return undefined;
  const all = rel(l.after, l.before);
  return all !== 0 ? all : rel(l.afterOne, l.beforeOne);
}

function pct(a: number, b: number): string {
  const x = rel(a, b) * 100;
  return `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
}

/** The hottest loop's entry among the kernel's loops (same header line in the input). */
export function hotLoopChange(r: SpeedRow): LoopChange | undefined {
  return r.loop ? r.loops.find((l) => l.line === r.loop!.line) : undefined;
}

/** The per-kernel table and the summary lines. */
export function formatSpeed(rows: readonly SpeedRow[]): string {
  const out: string[] = [];
  out.push('| kernel | target | waves | est_cycles before | after | change | hottest loop per iteration before -> after | lower bound (binds) | llvm-mca before | after | ratio | strategy |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const mca = r.mcaBefore !== undefined && r.mcaAfter !== undefined
      ? `${r.mcaBefore} | ${r.mcaAfter} | ${(r.mcaAfter / r.mcaBefore).toFixed(3)}` : `- | - | ${r.mcaWhy ?? '-'}`;
    const l = hotLoopChange(r);
    const loop = l ? `${l.before} -> ${l.after} | ${l.bound} (${l.limiter}, gap ${l.gapPercent}%)` : '- | -';
    out.push(`| ${r.file.slice(0, 60)} | ${r.target} | ${r.waves} | ${r.before.est_cycles} | ${r.after.est_cycles} | ${pct(r.after.est_cycles, r.before.est_cycles)} | ${loop} | ${mca} | ${r.strategy} |`);
  }
  const s = summarize(rows);
  out.push(`kernels ${s.kernels}, judged by llvm-mca ${s.judged}; geomean llvm-mca after/before ${s.geomean.toFixed(3)}`);
  const piped = rows.filter((r) => r.pipelined && r.pipelined.length > 0);
  const two = piped.filter((r) => r.pipelined!.some((l) => l.stages === 2));
  out.push(`software pipelining in ${piped.length} kernels${piped.length ? `: ${piped.map((r) => r.file).join(', ')}` : ''}`);
  out.push(`  by two stages in ${two.length} of them (llvm-mca's cycles of such a loop halved: its body holds two iterations)${two.length ? `: ${two.map((r) => r.file).join(', ')}` : ''}`);
  out.push(`slower by our model: ${s.slowerByModel.length}${s.slowerByModel.length ? ` (${s.slowerByModel.map((r) => r.file).join(', ')})` : ''}`);
  const share = (a: number, b: number) => `${a}/${b}${b ? ` = ${((100 * a) / b).toFixed(0)}%` : ''}`;
  out.push(`direction agreement with llvm-mca where either changes > 2% (est_cycles as the objective compares it: at the occupancy, then one wave): ${share(s.agree, s.changed)}`);
  out.push(`  est_cycles at the occupancy alone (a tie is no change): ${share(s.agreeStrict, s.changedStrict)}`);
  out.push(`  our estimate of the hottest loop (per iteration at the occupancy, then one wave; like for like): ${share(s.agreeLoop, s.changedLoop)}`);
  for (const r of s.loopDisagreements) {
    const l = hotLoopChange(r);
    out.push(`    loop disagreement: ${r.file}: ${l ? `${l.before} -> ${l.after} at ${r.waves} waves, one wave ${l.beforeOne} -> ${l.afterOne}` : 'no loop estimate'}; llvm-mca ${pct(r.mcaAfter!, r.mcaBefore!)}`);
  }
  for (const r of s.disagreements) {
    out.push(`  disagreement: ${r.file}: est_cycles ${pct(r.after.est_cycles, r.before.est_cycles)} at ${r.waves} waves, one wave ${pct(r.after.wave_cycles ?? 0, r.before.wave_cycles ?? 0)}; llvm-mca ${pct(r.mcaAfter!, r.mcaBefore!)}`);
  }
  out.push(`largest drift of the estimate from the exact measure of the text written: ${(s.drift * 100).toFixed(2)}%${s.driftRow ? ` (${s.driftRow.file}: estimate ${s.driftRow.estimate.est_cycles}, exact ${s.driftRow.after.est_cycles})` : ''}`);
  return out.join('\n');
}
