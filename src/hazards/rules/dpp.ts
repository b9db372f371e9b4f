/**
 * DPP reads: a VGPR written less than 2 wait states before, or any DPP within 5 wait states of a
 * VALU write of EXEC (EXEC is not forwarded to DPP).
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, vecUses, vectorRawFact, scalarRaw } from './util.js';
import { EXEC_HI, EXEC_LO } from '../../asm/registers.js';

const VGPR_FACT: WaitStateFact = {
  what: 'any instruction writes a VGPR -> a DPP instruction reads it (any VGPR operand)',
  w: all(2),
  source: `LLVM GCNHazardRecognizer::checkDPPHazards; ${REF.cdna3} Table 11 Case 12; ${REF.mi200} §4.5 Table 9`,
  note: `${REF.cdna4} §4.5 Table 11 says 1; the CDNA3 and MI200 ISA tables and LLVM say 2: 2 is used. `
    + 'LLVM counts any writer (not only VALU); so do we.',
};

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
    const reads = vecUses(c);
    return vectorRawFact(h, i, reads, VGPR_FACT, ...P.vdef);
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
