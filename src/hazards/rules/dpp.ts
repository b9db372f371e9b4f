/**
 * DPP reads: a VGPR written less than 2 wait states before, or any DPP within 5 wait states of a
 * VALU write of EXEC (EXEC is not forwarded to DPP).
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, vecUses, vectorRawFact, scalarRaw } from './util.js';
import { EXEC_HI, EXEC_LO } from '../../asm/registers.js';

const VGPR_FACT: WaitStateFact = {
  what: 'any instruction writes a VGPR -> a DPP instruction reads it as src0 (the operand DPP moves across lanes)',
  w: all(2),
  source: `LLVM GCNHazardRecognizer::checkDPPHazards; ${REF.cdna3} Table 11 Case 12; ${REF.mi200} §4.5 Table 9; Mesa ACO aco_insert_NOPs (DPP src0)`,
  note: `${REF.cdna4} §4.5 Table 11 says 1; the CDNA3 and MI200 ISA tables and LLVM say 2: 2 is used. `
    + 'LLVM counts any writer (not only VALU); so do we.',
};

/**
 * The DPP instruction's other VGPR reads (src1, src2, the old value of its destination): the ISA
 * tables say "DPP reads that VGPR" without naming the operand; LLVM pads every VGPR operand, Mesa
 * ACO only src0 (the operand the cross-lane network reads), and AMD's hand-written MIOpen
 * Winograd and wheel kernels (shipping since gfx906) give src0 its 2 wait states at every DPP and
 * the other operands none, at 156 places. Decision: an error for src0, a warning for the others
 * (padded like LLVM where the scheduler re-derives s_nop: the safe value).
 */
const VGPR_OTHER_FACT: WaitStateFact = {
  ...VGPR_FACT,
  what: 'any instruction writes a VGPR -> a DPP instruction reads it as src1, src2 or the old value of its destination',
  note: `${VGPR_FACT.note} Only src0 goes through the cross-lane network: LLVM pads the other operands too, Mesa ACO does not, `
    + 'and AMD\'s MIOpen Winograd and wheel kernels never do (156 places) while always padding src0: a warning.',
};

const isSrc0 = (o: { role: string }) => o.role === 'src0';

const EXEC_FACT: WaitStateFact = {
  what: 'VALU writes EXEC -> any DPP instruction',
  w: all(5),
  source: `LLVM GCNHazardRecognizer::checkDPPHazards; ${REF.cdna3} Table 11 Case 13; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
};

export const vgprWriteDppRead: HazardRule = {
  id: 'vgpr-write-dpp-read',
  present: (h) => h.has('dpp', (f) => f.dpp),
  description: 'A DPP instruction reads a VGPR written less than 2 wait states before.',
  appliesTo: () => true,
  source: VGPR_FACT.source,
  facts: [VGPR_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.dpp) return undefined;
    // DPP operands are VGPRs as written (on a unified file one above accum_offset has an AGPR unit)
    return vectorRawFact(h, i, vecUses(c).filter(isSrc0), VGPR_FACT, ...P.vdef);
  },
};

export const vgprWriteDppReadOther: HazardRule = {
  id: 'vgpr-write-dpp-read-other',
  present: (h) => h.has('dpp', (f) => f.dpp),
  description: 'A DPP instruction reads, as an operand other than src0, a VGPR written less than 2 wait states before (LLVM pads it; a warning).',
  appliesTo: () => true,
  severity: () => 'warning',
  warningNote: () => 'LLVM pads every operand of a DPP instruction; only src0 crosses lanes, and Mesa ACO and AMD\'s MIOpen kernels pad src0 alone',
  source: VGPR_OTHER_FACT.source,
  facts: [VGPR_OTHER_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.dpp) return undefined;
    return vectorRawFact(h, i, vecUses(c).filter((o) => !isSrc0(o)), VGPR_OTHER_FACT, ...P.vdef);
  },
};

export const valuExecWriteDpp: HazardRule = {
  id: 'valu-exec-write-dpp',
  present: (h) => h.has('dpp', (f) => f.dpp) && h.has(...P.valuExec),
  description: 'A DPP instruction issues less than 5 wait states after a VALU wrote EXEC.',
  appliesTo: () => true,
  source: EXEC_FACT.source,
  facts: [EXEC_FACT],
  check(h, i) {
    if (!h.f[i]!.dpp) return undefined;
    return scalarRaw(h, i, [EXEC_LO, EXEC_HI], EXEC_FACT, ...P.valuExec, 'depends on');
  },
};
