/** Every hazard rule, in the order findings are reported for one instruction. */
import type { HazardRule } from '../types.js';
import { valuSgprWriteVmemRead } from './vmem-sgpr.js';
import { vgprWriteDppRead, valuExecWriteDpp } from './dpp.js';
import { valuVccWriteDivFmas } from './div-fmas.js';
import { valuSgprWriteLaneSelect } from './lane-select.js';
import { setregGetreg, setregSetreg, setregTrapstsRfe, setregModeVector, setvskipGetregMode } from './setreg.js';
import { storeDataValuOverwrite, storeDataLoadOverwrite } from './store-data.js';
import { saluM0WriteMsgGds, saluM0WriteLdsM0Read } from './m0.js';
import { valuVccExecWriteVcczRead } from './vccz-execz.js';
import {
  valuSgprWriteValuRead, valuSgprWriteValuMaskRead, valuExecWriteRwLane, valuVgprWriteReadlaneSrc0, dstSelForwarding, transWriteValuRead,
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
  vgprWriteDppRead,
  valuExecWriteDpp,
  valuVccWriteDivFmas,
  valuSgprWriteLaneSelect,
  setregGetreg,
  setregSetreg,
  setregTrapstsRfe,
  setregModeVector,
  setvskipGetregMode,
  storeDataValuOverwrite,
  storeDataLoadOverwrite,
  saluM0WriteMsgGds,
  saluM0WriteLdsM0Read,
  valuVccExecWriteVcczRead,
  valuSgprWriteValuRead,
  valuSgprWriteValuMaskRead,
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
