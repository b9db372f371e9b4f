/**
 * Peak register pressure (live VGPR / AGPR / SGPR) of a straight-line sequence over flat def/use
 * arrays: once (sequencePeaks), kept up to date as the sequence changes (IncrementalPressure),
 * and the plain set-based walk both are checked against (exactSequencePeaks).
 *
 * IncrementalPressure keeps the peaks of one sequence (a region's, in the scheduler) up to date
 * in time proportional to the change, with sequencePeaks' result. The scan runs backwards from the region's live-out set: per instruction, max(live before,
 * live after + written), as computePressure defines it. The live set before a position depends
 * only on the sequence from that position to the end, so after a change in positions [d0, d1]:
 *   - the positions after d1 keep their pressure and their live sets;
 *   - the scan starts at d1 from the live set kept after it, and at each position at or before
 *     d0 compares the live set it reaches with the one the last scan had there: when they are
 *     equal the positions before are unchanged too (a move that keeps the dependencies, the
 *     search's only kind, meets it right at d0), and the scan stops.
 * The peak is the maximum over the per-position figures kept, as the maximum of per-block maxima
 * (the blocks holding a scanned position are taken again).
 */
import { AGPR_BASE, FLAT_SCRATCH_LO, UNIT_COUNT, VGPR_BASE } from '../asm/registers.js';
import type { ResolvedInsn } from '../isa/types.js';

const WORDS = UNIT_COUNT >>> 5;
/** Positions per block of the kept maxima. */
const BLOCK = 32;
const SGPR_END = FLAT_SCRATCH_LO;

export interface PressureFacts { defOff: Int32Array; defUnits: Int32Array; useOff: Int32Array; useUnits: Int32Array }

/** Counts the units of the set `bits` (WORDS words from `at`) per file into c[0..2] (VGPR, AGPR, SGPR). */
function countLive(bits: Uint32Array, at: number, c: Int32Array): void {
  let v = 0; let a = 0; let s = 0;
  for (let w = 0; w < WORDS; w++) {
    let b = bits[at + w] ?? 0;
    while (b) {
      const t = b & -b;
      const u = (w << 5) + (31 - Math.clz32(t));
      b ^= t;
      if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) s++;
    }
  }
  c[0] = v; c[1] = a; c[2] = s;
}

/**
 * One position of the backward scan: instruction i, with `cur` the units live after it and
 * c[0..2] their count per file. Leaves in `cur` and c[0..2] the units live before it, and in
 * c[3..5] its pressure, max(live before, live after + written) per file, as computePressure
 * defines it.
 */
function stepBack(k: PressureFacts, i: number, cur: Uint32Array, c: Int32Array): void {
  const { defOff, defUnits, useOff, useUnits } = k;
  let v = c[0]!; let a = c[1]!; let s = c[2]!;
  const d0 = defOff[i]!; const d1 = defOff[i + 1]!;
  let av = 0; let aa = 0; let as = 0;
  for (let q = d0; q < d1; q++) {
    const u = defUnits[q]!;
    if (((cur[u >>> 5]! >>> (u & 31)) & 1) === 0) { if (u >= AGPR_BASE) aa++; else if (u >= VGPR_BASE) av++; else if (u < SGPR_END) as++; }
  }
  let xv = v + av; let xa = a + aa; let xs = s + as;
  for (let q = d0; q < d1; q++) {
    const u = defUnits[q]!;
    const x = u >>> 5;
    const bit = 1 << (u & 31);
    if (cur[x]! & bit) { cur[x] = cur[x]! & ~bit; if (u >= AGPR_BASE) a--; else if (u >= VGPR_BASE) v--; else if (u < SGPR_END) s--; }
  }
  for (let q = useOff[i]!; q < useOff[i + 1]!; q++) {
    const u = useUnits[q]!;
    const x = u >>> 5;
    const bit = 1 << (u & 31);
    if ((cur[x]! & bit) === 0) { cur[x] = cur[x]! | bit; if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) s++; }
  }
  if (v > xv) xv = v;
  if (a > xa) xa = a;
  if (s > xs) xs = s;
  c[0] = v; c[1] = a; c[2] = s; c[3] = xv; c[4] = xa; c[5] = xs;
}

const SCAN_LIVE = new Uint32Array(WORDS);
const SCAN_COUNTS = new Int32Array(6);

/**
 * Peak pressure of `seq` ending with `liveOut` live, in out[0..2] (vgpr, agpr, sgpr); `points`,
 * when given, receives the VGPR pressure at each position.
 */
export function sequencePeaks(k: PressureFacts, seq: ArrayLike<number>, liveOut: Uint32Array, out: Int32Array, points?: Int32Array): void {
  const cur = SCAN_LIVE;
  const c = SCAN_COUNTS;
  for (let w = 0; w < WORDS; w++) cur[w] = liveOut[w] ?? 0;
  countLive(cur, 0, c);
  let pv = 0; let pa = 0; let ps = 0;
  for (let p = seq.length - 1; p >= 0; p--) {
    stepBack(k, seq[p]!, cur, c);
    if (points) points[p] = c[3]!;
    if (c[3]! > pv) pv = c[3]!;
    if (c[4]! > pa) pa = c[4]!;
    if (c[5]! > ps) ps = c[5]!;
  }
  out[0] = pv; out[1] = pa; out[2] = ps;
}

/**
 * Peak live VGPR / AGPR / SGPR of a sequence ending with `liveOut` live, computed the plain way
 * (a set of live units, walked backwards; per instruction max(live before, live after + written),
 * as computePressure defines it): the reference sequencePeaks and IncrementalPressure are
 * checked against.
 */
export function exactSequencePeaks(k: { insns: readonly ResolvedInsn[] }, seq: ArrayLike<number>, liveOut: Uint32Array): [number, number, number] {
  const live = new Set<number>();
  for (let u = 0; u < liveOut.length * 32; u++) if ((liveOut[u >>> 5]! >>> (u & 31)) & 1) live.add(u);
  const count = (set: Iterable<number>): [number, number, number] => {
    let v = 0; let a = 0; let sg = 0;
    for (const u of set) { if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) sg++; }
    return [v, a, sg];
  };
  const peak: [number, number, number] = [0, 0, 0];
  const raise = (c: [number, number, number]) => { for (let x = 0; x < 3; x++) if (c[x]! > peak[x]!) peak[x] = c[x]!; };
  for (let p = seq.length - 1; p >= 0; p--) {
    const r = k.insns[seq[p]!]!;
    raise(count(new Set([...live, ...r.defs])));
    for (const u of r.defs) live.delete(u);
    for (const u of r.uses) live.add(u);
    raise(count(live));
  }
  return peak;
}

export class IncrementalPressure {
  readonly m: number;
  private readonly seq: Int32Array;
  /** live[p * WORDS ..]: the units live before position p (p = m: the live-out set). */
  private readonly live: Uint32Array;
  /** Live units per file before position p (vgpr, agpr, sgpr). */
  private readonly cv: Int32Array;
  private readonly ca: Int32Array;
  private readonly cs: Int32Array;
  /** Pressure at position p (max(live before, live after + written)) per file. */
  private readonly pv: Int32Array;
  private readonly pa: Int32Array;
  private readonly ps: Int32Array;
  /** Per block of BLOCK positions: the largest pressure of each file in it (the peak is the largest of these). */
  private readonly bv: Int32Array;
  private readonly ba: Int32Array;
  private readonly bs: Int32Array;
  private readonly cur = new Uint32Array(WORDS);
  /** Live counts and pressure of the scan's position (stepBack). */
  private readonly c = new Int32Array(6);
  private ran = false;
  /** Positions the last run scanned. */
  scanned = 0;

  constructor(private readonly k: PressureFacts, liveOut: Uint32Array, m: number) {
    this.m = m;
    this.seq = new Int32Array(m);
    this.live = new Uint32Array((m + 1) * WORDS);
    this.cv = new Int32Array(m + 1); this.ca = new Int32Array(m + 1); this.cs = new Int32Array(m + 1);
    this.pv = new Int32Array(m); this.pa = new Int32Array(m); this.ps = new Int32Array(m);
    const blocks = Math.ceil(m / BLOCK);
    this.bv = new Int32Array(blocks); this.ba = new Int32Array(blocks); this.bs = new Int32Array(blocks);
    const base = m * WORDS;
    for (let w = 0; w < WORDS; w++) this.live[base + w] = liveOut[w] ?? 0;
    countLive(this.live, base, this.c);
    this.cv[m] = this.c[0]!; this.ca[m] = this.c[1]!; this.cs[m] = this.c[2]!;
  }

  /**
   * Peaks of `seq` (length m) in out[0..2] (vgpr, agpr, sgpr). `from` and `last`, when given: the
   * caller knows that `seq` differs from the sequence last run only in positions [from, last]
   * (none when from > last), which then need not be looked for.
   */
  run(seq: ArrayLike<number>, out: Int32Array, from = -1, last = -1): void {
    const m = this.m;
    let d0 = 0;
    let d1 = m - 1;
    if (this.ran) {
      if (from >= 0) { d0 = from > last ? m : from; d1 = last; } else {
        while (d0 < m && this.seq[d0] === seq[d0]) d0++;
        if (d0 < m) while (d1 > d0 && this.seq[d1] === seq[d1]) d1--;
      }
      if (d0 === m) { this.scanned = 0; this.peaks(out); return; }
    } else d0 = 0;
    this.ran = true;
    const live = this.live;
    const cur = this.cur;
    const c = this.c;
    const top = (d1 + 1) * WORDS;
    for (let w = 0; w < WORDS; w++) cur[w] = live[top + w]!;
    c[0] = this.cv[d1 + 1]!; c[1] = this.ca[d1 + 1]!; c[2] = this.cs[d1 + 1]!;
    let p = d1;
    for (; p >= 0; p--) {
      const i = seq[p]!;
      this.seq[p] = i;
      stepBack(this.k, i, cur, c);
      const v = c[0]!; const a = c[1]!; const s = c[2]!;
      this.pv[p] = c[3]!; this.pa[p] = c[4]!; this.ps[p] = c[5]!;
      const here = p * WORDS;
      if (p <= d0 && v === this.cv[p] && a === this.ca[p] && s === this.cs[p]) {
        // at or before the change's start: the same live set as the last scan's leaves every position before p as it was
        let same = true;
        for (let w = 0; w < WORDS && same; w++) same = live[here + w] === cur[w];
        if (same) { p--; break; }
      }
      for (let w = 0; w < WORDS; w++) live[here + w] = cur[w]!;
      this.cv[p] = v; this.ca[p] = a; this.cs[p] = s;
    }
    this.scanned = d1 - p;
    // the positions scanned are p + 1 .. d1: their blocks' maxima again
    for (let b = (p + 1) / BLOCK | 0; b <= (d1 / BLOCK | 0); b++) {
      let pv = 0; let pa = 0; let ps = 0;
      const end = Math.min(m, (b + 1) * BLOCK);
      for (let q = b * BLOCK; q < end; q++) {
        if (this.pv[q]! > pv) pv = this.pv[q]!;
        if (this.pa[q]! > pa) pa = this.pa[q]!;
        if (this.ps[q]! > ps) ps = this.ps[q]!;
      }
      this.bv[b] = pv; this.ba[b] = pa; this.bs[b] = ps;
    }
    this.peaks(out);
  }

  private peaks(out: Int32Array): void {
    let pv = 0; let pa = 0; let ps = 0;
    for (let b = 0; b < this.bv.length; b++) {
      if (this.bv[b]! > pv) pv = this.bv[b]!;
      if (this.ba[b]! > pa) pa = this.ba[b]!;
      if (this.bs[b]! > ps) ps = this.bs[b]!;
    }
    out[0] = pv; out[1] = pa; out[2] = ps;
  }
}
