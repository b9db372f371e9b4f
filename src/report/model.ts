/**
 * The report's data: one typed JSON model per kernel, built from the engine (check, resources,
 * liveness, occupancy, the cycle model) and, with a scheduled file, the moves and metric deltas.
 * The HTML page (html.ts) only draws this model; tests read it to know what the page must show.
 *
 * Per-instruction data is stored in columns (one array per field) to keep the page small.
 */
import type { Loaded } from '../load.js';
import { ConductorError } from '../errors.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts } from '../check/check.js';
import type { KernelContext, Severity } from '../analysis/types.js';
import { computeOccupancy, occupancyRuns, type OccupancyLimiter, type OccupancyResult } from '../analysis/occupancy.js';
import { simulateKernel } from '../cycles/simulate.js';
import { cycleEngineFor } from '../cycles/estimate.js';
import { defaultCycleParams, type CycleParams } from '../targets/latency.js';
import { contextMetrics, METRIC_NAMES, higherIsBetter, metricLabel, type Metrics, type MetricName } from '../schedule/index.js';
import { alignScheduled, type Alignment } from './align.js';
import { ruleById } from '../hazards/index.js';
import { alignToOriginal, ROLE, prepareKernel, type ScheduleKernel } from '../schedule/index.js';
import { kernelWaves, loopChanges, type LoopChange } from '../cycles/kernel-time.js';
import { workgroupInput } from '../analysis/resources.js';

export const REPORT_MODEL_VERSION = 1;

export type RegFile = 'vgpr' | 'agpr' | 'sgpr';
export const REG_FILES: readonly RegFile[] = ['vgpr', 'agpr', 'sgpr'];

/** Row kinds of the code listing (numbers in the page's model; client.ts reads them). */
export const LINE_KIND = { plain: 0, wait: 1, nop: 2 } as const;

/** Highest finding severity on a row (numbers in the page's model; client.ts reads them). */
export const DIAG = { none: 0, note: 1, warning: 2, error: 3 } as const;

export interface ReportDiagnostic {
  severity: Severity;
  rule: string;
  message: string;
  line: number;
  col: number;
  /** Row of the code listing (instruction index), -1 when the finding is not on an instruction. */
  insn: number;
  /** A hazard (missing wait states) rather than a wait or resource finding. */
  hazard: boolean;
  related: { line: number; message: string; insn: number }[];
}

export interface OccupancyView {
  wavesPerSimd: number;
  limiter: OccupancyLimiter;
  byResource: OccupancyResult['byResource'];
  notes: string[];
}

/** With at most `regs` registers of the file (others as used), `waves` waves per SIMD fit. */
export interface Breakpoint { regs: number; waves: number }

export interface BlockView {
  id: number;
  line: number;
  labels: string[];
  /** Rows [start, end) of the code listing. */
  start: number;
  end: number;
  /** Cycles the single-wave walk spent in the block. */
  walkCycles: number;
  /** The block alone from an idle wave. */
  alone: number;
}

/** A scheduling region (numbered as `tag` numbers them) in one kernel view. */
export interface RegionView {
  id: number;
  block: number;
  /** Lines of the region's first and last movable instruction in this view. */
  lines: [number, number];
  /** Rows [start, end) of the code listing: from the first to the last movable instruction. */
  start: number;
  end: number;
  /** Movable instructions. */
  instructions: number;
  /** Cycles of the single-wave walk from the first row's wait to the last row's issue end. */
  cycles: number;
}

/** Per-instruction columns, all of length `instructions`. */
export interface CodeColumns {
  line: number[];
  text: string[];
  block: number[];
  /** Issue cycle in the single-wave walk (-1 when not reached). */
  issue: number[];
  /** Stall cycles as `simulate` reports them (waited before issue plus issue beyond one slot). */
  stall: number[];
  /** Cycles waited before issue (the visible stall of the timeline). */
  wait: number[];
  /** Index into `reasons` ('' is 0). */
  reason: number[];
  /** Cycles the instruction holds the wave's issue. */
  cost: number[];
  /** Cycles from issue until the result is there (ALU) or the access completed (memory). */
  latency: number[];
  /** Live registers at the instruction. */
  vgpr: number[];
  agpr: number[];
  sgpr: number[];
  /** LINE_KIND.plain, LINE_KIND.wait, LINE_KIND.nop. */
  kind: number[];
  /** Highest severity of a finding on the instruction: DIAG_*. */
  diag: number[];
  /** 1 when a hazard finding points at the instruction (consumer) or its producer. */
  hazard: number[];
  /** With a scheduled file: 1 for the instructions the moves move. */
  moved?: number[];
}

export interface KernelView {
  name: string;
  kind: 'kernel' | 'function';
  file: string;
  target: string;
  line: number;
  instructions: number;
  resources: {
    peak: Record<RegFile, { value: number; line?: number }>;
    used: Record<RegFile, number>;
    declared?: { vgpr: number; agpr: number; sgpr: number; lds: number };
    /** LDS bytes per workgroup the launch adds (--lds). */
    ldsAtLaunch?: number;
    /** Register file sizes per wave on this target (the chart's ceiling). */
    fileMax: Record<RegFile, number>;
    /** occupancy (descriptor), (registers used) and (peak live): OCCUPANCY_LABELS. */
    occupancy: { descriptor?: OccupancyView; registersUsed: OccupancyView; peakLive: OccupancyView };
    /** Where waves per SIMD change as one file's registers grow (others as used). */
    breakpoints: Record<RegFile, Breakpoint[]>;
  };
  diagnostics: ReportDiagnostic[];
  counts: { errors: number; warnings: number; notes: number };
  cycles: {
    single: number;
    lowerBound: number;
    multi: { waves: number; cycles: number; perWave: number };
    loops: { headerLine: number; latchLine: number; backEdgeLines: number[]; perIteration: number; instructions: number }[];
  };
  metrics: Metrics;
  blocks: BlockView[];
  /** Scheduling regions, in `tag`'s order (the timeline shows a block or a region). */
  regions: RegionView[];
  /** The block the timeline shows first: the one the single-wave walk spends most cycles in. */
  timelineBlock: number;
  reasons: string[];
  code: CodeColumns;
}

export interface MetricDelta { metric: MetricName; label: string; before: number; after: number; delta: number; better: boolean | null }

/** The moves of one scheduling region (numbered as `tag` numbers them). */
export interface RegionMoves {
  region: number;
  /** Basic block of the region (numbered as `analyze`, `simulate` and the code listing number them). */
  block: number;
  /** Labels at the region's start. */
  labels: string[];
  /** First and last line of the region's movable instructions. */
  lines: [number, number];
  /** Movable instructions in the region. */
  instructions: number;
  /** The region's cycles in the single-wave walk, before and after (RegionView.cycles). */
  cycles: [number, number];
  moves: string[];
}

export interface Comparison {
  original: string;
  scheduled: string;
  kernel: string;
  moves: string[];
  changedRegions: number;
  /** The moves grouped by the region they reorder, in region order. */
  regions: RegionMoves[];
  deltas: MetricDelta[];
  /** Waves sharing a SIMD in the loops' cycles (the kernel's occupancy). */
  waves: number;
  /** Every loop before and after: cycles per iteration at `waves` and for one wave, the bound, the gap (as `schedule` prints them). */
  loops: LoopChange[];
}

export interface ReportModel {
  version: number;
  tool: string;
  file: string;
  target: string;
  notes: string[];
  /** One view per kernel (before scheduling when `after` is set). */
  kernels: KernelView[];
  /** With a scheduled file: the scheduled kernel, side by side with kernels[0]. */
  after?: KernelView;
  comparison?: Comparison;
}

export interface ReportOptions {
  /** Only this kernel (default: every kernel with instructions; with `after`, the kernel `apply` picks). */
  kernel?: string;
  /** The scheduled version of the file. */
  after?: Loaded;
  params?: CycleParams;
  tool?: string;
}

function occView(o: OccupancyResult): OccupancyView {
  return { wavesPerSimd: o.wavesPerSimd, limiter: o.limiter, byResource: o.byResource, notes: o.notes };
}

/**
 * Breakpoints per register file: the largest register counts at which the file alone still
 * allows some number of waves per SIMD (the other files as the kernel uses them: on targets with
 * one VGPR/AGPR file they share it), in whole workgroups of the launch's size (--workgroup-size).
 * LDS and wave slots are left out: these are the steps a schedule can reach by changing register
 * pressure.
 */
export function occupancyBreakpoints(ctx: KernelContext, used: Record<RegFile, number>): Record<RegFile, Breakpoint[]> {
  const reg = ctx.target.registers;
  const max: Record<RegFile, number> = { vgpr: reg.maxVgprs.value, agpr: reg.maxAgprs.value, sgpr: reg.maxSgprs.value };
  const out: Record<RegFile, Breakpoint[]> = { vgpr: [], agpr: [], sgpr: [] };
  const wg = workgroupInput(ctx);
  for (const f of REG_FILES) {
    if (max[f] === 0) continue;
    const waves = (x: number): number => {
      const o = computeOccupancy(ctx.target, {
        vgprs: f === 'vgpr' ? x : used.vgpr, agprs: f === 'agpr' ? x : used.agpr, sgprs: f === 'sgpr' ? x : used.sgpr, ldsBytes: 0,
        ...wg,
      });
      const b = o.byResource;
      return f === 'sgpr' ? b.sgpr : f === 'agpr' ? (b.agpr ?? b.vgpr) : b.vgpr;
    };
    out[f] = occupancyRuns(max[f], waves).filter((r) => r.waves > 0).map((r) => ({ regs: r.to, waves: r.waves }));
  }
  return out;
}

function severityRank(s: Severity): number {
  return s === 'error' ? DIAG.error : s === 'warning' ? DIAG.warning : DIAG.note;
}

/** A finding of one of the hazard engine's rules (missing wait states), not a wait or resource finding. */
function isHazardRule(rule: string): boolean {
  return ruleById(rule) !== undefined;
}

function round2(x: number): number { return Math.round(x * 100) / 100; }

/** The view of one kernel. */
export function kernelView(ctx: KernelContext, file: string, params?: CycleParams): KernelView {
  const p = params ?? defaultCycleParams(ctx.target);
  const [chk] = checkContexts([ctx]);
  const res = chk!.resources;
  const sim = simulateKernel(ctx, { params: p });
  const m = cycleEngineFor(ctx, p).m;
  const n = ctx.insns.length;
  const cfg = ctx.cfg;

  const reasons: string[] = [''];
  const reasonId = new Map<string, number>([['', 0]]);
  const code: CodeColumns = {
    line: [], text: [], block: [], issue: [], stall: [], wait: [], reason: [], cost: [], latency: [],
    vgpr: [], agpr: [], sgpr: [], kind: [], diag: [], hazard: [],
  };
  for (let i = 0; i < n; i++) {
    const row = sim.rows[i]!;
    const insn = cfg.insns[i]!;
    const pt = res.pressure.points[i]!;
    let rid = reasonId.get(row.reason);
    if (rid === undefined) { rid = reasons.length; reasons.push(row.reason); reasonId.set(row.reason, rid); }
    const cost = round2(m.issue[i]!);
    code.line.push(insn.loc.line);
    code.text.push(insn.text.trim());
    code.block.push(row.block);
    code.issue.push(round2(row.issue));
    code.stall.push(round2(row.stall));
    code.wait.push(row.issue < 0 ? 0 : round2(Math.max(0, row.stall - Math.max(0, cost - m.slot))));
    code.reason.push(rid);
    code.cost.push(cost);
    code.latency.push(round2(m.lat[i]!));
    code.vgpr.push(pt.vgpr);
    code.agpr.push(pt.agpr);
    code.sgpr.push(pt.sgpr);
    code.kind.push(insn.base === 's_waitcnt' ? LINE_KIND.wait : insn.base === 's_nop' ? LINE_KIND.nop : LINE_KIND.plain);
    code.diag.push(DIAG.none);
    code.hazard.push(0);
  }

  const diagnostics: ReportDiagnostic[] = chk!.findings.map((f) => {
    const insn = f.insn >= 0 && f.insn < n ? f.insn : -1;
    const hazard = isHazardRule(f.rule);
    if (insn >= 0) {
      code.diag[insn] = Math.max(code.diag[insn]!, severityRank(f.severity));
      if (hazard) code.hazard[insn] = 1;
    }
    const related = f.related.map((r) => {
      const ri = r.insn !== undefined && r.insn >= 0 && r.insn < n ? r.insn : -1;
      if (hazard && ri >= 0) code.hazard[ri] = 1;
      return { line: r.loc.line, message: r.message, insn: ri };
    });
    return { severity: f.severity, rule: f.rule, message: f.message, line: f.loc.line, col: f.loc.col, insn, hazard, related };
  });

  const reg = ctx.target.registers;
  const blocks: BlockView[] = cfg.blocks.map((b) => {
    const br = sim.blocks[b.id]!;
    return { id: b.id, line: b.loc.line, labels: b.labels, start: b.start, end: b.end, walkCycles: round2(br.walkCycles), alone: round2(br.alone) };
  });
  return {
    name: ctx.kernel.name, kind: ctx.kernel.kind, file, target: ctx.target.name, line: ctx.kernel.loc.line, instructions: n,
    resources: {
      peak: res.peak,
      used: res.used,
      declared: res.declared,
      ...(res.ldsAtLaunch !== undefined ? { ldsAtLaunch: res.ldsAtLaunch } : {}),
      fileMax: { vgpr: reg.maxVgprs.value, agpr: reg.maxAgprs.value, sgpr: reg.maxSgprs.value },
      occupancy: {
        descriptor: res.occupancy.descriptor ? occView(res.occupancy.descriptor) : undefined,
        registersUsed: occView(res.occupancy.registersUsed), peakLive: occView(res.occupancy.peakLive),
      },
      breakpoints: occupancyBreakpoints(ctx, res.used),
    },
    diagnostics,
    counts: {
      errors: diagnostics.filter((d) => d.severity === 'error').length,
      warnings: diagnostics.filter((d) => d.severity === 'warning').length,
      notes: diagnostics.filter((d) => d.severity === 'note').length,
    },
    cycles: {
      single: round2(sim.single.cycles),
      lowerBound: round2(sim.single.lowerBound.bound),
      multi: { waves: sim.multi.waves, cycles: round2(sim.multi.cycles), perWave: sim.multi.perWave },
      loops: sim.loops.map((l) => ({ headerLine: l.headerLine, latchLine: l.latchLine, backEdgeLines: l.backEdgeLines, perIteration: l.perIteration, instructions: l.instructions })),
    },
    metrics: contextMetrics(ctx),
    blocks,
    regions: [],
    timelineBlock: busiestBlock(blocks),
    reasons,
    code,
  };
}

/** The non-empty block with the most cycles in the walk (the first such; 0 when all are empty). */
export function busiestBlock(blocks: readonly BlockView[]): number {
  let best = -1;
  for (const b of blocks) {
    if (b.end <= b.start) continue;
    if (best < 0 || b.walkCycles > blocks[best]!.walkCycles) best = b.id;
  }
  return Math.max(0, best);
}

/** Metric deltas, after - before, with whether the change is an improvement (null when equal). */
export function metricDeltas(before: Metrics, after: Metrics): MetricDelta[] {
  return METRIC_NAMES.map((metric) => {
    const delta = after[metric] - before[metric];
    const better = delta === 0 ? null : higherIsBetter(metric) ? delta > 0 : delta < 0;
    return { metric, label: metricLabel(metric), before: before[metric], after: after[metric], delta, better };
  });
}

/** The report model of a loaded file, optionally against its scheduled version. */
export function buildReportModel(loaded: Loaded, opts: ReportOptions = {}): ReportModel {
  const file = loaded.program.file;
  const notes: string[] = [];
  if (loaded.targetNote) notes.push(loaded.targetNote);
  const base = { version: REPORT_MODEL_VERSION, tool: opts.tool ?? 'conductor', file, target: loaded.target.name, notes };
  if (opts.after) {
    const a = alignScheduled(loaded, opts.after, opts.kernel);
    const before = kernelView(a.k.ctx, file, opts.params);
    const after = kernelView(a.scheduled, opts.after.program.file, opts.params);
    const orig = alignToOriginal(a.state, a.scheduled);
    markMoved(a, orig, before, after);
    before.regions = regionViews(a.k, before);
    after.regions = regionViews(a.k, after, orig);
    return {
      ...base, kernels: [before], after,
      comparison: {
        original: file, scheduled: opts.after.program.file, kernel: a.k.name, moves: a.moves,
        changedRegions: a.changedRegions.length, regions: movesByRegion(a, before.regions, after.regions), deltas: metricDeltas(before.metrics, after.metrics),
        waves: kernelWaves(a.k.ctx).waves, loops: loopChanges(a.k.ctx, a.scheduled, undefined),
      },
    };
  }
  const ctxs = kernelContexts(loaded);
  let chosen: KernelContext[];
  if (opts.kernel !== undefined) {
    chosen = ctxs.filter((c) => c.kernel.name === opts.kernel);
    if (chosen.length === 0) {
      throw new ConductorError(`no kernel named '${opts.kernel}' in ${file} (kernels: ${ctxs.map((c) => c.kernel.name).join(', ') || 'none'})`);
    }
  } else {
    chosen = ctxs.filter((c) => c.insns.length > 0);
    if (chosen.length === 0) throw new ConductorError(`${file} has no instructions to report on`);
  }
  return {
    ...base,
    kernels: chosen.map((c) => {
      const v = kernelView(c, file, opts.params);
      v.regions = regionViews(prepareKernel(loaded, c, { viewOnly: true }), v);
      return v;
    }),
  };
}

/**
 * The scheduling regions of `k` in a view of it: the original (`orig` undefined) or a reordering
 * whose row j holds the original instruction orig[j] (-1 for its waits and nops).
 */
export function regionViews(k: ScheduleKernel, view: KernelView, orig?: Int32Array): RegionView[] {
  const first = new Int32Array(k.regions.length).fill(-1);
  const last = new Int32Array(k.regions.length).fill(-1);
  const rows = orig ?? Int32Array.from({ length: k.n }, (_, i) => i);
  for (let j = 0; j < rows.length; j++) {
    const o = rows[j]!;
    if (o < 0 || k.role[o] !== ROLE.movable) continue;
    const r = k.regionOf[o]!;
    if (r < 0) continue;
    if (first[r]! < 0) first[r] = j;
    last[r] = j;
  }
  const code = view.code;
  return k.regions.map((rg, r) => {
    const start = first[r]!;
    const end = last[r]! + 1;
    let t0 = Infinity;
    let t1 = -Infinity;
    for (let j = start; j < end; j++) {
      if (code.issue[j]! < 0) continue;
      t0 = Math.min(t0, code.issue[j]! - code.wait[j]!);
      t1 = Math.max(t1, code.issue[j]! + code.cost[j]!);
    }
    return {
      id: rg.id, block: rg.block, lines: [code.line[start]!, code.line[end - 1]!], start, end, instructions: rg.nodes.length,
      cycles: t1 > t0 ? round2(t1 - t0) : 0,
    };
  });
}

/** The tag a move command moves: X of `move X before|after Y`. */
function movedTag(move: string): string | undefined {
  return /^move (\S+) /.exec(move)?.[1];
}

/** The moves grouped by the region of the instruction each moves, in region order. */
export function movesByRegion(a: Alignment, before?: readonly RegionView[], after?: readonly RegionView[]): RegionMoves[] {
  const k = a.k;
  const byRegion = new Map<number, string[]>();
  for (const m of a.moves) {
    const tag = movedTag(m);
    const i = tag !== undefined ? k.byTag.get(tag) : undefined;
    const r = i !== undefined ? k.regionOf[i]! : -1;
    let list = byRegion.get(r);
    if (!list) { list = []; byRegion.set(r, list); }
    list.push(m);
  }
  return [...byRegion.entries()].sort((x, y) => x[0] - y[0]).map(([r, moves]) => {
    const rg = k.regions[r];
    if (!rg) return { region: r, block: -1, labels: [], lines: [0, 0], instructions: 0, cycles: [0, 0], moves };
    const block = k.ctx.cfg.blocks[rg.block]!;
    return {
      region: r, block: rg.block, labels: block.start === rg.first ? block.labels : [], lines: rg.lines, instructions: rg.nodes.length,
      cycles: [before?.[r]?.cycles ?? 0, after?.[r]?.cycles ?? 0], moves,
    };
  });
}

/** Mark the instructions the moves move (the first tag of each `move X before Y`) in both kernels. */
function markMoved(a: Alignment, orig: Int32Array, before: KernelView, after: KernelView): void {
  const k = a.k;
  const movedOrig = new Uint8Array(k.n);
  for (const m of a.moves) {
    const tag = movedTag(m);
    const i = tag !== undefined ? k.byTag.get(tag) : undefined;
    if (i !== undefined) movedOrig[i] = 1;
  }
  before.code.moved = Array.from(movedOrig);
  after.code.moved = Array.from(orig, (o) => (o >= 0 && k.role[o] === ROLE.movable && movedOrig[o] ? 1 : 0));
}
