/**
 * A store with more than 64 bits of data (and cmpswap_x2) still reads its data VGPRs after
 * issue: an instruction that overwrites them right after needs 1 wait state (2 for a VALU on
 * gfx942/gfx950).
 */
import type { HazardRule, Need, WaitStateFact } from '../types.js';
import { all, CDNA3_UP, need, REF } from './util.js';
import { VGPR_BASE } from '../../isa/registers.js';
import type { InsnFacts } from '../context.js';
import { overlaps, regText } from '../context.js';

const PRE940 = ['gcn5', 'cdna1', 'cdna2'] as const;

const VALU_BUF_SGPR: WaitStateFact = {
  what: 'buffer store > 64 bits with an SGPR soffset -> VALU writes its data VGPRs',
  w: all(1, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards (checkSOFFSETWindowVALUHazardsHelper, "measured on gfx950"; stricter than the ISA)`,
  note: `${REF.cdna3} Table 11 Cases 8/9 ("BUFFER_STORE_* operations that use an SGPR for offset do not require any wait states") `
    + 'and rocRoller say 0; LLVM inserts 1 on gfx942/gfx950 (measured on gfx950): 1 is used there. Before gfx940 all sources say 0.',
};
const VALU_OTHER: WaitStateFact = {
  what: 'buffer store > 64 bits without SGPR soffset, or FLAT/global/scratch store > 64 bits / cmpswap_x2 -> VALU writes its data VGPRs',
  w: { ...all(1, PRE940), ...all(2, CDNA3_UP) },
  source: `LLVM GCNHazardRecognizer::checkVALUHazards (createsVALUHazard); ${REF.cdna3} Table 11 Case 9 (VALU: 2); ${REF.mi200} §4.5 Table 9 (1); ${REF.cdna4} §4.5 Table 11`,
};
const ANY_WRITER: WaitStateFact = {
  what: 'store > 64 bits (buffer stores: without SGPR soffset) -> a non-VALU instruction writes its data VGPRs',
  w: all(1),
  source: `${REF.cdna3} Table 11 Case 8 ("Write VGPRs holding writedata from those instructions: 1"); ${REF.mi200} §4.5 Table 9; ROCm rocRoller WaitState observers (lib/include/rocRoller/Scheduling/Observers/WaitState) (rocRoller BufferStoreDwordXXRead applies 1 to non-VALU writers)`,
  llvm: all(0),
  note: 'LLVM checks VALU writers only; the ISA tables name any write of the data VGPRs. The ISA value (1) is used.',
};

/** The data range of a store whose data is wider than 64 bits, or undefined. */
function wideStoreData(p: InsnFacts) {
  return p.wideStore;
}

function storeDataRule(id: string, valu: boolean): HazardRule {
  return {
    id,
    description: valu
      ? 'A VALU overwrites the data VGPRs of a store wider than 64 bits too soon after it.'
      : 'A load (or another non-VALU instruction) overwrites the data VGPRs of a store wider than 64 bits right after it (ISA; LLVM does not check).',
    appliesTo: () => true,
    present: (h) => h.has('wide-store', (p) => wideStoreData(p) !== undefined),
    source: valu ? VALU_OTHER.source : ANY_WRITER.source,
    facts: valu ? [VALU_BUF_SGPR, VALU_OTHER] : [ANY_WRITER],
    check(h, i) {
      const c = h.f[i]!;
      if (!c.writesVector || c.valu !== valu) return undefined;
      const limit = valu ? 2 : 1;
      const list = h.producers(i, 'wide-store', 2, (p) => wideStoreData(p) !== undefined);
      if (list.length === 0) return undefined;
      const g = h.gen;
      const out: Need[] = [];
      for (let k = 0; k < list.length; k += 2) {
        const j = list[k]!;
        const d = list[k + 1]!;
        if (d >= limit) continue;
        const s = wideStoreData(h.f[j]!)!;
        for (const o of c.ops) {
          if (!o.def || o.lo < VGPR_BASE || !overlaps(o.lo, o.hi, s.lo, s.hi)) continue;
          let fact: WaitStateFact;
          if (valu) fact = s.buffer && s.sgprOffset ? VALU_BUF_SGPR : VALU_OTHER;
          else {
            if (s.buffer && s.sgprOffset) continue;
            fact = ANY_WRITER;
          }
          const w = (fact.w[g] as number | undefined) ?? 0;
          if (w <= d) continue;
          const a = Math.max(o.lo, s.lo);
          const b = Math.min(o.hi, s.hi);
          out.push(need(j, d, w, `overwrites ${regText(c, a, b)} still read as store data by`, fact));
          break;
        }
      }
      return out;
    },
  };
}

export const storeDataValuOverwrite = storeDataRule('store-data-valu-overwrite', true);
export const storeDataLoadOverwrite = storeDataRule('store-data-load-overwrite', false);
