/** gfx942: CDNA3, Instinct MI300X, MI300A, MI325X. One unified VGPR/AGPR file per wave (AGPRs from .amdhsa_accum_offset). */
import {
  REF, sourced, oracle, makeTarget, gfx9Counters, ldsGranule512, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures, unifiedRegisters, ldsSize,
} from './common.js';

const T = 'gfx942';

export const gfx942 = makeTarget({
  name: T,
  products: 'Instinct MI300X, MI300A, MI325X',
  family: 'CDNA3 (GFX9); LLVM sched model SIDPGFX942FullSpeedModel (gfx940/gfx941 input is checked as gfx942)',
  features: [
    'mai', 'gfx90a-insts', 'dl-insts', 'dot1-insts', 'dot2-insts', 'dot3-insts', 'dot4-insts', 'dot5-insts',
    'dot6-insts', 'dot7-insts', 'dot10-insts', 'fma-mix', 'packed-fp32', 'atomic-fadd', 'atomic-fadd-rtn', 'atomic-f64',
    'back-off-barrier', 'xnack', 'gfx940-insts', 'fp8-insts', 'fp8-conversion-insts', 'architected-flat-scratch', 'xf32-insts',
  ],
  targetIdFeatures: targetIdFeatures(T),
  registers: unifiedRegisters(T),

  occupancy: {
    maxWavesPerSimd: sourced(8, oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 8"'),
      `No reference states the MI300 wave slots; ${REF.cdna4Notes} give 8 for the same 512-entry file on gfx950. LLVM 22 uses 8.`),
    simdsPerCu: SIMDS_PER_CU,
    ...ldsSize(T, 65536, undefined, 'No reference states the MI300 LDS size; LLVM 22 allows 64 KiB.'),
    ldsAllocGranule: ldsGranule512(T, 'Stated in the MI200 ISA; no CDNA3 reference gives it; the LLVM measurement agrees. LLVM ignores the granule in its occupancy.'),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: true, unified: true }),
  counters: gfx9Counters(T, `No export instructions on gfx942 (LLVM AMDGPU.td / GCNSubtarget.h feature predicates); ${REF.cdna3} §4.4 counts only GWS on EXP_CNT`),
});
