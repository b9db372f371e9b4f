/**
 * Hardware-register hazards: s_setreg followed by s_getreg/s_setreg of the same register (2),
 * s_setreg of TRAPSTS followed by s_rfe (1), a MODE write followed by a vector instruction (2,
 * the VSKIP rule) and s_setvskip followed by s_getreg of MODE (2).
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, anyWithin, factWait, need, REF } from './util.js';
import type { HazardInsn } from '../context.js';
import { HWREG_IDS, hwregField, hwregId } from '../../isa/hwreg.js';

/** Moved to src/isa/hwreg.ts (the index-mode tracking in src/isa reads s_setreg of MODE too). */
export { HWREG_IDS, hwregField, hwregId };
import { MODE_SOURCE, MODE_VSKIP_BIT, modeFieldsIn } from '../mode-register.js';

const ID_MODE = 1;
const ID_TRAPSTS = 3;

/**
 * Does this s_setreg possibly write MODE.VSKIP? Only a write whose bit field covers bit 28
 * (mode-register.ts) does; a field that cannot be decoded is assumed to cover it (safe).
 */
export function mayWriteVskip(p: HazardInsn): boolean {
  if (!isSetreg(p) || !sameHwreg(ID_MODE, hwregId(p.insn))) return false;
  const f = hwregField(p.insn);
  return !f || (MODE_VSKIP_BIT >= f.offset && MODE_VSKIP_BIT < f.offset + f.size);
}

/** "bits 27..28 (GPR_IDX_EN, VSKIP)" for the MODE write of an s_setreg, or "" when undecidable. */
function modeWriteText(p: HazardInsn): string {
  const f = hwregField(p.insn);
  if (!f) return 'a MODE field it names by expression, possibly VSKIP';
  const names = modeFieldsIn(f.offset, f.size).map((x) => x.name).join(', ');
  return `MODE bits ${f.offset}..${f.offset + f.size - 1} (${names})`;
}

function isSetreg(f: HazardInsn): boolean {
  return f.name === 's_setreg_b32' || f.name === 's_setreg_imm32_b32';
}

/** Same register, or undecidable (then assume the same: safe). */
function sameHwreg(a: number | undefined, b: number | undefined): boolean {
  return a === undefined || b === undefined || a === b;
}

const GET_FACT: WaitStateFact = {
  what: 's_setreg of hwreg X -> s_getreg of hwreg X',
  w: all(2),
  source: `LLVM GCNHazardRecognizer::checkGetRegHazards; ${REF.cdna3} Table 11 Case 1; ${REF.mi200} §4.5 Table 9`,
  note: 'Same register id (offset/size ignored), as LLVM; an id we cannot decode is assumed to be the same.',
};
const SET_FACT: WaitStateFact = {
  what: 's_setreg of hwreg X -> s_setreg of hwreg X',
  w: all(2),
  source: `LLVM GCNHazardRecognizer::checkSetRegHazards (getSetRegWaitStates() = 2 on all five); ${REF.cdna3} Table 11 Case 2; ${REF.mi200} §4.5 Table 9`,
};
const RFE_FACT: WaitStateFact = {
  what: 's_setreg of TRAPSTS -> s_rfe_b64 / s_rfe_restore_b64',
  w: all(1),
  source: `LLVM GCNHazardRecognizer::checkRFEHazards; ${REF.cdna3} Table 11 Case 15 ("RFE, RFE_restore"); ${REF.mi200} §4.5 Table 9`,
  note: 'LLVM checks s_rfe_b64 only; the ISA names RFE_restore too: both are checked.',
};
const VSKIP_FACT: WaitStateFact = {
  what: 's_setreg whose MODE bit field covers VSKIP (bit 28) -> any vector instruction',
  w: all(2),
  source: `${REF.cdna3} Table 11 Case 4; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11; MODE layout: ${MODE_SOURCE}`,
  llvm: all(0),
  note: 'Not modeled by LLVM (Mesa ACO does it, aco_insert_NOPs.cpp). Only a write whose hwreg(HW_REG_MODE, offset, size) '
    + 'field (or raw simm16) covers bit 28 (VSKIP) is a producer; the FP round/denorm writes compilers emit are not. '
    + 'A field given by an expression is assumed to cover it. "Requires two nops or non-vector instructions": a vector '
    + 'instruction in between is itself a consumer of this rule.',
};
const SETVSKIP_FACT: WaitStateFact = {
  what: 's_setvskip -> s_getreg of MODE',
  w: all(2),
  source: `${REF.cdna3} Table 11 Case 3; ${REF.mi200} §4.5 Table 9; the ISA wait-state tables (CDNA3 ISA §4.5 Table 11, MI200 ISA §4.5 Table 9, CDNA4 ISA §4.5 Table 11; rules LLVM does not implement)`,
  llvm: all(0),
  note: 'Not modeled by LLVM.',
};

function setregWithin(h: Parameters<HazardRule['check']>[0], i: number, fact: WaitStateFact,
  id: number | undefined, match: (pid: number | undefined) => boolean) {
  const out = [] as ReturnType<typeof need>[];
  const w = factWait(h, fact);
  const list = h.producers(i, 'setreg', w, isSetreg);
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    if (d < w && match(hwregId(h.f[j]!.insn))) out.push(need(j, d, w, `accesses hwreg ${id ?? '?'} set by`, fact));
  }
  return out;
}

export const setregGetreg: HazardRule = {
  id: 'setreg-getreg',
  present: (h) => h.has('setreg', isSetreg),
  description: 's_getreg reads a hardware register less than 2 wait states after s_setreg wrote it.',
  appliesTo: () => true,
  source: GET_FACT.source,
  facts: [GET_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 's_getreg_b32') return undefined;
    const id = hwregId(c.insn);
    return setregWithin(h, i, GET_FACT, id, (pid) => sameHwreg(id, pid));
  },
};

export const setregSetreg: HazardRule = {
  id: 'setreg-setreg',
  present: (h) => h.has('setreg', isSetreg),
  description: 's_setreg writes a hardware register less than 2 wait states after another s_setreg of it.',
  appliesTo: () => true,
  source: SET_FACT.source,
  facts: [SET_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!isSetreg(c)) return undefined;
    const id = hwregId(c.insn);
    return setregWithin(h, i, SET_FACT, id, (pid) => sameHwreg(id, pid));
  },
};

export const setregTrapstsRfe: HazardRule = {
  id: 'setreg-trapsts-rfe',
  present: (h) => h.has('setreg', isSetreg),
  description: 's_rfe follows an s_setreg of TRAPSTS without a wait state.',
  appliesTo: () => true,
  source: RFE_FACT.source,
  facts: [RFE_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 's_rfe_b64' && c.name !== 's_rfe_restore_b64') return undefined;
    return setregWithin(h, i, RFE_FACT, ID_TRAPSTS, (pid) => sameHwreg(ID_TRAPSTS, pid));
  },
};

function isVectorOp(f: HazardInsn): boolean {
  return f.valu || f.vmem || f.ds || f.exp;
}

export const setregModeVector: HazardRule = {
  id: 'setreg-mode-vskip',
  present: (h) => h.has('setreg-vskip', mayWriteVskip),
  description: 'A vector instruction issues less than 2 wait states after an s_setreg that writes MODE.VSKIP (bit 28).',
  appliesTo: () => true,
  source: VSKIP_FACT.source,
  facts: [VSKIP_FACT],
  check(h, i) {
    if (!isVectorOp(h.f[i]!)) return undefined;
    return anyWithin(h, i, VSKIP_FACT, 'setreg-vskip', mayWriteVskip, 'follows the write of MODE.VSKIP by', modeWriteText);
  },
};

export const setvskipGetregMode: HazardRule = {
  id: 'setvskip-getreg-mode',
  present: (h) => h.has('setvskip', (p) => p.name === 's_setvskip'),
  description: 's_getreg of MODE reads VSKIP less than 2 wait states after s_setvskip.',
  appliesTo: () => true,
  source: SETVSKIP_FACT.source,
  facts: [SETVSKIP_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 's_getreg_b32' || !sameHwreg(ID_MODE, hwregId(c.insn))) return undefined;
    return anyWithin(h, i, SETVSKIP_FACT, 'setvskip', (p) => p.name === 's_setvskip', 'reads MODE.vskip set by');
  },
};
