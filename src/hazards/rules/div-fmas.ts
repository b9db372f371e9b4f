/** VALU writes VCC, then v_div_fmas_f32/f64 (which reads VCC): 4 wait states. */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, scalarRaw } from './util.js';
import { VCC_HI, VCC_LO } from '../../asm/registers.js';

const FACT: WaitStateFact = {
  what: 'VALU writes VCC (incl. v_div_scale) -> v_div_fmas_f32/f64',
  w: all(4),
  source: `LLVM GCNHazardRecognizer::checkDivFMasHazards; ${REF.cdna3} Table 11 Case 7; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
};

export const valuVccWriteDivFmas: HazardRule = {
  id: 'valu-vcc-write-div-fmas',
  present: (h) => h.has('div-fmas', (f) => f.name === 'v_div_fmas_f32' || f.name === 'v_div_fmas_f64'),
  description: 'v_div_fmas reads VCC less than 4 wait states after a VALU wrote it.',
  appliesTo: () => true,
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const n = h.f[i]!.name;
    if (n !== 'v_div_fmas_f32' && n !== 'v_div_fmas_f64') return undefined;
    return scalarRaw(h, i, [VCC_LO, VCC_HI], FACT, ...P.valuVcc);
  },
};
