/**
 * Register pressure and occupancy of one kernel: peak live VGPR / AGPR / SGPR (where it is
 * reached), the highest registers used, what the descriptor declares, and waves per SIMD for
 * each of the three with the limiting resource (OCCUPANCY_LABELS names them). A descriptor that
 * does not cover the registers the code uses is an error (the hardware would allocate too few),
 * naming the first instruction that uses a register beyond it.
 *
 * On a unified VGPR/AGPR file (gfx90a+) the allocation is .amdhsa_next_free_vgpr, counting
 * both parts: a_k sits at v(accum_offset+k), and VGPRs at or above accum_offset are AGPR space
 * (layout.ts). Pressure and `used` split the file at accum_offset: what lies above it counts as
 * AGPRs, however the code names it.
 */
import { computeLiveness, computePressure, type Pressure } from './liveness.js';
import { computeOccupancy, declaredResources, DEFAULT_WAVES_PER_WORKGROUP, type OccupancyResult } from './occupancy.js';
import { boundedWorkgroupSize } from '../asm/metadata.js';
import type { Finding, KernelContext } from './types.js';
import { once } from './memo.js';
import type { Loc } from '../asm/ast.js';
import { kernelLayout, physicalIndex, type RegisterLayout } from '../isa/layout.js';
import { FLAT_SCRATCH_LO } from '../asm/registers.js';
import { forEachRegister, operandText, type RegisterVisit } from '../asm/store.js';
import { has, TRAIT, traitsOf } from '../isa/traits.js';
import { lineAt, lineFrom } from '../asm/include.js';

export interface PeakInfo {
  value: number;
  line?: number;
  /** The file of `line` when it is not the kernel's (an `.include`d file). */
  file?: string;
}

export interface KernelResources {
  peak: { vgpr: PeakInfo; agpr: PeakInfo; sgpr: PeakInfo };
  /** Highest index used + 1 per file. */
  used: { vgpr: number; agpr: number; sgpr: number };
  /** Peak per block: [block id, line of block start, vgpr, agpr, sgpr]. */
  perBlock: { block: number; line: number; vgpr: PeakInfo; agpr: PeakInfo; sgpr: PeakInfo }[];
  /** `vgprsOrAgprs`: gfx908's descriptor gives the larger of the two counts as `vgpr` (DeclaredResources). */
  declared?: DeclaredRegisters & DeclaredSgprs & { lds: number };
  /** LDS bytes per workgroup allocated at launch (--lds), counted with `declared.lds` in every occupancy. */
  ldsAtLaunch?: number;
  occupancy: {
    /** From the descriptor: what the hardware runs (absent without an .amdhsa_kernel descriptor). */
    descriptor?: OccupancyResult;
    /** From the registers the code uses (highest index + 1 per file) and the declared LDS. */
    registersUsed: OccupancyResult;
    /** From the peak live registers and the declared LDS: what a register allocation could reach. */
    peakLive: OccupancyResult;
  };
  pressure: Pressure;
  /** Where the kernel's AGPRs sit (accum_offset, declared or assumed). */
  layout: RegisterLayout;
  /** What was assumed (e.g. an accum_offset a snippet does not declare). */
  notes: string[];
}

/**
 * Registers, pressure and occupancy of a kernel, and the descriptor's coverage errors. Kept on the
 * context (memo.ts); the findings come in a new array each call.
 */
export function kernelResources(ctx: KernelContext): { resources: KernelResources; findings: Finding[] } {
  const r = once(ctx, 'kernelResources', () => computeResources(ctx));
  return { resources: r.resources, findings: r.findings.slice() };
}

function computeResources(ctx: KernelContext): { resources: KernelResources; findings: Finding[] } {
  const { cfg, insns, target } = ctx;
  const du = insns;
  const live = computeLiveness(cfg, du);
  const pressure = computePressure(cfg, du, live);
  const peakAt = (p: { value: number; at: number }): PeakInfo => {
    if (p.at < 0) return { value: p.value, line: undefined };
    return { value: p.value, ...lineFrom(cfg.insns[p.at]!.loc, ctx.kernel.loc) };
  };
  const peak = { vgpr: peakAt(pressure.peak.vgpr), agpr: peakAt(pressure.peak.agpr), sgpr: peakAt(pressure.peak.sgpr) };
  const perBlock = cfg.blocks.map((b, k) => {
    const p = pressure.perBlock[k]!;
    return {
      block: b.id, line: b.loc.line,
      vgpr: peakAt(p.vgpr), agpr: peakAt(p.agpr), sgpr: peakAt(p.sgpr),
    };
  });
  const findings: Finding[] = [];
  const values = ctx.kernel.descriptor?.values;
  let declared: KernelResources['declared'];
  let declaredOcc: OccupancyResult | undefined;
  const ldsBytes = kernelLdsBytes(ctx);
  const atLaunch = ctx.launch?.lds ?? 0;
  const wg = workgroupInput(ctx);
  const layout = kernelLayout(ctx.program, ctx.kernel, target);
  if (values) {
    const d = declaredResources(values, target, { xnack: ctx.xnack });
    declared = {
      vgpr: d.vgprs, agpr: d.agprs, sgpr: d.sgprs, ...(d.extraSgprs > 0 ? { reservedSgpr: d.extraSgprs } : {}), lds: d.ldsBytes, ...(d.vgprsOrAgprs ? { vgprsOrAgprs: true as const } : {}),
      ...(d.accumOffset !== undefined ? { accumOffset: d.accumOffset } : {}),
    };
    declaredOcc = computeOccupancy(target, { vgprs: d.vgprs, agprs: d.agprs, sgprs: d.sgprs, ldsBytes: d.ldsBytes + atLaunch, extraSgprs: d.extraSgprs, ...wg });
    const at: Loc = ctx.kernel.descriptor!.loc;
    const maxLds = target.occupancy.maxLdsPerWorkgroup;
    if (d.ldsBytes + atLaunch > maxLds.value) {
      const parts = atLaunch > 0 ? ` (${d.ldsBytes} B declared + ${atLaunch} B at launch, --lds)` : ' (.amdhsa_group_segment_fixed_size)';
      findings.push({
        rule: 'lds-size', severity: 'error', loc: at, insn: -1, related: [],
        message: `kernel '${ctx.kernel.name}' cannot launch: its workgroup's ${d.ldsBytes + atLaunch} B of LDS${parts} exceed the ${maxLds.value} B a workgroup may allocate on ${target.name}`,
        source: maxLds.source,
      });
    }
    for (const o of uncovered(ctx, layout, values, d.extraSgprs)) {
      findings.push({
        rule: 'descriptor-registers', severity: o.allocated ? 'warning' : 'error', loc: at, insn: -1,
        related: [{ loc: o.loc, message: `first use of ${o.first} beyond the descriptor`, insn: o.insn }],
        message: `kernel descriptor of '${ctx.kernel.name}' does not cover the registers used: ${o.message}`,
        source: 'AMDGPU code object: .amdhsa_next_free_vgpr/_sgpr/.amdhsa_accum_offset size the register allocation',
      });
    }
  }
  // Code that names VGPRs at or above accum_offset pins the AGPRs there: the allocation starts at it.
  const vgprs = layout.reusesAgprs ? Math.max(pressure.used.vgpr, layout.accumOffset!) : pressure.used.vgpr;
  const registersUsed = computeOccupancy(target, {
    vgprs, agprs: pressure.used.agpr, sgprs: pressure.used.sgpr, ldsBytes, ...wg,
  });
  const peakLive = computeOccupancy(target, {
    vgprs: peak.vgpr.value, agprs: target.registers.maxAgprs.value === 0 ? 0 : peak.agpr.value, sgprs: peak.sgpr.value, ldsBytes, ...wg,
  });
  const notes = layout.note ? [layout.note] : [];
  // a workgroup size the file states, when it decides an LDS limit: say where it comes from
  const wgFrom = launchWorkgroup(ctx);
  if (wgFrom && !ctx.launch?.workgroupSize && [declaredOcc, registersUsed, peakLive].some((o) => o?.limiter === 'lds')) {
    notes.push(`LDS is counted per workgroup of ${wgFrom.size} work-items (${wgFrom.from}); --workgroup-size N gives another`);
  }
  if (values && ldsBytes === 0 && ctx.launch?.lds === undefined && accessesLds(ctx)) {
    notes.push('the kernel accesses LDS but its descriptor declares none (.amdhsa_group_segment_fixed_size 0): LDS sized at launch ' +
      '(dynamic shared memory, as Triton and extern __shared__ give it) is not counted, so the occupancy figures may be too high; ' +
      '--lds BYTES counts it');
  }
  return {
    resources: {
      peak, used: pressure.used, perBlock, declared, ...(ctx.launch?.lds !== undefined ? { ldsAtLaunch: ctx.launch.lds } : {}), occupancy: { descriptor: declaredOcc, registersUsed, peakLive }, pressure, layout, notes,
    },
    findings,
  };
}

/** The declared LDS for messages, with what the launch adds (--lds): `4096 B LDS (+ 28672 B at launch, --lds)`. */
export function ldsText(declared: number, atLaunch: number | undefined, unit: string): string {
  return `${declared} ${unit} LDS${atLaunch !== undefined ? ` (+ ${atLaunch} ${unit} at launch, --lds)` : ''}`;
}

/**
 * LDS bytes per workgroup of a kernel's launch: what its descriptor declares
 * (.amdhsa_group_segment_fixed_size) and what the launch adds (--lds, KernelContext.launch).
 */
export function kernelLdsBytes(ctx: KernelContext): number {
  return (ctx.kernel.descriptor?.values['group_segment_fixed_size'] ?? 0) + (ctx.launch?.lds ?? 0);
}

/**
 * The launch's workgroup as an occupancy input: `wavesPerWorkgroup` (the work-items over the
 * wavefront size) when --workgroup-size gives them or the kernel's metadata bounds them
 * (`.reqd_workgroup_size`, or a `.max_flat_workgroup_size` below the size assumed), else
 * nothing (computeOccupancy assumes DEFAULT_WAVES_PER_WORKGROUP waves).
 */
export function workgroupInput(ctx: KernelContext): { wavesPerWorkgroup?: number } {
  const n = launchWorkgroup(ctx)?.size;
  return n === undefined ? {} : { wavesPerWorkgroup: Math.ceil(n / ctx.target.occupancy.wavefrontSize.value) };
}

/** The launch's work-items per workgroup and where the figure comes from, when known (workgroupInput). */
function launchWorkgroup(ctx: KernelContext): { size: number; from: string } | undefined {
  if (ctx.launch?.workgroupSize !== undefined) return { size: ctx.launch.workgroupSize, from: '--workgroup-size' };
  const b = ctx.kernel.launchBounds;
  const n = boundedWorkgroupSize(b, DEFAULT_WAVES_PER_WORKGROUP * ctx.target.occupancy.wavefrontSize.value);
  if (n === undefined) return undefined;
  return { size: n, from: b?.reqdWorkgroupSize ? "the metadata's .reqd_workgroup_size" : "the metadata's .max_flat_workgroup_size, the largest launch" };
}

/**
 * `allocated`: every register named lies within what the descriptor has the wave allocated, so
 * the code runs; the descriptor only understates it (a warning). VGPRs: next_free_vgpr rounded up
 * to the allocation granule (the descriptor encodes the count in granules). SGPRs: the count the
 * descriptor encodes (next_free_sgpr and the reserved SGPRs, rounded up to its granule) less the
 * reserved block at its top (VCC, FLAT_SCRATCH, XNACK_MASK): the hardware is given that count
 * alone, so an SGPR below the block is the wave's own (MIOpen's Winograd kernels use s101 with
 * next_free_sgpr 101).
 */
interface Uncovered { message: string; first: string; loc: Loc; insn: number; allocated: boolean }

/**
 * Registers the descriptor does not cover, per file: the highest one the code names and the
 * first instruction that names one beyond the descriptor. Registers as the code writes them.
 */
function uncovered(ctx: KernelContext, layout: RegisterLayout, values: Record<string, number>, reservedSgprs: number): Uncovered[] {
  const nextV = values.next_free_vgpr ?? 0;
  const nextS = values.next_free_sgpr ?? 0;
  const out: Uncovered[] = [];
  // the findings are at the descriptor
  const from = ctx.kernel.descriptor?.loc ?? ctx.kernel.loc;
  // per file: the highest register's end and name, and the first operand beyond the descriptor
  const worst = new Map<string, { end: number; name: string; first?: { operand: string; text: string; loc: Loc; insn: number } }>();
  // one visitor for every instruction (the one it visits is r, i)
  let r = ctx.insns[0]!;
  let i = 0;
  const visit: RegisterVisit = (oFile, oFirst, oCount, oIndex, at) => {
    let file: string;
    let last: number;
    let end: number;
    let limit: number;
    if (oFile === 'v' || oFile === 'a') {
      file = layout.unified ? 'v' : oFile;
      last = oIndex + oCount - 1;
      end = physicalIndex(layout, oFile, last) + 1;
      limit = nextV;
    } else if (oFile === 's' && oFirst < FLAT_SCRATCH_LO) {
      file = 's';
      last = Math.min(oFirst + oCount, FLAT_SCRATCH_LO) - 1;
      end = last + 1;
      limit = nextS;
    } else return;
    let w = worst.get(file);
    if (!w) { w = { end: 0, name: '' }; worst.set(file, w); }
    if (end > w.end) { w.end = end; w.name = spelled(oFile, last, layout); }
    if (end > limit && !w.first) {
      const operand = operandText(r.insn, at);
      w.first = { operand, text: `${operand} at ${lineAt(r.insn.loc, from)} ('${r.insn.text}')`, loc: r.insn.loc, insn: i };
    }
  };
  for (i = 0; i < ctx.insns.length; i++) {
    r = ctx.insns[i]!;
    forEachRegister(r.insn, visit);
  }
  // the VGPRs (and on gfx908 as many AGPRs) the wave gets: next_free_vgpr in whole granules
  const granule = ctx.target.registers.vgprAllocGranule.value;
  const allocV = Math.ceil(nextV / granule) * granule;
  // the SGPRs the descriptor encodes, and the wave's own below the reserved block at their top
  const sGranule = ctx.target.registers.sgprDescriptorGranule.value;
  const encodedS = Math.ceil((nextS + reservedSgprs) / sGranule) * sGranule;
  const ownS = encodedS - reservedSgprs;
  for (const [file, w] of worst) {
    if (!w.first) continue;
    // a directive written with a value that could not be evaluated is not missing (the parse warning says why)
    const written = (key: string) => ctx.kernel.descriptor?.directives?.some((d) => d.name === `.amdhsa_${key}`) ?? false;
    const missing = (key: string) => (values[key] !== undefined ? '' : written(key) ? ' (its value could not be evaluated)' : ' (the directive is missing)');
    const what = file === 's' ? `.amdhsa_next_free_sgpr is ${nextS}${missing('next_free_sgpr')}`
      : `.amdhsa_next_free_vgpr is ${nextV}${missing('next_free_vgpr')}${layout.unified ? '' : ` (on ${ctx.target.name} it counts max(VGPRs, AGPRs))`}`;
    const allocated = file === 's'
      ? values.next_free_sgpr !== undefined && w.end <= ownS
      : values.next_free_vgpr !== undefined && w.end <= allocV;
    const within = !allocated ? ''
      : file === 's'
        ? `; the descriptor encodes SGPRs in groups of ${sGranule} and the ${reservedSgprs} it reserves (VCC, FLAT_SCRATCH, XNACK_MASK) at their top, so the wave gets s0-s${Math.min(ownS, ctx.target.registers.maxSgprs.value) - 1} of its own and the code runs, but the descriptor understates what it uses`
        : `; ${ctx.target.name} allocates VGPRs in groups of ${granule}, so the wave gets ${allocV} and the code runs, but the descriptor understates what it uses`;
    out.push({
      message: `the highest register used is ${w.name}, but ${what} (the first use beyond it: ${w.first.text})${within}`,
      first: w.first.operand, loc: w.first.loc, insn: w.first.insn, allocated,
    });
  }
  return out;
}

/** v12, s40, or on a unified file a3 (v131 with accum_offset 128). */
function spelled(file: 'v' | 'a' | 's', index: number, layout: RegisterLayout): string {
  if (file === 'a' && layout.unified) return `a${index} (v${physicalIndex(layout, 'a', index)} with accum_offset ${layout.accumOffset})`;
  return `${file}${index}`;
}

/** The descriptor's register counts (KernelResources.declared; `accumOffset` on a unified register file, DeclaredResources). */
export interface DeclaredRegisters { vgpr: number; agpr: number; vgprsOrAgprs?: true; accumOffset?: number }

/**
 * The descriptor's SGPRs: `.amdhsa_next_free_sgpr`, and the SGPRs it reserves above them for
 * VCC, FLAT_SCRATCH and XNACK_MASK (the largest the kernel needs: declaredResources'
 * extraSgprs), which occupancy counts with them: `80 SGPR (+2 reserved)`.
 */
export interface DeclaredSgprs { sgpr: number; reservedSgpr?: number }

export function declaredSgprText(d: DeclaredSgprs): string {
  return `${d.sgpr} SGPR${d.reservedSgpr ? ` (+${d.reservedSgpr} reserved)` : ''}`;
}

/**
 * The descriptor's register counts as a reader should take them: gfx908's one count for both
 * files; on a unified file (gfx90a and later) with AGPRs, the registers allocated and where
 * accum_offset splits them (a compiler may pad the allocation, e.g. for amdgpu_waves_per_eu, so
 * AGPRs declared are not AGPRs used); else the two counts.
 */
export function declaredRegistersText(d: DeclaredRegisters): string {
  if (d.vgprsOrAgprs) return `${d.vgpr} VGPR or AGPR (the larger count: the descriptor does not split them)`;
  if (d.accumOffset !== undefined && d.agpr > 0) return `${d.vgpr + d.agpr} VGPR+AGPR (split at accum_offset ${d.accumOffset}: ${d.vgpr} VGPR, ${d.agpr} AGPR)`;
  return `${d.vgpr} VGPR, ${d.agpr} AGPR`;
}

/** Whether some instruction reads or writes LDS memory (a DS access other than a lane exchange, or an LDS-DMA load or store). */
function accessesLds(ctx: KernelContext): boolean {
  const t = traitsOf(ctx.insns);
  for (let i = 0; i < ctx.insns.length; i++) if (has(t, i, TRAIT.ldsMemory) || has(t, i, TRAIT.ldsDma)) return true;
  return false;
}
