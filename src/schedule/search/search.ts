/**
 * Automatic scheduling strategies that need no model, on the fast incremental evaluator:
 *
 *   list    per region (largest first), the list scheduler's variants (list.ts), then jittered
 *           variants while the budget lasts; a region's new order is kept when the kernel's
 *           metrics get better.
 *   beam    a beam search over moves: each step, every state of the beam proposes moves of
 *           sampled instructions to the ends of their legal window and to a random legal
 *           position; the best distinct children form the next beam.
 *   anneal  simulated annealing over single legal moves, from the best state so far.
 *
 * All three compare states lexicographically under the objective, with est_cycles as the last
 * tie-break when the objective does not name it (equal on what was asked, faster otherwise),
 * and return the best state seen, which is never worse than where they started. Runs are
 * deterministic for a given seed and budget; `seconds` caps the wall-clock time as well (a run
 * stopped by the clock depends on the machine).
 */
import { isClass, isMemOp, isMemSpace, traitsOf } from '../../isa/traits.js';
import { compareMetrics, Evaluator, type MetricName, type Metrics } from '../metrics.js';
import { ScheduleState, canMove, moveTo } from '../state.js';
import type { ScheduleKernel } from '../kernel.js';
import { dependent } from '../deps.js';
import { LIST_VARIANTS, listSchedule, regionFacts, type ListVariant, type RegionFacts } from './list.js';
import { mulberry32 } from './rng.js';

export const STRATEGIES = ['list', 'beam', 'anneal'] as const;
export type StrategyName = (typeof STRATEGIES)[number];

export interface SearchOptions {
  objective: readonly MetricName[];
  /** Occupancy (waves per SIMD) no state may fall below (default 0: none). */
  minOccupancy?: number;
  /** Evaluations allowed (default 2000). */
  budget?: number;
  /** Wall-clock seconds allowed (default 10). */
  seconds?: number;
  seed?: number;
  /** Beam width (default 6). */
  beamWidth?: number;
  /** Called now and then with the evaluations done so far. */
  progress?: (evaluations: number, best: Metrics) => void;
}

export interface SearchResult {
  strategy: StrategyName;
  state: ScheduleState;
  metrics: Metrics;
  /** Metrics of the starting state (fast estimate). */
  start: Metrics;
  evaluations: number;
  seconds: number;
  /** What produced the best state (e.g. the list variants kept per region). */
  detail: string[];
}

/**
 * Search comparison: the occupancy floor, the objective, then est_cycles when the objective
 * does not name it.
 */
export function searchCompare(a: Metrics, b: Metrics, objective: readonly MetricName[], minOccupancy = 0): number {
  const c = compareMetrics(a, b, objective, minOccupancy);
  if (c !== 0 || objective.includes('est_cycles')) return c;
  return a.est_cycles - b.est_cycles || (a.wave_cycles ?? 0) - (b.wave_cycles ?? 0);
}

class Budget {
  evaluations = 0;
  private readonly t0 = Date.now();
  private readonly limit: number;
  private readonly deadline: number;
  private lastReport = 0;
  constructor(private readonly ev: Evaluator, opts: SearchOptions, private readonly best: () => Metrics) {
    this.limit = opts.budget ?? 2000;
    this.deadline = this.t0 + 1000 * (opts.seconds ?? 10);
    this.progress = opts.progress;
  }
  private readonly progress?: (evaluations: number, best: Metrics) => void;
  get exhausted(): boolean { return this.evaluations >= this.limit || Date.now() >= this.deadline; }
  get seconds(): number { return (Date.now() - this.t0) / 1000; }
  evaluate(s: ScheduleState): Metrics {
    this.evaluations++;
    const m = this.ev.evaluate(s);
    if (this.progress && this.evaluations - this.lastReport >= 25) { this.lastReport = this.evaluations; this.progress(this.evaluations, this.best()); }
    return m;
  }
}

/** Regions worth scheduling (two or more movable instructions), largest first. */
function regionsBySize(k: ScheduleKernel): number[] {
  return k.regions.filter((r) => r.nodes.length >= 2).map((r) => r.id).sort((a, b) => k.regions[b]!.nodes.length - k.regions[a]!.nodes.length || a - b);
}

/** Draws a region with probability proportional to its movable instructions. */
export function regionPicker(k: ScheduleKernel, regions: number[], rand: () => number): () => number {
  const weights = regions.map((r) => k.regions[r]!.nodes.length);
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    let x = rand() * total;
    for (let j = 0; j < regions.length; j++) { x -= weights[j]!; if (x < 0) return regions[j]!; }
    return regions[regions.length - 1]!;
  };
}

/** Kind of a region's node for the pattern moves. */
const NODE_KIND = { other: 0, globalLoad: 1, ldsRead: 2, mfma: 3, valu: 4 } as const;

/** Per region (lazily): the kind of each local node. */
function regionKinds(k: ScheduleKernel): (r: number) => Uint8Array {
  const cache = new Map<number, Uint8Array>();
  return (r) => {
    let a = cache.get(r);
    if (!a) {
      const nodes = k.regions[r]!.nodes;
      const t = traitsOf(k.insns);
      a = new Uint8Array(nodes.length);
      for (let x = 0; x < nodes.length; x++) {
        const i = nodes[x]!;
        const load = isMemOp(t, i, 'load') || isMemOp(t, i, 'load-lds');
        a[x] = isClass(t, i, 'mfma') ? NODE_KIND.mfma : isMemOp(t, i, 'load') && isMemSpace(t, i, 'lds') ? NODE_KIND.ldsRead
          : load && !isClass(t, i, 'smem') && !isClass(t, i, 'ds') ? NODE_KIND.globalLoad
            : isClass(t, i, 'valu') ? NODE_KIND.valu : NODE_KIND.other;
      }
      cache.set(r, a);
    }
    return a;
  };
}

/**
 * Latency-hiding patterns for MFMA loops as moves (the interleavings LLVM's AMDGPUIGroupLP
 * builds for iglp_opt, e.g. MFMASmallGemmOpt, and the project's CDNA4 scheduling notes, "Scheduling
 * Strategy"): a global load goes to the top of its legal window (issued as early as its operands
 * allow); an LDS read or an independent VALU instruction goes right after the nearest MFMA of
 * its window (LDS reads between MFMAs, VALU work in the MFMA's shadow); an MFMA goes right
 * after the nearest other MFMA (the matrix pipe kept busy). -1 when no pattern applies.
 */
export function patternTarget(kind: Uint8Array, order: Int32Array, from: number, lo: number, hi: number): number {
  const kd = kind[order[from]!]!;
  if (kd === NODE_KIND.globalLoad) return lo;
  if (kd !== NODE_KIND.ldsRead && kd !== NODE_KIND.valu && kd !== NODE_KIND.mfma) return -1;
  // the nearest MFMA (other than itself) within [lo - 1, hi]: go right after it
  let best = -1;
  let dist = Infinity;
  for (let q = Math.max(0, lo - 1); q <= hi; q++) {
    if (q === from || kind[order[q]!] !== NODE_KIND.mfma) continue;
    const to = q < from ? q + 1 : q;
    if (to < lo || to > hi) continue;
    const d = Math.abs(q - from);
    if (d < dist) { dist = d; best = to; }
  }
  return best;
}

/** The legal window of the instruction at position p of region r: [lo, hi]. */
export function legalWindow(s: ScheduleState, r: number, p: number): [number, number] {
  const g = s.k.regions[r]!.graph;
  const o = s.order[r]!;
  const a = o[p]!;
  let lo = p;
  while (lo > 0 && !dependent(g, a, o[lo - 1]!)) lo--;
  let hi = p;
  while (hi < o.length - 1 && !dependent(g, a, o[hi + 1]!)) hi++;
  return [lo, hi];
}

/* ---------------------------------------------------------------------------------------------- */

export function runStrategy(name: StrategyName, k: ScheduleKernel, ev: Evaluator, start: ScheduleState, opts: SearchOptions): SearchResult {
  switch (name) {
    case 'list': return listStrategy(k, ev, start, opts);
    case 'beam': return beamStrategy(k, ev, start, opts);
    case 'anneal': return annealStrategy(k, ev, start, opts);
  }
}

function listStrategy(k: ScheduleKernel, ev: Evaluator, start: ScheduleState, opts: SearchOptions): SearchResult {
  const s = start.clone();
  let best = ev.evaluate(s);
  const first = best;
  const budget = new Budget(ev, opts, () => best);
  const rand = mulberry32(opts.seed ?? 1);
  const detail: string[] = [];
  const regions = regionsBySize(k);
  const facts = new Map<number, RegionFacts>();
  const hazardInsns = (r: number) => {
    let f = facts.get(r);
    if (!f) {
      const id = ev.originalRegion(r);
      f = regionFacts(k, r, [id.peak_vgpr, id.peak_agpr]);
      facts.set(r, f);
    }
    return f;
  };
  const tryOrder = (r: number, order: Int32Array, label: string): boolean => {
    const cur = s.order[r]!;
    let same = true;
    for (let p = 0; p < order.length && same; p++) if (order[p] !== cur[p]) same = false;
    if (same) return false;
    const snap = s.snapshot(r);
    s.setOrder(r, order);
    const m = budget.evaluate(s);
    if (searchCompare(m, best, opts.objective, opts.minOccupancy) < 0) { best = m; detail.push(`region ${r}: ${label}`); return true; }
    s.restore(snap);
    return false;
  };
  // Pass 1: the fixed variants on every region, largest first.
  for (const r of regions) {
    if (budget.exhausted) break;
    const f = hazardInsns(r);
    for (const v of LIST_VARIANTS) {
      if (budget.exhausted) break;
      tryOrder(r, listSchedule(f, v, rand), v.name);
    }
  }
  // Pass 2: jittered variants, round-robin over the regions, while the budget lasts.
  let round = 0;
  while (!budget.exhausted && regions.length > 0 && round < 64) {
    round++;
    let tried = 0;
    for (const r of regions) {
      if (budget.exhausted) break;
      const base = LIST_VARIANTS[round % LIST_VARIANTS.length]!;
      const v: ListVariant = { ...base, name: `${base.name}+jitter`, jitter: 4 + 4 * (round % 8) };
      tried++;
      tryOrder(r, listSchedule(hazardInsns(r), v, rand), v.name);
    }
    if (tried === 0) break;
  }
  return { strategy: 'list', state: s, metrics: best, start: first, evaluations: budget.evaluations, seconds: budget.seconds, detail };
}

interface Child { parent: number; r: number; from: number; to: number; m: Metrics; key: string }

function beamStrategy(k: ScheduleKernel, ev: Evaluator, start: ScheduleState, opts: SearchOptions): SearchResult {
  const width = opts.beamWidth ?? 6;
  const rand = mulberry32((opts.seed ?? 1) ^ 0x5bd1e995);
  const regions = regionsBySize(k);
  let beam: { s: ScheduleState; m: Metrics }[] = [{ s: start.clone(), m: ev.evaluate(start) }];
  const first = beam[0]!.m;
  let bestState = beam[0]!.s.clone();
  let best = first;
  const budget = new Budget(ev, opts, () => best);
  const detail: string[] = [];
  if (regions.length === 0) return { strategy: 'beam', state: bestState, metrics: best, start: first, evaluations: 0, seconds: 0, detail };
  const pickRegion = regionPicker(k, regions, rand);
  const kinds = regionKinds(k);
  const seen = new Set<string>();
  let steps = 0;
  let stale = 0;
  while (!budget.exhausted && stale < 8) {
    steps++;
    const children: Child[] = [];
    const per = Math.max(2, Math.ceil(24 / beam.length));
    beam.forEach((b, parent) => {
      for (let c = 0; c < per && !budget.exhausted; c++) {
        const r = pickRegion();
        const m = k.regions[r]!.nodes.length;
        const from = Math.floor(rand() * m);
        const [lo, hi] = legalWindow(b.s, r, from);
        if (lo === hi) continue;
        const targets = new Set([lo, hi, lo + Math.floor(rand() * (hi - lo + 1))]);
        const pat = patternTarget(kinds(r), b.s.order[r]!, from, lo, hi);
        if (pat >= 0) targets.add(pat);
        targets.delete(from);
        for (const to of targets) {
          if (budget.exhausted) break;
          const snap = b.s.snapshot(r);
          moveTo(b.s, r, from, to);
          const key = `${r}:${b.s.order[r]!.join(',')}`;
          if (!seen.has(key)) {
            const mm = budget.evaluate(b.s);
            children.push({ parent, r, from, to, m: mm, key });
          }
          b.s.restore(snap);
        }
      }
    });
    if (children.length === 0) { stale++; continue; }
    children.sort((a, b) => searchCompare(a.m, b.m, opts.objective, opts.minOccupancy));
    const next: { s: ScheduleState; m: Metrics }[] = [];
    for (const c of children) {
      if (next.length >= width) break;
      if (seen.has(c.key)) continue;
      seen.add(c.key);
      const s = beam[c.parent]!.s.clone();
      moveTo(s, c.r, c.from, c.to);
      next.push({ s, m: c.m });
    }
    // Keep the parents that beat every child, so the beam never gets worse.
    for (const b of beam) if (next.length < width || searchCompare(b.m, next[next.length - 1]!.m, opts.objective, opts.minOccupancy) < 0) next.push(b);
    next.sort((a, b) => searchCompare(a.m, b.m, opts.objective, opts.minOccupancy));
    beam = next.slice(0, width);
    if (searchCompare(beam[0]!.m, best, opts.objective, opts.minOccupancy) < 0) {
      best = beam[0]!.m;
      bestState = beam[0]!.s.clone();
      detail.push(`step ${steps}: ${fmt(best)}`);
      stale = 0;
    } else stale = children.length > 0 ? stale : stale + 1;
  }
  return { strategy: 'beam', state: bestState, metrics: best, start: first, evaluations: budget.evaluations, seconds: budget.seconds, detail };
}

/**
 * Simulated annealing. A worse state is accepted with probability exp(-d / T), where d is the
 * relative change of the first metric that differs, times 4 per rank above the last metric of
 * the comparison; T falls geometrically from 0.05 to 0.0005 over the budget.
 */
function annealStrategy(k: ScheduleKernel, ev: Evaluator, start: ScheduleState, opts: SearchOptions): SearchResult {
  const rand = mulberry32((opts.seed ?? 1) ^ 0x2545f491);
  const regions = regionsBySize(k);
  const s = start.clone();
  let cur = ev.evaluate(s);
  const first = cur;
  let best = cur;
  let bestState = s.clone();
  const budget = new Budget(ev, opts, () => best);
  const detail: string[] = [];
  if (regions.length === 0) return { strategy: 'anneal', state: bestState, metrics: best, start: first, evaluations: 0, seconds: 0, detail };
  const order = opts.objective.includes('est_cycles') ? opts.objective : [...opts.objective, 'est_cycles' as MetricName];
  const limit = opts.budget ?? 2000;
  const pickRegion = regionPicker(k, regions, rand);
  const kinds = regionKinds(k);
  let sinceBest = 0;
  while (!budget.exhausted) {
    const frac = Math.min(1, budget.evaluations / limit);
    const T = 0.05 * Math.pow(0.01, frac);
    const r = pickRegion();
    const m = k.regions[r]!.nodes.length;
    const from = Math.floor(rand() * m);
    const [lo, hi] = legalWindow(s, r, from);
    if (lo === hi) { sinceBest++; if (sinceBest > 50 * limit) break; continue; }
    let to = lo + Math.floor(rand() * (hi - lo));
    if (to >= from) to++;
    if (rand() < 1 / 3) { const pat = patternTarget(kinds(r), s.order[r]!, from, lo, hi); if (pat >= 0 && pat !== from) to = pat; }
    const snap = s.snapshot(r);
    moveTo(s, r, from, to);
    const mm = budget.evaluate(s);
    const c = searchCompare(mm, cur, opts.objective, opts.minOccupancy);
    let accept = c <= 0;
    if (!accept) {
      let d = 0;
      for (let j = 0; j < order.length; j++) {
        const n = order[j]!;
        if (mm[n] === cur[n]) continue;
        d = (Math.abs(mm[n] - cur[n]) / Math.max(1, Math.abs(cur[n]))) * Math.pow(4, order.length - 1 - j);
        break;
      }
      accept = rand() < Math.exp(-d / T);
    }
    if (accept) {
      cur = mm;
      if (searchCompare(cur, best, opts.objective, opts.minOccupancy) < 0) {
        best = cur;
        bestState = s.clone();
        detail.push(`evaluation ${budget.evaluations}: ${fmt(best)}`);
      }
    } else s.restore(snap);
  }
  return { strategy: 'anneal', state: bestState, metrics: best, start: first, evaluations: budget.evaluations, seconds: budget.seconds, detail };
}

function fmt(m: Metrics): string {
  return `peak_vgpr ${m.peak_vgpr}, s_waitcnt ${m.s_waitcnt}, s_nop ${m.s_nop}, est_cycles ${m.est_cycles}`;
}

/**
 * A state brought back toward the original order wherever that loses nothing (equal or better
 * under the objective, fast estimate): every changed region is first tried in its original order
 * whole; then, in the regions that keep a new order, position by position from the top, the
 * instruction that comes first in the original order among those not yet placed is moved up to
 * the position when that is legal and not worse. Among equal schedules the input's order is
 * preferred, so an output does not shuffle instructions for nothing. With time first in the
 * objective, a region in a loop takes the input's order (whole, or an instruction) whenever that
 * is no slower at no less occupancy, the other metrics aside. The second pass takes at most
 * `budget` evaluations (default 1000) and, with `seconds`, stops when that much wall-clock time
 * has passed since it began (`cut`: it did; a large loop's evaluations take milliseconds each).
 */
export function preferOriginal(k: ScheduleKernel, ev: Evaluator, state: ScheduleState,
  opts: { objective: readonly MetricName[]; minOccupancy?: number; budget?: number; seconds?: number }): { state: ScheduleState; metrics: Metrics; cut: boolean } {
  const s = state.clone();
  let cur = ev.evaluate(s);
  let left = opts.budget ?? 1000;
  let cut = false;
  const notWorse = (m: Metrics) => searchCompare(m, cur, opts.objective, opts.minOccupancy) <= 0;
  // With time first in the objective, a loop's order changes for its time only: a region in a
  // loop goes back to the input's order when that is no slower (est_cycles, then one wave's time)
  // at no less occupancy, whatever it costs the other metrics. A loop's lower peak VGPR or fewer
  // waits at the same modelled time is no gain worth a loop another model may find slower.
  const timeFirst = opts.objective[0] === 'est_cycles';
  const noSlower = (m: Metrics) => m.occupancy >= cur.occupancy && compareMetrics(m, cur, ['est_cycles'], opts.minOccupancy) <= 0;
  // whether region r takes the order that gives m (closer to the input's)
  const takes = (r: number, m: Metrics) => notWorse(m) || (timeFirst && ev.inLoop(r) && noSlower(m));
  // whole regions first (one evaluation each), then instruction by instruction
  const kept: number[] = [];
  for (const r of s.changedRegions()) {
    const snap = s.snapshot(r);
    s.setOrder(r, Int32Array.from({ length: k.regions[r]!.nodes.length }, (_, i) => i));
    const whole = ev.evaluate(s);
    if (takes(r, whole)) cur = whole; else { s.restore(snap); kept.push(r); }
  }
  const deadline = opts.seconds !== undefined ? Date.now() + 1000 * opts.seconds : Infinity;
  for (const r of kept) {
    const n = k.regions[r]!.nodes.length;
    const placed = new Uint8Array(n);
    let first = 0;
    for (let p = 0; p < n && left > 0 && !cut; p++) {
      while (first < n && placed[first]) first++;
      const c = first;
      if (s.order[r]![p] !== c) {
        const from = s.pos[r]![c]!;
        if (canMove(s, r, from, p)) {
          const back = s.snapshot(r);
          moveTo(s, r, from, p);
          left--;
          const m = ev.evaluate(s);
          if (takes(r, m)) cur = m; else s.restore(back);
          if (Date.now() >= deadline) cut = true;
        }
      }
      placed[s.order[r]![p]!] = 1;
    }
  }
  return { state: s, metrics: cur, cut };
}
