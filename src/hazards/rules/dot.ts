/**
 * DOT ("DL") producers on gfx90a/gfx942/gfx950: a v_dot* result is not forwarded to other
 * opcodes, nor to its own SrcA/SrcB — 3 wait states; the same opcode reading it as SrcC
 * (accumulation) needs none.
 */
import type { HazardRule, Need, WaitStateFact } from '../types.js';
import { all, CDNA2_UP, factsReach, need, REF, vecDefs, vecOps, vecUses } from './util.js';
import type { HazardInsn, OpRange } from '../context.js';
import { overlaps, regText } from '../context.js';

const READ_FACT: WaitStateFact = {
  what: 'DOT writes VGPR -> another opcode reads it, or the same opcode reads it as SrcA/SrcB (RAW)',
  w: all(3, CDNA2_UP),
  source: `LLVM GCNHazardRecognizer::checkMAIVALUHazards (DOT producers); ${REF.cdna3} Table 37 Case 101`,
};
const SAME_SRCC_FACT: WaitStateFact = {
  what: 'DOT writes VGPR -> the same opcode reads it as SrcC (accumulation)',
  w: all(0, CDNA2_UP),
  source: `LLVM GCNHazardRecognizer::checkMAIVALUHazards (DOT producers); ${REF.cdna3} Table 37 Case 101`,
};
const WRITE_FACT: WaitStateFact = {
  what: 'DOT writes VGPR -> another opcode writes it (WAW)',
  w: all(3, CDNA2_UP),
  source: `LLVM GCNHazardRecognizer::checkMAIVALUHazards (DOT producers); ${REF.cdna3} Table 37 Case 101 ("RAW + WAW")`,
};
const MFMA_FACT: WaitStateFact = {
  what: 'DOT writes VGPR -> an MFMA reads or writes it',
  w: all(3, CDNA2_UP),
  llvm: all(0, CDNA2_UP),
  source: `${REF.cdna3} Table 37 Case 101 ("Any opcode read/write VGPR that is not the same as 1st DLops opcode"); LLVM GCNHazardRecognizer::checkMAIVALUHazards (0 for an MFMA consumer: LLVM does not implement the ISA rule)`,
  note: 'LLVM needs 0 (DOT is excluded from its VALU -> MFMA rule and MFMA consumers are skipped by its DOT rule); the ISA needs 3: 3 is used.',
};

/** How far back a DOT producer can matter, per generation. */
const DOT_REACH = factsReach(READ_FACT, WRITE_FACT, MFMA_FACT);

function sameOpcode(a: HazardInsn, b: HazardInsn): boolean {
  return a.name === b.name && a.ri.info.variant === b.ri.info.variant;
}

/** The operand a DOT reads as its accumulator: src2 (VOP3P dots) or the tied vdst (v_dot*c). */
function isSrcC(o: OpRange): boolean {
  return o.role === 'src2' || (o.role === 'vdst' && o.use);
}

function dotDst(p: HazardInsn): OpRange | undefined {
  return p.dot ? p.ops.find((o) => o.role === 'vdst' && o.def) : undefined;
}

function dotScan(h: Parameters<HazardRule['check']>[0], i: number, regs: OpRange[],
  fact: (p: HazardInsn, o: OpRange) => WaitStateFact | undefined, verb: string): Need[] {
  const out: Need[] = [];
  if (regs.length === 0) return out;
  const list = h.producers(i, 'dot', DOT_REACH[h.gen], (p) => p.dot);
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    const p = h.f[j]!;
    const dst = dotDst(p);
    if (!dst) continue;
    for (const o of regs) {
      if (!overlaps(o.lo, o.hi, dst.lo, dst.hi)) continue;
      const f = fact(p, o);
      if (!f) continue;
      const w = (f.w[h.gen] as number | undefined) ?? 0;
      if (w <= d) continue;
      const a = Math.max(o.lo, dst.lo);
      const b = Math.min(o.hi, dst.hi);
      out.push(need(j, d, w, `${verb} ${regText(h.f[i]!, a, b)} written by`, f));
      break;
    }
  }
  return out;
}

export const dotWriteRead: HazardRule = {
  id: 'dot-write-read',
  present: (h) => h.has('dot', (p) => p.dot),
  description: 'A VALU or memory instruction reads a DOT result too early (other opcodes and SrcA/SrcB are not forwarded).',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: READ_FACT.source,
  facts: [READ_FACT, SAME_SRCC_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.mfma || !(c.valu || c.vmem || c.ds || c.exp)) return undefined;
    const regs = vecUses(c);
    return dotScan(h, i, regs, (p, o) => (sameOpcode(p, c) && isSrcC(o) ? undefined : READ_FACT), 'reads');
  },
};

export const dotWriteOverwrite: HazardRule = {
  id: 'dot-write-overwrite',
  present: (h) => h.has('dot', (p) => p.dot),
  description: 'An instruction of another opcode overwrites a DOT result too early (WAW).',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: WRITE_FACT.source,
  facts: [WRITE_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (c.mfma || !(c.valu || c.vmem || c.ds)) return undefined;
    const regs = vecDefs(c);
    return dotScan(h, i, regs, (p) => (sameOpcode(p, c) ? undefined : WRITE_FACT), 'overwrites');
  },
};

export const dotWriteMfma: HazardRule = {
  id: 'dot-write-mfma',
  present: (h) => h.has('dot', (p) => p.dot),
  description: 'An MFMA reads or writes a DOT result less than 3 wait states after it (ISA; LLVM does not check).',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: MFMA_FACT.source,
  facts: [MFMA_FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.mfma) return undefined;
    const regs = vecOps(c);
    return dotScan(h, i, regs, () => MFMA_FACT, 'accesses');
  },
};
