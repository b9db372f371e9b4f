/**
 * gfx906: GCN5 (Vega 20), Radeon Instinct MI50 / MI60.
 * Also the target used for gfx900 input (LLVM's hazard tests use gfx900 for the GCN5 family);
 * see index.ts for what differs on gfx900.
 */
import {
  REF, MC, sourced, oracle, makeTarget, gfx9Counters, maxSgprs, maxVgprs, maxAgprs, maxNextFreeSgpr, sgprFile, extraSgprs, ldsGranule512, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures, ldsSize,
} from './common.js';

const T = 'gfx906';

export const gfx906 = makeTarget({
  name: T,
  products: 'Radeon Instinct MI50, MI60',
  family: 'GCN5 (GFX9, Vega 20); LLVM sched model SIQuarterSpeedModel',
  features: [
    'dl-insts', 'dot1-insts', 'dot2-insts', 'dot7-insts', 'dot10-insts', 'fma-mix', 'export', 'gds', 'xnack',
  ],
  featureNotes: {
    'mad-mix': 'v_mad_mix_* exist on gfx900 only; gfx906 has v_fma_mix_* (oracle: llvm-mc -mcpu=gfx900 accepts v_mad_mix_f32, -mcpu=gfx906 rejects it and accepts v_fma_mix_f32)',
  },
  targetIdFeatures: targetIdFeatures(T),
  registers: {
    maxVgprs: maxVgprs(T),
    maxAgprs: maxAgprs(T, false),
    maxSgprs: maxSgprs(T),
    unifiedVgprFile: sourced(false, `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (hasGFX90AInsts: no)`),
    vgprsPerSimd: sourced(256,
      `${REF.rocmSpecs} (VGPR file 256 KiB per CU = 4 SIMDs x 64 lanes x 256 x 4 bytes); ` +
      `${REF.gcnTimings} (occupancy table) (1 wave: 256 VGPRs); ` +
      oracle(`llc -mcpu=${T} on kernels clobbering v0..v{n-1}`, 'Occupancy 1 from 129 VGPRs, 2 from 85')),
    agprsPerSimd: sourced(0, 'no AGPRs (see maxAgprs)'),
    vgprAllocGranule: sourced(4,
      `${REF.gcnTimings} (occupancy table) (limits 24/28/32/36/40 VGPRs: multiples of 4); ` +
      oracle(`${MC} -mcpu=${T} -filetype=obj kd.s`, 'next_free_vgpr 4 -> GRANULATED_WORKITEM_VGPR_COUNT 0, 5 -> 1, 256 -> 63') + '; ' +
      oracle(`llc -mcpu=${T} VGPR sweep`, 'occupancy 10/9/8/7/6/5/4/3/2/1 from 1/25/29/33/37/41/49/65/85/129 VGPRs')),
    maxNextFreeVgpr: sourced(256, oracle(`${MC} -mcpu=${T} -filetype=obj kd.s with .amdhsa_next_free_vgpr 257`, '"value out of range"; 256 accepted')),
    maxNextFreeSgpr: maxNextFreeSgpr(T),
    ...sgprFile(T, `${REF.rocmSpecs} (SGPR file 12.5 KiB per CU = 3200 SGPRs = 800 per SIMD)`),
    extraSgprs: extraSgprs(T),
  },
  occupancy: {
    maxWavesPerSimd: sourced(10,
      `${REF.hipHardware} (up to 40 resident wavefronts per CU, 4 pools x up to 10); ${REF.gcnTimings} (occupancy table) (10 waves); ` +
      oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 10"')),
    simdsPerCu: SIMDS_PER_CU,
    ...ldsSize(T, 65536, `${REF.rocmSpecs} (LDS/CU 64 KiB)`),
    ldsAllocGranule: ldsGranule512(T, 'Stated in the MI200 (gfx90a) ISA; for gfx906 the LLVM measurement agrees. LLVM ignores the granule in its occupancy.'),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: false, unified: false }),
  counters: gfx9Counters(T),
});
