/** gfx950: CDNA4, Instinct MI350X, MI355X. One unified VGPR/AGPR file per wave (AGPRs from .amdhsa_accum_offset). */
import {
  REF, sourced, oracle, makeTarget, gfx9Counters, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures, unifiedRegisters, ldsSize,
} from './common.js';

const T = 'gfx950';

export const gfx950 = makeTarget({
  name: T,
  products: 'Instinct MI350X, MI355X',
  family: 'CDNA4 (GFX9); LLVM sched model SIDPGFX950FullSpeedModel',
  features: [
    'mai', 'gfx90a-insts', 'dl-insts', 'dot1-insts', 'dot2-insts', 'dot3-insts', 'dot4-insts', 'dot5-insts',
    'dot6-insts', 'dot7-insts', 'dot10-insts', 'fma-mix', 'packed-fp32', 'atomic-fadd', 'atomic-fadd-rtn', 'atomic-f64',
    'back-off-barrier', 'xnack', 'gfx940-insts', 'fp8-insts', 'fp8-conversion-insts', 'architected-flat-scratch', 'gfx950-insts', 'dot12-insts',
    'dot13-insts', 'lds-dma-dwordx3-4', 'bf16-cvt-insts', 'permlane-swap', 'prng', 'ashr-pk', 'minimum3-maximum3-f32',
  ],
  featureNotes: {
    'xf32-insts': `xf32 MFMA removed on gfx950 (LLVM SISchedule.td has no gfx950 entry; llvm-mc rejects it)`,
  },
  targetIdFeatures: targetIdFeatures(T),
  registers: unifiedRegisters(T),

  occupancy: {
    maxWavesPerSimd: sourced(8, `${REF.cdna4Notes} (at most 8 waves/SIMD, 32/CU); ` + oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 8"')),
    simdsPerCu: SIMDS_PER_CU,
    ...ldsSize(T, 163840, `${REF.cdna4} (architecture overview: 160 KiB LDS per CU)`),
    ldsAllocGranule: sourced(1280, `${REF.cdna4Notes} (1280-byte LDS allocation granularity)`,
      'The references disagree. Only the project\'s CDNA4 scheduling notes state the gfx950 granule (1280 bytes = 320 dwords; 160 KiB = 128 such blocks). ' +
      'LLVM 22 encodes gfx950 LDS in 2048-byte units: ' +
      oracle('llc -mtriple=amdgcn--amdpal -mcpu=gfx950, COMPUTE_PGM_RSRC2.LDS_SIZE', 'field 1 for 512..2048 bytes, 2 for 2049..4096') +
      ' (gfx906-gfx942 measure 512). Neither choice is lower for every size (32 KiB: 1280 gives 4 workgroups per CU, 2048 gives 5; ' +
      '1281 bytes: 1280 gives 2560 per workgroup, 2048 gives 2048), so the documented 1280 is kept. LLVM ignores the granule in its occupancy.'),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: true, unified: true }),
  counters: gfx9Counters(T, `${REF.cdna4Notes} omit expcnt; ${REF.cdna4} §4.4 calls it unused; no export instructions`),
});
