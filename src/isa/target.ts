/**
 * What a target is, as the ISA layer and everything above it ask about it: register files,
 * counters, features, occupancy rules. The five targets themselves are data in src/targets
 * (one file each), which sits above this layer.
 *
 * A target is data: every number carries the public document (targets/common.ts REF) or the oracle
 * measurement it comes from. Algorithms ask the Target for a feature; they never test its name.
 */

export type TargetName = 'gfx906' | 'gfx908' | 'gfx90a' | 'gfx942' | 'gfx950';

/** A fact with its source. `source` names a reference file (and section) or an oracle measurement. */
export interface Sourced<T> {
  value: T;
  source: string;
  /** When references disagree: what each says, and why `value` (the safe one) was chosen. */
  note?: string;
}

/**
 * Feature flags that gate instructions and rules. Names follow LLVM's subtarget features where
 * one exists, so they can be checked against llvm-mc.
 */
export type Feature =
  | 'mai'              // MFMA / v_accvgpr_* exist (gfx908+)
  | 'gfx90a-insts'     // unified VGPR/AGPR file, DGEMM (f64 MFMA), _1k bf16 MFMA, packed fp32
  | 'gfx940-insts'     // CDNA3: XDL/SGEMM split, fp8 MFMA, sc0/sc1/nt cache bits, no export
  | 'gfx950-insts'     // CDNA4: scaled f8f6f4 MFMA, new conversions, permlane swaps
  | 'xf32-insts'       // v_mfma_*_xf32 (gfx942 only)
  | 'fp8-insts'        // fp8/bf8 MFMA (gfx942+)
  | 'fp8-conversion-insts' // v_cvt_pk_fp8_f32 and the other fp8/bf8 conversions (gfx942+)
  | 'dot1-insts' | 'dot2-insts' | 'dot3-insts' | 'dot4-insts' | 'dot5-insts' | 'dot6-insts'
  | 'dot7-insts' | 'dot10-insts' | 'dot12-insts' | 'dot13-insts'
  | 'dl-insts'         // v_fmac_f32, v_xnor_b32 (gfx906+)
  | 'packed-fp32'      // v_pk_fma_f32, v_pk_mul_f32, v_pk_add_f32, v_pk_mov_b32 (gfx90a+)
  | 'export'           // exp instructions assemble (gfx906/908; llvm-mc 22 rejects them from gfx90a on)
  | 'gds'              // ds_* with the gds bit, ds_gws_* ... GDS exists (gfx906/908; removed on gfx90a+)
  | 'mad-mix'          // v_mad_mix* (gfx900 only: none of the five targets has it)
  | 'fma-mix'          // v_fma_mix* (gfx906+)
  | 'atomic-fadd'      // global/buffer atomic add f32 / pk_add_f16 without return (gfx908+)
  | 'atomic-fadd-rtn'  // ... with return (gfx90a+)
  | 'atomic-f64'       // global/buffer/flat f64 add/min/max (gfx90a+)
  | 'back-off-barrier' // s_barrier needs no full s_waitcnt before it (gfx90a+)
  | 'xnack'            // xnack_mask register addressable
  | 'architected-flat-scratch' // flat scratch base set up by hardware; .amdhsa_reserve_flat_scratch gone
  | 'lds-dma-dwordx3-4' // buffer/global load lds dwordx3/x4 (gfx950)
  | 'bf16-cvt-insts'   // v_cvt_pk_bf16_f32 etc. (gfx950)
  | 'permlane-swap'    // v_permlane16_swap / v_permlane32_swap (gfx950)
  | 'prng'             // v_prng_b32 (gfx950)
  | 'ashr-pk'          // v_ashr_pk_* (gfx950)
  | 'minimum3-maximum3-f32' // v_minimum3_f32 etc. (gfx950)
  ;

export interface CounterWidths {
  /** Maximum encodable value of each counter (2^bits - 1). */
  vmcnt: Sourced<number>;
  expcnt: Sourced<number>;
  lgkmcnt: Sourced<number>;
}

export interface RegisterFiles {
  /** Architectural VGPRs addressable by one wave (v0..v{n-1}). */
  maxVgprs: Sourced<number>;
  /** AGPRs addressable by one wave (0 when the target has none). */
  maxAgprs: Sourced<number>;
  /** SGPRs addressable by one wave, excluding VCC (s0..s{n-1}). */
  maxSgprs: Sourced<number>;
  /** VGPR + AGPR share one file per wave (gfx90a+): AGPRs follow VGPRs at .amdhsa_accum_offset. */
  unifiedVgprFile: Sourced<boolean>;
  /**
   * Registers per SIMD lane available to all waves (256 on GCN, 512 unified on gfx90a+).
   * On gfx908 this is the ArchVGPR file; the AccVGPR file is `agprsPerSimd`.
   */
  vgprsPerSimd: Sourced<number>;
  /** Separate AccVGPR file per SIMD lane (gfx908 only; 0 where there are no AGPRs or the file is unified). */
  agprsPerSimd: Sourced<number>;
  /** Allocation granularity (registers) for VGPRs (or the unified pool); also AGPRs on gfx908. */
  vgprAllocGranule: Sourced<number>;
  /** Granularity of .amdhsa_accum_offset (gfx90a+: 4). */
  accumOffsetGranule?: Sourced<number>;
  /** Largest value .amdhsa_next_free_vgpr accepts (the whole per-wave VGPR budget, AGPRs included on gfx90a+). */
  maxNextFreeVgpr: Sourced<number>;
  /** Largest value .amdhsa_next_free_sgpr accepts. */
  maxNextFreeSgpr: Sourced<number>;
  sgprsPerSimd: Sourced<number>;
  sgprAllocGranule: Sourced<number>;
  /**
   * The kernel descriptor's SGPR count (GRANULATED_WAVEFRONT_SGPR_COUNT) is in blocks of this
   * many: next_free_sgpr plus the reserved SGPRs, rounded up.
   */
  sgprDescriptorGranule: Sourced<number>;
  /**
   * SGPRs reserved on top of the program's own for VCC, FLAT_SCRATCH and XNACK_MASK. They are
   * not added up: the reserved block is the largest one enabled (VCC 2 < XNACK 4 < FLAT_SCRATCH 6).
   * The block is the top of the count the descriptor encodes (the hardware is given that count
   * alone, not next_free_sgpr).
   */
  extraSgprs: Sourced<{ vcc: number; flatScratch: number; xnack: number }>;
}

export interface OccupancyRules {
  /** Wave slots per SIMD (the occupancy ceiling). */
  maxWavesPerSimd: Sourced<number>;
  simdsPerCu: Sourced<number>;
  /** LDS bytes per CU (a workgroup's LDS limits how many workgroups fit). */
  ldsBytesPerCu: Sourced<number>;
  /** Largest LDS allocation one workgroup may make. */
  maxLdsPerWorkgroup: Sourced<number>;
  ldsAllocGranule: Sourced<number>;
  wavefrontSize: Sourced<number>;
  /** Largest workgroup, in waves (1024 work-items / 64). */
  maxWavesPerWorkgroup: Sourced<number>;
}

/** Defaults of the .amdhsa_reserve_* directives (what a kernel descriptor reserves when silent). */
export interface DescriptorDefaults {
  reserveVcc: Sourced<boolean>;
  /** Default of .amdhsa_reserve_flat_scratch; with architected flat scratch it cannot be changed. */
  reserveFlatScratch: Sourced<boolean>;
  /** Default of .amdhsa_reserve_xnack_mask when the target id leaves xnack unspecified ("any"). */
  reserveXnackMaskWhenAny: Sourced<boolean>;
  /** .amdhsa_accum_offset is required (gfx90a+); it must lie in [4..256] in steps of 4 and not exceed next_free_vgpr. */
  accumOffsetRequired: Sourced<boolean>;
}

export interface Target {
  name: TargetName;
  /** Product names, for messages (MI300X ...). */
  products: string;
  /** Scheduling model and family description. */
  family: string;
  features: ReadonlySet<Feature>;
  featureSources: Readonly<Partial<Record<Feature, string>>>;
  /** Target-id features (`gfx90a:sramecc+:xnack-`) that the target accepts. */
  targetIdFeatures: Sourced<readonly ('sramecc' | 'xnack')[]>;
  registers: RegisterFiles;
  occupancy: OccupancyRules;
  descriptor: DescriptorDefaults;
  counters: CounterWidths;
  /**
   * Largest immediate of s_nop that the fixer emits (s_nop N gives N+1 wait states): the safe
   * value where the references disagree (see the note).
   */
  maxNopImm: Sourced<number>;
  /** Largest s_nop immediate whose N+1 wait states the checker credits (LLVM's 4-bit reading). */
  maxNopImmCounted: Sourced<number>;
  has(f: Feature): boolean;
}

/**
 * Hardware generation as the hazard and timing tables group targets. It is derived from feature
 * flags only (see `generationOf`), never from the target name:
 *   gcn5  - no 'mai'                                   (gfx906)
 *   cdna1 - 'mai' without 'gfx90a-insts'               (gfx908)
 *   cdna2 - 'gfx90a-insts' without 'gfx940-insts'      (gfx90a)
 *   cdna3 - 'gfx940-insts' without 'gfx950-insts'      (gfx942)
 *   cdna4 - 'gfx950-insts'                             (gfx950)
 */
export type Generation = 'gcn5' | 'cdna1' | 'cdna2' | 'cdna3' | 'cdna4';

export const GENERATIONS: readonly Generation[] = ['gcn5', 'cdna1', 'cdna2', 'cdna3', 'cdna4'];

export function generationOf(t: Pick<Target, 'has'>): Generation {
  if (t.has('gfx950-insts')) return 'cdna4';
  if (t.has('gfx940-insts')) return 'cdna3';
  if (t.has('gfx90a-insts')) return 'cdna2';
  if (t.has('mai')) return 'cdna1';
  return 'gcn5';
}
