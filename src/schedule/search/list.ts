/**
 * A latency- and pressure-aware list scheduler for one region (the CDNA4 scheduling guide's
 * rules, "Scheduling Heuristics"): global loads as early as their operands allow, LDS reads
 * interleaved with MFMA, MFMA dependency gaps filled with independent work, and live ranges
 * kept short by not letting the region's VGPR/AGPR pressure rise above its original peak.
 *
 * Cycle-driven: an instruction becomes a candidate when every instruction it depends on is
 * placed; it may issue once its producers' results are ready (the cycle model's result and
 * memory latencies, src/cycles) and its pipe is free (the model's pipe occupancy: MFMA passes
 * on the matrix pipe). Among the candidates that may issue now, the highest priority wins:
 * critical-path height (latency to the end of the region), plus the guide's bonuses, minus a
 * pressure penalty. Every order it returns keeps every dependency edge of the region graph, so
 * it is legal by construction.
 */
import { AGPR_BASE, UNIT_COUNT, VGPR_BASE } from '../../asm/registers.js';
import { cycleEngineFor } from '../../cycles/estimate.js';
import { PIPE } from '../../cycles/model.js';
import type { ScheduleKernel } from '../kernel.js';

export interface ListVariant {
  name: string;
  /** Weight of the critical-path height (cycles). */
  latency: number;
  /** Penalty per register unit the instruction adds to the live set (cycles per unit). */
  pressure: number;
  /** Never exceed the region's original VGPR/AGPR peak when another candidate does not. */
  cap: boolean;
  /** Priority bonus (cycles) for global/buffer loads: issue them early. */
  globalEarly: number;
  /** Priority bonus (cycles) for alternating LDS reads and MFMA. */
  interleave: number;
  /** Random perturbation of the priority (cycles, times a uniform [0,1) draw). */
  jitter: number;
}

export const LIST_VARIANTS: readonly ListVariant[] = [
  { name: 'latency', latency: 1, pressure: 0, cap: true, globalEarly: 400, interleave: 16, jitter: 0 },
  { name: 'latency-uncapped', latency: 1, pressure: 0, cap: false, globalEarly: 400, interleave: 16, jitter: 0 },
  { name: 'pressure', latency: 0.05, pressure: 50, cap: true, globalEarly: 0, interleave: 0, jitter: 0 },
  { name: 'critical-path', latency: 1, pressure: 0, cap: true, globalEarly: 0, interleave: 0, jitter: 0 },
  { name: 'balanced', latency: 1, pressure: 8, cap: true, globalEarly: 200, interleave: 8, jitter: 0 },
];

/** Precomputed per-region facts for list scheduling (built once per region). */
export interface RegionFacts {
  m: number;
  /** Successors and predecessors (local indexes) with the edge latency. */
  succ: Int32Array[]; succLat: Float64Array[];
  predCount: Int32Array;
  height: Float64Array;
  issue: Float64Array;
  pipe: Uint8Array;
  occ: Float64Array;
  isGlobalLoad: Uint8Array;
  isLdsRead: Uint8Array;
  isMfma: Uint8Array;
  /** Per node: register events (unit file 0 VGPR / 1 AGPR), as flat lists. */
  evOff: Int32Array;
  /** Segment id of the event; the segment's reader count is segReaders[seg]. */
  evSeg: Int32Array;
  /** 1 read, 2 def, 3 both. */
  evKind: Uint8Array;
  evFile: Uint8Array;
  segReaders: Int32Array;
  /** Per segment: the nodes with an event on it (segNode[segNodeOff[s] .. segNodeOff[s + 1]]). */
  segNodeOff: Int32Array;
  segNode: Int32Array;
  /** Segment stays live after its last reader (last segment of a unit live out of the region). */
  segLiveOut: Uint8Array;
  /** Segment live at the region entry (its unit is read before any def in the region). */
  entrySeg: Uint8Array;
  /** Live units at region entry per file (touched live-in plus untouched live-through). */
  liveIn: [number, number];
  /** The original order's peak per file (the cap). */
  cap: [number, number];
}

/** `allEdges`: keep every edge of the region graph (for the test that compares; see below). */
export function regionFacts(k: ScheduleKernel, r: number, originalPeak: [number, number], allEdges = false): RegionFacts {
  const rg = k.regions[r]!;
  const nodes = rg.nodes;
  const m = nodes.length;
  const g = rg.graph;
  const model = cycleEngineFor(k.ctx).m;
  const succ: Int32Array[] = new Array(m);
  const succLat: Float64Array[] = new Array(m);
  const predCount = new Int32Array(m);
  const defMark = new Int32Array(UNIT_COUNT).fill(-1);
  // Edges kept: those of the graph's transitive reduction, and each read after write a -> b
  // (which carries a's latency) unless b is reached from another read of a's results. A dropped
  // edge changes nothing a list schedule computes: b becomes ready when its last predecessor is
  // placed, and that is a kept one (the other path's last node comes after a); the time b may
  // issue and a's height through b are at most what the other path gives (a's issue cost, or a's
  // latency when the path starts with a read of a's results, then nothing negative). The graph's
  // register and memory conflicts are dense where many instructions read EXEC, VCC or M0 (every
  // pair is an edge): a 4,708-instruction region of a rocBLAS kernel spent most of its list
  // schedules walking them.
  const W = g.words;
  // per node: the nodes reachable from it, found from the last node back; and for the node at
  // hand, those reachable through a read of its results
  const reach = new Uint32Array(m * W);
  const rawReach = new Uint32Array(W);
  for (let a = m - 1; a >= 0; a--) {
    rawReach.fill(0);
    const ia = nodes[a]!;
    for (let p = k.defOff[ia]!; p < k.defOff[ia + 1]!; p++) defMark[k.defUnits[p]!] = a;
    const s: number[] = [];
    const l: number[] = [];
    const row = a * W;
    for (let w = (a + 1) >>> 5; w < W; w++) {
      let bits = g.bits[row + w]!;
      while (bits) {
        const t = bits & -bits;
        bits ^= t;
        const b = (w << 5) + (31 - Math.clz32(t));
        if (b <= a) continue;
        const ib = nodes[b]!;
        let raw = false;
        for (let p = k.useOff[ib]!; p < k.useOff[ib + 1]! && !raw; p++) if (defMark[k.useUnits[p]!] === a) raw = true;
        // successors in increasing order: b is reached through an earlier one, or it is a reduction edge
        const through = (reach[row + w]! & t) !== 0;
        const rb = b * W;
        if (!through) {
          for (let x = (b + 1) >>> 5; x < W; x++) reach[row + x]! |= reach[rb + x]!;
          reach[row + w]! |= t;
        }
        const rawThrough = raw && (rawReach[w]! & t) !== 0;
        if (raw && !rawThrough) {
          for (let x = (b + 1) >>> 5; x < W; x++) rawReach[x]! |= reach[rb + x]!;
          rawReach[w]! |= t;
        }
        if (through && (!raw || rawThrough) && !allEdges) continue;
        s.push(b);
        l.push(raw ? model.lat[ia]! : 0);
        predCount[b]!++;
      }
    }
    for (let p = k.defOff[ia]!; p < k.defOff[ia + 1]!; p++) defMark[k.defUnits[p]!] = -1;
    succ[a] = Int32Array.from(s);
    succLat[a] = Float64Array.from(l);
  }
  const issue = new Float64Array(m);
  const pipe = new Uint8Array(m);
  const occ = new Float64Array(m);
  const isGlobalLoad = new Uint8Array(m);
  const isLdsRead = new Uint8Array(m);
  const isMfma = new Uint8Array(m);
  for (let a = 0; a < m; a++) {
    const i = nodes[a]!;
    issue[a] = model.issue[i]!;
    pipe[a] = model.pipeA[i]!;
    occ[a] = model.occA[i]!;
    const info = k.insns[i]!.info;
    const mem = info.mem;
    if (mem && mem.op === 'load' && mem.space !== 'lds') isGlobalLoad[a] = 1;
    if (mem && mem.op === 'load' && mem.space === 'lds') isLdsRead[a] = 1;
    if (info.mfma || model.pipeA[i] === PIPE.matrix) isMfma[a] = 1;
  }
  const height = new Float64Array(m);
  for (let a = m - 1; a >= 0; a--) {
    let h = issue[a]!;
    const s = succ[a]!;
    const l = succLat[a]!;
    for (let x = 0; x < s.length; x++) { const v = Math.max(l[x]!, issue[a]!) + height[s[x]!]!; if (v > h) h = v; }
    height[a] = h;
  }
  // Register segments per unit (VGPR and AGPR units): the order of a unit's defs and reads is
  // fixed by the graph up to the order of reads between two defs, so a segment (a def, or the
  // region entry, and the reads up to the next def) dies when its last reader is placed.
  const liveOutBit = (u: number) => (rg.liveOut[u >>> 5]! >>> (u & 31)) & 1;
  const segOfUnit = new Map<number, number>();
  const segReaders: number[] = [];
  const entry: number[] = [];
  const evs: number[][] = new Array(m);
  const touched = new Set<number>();
  const liveIn: [number, number] = [0, 0];
  for (let a = 0; a < m; a++) {
    const i = nodes[a]!;
    const list: number[] = [];
    const reads = new Set<number>();
    for (let p = k.useOff[i]!; p < k.useOff[i + 1]!; p++) { const u = k.useUnits[p]!; if (u >= VGPR_BASE) reads.add(u); }
    const defs = new Set<number>();
    for (let p = k.defOff[i]!; p < k.defOff[i + 1]!; p++) { const u = k.defUnits[p]!; if (u >= VGPR_BASE) defs.add(u); }
    for (const u of reads) {
      let seg = segOfUnit.get(u);
      if (seg === undefined) {
        seg = segReaders.length; segReaders.push(0); entry[seg] = 1; segOfUnit.set(u, seg);
        liveIn[u >= AGPR_BASE ? 1 : 0]++;
      }
      segReaders[seg]!++;
      touched.add(u);
      list.push(seg, 1, u >= AGPR_BASE ? 1 : 0);
    }
    for (const u of defs) {
      const seg = segReaders.length; segReaders.push(0); segOfUnit.set(u, seg);
      touched.add(u);
      list.push(seg, 2, u >= AGPR_BASE ? 1 : 0);
    }
    evs[a] = list;
  }
  const segLiveOut = new Uint8Array(segReaders.length);
  const entrySeg = new Uint8Array(segReaders.length);
  entry.forEach((x, seg) => { if (x) entrySeg[seg] = 1; });
  for (const [u, seg] of segOfUnit) if (liveOutBit(u)) segLiveOut[seg] = 1;
  for (let w = 0; w < rg.liveOut.length; w++) {
    let bits = rg.liveOut[w]!;
    while (bits) {
      const t = bits & -bits;
      bits ^= t;
      const u = (w << 5) + (31 - Math.clz32(t));
      if (u >= VGPR_BASE && !touched.has(u)) liveIn[u >= AGPR_BASE ? 1 : 0]++;
    }
  }
  const evOff = new Int32Array(m + 1);
  for (let a = 0; a < m; a++) evOff[a + 1] = evOff[a]! + evs[a]!.length / 3;
  const total = evOff[m]!;
  const evSeg = new Int32Array(total);
  const evKind = new Uint8Array(total);
  const evFile = new Uint8Array(total);
  for (let a = 0; a < m; a++) {
    const l = evs[a]!;
    for (let x = 0; x < l.length / 3; x++) {
      const q = evOff[a]! + x;
      evSeg[q] = l[3 * x]!; evKind[q] = l[3 * x + 1]!; evFile[q] = l[3 * x + 2]!;
    }
  }
  const segNodeOff = new Int32Array(segReaders.length + 1);
  for (let q = 0; q < total; q++) segNodeOff[evSeg[q]! + 1]!++;
  for (let s = 0; s < segReaders.length; s++) segNodeOff[s + 1]! += segNodeOff[s]!;
  const segNode = new Int32Array(total);
  const fill = segNodeOff.slice(0, segReaders.length);
  for (let a = 0; a < m; a++) for (let q = evOff[a]!; q < evOff[a + 1]!; q++) segNode[fill[evSeg[q]!]!++] = a;
  return {
    m, succ, succLat, predCount, height, issue, pipe, occ, isGlobalLoad, isLdsRead, isMfma,
    evOff, evSeg, evKind, evFile, segReaders: Int32Array.from(segReaders), segNodeOff, segNode, segLiveOut, entrySeg, liveIn, cap: originalPeak,
  };
}

/**
 * One list schedule of a region: the order as local node indexes by position (a permutation
 * that keeps every edge). `rand` is used only when the variant has jitter. `recompute`: every
 * candidate's live-set change computed at every step, none kept (for the test that compares).
 */
export function listSchedule(f: RegionFacts, v: ListVariant, rand: () => number, recompute = false): Int32Array {
  const m = f.m;
  const npred = f.predCount.slice();
  const est = new Float64Array(m);
  const remaining = f.segReaders.slice();
  const segLive = f.entrySeg.slice();
  const pipeFree = new Float64Array(8);
  // the candidates in the order they became ready (an exact tie goes to the first), and the
  // earliest issue of each, computed once per step
  const ready = new Int32Array(m);
  const readyAt = new Float64Array(m);
  let nr = 0;
  for (let a = 0; a < m; a++) if (npred[a] === 0) ready[nr++] = a;
  const live: [number, number] = [f.liveIn[0], f.liveIn[1]];
  const out = new Int32Array(m);
  const noise = new Float64Array(m);
  if (v.jitter > 0) for (let a = 0; a < m; a++) noise[a] = rand() * v.jitter;
  // the live-set change of a candidate matters only to a pressure penalty or the cap; it is a
  // function of the segments the candidate has events on, so it is kept until one of them changes
  const weighs = v.pressure !== 0 || v.cap;
  const kept = new Uint8Array(m);
  const keptDelta = new Int32Array(2 * m);
  const keptPeak = new Int32Array(2 * m);
  let t = 0;
  let lastMfma = false;
  let lastLds = false;
  const delta: [number, number] = [0, 0];
  const peakAfter: [number, number] = [0, 0];
  for (let n = 0; n < m; n++) {
    // earliest issue among the candidates
    let tMin = Infinity;
    for (let x = 0; x < nr; x++) {
      const a = ready[x]!;
      const e = Math.max(est[a]!, pipeFree[f.pipe[a]!]!);
      readyAt[x] = e;
      if (e < tMin) tMin = e;
    }
    if (tMin > t) t = tMin;
    let best = -1;
    let bestAt = -1;
    let bestScore = -Infinity;
    let bestOver = true;
    for (let x = 0; x < nr; x++) {
      if (readyAt[x]! > t) continue;
      const a = ready[x]!;
      let over = false;
      let change = 0;
      if (weighs) {
        if (kept[a] === 0 || recompute) {
          pressureDelta(f, a, remaining, segLive, delta, peakAfter);
          keptDelta[2 * a] = delta[0]; keptDelta[2 * a + 1] = delta[1];
          keptPeak[2 * a] = peakAfter[0]; keptPeak[2 * a + 1] = peakAfter[1];
          kept[a] = 1;
        }
        over = v.cap && (live[0] + keptPeak[2 * a]! > f.cap[0] || live[1] + keptPeak[2 * a + 1]! > f.cap[1]);
        change = keptDelta[2 * a]! + keptDelta[2 * a + 1]!;
      }
      let score = v.latency * f.height[a]! - v.pressure * change + noise[a]!;
      if (f.isGlobalLoad[a]) score += v.globalEarly;
      if (v.interleave > 0 && ((lastMfma && f.isLdsRead[a]) || (lastLds && f.isMfma[a]))) score += v.interleave;
      score -= a * 1e-6; // original order among equals
      if ((bestOver && !over) || (over === bestOver && score > bestScore)) { best = a; bestAt = x; bestScore = score; bestOver = over; }
    }
    if (best < 0) throw new Error('internal: list scheduler found no candidate');
    out[n] = best;
    ready.copyWithin(bestAt, bestAt + 1, nr);
    nr--;
    // place it
    pressureDelta(f, best, remaining, segLive, delta, peakAfter);
    for (let q = f.evOff[best]!; q < f.evOff[best + 1]!; q++) {
      const seg = f.evSeg[q]!;
      if (f.evKind[q] === 1) { remaining[seg]!--; if (remaining[seg] === 0 && !f.segLiveOut[seg]) segLive[seg] = 0; }
      else if (remaining[seg]! > 0 || f.segLiveOut[seg]) segLive[seg] = 1;
      if (weighs) for (let x = f.segNodeOff[seg]!; x < f.segNodeOff[seg + 1]!; x++) kept[f.segNode[x]!] = 0;
    }
    live[0] += delta[0]; live[1] += delta[1];
    const start = t;
    pipeFree[f.pipe[best]!] = start + f.occ[best]!;
    t = start + f.issue[best]!;
    lastMfma = f.isMfma[best] === 1;
    lastLds = f.isLdsRead[best] === 1;
    const s = f.succ[best]!;
    const l = f.succLat[best]!;
    for (let x = 0; x < s.length; x++) {
      const b = s[x]!;
      const r = start + Math.max(l[x]!, f.issue[best]!);
      if (r > est[b]!) est[b] = r;
      if (--npred[b]! === 0) ready[nr++] = b;
    }
  }
  return out;
}

/**
 * Change of live units per file if node a were placed now (`delta`), and the transient peak
 * it reaches over the current live count (`peak`: its defs are live while it executes).
 */
function pressureDelta(f: RegionFacts, a: number, remaining: Int32Array, segLive: Uint8Array, delta: [number, number], peak: [number, number]): void {
  let d0 = 0; let d1 = 0; let w0 = 0; let w1 = 0;
  for (let q = f.evOff[a]!; q < f.evOff[a + 1]!; q++) {
    const seg = f.evSeg[q]!;
    const file = f.evFile[q]!;
    if (f.evKind[q] === 1) {
      if (segLive[seg] === 1 && remaining[seg] === 1 && !f.segLiveOut[seg]) { if (file) d1--; else d0--; }
    } else {
      if (file) w1++; else w0++;
      if (remaining[seg]! > 0 || f.segLiveOut[seg]) { if (file) d1++; else d0++; }
    }
  }
  delta[0] = d0; delta[1] = d1;
  peak[0] = Math.max(d0, w0 + Math.min(0, d0)); peak[1] = Math.max(d1, w1 + Math.min(0, d1));
}
