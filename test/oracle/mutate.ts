/**
 * Mutations for the verify oracle: random legal schedules (through the scheduler's validated
 * moves) and illegal reorderings written straight into the text (two instruction lines
 * exchanged, bypassing every check): breaking a read-after-write, a write-after-read, the order
 * of two accesses that may alias, or moving a pinned instruction.
 */
import type { ScheduleKernel } from '../../src/schedule/kernel.js';
import { ROLE } from '../../src/schedule/kernel.js';
import { ScheduleState, canMove, moveTo, explainPair } from '../../src/schedule/state.js';
import { dependent } from '../../src/schedule/deps.js';

export type IllegalKind = 'raw' | 'war' | 'memory' | 'pinned';
export const ILLEGAL_KINDS: readonly IllegalKind[] = ['raw', 'war', 'memory', 'pinned'];

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

/** Apply up to `moves` random legal moves (tries 8x as many); returns the number applied. */
export function randomLegalMoves(s: ScheduleState, rand: (n: number) => number, moves: number): number {
  const k = s.k;
  const regions = k.regions.filter((r) => r.nodes.length >= 2);
  if (regions.length === 0) return 0;
  // weight regions by size
  const total = regions.reduce((x, r) => x + r.nodes.length, 0);
  let applied = 0;
  for (let t = 0; t < moves * 8 && applied < moves; t++) {
    let pick = rand(total);
    let rg = regions[0]!;
    for (const r of regions) { if (pick < r.nodes.length) { rg = r; break; } pick -= r.nodes.length; }
    const m = rg.nodes.length;
    const from = rand(m);
    const span = Math.min(m - 1, 1 + rand(24));
    const to = Math.max(0, Math.min(m - 1, from + rand(2 * span + 1) - span));
    if (to === from) continue;
    if (canMove(s, rg.id, from, to)) { moveTo(s, rg.id, from, to); applied++; }
  }
  return applied;
}

/** Is instruction i alone on a line that is not part of a macro expansion? */
function simpleLine(k: ScheduleKernel, i: number): boolean {
  const program = k.loaded.program;
  const st = k.ctx.cfg.insns[i]!.stmt;
  const s = program.statements[st]!;
  if (s.expansion) return false;
  const li = s.lineIndex;
  const prev = program.statements[st - 1];
  const next = program.statements[st + 1];
  return (!prev || prev.lineIndex !== li) && (!next || next.lineIndex !== li);
}

function lineOf(k: ScheduleKernel, i: number): number {
  return k.loaded.program.statements[k.ctx.cfg.insns[i]!.stmt]!.lineIndex;
}

function key(k: ScheduleKernel, i: number): string {
  return k.ctx.cfg.insns[i]!.text.replace(/\s+/g, ' ');
}

/** The program text with the lines of instructions i and j exchanged. */
export function swapLines(k: ScheduleKernel, i: number, j: number): string {
  const lines = k.loaded.program.lines.map((l) => ({ ...l }));
  const a = lineOf(k, i);
  const b = lineOf(k, j);
  const t = lines[a]!.text;
  lines[a]!.text = lines[b]!.text;
  lines[b]!.text = t;
  return lines.map((l) => l.text + l.eol).join('');
}

export interface Illegal { kind: IllegalKind; text: string; what: string }

/** Up to `max` illegal mutations of a kind, chosen at random among the candidates. */
export function illegalMutations(k: ScheduleKernel, kind: IllegalKind, rand: (n: number) => number, max: number): Illegal[] {
  const cands: [number, number, string][] = [];
  if (kind === 'pinned') {
    for (let i = 1; i < k.n; i++) {
      if (k.role[i] !== ROLE.pinned) continue;
      const cls = k.insns[i]!.info.cls;
      if (k.insns[i]!.insn.base === 's_waitcnt') continue; // a fence wait next to a non-memory instruction may move legally
      if (cls === 'branch' || cls === 'endpgm') {
        // only a branch whose block has another instruction before it in the same block
        if (k.ctx.cfg.blockOf[i - 1] !== k.ctx.cfg.blockOf[i]) continue;
      }
      const j = i - 1;
      if (k.role[j] !== ROLE.movable || k.ctx.cfg.blockOf[j] !== k.ctx.cfg.blockOf[i]) continue;
      if (!simpleLine(k, i) || !simpleLine(k, j) || key(k, i) === key(k, j)) continue;
      cands.push([j, i, `${k.tags[i]} (${k.pinReason[i]}) exchanged with ${k.tags[j]}`]);
    }
  } else {
    for (const rg of k.regions) {
      const m = rg.nodes.length;
      if (m < 2) continue;
      for (let a = 0; a < m && cands.length < 5000; a++) {
        for (let b = a + 1; b < Math.min(m, a + 12); b++) {
          if (!dependent(rg.graph, a, b)) continue;
          // exchanging the lines must break this dependency only: nothing between depends on either
          let clean = true;
          for (let x = a + 1; x < b && clean; x++) if (dependent(rg.graph, a, x) || dependent(rg.graph, b, x)) clean = false;
          if (!clean) continue;
          const i = rg.nodes[a]!;
          const j = rg.nodes[b]!;
          if (!simpleLine(k, i) || !simpleLine(k, j) || key(k, i) === key(k, j)) continue;
          // classify with the scheduler's explanation, seen from the later instruction
          const s = new ScheduleState(k);
          const e = explainPair(s, rg.id, b, a);
          if (e.kind !== kind) continue;
          cands.push([i, j, `${k.tags[j]} / ${k.tags[i]}: ${e.reason}`]);
        }
      }
    }
  }
  const out: Illegal[] = [];
  const used = new Set<number>();
  while (out.length < max && used.size < cands.length) {
    const c = rand(cands.length);
    if (used.has(c)) continue;
    used.add(c);
    const [i, j, what] = cands[c]!;
    out.push({ kind, text: swapLines(k, i, j), what });
  }
  return out;
}
