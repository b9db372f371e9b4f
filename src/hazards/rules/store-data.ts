/**
 * A store with more than 64 bits of data (and cmpswap_x2) still reads its data VGPRs after
 * issue: a VALU that overwrites them right after needs 1 wait state (2 on gfx942/gfx950).
 */
import type { HazardRule, Need, WaitStateFact } from '../types.js';
import { all, CDNA3_UP, factsReach, need, REF } from './util.js';
import type { HazardInsn } from '../context.js';
import { VGPR_BASE } from '../../asm/registers.js';
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

const isWideStore = (p: HazardInsn): boolean => p.wideStore !== undefined;
const REACH = factsReach(VALU_BUF_SGPR, VALU_OTHER);

/**
 * Only instructions that write VGPRs at issue can overwrite the data before the store has read
 * it: VALU (incl. v_accvgpr_write, v_writelane, MFMA; LLVM's checkVALUHazardsHelper runs on the
 * defs of every VALU). A VMEM, FLAT or DS load writes its VGPRs when its data returns, counted by
 * vmcnt/lgkmcnt, far beyond the 1-2 wait states of this rule: it is no consumer (NOT_CHECKED).
 */
export const storeDataValuOverwrite: HazardRule = {
  id: 'store-data-valu-overwrite',
  pairwise: true,
  producer: isWideStore,
  description: 'A VALU overwrites the data VGPRs of a store wider than 64 bits too soon after it.',
  appliesTo: () => true,
  present: (h) => h.has('wide-store', isWideStore),
  source: VALU_OTHER.source,
  facts: [VALU_BUF_SGPR, VALU_OTHER],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.writesVector || !c.valu) return undefined;
    const list = h.producers(i, 'wide-store', REACH[h.gen], isWideStore);
    if (list.length === 0) return undefined;
    const g = h.gen;
    let out: Need[] | undefined;
    for (let k = 0; k < list.length; k += 2) {
      const j = list[k]!;
      const d = list[k + 1]!;
      const s = h.f[j]!.wideStore!;
      const fact = s.buffer && s.sgprOffset ? VALU_BUF_SGPR : VALU_OTHER;
      const w = (fact.w[g] as number | undefined) ?? 0;
      if (w <= d) continue;
      for (const o of c.ops) {
        if (!o.def || o.lo < VGPR_BASE || !overlaps(o.lo, o.hi, s.lo, s.hi)) continue;
        const a = Math.max(o.lo, s.lo);
        const b = Math.min(o.hi, s.hi);
        (out ??= []).push(need(j, d, w, `overwrites ${regText(c, a, b)} still read as store data by`, fact));
        break;
      }
    }
    return out;
  },
};
