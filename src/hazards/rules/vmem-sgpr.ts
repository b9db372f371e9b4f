/**
 * VALU writes an SGPR, then a VMEM/FLAT instruction reads it: 5 wait states on every target.
 * The implicit EXEC read every VMEM instruction makes is a rule of its own, a warning.
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, scalarRaw, isScalar } from './util.js';
import { EXEC_HI, EXEC_LO } from '../../asm/registers.js';

const FACT: WaitStateFact = {
  what: 'VALU writes an SGPR (incl. VCC, M0) -> VMEM/FLAT reads it',
  w: all(5),
  source: `LLVM GCNHazardRecognizer::checkVMEMHazards; ${REF.cdna3} Table 11 Case 10; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
  note: 'Implicit reads count (M0 of LDS-DMA) as LLVM does (checkVMEMHazards); '
    + 'Mesa ACO looks at explicit operands only (aco_insert_NOPs.cpp). The larger set is used. EXEC: valu-exec-write-vmem-read.',
};

/**
 * The sources disagree on EXEC: LLVM's checkVMEMHazards counts every register use, the implicit
 * EXEC read too, so v_cmpx -> buffer_load gets 5; the ISA tables name "the SGPR" a VMEM
 * instruction reads and have no EXEC -> VMEM row (they list EXEC -> DPP, -> v_readlane, -> MFMA
 * separately), Mesa ACO pads explicit operands only, and AMD's MIOpen igemm kernels for gfx908
 * and gfx90a issue buffer loads right after v_cmpx. Decision: LLVM's 5 is padded (the safe
 * value: --fix and the scheduler write it), and a shortfall is reported as a warning.
 */
const EXEC_FACT: WaitStateFact = {
  what: 'VALU writes EXEC (v_cmpx) -> VMEM/FLAT (its implicit EXEC read)',
  w: all(5),
  source: 'LLVM GCNHazardRecognizer::checkVMEMHazards (implicit uses count)',
  note: `Not in the ISA tables (${REF.cdna3} Table 11, ${REF.mi200} §4.5 Table 9 name SGPR operands); Mesa ACO does not pad it; `
    + 'AMD MIOpen igemm kernels issue VMEM right after v_cmpx. LLVM\'s value padded, shortfalls reported as warnings.',
};

/** A VMEM/FLAT consumer of the scalar units `reads` picks, written by a VALU instruction. */
function vmemScalarRule(id: string, fact: WaitStateFact, description: string, reads: (u: number) => boolean, severity?: 'warning'): HazardRule {
  // the units a consumer's read list yields, per list (instructions share their lists: isa/resolved-store.ts)
  const picked = new WeakMap<readonly number[], readonly number[]>();
  const pick = (uses: readonly number[]): readonly number[] => {
    let l = picked.get(uses);
    if (l === undefined) { l = uses.filter(reads); picked.set(uses, l); }
    return l;
  };
  return {
    id,
    pairwise: true,
    producer: P.valuSdef[1],
    present: (h) => h.has(...P.valuSdef) && h.has('vmem', (f) => f.vmem),
    description,
    appliesTo: () => true,
    ...(severity ? { severity: () => severity } : {}),
    source: fact.source,
    facts: [fact],
    check(h, i) {
      const c = h.f[i]!;
      if (!c.vmem) return undefined;
      return scalarRaw(h, i, pick(c.uses), fact, ...P.valuSdef);
    },
  };
}

const isExec = (u: number): boolean => u === EXEC_LO || u === EXEC_HI;

export const valuSgprWriteVmemRead = vmemScalarRule('valu-sgpr-write-vmem-read', FACT,
  'A VMEM/FLAT instruction reads an SGPR that a VALU instruction wrote less than 5 wait states before.',
  (u) => isScalar(u) && !isExec(u));

export const valuExecWriteVmemRead = vmemScalarRule('valu-exec-write-vmem-read', EXEC_FACT,
  'A VMEM/FLAT instruction (reading EXEC implicitly) follows a VALU write of EXEC (v_cmpx) by less than 5 wait states: LLVM pads it, the ISA tables do not list it (a warning).',
  isExec, 'warning');
