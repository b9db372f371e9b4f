/**
 * gfx908 (CDNA1; 'mai' without 'gfx90a-insts') MFMA hazards. MFMA SrcC/vDst are AGPRs; VMEM
 * and DS cannot touch AGPRs, so values move through v_accvgpr_read/write.
 * Source: LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAILdStHazards (rocRoller's
 * XDLWrite908 agrees). N = passes of the producing MFMA (2/8/16).
 */
import type { Target } from '../../isa/target.js';
import type { HazardContext, HazardInsn, OpRange } from '../context.js';
import { overlaps } from '../context.js';
import type { HazardRule, Need, WaitStateFact } from '../types.js';
import { maxWaitOf, waitOf } from '../types.js';
import { distanceUnlessRewritten, factsReach, factWait, mfmaNote, need, vgprUses } from './util.js';
import { AGPR_BASE, VGPR_BASE, rangeName } from '../../asm/registers.js';
import { lineAt } from '../../asm/include.js';

const S22 = `LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAILdStHazards`;
const gfx908 = (t: Target) => t.has('mai') && !t.has('gfx90a-insts');

export const MAI908_FACTS = {
  mfmaSrcC: { what: 'MFMA writes AGPRs -> MFMA reads an overlapping (not identical) tuple as SrcC', w: { cdna1: 2 }, source: `${S22} (MFMA -> SrcC, overlap)` },
  mfmaSrcAB: { what: 'MFMA writes AGPRs -> MFMA reads them as SrcA/SrcB', w: { cdna1: 4 }, source: `${S22} (MFMA -> SrcA/SrcB)` },
  mfmaAccRead: { what: 'MFMA writes AGPRs -> v_accvgpr_read reads one', w: { cdna1: { 2: 4, 8: 10, 16: 18 } }, source: `${S22} (MFMA -> v_accvgpr_read)`,
    note: 'LLVM takes the largest pass count of every MFMA it walks past on the way back (conservative); the producer\'s own pass count is the rule.' },
  mfmaAccWrite: { what: 'MFMA writes AGPRs -> v_accvgpr_write overwrites one (WAW)', w: { cdna1: { 2: 1, 8: 7, 16: 15 } }, source: `${S22} (MFMA -> v_accvgpr_write)` },
  accSrcC: { what: 'v_accvgpr_write writes an AGPR -> MFMA reads it as SrcC', w: { cdna1: 1 }, source: `${S22} (v_accvgpr_write -> SrcC)` },
  accSrcAB: { what: 'v_accvgpr_write writes an AGPR -> MFMA reads it as SrcA/SrcB', w: { cdna1: 3 }, source: `${S22} (v_accvgpr_write -> SrcA/SrcB)` },
  accAccRead: { what: 'v_accvgpr_write writes an AGPR -> v_accvgpr_read reads it', w: { cdna1: 3 }, source: `${S22} (v_accvgpr_write -> v_accvgpr_read)` },
  accAccWrite: { what: 'v_accvgpr_write writes an AGPR -> v_accvgpr_write overwrites it (WAW)', w: { cdna1: 3 },
    source: 'oracle (LLVM 22.1.8): llc -mtriple=amdgcn -mcpu=gfx908 -start-before=post-RA-hazard-rec on two V_ACCVGPR_WRITE_B32 of $agpr0 -> s_nop 2 between them (test/oracle/hazards-llc-probes.test.ts)',
    note: `Not in the LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAILdStHazards table (LLVM checks the v_accvgpr_write destination like a SrcA/SrcB read); measured and kept (larger value).` },
  srcCWar: { what: 'MFMA reads AGPRs as SrcC -> v_accvgpr_write overwrites one (WAR)', w: { cdna1: { 2: 0, 8: 5, 16: 13 } }, source: `${S22} (SrcC read -> v_accvgpr_write)` },
  accReadMem: { what: 'v_accvgpr_read writes a VGPR -> VMEM/FLAT/DS reads it', w: { cdna1: 2 }, source: `${S22} (v_accvgpr_read -> VMEM/FLAT/DS)` },
  accAfterValuMem: { what: 'VALU writes a VGPR, then v_accvgpr_read/write, then VMEM/FLAT/DS reads the VGPR', w: { cdna1: 1 }, source: `${S22} (last row)` },
} satisfies Record<string, WaitStateFact>;

/** AGPR operands of a gfx908 MAI consumer that the AGPR rules check, with their kind. */
type AgprUse = { op: OpRange; kind: 'srcC' | 'srcAB' | 'accRead' | 'accWrite' };

/** agprOperands per instruction, made once (a rule asks for every consumer of every window it checks). */
const agprOf = new WeakMap<HazardInsn, readonly AgprUse[]>();
function agprUses(c: HazardInsn): readonly AgprUse[] {
  let u = agprOf.get(c);
  if (u === undefined) { u = agprOperands(c); agprOf.set(c, u); }
  return u;
}

/** The vdst operand an MFMA or v_accvgpr_write writes, per instruction, found once. */
const vdstOf = new WeakMap<HazardInsn, OpRange | null>();
function writtenVdst(p: HazardInsn): OpRange | undefined {
  let d = vdstOf.get(p);
  if (d === undefined) { d = p.ops.find((o) => o.role === 'vdst' && o.def) ?? null; vdstOf.set(p, d); }
  return d ?? undefined;
}

function agprOperands(c: HazardInsn): AgprUse[] {
  const out: AgprUse[] = [];
  for (const o of c.ops) {
    if (o.lo < AGPR_BASE) continue;
    if (c.mfma) {
      if (!o.use) continue;
      out.push({ op: o, kind: o.role === 'srcC' ? 'srcC' : 'srcAB' });
    } else if (c.accRead && o.use) out.push({ op: o, kind: 'accRead' });
    else if (c.accWrite && o.def) out.push({ op: o, kind: 'accWrite' });
  }
  return out;
}

function scan(h: HazardContext, i: number, producer: 'mfma' | 'accWrite', kinds: readonly AgprUse['kind'][],
  factOf: (k: AgprUse['kind']) => WaitStateFact, reach: number): Need[] {
  const c = h.f[i]!;
  if (!c.mai) return [];
  const uses = agprUses(c);
  let any = false;
  for (const u of uses) if (kinds.includes(u.kind)) { any = true; break; }
  if (!any) return [];
  const list = h.producers(i, producer, reach, producer === 'mfma' ? isMfma : isAccWrite);
  const out: Need[] = [];
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    const p = h.f[j]!;
    const dst = writtenVdst(p);
    if (!dst) continue;
    for (const u of uses) {
      if (!kinds.includes(u.kind) || !overlaps(dst.lo, dst.hi, u.op.lo, u.op.hi)) continue;
      if (producer === 'mfma' && dst.lo === u.op.lo && dst.hi === u.op.hi) continue; // identical tuple: chain
      const fact = factOf(u.kind);
      const w = waitOf(fact, h.gen, p.passes) ?? 0;
      if (w <= d) continue;
      const a = Math.max(dst.lo, u.op.lo);
      const b = Math.min(dst.hi, u.op.hi);
      const d2 = producer === 'mfma' ? distanceUnlessRewritten(h, i, j, d, w, a, b) : d;
      if (w <= d2) continue;
      const verb = u.kind === 'accWrite' ? 'overwrites' : 'reads';
      const as = u.kind === 'srcC' ? ' as SrcC' : u.kind === 'srcAB' ? ` as ${u.op.role}` : '';
      out.push(need(j, d2, w, `${verb} ${rangeName(a, b - a)}${as}, written by`, fact, producer === 'mfma' ? mfmaNote(p) : undefined));
      break;
    }
  }
  return out;
}

const isMfma = (f: HazardInsn) => f.mfma;
const isAccWrite = (f: HazardInsn) => f.accWrite;

function rule(id: string, description: string, facts: WaitStateFact[], check: HazardRule['check'],
  pair?: Pick<HazardRule, 'pairwise' | 'producer' | 'sharesRegisters'>): HazardRule {
  return {
    id, description, appliesTo: gfx908, source: facts.map((f) => f.source).join(' | '), facts, check,
    present: (h) => h.has('mai', (f) => f.mai), ...pair,
  };
}

/**
 * A rule whose every need is a producer its walk listed (`producer`), with the wait states its
 * fact gives the pair (the producer's pass count, the consumer's operand) and a distance at
 * least the walk's (distanceUnlessRewritten only lengthens it), relating a register the
 * producer writes (or reads as SrcC) to one the consumer names: HazardRule.pairwise.
 */
const pairOf = (producer: (f: HazardInsn) => boolean): Pick<HazardRule, 'pairwise' | 'producer' | 'sharesRegisters'> =>
  ({ pairwise: true, producer, sharesRegisters: true });

/** A rule that scans `producer`s for the AGPR uses of `kinds`, each judged by its fact (factOf): its facts and walk reach made once. */
function scanRule(id: string, description: string, producer: 'mfma' | 'accWrite', kinds: readonly AgprUse['kind'][],
  factOf: (k: AgprUse['kind']) => WaitStateFact): HazardRule {
  const facts = kinds.map(factOf);
  const reach = factsReach(...facts);
  return rule(id, description, facts, (h, i) => scan(h, i, producer, kinds, factOf, reach[h.gen]), pairOf(producer === 'mfma' ? isMfma : isAccWrite));
}

export const MAI908_RULES: readonly HazardRule[] = [
  scanRule('mfma-agpr-write-srcc', 'gfx908: an MFMA reads as SrcC AGPRs an earlier MFMA wrote (overlapping, not identical) less than 2 wait states before.',
    'mfma', ['srcC'], () => MAI908_FACTS.mfmaSrcC),
  scanRule('mfma-agpr-write-srcab', 'gfx908: an MFMA reads as SrcA/SrcB AGPRs an MFMA wrote less than 4 wait states before.',
    'mfma', ['srcAB'], () => MAI908_FACTS.mfmaSrcAB),
  scanRule('mfma-agpr-write-accvgpr-read', 'gfx908: v_accvgpr_read reads an AGPR an MFMA is still writing.',
    'mfma', ['accRead'], () => MAI908_FACTS.mfmaAccRead),
  scanRule('mfma-agpr-write-accvgpr-write', 'gfx908: v_accvgpr_write overwrites an AGPR an MFMA is still writing.',
    'mfma', ['accWrite'], () => MAI908_FACTS.mfmaAccWrite),
  scanRule('accvgpr-write-agpr-read', 'gfx908: an MFMA or v_accvgpr_read reads (or v_accvgpr_write overwrites) an AGPR that v_accvgpr_write wrote too recently.',
    'accWrite', ['srcC', 'srcAB', 'accRead', 'accWrite'],
    (k) => (k === 'srcC' ? MAI908_FACTS.accSrcC : k === 'srcAB' ? MAI908_FACTS.accSrcAB : k === 'accRead' ? MAI908_FACTS.accAccRead : MAI908_FACTS.accAccWrite)),
  rule('mfma-srcc-read-accvgpr-write', 'gfx908: v_accvgpr_write overwrites an AGPR an MFMA may still be reading as SrcC.',
    [MAI908_FACTS.srcCWar], (h, i) => {
      const c = h.f[i]!;
      if (!c.accWrite) return undefined;
      const dst = c.ops.find((o) => o.def && o.lo >= AGPR_BASE);
      if (!dst) return undefined;
      const list = h.producers(i, 'mfma', maxWaitOf(MAI908_FACTS.srcCWar, h.gen), isMfma);
      const out: Need[] = [];
      for (let k = 0; k < list.length; k += 2) {
        const j = list[k]!;
        const d = list[k + 1]!;
        const p = h.f[j]!;
        const sc = p.ops.find((o) => o.role === 'srcC' && o.use);
        if (!sc || !overlaps(sc.lo, sc.hi, dst.lo, dst.hi)) continue;
        const w = waitOf(MAI908_FACTS.srcCWar, h.gen, p.passes) ?? 0;
        if (w > d) out.push(need(j, d, w, `overwrites ${rangeName(dst.lo, dst.hi - dst.lo)} read as SrcC by`, MAI908_FACTS.srcCWar, mfmaNote(p)));
      }
      return out;
    }, pairOf(isMfma)),
  rule('accvgpr-read-mem-read', 'gfx908: a VMEM/FLAT/DS instruction reads a VGPR that v_accvgpr_read wrote less than 2 wait states before.',
    [MAI908_FACTS.accReadMem], (h, i) => {
      const c = h.f[i]!;
      if (!(c.vmem || c.ds)) return undefined;
      const regs = vgprUses(c);
      if (regs.length === 0) return undefined;
      const out: Need[] = [];
      const w = factWait(h, MAI908_FACTS.accReadMem);
      const list = h.producers(i, 'accread', w, (p) => p.accRead);
      for (let k = 0; k < list.length; k += 2) {
        const j = list[k]!;
        const d = list[k + 1]!;
        const dst = h.f[j]!.ops.find((o) => o.def && o.role === 'vdst');
        if (dst && regs.some((r) => overlaps(r.lo, r.hi, dst.lo, dst.hi))) {
          out.push(need(j, d, w, `reads ${rangeName(dst.lo, dst.hi - dst.lo)} written by`, MAI908_FACTS.accReadMem));
        }
      }
      return out;
    }, pairOf((p) => p.accRead)),
  rule('accvgpr-after-valu-mem-read', 'gfx908: a VMEM/FLAT/DS instruction right after v_accvgpr_read/write reads a VGPR a VALU wrote just before that.',
    [MAI908_FACTS.accAfterValuMem], (h, i) => {
      const c = h.f[i]!;
      if (!(c.vmem || c.ds)) return undefined;
      const regs = vgprUses(c);
      if (regs.length === 0) return undefined;
      const w = factWait(h, MAI908_FACTS.accAfterValuMem);
      const acc = h.producers(i, 'accrw', w, (p) => p.accRead || p.accWrite);
      if (acc.length === 0) return undefined;
      // a non-MAI VALU wrote one of the VGPRs right before that v_accvgpr (one more wait state back)
      let valu = -1;
      let reg = '';
      const list = h.producers(i, 'valu-nonmai-vdef', w + 1, (p) => p.valu && !p.mai && p.writesVector);
      for (let k = 0; k < list.length && valu < 0; k += 2) {
        const j = list[k]!;
        for (const def of h.f[j]!.ops) {
          if (!def.def || def.lo < VGPR_BASE) continue;
          const r = regs.find((x) => overlaps(x.lo, x.hi, def.lo, def.hi));
          if (r) { valu = j; reg = rangeName(Math.max(r.lo, def.lo), Math.min(r.hi, def.hi) - Math.max(r.lo, def.lo)); break; }
        }
      }
      if (valu < 0) return undefined;
      const out: Need[] = [];
      for (let k = 0; k < acc.length; k += 2) {
        out.push(need(acc[k]!, acc[k + 1]!, w, `reads ${reg} (written by the VALU at ${lineAt(h.f[valu]!.insn.loc, c.insn.loc)}) right after`, MAI908_FACTS.accAfterValuMem));
      }
      return out;
    }),
];
