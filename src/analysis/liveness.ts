/**
 * Liveness per 32-bit register unit over a kernel's CFG (backward dataflow to a fixed point),
 * and register pressure along the code: live VGPR / AGPR / SGPR units at every instruction.
 */
import type { Cfg } from './cfg.js';
import { AGPR_BASE, FLAT_SCRATCH_LO, UNIT_COUNT, VGPR_BASE, type RegUnit } from '../asm/registers.js';

/** Program SGPRs: s0..s101. flat_scratch and xnack_mask (units 102..105) are reserved extras, not program registers. */
const SGPR_END = FLAT_SCRATCH_LO;

const WORDS = UNIT_COUNT >>> 5;

export interface DefUse {
  defs: readonly RegUnit[];
  uses: readonly RegUnit[];
}

export interface Liveness {
  /** Live units on entry to / exit from each block. */
  liveIn: Uint32Array[];
  liveOut: Uint32Array[];
  /** Units read before any write in the kernel (arguments, workitem ids, preloaded SGPRs). */
  entryLive: Uint32Array;
}

export interface PressurePoint {
  vgpr: number;
  agpr: number;
  sgpr: number;
}

export interface PressurePeak {
  value: number;
  /** Instruction index (into Cfg.insns) where the peak is first reached, -1 when never. */
  at: number;
}

export interface Pressure {
  /** Pressure at each instruction: max(live before, live after + written). */
  points: PressurePoint[];
  peak: { vgpr: PressurePeak; agpr: PressurePeak; sgpr: PressurePeak };
  perBlock: { vgpr: PressurePeak; agpr: PressurePeak; sgpr: PressurePeak }[];
  /** Highest register index named + 1 per file: what the hardware must allocate. */
  used: { vgpr: number; agpr: number; sgpr: number };
}

export function newSet(): Uint32Array { return new Uint32Array(WORDS); }
export function setHas(s: Uint32Array, u: number): boolean { return (s[u >>> 5]! & (1 << (u & 31))) !== 0; }
export function setAdd(s: Uint32Array, u: number): void { s[u >>> 5]! |= 1 << (u & 31); }
export function setDel(s: Uint32Array, u: number): void { s[u >>> 5]! &= ~(1 << (u & 31)); }

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Set bits in units [from, to) (from and to multiples of 32, except `to` for SGPRs). */
function popcountRange(s: Uint32Array, from: number, to: number): number {
  let n = 0;
  const lastWord = to >>> 5;
  for (let w = from >>> 5; w < lastWord; w++) n += popcount32(s[w]!);
  const rem = to & 31;
  if (rem) n += popcount32(s[lastWord]! & ((1 << rem) - 1));
  return n;
}

/** Backward liveness over the CFG. `du[i]` are the defs and uses of cfg.insns[i]. */
export function computeLiveness(cfg: Cfg, du: readonly DefUse[]): Liveness {
  const nb = cfg.blocks.length;
  const gen: Uint32Array[] = [];
  const kill: Uint32Array[] = [];
  for (const b of cfg.blocks) {
    const g = newSet();
    const k = newSet();
    for (let i = b.end - 1; i >= b.start; i--) {
      const d = du[i]!;
      const defs = d.defs;
      const uses = d.uses;
      for (let x = 0; x < defs.length; x++) { const u = defs[x]!; setAdd(k, u); setDel(g, u); }
      for (let x = 0; x < uses.length; x++) setAdd(g, uses[x]!);
    }
    gen.push(g);
    kill.push(k);
  }
  const liveIn = Array.from({ length: nb }, newSet);
  const liveOut = Array.from({ length: nb }, newSet);
  let changed = true;
  while (changed) {
    changed = false;
    for (let b = nb - 1; b >= 0; b--) {
      const out = liveOut[b]!;
      const succs = cfg.blocks[b]!.succs;
      for (let x = 0; x < succs.length; x++) {
        const inS = liveIn[succs[x]!]!;
        for (let w = 0; w < WORDS; w++) out[w]! |= inS[w]!;
      }
      const inB = liveIn[b]!;
      const g = gen[b]!;
      const k = kill[b]!;
      for (let w = 0; w < WORDS; w++) {
        const v = (g[w]! | (out[w]! & ~k[w]!)) >>> 0;
        if (v !== inB[w]) { inB[w] = v; changed = true; }
      }
    }
  }
  return { liveIn, liveOut, entryLive: nb > 0 ? liveIn[0]!.slice() : newSet() };
}

/** Live units of a set per register file (SGPRs: s0..s101). */
export function countFiles(s: Uint32Array): PressurePoint {
  return {
    vgpr: popcountRange(s, VGPR_BASE, AGPR_BASE),
    agpr: popcountRange(s, AGPR_BASE, UNIT_COUNT),
    sgpr: popcountRange(s, 0, SGPR_END),
  };
}

/** Raise `used` (highest register index + 1 per file) to cover unit `u`. */
export function noteUsed(used: { vgpr: number; agpr: number; sgpr: number }, u: number): void {
  if (u >= AGPR_BASE) used.agpr = Math.max(used.agpr, u - AGPR_BASE + 1);
  else if (u >= VGPR_BASE) used.vgpr = Math.max(used.vgpr, u - VGPR_BASE + 1);
  else if (u < SGPR_END) used.sgpr = Math.max(used.sgpr, u + 1);
}

/** Register pressure at every instruction, peaks per kernel and per block, and the highest registers used. */
export function computePressure(cfg: Cfg, du: readonly DefUse[], live: Liveness): Pressure {
  const n = cfg.insns.length;
  // at[3 * i + f]: pressure at instruction i in file f (0 vgpr, 1 agpr, 2 sgpr); the point objects are made when asked for
  const at = new Int32Array(3 * n);
  const perBlock: Pressure['perBlock'] = [];
  const used = { vgpr: 0, agpr: 0, sgpr: 0 };
  for (let i = 0; i < du.length; i++) {
    const { defs, uses } = du[i]!;
    for (let k = 0; k < defs.length; k++) noteUsed(used, defs[k]!);
    for (let k = 0; k < uses.length; k++) noteUsed(used, uses[k]!);
  }
  // live units per file, kept as units enter and leave the set (0 vgpr, 1 agpr, 2 sgpr, -1 none)
  const fileOf = (u: number) => (u >= AGPR_BASE ? (u < UNIT_COUNT ? 1 : -1) : u >= VGPR_BASE ? 0 : u < SGPR_END ? 2 : -1);
  const cnt = [0, 0, 0];
  // per file of the block: peak value and the instruction where it is first reached
  const bv = [0, 0, 0];
  const bi = [-1, -1, -1];
  for (const b of cfg.blocks) {
    const cur = live.liveOut[b.id]!.slice();
    const c0 = countFiles(cur);
    cnt[0] = c0.vgpr; cnt[1] = c0.agpr; cnt[2] = c0.sgpr;
    bv[0] = bv[1] = bv[2] = 0;
    bi[0] = bi[1] = bi[2] = -1;
    for (let i = b.end - 1; i >= b.start; i--) {
      const d = du[i]!;
      const defs = d.defs;
      const uses = d.uses;
      // After the instruction: live-out plus everything it writes (a dead def still occupies its register).
      for (let k = 0; k < defs.length; k++) {
        const u = defs[k]!;
        if (!setHas(cur, u)) { setAdd(cur, u); const f = fileOf(u); if (f >= 0) cnt[f]!++; }
      }
      const av = cnt[0]!, aa = cnt[1]!, as = cnt[2]!;
      for (let k = 0; k < defs.length; k++) {
        const u = defs[k]!;
        if (setHas(cur, u)) { setDel(cur, u); const f = fileOf(u); if (f >= 0) cnt[f]!--; }
      }
      for (let k = 0; k < uses.length; k++) {
        const u = uses[k]!;
        if (!setHas(cur, u)) { setAdd(cur, u); const f = fileOf(u); if (f >= 0) cnt[f]!++; }
      }
      const pv = Math.max(av, cnt[0]!), pa = Math.max(aa, cnt[1]!), ps = Math.max(as, cnt[2]!);
      at[3 * i] = pv; at[3 * i + 1] = pa; at[3 * i + 2] = ps;
      if (pv >= bv[0]! && pv > 0) { bv[0] = pv; bi[0] = i; }
      if (pa >= bv[1]! && pa > 0) { bv[1] = pa; bi[1] = i; }
      if (ps >= bv[2]! && ps > 0) { bv[2] = ps; bi[2] = i; }
    }
    perBlock.push({ vgpr: { value: bv[0]!, at: bi[0]! }, agpr: { value: bv[1]!, at: bi[1]! }, sgpr: { value: bv[2]!, at: bi[2]! } });
  }
  const pv = [0, 0, 0];
  const pi = [-1, -1, -1];
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < 3; f++) if (at[3 * i + f]! > pv[f]!) { pv[f] = at[3 * i + f]!; pi[f] = i; }
  }
  const peak = { vgpr: { value: pv[0]!, at: pi[0]! }, agpr: { value: pv[1]!, at: pi[1]! }, sgpr: { value: pv[2]!, at: pi[2]! } };
  let points: PressurePoint[] | undefined;
  return {
    get points(): PressurePoint[] {
      points ??= Array.from({ length: n }, (_, i) => ({ vgpr: at[3 * i]!, agpr: at[3 * i + 1]!, sgpr: at[3 * i + 2]! }));
      return points;
    },
    peak, perBlock, used,
  };
}
