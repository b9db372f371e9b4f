/**
 * Small helpers shared by the rule modules: reference citations, register-range tests and the
 * common "find the producers of what this consumer reads" search.
 */
import { REF } from '../../targets/common.js';
import { AGPR_BASE, VGPR_BASE } from '../../asm/registers.js';
import type { HazardContext, HazardInsn, OpRange } from '../context.js';
import { overlaps, regText, unitsText } from '../context.js';
import type { Generation, Need, WaitStateFact } from '../types.js';
import { GENERATIONS, maxWaitOf, waitOf } from '../types.js';

export { REF };

/** The same value on every generation listed (default: all five). */
export function all(v: number, gens: readonly Generation[] = GENERATIONS): Partial<Record<Generation, number>> {
  const o: Partial<Record<Generation, number>> = {};
  for (const g of gens) o[g] = v;
  return o;
}

export const CDNA3_UP: readonly Generation[] = ['cdna3', 'cdna4'];
export const CDNA2_UP: readonly Generation[] = ['cdna2', 'cdna3', 'cdna4'];

export function isScalar(u: number): boolean { return u < 128; }

/** Explicit register operands read / written / either, vector (VGPR or AGPR) only. */
export function vecUses(x: HazardInsn): OpRange[] {
  return x.ops.filter((o) => o.use && o.lo >= VGPR_BASE);
}
export function vecDefs(x: HazardInsn): OpRange[] {
  return x.ops.filter((o) => o.def && o.lo >= VGPR_BASE);
}
export function vecOps(x: HazardInsn): OpRange[] {
  return x.ops.filter((o) => o.lo >= VGPR_BASE);
}
/** Explicit VGPR operands read, AGPRs left out. */
export function vgprUses(x: HazardInsn): OpRange[] {
  return x.ops.filter((o) => o.use && o.lo >= VGPR_BASE && o.lo < AGPR_BASE);
}

/**
 * What a rule helper returns when it finds nothing: one shared empty list (frozen, so a caller
 * that tried to add to it would fail loudly instead of corrupting the next answer).
 */
export const NO_NEEDS: Need[] = Object.freeze([]) as unknown as Need[];

/** Some unit of `a` is in `b` (unitHit's test, without building its text). */
function anyCommon(a: readonly number[], b: readonly number[]): boolean {
  for (let x = 0; x < a.length; x++) if (b.includes(a[x]!)) return true;
  return false;
}

/** Units of `a` that are in `b`, as text ("" when none). */
export function unitHit(a: readonly number[], b: readonly number[]): string {
  const out: number[] = [];
  for (const u of a) if (b.includes(u)) out.push(u);
  return unitsText(out);
}

export function need(producer: number, distance: number, required: number, relation: string, fact: WaitStateFact,
  producerNote?: string): Need {
  return producerNote === undefined
    ? { producer, distance, required, relation, fact }
    : { producer, distance, required, relation, fact, producerNote };
}

/**
 * Producers of vector registers that `reads` overlaps: walk back `limit` wait states and, for
 * every instruction accepted by `isProducer` whose explicit vector defs overlap one of `reads`,
 * ask `required` for its wait states.
 */
export function vectorRaw(h: HazardContext, consumer: number, reads: readonly OpRange[], limit: number,
  key: string, isProducer: (p: HazardInsn) => boolean,
  required: (p: HazardInsn, j: number, hit: OpRange) => { w: number; fact: WaitStateFact; note?: string; relation?: string } | undefined,
): Need[] {
  if (reads.length === 0) return NO_NEEDS;
  let out: Need[] | undefined;
  const list = h.producers(consumer, key, limit, isProducer);
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    const p = h.f[j]!;
    for (const def of p.ops) {
      if (!def.def || def.lo < VGPR_BASE) continue;
      for (const r of reads) {
        if (!overlaps(def.lo, def.hi, r.lo, r.hi)) continue;
        const q = required(p, j, r);
        if (q && q.w > d) {
          const a = Math.max(def.lo, r.lo);
          const b = Math.min(def.hi, r.hi);
          (out ??= []).push(need(j, d, q.w, q.relation ?? `reads ${regText(h.f[consumer]!, a, b)} written by`, q.fact, q.note));
        }
      }
    }
  }
  return out ?? NO_NEEDS;
}

/**
 * The wait states a fact demands on the kernel's generation (a fact without a pass table; a
 * rule only runs where its facts hold, so a missing value is an error in the rule).
 */
export function factWait(h: HazardContext, fact: WaitStateFact): number {
  const w = waitOf(fact, h.gen);
  if (w === undefined) throw new Error(`hazard fact '${fact.what}' has no value on ${h.gen}`);
  return w;
}

/**
 * The most wait states any of `facts` demands, per generation: a walk's reach for a rule with
 * several facts, made once where the rule is defined (`reach[h.gen]`: no work per consumer).
 */
export function factsReach(...facts: readonly WaitStateFact[]): Readonly<Record<Generation, number>> {
  const out = {} as Record<Generation, number>;
  for (const g of GENERATIONS) {
    let w = 0;
    for (const f of facts) w = Math.max(w, maxWaitOf(f, g));
    out[g] = w;
  }
  return out;
}

/** Producers (accepted by isProducer) that write one of the scalar units `reads`, within the fact's W. */
export function scalarRaw(h: HazardContext, consumer: number, reads: readonly number[], fact: WaitStateFact,
  key: string, isProducer: (p: HazardInsn) => boolean, verb = 'reads'): Need[] {
  let out: Need[] | undefined;
  const w = factWait(h, fact);
  if (reads.length === 0) return NO_NEEDS;
  const list = h.producers(consumer, key, w, isProducer);
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    if (d >= w) continue;
    const sdefs = h.f[j]!.sdefs;
    if (!anyCommon(sdefs, reads)) continue;
    const hit = unitHit(sdefs, reads);
    if (hit) (out ??= []).push(need(j, d, w, `${verb} ${hit} written by`, fact));
  }
  return out ?? NO_NEEDS;
}

/** Any producer accepted by `isProducer` within the fact's W (no register relation). */
export function anyWithin(h: HazardContext, consumer: number, fact: WaitStateFact,
  key: string, isProducer: (p: HazardInsn) => boolean, relation: string, note?: (p: HazardInsn) => string | undefined): Need[] {
  let out: Need[] | undefined;
  const w = factWait(h, fact);
  const list = h.producers(consumer, key, w, isProducer);
  for (let k = 0; k < list.length; k += 2) {
    const j = list[k]!;
    const d = list[k + 1]!;
    if (d < w) (out ??= []).push(need(j, d, w, relation, fact, note?.(h.f[j]!)));
  }
  return out ?? NO_NEEDS;
}

/** Producers (accepted by isProducer) of the vector registers `reads` overlaps, within the fact's W. */
export function vectorRawFact(h: HazardContext, consumer: number, reads: readonly OpRange[], fact: WaitStateFact,
  key: string, isProducer: (p: HazardInsn) => boolean): Need[] {
  const w = factWait(h, fact);
  return vectorRaw(h, consumer, reads, w, key, isProducer, () => ({ w, fact }));
}

/** Shared producer predicates, each with the key it is memoized under. */
export const P = {
  valu: ['valu', (p: HazardInsn) => p.valu] as const,
  valuSdef: ['valu-sdef', (p: HazardInsn) => p.valu && p.sdefs.length > 0] as const,
  valuExec: ['valu-exec', (p: HazardInsn) => p.valu && p.writesExec] as const,
  valuVcc: ['valu-vcc', (p: HazardInsn) => p.valu && p.writesVcc] as const,
  saluM0: ['salu-m0', (p: HazardInsn) => p.salu && p.writesM0] as const,
  any: ['any', () => true] as const,
  vdef: ['vdef', (p: HazardInsn) => p.writesVector] as const,
  valuVdef: ['valu-vdef', (p: HazardInsn) => p.valu && p.writesVector] as const,
};

export function mfmaNote(p: HazardInsn): string {
  const kind = p.smfmac ? 'SMFMAC' : p.xdl ? 'XDL' : p.sgemm ? 'SGEMM' : p.dgemm ? 'DGEMM' : 'MFMA';
  return `${kind}, ${p.passes} passes`;
}

/**
 * The distance that counts for a producer `j` of [lo, hi) (its explicit vector destination) seen
 * from `consumer` at distance `d` with `w` wait states required: a later instruction that reads
 * a register `j` writes and then overwrites all of [lo, hi) can only write after `j`'s result is
 * in place (it waited for it), so along paths through it `j` no longer decides what [lo, hi)
 * holds and its hazard ends there (the later writer's own hazards take over; e.g. an MFMA that
 * reads `j`'s accumulator as SrcC and rewrites it). Returns the distance over the other paths,
 * or Infinity when every path within `w` goes through such a writer. So does an MFMA of `j`'s kind
 * and pass count that overwrites all of [lo, hi) without reading it: issued after `j` on the same
 * pipe with the same latency, it writes after `j` does (LLVM looks at the nearest writer only,
 * GCNHazardRecognizer getWaitStatesSinceDef; a new user's trial on llc's
 * rewrite-vgpr-mfma-to-agpr test). Other writers that do not read `j`'s result (two MFMAs of
 * different pass counts sharing an accumulator without a SrcC read) do not end it: they may
 * complete out of order.
 */
export function distanceUnlessRewritten(h: HazardContext, consumer: number, j: number, d: number, w: number, lo: number, hi: number): number {
  if (d >= w) return d;
  const p = h.f[j]!;
  const dst = vecDefs(p);
  const ends = (k: number): boolean => {
    const x = h.f[k]!;
    let covers = false;
    for (const o of x.ops) if (o.def && o.lo <= lo && o.hi >= hi) { covers = true; break; }
    if (!covers) return false;
    if (p.mfma && x.mfma && x.passes === p.passes && x.xdl === p.xdl && x.sgemm === p.sgemm && x.dgemm === p.dgemm && x.smfmac === p.smfmac) return true;
    for (const o of x.ops) {
      if (!o.use || o.lo < VGPR_BASE) continue;
      for (const t of dst) if (overlaps(o.lo, o.hi, t.lo, t.hi)) return true;
    }
    return false;
  };
  return h.distanceAvoiding(consumer, j, w, ends) ?? Infinity;
}
