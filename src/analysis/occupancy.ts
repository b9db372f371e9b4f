/**
 * Occupancy: how many waves of one kernel can be resident on each SIMD at once, and which
 * resource sets the limit. Every number comes from the Target (each with its source); this
 * file holds only the arithmetic.
 *
 * Model (per resource, then the minimum):
 *  - VGPRs: waves = floor(file / align(count, granule)).
 *      gfx906: ArchVGPR file of 256 per lane, granule 4.
 *      gfx908: ArchVGPR and AccVGPR files of 256 each, granule 4; each limits on its own.
 *      gfx90a+: one unified file of 512, granule 8; a wave holds align(VGPRs, 4) + AGPRs
 *               (AGPRs start at .amdhsa_accum_offset, a multiple of 4).
 *  - SGPRs: waves = floor(800 / align(SGPRs + reserved extras, 16)).
 *  - LDS: workgroups per CU = floor(LDS per CU / align(LDS per workgroup, granule)).
 *  - Wave slots: the target's maximum waves per SIMD.
 * Waves of a workgroup stay on one CU, so every resource is counted in whole workgroups:
 * with W waves per SIMD possible and S SIMDs per CU, floor(W * S / wavesPerWorkgroup)
 * workgroups fit, i.e. floor(workgroups * wavesPerWorkgroup / S) waves per SIMD on average
 * (rounded down: the SIMD with the fewest; at least 1 when one workgroup fits, 0 when none).
 * When wavesPerWorkgroup is not given, 4 waves (256 work-items of wave64) are assumed.
 *
 * Known differences from LLVM 22's "; Occupancy:" comment (both reported, ours the lower):
 *  - SGPRs 81-88 and 97-100: LLVM uses thresholds 80/88/100 (one wave more); see
 *    common.ts SGPR_FILE_NOTE.
 *  - LDS: LLVM ignores the LDS allocation granule and rounds waves per SIMD up (10 one-wave
 *    workgroups on 4 SIMDs -> 3); we align to the granule and round down (-> 2).
 */
import type { Target } from '../isa/target.js';

export type OccupancyLimiter = 'vgpr' | 'agpr' | 'sgpr' | 'lds' | 'waves';

export interface OccupancyInput {
  /** ArchVGPRs per wave (on gfx90a+ the VGPR part below accum_offset). */
  vgprs: number;
  /** AccVGPRs per wave (0 on gfx906). */
  agprs: number;
  /** SGPRs the program uses (.amdhsa_next_free_sgpr), without VCC/FLAT_SCRATCH/XNACK_MASK. */
  sgprs: number;
  /** LDS bytes per workgroup (.amdhsa_group_segment_fixed_size plus dynamic LDS). */
  ldsBytes: number;
  /** Waves per workgroup; default DEFAULT_WAVES_PER_WORKGROUP (4 = 256 work-items). */
  wavesPerWorkgroup?: number;
  /**
   * SGPRs reserved on top of `sgprs` for VCC / XNACK_MASK / FLAT_SCRATCH. Default: the
   * descriptor default of the target (FLAT_SCRATCH reserved, 6; see declaredResources).
   */
  extraSgprs?: number;
}

export interface OccupancyResult {
  /** Waves per SIMD that can be resident (0: the kernel cannot be launched). */
  wavesPerSimd: number;
  limiter: OccupancyLimiter;
  /** Waves per SIMD each resource alone allows (capped at the wave-slot limit). */
  byResource: { vgpr: number; agpr?: number; sgpr: number; lds: number; waves: number };
  /** What the hardware allocates per wave (and per workgroup for LDS). */
  allocated: { vgprs: number; agprs?: number; sgprs: number; ldsBytes: number };
  wavesPerWorkgroup: number;
  /** True when wavesPerWorkgroup was not given and the default was assumed. */
  assumedWavesPerWorkgroup: boolean;
  /** Explanations: assumptions made and inputs out of range. */
  notes: string[];
}

/** How the note on an assumed workgroup size begins (computeOccupancy writes it, ldsAssumption finds it). */
const WORKGROUP_UNKNOWN = 'workgroup size unknown: ';

/** Assumed when the caller does not know the workgroup size: 256 work-items of wave64. */
export const DEFAULT_WAVES_PER_WORKGROUP = 4;

export function alignUp(n: number, granule: number): number {
  return Math.ceil(n / granule) * granule;
}

function checkCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`occupancy: ${name} must be a non-negative integer, got ${n}`);
}

/** Registers one wave holds in the unified file (gfx90a+): align(VGPRs, 4) + AGPRs. */
export function unifiedVgprCount(target: Target, vgprs: number, agprs: number): number {
  const g = target.registers.accumOffsetGranule?.value ?? 4;
  return agprs > 0 ? alignUp(vgprs, g) + agprs : vgprs;
}

export function computeOccupancy(target: Target, input: OccupancyInput): OccupancyResult {
  const { vgprs, agprs, sgprs, ldsBytes } = input;
  checkCount('vgprs', vgprs);
  checkCount('agprs', agprs);
  checkCount('sgprs', sgprs);
  checkCount('ldsBytes', ldsBytes);
  const reg = target.registers;
  const occ = target.occupancy;
  const notes: string[] = [];
  const maxWaves = occ.maxWavesPerSimd.value;
  const simds = occ.simdsPerCu.value;

  const assumed = input.wavesPerWorkgroup === undefined;
  const wpg = input.wavesPerWorkgroup ?? DEFAULT_WAVES_PER_WORKGROUP;
  if (!Number.isInteger(wpg) || wpg < 1) throw new RangeError(`occupancy: wavesPerWorkgroup must be a positive integer, got ${wpg}`);
  if (assumed) {
    notes.push(`${WORKGROUP_UNKNOWN}assumed ${DEFAULT_WAVES_PER_WORKGROUP} waves per workgroup (${DEFAULT_WAVES_PER_WORKGROUP * occ.wavefrontSize.value} work-items)`);
  }
  if (wpg > occ.maxWavesPerWorkgroup.value) {
    notes.push(`${wpg} waves per workgroup exceeds the limit of ${occ.maxWavesPerWorkgroup.value} (${occ.maxWavesPerWorkgroup.source})`);
  }
  if (agprs > 0 && reg.maxAgprs.value === 0) {
    throw new RangeError(`occupancy: ${target.name} has no AGPRs (${reg.maxAgprs.source}), got agprs=${agprs}`);
  }

  /** Waves per SIMD allowed by a per-SIMD resource, counted in whole workgroups. */
  const wholeWorkgroups = (wavesPerSimd: number): number => {
    const wgs = Math.floor((wavesPerSimd * simds) / wpg);
    if (wgs < 1) return 0;
    return Math.min(maxWaves, Math.max(1, Math.floor((wgs * wpg) / simds)));
  };
  const fromFile = (file: number, used: number): number => (used > file ? 0 : Math.floor(file / used));

  // VGPRs / AGPRs.
  const vGranule = reg.vgprAllocGranule.value;
  let vgprAlloc: number;
  let agprAlloc: number | undefined;
  let vgprWaves: number;
  let agprWaves: number | undefined;
  if (reg.unifiedVgprFile.value) {
    const total = unifiedVgprCount(target, vgprs, agprs);
    vgprAlloc = alignUp(Math.max(total, 1), vGranule);
    vgprWaves = fromFile(reg.vgprsPerSimd.value, vgprAlloc);
    if (vgprs > reg.maxVgprs.value) notes.push(`${vgprs} VGPRs exceed v0..v${reg.maxVgprs.value - 1}`);
    if (agprs > reg.maxAgprs.value) notes.push(`${agprs} AGPRs exceed a0..a${reg.maxAgprs.value - 1}`);
    if (total > reg.maxNextFreeVgpr.value) notes.push(`${total} VGPRs+AGPRs exceed the per-wave budget of ${reg.maxNextFreeVgpr.value}`);
  } else {
    vgprAlloc = alignUp(Math.max(vgprs, 1), vGranule);
    vgprWaves = vgprs > reg.maxVgprs.value ? 0 : fromFile(reg.vgprsPerSimd.value, vgprAlloc);
    if (reg.agprsPerSimd.value > 0) {
      agprAlloc = alignUp(agprs, vGranule);
      agprWaves = agprs === 0 ? maxWaves : agprs > reg.maxAgprs.value ? 0 : fromFile(reg.agprsPerSimd.value, agprAlloc);
    }
  }

  // SGPRs.
  const extra = input.extraSgprs ?? reg.extraSgprs.value.flatScratch;
  checkCount('extraSgprs', extra);
  const sgprTotal = sgprs + extra;
  const sgprAlloc = alignUp(Math.max(sgprTotal, 1), reg.sgprAllocGranule.value);
  const sgprWaves = sgprs > reg.maxSgprs.value ? 0 : fromFile(reg.sgprsPerSimd.value, sgprAlloc);
  if (sgprs > reg.maxSgprs.value) notes.push(`${sgprs} SGPRs exceed s0..s${reg.maxSgprs.value - 1}`);

  // LDS: counted in workgroups directly.
  const ldsAlloc = ldsBytes === 0 ? 0 : alignUp(ldsBytes, occ.ldsAllocGranule.value);
  let ldsWaves: number;
  if (ldsBytes === 0) {
    ldsWaves = maxWaves;
  } else if (ldsBytes > occ.maxLdsPerWorkgroup.value || ldsAlloc > occ.ldsBytesPerCu.value) {
    ldsWaves = 0;
    notes.push(`${ldsBytes} bytes of LDS exceed the ${occ.maxLdsPerWorkgroup.value} a workgroup may allocate`);
  } else {
    const wgs = Math.floor(occ.ldsBytesPerCu.value / ldsAlloc);
    ldsWaves = Math.min(maxWaves, Math.max(1, Math.floor((wgs * wpg) / simds)));
  }

  const byResource: OccupancyResult['byResource'] = {
    vgpr: wholeWorkgroups(vgprWaves),
    sgpr: wholeWorkgroups(sgprWaves),
    lds: ldsBytes === 0 ? wholeWorkgroups(maxWaves) : Math.min(ldsWaves, wholeWorkgroups(maxWaves)),
    waves: wholeWorkgroups(maxWaves),
  };
  if (agprWaves !== undefined) byResource.agpr = wholeWorkgroups(agprWaves);

  const candidates: [OccupancyLimiter, number][] = [['vgpr', byResource.vgpr]];
  if (byResource.agpr !== undefined) candidates.push(['agpr', byResource.agpr]);
  candidates.push(['sgpr', byResource.sgpr], ['lds', byResource.lds]);
  const wavesPerSimd = Math.min(byResource.waves, ...candidates.map(([, n]) => n));
  // The wave-slot ceiling is named when nothing else is tighter.
  let limiter: OccupancyLimiter = 'waves';
  if (byResource.waves !== wavesPerSimd) {
    limiter = candidates.find(([, n]) => n === wavesPerSimd)![0];
  }
  if (wavesPerSimd === 0) notes.push(`the kernel cannot be launched: ${limiter} leaves no room for one workgroup of ${wpg} waves`);

  const allocated: OccupancyResult['allocated'] = { vgprs: vgprAlloc, sgprs: sgprAlloc, ldsBytes: ldsAlloc };
  if (agprAlloc !== undefined) allocated.agprs = agprAlloc;
  return { wavesPerSimd, limiter, byResource, allocated, wavesPerWorkgroup: wpg, assumedWavesPerWorkgroup: assumed, notes };
}

// ---------------------------------------------------------------------------------------------
// Kernel descriptor (.amdhsa_*) -> resources
// ---------------------------------------------------------------------------------------------

export interface DeclaredResources {
  vgprs: number;
  agprs: number;
  /** .amdhsa_next_free_sgpr (the program's SGPRs). */
  sgprs: number;
  /** SGPRs the descriptor reserves on top (VCC 2, XNACK_MASK 4, FLAT_SCRATCH 6: the largest enabled). */
  extraSgprs: number;
  ldsBytes: number;
  /**
   * Set on gfx908: .amdhsa_next_free_vgpr is the larger of the VGPRs and AGPRs used, so the
   * descriptor does not say how many of each (`vgprs` holds that larger count, `agprs` 0).
   */
  vgprsOrAgprs?: true;
  /**
   * On a unified register file (gfx90a and later): .amdhsa_accum_offset, where the AGPRs begin in
   * the .amdhsa_next_free_vgpr registers allocated (`vgprs` below it, `agprs` above).
   */
  accumOffset?: number;
  notes: string[];
}

export interface DeclaredOptions {
  /** xnack from the target id: true (xnack+), false (xnack-), undefined (any). */
  xnack?: boolean;
}

function directiveValue(values: Record<string, number>, key: string): number | undefined {
  for (const k of [key, `amdhsa_${key}`, `.amdhsa_${key}`]) {
    const v = values[k];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** A run of register counts [from, to] with the same waves per SIMD. */
export interface OccupancyRun { from: number; to: number; waves: number }

/**
 * The register counts 1..max grouped into runs of equal waves per SIMD, `wavesAt(count)` giving
 * the waves for a count: where the runs change are the occupancy breakpoints.
 */
export function occupancyRuns(max: number, wavesAt: (regs: number) => number): OccupancyRun[] {
  const runs: OccupancyRun[] = [];
  for (let x = 1; x <= max; x++) {
    const w = wavesAt(x);
    const last = runs[runs.length - 1];
    if (last && last.waves === w) last.to = x; else runs.push({ from: x, to: x, waves: w });
  }
  return runs;
}

/**
 * Turns the .amdhsa_* values of a kernel descriptor into occupancy inputs. Keys may be
 * written with or without the `.amdhsa_` prefix. Absent reserve_* directives take the
 * assembler's defaults (target.descriptor, measured with llvm-mc): VCC and FLAT_SCRATCH are
 * reserved, XNACK_MASK is reserved unless the target id says xnack-. With architected flat
 * scratch (gfx942, gfx950) FLAT_SCRATCH is always counted.
 *
 * On gfx90a+ .amdhsa_next_free_vgpr counts VGPRs and AGPRs together; AGPRs start at
 * .amdhsa_accum_offset. On gfx908 it is max(VGPRs, AGPRs), so the split is unknown; since the
 * two files limit independently, reporting all of it as VGPRs gives the same occupancy.
 */
export function declaredResources(values: Record<string, number>, target: Target, opts: DeclaredOptions = {}): DeclaredResources {
  const notes: string[] = [];
  const nextFreeVgpr = directiveValue(values, 'next_free_vgpr') ?? 0;
  const nextFreeSgpr = directiveValue(values, 'next_free_sgpr') ?? 0;
  const lds = directiveValue(values, 'group_segment_fixed_size') ?? 0;
  const reg = target.registers;
  const d = target.descriptor;

  let vgprs = nextFreeVgpr;
  let agprs = 0;
  let vgprsOrAgprs = false;
  let accumOffset: number | undefined;
  if (reg.unifiedVgprFile.value) {
    const accum = directiveValue(values, 'accum_offset');
    accumOffset = accum;
    if (accum === undefined) {
      notes.push(`.amdhsa_accum_offset missing (required on ${target.name}: ${d.accumOffsetRequired.source}); assumed no AGPRs`);
    } else {
      const g = reg.accumOffsetGranule?.value ?? 4;
      if (accum < g || accum > reg.maxVgprs.value || accum % g !== 0) {
        notes.push(`.amdhsa_accum_offset ${accum} is not in [${g}..${reg.maxVgprs.value}] in steps of ${g}`);
      }
      if (nextFreeVgpr > accum) {
        vgprs = accum;
        agprs = nextFreeVgpr - accum;
      }
    }
  } else if (reg.agprsPerSimd.value > 0) {
    notes.push(`${target.name}: .amdhsa_next_free_vgpr is max(VGPRs, AGPRs); counted as VGPRs (same occupancy)`);
    vgprsOrAgprs = true;
  }
  if (nextFreeVgpr > reg.maxNextFreeVgpr.value) notes.push(`.amdhsa_next_free_vgpr ${nextFreeVgpr} exceeds ${reg.maxNextFreeVgpr.value}`);
  if (nextFreeSgpr > reg.maxNextFreeSgpr.value) notes.push(`.amdhsa_next_free_sgpr ${nextFreeSgpr} exceeds ${reg.maxNextFreeSgpr.value}`);

  const flag = (key: string, dflt: boolean): boolean => {
    const v = directiveValue(values, key);
    return v === undefined ? dflt : v !== 0;
  };
  const reserveVcc = flag('reserve_vcc', d.reserveVcc.value);
  let reserveFlat = flag('reserve_flat_scratch', d.reserveFlatScratch.value);
  if (target.has('architected-flat-scratch') && !reserveFlat) {
    notes.push(`.amdhsa_reserve_flat_scratch is not accepted on ${target.name} (architected flat scratch); counted as reserved`);
    reserveFlat = true;
  }
  const xnackDefault = opts.xnack === undefined ? d.reserveXnackMaskWhenAny.value : opts.xnack;
  const reserveXnack = flag('reserve_xnack_mask', xnackDefault);
  if (opts.xnack !== undefined && reserveXnack !== opts.xnack) {
    notes.push(`.amdhsa_reserve_xnack_mask ${reserveXnack ? 1 : 0} does not match the target id (xnack${opts.xnack ? '+' : '-'})`);
  }
  const e = reg.extraSgprs.value;
  const extraSgprs = Math.max(reserveVcc ? e.vcc : 0, reserveXnack ? e.xnack : 0, reserveFlat ? e.flatScratch : 0);

  return {
    vgprs, agprs, sgprs: nextFreeSgpr, extraSgprs, ldsBytes: lds, ...(vgprsOrAgprs ? { vgprsOrAgprs: true as const } : {}),
    ...(accumOffset !== undefined ? { accumOffset } : {}), notes,
  };
}

// ---------------------------------------------------------------------------------------------
// The three occupancies of a kernel, named the same way by every command
// ---------------------------------------------------------------------------------------------

export type OccupancyKind = 'descriptor' | 'registersUsed' | 'peakLive';

/**
 * Labels, printed as `occupancy (<label>)`:
 *  - descriptor: from .amdhsa_next_free_vgpr / _sgpr, .amdhsa_accum_offset and the LDS size:
 *    what the hardware will run;
 *  - registers used: from the highest register of each file the code names (what a descriptor
 *    sized to the code would give);
 *  - peak live: from the most registers live at once (what a register allocation of this code
 *    could reach; the scheduler's `occupancy` metric).
 */
export const OCCUPANCY_LABELS: Record<OccupancyKind, string> = {
  descriptor: 'descriptor',
  registersUsed: 'registers used',
  peakLive: 'peak live',
};

export const OCCUPANCY_KINDS: readonly OccupancyKind[] = ['descriptor', 'registersUsed', 'peakLive'];

/**
 * What an LDS limit assumed about the launch, when it binds an occupancy the workgroup size was
 * not given for (LDS is allocated per workgroup: rocBLAS trsv, 41480 bytes in workgroups of 1024,
 * runs 4 waves per SIMD, not the 1 that 256 work-items give); undefined otherwise.
 */
export function ldsAssumption(o: Partial<Record<OccupancyKind, Pick<OccupancyResult, 'limiter' | 'assumedWavesPerWorkgroup' | 'notes'>>>): string | undefined {
  for (const kind of OCCUPANCY_KINDS) {
    const x = o[kind];
    if (x === undefined || x.limiter !== 'lds' || !x.assumedWavesPerWorkgroup) continue;
    const note = x.notes.find((n) => n.startsWith(WORKGROUP_UNKNOWN));
    if (note) return `lds limit with the ${note}; --workgroup-size N gives the launch's`;
  }
  return undefined;
}

/** `occupancy (descriptor) 4 waves/SIMD, limited by vgpr; occupancy (registers used) 7, limited by vgpr; ...` */
export function formatOccupancies(o: Partial<Record<OccupancyKind, { wavesPerSimd: number; limiter: string }>>, assumption?: string): string {
  const parts: string[] = [];
  for (const kind of OCCUPANCY_KINDS) {
    const x = o[kind];
    if (x === undefined) continue;
    parts.push(`occupancy (${OCCUPANCY_LABELS[kind]}) ${x.wavesPerSimd}${parts.length === 0 ? (x.wavesPerSimd === 1 ? ' wave/SIMD' : ' waves/SIMD') : ''}, limited by ${x.limiter}`);
  }
  if (o.descriptor === undefined) parts.push('no descriptor');
  return parts.join('; ') + (assumption !== undefined ? ` (${assumption})` : '');
}
