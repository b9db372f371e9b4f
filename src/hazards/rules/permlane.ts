/** gfx950 v_permlane16/32_swap_b32: VALU write of an operand (2) and v_cmpx before it (4). */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, anyWithin, P, vecUses, vectorRawFact } from './util.js';

const VALU_FACT: WaitStateFact = {
  what: 'VALU writes a VGPR -> v_permlane16/32_swap_b32 reads it (either swapped operand)',
  w: all(2, ['cdna4']),
  source: `LLVM GCNHazardRecognizer::checkPermlaneHazards`,
};
const CMPX_FACT: WaitStateFact = {
  what: 'v_cmpx (writes EXEC) -> v_permlane16/32_swap_b32',
  w: all(4, ['cdna4']),
  source: `LLVM GCNHazardRecognizer::checkPermlaneHazards; ROCm rocRoller CounterScores observers (lib/include/rocRoller/Scheduling/Observers/CounterScores) (rocRoller VCMPXWrite94x: 4 on gfx950)`,
};

function isSwap(n: string): boolean {
  return n === 'v_permlane16_swap_b32' || n === 'v_permlane32_swap_b32';
}

export const valuWritePermlaneSwap: HazardRule = {
  id: 'valu-write-permlane-swap',
  present: (h) => h.has('swap', (f) => isSwap(f.name)),
  description: 'v_permlane*_swap reads a VGPR a VALU wrote less than 2 wait states before.',
  appliesTo: (t) => t.has('permlane-swap'),
  source: VALU_FACT.source,
  facts: [VALU_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!isSwap(c.name)) return undefined;
    const reads = vecUses(c);
    return vectorRawFact(h, i, reads, VALU_FACT, ...P.valuVdef);
  },
};

export const cmpxWritePermlaneSwap: HazardRule = {
  id: 'cmpx-write-permlane-swap',
  present: (h) => h.has('swap', (f) => isSwap(f.name)),
  description: 'v_permlane*_swap issues less than 4 wait states after a v_cmpx.',
  appliesTo: (t) => t.has('permlane-swap'),
  source: CMPX_FACT.source,
  facts: [CMPX_FACT],
  check(h, i) {
    if (!isSwap(h.f[i]!.name)) return undefined;
    return anyWithin(h, i, CMPX_FACT, 'cmpx', (p) => p.cmpx, 'depends on EXEC written by');
  },
};
