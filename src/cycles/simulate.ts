/**
 * `conductor simulate`: per kernel, a single-wave walk through the code with the issue cycle,
 * stall and reason of every instruction, totals per block and kernel with their lower bounds,
 * loops in steady state (or for --trip N), and the multi-wave figure at the kernel's occupancy.
 *
 * The walk executes every basic block once in layout order (both sides of an if/else), with the
 * state of the wave carried from block to block; a loop (a branch back to an earlier block)
 * repeats its blocks `trip` times (default 1). Unconditional branches are taken, conditional
 * ones are not, except a loop's back edge while it repeats.
 */
import type { KernelContext } from '../analysis/types.js';
import { kernelResources } from '../analysis/resources.js';
import { OCCUPANCY_LABELS } from '../analysis/occupancy.js';
import type { CycleParams, ParamKey } from '../targets/latency.js';
import { allParamKeys, defaultCycleParams, paramDoc } from '../targets/latency.js';
import { cycleEngineFor, lowerBoundOf, type LowerBound } from './estimate.js';
import { kernelLoops, kernelTime, loopBound, type KernelLoop, type LoopBound } from './kernel-time.js';
import {
  type TraceRow, WHY, DEP, CycleEngine,
} from './engine.js';
import {
  FLAG, PIPE_NAMES, type CycleModel,
} from './model.js';
import { ConductorError } from '../errors.js';
import { COUNTER, COUNTER_NAMES } from '../targets/counters.js';
import type { Target } from '../isa/target.js';
import { counted } from '../text.js';

export interface SimulateOptions {
  /**
   * Waves for the multi-wave figure (default: occupancy (descriptor), what the hardware runs;
   * occupancy (registers used) for code without a descriptor).
   */
  waves?: number;
  /** Loop trip count (default: the walk runs loops once and loops are reported per iteration in steady state). */
  trip?: number;
  params?: CycleParams;
}

export interface InsnRow {
  /** Index into KernelContext.insns. */
  index: number;
  line: number;
  block: number;
  text: string;
  issue: number;
  /** Cycles waited before issuing plus cycles the instruction holds the wave beyond one slot (nop, barrier, taken branch): `wait` + `hold`. */
  stall: number;
  /** Cycles waited before issuing (a dependency, an s_waitcnt, a busy pipe). */
  wait: number;
  /** Cycles the instruction holds the wave after it issues, beyond one slot (s_nop, s_barrier, a taken branch). */
  hold: number;
  reason: string;
  /** Times the instruction issued in the walk (loops with --trip). */
  count: number;
}

export interface BoundReport extends LowerBound {
  /** (estimate - bound) / bound, in percent. */
  gapPercent: number;
}

export interface BlockReport {
  id: number;
  line: number;
  instructions: number;
  /** Cycles the walk spent in the block (last pass: from the first issue to the wave's next issue). */
  walkCycles: number;
  /** The block alone, from an idle wave, until every result has arrived. */
  alone: number;
  lowerBound: BoundReport;
}

export interface LoopReport {
  /** Line of the loop header block's first instruction. */
  headerLine: number;
  /** The header block's labels. */
  labels: string[];
  /** Line of the last back edge: the branch that ends the latch block. */
  latchLine: number;
  /** Lines of every back edge to the header (the last one is latchLine). */
  backEdgeLines: number[];
  blocks: [number, number];
  instructions: number;
  /** Single wave: cycles per iteration (steady state, or the average over `trip`). */
  perIteration: number;
  /** With --trip: cycles for all trips, from an idle wave until every result has arrived. */
  total?: number;
  iterations: number;
  stable: boolean;
  /** kernel-time loopBound's (what schedule reports for the loop), one wave. */
  lowerBoundPerIteration: LoopBound & { gapPercent: number };
  multi: { waves: number; perIteration: number; perIterationPerWave: number };
}

export interface KernelCycleReport {
  /** The kernel's name and target, under the keys check and analyze use. */
  name: string;
  arch: string;
  trip: number;
  rows: InsnRow[];
  blocks: BlockReport[];
  loops: LoopReport[];
  single: { cycles: number; issueEnd: number; lowerBound: BoundReport };
  multi: { waves: number; wavesFrom: string; cycles: number; perWave: number; lowerBound: BoundReport };
  /** est_cycles, the kernel as it runs (kernel-time.ts): the scheduler's objective. */
  asItRuns: { cycles: number; waveCycles: number; waves: number; loops: { line: number; trip: number; tripFrom: string; perIteration: number }[] };
}

/** Largest walk (instructions issued); beyond it --trip is refused. */
const MAX_WALK = 5_000_000;
/** Steady state: iterations simulated at most, and equal deltas needed. */
const MAX_ITER = 64;
const STABLE_RUN = 3;

/** A loop of the kernel: the list est_cycles uses (kernel-time.ts kernelLoops), one per header. */
export type Loop = KernelLoop;

/** Loops: one per header, its back edges merged (kernelLoops). */
export function findLoops(ctx: KernelContext): Loop[] {
  return kernelLoops(ctx);
}

interface Walk { seq: Int32Array; taken: Uint8Array }

function blockSeq(ctx: KernelContext, from: number, to: number): number[] {
  const out: number[] = [];
  for (let b = from; b <= to; b++) {
    const bl = ctx.cfg.blocks[b]!;
    for (let i = bl.start; i < bl.end; i++) out.push(i);
  }
  return out;
}

/** The kernel walk: blocks in layout order, loops repeated `trip` times. */
export function kernelWalk(ctx: KernelContext, m: CycleModel, trip: number): Walk {
  const blocks = ctx.cfg.blocks;
  const loops = findLoops(ctx);
  const latchOf = new Map<number, Loop>();
  for (const l of loops) if (!latchOf.has(l.latch)) latchOf.set(l.latch, l);
  const count = new Int32Array(blocks.length);
  const seq: number[] = [];
  const taken: number[] = [];
  let b = 0;
  while (b < blocks.length) {
    const bl = blocks[b]!;
    for (let i = bl.start; i < bl.end; i++) {
      seq.push(i);
      taken.push((m.flags[i]! & FLAG.jump) !== 0 ? 1 : 0);
    }
    if (seq.length > MAX_WALK) throw new ConductorError(`the walk of '${ctx.kernel.name}' exceeds ${MAX_WALK} instructions: lower --trip`);
    const l = latchOf.get(b);
    if (l && count[b]! < trip - 1 && bl.end > bl.start) {
      count[b]!++;
      taken[taken.length - 1] = 1;
      b = l.header;
      continue;
    }
    count[b] = 0;
    b++;
  }
  return { seq: Int32Array.from(seq), taken: Uint8Array.from(taken) };
}

function bound<B extends LowerBound | LoopBound>(lb: B, estimate: number): B & { gapPercent: number } {
  return { ...lb, gapPercent: lb.bound > 0 ? round2(((estimate - lb.bound) / lb.bound) * 100) : 0 };
}

function round2(x: number): number { return Math.round(x * 100) / 100; }

const DEP_TEXT: Record<number, string> = {
  [DEP.result]: 'result of',
  [DEP.mfmaSame]: 'mfma srcC chain on',
  [DEP.mfmaSrcC]: 'mfma srcC overlap with',
  [DEP.mfmaSrcAB]: 'mfma srcA/B dependency on',
  [DEP.mfmaValu]: 'mfma result of',
  [DEP.mfmaMem]: 'mfma result (memory read) of',
  [DEP.valuMfma]: 'VALU -> MFMA forwarding from',
  [DEP.sgprSalu]: 'VALU-written SGPR from',
  [DEP.sgprVmem]: 'VALU-written SGPR (VMEM read) from',
  [DEP.sgprValu]: 'VALU-written SGPR (VALU read) from',
  [DEP.trans]: 'transcendental result of',
  [DEP.dot]: 'DOT result of',
  [DEP.branch]: 'branch right after the write by',
  [DEP.mem]: 'memory result of',
};


function insnRef(ctx: KernelContext, i: number): string {
  if (i < 0) return '?';
  const insn = ctx.cfg.insns[i]!;
  return `${insn.mnemonic} at line ${insn.loc.line}`;
}

function reasonText(ctx: KernelContext, m: CycleModel, r: TraceRow): string {
  const parts: string[] = [];
  if (r.stall > 0) {
    switch (r.why) {
      case WHY.dep:
        parts.push(`${DEP_TEXT[r.whyB] ?? 'dependency on'} ${insnRef(ctx, r.whyA)}${r.whyB === DEP.mem ? ' (no s_waitcnt covers it)' : ''}`);
        break;
      case WHY.waw:
        parts.push(`overwrites a result still in flight from ${insnRef(ctx, r.whyA)}`);
        break;
      case WHY.wait: {
        const i = r.insn;
        const n = r.whyB === COUNTER.vm ? m.wVm[i] : r.whyB === COUNTER.lgkm ? m.wLgkm[i] : m.wExp[i];
        parts.push(`wait ${COUNTER_NAMES[r.whyB]}(${n}) for ${insnRef(ctx, r.whyA)}`);
        break;
      }
      case WHY.full:
        parts.push(`${COUNTER_NAMES[r.whyB]} full: waits for ${insnRef(ctx, r.whyA)}`);
        break;
      case WHY.pipe:
        parts.push(`pipe busy (${PIPE_NAMES[r.whyB]}: ${insnRef(ctx, r.whyA)})`);
        break;
      case WHY.port:
        parts.push('issue port taken by another wave');
        break;
      case WHY.barrier:
        parts.push('barrier');
        break;
      default:
        parts.push('stall');
    }
  }
  const i = r.insn;
  const extra = r.cost - m.slot;
  if (extra > 0) {
    const f = m.flags[i]!;
    const base = ctx.cfg.insns[i]!.base;
    if (base === 's_nop') parts.push('nop');
    else if (f & FLAG.barrier) parts.push('barrier');
    else if (f & (FLAG.jump | FLAG.cjump)) parts.push('taken branch');
    else parts.push('multi-cycle issue');
  }
  return parts.join('; ');
}

function defaultTrip(trip: number | undefined): number {
  if (trip === undefined) return 1;
  if (!Number.isInteger(trip) || trip < 1) throw new ConductorError(`--trip must be a positive integer, got ${trip}`);
  return trip;
}

/** Simulate one kernel. */
export function simulateKernel(ctx: KernelContext, opts: SimulateOptions = {}): KernelCycleReport {
  const params = opts.params ?? defaultCycleParams(ctx.target);
  const engine = cycleEngineFor(ctx, params);
  const m = engine.m;
  const trip = defaultTrip(opts.trip);
  const cfg = ctx.cfg;

  // --- single-wave walk
  const walk = kernelWalk(ctx, m, trip);
  const trace: TraceRow[] = [];
  engine.reset(1);
  const issueEnd = engine.runSingle(walk.seq, 0, walk.seq.length, { taken: walk.taken, trace });
  const singleCycles = engine.drained(0);
  const lastRow = new Int32Array(m.n).fill(-1);
  const counts = new Int32Array(m.n);
  trace.forEach((r, k) => { lastRow[r.insn] = k; counts[r.insn]!++; });
  const rows: InsnRow[] = [];
  for (let i = 0; i < m.n; i++) {
    const k = lastRow[i]!;
    const insn = cfg.insns[i]!;
    const r = k >= 0 ? trace[k]! : undefined;
    const wait = r ? r.stall : 0;
    const hold = r ? Math.max(0, r.cost - m.slot) : 0;
    rows.push({
      index: i, line: insn.loc.line, block: cfg.blockOf[i]!, text: insn.text,
      issue: r ? r.issue : -1,
      stall: wait + hold, wait, hold,
      reason: r ? reasonText(ctx, m, r) : 'not reached',
      count: counts[i]!,
    });
  }
  const singleLb = lowerBoundOf(engine, walk.seq, 1, walk.taken);

  // --- blocks
  const blocks: BlockReport[] = cfg.blocks.map((b) => {
    const seq = Int32Array.from({ length: b.end - b.start }, (_, k) => b.start + k);
    engine.reset(1);
    engine.runSingle(seq, 0, seq.length);
    const alone = engine.drained(0);
    const lb = lowerBoundOf(engine, seq, 1);
    let walkCycles = 0;
    if (b.end > b.start) {
      const first = lastRow[b.start]!;
      const last = lastRow[b.end - 1]!;
      if (first >= 0 && last >= 0) walkCycles = trace[last]!.issue + trace[last]!.cost - trace[first]!.issue;
    }
    return { id: b.id, line: b.loc.line, instructions: b.end - b.start, walkCycles, alone, lowerBound: bound(lb, alone) };
  });

  // --- multi-wave
  let waves = opts.waves;
  let wavesFrom = '--waves';
  if (waves === undefined) {
    const o = kernelResources(ctx).resources.occupancy;
    const occ = o.descriptor ?? o.registersUsed;
    waves = Math.max(1, occ.wavesPerSimd);
    wavesFrom = `occupancy (${OCCUPANCY_LABELS[o.descriptor ? 'descriptor' : 'registersUsed']}), limited by ${occ.limiter}`;
  } else {
    checkWaves(ctx.target, waves);
  }
  const multiCycles = engine.runMulti(walk.seq, waves, { taken: walk.taken });
  const multiLb = lowerBoundOf(engine, walk.seq, waves, walk.taken);

  // --- loops
  const loops = findLoops(ctx).map((l) => simulateLoop(ctx, engine, l, opts.trip, waves!));
  const kt = kernelTime(ctx, { trip: opts.trip, params, waves: opts.waves });

  return {
    name: ctx.kernel.name, arch: ctx.target.name, trip,
    rows, blocks, loops,
    single: { cycles: singleCycles, issueEnd, lowerBound: bound(singleLb, singleCycles) },
    multi: { waves, wavesFrom, cycles: multiCycles, perWave: round2(multiCycles / waves), lowerBound: bound(multiLb, multiCycles) },
    asItRuns: {
      cycles: Math.round(kt.cycles), waveCycles: Math.round(kt.cyclesOne), waves: kt.waves,
      loops: kt.loops.map((l) => ({ line: l.loop.line, trip: l.loop.trip, tripFrom: l.loop.tripFrom, perIteration: round2(l.perIteration) })),
    },
  };
}

/** Waves for the multi-wave figure must fit on one SIMD of the target (its wave slots). */
export function checkWaves(target: Target, waves: number): void {
  const max = target.occupancy.maxWavesPerSimd;
  if (!Number.isInteger(waves) || waves < 1 || waves > max.value) {
    throw new ConductorError(`--waves ${waves}: a ${target.name} SIMD holds 1 to ${max.value} waves`);
  }
}

/** One loop: steady state per iteration (or `trip` iterations), single wave and `waves` waves. */
export function simulateLoop(ctx: KernelContext, engine: CycleEngine, l: Loop, trip: number | undefined, waves: number): LoopReport {
  const body = Int32Array.from(blockSeq(ctx, l.header, l.latch));
  const len = body.length;
  const takenBack = new Uint8Array(len);
  for (let k = 0; k < len; k++) takenBack[k] = (engine.m.flags[body[k]!]! & FLAG.jump) !== 0 ? 1 : 0;
  if (len > 0) takenBack[len - 1] = 1;
  // per iteration, the bound schedule reports for the loop, for one wave (kernel-time loopBound:
  // the busiest pipe, the issue port, the longest dependency chain of one iteration and the
  // loop-carried recurrence, waits and nops left out), every field of it: one wave issues in
  // order, so an iteration's chain ends before the next iteration's begins
  const per = loopBound(engine, body, 1);
  const headerLine = ctx.cfg.blocks[l.header]!.loc.line;
  // the back edges: the latch blocks' last instructions (the branches to the header)
  const latchLine = l.backEdgeLines[l.backEdgeLines.length - 1]!;
  let perIteration: number;
  let iterations: number;
  let stable = false;
  let total: number | undefined;
  engine.reset(1);
  if (trip !== undefined) {
    const last = new Uint8Array(takenBack);
    if (len > 0) last[len - 1] = (engine.m.flags[body[len - 1]!]! & FLAG.jump) !== 0 ? 1 : 0;
    for (let k = 0; k < trip; k++) engine.runSingle(body, 0, len, { taken: k === trip - 1 ? last : takenBack });
    total = engine.drained(0);
    perIteration = engine.time(0) / trip;
    iterations = trip;
    stable = true;
  } else {
    const ends: number[] = [0];
    let same = 0;
    for (iterations = 1; iterations <= MAX_ITER; iterations++) {
      ends.push(engine.runSingle(body, 0, len, { taken: takenBack }));
      const d = ends[iterations]! - ends[iterations - 1]!;
      const prev = iterations >= 2 ? ends[iterations - 1]! - ends[iterations - 2]! : NaN;
      same = d === prev ? same + 1 : 0;
      if (same >= STABLE_RUN - 1) { stable = true; break; }
    }
    const n = Math.min(iterations, MAX_ITER);
    const k = stable ? 1 : Math.min(8, n - 1);
    perIteration = (ends[n]! - ends[n - k]!) / k;
    iterations = n;
  }
  // multi-wave: difference between 16 and 8 iterations of every wave, per iteration
  const rep = (k: number) => {
    const seq = new Int32Array(len * k);
    const tk = new Uint8Array(len * k);
    for (let j = 0; j < k; j++) { seq.set(body, j * len); tk.set(takenBack, j * len); }
    return engine.runMulti(seq, waves, { taken: tk });
  };
  const multiPer = len > 0 ? (rep(16) - rep(8)) / 8 : 0;
  const lbPer = bound(per, perIteration);
  return {
    headerLine, labels: ctx.cfg.blocks[l.header]!.labels, latchLine, backEdgeLines: l.backEdgeLines, blocks: [l.header, l.latch], instructions: len,
    perIteration: round2(perIteration), total, iterations, stable,
    lowerBoundPerIteration: lbPer,
    multi: { waves, perIteration: round2(multiPer), perIterationPerWave: round2(multiPer / waves) },
  };
}

// ------------------------------------------------------------------------------------------------
// Text output

function pad(s: string | number, n: number): string {
  const t = String(s);
  return t.length >= n ? t : ' '.repeat(n - t.length) + t;
}

function fmtBound(b: BoundReport): string {
  return `lower bound ${fmt(b.bound)} (${b.limiter}), estimate ${b.gapPercent >= 0 ? '+' : ''}${b.gapPercent}%`;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

export function formatKernelReport(r: KernelCycleReport, opts: { insns?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`kernel ${r.name} (${r.arch}): single wave, every block once in layout order, loops x${r.trip}`);
  if (opts.insns !== false) {
    out.push(`  ${pad('line', 6)} ${pad('issue', 8)} ${pad('stall', 6)}  instruction${' '.repeat(40)}reason`);
    let block = -1;
    const byBlock = new Map(r.blocks.map((b) => [b.id, b]));
    const flush = (id: number) => {
      const b = byBlock.get(id);
      if (!b) return;
      out.push(`  -- block ${b.id} (line ${b.line}): ${counted(b.instructions, 'instruction')}, ${fmt(b.walkCycles)} cycles in the walk; alone ${fmt(b.alone)}, ${fmtBound(b.lowerBound)}`);
    };
    for (const row of r.rows) {
      if (row.block !== block) { if (block >= 0) flush(block); block = row.block; }
      const text = row.text.length > 50 ? row.text.slice(0, 49) + '…' : row.text.padEnd(50);
      out.push(`  ${pad(row.line, 6)} ${pad(row.issue < 0 ? '-' : fmt(row.issue), 8)} ${pad(row.stall ? fmt(row.stall) : '', 6)}  ${text} ${row.reason}`.trimEnd());
    }
    if (block >= 0) flush(block);
  }
  out.push(`  total: ${fmt(r.single.cycles)} cycles single wave (last issue slot ends at ${fmt(r.single.issueEnd)}); ${fmtBound(r.single.lowerBound)}`);
  const asked = r.multi.wavesFrom === '--waves' ? 'as --waves asks' : `as ${r.multi.wavesFrom.replace(/, limited by /, ' allows (limited by ')})`;
  out.push(`  ${counted(r.multi.waves, 'wave')} on one SIMD, ${asked}: ${fmt(r.multi.cycles)} cycles for all, ${fmt(r.multi.perWave)} per wave; ${fmtBound(r.multi.lowerBound)}`);
  const a = r.asItRuns;
  out.push(`  as it runs (est_cycles, the scheduler's objective): ${a.cycles} cycles for ${counted(a.waves, 'wave')} per SIMD (${a.waveCycles} for one wave)` +
    (a.loops.length ? `; loops ${a.loops.map((l) => `line ${l.line} x${l.trip} (${l.tripFrom === 'code' ? 'from the code' : l.tripFrom === 'option' ? '--trip' : 'default'}) at ${fmt(l.perIteration)} per iteration${a.waves > 1 ? ` of the ${a.waves} waves` : ''}`).join(', ')}` : ''));
  if (a.waves > 1 && a.waves === r.multi.waves && Math.abs(r.multi.cycles - a.cycles) > 0.01 * a.cycles) {
    // two figures for the same waves: say which the scheduler compares orders by, and why they differ
    out.push(`  (est_cycles is the larger of one wave's time and ${a.waves} times the busiest pipe's or the issue port's share, each loop in its steady state; ` +
      `the walk of ${r.multi.waves} waves above, ${fmt(r.multi.cycles)}, runs their instructions side by side on the SIMD: a check on the estimate, not what schedules are compared by)`);
  }
  for (const l of r.loops) {
    const blocks = l.blocks[0] === l.blocks[1] ? `block ${l.blocks[0]}` : `blocks ${l.blocks[0]}-${l.blocks[1]}`;
    const head = `  loop at line ${l.headerLine} (${l.labels.length ? `${l.labels[0]}, ` : ''}${blocks}, ${l.backEdgeLines.length > 1 ? `back edges at lines ${l.backEdgeLines.join(', ')}` : `back edge at line ${l.latchLine}`}; ${counted(l.instructions, 'instruction')}): `;
    const single = l.total !== undefined
      ? `one wave: ${fmt(l.total)} cycles for ${counted(l.iterations, 'iteration')} (${fmt(l.perIteration)} per iteration)`
      : `one wave: ${fmt(l.perIteration)} cycles per iteration in steady state (${l.stable ? `stable after ${l.iterations}` : `not stable after ${l.iterations}; mean of the last 8`})`;
    out.push(head + single + `; lower bound ${fmt(l.lowerBoundPerIteration.bound)} per iteration (${l.lowerBoundPerIteration.limiter})` +
      `; ${counted(l.multi.waves, 'wave')} walked together: ${fmt(l.multi.perIteration)} per iteration of all waves (${fmt(l.multi.perIterationPerWave)} per wave; `
      + 'a finite walk of the waves side by side, not the steady-state figure est_cycles uses)');
  }
  return out.join('\n');
}

/** The parameter table of a target, with sources (for --list-params and the docs). */
export function formatParams(p: CycleParams): string {
  const out = [`cycle-model parameters for ${p.target} (cycles; mfma.* and *.ws in wait states of one slot)`];
  for (const k of allParamKeys()) {
    const v = p.values[k as ParamKey];
    out.push(`  ${k.padEnd(26)} ${pad(fmt(v.value), 5)}  ${paramDoc(k)}`);
    out.push(`  ${''.padEnd(26)} ${''.padEnd(5)}  source: ${v.source}${v.note ? `\n  ${''.padEnd(33)}note: ${v.note}` : ''}`);
  }
  for (const [mn, f] of Object.entries(p.insn)) {
    for (const [field, v] of Object.entries(f)) out.push(`  insn.${mn}.${field} ${fmt(v!.value)}  source: ${v!.source}`);
  }
  return out.join('\n');
}
