/** gfx90a: CDNA2, Instinct MI200 series (MI210, MI250, MI250X). One unified VGPR/AGPR file per wave (AGPRs from .amdhsa_accum_offset). */
import {
  REF, MC, sourced, oracle, makeTarget, gfx9Counters, maxSgprs, maxVgprs, maxAgprs, maxNextFreeSgpr,
  sgprFile, extraSgprs, ldsGranule512, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures,
} from './common.js';

const T = 'gfx90a';

export const gfx90a = makeTarget({
  name: T,
  products: 'Instinct MI200 series (MI210, MI250, MI250X)',
  family: 'CDNA2 (GFX9); LLVM sched model SIDPFullSpeedModel',
  features: [
    'mai', 'gfx90a-insts', 'dl-insts', 'dot1-insts', 'dot2-insts', 'dot3-insts', 'dot4-insts', 'dot5-insts',
    'dot6-insts', 'dot7-insts', 'dot10-insts', 'fma-mix', 'packed-fp32', 'atomic-fadd', 'atomic-fadd-rtn', 'atomic-f64',
    'back-off-barrier', 'xnack',
  ],
  featureNotes: {
    'export': `References disagree. ${REF.hazards} §0.1 says exports exist on gfx90a (LLVM hasExportInsts = !GFX940Insts), and ` +
      'llc 22 does emit `exp mrt0 ... done` for an amdgpu_ps function on gfx90a; but llvm-mc 22 rejects every exp form on gfx90a ' +
      '("instruction not supported on this GPU") and llvm-objdump --mcpu=gfx90a does not decode the llc-encoded word (prints .long 0xc400080f). ' +
      'Chosen: absent, since llvm-mc is the judge of what assembles; compute kernels do not export.',
    'gds': `GDS removed on MI200 (${REF.mi200}); llvm-mc rejects ds_add_u32 ... gds`,
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
    maxWavesPerSimd: sourced(8, oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 8"'),
      `No reference states the MI200 wave slots; ${REF.cdna4} gives 8 for the same 512-entry file on gfx950. LLVM 22 uses 8.`),
    simdsPerCu: SIMDS_PER_CU,
    ldsBytesPerCu: sourced(65536, `${REF.mi200} "LDS" (64 KiB per CU); ` + oracle(`llc -mcpu=${T} on a kernel with a 65537-byte LDS array`, '"local memory (65537) exceeds limit (65536)"')),
    maxLdsPerWorkgroup: sourced(65536, oracle(`llc -mcpu=${T}, LDS array of 65536 / 65537 bytes`, 'accepted / "exceeds limit (65536)"')),
    ldsAllocGranule: ldsGranule512(T),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: false, unified: true }),
  counters: gfx9Counters(T),
});
