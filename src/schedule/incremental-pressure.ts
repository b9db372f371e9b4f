/**
 * Peak register pressure of one region's sequence kept up to date as the sequence changes, in
 * time proportional to the change (PressureScanner's result, metrics.ts).
 *
 * The scan runs backwards from the region's live-out set: per instruction, max(live before,
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

const WORDS = UNIT_COUNT >>> 5;
/** Positions per block of the kept maxima. */
const BLOCK = 32;
const SGPR_END = FLAT_SCRATCH_LO;

export interface PressureFacts { defOff: Int32Array; defUnits: Int32Array; useOff: Int32Array; useUnits: Int32Array }

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
    let v = 0; let a = 0; let s = 0;
    for (let w = 0; w < WORDS; w++) {
      let bits = liveOut[w] ?? 0;
      this.live[base + w] = bits;
      while (bits) {
        const t = bits & -bits;
        const u = (w << 5) + (31 - Math.clz32(t));
        bits ^= t;
        if (u >= AGPR_BASE) a++; else if (u >= VGPR_BASE) v++; else if (u < SGPR_END) s++;
      }
    }
    this.cv[m] = v; this.ca[m] = a; this.cs[m] = s;
  }

  /** Peaks of `seq` (length m) in out[0..2] (vgpr, agpr, sgpr). */
  run(seq: ArrayLike<number>, out: Int32Array): void {
    const m = this.m;
    let d0 = 0;
    let d1 = m - 1;
    if (this.ran) {
      while (d0 < m && this.seq[d0] === seq[d0]) d0++;
      if (d0 === m) { this.scanned = 0; this.peaks(out); return; }
      while (d1 > d0 && this.seq[d1] === seq[d1]) d1--;
    } else d0 = 0;
    this.ran = true;
    const live = this.live;
    const cur = this.cur;
    const { defOff, defUnits, useOff, useUnits } = this.k;
    const top = (d1 + 1) * WORDS;
    for (let w = 0; w < WORDS; w++) cur[w] = live[top + w]!;
    let v = this.cv[d1 + 1]!; let a = this.ca[d1 + 1]!; let s = this.cs[d1 + 1]!;
    let p = d1;
    for (; p >= 0; p--) {
      const i = seq[p]!;
      this.seq[p] = i;
      const d0i = defOff[i]!; const d1i = defOff[i + 1]!;
      let av = 0; let aa = 0; let as = 0;
      for (let q = d0i; q < d1i; q++) {
        const u = defUnits[q]!;
        if (((cur[u >>> 5]! >>> (u & 31)) & 1) === 0) { if (u >= AGPR_BASE) aa++; else if (u >= VGPR_BASE) av++; else if (u < SGPR_END) as++; }
      }
      let xv = v + av; let xa = a + aa; let xs = s + as;
      for (let q = d0i; q < d1i; q++) {
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
      this.pv[p] = xv; this.pa[p] = xa; this.ps[p] = xs;
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
