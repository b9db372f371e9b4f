/**
 * The dependency graph of one scheduling region, as a symmetric bit matrix over the region's
 * movable instructions (local indexes 0..m-1 in the original order): bit (a, b) is set when a
 * and b must keep their relative order.
 *
 *  - Registers, per 32-bit unit, explicit and implicit (EXEC, VCC, SCC, M0, MODE included): two
 *    instructions conflict when one writes a unit the other reads or writes (RAW, WAR, WAW).
 *    Every conflicting pair is an edge, not only the nearest one, so `dependent(a, b)` is the
 *    whole answer for any pair.
 *  - Memory (memory.ts): a store/atomic and any access that may alias it; loads reorder freely.
 *
 * A permutation of the region keeps the program's meaning iff every edge keeps its direction;
 * moving one instruction past others changes the relative order of that instruction and the
 * ones it passes only, so a move is checked in O(distance) with `dependent`.
 */
import { UNIT_COUNT, VGPR_BASE, unitsToString } from '../asm/registers.js';
import type { ResolvedInsn } from '../isa/types.js';
import { unitsAsWritten } from '../isa/names.js';
import { aliasReason, conflictMems, rangesOverlap, type MemAccess } from './memory.js';

export interface DepGraph {
  /** Number of movable instructions in the region. */
  m: number;
  /** 32-bit words per row. */
  words: number;
  /** Row a, bit b: a and b keep their order. Symmetric. */
  bits: Uint32Array;
  /** Number of edges (unordered pairs). */
  edges: number;
}

/** What buildGraph needs from a prepared kernel. */
export interface GraphInput {
  insns: readonly ResolvedInsn[];
  defOff: Int32Array;
  defUnits: Int32Array;
  useOff: Int32Array;
  useUnits: Int32Array;
  mem: readonly (MemAccess | undefined)[];
}

export function dependent(g: DepGraph, a: number, b: number): boolean {
  return (g.bits[a * g.words + (b >>> 5)]! & (1 << (b & 31))) !== 0;
}

const SCRATCH_W: (number[] | undefined)[] = new Array(UNIT_COUNT + 1);
const SCRATCH_R: (number[] | undefined)[] = new Array(UNIT_COUNT + 1);

function link(g: DepGraph, a: number, b: number): void {
  const wa = a * g.words + (b >>> 5);
  const bit = 1 << (b & 31);
  if (g.bits[wa]! & bit) return;
  g.bits[wa]! |= bit;
  g.bits[b * g.words + (a >>> 5)]! |= 1 << (a & 31);
  g.edges++;
}

/** Build the graph of the movable instructions `nodes` (kernel indexes, original order). */
export function buildGraph(k: GraphInput, nodes: Int32Array, disambiguate: Disambiguation): DepGraph {
  const m = nodes.length;
  const words = (m + 31) >>> 5;
  const g: DepGraph = { m, words, bits: new Uint32Array(m * words), edges: 0 };
  // Per unit: local indexes of the writers and the readers seen so far.
  const writers = new Map<number, number[]>();
  const W = SCRATCH_W;
  const R = SCRATCH_R;
  const touched: number[] = [];
  const touch = (u: number) => { if (!W[u] && !R[u]) touched.push(u); };
  for (let a = 0; a < m; a++) {
    const i = nodes[a]!;
    const u0 = k.useOff[i]!; const u1 = k.useOff[i + 1]!;
    const d0 = k.defOff[i]!; const d1 = k.defOff[i + 1]!;
    for (let p = u0; p < u1; p++) {
      const w = W[k.useUnits[p]!];
      if (w) for (let x = 0; x < w.length; x++) link(g, a, w[x]!);
    }
    for (let p = d0; p < d1; p++) {
      const u = k.defUnits[p]!;
      const w = W[u];
      if (w) for (let x = 0; x < w.length; x++) link(g, a, w[x]!);
      const r = R[u];
      if (r) for (let x = 0; x < r.length; x++) if (r[x] !== a) link(g, a, r[x]!);
    }
    for (let p = u0; p < u1; p++) {
      const u = k.useUnits[p]!;
      touch(u);
      const r = R[u];
      if (r) r.push(a); else R[u] = [a];
    }
    for (let p = d0; p < d1; p++) {
      const u = k.defUnits[p]!;
      touch(u);
      const w = W[u];
      if (!w) W[u] = [a]; else if (w[w.length - 1] !== a) w.push(a);
    }
  }
  for (const u of touched) { if (W[u]) writers.set(u, W[u]!); W[u] = undefined; R[u] = undefined; }
  // Memory.
  const memNodes: number[] = [];
  for (let a = 0; a < m; a++) if (k.mem[nodes[a]!]) memNodes.push(a);
  for (let x = 0; x < memNodes.length; x++) {
    const a = memNodes[x]!;
    const ma = k.mem[nodes[a]!]!;
    for (let y = x + 1; y < memNodes.length; y++) {
      const b = memNodes[y]!;
      const mb = k.mem[nodes[b]!]!;
      if (memoryConflict(ma, mb, disambiguate, () => baseRedefined(k, nodes, writers, ma, a, b))) link(g, a, b);
    }
  }
  return g;
}

/**
 * Do two accesses (a before b in the original order) have to keep their order? `redefined`
 * says whether a base register is written in [a, b) (by a itself or between them).
 */
/**
 * How far memory accesses are told apart: false never; true (the default) only through a
 * uniform base (SGPRs only: every lane uses the same address, so disjoint constant offsets
 * cannot meet); 'per-lane' also through a VGPR base, which assumes that lanes never exchange
 * data through memory without synchronisation (wave-synchronous code, e.g. an LDS exchange
 * within a wave without a barrier, breaks that assumption: two lanes' addresses may coincide).
 */
export type Disambiguation = boolean | 'per-lane';

function memoryConflict(ma: MemAccess, mb: MemAccess, disambiguate: Disambiguation, redefined: () => boolean): boolean {
  return conflictOf(ma, mb, disambiguate, redefined) !== undefined;
}

/**
 * Why two accesses must keep their order, or undefined when they need not: 'unknown' (told apart
 * by nothing: no disambiguation, different or no bases, or memories the base does not address),
 * 'lanes' (one VGPR base, whose lanes are told apart only per lane), 'overlap' (one base, the
 * bytes meet), 'redefined' (one base, written between them).
 */
function conflictOf(ma: MemAccess, mb: MemAccess, disambiguate: Disambiguation, redefined: () => boolean): 'unknown' | 'lanes' | 'overlap' | 'redefined' | undefined {
  const c = conflictMems(ma, mb);
  if (c === 0) return undefined;
  if (!disambiguate) return 'unknown';
  if (ma.baseKey === undefined || ma.baseKey !== mb.baseKey) return 'unknown';
  if (disambiguate !== 'per-lane' && ma.baseUnits.some((u) => u >= VGPR_BASE)) return 'lanes';
  // The base only speaks for the memories it addresses.
  if ((c & ~(ma.baseMems & mb.baseMems)) !== 0) return 'unknown';
  if (rangesOverlap(ma, mb)) return 'overlap';
  return redefined() ? 'redefined' : undefined;
}

function baseRedefined(k: GraphInput, nodes: Int32Array, writers: Map<number, number[]>, ma: MemAccess, a: number, b: number): boolean {
  void k; void nodes;
  for (const u of ma.baseUnits) {
    const w = writers.get(u);
    if (!w) continue;
    for (const x of w) if (x >= a && x < b) return true;
  }
  return false;
}

/* ---------------------------------------------------------------------------------------------- */
/* Explanations                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

export type DepKind = 'raw' | 'war' | 'waw' | 'memory';

export interface DepExplanation {
  kind: DepKind;
  /** Conflicting register units (empty for memory). */
  units: number[];
  /** Every conflicting unit is an implicit operand of one of the two. */
  implicit: boolean;
  /** "reads v[8:9] which ds_read_b128_2 writes", with `subject` as the sentence's subject. */
  text: string;
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (const u of a) if (b.includes(u) && !out.includes(u)) out.push(u);
  return out;
}

/**
 * Why instructions x and y (kernel indexes) must keep their order, phrased with x as the
 * subject ("x reads v[8:9] which <y> writes"). `xFirst`: x comes first in the original order.
 * Returns undefined when they do not conflict on registers or memory.
 */
export function explainDependency(k: GraphInput, x: number, y: number, xFirst: boolean, yName: string, disambiguate: Disambiguation,
  redefined: () => boolean): DepExplanation | undefined {
  const rx = k.insns[x]!;
  const ry = k.insns[y]!;
  const isImplicit = (units: number[], a: readonly number[], b: readonly number[]) => units.every((u) => a.includes(u) || b.includes(u));
  const xReadsYWrites = intersect(rx.uses, ry.defs);
  const xWritesYReads = intersect(rx.defs, ry.uses);
  const both = intersect(rx.defs, ry.defs);
  // Registers as each instruction writes them (on a unified file v130 and a2 can be one register).
  const regs = (units: number[], verbY: string) => {
    const asX = unitsAsWritten(rx, units, unitsToString);
    const asY = unitsAsWritten(ry, units, unitsToString);
    return `${asX} which ${yName} ${verbY}${asY !== asX ? ` as ${asY}` : ''}`;
  };
  const candidates: { units: number[]; kind: DepKind; text: string; implicit: boolean }[] = [];
  if (xReadsYWrites.length) {
    candidates.push({
      units: xReadsYWrites, kind: xFirst ? 'war' : 'raw', text: `reads ${regs(xReadsYWrites, 'writes')}`,
      implicit: isImplicit(xReadsYWrites, rx.implicitUses, ry.implicitDefs),
    });
  }
  if (xWritesYReads.length) {
    candidates.push({
      units: xWritesYReads, kind: xFirst ? 'raw' : 'war', text: `writes ${regs(xWritesYReads, 'reads')}`,
      implicit: isImplicit(xWritesYReads, rx.implicitDefs, ry.implicitUses),
    });
  }
  if (both.length) {
    candidates.push({
      units: both, kind: 'waw', text: `writes ${regs(both, 'also writes')}`,
      implicit: isImplicit(both, rx.implicitDefs, ry.implicitDefs),
    });
  }
  // Prefer an explicit conflict for the message; say "(implicit)" when all are implicit.
  const pick = candidates.find((c) => !c.implicit) ?? candidates[0];
  if (pick) {
    return { kind: pick.kind, units: pick.units, implicit: pick.implicit, text: pick.implicit ? `${pick.text} (implicitly)` : pick.text };
  }
  const mx = k.mem[x];
  const my = k.mem[y];
  if (mx && my) {
    const [a, b] = xFirst ? [mx, my] : [my, mx];
    const why = conflictOf(a, b, disambiguate, redefined);
    if (why !== undefined) {
      // one base with disjoint bytes: the reason is the base's, not an overlap
      const reason = why === 'lanes' && !rangesOverlap(a, b)
        ? `may alias (both ${mx.space}, base ${mx.baseText} is a VGPR: the lanes' addresses differ, and accesses through one are told apart only with --per-lane)`
        : why === 'redefined' ? `may alias (both ${mx.space}, base ${mx.baseText} is redefined between them)` : aliasReason(mx, my);
      return { kind: 'memory', units: [], implicit: false, text: reason };
    }
  }
  return undefined;
}
