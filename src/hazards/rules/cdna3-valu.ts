/**
 * gfx942/gfx950 VALU forwarding hazards (feature 'gfx940-insts'; LLVM's hasVDecCoExecHazard,
 * hasDstSelForwardingHazard, hasTransForwardingHazard):
 *   - a VALU writes an SGPR/VCC/EXEC/M0 that a VALU reads as a constant: 2
 *   - (a lane-mask or carry-in read needs 0 per the ISA: see NOT_CHECKED in rules/index.ts)
 *   - a VALU writes EXEC, then v_readlane/v_readfirstlane/v_writelane: 4
 *   - a VALU writes a VGPR that v_readlane/v_readfirstlane reads as src0: 1
 *   - a VALU writes its result at a shifted bit position (SDWA dst_sel, op_sel dst, FP8 byte
 *     select, gfx950 FP4 stochastic-rounding converts) and a VALU touches that register: 1
 *   - a transcendental VALU writes a VGPR a non-transcendental VALU reads: 1
 */
import type { HazardRule, WaitStateFact, Need } from '../types.js';
import { all, CDNA3_UP, factWait, need, P, REF, scalarRaw, vecUses, vectorRawFact } from './util.js';
import { EXEC_HI, EXEC_LO, VGPR_BASE } from '../../asm/registers.js';
import type { HazardInsn } from '../context.js';
import { isRwLane, overlaps, regText } from '../context.js';

const gfx940 = (t: { has(f: 'gfx940-insts'): boolean }) => t.has('gfx940-insts');

const SGPR_FACT: WaitStateFact = {
  what: 'VALU writes SGPR/VCC/EXEC/M0 -> VALU reads it as a constant (explicit source operand or lane select)',
  w: all(2, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards (hasVDecCoExecHazard); ${REF.cdna3} Table 11 Case 18; ${REF.cdna4} §4.5 Table 11`,
  note: 'v_writelane writes its VGPR only. LLVM pads 2 wait states between the first two v_writelane of an SGPR spill '
    + '(v_writelane v127, s0, 10; s_nop 1; v_writelane v127, s1, 11): its spill marks the whole spilled SGPR range implicitly '
    + 'defined on the first v_writelane (SIRegisterInfo::spillSGPR), which its hazard check takes for a VALU write of s1. '
    + 'No instruction writes s1 there, so no wait is required (clang-22 gfx942 code of ggml\'s mmq).',
};
const EXEC_RWLANE_FACT: WaitStateFact = {
  what: 'VALU writes EXEC -> v_readlane/v_readfirstlane/v_writelane',
  w: all(4, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards; ${REF.cdna3} Table 11 Case 18 (v_cmpx rows); ${REF.cdna4} §4.5 Table 11`,
  note: 'The hazard is about the VALU-written EXEC value: when a non-VALU instruction (s_mov_b64 exec, ...) overwrites all of EXEC '
    + 'between the producer and the consumer in the same block, the consumer reads that value instead and the hazard ends. '
    + 'LLVM ignores intervening writes and pads anyway (stricter); AMD\'s gfx942 Tensile kernels rely on the overwrite.',
};
const READLANE_FACT: WaitStateFact = {
  what: 'VALU writes VGPR -> v_readlane/v_readfirstlane reads it as src0',
  w: all(1, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards; ${REF.cdna3} Table 11 Case 19`,
  note: 'The ISA names v_readlane; LLVM also checks v_readfirstlane: both are checked.',
};
const DSTSEL_FACT: WaitStateFact = {
  what: 'VALU writes its result at a shifted bit position (SDWA dst_sel != DWORD, op_sel dst bit, FP8/FP4 byte select, gfx950 FP4 SR cvt_scale) -> any VALU operand overlaps that VGPR',
  w: all(1, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards (getDstSelForwardingOperand); ${REF.cdna3} Table 11 Case 20`,
  note: 'The ISA names the consumer that reads the result; LLVM also counts writes of it (ECC parity read with preserve semantics): both are checked. '
    + 'LLVM also treats every VOP3P whose src0 op_sel_hi bit is set as such a producer (that bit shares its place with the destination select '
    + 'in LLVM\'s operand modifiers); VOP3P has no destination select in the ISA, so VOP3P producers are not checked.',
};
const TRANS_FACT: WaitStateFact = {
  what: 'transcendental VALU writes VGPR -> non-transcendental VALU, or an LDS-DMA load (its address), reads it',
  w: all(1, CDNA3_UP),
  source: `LLVM GCNHazardRecognizer::checkVALUHazards; ${REF.cdna3} Table 11 Case 21 and Table 12; ${REF.cdna4} §4.5 Table 11`,
  note: 'The ISA names a VALU consumer; LLVM runs its VALU hazards on LDS-DMA loads too (isVALU(MI, AllowLDSDMA) in '
    + 'GCNHazardRecognizer::PreEmitNoopsCommon), and llc 22 pads 1 wait state between v_exp_f32 and a global_load_lds_dword or '
    + 'buffer_load_dword ... lds reading its result, as it does for the destination select above: LDS-DMA readers are checked.',
};

/** Scalar units a VALU reads as constants (explicit scalar sources other than a mask or carry-in). */
function constantReads(c: HazardInsn): number[] {
  const out: number[] = [];
  for (const o of c.ops) {
    if (!o.use || o.lo >= 128 || o.role === 'mask' || o.role === 'carryIn') continue;
    for (let u = o.lo; u < o.hi; u++) if (!out.includes(u)) out.push(u);
  }
  return out;
}

export const valuSgprWriteValuRead: HazardRule = {
  id: 'valu-sgpr-write-valu-read',
  pairwise: true,
  producer: P.valuSdef[1],
  present: (h) => h.has(...P.valuSdef),
  description: 'A VALU reads as a constant an SGPR that a VALU wrote less than 2 wait states before (gfx942+ has no interlock).',
  appliesTo: gfx940,
  source: SGPR_FACT.source,
  facts: [SGPR_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.valu) return undefined;
    let any = false;
    for (const o of c.ops) if (o.use && o.lo < 128) { any = true; break; }
    if (!any) return undefined;
    // no VALU writing an SGPR within reach: nothing to list
    if (h.producers(i, P.valuSdef[0], factWait(h, SGPR_FACT), P.valuSdef[1]).length === 0) return undefined;
    const reads = constantReads(c);
    if (reads.length === 0) return undefined;
    return scalarRaw(h, i, reads, SGPR_FACT, ...P.valuSdef);
  },
};

/** A non-VALU instruction writes all of EXEC strictly between producer j and consumer i, all in one block. */
function execOverwrittenBetween(h: { f: readonly HazardInsn[]; ctx: { cfg: { blockOf: Int32Array } } }, j: number, i: number): boolean {
  const blockOf = h.ctx.cfg.blockOf;
  if (j >= i || blockOf[j] !== blockOf[i]) return false;
  for (let k = j + 1; k < i; k++) {
    const f = h.f[k]!;
    if (!f.valu && f.sdefs.includes(EXEC_LO) && f.sdefs.includes(EXEC_HI)) return true;
  }
  return false;
}

export const valuExecWriteRwLane: HazardRule = {
  id: 'valu-exec-write-rwlane',
  pairwise: true,
  producer: P.valuExec[1],
  present: (h) => h.has(...P.valuExec) && h.has('rwlane', (f) => isRwLane(f.name)),
  description: 'v_readlane/v_readfirstlane/v_writelane issues less than 4 wait states after a VALU wrote EXEC.',
  appliesTo: gfx940,
  source: EXEC_RWLANE_FACT.source,
  facts: [EXEC_RWLANE_FACT],
  check(h, i) {
    if (!isRwLane(h.f[i]!.name)) return undefined;
    const needs = scalarRaw(h, i, [EXEC_LO, EXEC_HI], EXEC_RWLANE_FACT, ...P.valuExec, 'depends on');
    return needs.filter((n) => !execOverwrittenBetween(h, n.producer, i));
  },
};

export const valuVgprWriteReadlaneSrc0: HazardRule = {
  id: 'valu-vgpr-write-readlane-src0',
  pairwise: true,
  producer: P.valuVdef[1],
  sharesRegisters: true,
  present: (h) => h.has('readlane', (f) => f.name === 'v_readlane_b32' || f.name === 'v_readfirstlane_b32'),
  description: 'v_readlane/v_readfirstlane reads as src0 a VGPR a VALU wrote in the instruction just before.',
  appliesTo: gfx940,
  source: READLANE_FACT.source,
  facts: [READLANE_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.name !== 'v_readlane_b32' && c.name !== 'v_readfirstlane_b32') return undefined;
    const src = c.ops.filter((o) => o.role === 'src0' && o.lo >= VGPR_BASE);
    return vectorRawFact(h, i, src, READLANE_FACT, ...P.valuVdef);
  },
};

const hasDstSel = (p: HazardInsn): boolean => p.dstSel !== undefined;

/** A consumer LLVM runs its VALU hazards on: a VALU, or an LDS-DMA load (isVALU(MI, AllowLDSDMA)). */
const valuOrLdsDma = (c: HazardInsn) => c.valu || c.ldsDma;

export const dstSelForwarding: HazardRule = {
  id: 'dst-sel-forwarding',
  pairwise: true,
  producer: hasDstSel,
  present: (h) => h.has('dstsel', hasDstSel),
  description: 'A VALU touches a VGPR that the previous VALU wrote at a shifted bit position (SDWA/op_sel destination select).',
  appliesTo: gfx940,
  source: DSTSEL_FACT.source,
  facts: [DSTSEL_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!valuOrLdsDma(c)) return undefined;
    const w = factWait(h, DSTSEL_FACT);
    const list = h.producers(i, 'dstsel', w, hasDstSel);
    if (list.length === 0) return undefined;
    let out: Need[] | undefined;
    for (let k = 0; k < list.length; k += 2) {
      const j = list[k]!;
      const d = list[k + 1]!;
      const dst = h.f[j]!.dstSel!;
      for (const o of c.ops) {
        if (o.lo < VGPR_BASE || !overlaps(o.lo, o.hi, dst.lo, dst.hi)) continue;
        const a = Math.max(o.lo, dst.lo);
        const b = Math.min(o.hi, dst.hi);
        (out ??= []).push(need(j, d, w, `${o.def && !o.use ? 'writes' : 'reads'} ${regText(c, a, b)} written at a shifted bit position by`, DSTSEL_FACT));
        break;
      }
    }
    return out;
  },
};

const isTrans = (p: HazardInsn) => p.trans;


export const transWriteValuRead: HazardRule = {
  id: 'trans-write-valu-read',
  pairwise: true,
  producer: isTrans,
  sharesRegisters: true,
  present: (h) => h.has('trans', isTrans),
  description: 'A non-transcendental VALU, or an LDS-DMA load, reads the result of the transcendental VALU just before it.',
  appliesTo: gfx940,
  source: TRANS_FACT.source,
  facts: [TRANS_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!valuOrLdsDma(c) || c.trans) return undefined;
    // no transcendental VALU within reach (the common case): nothing to list
    if (h.producers(i, 'trans', factWait(h, TRANS_FACT), isTrans).length === 0) return undefined;
    return vectorRawFact(h, i, vecUses(c), TRANS_FACT, 'trans', isTrans);
  },
};
