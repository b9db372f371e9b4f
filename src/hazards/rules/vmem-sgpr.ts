/**
 * VALU writes an SGPR, then a VMEM/FLAT instruction reads it: 5 wait states on every target.
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, scalarRaw, isScalar } from './util.js';

const FACT: WaitStateFact = {
  what: 'VALU writes an SGPR (incl. VCC, EXEC, M0) -> VMEM/FLAT reads it',
  w: all(5),
  source: `LLVM GCNHazardRecognizer::checkVMEMHazards; ${REF.cdna3} Table 11 Case 10; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
  note: 'Implicit reads count (the EXEC every VMEM reads, M0 of LDS-DMA) as LLVM does (checkVMEMHazards); '
    + 'Mesa ACO looks at explicit operands only (aco_insert_NOPs.cpp). The larger set is used.',
};

export const valuSgprWriteVmemRead: HazardRule = {
  id: 'valu-sgpr-write-vmem-read',
  pairwise: true,
  present: (h) => h.has(...P.valuSdef) && h.has('vmem', (f) => f.vmem),
  description: 'A VMEM/FLAT instruction reads an SGPR that a VALU instruction wrote less than 5 wait states before.',
  appliesTo: () => true,
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.vmem) return undefined;
    const reads = c.uses.filter(isScalar);
    return scalarRaw(h, i, reads, FACT, ...P.valuSdef);
  },
};
