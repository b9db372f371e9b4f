/**
 * Register pressure and occupancy of one kernel: peak live VGPR / AGPR / SGPR (where it is
 * reached), the highest registers used, what the descriptor declares, and waves per SIMD for
 * each of the three with the limiting resource (OCCUPANCY_LABELS names them). A descriptor that does not cover the registers the code
 * uses is an error (the hardware would allocate too few).
 */
import { computeLiveness, computePressure, type Pressure } from '../analysis/liveness.js';
import { computeOccupancy, declaredResources, type OccupancyResult } from '../analysis/occupancy.js';
import type { Finding, KernelContext } from './types.js';
import type { Loc } from '../asm/ast.js';

export interface PeakInfo {
  value: number;
  line?: number;
}

export interface KernelResources {
  peak: { vgpr: PeakInfo; agpr: PeakInfo; sgpr: PeakInfo };
  /** Highest index used + 1 per file. */
  used: { vgpr: number; agpr: number; sgpr: number };
  /** Peak per block: [block id, line of block start, vgpr, agpr, sgpr]. */
  perBlock: { block: number; line: number; vgpr: PeakInfo; agpr: PeakInfo; sgpr: PeakInfo }[];
  declared?: { vgpr: number; agpr: number; sgpr: number; lds: number };
  occupancy: {
    /** From the descriptor: what the hardware runs (absent without an .amdhsa_kernel descriptor). */
    descriptor?: OccupancyResult;
    /** From the registers the code uses (highest index + 1 per file) and the declared LDS. */
    registersUsed: OccupancyResult;
    /** From the peak live registers and the declared LDS: what a register allocation could reach. */
    peakLive: OccupancyResult;
  };
  pressure: Pressure;
}

export function kernelResources(ctx: KernelContext): { resources: KernelResources; findings: Finding[] } {
  const { cfg, insns, target } = ctx;
  const du = insns.map((r) => ({ defs: r.defs, uses: r.uses }));
  const live = computeLiveness(cfg, du);
  const pressure = computePressure(cfg, du, live);
  const lineOf = (i: number) => (i >= 0 ? cfg.insns[i]!.loc.line : undefined);
  const peak = {
    vgpr: { value: pressure.peak.vgpr.value, line: lineOf(pressure.peak.vgpr.at) },
    agpr: { value: pressure.peak.agpr.value, line: lineOf(pressure.peak.agpr.at) },
    sgpr: { value: pressure.peak.sgpr.value, line: lineOf(pressure.peak.sgpr.at) },
  };
  const perBlock = cfg.blocks.map((b, k) => {
    const p = pressure.perBlock[k]!;
    return {
      block: b.id, line: b.loc.line,
      vgpr: { value: p.vgpr.value, line: lineOf(p.vgpr.at) },
      agpr: { value: p.agpr.value, line: lineOf(p.agpr.at) },
      sgpr: { value: p.sgpr.value, line: lineOf(p.sgpr.at) },
    };
  });
  const findings: Finding[] = [];
  const values = ctx.kernel.descriptor?.values;
  let declared: KernelResources['declared'];
  let declaredOcc: OccupancyResult | undefined;
  const ldsBytes = values?.group_segment_fixed_size ?? 0;
  if (values) {
    const d = declaredResources(values, target, { xnack: ctx.xnack });
    declared = { vgpr: d.vgprs, agpr: d.agprs, sgpr: d.sgprs, lds: d.ldsBytes };
    declaredOcc = computeOccupancy(target, { vgprs: d.vgprs, agprs: d.agprs, sgprs: d.sgprs, ldsBytes: d.ldsBytes, extraSgprs: d.extraSgprs });
    const at: Loc = ctx.kernel.descriptor!.loc;
    const used = pressure.used;
    const unified = target.registers.unifiedVgprFile.value;
    const over: string[] = [];
    if (used.vgpr > d.vgprs) over.push(`v${used.vgpr - 1} is used but the descriptor declares ${d.vgprs} VGPRs`);
    if (used.agpr > d.agprs && (unified || used.agpr > Math.max(d.agprs, d.vgprs))) {
      over.push(`a${used.agpr - 1} is used but the descriptor declares ${d.agprs} AGPRs`);
    }
    if (used.sgpr > d.sgprs) over.push(`s${used.sgpr - 1} is used but .amdhsa_next_free_sgpr is ${d.sgprs}`);
    for (const o of over) {
      findings.push({
        rule: 'descriptor-registers', severity: 'error', loc: at, insn: -1, related: [],
        message: `kernel descriptor of '${ctx.kernel.name}' does not cover the registers used: ${o}`,
        source: 'AMDGPU code object: .amdhsa_next_free_vgpr/_sgpr/.amdhsa_accum_offset size the register allocation',
      });
    }
  }
  const registersUsed = computeOccupancy(target, {
    vgprs: pressure.used.vgpr, agprs: pressure.used.agpr, sgprs: pressure.used.sgpr, ldsBytes,
  });
  const peakLive = computeOccupancy(target, {
    vgprs: peak.vgpr.value, agprs: target.registers.maxAgprs.value === 0 ? 0 : peak.agpr.value, sgprs: peak.sgpr.value, ldsBytes,
  });
  return {
    resources: { peak, used: pressure.used, perBlock, declared, occupancy: { descriptor: declaredOcc, registersUsed, peakLive }, pressure },
    findings,
  };
}
