/** Every hazard rule, in the order findings are reported for one instruction. */
import type { HazardRule } from '../types.js';
import { REF } from './util.js';
import { valuSgprWriteVmemRead, valuExecWriteVmemRead } from './vmem-sgpr.js';
import { vgprWriteDppRead, vgprWriteDppReadOther, valuExecWriteDpp } from './dpp.js';
import { valuVccWriteDivFmas } from './div-fmas.js';
import { valuSgprWriteLaneSelect } from './lane-select.js';
import { setregGetreg, setregSetreg, setregTrapstsRfe, setregModeVector, setvskipGetregMode } from './setreg.js';
import { storeDataValuOverwrite } from './store-data.js';
import { saluM0WriteMsgGds, saluM0WriteLdsM0Read } from './m0.js';
import { valuVccExecWriteVcczRead } from './vccz-execz.js';
import {
  valuSgprWriteValuRead, valuExecWriteRwLane, valuVgprWriteReadlaneSrc0, dstSelForwarding, transWriteValuRead,
} from './cdna3-valu.js';
import { valuWritePermlaneSwap, cmpxWritePermlaneSwap } from './permlane.js';
import { xnackSoftClause } from './soft-clause.js';
import { shift64HighReg } from './shift64.js';
import { MFMA_RULES } from './mfma.js';
import { dotWriteRead, dotWriteOverwrite, dotWriteMfma } from './dot.js';
import { dgemmFma64, valuDgemmMemRead } from './dgemm.js';
import { MAI908_RULES } from './mai908.js';

export const ALL_RULES: readonly HazardRule[] = [
  valuSgprWriteVmemRead,
  valuExecWriteVmemRead,
  vgprWriteDppRead,
  vgprWriteDppReadOther,
  valuExecWriteDpp,
  valuVccWriteDivFmas,
  valuSgprWriteLaneSelect,
  setregGetreg,
  setregSetreg,
  setregTrapstsRfe,
  setregModeVector,
  setvskipGetregMode,
  storeDataValuOverwrite,
  saluM0WriteMsgGds,
  saluM0WriteLdsM0Read,
  valuVccExecWriteVcczRead,
  valuSgprWriteValuRead,
  valuExecWriteRwLane,
  valuVgprWriteReadlaneSrc0,
  dstSelForwarding,
  transWriteValuRead,
  valuWritePermlaneSwap,
  cmpxWritePermlaneSwap,
  xnackSoftClause,
  shift64HighReg,
  ...MFMA_RULES,
  dotWriteRead,
  dotWriteOverwrite,
  dotWriteMfma,
  dgemmFma64,
  valuDgemmMemRead,
  ...MAI908_RULES,
];

/** A rule by id. */
export function ruleById(id: string): HazardRule | undefined {
  return ALL_RULES.find((r) => r.id === id);
}

/**
 * Rules of the references that are not checked, and why (for the documentation).
 */
export const NOT_CHECKED: readonly { what: string; source: string; reason: string }[] = [
  {
    what: 'Mixed use of VCC: written through its SGPR alias and read by name, or the other way round -> VALU reads VCC as a constant: 1',
    source: 'CDNA3 ISA §4.5 Table 11 Case 14; MI200 ISA §4.5 Table 9',
    reason: 'Not expressible in assembly for these targets: VCC can only be named vcc/vcc_lo/vcc_hi; the SGPR numbers that alias it '
      + '(s106-s107) are rejected (s101 is the last SGPR: targets maxSgprs, measured with llvm-mc), so every access is by name.',
  },
  {
    what: 'SALU writes the SGPRs that hold VCC -> s_cbranch_vccz/vccnz: 1',
    source: 'MI200 ISA §3.9',
    reason: 'Same: the SGPR alias of VCC cannot be written in assembly; an SALU write that names VCC is interlocked by hardware (same section).',
  },
  {
    what: 'VALU writes SGPR/VCC -> VALU reads it as a lane mask or carry-in (v_cndmask select, v_addc/v_subb carry-in, implicit VCC of e32 forms)',
    source: 'CDNA3 ISA §4.5 Table 11 Case 18 ("VALU reads SGPR as carry-in: 0"); LLVM GCNHazardRecognizer::checkVALUHazards (2: stricter than the ISA)',
    reason: 'The ISA requires 0 wait states for a carry-in / lane-mask read (a v_cndmask select is read per lane like a carry-in); '
      + 'LLVM pads 2 (GCNHazardRecognizer::checkVALUHazards, stricter than the ISA). AMD\'s gfx942 Tensile kernels issue v_cndmask/v_addc right after the v_cmp that '
      + 'writes their mask 1,606 times. Reading the SGPR as a constant operand still needs 2 (rule valu-sgpr-write-valu-read).',
  },
  {
    what: 'Store wider than 64 bits -> a VMEM, FLAT or DS load overwrites its data VGPRs right after it',
    source: `${REF.cdna3} Table 11 Case 8 ("Write VGPRs holding writedata from those instructions: 1"); ${REF.mi200} §4.5 Table 9`,
    reason: 'A load writes its VGPRs when its data returns (counted by vmcnt/lgkmcnt, hundreds of cycles later), not at issue, so it '
      + 'cannot overwrite the data in the 1 wait state the store still reads it; only instructions that write VGPRs at issue (VALU, '
      + 'incl. v_accvgpr_write and v_writelane: rule store-data-valu-overwrite) can. LLVM checks VALU writers only '
      + '(GCNHazardRecognizer::checkVALUHazards -> checkVALUHazardsHelper) and its own output '
      + 'issues loads right after wide spill stores.',
  },
  {
    what: 'LLVM -amdgpu-mfma-padding-ratio padding between neighbouring MFMAs',
    source: 'LLVM GCNHazardRecognizer::checkMAIHazards90A (the optional -amdgpu-mfma-padding-ratio padding is for performance only)',
    reason: 'Performance padding, off by default; not a correctness rule.',
  },
  {
    what: 'GFX10+ hazards (VcmpxPermlane, VMEMtoScalarWrite, SMEMtoVectorWrite, LdsBranchVmemWAR, NSAtoVMEM, VALU partial forwarding, trans use, mask write, WMMA)',
    source: 'LLVM GCNSubtarget.h (the predicate is false on every GFX9 target)',
    reason: 'The features are false on gfx906, gfx908, gfx90a, gfx942 and gfx950.',
  },
];
