/**
 * gfx90a+ 64-bit shift bug: v_lshlrev_b64 / v_lshrrev_b64 / v_ashrrev_i64 with the shift amount
 * (src0) in the last VGPR of an allocation block of 8 (v7, v15, ... v255) while the next VGPR is
 * not used by the kernel is miscomputed. No s_nop fixes it: the amount must move to another VGPR.
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { need, REF } from './util.js';
import { VGPR_BASE, AGPR_BASE } from '../../asm/registers.js';

const FACT: WaitStateFact = {
  what: '64-bit shift whose amount is v(8k+7) with v(8k+8) unused (or v255) -> wrong result',
  w: {},
  source: `LLVM GCNHazardRecognizer::fixShift64HighRegBug (not an s_nop fix; GCNSubtarget::hasShift64HighRegBug = gfx90a-insts)`,
  note: 'Not a wait-state rule; reported without an s_nop fix. "Used" follows LLVM: the next VGPR is named by no instruction of the kernel.',
};

export const shift64HighReg: HazardRule = {
  id: 'shift64-high-reg',
  present: (h) => h.has('shift64', (f) => f.name === 'v_lshlrev_b64' || f.name === 'v_lshrrev_b64' || f.name === 'v_ashrrev_i64'),
  description: 'gfx90a+: a 64-bit shift takes its amount from the last VGPR of an 8-register block whose successor is unused (hardware bug).',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: FACT.source,
  facts: [FACT],
  noNopFix: true,
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 'v_lshlrev_b64' && c.name !== 'v_lshrrev_b64' && c.name !== 'v_ashrrev_i64') return undefined;
    const amt = c.ops.find((o) => o.role === 'src0');
    if (!amt || amt.lo < VGPR_BASE || amt.lo >= AGPR_BASE) return undefined;
    const n = amt.lo - VGPR_BASE;
    if ((n & 7) !== 7) return undefined;
    if (n !== 255 && h.vgprUsed(n + 1)) return undefined;
    return [need(i, 0, 0,
      `takes its shift amount from v${n}, the last VGPR of an allocation block, and v${n + 1} is ${n === 255 ? 'beyond the file' : 'not used'}: `
      + `gfx90a+ miscomputes this shift (no s_nop fixes it; move the amount to another VGPR)`, FACT)];
  },
};
