/** gfx908: CDNA1, Instinct MI100. Separate ArchVGPR and AccVGPR files. */
import {
  REF, MC, sourced, oracle, makeTarget, gfx9Counters, maxSgprs, maxVgprs, maxAgprs, maxNextFreeSgpr, sgprFile, extraSgprs, ldsGranule512, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures, ldsSize,
} from './common.js';

const T = 'gfx908';

const NO_REF_908 = 'None of the documents cited here states the gfx908 register files or wave slots; the value is the LLVM 22 measurement.';

export const gfx908 = makeTarget({
  name: T,
  products: 'Instinct MI100',
  family: 'CDNA1 (GFX9); LLVM sched model SIQuarterSpeedModel',
  features: [
    'mai', 'dl-insts', 'dot1-insts', 'dot2-insts', 'dot3-insts', 'dot4-insts', 'dot5-insts', 'dot6-insts',
    'dot7-insts', 'dot10-insts', 'fma-mix', 'export', 'gds', 'atomic-fadd', 'xnack',
  ],
  featureNotes: {
    'atomic-fadd-rtn': 'gfx908 has the no-return f32 atomic add only: with a return value llvm-mc says "invalid operand for instruction"',
  },
  targetIdFeatures: targetIdFeatures(T),
  registers: {
    maxVgprs: maxVgprs(T),
    maxAgprs: maxAgprs(T, true),
    maxSgprs: maxSgprs(T),
    unifiedVgprFile: sourced(false, `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX90AInsts: no); ${REF.mi200} (what changed from MI100) (the unified pool is new in MI200)`),
    vgprsPerSimd: sourced(256,
      oracle(`llc -mcpu=${T} on kernels clobbering v0..v{n-1}`, 'same breakpoints as gfx906: occupancy 10/9/8/7/6/5/4/3/2/1 from 1/25/29/33/37/41/49/65/85/129 VGPRs'),
      NO_REF_908),
    agprsPerSimd: sourced(256,
      oracle(`llc -mcpu=${T} on kernels clobbering v0..v{n-1} and a0..a{m-1}`,
        'occupancy follows max(n, m) alone: (10 V, 100 A) -> 2, (100 V, 10 A) -> 2, (64, 64) -> 4, (65, 64) -> 3, (0, 256) -> 1; .amdhsa_next_free_vgpr = max(n, m)'),
      NO_REF_908),
    vgprAllocGranule: sourced(4,
      oracle(`${MC} -mcpu=${T} -filetype=obj kd.s`, 'next_free_vgpr 4 -> GRANULATED_WORKITEM_VGPR_COUNT 0, 5 -> 1, 256 -> 63') + '; ' +
      oracle(`llc -mcpu=${T} VGPR sweep`, 'breakpoints at multiples of 4 (25, 29, 33, 37, 41, 49, 65, 85, 129)'),
      NO_REF_908),
    maxNextFreeVgpr: sourced(256, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_next_free_vgpr 257`, '"value out of range"; 256 accepted'),
      'On gfx908 the descriptor VGPR count is max(VGPRs, AGPRs) (oracle: llc -mcpu=gfx908, 10 VGPRs + 100 AGPRs -> .amdhsa_next_free_vgpr 100).'),
    maxNextFreeSgpr: maxNextFreeSgpr(T),
    ...sgprFile(T, `${REF.rocmSpecs} (SGPR file 12.5 KiB per CU = 800 per SIMD, stated for gfx906; assumed for the GFX9 family)`),
    extraSgprs: extraSgprs(T),
  },
  occupancy: {
    maxWavesPerSimd: sourced(10, oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 10"'), NO_REF_908),
    simdsPerCu: SIMDS_PER_CU,
    ...ldsSize(T, 65536, undefined, 'No reference states the gfx908 LDS size; LLVM 22 allows 64 KiB.'),
    ldsAllocGranule: ldsGranule512(T, 'Stated in the MI200 (gfx90a) ISA; for gfx908 the LLVM measurement agrees. LLVM ignores the granule in its occupancy.'),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: false, unified: false }),
  counters: gfx9Counters(T),
});
