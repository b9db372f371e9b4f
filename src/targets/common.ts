/**
 * Facts shared by the five GFX9-family targets, the feature probes, and the helper that builds
 * a Target object. Each target file states its own numbers; this file holds only what is the
 * same everywhere (with its source) and the citation strings.
 *
 * Citation conventions:
 *  - a document is named by its public title (REF: the AMD ISA reference guides, LLVM's AMDGPU
 *    sources and documentation, ROCm's documentation) with its section, table or function;
 *  - an oracle measurement is written `oracle (LLVM 22.1.8): <command> -> <what it showed>`.
 *    `llvm-mc`, `llc` and `clang` are the tools in /usr/lib/llvm-22/bin.
 */
import type { Feature, Sourced, TargetName, Target, RegisterFiles, OccupancyRules, CounterWidths, DescriptorDefaults } from '../isa/target.js';

export const REF = {
  /** "AMD Instinct MI200" Instruction Set Architecture Reference Guide (2022). */
  mi200: 'AMD MI200 ISA',
  /** "AMD Instinct MI300" (CDNA3) Instruction Set Architecture Reference Guide. */
  cdna3: 'AMD CDNA3 ISA',
  /** AMD Instinct CDNA4 Instruction Set Architecture Reference Guide (gfx950). */
  cdna4: 'AMD CDNA4 ISA',
  /**
   * Approximate CDNA4 figures (latencies, an occupancy table) from scheduling notes written for
   * this project, not a published document: cited where they are compared with the sources.
   */
  cdna4Notes: 'the project\'s CDNA4 scheduling notes (approximate, unpublished)',
  /** AMD ROCm documentation, "GPU hardware specifications" (rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html). */
  rocmSpecs: 'ROCm GPU hardware specifications',
  /** AMD HIP documentation, "Hardware implementation" (rocm.docs.amd.com/projects/HIP). */
  hipHardware: 'HIP documentation, hardware implementation',
  /** LLVM "User Guide for AMDGPU Backend" (llvm.org/docs/AMDGPUUsage.html) and its per-target syntax pages (AMDGPUAsmGFX906). */
  llvmUsage: 'LLVM AMDGPUUsage and AMDGPUAsmGFX906',
  /** CLRX documentation, "GCN ISA Instruction Timings" (clrx.nativeboinc.org/wiki/GcnTimings). */
  gcnTimings: 'CLRX GCN instruction timings',
} as const;

/** LLVM release used for every oracle measurement quoted in the target files. */
export const ORACLE_LLVM = 'LLVM 22.1.8';
export const MC = 'llvm-mc -triple=amdgcn-amd-amdhsa';

export function sourced<T>(value: T, source: string, note?: string): Sourced<T> {
  return note === undefined ? { value, source } : { value, source, note };
}

export function oracle(command: string, showed: string): string {
  return `oracle (${ORACLE_LLVM}): ${command} -> ${showed}`;
}

// ---------------------------------------------------------------------------------------------
// Feature probes
// ---------------------------------------------------------------------------------------------

/**
 * How to ask LLVM whether a target has a feature. Exactly one of `asm` / `llc` is given.
 *
 * `asm`: assembly assembled with `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=<target> -filetype=obj`.
 * The feature is present iff at least one alternative assembles. Alternatives differ only in a
 * spelling that another feature decides (the "return" bit is `glc` before gfx940 and `sc0`
 * from gfx940 on; `.amdhsa_accum_offset` is required from gfx90a on and rejected before).
 *
 * `llc`: LLVM IR compiled with `llc -mtriple=amdgcn-amd-amdhsa -mcpu=<target> -O2`; the
 * feature is present iff the assembly printed matches the regular expression `presentIf`.
 */
export interface FeatureProbe {
  asm?: readonly string[];
  llc?: { readonly ir: string; readonly presentIf: string };
  /** What a positive answer shows. */
  shows: string;
}

const KD_HEAD = '.text\n.globl probe_k\n.p2align 8\n.type probe_k,@function\nprobe_k:\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel probe_k\n  .amdhsa_next_free_vgpr 1\n  .amdhsa_next_free_sgpr 1\n';

const BARRIER_IR = [
  'target triple = "amdgcn-amd-amdhsa"',
  'declare void @llvm.amdgcn.s.barrier()',
  'define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %v) {',
  '  store i32 %v, ptr addrspace(1) %p',
  '  call void @llvm.amdgcn.s.barrier()',
  '  ret void',
  '}',
  '',
].join('\n');

/** One probe per feature; scripts/probe-features.ts and test/oracle/targets-features.test.ts run them. */
export const FEATURE_PROBES: Readonly<Record<Feature, FeatureProbe>> = {
  'mai': { asm: ['v_accvgpr_write_b32 a0, v0'], shows: 'AGPRs and v_accvgpr_* exist (MAI)' },
  'gfx90a-insts': {
    asm: ['v_mfma_f64_4x4x4f64 a[0:1], v[0:1], v[2:3], a[0:1]'],
    shows: 'DGEMM (f64 MFMA) exists, a gfx90a instruction',
  },
  'gfx940-insts': {
    asm: ['global_load_dword v0, v[0:1], off sc0 sc1 nt'],
    shows: 'the CDNA3 cache-policy bits sc0/sc1/nt replace glc/slc',
  },
  'gfx950-insts': {
    asm: ['v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21'],
    shows: 'scaled f8f6f4 MFMA exists (CDNA4)',
  },
  'xf32-insts': { asm: ['v_mfma_f32_16x16x8_xf32 a[0:3], v[0:1], v[2:3], a[0:3]'], shows: 'xf32 MFMA exists' },
  'fp8-insts': { asm: ['v_mfma_f32_16x16x32_fp8_fp8 a[0:3], v[0:1], v[2:3], a[0:3]'], shows: 'fp8 MFMA exists' },
  'fp8-conversion-insts': { asm: ['v_cvt_pk_fp8_f32 v0, v1, v2'], shows: 'fp8 conversions exist' },
  'dot1-insts': { asm: ['v_dot4_i32_i8 v0, v1, v2, v3'], shows: 'v_dot4_i32_i8 / v_dot8_i32_i4' },
  'dot2-insts': { asm: ['v_dot2_i32_i16 v0, v1, v2, v3'], shows: 'v_dot2_i32_i16 / v_dot2_u32_u16' },
  'dot3-insts': { asm: ['v_dot8c_i32_i4 v0, v1, v2'], shows: 'v_dot8c_i32_i4' },
  'dot4-insts': { asm: ['v_dot2c_i32_i16 v0, v1, v2'], shows: 'v_dot2c_i32_i16' },
  'dot5-insts': { asm: ['v_dot2c_f32_f16 v0, v1, v2'], shows: 'v_dot2c_f32_f16' },
  'dot6-insts': { asm: ['v_dot4c_i32_i8 v0, v1, v2'], shows: 'v_dot4c_i32_i8' },
  'dot7-insts': { asm: ['v_dot4_u32_u8 v0, v1, v2, v3'], shows: 'v_dot4_u32_u8 / v_dot8_u32_u4' },
  'dot10-insts': { asm: ['v_dot2_f32_f16 v0, v1, v2, v3'], shows: 'v_dot2_f32_f16' },
  'dot12-insts': { asm: ['v_dot2_f32_bf16 v0, v1, v2, v3'], shows: 'v_dot2_f32_bf16' },
  'dot13-insts': { asm: ['v_dot2c_f32_bf16 v0, v1, v2'], shows: 'v_dot2c_f32_bf16' },
  'dl-insts': { asm: ['v_fmac_f32 v0, v1, v2'], shows: 'v_fmac_f32 (and v_xnor_b32)' },
  'packed-fp32': { asm: ['v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]'], shows: 'packed fp32 math' },
  'export': { asm: ['exp mrt0 v0, v0, v0, v0'], shows: 'export instructions exist' },
  'gds': { asm: ['ds_add_u32 v0, v1 gds'], shows: 'GDS (ds_* with the gds bit) exists' },
  'mad-mix': { asm: ['v_mad_mix_f32 v0, v1, v2, v3'], shows: 'v_mad_mix_* exist' },
  'fma-mix': { asm: ['v_fma_mix_f32 v0, v1, v2, v3'], shows: 'v_fma_mix_* exist' },
  'atomic-fadd': { asm: ['global_atomic_add_f32 v[0:1], v2, off'], shows: 'f32 atomic add without return' },
  'atomic-fadd-rtn': {
    asm: ['global_atomic_add_f32 v0, v[0:1], v2, off glc', 'global_atomic_add_f32 v0, v[0:1], v2, off sc0'],
    shows: 'f32 atomic add with return (glc before gfx940, sc0 from gfx940)',
  },
  'atomic-f64': { asm: ['global_atomic_add_f64 v[0:1], v[2:3], off'], shows: 'f64 atomic add' },
  'back-off-barrier': {
    llc: { ir: BARRIER_IR, presentIf: 'global_store_dword[^\\n]*\\n\\s*s_barrier' },
    shows: 'llc puts no s_waitcnt between a global store and s_barrier',
  },
  'xnack': { asm: ['s_mov_b64 xnack_mask, s[0:1]'], shows: 'xnack_mask is an addressable register' },
  'architected-flat-scratch': {
    asm: [
      KD_HEAD + '  .amdhsa_enable_private_segment 1\n.end_amdhsa_kernel\n',
      KD_HEAD + '  .amdhsa_enable_private_segment 1\n  .amdhsa_accum_offset 4\n.end_amdhsa_kernel\n',
    ],
    shows: '.amdhsa_enable_private_segment is accepted (it is "not supported without architected flat scratch")',
  },
  'lds-dma-dwordx3-4': { asm: ['buffer_load_dwordx4 off, s[0:3], 0 lds'], shows: 'LDS DMA of 16 bytes per lane' },
  'bf16-cvt-insts': { asm: ['v_cvt_pk_bf16_f32 v0, v1, v2'], shows: 'v_cvt_pk_bf16_f32' },
  'permlane-swap': { asm: ['v_permlane16_swap_b32 v0, v1'], shows: 'v_permlane16_swap_b32' },
  'prng': { asm: ['v_prng_b32 v0, v1'], shows: 'v_prng_b32' },
  'ashr-pk': { asm: ['v_ashr_pk_i8_i32 v0, v1, v2, v3'], shows: 'v_ashr_pk_i8_i32' },
  'minimum3-maximum3-f32': { asm: ['v_minimum3_f32 v0, v1, v2, v3'], shows: 'v_minimum3_f32' },
};

export const ALL_FEATURES: readonly Feature[] = Object.keys(FEATURE_PROBES) as Feature[];

/** The probe, as a one-line command for citations. */
export function probeCommand(f: Feature, target: string): string {
  const p = FEATURE_PROBES[f];
  if (p.llc) return `llc -mtriple=amdgcn-amd-amdhsa -mcpu=${target} -O2 (global store then s_barrier, see FEATURE_PROBES)`;
  const text = (p.asm ?? [])[0] ?? '';
  if (text.includes('\n')) return `${MC} -mcpu=${target} -filetype=obj (kernel descriptor, see FEATURE_PROBES)`;
  return `echo '${(p.asm ?? []).join("' or '")}' | ${MC} -mcpu=${target} -filetype=obj`;
}

/**
 * Reference sections that state a feature, beyond the probe. Where a reference states that a
 * target lacks or has a feature, it is quoted here; the probe remains the decider for
 * instruction availability.
 */
const FEATURE_REFERENCES: Partial<Record<Feature, string>> = {
  'mai': `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasMAIInsts)`,
  'gfx90a-insts': `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX90AInsts); ${REF.mi200} (what changed from MI100)`,
  'gfx940-insts': `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX940Insts)`,
  'gfx950-insts': `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX950Insts); ${REF.cdna4} (v_mfma_scale_*)`,
  'xf32-insts': `LLVM SISchedule.td and VOP3PInstructions.td (xf32: gfx942 only, not on gfx950)`,
  'export': `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasExportInsts = !GFX940Insts)`,
  'gds': `${REF.mi200} (what changed from MI100: GDS operations removed, GWS kept); LLVM SIInsertWaitcnts::updateEventWaitcntAfter`,
  'packed-fp32': `${REF.mi200} (what changed from MI100: V_PK_FMA_F32 ...)`,
  'atomic-f64': `${REF.mi200} (what changed from MI100: FP64 memory atomics)`,
  'back-off-barrier': `LLVM AMDGPU.td (FeatureBackOffBarrier) and SIInsertWaitcnts (no wait before s_barrier with it)`,
  'dot1-insts': `${REF.llvmUsage} (v_dot4_i32_i8, v_dot8_i32_i4 on gfx906)`,
  'dot10-insts': `${REF.llvmUsage} (v_dot2_f32_f16 on gfx906)`,
  'lds-dma-dwordx3-4': `LLVM SIInsertWaitcnts::updateEventWaitcntAfter (gfx950 also dwordx3/x4 LDS-DMA)`,
  'permlane-swap': `LLVM GCNHazardRecognizer::checkPermlaneHazards (gfx950 only)`,
};

/**
 * featureSources for a target: for each feature, the probe that decided it (present or absent)
 * and any reference that states it.
 */
export function featureSources(target: string, present: ReadonlySet<Feature>,
  notes: Partial<Record<Feature, string>> = {}): Partial<Record<Feature, string>> {
  const out: Partial<Record<Feature, string>> = {};
  for (const f of ALL_FEATURES) {
    const llc = FEATURE_PROBES[f].llc !== undefined;
    const verdict = present.has(f)
      ? (llc ? 'output matches (present)' : 'accepted (present)')
      : (llc ? 'output does not match (absent)' : 'rejected (absent)');
    const parts = [oracle(probeCommand(f, target), verdict)];
    const ref = FEATURE_REFERENCES[f];
    if (ref) parts.push(ref);
    const note = notes[f];
    if (note) parts.push(`note: ${note}`);
    out[f] = parts.join('; ');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Facts common to all five targets (GFX9 encodings)
// ---------------------------------------------------------------------------------------------

export function gfx9Counters(target: string, expcntNote?: string): CounterWidths {
  const probe = (c: string, max: number) =>
    oracle(`echo 's_waitcnt ${c}(${max + 1})' | ${MC} -mcpu=${target}`, `"too large value for ${c}"; ${c}(${max}) accepted`);
  return {
    vmcnt: sourced(63, `LLVM AMDGPUBaseInfo.cpp (waitcnt bit widths) and llvm/docs/AMDGPU/gfx9_waitcnt.rst (6 bits, split field); ${REF.mi200} §4.4 (S_WAITCNT counters); ${probe('vmcnt', 63)}`),
    expcnt: sourced(7, `LLVM AMDGPUBaseInfo.cpp (waitcnt bit widths) and llvm/docs/AMDGPU/gfx9_waitcnt.rst (3 bits); ${probe('expcnt', 7)}`, expcntNote),
    lgkmcnt: sourced(15, `LLVM AMDGPUBaseInfo.cpp (waitcnt bit widths) and llvm/docs/AMDGPU/gfx9_waitcnt.rst (4 bits); ${REF.cdna4} §4.4 (S_WAITCNT counters); ${probe('lgkmcnt', 15)}`),
  };
}

export const NOP_IMM_NOTE =
  `The references disagree. LLVM SIInstrInfo::getNumWaitStates / insertNoops: LLVM counts s_nop N as N+1 for the 4-bit immediate and emits up to s_nop 15, ` +
  `while ${REF.mi200} §4.4 (S_WAITCNT counters) says s_nop "can be repeated in hardware up to eight times" (3 bits). ` +
  `${REF.cdna3} §12 (SOPP, S_NOP: "Repeat NOP 1..16 times based on SIMM16[3:0]") agrees with LLVM for gfx942. ` +
  `The fixer emits chunks of at most s_nop 15 where the target's ISA text says 16 (gfx942), else at most s_nop 7 (safe for both readings; ` +
  `the CDNA4 text for gfx950 is not checked here); the checker credits up to 15 as LLVM does. ` +
  `llvm-mc itself accepts any 16-bit immediate (oracle: echo 's_nop 0xffff' | ${MC} -mcpu=gfx906 -> accepted), so the assembler sets no limit.`;

/**
 * Wait states of `s_nop imm`: the hardware repeats the NOP by the immediate's low four bits
 * (CDNA3 ISA §12 SOPP, S_NOP: "Repeat NOP 1..16 times based on SIMM16[3:0]"), so `s_nop 16` is
 * one wait state. LLVM never emits an immediate above 15 (SIInstrInfo::insertNoops), and its
 * getNumWaitStates (imm + 1) would credit 17: the ISA text covers the case, so it wins. Credited up
 * to `maxCounted` + 1 (the targets' maxNopImmCounted, NOP_IMM_NOTE).
 */
export function nopWaitStates(imm: number, maxCounted: number): number {
  return Math.min(imm & 15, maxCounted) + 1;
}

/** The targets whose own ISA text says S_NOP repeats up to 16 times (NOP_IMM_NOTE). */
const NOP_16: ReadonlySet<string> = new Set(['gfx942']);

export function nopImm(target: string): { maxNopImm: Sourced<number>; maxNopImmCounted: Sourced<number> } {
  return {
    maxNopImm: NOP_16.has(target)
      ? sourced(15, `${REF.cdna3} §12 (SOPP, S_NOP: "Repeat NOP 1..16 times based on SIMM16[3:0]"); LLVM SIInstrInfo::insertNoops (up to s_nop 15)`, NOP_IMM_NOTE)
      : sourced(7, `${REF.mi200} §4.4 (S_NOP repeats up to eight times); LLVM SIInstrInfo::getNumWaitStates / insertNoops`, NOP_IMM_NOTE),
    maxNopImmCounted: sourced(15, `LLVM SIInstrInfo::getNumWaitStates / insertNoops (LLVM 22.1 emits s_nop 15 on gfx908/90a/942/950)`, NOP_IMM_NOTE),
  };
}

export function maxSgprs(target: string): Sourced<number> {
  return sourced(102,
    `${REF.mi200} (GPR allocation: 16 to 102 SGPRs per wave); ${REF.cdna4} (architecture overview); ` +
    oracle(`echo 's_mov_b32 s102, 0' | ${MC} -mcpu=${target}`, 'error; s101 accepted'));
}

export function maxVgprs(target: string): Sourced<number> {
  return sourced(256,
    `${REF.mi200} (what changed from MI100: v0-v255); ${REF.cdna4} (architecture overview); ` +
    oracle(`echo 'v_mov_b32 v256, 0' | ${MC} -mcpu=${target}`, 'error; v255 accepted'));
}

export function maxAgprs(target: string, has: boolean): Sourced<number> {
  return has
    ? sourced(256, `${REF.mi200} (what changed from MI100: a0-a255); ` +
      oracle(`echo 'v_accvgpr_write_b32 a256, 0' | ${MC} -mcpu=${target}`, 'error; a255 accepted'))
    : sourced(0, oracle(`echo 'v_accvgpr_write_b32 a0, 0' | ${MC} -mcpu=${target}`, 'error (no AGPRs)'));
}

export function maxNextFreeSgpr(target: string): Sourced<number> {
  return sourced(102, oracle(`${MC} -mcpu=${target} -filetype=obj kd.s with .amdhsa_next_free_sgpr 103`,
    '"value out of range"; 102 accepted'));
}

/**
 * SGPR file: 800 per SIMD, allocated in granules of 16.
 * LLVM 22 disagrees at two ranges (see the note); we keep the lower (safe) answer.
 */
export const SGPR_FILE_NOTE =
  `Granule 16 with 800 SGPRs per SIMD gives 10 waves up to 80 SGPRs, 8 up to 96, 7 up to 112. ` +
  `LLVM 22 reports 10 waves up to 80, 9 up to 88, 8 up to 100 and 7 above ` +
  `(oracle: llc -mcpu=gfx906/gfx90a on a kernel whose inline asm clobbers s0..s{n-1}, "; Occupancy:" comment, ` +
  `counted on NumSGPRsForWavesPerEU), i.e. floor(800/waves) without the 16-granule: one wave more at 81-88 and 97-100 SGPRs. ` +
  `The kernel descriptor itself encodes SGPRs in granules of 8 (oracle: llvm-mc descriptor, next_free_sgpr 2 + 6 reserved -> ` +
  `GRANULATED_WAVEFRONT_SGPR_COUNT 0, 3 + 6 -> 1). We keep granule 16 (the references; never more waves than hardware).`;

export function sgprFile(target: string, perSimdSource: string): Pick<RegisterFiles, 'sgprsPerSimd' | 'sgprAllocGranule' | 'sgprDescriptorGranule'> {
  return {
    sgprsPerSimd: sourced(800, perSimdSource, SGPR_FILE_NOTE),
    sgprDescriptorGranule: sourced(8,
      `LLVM AMDGPUUsage (compute_pgm_rsrc1 GRANULATED_WAVEFRONT_SGPR_COUNT: SGPR blocks used by a wavefront, VCC, FLAT_SCRATCH and XNACK_MASK included); ` +
      oracle(`${MC} -mcpu=${target} -filetype=obj kd.s, reading GRANULATED_WAVEFRONT_SGPR_COUNT`,
        'next_free_sgpr 2 + 6 reserved -> 0, 3 + 6 -> 1; 101 + 2 (VCC alone, gfx906) -> 12 (104 SGPRs), 101 + 6 -> 13 (112)')),
    sgprAllocGranule: sourced(16,
      `${REF.mi200} (GPR allocation: SGPRs allocated in units of 16); ${REF.cdna4} (architecture overview: SGPRs in groups of 16)`,
      SGPR_FILE_NOTE + ` (target ${target})`),
  };
}

/**
 * Extra SGPRs: measured on the kernel descriptor. next_free_sgpr n with only VCC reserved
 * encodes n+2, with XNACK_MASK n+4, with FLAT_SCRATCH n+6; VCC together with XNACK gives n+4
 * (the largest, not the sum).
 */
export function extraSgprs(target: string): Sourced<{ vcc: number; flatScratch: number; xnack: number }> {
  return sourced({ vcc: 2, xnack: 4, flatScratch: 6 },
    `${REF.mi200} (GPR allocation: VCC in SGPR 106-107); ` +
    'LLVM GCNSubtarget::getBaseReservedNumSGPRs ("FLAT_SCRATCH, XNACK, VCC (in that order)": the block at the top of the count the descriptor encodes); ' +
    oracle(`${MC} -mcpu=${target} -mattr=-xnack -filetype=obj kd.s, varying .amdhsa_next_free_sgpr and .amdhsa_reserve_{vcc,flat_scratch,xnack_mask}, reading GRANULATED_WAVEFRONT_SGPR_COUNT`,
      'VCC alone adds 2, XNACK_MASK 4, FLAT_SCRATCH 6; VCC+XNACK adds 4 (largest, not sum)'));
}

/** LDS blocks of 512 bytes, as measured on the PAL resource register and stated for MI200. */
export function ldsGranule512(target: string, referenceNote?: string): Sourced<number> {
  return sourced(512,
    `${REF.mi200} (LDS allocation: allocated per work-group in blocks of 128 dwords); ` +
    oracle(`llc -mtriple=amdgcn--amdpal -mcpu=${target} on an amdgpu_cs function with an LDS array, reading COMPUTE_PGM_RSRC2.LDS_SIZE`,
      'field 1 for 512 bytes, 2 for 513 and 1024, 3 for 1025'),
    referenceNote);
}

export const WAVE64 = (target: string): Sourced<number> =>
  sourced(64, `${REF.hipHardware} (64 lanes); ${REF.cdna4} (architecture overview: wave size 64); target ${target}`);

export const SIMDS_PER_CU: Sourced<number> = sourced(4,
  `${REF.hipHardware} (four SIMD16 units per CU); ${REF.gcnTimings} (occupancy table); ${REF.cdna4} (architecture overview: 4 SIMDs per CU)`);

export const MAX_WAVES_PER_WG: Sourced<number> = sourced(16,
  `${REF.mi200} (work-groups and barriers: up to 16 waves, 1024 work-items, per work-group)`);

export function descriptorDefaults(target: string, opts: { architectedFlatScratch: boolean; unified: boolean }): DescriptorDefaults {
  const kd = `${MC} -mcpu=${target} -filetype=obj kd.s`;
  return {
    reserveVcc: sourced(true, oracle(`${kd} without .amdhsa_reserve_vcc`, 'same SGPR count as .amdhsa_reserve_vcc 1')),
    reserveFlatScratch: opts.architectedFlatScratch
      ? sourced(true, oracle(`${kd} with .amdhsa_reserve_flat_scratch 0`,
        '"directive is not supported with architected flat scratch"; the descriptor always counts 6 extra SGPRs'))
      : sourced(true, oracle(`${kd} without .amdhsa_reserve_flat_scratch`, '6 extra SGPRs counted (as with 1)')),
    reserveXnackMaskWhenAny: sourced(true, oracle(`${kd} (xnack unspecified) with .amdhsa_reserve_xnack_mask 0`,
      '".amdhsa_reserve_xnack_mask does not match target id"; default 1 with xnack any or +, 0 with -mattr=-xnack (where 1 is rejected)')),
    accumOffsetRequired: opts.unified
      ? sourced(true, oracle(`${kd} without .amdhsa_accum_offset`,
        '".amdhsa_accum_offset directive is required"; values must be in [4..256] in increments of 4, ≤ next_free_vgpr'))
      : sourced(false, oracle(`${kd} with .amdhsa_accum_offset 4`, '"directive requires gfx90a+"')),
  };
}

export interface TargetSpec {
  name: TargetName;
  products: string;
  family: string;
  features: readonly Feature[];
  featureNotes?: Partial<Record<Feature, string>>;
  targetIdFeatures: Sourced<readonly ('sramecc' | 'xnack')[]>;
  registers: RegisterFiles;
  occupancy: OccupancyRules;
  descriptor: DescriptorDefaults;
  counters: CounterWidths;
}

export function makeTarget(spec: TargetSpec): Target {
  const features: ReadonlySet<Feature> = new Set(spec.features);
  const { maxNopImm, maxNopImmCounted } = nopImm(spec.name);
  const t: Target = {
    name: spec.name,
    products: spec.products,
    family: spec.family,
    features,
    featureSources: Object.freeze(featureSources(spec.name, features, spec.featureNotes)),
    targetIdFeatures: spec.targetIdFeatures,
    registers: spec.registers,
    occupancy: spec.occupancy,
    descriptor: spec.descriptor,
    counters: spec.counters,
    maxNopImm,
    maxNopImmCounted,
    has: (f: Feature) => features.has(f),
  };
  return Object.freeze(t);
}

export function targetIdFeatures(target: string): Sourced<readonly ('sramecc' | 'xnack')[]> {
  return sourced(['sramecc', 'xnack'] as const,
    oracle(`${MC} -mcpu=${target} -mattr=+sramecc,-xnack on '.amdgcn_target "amdgcn-amd-amdhsa--${target}:sramecc+:xnack-"'`, 'accepted'),
    target === 'gfx906'
      ? `${REF.llvmUsage} says "sramecc not available on gfx906" and lists only gfx906:sramecc-:xnack±; LLVM 22 accepts gfx906:sramecc+. We accept both spellings (parsing only; no rule depends on sramecc).`
      : undefined);
}

/**
 * Register files of the unified-VGPR targets (gfx90a, gfx942, gfx950): one 512-entry pool per
 * SIMD lane holding a wave's VGPRs and AGPRs, the AGPRs from .amdhsa_accum_offset.
 */
export function unifiedRegisters(T: string): RegisterFiles {
  return {
  maxVgprs: maxVgprs(T),
  maxAgprs: maxAgprs(T, true),
  maxSgprs: maxSgprs(T),
  unifiedVgprFile: sourced(true, `${REF.mi200} (what changed from MI100; GPR allocation: one unified pool of up to 512: v0-v255 and a0-a255); LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX90AInsts)`),
  vgprsPerSimd: sourced(512,
    `${REF.cdna4Notes} (512-slot pool, 8-register granularity); ` +
    oracle(`llc -mcpu=${T} on kernels clobbering v0..v{n-1}`, 'occupancy 8/7/6/5/4/3/2 from 1/65/73/81/97/129/169 VGPRs; 128 VGPRs + 129 AGPRs (TotalNumVgprs 257) -> 1'),
    `${REF.cdna4Notes} also say "AGPRs use an independent pool with the same formula" and take the minimum; ` +
    `that contradicts ${REF.mi200} (one unified pool) and LLVM 22 (oracle: llc -mcpu=${T}, 10 VGPRs + 100 AGPRs -> TotalNumVgprs 112, Occupancy 4, where separate pools would give 5). ` +
    'The unified count align(VGPRs, 4) + AGPRs is never smaller than max(VGPRs, AGPRs), so it is also the safe choice.'),
  agprsPerSimd: sourced(0, 'AGPRs live in the unified file (vgprsPerSimd)'),
  vgprAllocGranule: sourced(8,
    `${REF.mi200} (GPR allocation: VGPRs are allocated in groups of 8); ${REF.cdna4} (architecture overview); ` +
    oracle(`${MC} -mcpu=${T} -filetype=obj kd.s`, 'next_free_vgpr 8 -> GRANULATED_WORKITEM_VGPR_COUNT 0, 9 -> 1, 512 -> 63')),
  accumOffsetGranule: sourced(4, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_accum_offset 6`,
    '"accum_offset should be in range [4..256] in increments of 4"; "accum_offset exceeds total VGPR allocation" when above next_free_vgpr')),
  maxNextFreeVgpr: sourced(512, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_next_free_vgpr 513`, '"value out of range"; 512 accepted')),
  maxNextFreeSgpr: maxNextFreeSgpr(T),
  ...sgprFile(T, `${REF.rocmSpecs} (SGPR file 12.5 KiB per CU = 800 per SIMD, stated for gfx906; assumed for the GFX9 family); ${REF.mi200} (GPR allocation)`),
  extraSgprs: extraSgprs(T),  };
}

/**
 * LDS per CU and the largest workgroup allocation: `bytes`, as llc measures it (one byte more is
 * "exceeds limit"), with the reference that states it when there is one.
 */
export function ldsSize(T: string, bytes: number, reference?: string, note?: string): Pick<OccupancyRules, 'ldsBytesPerCu' | 'maxLdsPerWorkgroup'> {
  return {
    ldsBytesPerCu: sourced(bytes, (reference ? `${reference}; ` : '')
      + oracle(`llc -mcpu=${T} on a kernel with a ${bytes + 1}-byte LDS array`, `"local memory (${bytes + 1}) exceeds limit (${bytes})"`), note),
    maxLdsPerWorkgroup: sourced(bytes, oracle(`llc -mcpu=${T}, LDS array of ${bytes} / ${bytes + 1} bytes`, `accepted / "exceeds limit (${bytes})"`)),
  };
}
