/**
 * MFMA hazards on gfx90a, gfx942 and gfx950 (feature 'gfx90a-insts'): an MFMA (or SMFMAC)
 * writes a VGPR/AGPR that a later MFMA reads (SrcC, SrcA/SrcB), that a VALU or a memory
 * instruction reads (RAW) or writes (WAW), and the WAR case of a VALU/memory write to a register
 * an MFMA is still reading as SrcC. Plus the two rules for VALU producers before an MFMA (a VALU
 * write of a source, a VALU write of EXEC), which also exist on gfx908.
 *
 * N = passes of the producer (LLVM SISchedule.td, src/isa/mfma.ts). X = XDL or SMFMAC (on gfx90a
 * every non-DGEMM MFMA), S = SGEMM (f32-input MFMAs, gfx942+), D = DGEMM (f64; 16x16x4 and 4x4x4).
 *
 * Unlike LLVM, which looks only at the nearest overlapping MFMA, every MFMA producer within the
 * largest wait-state count is checked (a farther producer with a longer latency can still be in
 * flight), except along paths where a later instruction that waited for its result (e.g. an MFMA
 * reading it as SrcC) has rewritten the register: that write lands after the producer's, so the
 * producer no longer decides the value (distanceUnlessRewritten).
 */
import type { Target } from '../../isa/target.js';
import type { HazardContext, HazardInsn, OpRange } from '../context.js';
import { overlaps, regText } from '../context.js';
import type { Generation, HazardRule, Need, WaitStateFact } from '../types.js';
import { waitOf } from '../types.js';
import { all, CDNA2_UP, distanceUnlessRewritten, factWait, mfmaNote, need, P, REF, scalarRaw, vecUses, vgprUses } from './util.js';
import { EXEC_HI, EXEC_LO, VGPR_BASE } from '../../asm/registers.js';

/** LLVM's checks for an MFMA consumer (gfx90a+) and for a VALU or memory consumer of an MFMA result. */
const H90A = 'LLVM GCNHazardRecognizer::checkMAIHazards90A';
const HVALU = 'LLVM GCNHazardRecognizer::checkMAIVALUHazards';
/** CDNA4 ISA §7.6 Table 38 (gfx950's MFMA dependency table). */
const T38 = `${REF.cdna4} §7.6 Table 38`;
const C3 = REF.cdna3;
const T37 = `${C3} Table 37`;

/** A table of wait states per producer pass count, per generation. */
function passTable(entries: Partial<Record<Generation, Record<number, number>>>): Partial<Record<Generation, Record<number, number>>> {
  return entries;
}

// ---------------------------------------------------------------------------------------------
// Facts
// ---------------------------------------------------------------------------------------------

const CHAIN_NOTE = 'Identical tuple (same first register and width) with the same pass count is an accumulation chain. '
  + `${T37} Cases 102/107 state the exact-same rows for XDL consumers (0, or 2 after a 2-pass producer) and require the `
  + 'same pass count; Cases 104/109 (S/DGEMM consumers) list only an "overlapped" row. LLVM, rocRoller and '
  + `${REF.cdna4} §7.6 Table 38 treat every identical-tuple chain the same way; we read "overlapped" as `
  + '"overlapped but not identical" as in the paired rows 102/103 and 112/113. A different pass count is checked as overlapped '
  + '(ISA condition) on gfx942/gfx950; gfx90a follows LLVM (no pass-count condition in our references).';

export const X_SRCC_SAME: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> MFMA reads the identical tuple as SrcC (accumulation chain)',
  w: { cdna2: 0, cdna3: { 2: 2, 4: 0, 8: 0, 16: 0 }, cdna4: { 2: 2, 4: 0, 8: 0, 16: 0 } },
  source: `${H90A} (identical tuple); ${T37} Case 102`,
  note: CHAIN_NOTE,
};
export const S_SRCC_SAME: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> MFMA reads the identical tuple as SrcC (accumulation chain)',
  w: { cdna3: { 2: 2, 4: 0, 8: 0, 16: 0 }, cdna4: { 2: 2, 4: 0, 8: 0, 16: 0 } },
  source: `${H90A} (stricter than the ISA here); ${T37} Case 107`,
  note: `${T37} Case 107 gives 0 for SGEMM -> XDL exact-same SrcC at every pass count; LLVM needs 2 after a 2-pass producer: 2 is used. ` + CHAIN_NOTE,
};
export const D_SRCC_SAME: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> MFMA reads the identical tuple as SrcC',
  w: all(0, CDNA2_UP),
  source: `${H90A}; ${T37} Case 112`,
};
export const D4_SRCC_SAME: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> v_mfma_f64_4x4x4 reads the identical tuple as SrcC',
  w: all(4, CDNA2_UP),
  source: `${H90A} (v_mfma_f64_4x4x4f64 -> SrcC of v_mfma_f64_4x4x4f64, identical tuple)`,
};
export const X_SRCC_X: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> XDL/SMFMAC reads an overlapping SrcC',
  w: passTable({ cdna2: { 2: 2, 8: 8, 16: 16 }, cdna3: { 2: 3, 4: 5, 8: 9, 16: 17 }, cdna4: { 2: 4, 4: 6, 8: 10, 16: 18 } }),
  source: `${H90A} (X overlap -> SrcC of X); ${T37} Case 103; ${T38}`,
};
export const X_SRCC_PASSES: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> XDL/SMFMAC of another pass count reads the identical tuple as SrcC',
  w: X_SRCC_X.w,
  llvm: { cdna3: 0, cdna4: 0 },
  source: `${T37} Case 102 (the exact-same exemption holds only when "the two V_MFMA must be the same number passes") and Case 103; `
    + `stricter than LLVM ${H90A}, which compares registers only and requires 0 here`,
  note: CHAIN_NOTE,
};
export const X_SRCC_SD: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> SGEMM/DGEMM reads an overlapping SrcC',
  w: passTable({ cdna2: { 2: 3, 8: 9, 16: 17 }, cdna3: { 2: 3, 4: 5, 8: 9, 16: 17 }, cdna4: { 2: 3, 4: 6, 8: 10, 16: 18 } }),
  source: `${H90A} (X overlap -> SrcC of D (gfx90a) / of S or D); ${T37} Case 104`,
};
export const S_SRCC_X: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> XDL/SMFMAC reads an overlapping SrcC',
  w: passTable({ cdna3: { 2: 2, 4: 4, 8: 8, 16: 16 }, cdna4: { 2: 0, 4: 0, 8: 0, 16: 0 } }),
  llvm: { cdna3: 0, cdna4: 0 },
  source: `${T37} Case 108 (gfx942); ${H90A} and ${T38} (gfx950)`,
  note: `The CDNA3 ISA (${T37} Case 108) needs N (2/4/8/16); LLVM needs 0 ("XDL reads SrcC 2x faster"). `
    + `gfx942 uses the ISA value (safe). For gfx950 ${T38} and LLVM agree on 0.`,
};
export const S_SRCC_SD: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> SGEMM/DGEMM reads an overlapping SrcC',
  w: passTable({ cdna3: { 2: 2, 4: 4, 8: 8, 16: 16 }, cdna4: { 2: 2, 4: 4, 8: 8, 16: 16 } }),
  source: `${H90A} (S overlap -> SrcC of S or D); ${T37} Case 109`,
};
export const S_SRCC_PASSES: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> SGEMM/DGEMM of another pass count reads the identical tuple as SrcC',
  w: S_SRCC_SD.w,
  llvm: { cdna3: 0, cdna4: 0 },
  source: `${T37} Case 109 (an overlapping SrcC, the identical tuple included; no exact-same row for SGEMM consumers), `
    + `the exemption of Cases 102/107 holding only for "the same number passes"; stricter than LLVM ${H90A}, which compares registers only and requires 0`,
  note: CHAIN_NOTE,
};
export const D16_SRCC_NONXDL: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> DGEMM (gfx90a) / SGEMM or DGEMM (gfx942+) reads an overlapping SrcC',
  w: { cdna2: 9, cdna3: 9, cdna4: 17 },
  source: `${H90A} (D 16x16x4 overlap -> SrcC); ${T37} Case 113; ${T38} (gfx950: 17)`,
};
export const D4_SRCC_NONXDL: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> DGEMM (gfx90a) / SGEMM or DGEMM (gfx942+) reads an overlapping SrcC',
  w: all(4, CDNA2_UP),
  source: `${H90A} (D 4x4x4 overlap -> SrcC)`,
};
export const X_SRCAB: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> MFMA reads them as SrcA/SrcB (or the SMFMAC index, or a gfx950 scale operand)',
  w: passTable({ cdna2: { 2: 5, 8: 11, 16: 19 }, cdna3: { 2: 5, 4: 7, 8: 11, 16: 19 }, cdna4: { 2: 5, 4: 8, 8: 12, 16: 20 } }),
  source: `${H90A} (X overlap -> SrcA/SrcB/index); ${T37} Case 105; ${T38} (gfx950 16 passes: 20, beyond LLVM's search limit of 19)`,
  note: 'LLVM searches only 19 wait states back and so misses a 16-pass XDL producer at distance 19 on gfx950 (the MFMA search limit of GCNHazardRecognizer); the true 20 is used.',
};
export const S_SRCAB: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> MFMA reads them as SrcA/SrcB/index',
  w: passTable({ cdna3: { 2: 4, 4: 6, 8: 10, 16: 18 }, cdna4: { 2: 4, 4: 6, 8: 10, 16: 18 } }),
  source: `${H90A} (S overlap -> SrcA/SrcB/index); ${T37} Case 110`,
};
export const D16_SRCAB: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> MFMA reads them as SrcA/SrcB/index',
  w: { cdna2: 11, cdna3: 11, cdna4: 19 },
  source: `${H90A} (D 16x16x4 -> SrcA/SrcB/index); ${T37} Cases 116-118`,
};
export const D4_SRCAB: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> MFMA reads them as SrcA/SrcB/index',
  w: all(6, CDNA2_UP),
  source: `${H90A} (D 4x4x4 -> SrcA/SrcB/index)`,
};

const X_READ = { cdna2: { 2: 5, 8: 11, 16: 19 }, cdna3: { 2: 5, 4: 7, 8: 11, 16: 19 }, cdna4: { 2: 5, 4: 8, 8: 12, 16: 20 } };
const S_READ = { cdna3: { 2: 4, 4: 6, 8: 10, 16: 18 }, cdna4: { 2: 4, 4: 6, 8: 10, 16: 18 } };

export const X_VALU_READ: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> VALU reads them',
  w: X_READ,
  source: `${HVALU} (RAW, X -> VALU read); ${T37} Case 106; ${T38}`,
};
export const X_MEM_READ: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> VMEM/FLAT/DS/export reads them',
  w: X_READ,
  source: `${HVALU} (RAW, X -> Mem/EXP read); ${T37} Case 106`,
};
export const X_WRITE: WaitStateFact = {
  what: 'XDL/SMFMAC writes VGPRs -> VALU (or a VMEM/DS load) writes them (WAW)',
  w: X_READ,
  source: `${HVALU} (WAW, X); ${T37} Case 106 ("VALU read/write VGPR (RAW + WAW)")`,
  note: 'The ISA names VALU writes; LLVM also checks the destinations of VMEM/DS loads: both are checked.',
};
export const S_VALU_READ: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> VALU reads them', w: S_READ,
  source: `${HVALU} (RAW, S); ${T37} Case 111`,
};
export const S_MEM_READ: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> VMEM/FLAT/DS/export reads them', w: S_READ,
  source: `${HVALU} (RAW, S); ${T37} Case 111`,
};
export const S_WRITE: WaitStateFact = {
  what: 'SGEMM writes VGPRs -> VALU (or a VMEM/DS load) writes them (WAW)', w: S_READ,
  source: `${HVALU} (WAW, S); ${T37} Case 111`,
};
export const D16_VALU_READ: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> VALU reads them',
  w: { cdna2: 11, cdna3: 11, cdna4: 19 },
  source: `${HVALU} (D 16x16x4 -> VALU read); ${T37} Case 119`,
};
export const D16_MEM_READ: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> VMEM/FLAT/DS/export reads them',
  w: all(18, CDNA2_UP),
  source: `${HVALU} (D 16x16x4 -> Mem/EXP read); ${T37} Case 120`,
};
export const D16_WRITE: WaitStateFact = {
  what: 'v_mfma_f64_16x16x4 writes VGPRs -> VALU (or a VMEM/DS load) writes them (WAW)',
  w: { cdna2: 11, cdna3: 11, cdna4: 19 },
  llvm: { cdna2: 11, cdna3: 11, cdna4: 11 },
  source: `${HVALU} (WAW, D 16x16x4; LLVM 11 on gfx950); ${T37} Case 119; ${T38} (gfx950: 19)`,
  note: 'gfx950: the CDNA4 ISA Table 38 needs 19, LLVM inserts 11 (under-pads): 19 is used.',
};
export const D4_VALU_READ: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> VALU reads them', w: all(6, CDNA2_UP),
  source: `${HVALU} (D 4x4x4 -> VALU read)`,
};
export const D4_MEM_READ: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> VMEM/FLAT/DS/export reads them', w: all(9, CDNA2_UP),
  source: `${HVALU} (D 4x4x4 -> Mem/EXP read)`,
};
export const D4_WRITE: WaitStateFact = {
  what: 'v_mfma_f64_4x4x4 writes VGPRs -> VALU (or a VMEM/DS load) writes them (WAW)', w: all(6, CDNA2_UP),
  source: `${HVALU} (WAW, D 4x4x4)`,
};
export const SRCC_WAR: WaitStateFact = {
  what: 'MFMA reads VGPRs as SrcC -> VALU (or a VMEM/DS load) overwrites them (WAR); non-DGEMM readers (gfx942+: XDL/SMFMAC only)',
  w: passTable({ cdna2: { 2: 1, 8: 7, 16: 15 }, cdna3: { 2: 1, 4: 3, 8: 7, 16: 15 }, cdna4: { 2: 1, 4: 3, 8: 7, 16: 15 } }),
  source: `${HVALU} (WAR: an MFMA still reading SrcC)`,
};
const VALU_MFMA_FACT: WaitStateFact = {
  what: 'VALU (not MFMA, not DOT on gfx90a+) writes VGPRs/AGPRs -> MFMA (gfx908: or v_accvgpr_write) reads them',
  w: all(2, ['cdna1', 'cdna2', 'cdna3', 'cdna4']),
  source: `LLVM GCNHazardRecognizer::checkMAIHazards908 and checkMAIHazards90A (VALU writes VGPR -> MFMA reads it); ${T37} Case 100`,
  note: 'gfx908 (checkMAIHazards908): any VALU writer, VGPR sources only; gfx90a+: every explicit source, DOT writers handled by the DOT rule (3).',
};
const EXEC_MFMA_FACT: WaitStateFact = {
  what: 'VALU (not MFMA) writes EXEC (e.g. v_cmpx) -> MFMA (gfx908: or v_accvgpr_write)',
  w: all(4, ['cdna1', 'cdna2', 'cdna3', 'cdna4']),
  source: `LLVM GCNHazardRecognizer::checkMAIHazards908 and checkMAIHazards90A (VALU writes EXEC -> MFMA); ${T38} (v_cmpx -> any V_MFMA: 4)`,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Kind = 'xdl' | 'sgemm' | 'dgemm';

function kindOf(p: HazardInsn): Kind | undefined {
  if (!p.mfma) return undefined;
  if (p.dgemm) return 'dgemm';
  if (p.sgemm) return 'sgemm';
  return 'xdl';
}

function vdstOf(p: HazardInsn): OpRange | undefined {
  const ops = p.ops;
  for (let k = 0; k < ops.length; k++) { const o = ops[k]!; if (o.role === 'vdst' && o.def) return o; }
  return undefined;
}

/** The destination of producer j when it is an MFMA of `kind` (else undefined). */
function kindDst(h: HazardContext, j: number, kind: Kind): OpRange | undefined {
  const p = h.f[j]!;
  return kindOf(p) === kind ? vdstOf(p) : undefined;
}

/** The operand through which an MFMA reads its accumulator: srcC, or the SMFMAC destination. */
function srcCOf(p: HazardInsn): OpRange | undefined {
  const ops = p.ops;
  for (let k = 0; k < ops.length; k++) {
    const o = ops[k]!;
    if ((o.role === 'srcC' && o.use) || (p.smfmac && o.role === 'vdst' && o.use)) return o;
  }
  return undefined;
}

/** An explicit vector operand an MFMA reads as its accumulator (srcC true) or as another source (srcC false). */
function isMfmaRead(c: HazardInsn, o: OpRange, srcC: boolean): boolean {
  if (!o.use || o.lo < VGPR_BASE) return false;
  return (o.role === 'srcC' || (c.smfmac && o.role === 'vdst')) === srcC;
}

/** An explicit vector operand a VALU or memory instruction writes (`writes`) or reads. */
function isVectorAccess(o: OpRange, writes: boolean): boolean {
  return (writes ? o.def : o.use) && o.lo >= VGPR_BASE;
}

/** Consumers of the VALU/memory MFMA rules: VALU (not MFMA) and VMEM/FLAT/DS/export. */
function isMemConsumer(c: HazardInsn): boolean {
  return c.vmem || c.ds || c.exp;
}

const MAX_MFMA_W: Record<Generation, number> = { gcn5: 0, cdna1: 0, cdna2: 19, cdna3: 19, cdna4: 20 };

const isMfma = (f: HazardInsn): boolean => f.mfma;
const VALU_EXEC = P.valuExec[1];

function mfmaProducers(h: HazardContext, consumer: number): readonly number[] {
  return h.producers(consumer, 'mfma', MAX_MFMA_W[h.gen], isMfma);
}

/** The fact and wait states for an MFMA producer P and an MFMA consumer C reading SrcC. */
export function srcCFact(gen: Generation, p: HazardInsn, c: HazardInsn, fullReg: boolean): WaitStateFact | undefined {
  const cdna2 = gen === 'cdna2';
  if (cdna2 && !c.dgemm && p.dgemm) return undefined; // gfx90a: DGEMM -> non-DGEMM SrcC is 0 (checkMAIHazards90A)
  if (fullReg) {
    if (p.dgemm4 && c.dgemm4) return D4_SRCC_SAME;
    if (cdna2 || p.passes === c.passes) {
      if (p.dgemm) return D_SRCC_SAME;
      return p.sgemm ? S_SRCC_SAME : X_SRCC_SAME;
    }
  }
  if (p.dgemm16) return c.xdl ? undefined : D16_SRCC_NONXDL;
  if (p.dgemm4) return c.xdl ? undefined : D4_SRCC_NONXDL;
  if (p.sgemm) return c.xdl ? S_SRCC_X : fullReg ? S_SRCC_PASSES : S_SRCC_SD;
  if (fullReg && c.xdl) return X_SRCC_PASSES;
  return c.xdl ? X_SRCC_X : X_SRCC_SD;
}

export function srcABFact(p: HazardInsn): WaitStateFact {
  if (p.dgemm16) return D16_SRCAB;
  if (p.dgemm4) return D4_SRCAB;
  if (p.sgemm) return S_SRCAB;
  return X_SRCAB;
}

function readFact(p: HazardInsn, mem: boolean): WaitStateFact {
  if (p.dgemm16) return mem ? D16_MEM_READ : D16_VALU_READ;
  if (p.dgemm4) return mem ? D4_MEM_READ : D4_VALU_READ;
  if (p.sgemm) return mem ? S_MEM_READ : S_VALU_READ;
  return mem ? X_MEM_READ : X_VALU_READ;
}

function writeFact(p: HazardInsn): WaitStateFact {
  if (p.dgemm16) return D16_WRITE;
  if (p.dgemm4) return D4_WRITE;
  if (p.sgemm) return S_WRITE;
  return X_WRITE;
}

const KIND_FACTS: Record<Kind, { srcc: WaitStateFact[]; srcab: WaitStateFact[]; valu: WaitStateFact[]; mem: WaitStateFact[]; write: WaitStateFact[] }> = {
  xdl: { srcc: [X_SRCC_SAME, X_SRCC_X, X_SRCC_PASSES, X_SRCC_SD], srcab: [X_SRCAB], valu: [X_VALU_READ], mem: [X_MEM_READ], write: [X_WRITE] },
  sgemm: { srcc: [S_SRCC_SAME, S_SRCC_X, S_SRCC_PASSES, S_SRCC_SD], srcab: [S_SRCAB], valu: [S_VALU_READ], mem: [S_MEM_READ], write: [S_WRITE] },
  dgemm: {
    srcc: [D_SRCC_SAME, D4_SRCC_SAME, D16_SRCC_NONXDL, D4_SRCC_NONXDL], srcab: [D16_SRCAB, D4_SRCAB],
    valu: [D16_VALU_READ, D4_VALU_READ], mem: [D16_MEM_READ, D4_MEM_READ], write: [D16_WRITE, D4_WRITE],
  },
};

function kindApplies(kind: Kind): (t: Target) => boolean {
  return kind === 'sgemm' ? (t) => t.has('gfx940-insts') : (t) => t.has('gfx90a-insts');
}

const KIND_NAME: Record<Kind, string> = { xdl: 'XDL/SMFMAC', sgemm: 'SGEMM', dgemm: 'DGEMM' };

// ---------------------------------------------------------------------------------------------
// Rules: MFMA producer of one kind, any consumer
// ---------------------------------------------------------------------------------------------

/**
 * What a rule on the results of one MFMA kind judges, made once per rule (the check allocates
 * nothing while it finds nothing): which operands of consumer C count, the fact for producer P
 * and such an operand (`full`: the same registers as P's result), and the text of the relation.
 */
interface KindRead {
  kind: Kind;
  operand(c: HazardInsn, r: OpRange): boolean;
  fact(gen: Generation, c: HazardInsn, p: HazardInsn, r: OpRange, full: boolean): WaitStateFact | undefined;
  relation(c: HazardInsn, p: HazardInsn, r: OpRange, fact: WaitStateFact, full: boolean, a: number, b: number): string;
  /** One need per producer (the first operand that falls short), else one per operand. */
  firstPerProducer: boolean;
}

/**
 * The needs of consumer i on the MFMAs of `s.kind` in `list` (mfmaProducers: index, distance):
 * each counted operand that overlaps a producer's result falls short of the fact's wait
 * states unless a later write of the same registers decides their value.
 */
function kindNeeds(h: HazardContext, i: number, list: readonly number[], s: KindRead): Need[] | undefined {
  const c = h.f[i]!;
  const ops = c.ops;
  let out: Need[] | undefined;
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const dst = kindDst(h, j, s.kind);
    if (!dst) continue;
    const d = list[k + 1]!;
    const p = h.f[j]!;
    for (let x = 0; x < ops.length; x++) {
      const r = ops[x]!;
      if (!s.operand(c, r) || !overlaps(dst.lo, dst.hi, r.lo, r.hi)) continue;
      const full = dst.lo === r.lo && dst.hi === r.hi;
      const fact = s.fact(h.gen, c, p, r, full);
      if (!fact) continue;
      const w = waitOf(fact, h.gen, p.passes) ?? 0;
      if (w <= d) continue;
      const a = Math.max(dst.lo, r.lo);
      const b = Math.min(dst.hi, r.hi);
      const d2 = distanceUnlessRewritten(h, i, j, d, w, a, b);
      if (w <= d2) continue;
      (out ??= []).push(need(j, d2, w, s.relation(c, p, r, fact, full, a, b), fact, mfmaNote(p)));
      if (s.firstPerProducer) break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rules: MFMA producer, MFMA consumer
// ---------------------------------------------------------------------------------------------

function mfmaSrcRule(kind: Kind, operand: 'srcc' | 'srcab'): HazardRule {
  const facts = KIND_FACTS[kind][operand];
  const srcC = operand === 'srcc';
  const read: KindRead = {
    kind,
    operand: (c, r) => isMfmaRead(c, r, srcC),
    fact: (gen, c, p, _r, full) => (srcC ? srcCFact(gen, p, c, full) : srcABFact(p)),
    relation(c, p, r, fact, full, a, b) {
      const how = srcC
        ? (fact === X_SRCC_PASSES || fact === S_SRCC_PASSES ? `as SrcC (same tuple, ${c.passes} passes after ${p.passes}: the ISA exempts only equal pass counts; stricter than LLVM, which requires 0)`
          : full ? 'as SrcC (same tuple)' : 'as SrcC')
        : `as ${r.role === 'idx' ? 'index' : r.role}`;
      return `reads ${regText(c, a, b)} ${how}, written by`;
    },
    firstPerProducer: false,
  };
  return {
    id: `mfma-${kind}-write-mfma-${operand}`,
    pairwise: true,
    producer: isMfma,
    sharesRegisters: true,
    present: (h) => h.has(`mfma-${kind}`, (p) => kindOf(p) === kind),
    description: srcC
      ? `An MFMA reads as SrcC registers a ${KIND_NAME[kind]} MFMA wrote too recently.`
      : `An MFMA reads as SrcA/SrcB (or SMFMAC index, gfx950 scale) registers a ${KIND_NAME[kind]} MFMA wrote too recently.`,
    appliesTo: kindApplies(kind),
    source: facts.map((f) => f.source).join(' | '),
    facts,
    check(h, i) {
      if (!h.f[i]!.mfma) return undefined;
      const list = mfmaProducers(h, i);
      return list.length === 0 ? undefined : kindNeeds(h, i, list, read);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Rules: MFMA producer, VALU / memory consumer
// ---------------------------------------------------------------------------------------------

function mfmaValuRule(kind: Kind, what: 'valu-read' | 'mem-read' | 'vgpr-overwrite'): HazardRule {
  const facts = what === 'valu-read' ? KIND_FACTS[kind].valu : what === 'mem-read' ? KIND_FACTS[kind].mem : KIND_FACTS[kind].write;
  const writes = what === 'vgpr-overwrite';
  const read: KindRead = {
    kind,
    operand: (_c, r) => isVectorAccess(r, writes),
    fact: (_gen, c, p) => (writes ? writeFact(p) : readFact(p, isMemConsumer(c))),
    relation: (c, _p, _r, _fact, _full, a, b) => `${writes ? 'overwrites' : 'reads'} ${regText(c, a, b)} written by`,
    firstPerProducer: true,
  };
  return {
    id: `mfma-${kind}-write-${what}`,
    pairwise: true,
    producer: isMfma,
    sharesRegisters: true,
    present: (h) => h.has(`mfma-${kind}`, (p) => kindOf(p) === kind),
    description: what === 'valu-read' ? `A VALU reads registers a ${KIND_NAME[kind]} MFMA wrote too recently.`
      : what === 'mem-read' ? `A VMEM/FLAT/DS/export instruction reads registers a ${KIND_NAME[kind]} MFMA wrote too recently.`
        : `A VALU or a load overwrites registers a ${KIND_NAME[kind]} MFMA wrote too recently (WAW).`,
    appliesTo: kindApplies(kind),
    source: facts.map((f) => f.source).join(' | '),
    facts,
    check(h, i) {
      const c = h.f[i]!;
      if (c.mfma) return undefined;
      const mem = isMemConsumer(c);
      const valu = c.valu && !mem;
      if (what === 'valu-read' && !valu) return undefined;
      if (what === 'mem-read' && !mem) return undefined;
      if (writes && !valu && !mem) return undefined;
      // no MFMA within reach: nothing to report (the producers are memoized per consumer)
      const list = mfmaProducers(h, i);
      if (list.length === 0) return undefined;
      const regs = c.ops;
      for (let x = 0; x < regs.length; x++) if (isVectorAccess(regs[x]!, writes)) return kindNeeds(h, i, list, read);
      return undefined;
    },
  };
}

export const mfmaSrcCReadOverwrite: HazardRule = {
  id: 'mfma-srcc-read-overwrite',
  pairwise: true,
  producer: isMfma,
  sharesRegisters: true,
  present: (h) => h.has('mfma', (f) => f.mfma),
  description: 'A VALU or a load overwrites registers an MFMA may still be reading as SrcC (WAR).',
  appliesTo: (t) => t.has('gfx90a-insts'),
  source: SRCC_WAR.source,
  facts: [SRCC_WAR],
  check(h, i) {
    const c = h.f[i]!;
    if (c.mfma || !(c.valu || isMemConsumer(c))) return undefined;
    const list = mfmaProducers(h, i);
    if (list.length === 0) return undefined;
    const defs = c.ops;
    let any = false;
    for (let x = 0; x < defs.length; x++) if (isVectorAccess(defs[x]!, true)) { any = true; break; }
    if (!any) return undefined;
    const cdna3 = h.gen === 'cdna3' || h.gen === 'cdna4';
    let out: Need[] | undefined;
    for (let k = 0; k < list.length; k += 2) {
      const j = list[k]!;
      const d = list[k + 1]!;
      const p = h.f[j]!;
      if (p.dgemm || (cdna3 && !p.xdl)) continue;
      const sc = srcCOf(p);
      if (!sc) continue;
      for (let x = 0; x < defs.length; x++) {
        const o = defs[x]!;
        if (!isVectorAccess(o, true) || !overlaps(o.lo, o.hi, sc.lo, sc.hi)) continue;
        const w = waitOf(SRCC_WAR, h.gen, p.passes) ?? 0;
        if (w <= d) continue;
        const a = Math.max(o.lo, sc.lo);
        const b = Math.min(o.hi, sc.hi);
        (out ??= []).push(need(j, d, w, `overwrites ${regText(c, a, b)} read as SrcC by`, SRCC_WAR, mfmaNote(p)));
        break;
      }
    }
    return out;
  },
};

// ---------------------------------------------------------------------------------------------
// Rules: VALU producer, MFMA consumer (gfx908 and gfx90a+)
// ---------------------------------------------------------------------------------------------

export const valuWriteMfmaRead: HazardRule = {
  id: 'valu-write-mfma-read',
  pairwise: true,
  // gfx908 asks for 'valu-vdef', later targets for a subset of it
  producer: P.valuVdef[1],
  sharesRegisters: true,
  present: (h) => h.has('mai-consumer', (f) => f.mfma || f.accWrite),
  description: 'An MFMA (gfx908: or v_accvgpr_write) reads registers a VALU wrote less than 2 wait states before.',
  appliesTo: (t) => t.has('mai'),
  source: VALU_MFMA_FACT.source,
  facts: [VALU_MFMA_FACT],
  check(h, i) {
    const c = h.f[i]!;
    const gfx908 = h.gen === 'cdna1';
    if (!(c.mfma || (gfx908 && c.accWrite))) return undefined;
    const reads = gfx908
      ? vgprUses(c)
      : vecUses(c);
    if (reads.length === 0) return undefined;
    const out: Need[] = [];
    const w = factWait(h, VALU_MFMA_FACT);
    const list = gfx908
      ? h.producers(i, 'valu-vdef', w, (p) => p.valu && p.writesVector)
      : h.producers(i, 'valu-nomfma-nodot-vdef', w, (p) => p.valu && !p.mfma && !p.dot && p.writesVector);
    for (let k = 0; k < list.length; k += 2) {
      const j = list[k]!;
      const d = list[k + 1]!;
      const p = h.f[j]!;
      let done = false;
      for (const def of p.ops) {
        if (done) break;
        if (!def.def || def.lo < VGPR_BASE) continue;
        for (const r of reads) {
          if (!overlaps(def.lo, def.hi, r.lo, r.hi)) continue;
          const a = Math.max(def.lo, r.lo);
          const b = Math.min(def.hi, r.hi);
          out.push(need(j, d, w, `reads ${regText(c, a, b)} written by`, VALU_MFMA_FACT));
          done = true;
          break;
        }
      }
    }
    return out;
  },
};

export const valuExecWriteMfma: HazardRule = {
  id: 'valu-exec-write-mfma',
  pairwise: true,
  producer: VALU_EXEC,
  present: (h) => h.has('mai-consumer', (f) => f.mfma || f.accWrite) && h.has('valu-exec', (p) => p.valu && p.writesExec),
  description: 'An MFMA (gfx908: or v_accvgpr_write) issues less than 4 wait states after a VALU wrote EXEC.',
  appliesTo: (t) => t.has('mai'),
  source: EXEC_MFMA_FACT.source,
  facts: [EXEC_MFMA_FACT],
  check(h, i) {
    const c = h.f[i]!;
    const gfx908 = h.gen === 'cdna1';
    if (!(c.mfma || (gfx908 && c.accWrite))) return undefined;
    return scalarRaw(h, i, [EXEC_LO, EXEC_HI], EXEC_MFMA_FACT, 'valu-exec', VALU_EXEC, 'depends on');
  },
};

export const MFMA_RULES: readonly HazardRule[] = [
  valuWriteMfmaRead,
  valuExecWriteMfma,
  ...(['xdl', 'sgemm', 'dgemm'] as const).flatMap((k) => [
    mfmaSrcRule(k, 'srcc'), mfmaSrcRule(k, 'srcab'),
    mfmaValuRule(k, 'valu-read'), mfmaValuRule(k, 'mem-read'), mfmaValuRule(k, 'vgpr-overwrite'),
  ]),
  mfmaSrcCReadOverwrite,
];

