/** VALU writes an SGPR that v_readlane/v_writelane then uses as lane select: 4 wait states. */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, scalarRaw } from './util.js';

const FACT: WaitStateFact = {
  what: 'VALU writes SGPR/VCC -> v_readlane/v_writelane uses it as lane select',
  w: all(4),
  source: `LLVM GCNHazardRecognizer::checkRWLaneHazards; ${REF.cdna3} Table 11 Case 6 and Case 18; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
};

export const valuSgprWriteLaneSelect: HazardRule = {
  id: 'valu-sgpr-write-lane-select',
  present: (h) => h.has('rwlane2', (f) => f.name === 'v_readlane_b32' || f.name === 'v_writelane_b32') && h.has(...P.valuSdef),
  description: 'v_readlane/v_writelane uses as lane select an SGPR a VALU wrote less than 4 wait states before.',
  appliesTo: () => true,
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 'v_readlane_b32' && c.name !== 'v_writelane_b32') return undefined;
    const lane = c.ops.find((o) => o.role === 'lane' && o.lo < 128);
    if (!lane) return undefined;
    const reads: number[] = [];
    for (let u = lane.lo; u < lane.hi; u++) reads.push(u);
    return scalarRaw(h, i, reads, FACT, ...P.valuSdef, 'uses as lane select');
  },
};
