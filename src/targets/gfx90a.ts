/** gfx90a: CDNA2, Instinct MI200 series (MI210, MI250, MI250X). One unified VGPR/AGPR file per wave (AGPRs from .amdhsa_accum_offset). */
import {
  REF, sourced, oracle, makeTarget, gfx9Counters, ldsGranule512, WAVE64, SIMDS_PER_CU, MAX_WAVES_PER_WG, descriptorDefaults, targetIdFeatures, unifiedRegisters, ldsSize,
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
    'export': `References disagree. LLVM AMDGPU.td / GCNSubtarget.h feature predicates says exports exist on gfx90a (LLVM hasExportInsts = !GFX940Insts), and ` +
      'llc 22 does emit `exp mrt0 ... done` for an amdgpu_ps function on gfx90a; but llvm-mc 22 rejects every exp form on gfx90a ' +
      '("instruction not supported on this GPU") and llvm-objdump --mcpu=gfx90a does not decode the llc-encoded word (prints .long 0xc400080f). ' +
      'Chosen: absent, since llvm-mc is the judge of what assembles; compute kernels do not export.',
    'gds': `GDS removed on MI200 (${REF.mi200}); llvm-mc rejects ds_add_u32 ... gds`,
  },
  targetIdFeatures: targetIdFeatures(T),
  registers: unifiedRegisters(T),

  occupancy: {
    maxWavesPerSimd: sourced(8, oracle(`llc -mcpu=${T} on an empty kernel`, '"; Occupancy: 8"'),
      `No reference states the MI200 wave slots; ${REF.cdna4Notes} give 8 for the same 512-entry file on gfx950. LLVM 22 uses 8.`),
    simdsPerCu: SIMDS_PER_CU,
    ...ldsSize(T, 65536, `${REF.mi200} (LDS allocation) (64 KiB per CU)`),
    ldsAllocGranule: ldsGranule512(T),
    wavefrontSize: WAVE64(T),
    maxWavesPerWorkgroup: MAX_WAVES_PER_WG,
  },
  descriptor: descriptorDefaults(T, { architectedFlatScratch: false, unified: true }),
  counters: gfx9Counters(T),
});
