/**
 * DGEMM side rules: v_fma_f64/v_fmac_f64 right after any DGEMM (2, gfx90a+), and the gfx90a
 * hardware bug where a DGEMM between a VALU write and a VMEM/DS read of the VGPR removes the
 * interlock (2).
 */
import type { HazardRule, Need, WaitStateFact } from '../types.js';
import { all, anyWithin, CDNA2_UP, factWait, need, vecUses } from './util.js';
import { VGPR_BASE } from '../../asm/registers.js';
import { overlaps, regText } from '../context.js';

const FMA64_FACT: WaitStateFact = {
  what: 'any DGEMM -> v_fma_f64 / v_fmac_f64 (no register dependence needed)',
  w: all(2, CDNA2_UP),
  source: `LLVM GCNHazardRecognizer::checkMAIVALUHazards (DGEMM -> v_fma_f64/v_fmac_f64)`,
};
const BETWEEN_FACT: WaitStateFact = {
  what: 'VALU writes VGPR, a DGEMM issues, then VMEM/DS reads the VGPR (counted from the VALU write)',
  w: { cdna2: 2 },
  source: `LLVM GCNHazardRecognizer::checkMAIVALUHazards (gfx90a only, a hardware bug workaround)`,
};

export const dgemmFma64: HazardRule = {
  id: 'dgemm-fma64',
  present: (h) => h.has('dgemm', (p) => p.dgemm),
  description: 'v_fma_f64/v_fmac_f64 issues less than 2 wait states after a DGEMM.',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: FMA64_FACT.source,
  facts: [FMA64_FACT],
  check(h, i) {
    const n = h.f[i]!.name;
    if (n !== 'v_fma_f64' && n !== 'v_fmac_f64') return undefined;
    return anyWithin(h, i, FMA64_FACT, 'dgemm', (p) => p.dgemm, 'follows the DGEMM');
  },
};

export const valuDgemmMemRead: HazardRule = {
  id: 'valu-write-dgemm-mem-read',
  present: (h) => h.has('dgemm', (p) => p.dgemm),
  description: 'gfx90a: a VMEM/DS instruction reads a VGPR that a VALU wrote, with a DGEMM in between, less than 2 wait states after the write.',
  appliesTo: (t) => t.has('gfx90a-insts') && !t.has('gfx940-insts'),
  source: BETWEEN_FACT.source,
  facts: [BETWEEN_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!(c.vmem || c.ds)) return undefined;
    const regs = vecUses(c);
    if (regs.length === 0) return undefined;
    // DGEMMs within reach, by distance (any path)
    const w = factWait(h, BETWEEN_FACT);
    const dg = h.producers(i, 'dgemm', w, (p) => p.dgemm);
    if (dg.length === 0) return undefined;
    const dgemmAt: number[] = [];
    for (let k = 1; k < dg.length; k += 2) dgemmAt.push(dg[k]!);
    const out: Need[] = [];
    const list = h.producers(i, 'valu-vdef', w, (p) => p.valu && p.writesVector);
    for (let k = 0; k < list.length; k += 2) {
      const j = list[k]!;
      const d = list[k + 1]!;
      const p = h.f[j]!;
      // the DGEMM must be the producer itself or lie between it and the consumer
      if (!p.dgemm && !dgemmAt.some((x) => x < d)) continue;
      for (const def of p.ops) {
        if (!def.def || def.lo < VGPR_BASE) continue;
        for (const r of regs) {
          if (!overlaps(def.lo, def.hi, r.lo, r.hi)) continue;
          const a = Math.max(def.lo, r.lo);
          const b = Math.min(def.hi, r.hi);
          out.push(need(j, d, w, `reads ${regText(c, a, b)} (a DGEMM issued in between) written by`, BETWEEN_FACT));
          break;
        }
      }
    }
    return out;
  },
};
