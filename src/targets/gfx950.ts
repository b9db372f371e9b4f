/** gfx950: CDNA4, Instinct MI350X, MI355X. One unified VGPR/AGPR file per wave (AGPRs from .amdhsa_accum_offset). */
import {
  REF, MC, sourced, oracle, makeTarget, gfx9Counters, maxSgprs, maxVgprs, maxAgprs, maxNextFreeSgpr,
  sgprFile, extraSgprs, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures,
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
    'xf32-insts': `xf32 MFMA removed on gfx950 (${REF.hazards} §3.2 "not available"; llvm-mc rejects it)`,
  },
  targetIdFeatures: targetIdFeatures(T),
  registers: {
    maxVgprs: maxVgprs(T),
    maxAgprs: maxAgprs(T, true),
    maxSgprs: maxSgprs(T),
    unifiedVgprFile: sourced(true, `${REF.mi200} "What changed in MI200" and "Registers" (one unified pool of up to 512: v0-v255 and a0-a255); ${REF.hazards} §0.1 (hasGFX90AInsts)`),
    vgprsPerSimd: sourced(512,
      `${REF.cdna4} "Occupancy and Register Pressure" (512-slot pool, 8-register granularity); ` +
      oracle(`llc -mcpu=${T} on kernels clobbering v0..v{n-1}`, 'occupancy 8/7/6/5/4/3/2 from 1/65/73/81/97/129/169 VGPRs; 128 VGPRs + 129 AGPRs (TotalNumVgprs 257) -> 1'),
      `${REF.cdna4} also says "AGPRs use an independent pool with the same formula" and takes the minimum; ` +
      `that contradicts ${REF.mi200} (one unified pool) and LLVM 22 (oracle: llc -mcpu=${T}, 10 VGPRs + 100 AGPRs -> TotalNumVgprs 112, Occupancy 4, where separate pools would give 5). ` +
      'The unified count align(VGPRs, 4) + AGPRs is never smaller than max(VGPRs, AGPRs), so it is also the safe choice.'),
    agprsPerSimd: sourced(0, 'AGPRs live in the unified file (vgprsPerSimd)'),
    vgprAllocGranule: sourced(8,
      `${REF.mi200} "Registers" (VGPRs are allocated in groups of 8); ${REF.cdna4} "Architecture Overview"; ` +
      oracle(`${MC} -mcpu=${T} -filetype=obj kd.s`, 'next_free_vgpr 8 -> GRANULATED_WORKITEM_VGPR_COUNT 0, 9 -> 1, 512 -> 63')),
    accumOffsetGranule: sourced(4, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_accum_offset 6`,
      '"accum_offset should be in range [4..256] in increments of 4"; "accum_offset exceeds total VGPR allocation" when above next_free_vgpr')),
    maxNextFreeVgpr: sourced(512, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_next_free_vgpr 513`, '"value out of range"; 512 accepted')),
    maxNextFreeSgpr: maxNextFreeSgpr(T),
    ...sgprFile(T, `${REF.gfx906wiki} §1 (SGPR file 12.5 KiB per CU = 800 per SIMD, stated for gfx906; assumed for the GFX9 family); ${REF.mi200} "Registers"`),
    extraSgprs: extraSgprs(T),
  },
  occupancy: {
    maxWavesPerSimd: sourced(8, `${REF.cdna4} "Occupancy and Register Pressure" (at most 8 waves/SIMD, 32/CU); ` + oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 8"')),
    simdsPerCu: SIMDS_PER_CU,
    ldsBytesPerCu: sourced(163840, `${REF.cdna4} "Architecture Overview" and "LDS Details" (160 KiB per CU); ` + oracle(`llc -mcpu=${T} on a kernel with a 163841-byte LDS array`, '"local memory (163841) exceeds limit (163840)"')),
    maxLdsPerWorkgroup: sourced(163840, oracle(`llc -mcpu=${T}, LDS array of 163840 / 163841 bytes`, 'accepted / "exceeds limit (163840)"')),
    ldsAllocGranule: sourced(1280, `${REF.cdna4} "Architecture Overview" (1280-byte allocation granularity)`,
      'The references disagree. Only the CDNA4 guide states the gfx950 granule (1280 bytes = 320 dwords; 160 KiB = 128 such blocks). ' +
      'LLVM 22 encodes gfx950 LDS in 2048-byte units: ' +
      oracle('llc -mtriple=amdgcn--amdpal -mcpu=gfx950, COMPUTE_PGM_RSRC2.LDS_SIZE', 'field 1 for 512..2048 bytes, 2 for 2049..4096') +
      ' (gfx906-gfx942 measure 512). Neither choice is lower for every size (32 KiB: 1280 gives 4 workgroups per CU, 2048 gives 5; ' +
      '1281 bytes: 1280 gives 2560 per workgroup, 2048 gives 2048), so the documented 1280 is kept. LLVM ignores the granule in its occupancy.'),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: true, unified: true }),
  counters: gfx9Counters(T, `${REF.cdna4} omits expcnt; the CDNA4 ISA calls it unused (${REF.hazards} §4.1); no export instructions`),
});
