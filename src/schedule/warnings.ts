/**
 * Moves that are legal but suspicious, reported as warnings with a severity:
 *
 *   load-later          (info / warn)  a load moved later: less latency hidden; warn when its
 *                                      first use is now at most 2 instructions away
 *   address-far         (warn)         an address computation and its only use (as the address
 *                                      of a memory instruction) end up more than 16 instructions
 *                                      apart, farther than before
 *   mfma-chain-adjacent (warn)         an MFMA now sits right after the MFMA whose result it
 *                                      reads (accumulator chain): it waits for all passes
 *   occupancy-drop      (critical)     the move raises peak register pressure across an
 *                                      occupancy breakpoint (fewer waves per SIMD)
 */
import type { ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import type { Evaluator, Metrics } from './metrics.js';
import { cycleEngineFor } from '../cycles/estimate.js';
import { counted } from '../text.js';

export type Severity = 'info' | 'warn' | 'critical';
export type WarningKind = 'load-later' | 'address-far' | 'mfma-chain-adjacent' | 'occupancy-drop';

export interface MoveWarning {
  command: string;
  kind: WarningKind;
  severity: Severity;
  message: string;
}

export const ADDRESS_FAR = 16;
const ADDRESS_ROLES = new Set(['vaddr', 'saddr', 'srsrc', 'soffset', 'sbase', 'soff']);

/** Local nodes of region r that read a unit x writes, with no other write in between (original order). */
function rawConsumers(k: ScheduleKernel, r: number, x: number): number[] {
  const rg = k.regions[r]!;
  const ix = rg.nodes[x]!;
  const defs = new Set<number>();
  for (let p = k.defOff[ix]!; p < k.defOff[ix + 1]!; p++) defs.add(k.defUnits[p]!);
  const out: number[] = [];
  for (let y = x + 1; y < rg.nodes.length && defs.size > 0; y++) {
    const iy = rg.nodes[y]!;
    let reads = false;
    for (let p = k.useOff[iy]!; p < k.useOff[iy + 1]!; p++) if (defs.has(k.useUnits[p]!)) { reads = true; break; }
    if (reads) out.push(y);
    for (let p = k.defOff[iy]!; p < k.defOff[iy + 1]!; p++) defs.delete(k.defUnits[p]!);
  }
  return out;
}

function liveOutAny(k: ScheduleKernel, r: number, i: number): boolean {
  const lo = k.regions[r]!.liveOut;
  for (let p = k.defOff[i]!; p < k.defOff[i + 1]!; p++) {
    const u = k.defUnits[p]!;
    if (lo[u >>> 5]! & (1 << (u & 31))) return true;
  }
  return false;
}

/** Does y read x's results only as address operands? */
function readsAsAddress(k: ScheduleKernel, x: number, y: number): boolean {
  const defs = new Set<number>();
  for (let p = k.defOff[x]!; p < k.defOff[x + 1]!; p++) defs.add(k.defUnits[p]!);
  let any = false;
  for (const op of k.insns[y]!.operands) {
    if (!op.use) continue;
    if (!op.units.some((u) => defs.has(u))) continue;
    if (!ADDRESS_ROLES.has(op.role)) return false;
    any = true;
  }
  return any;
}

function isLoad(k: ScheduleKernel, i: number): boolean {
  const m = k.mem[i];
  return !!m && m.reads !== 0 && m.writes === 0;
}

/**
 * Warnings for a command that moved the instructions `moved` (kernel indexes) of region r.
 * `posBefore` maps local node -> position before the command. `metricsBefore` are the
 * evaluator's metrics before the command (for the occupancy check).
 */
export function moveWarnings(k: ScheduleKernel, s: ScheduleState, r: number, moved: number[], posBefore: Int32Array,
  command: string, ev?: Evaluator, metricsBefore?: Metrics): MoveWarning[] {
  const out: MoveWarning[] = [];
  const rg = k.regions[r]!;
  const pos = s.pos[r]!;
  const order = s.order[r]!;
  const add = (kind: WarningKind, severity: Severity, message: string) => {
    if (!out.some((w) => w.kind === kind && w.message === message)) out.push({ command, kind, severity, message });
  };
  for (const i of moved) {
    const x = k.localOf[i]!;
    const tag = k.tags[i]!;
    const before = posBefore[x]!;
    const now = pos[x]!;
    // load-later
    if (isLoad(k, i) && now > before) {
      const cons = rawConsumers(k, r, x);
      const first = cons.length ? Math.min(...cons.map((c) => pos[c]!)) : -1;
      const firstBefore = cons.length ? Math.min(...cons.map((c) => posBefore[c]!)) : -1;
      const gap = first - now;
      if (first >= 0 && gap <= 2 && gap < firstBefore - before) {
        add('load-later', 'warn', `${tag} moved ${now - before} later: its result is used ${counted(gap, 'instruction')} after it (latency about ${Math.round(cycleEngineFor(k.ctx).m.lat[i]!)} cycles)`);
      } else {
        add('load-later', 'info', `${tag} moved ${now - before} later: less of its latency is hidden`);
      }
    }
    // address-far: x computes an address for its only consumer
    if (!k.mem[i]) {
      const cons = rawConsumers(k, r, x);
      if (cons.length === 1 && !liveOutAny(k, r, i) && readsAsAddress(k, i, rg.nodes[cons[0]!]!)) {
        const c = cons[0]!;
        const d = Math.abs(pos[c]! - now);
        const d0 = Math.abs(posBefore[c]! - before);
        if (d > ADDRESS_FAR && d > d0) add('address-far', 'warn', `${tag} computes the address of ${k.tags[rg.nodes[c]!]}, its only use, now ${d} instructions away (was ${d0})`);
      }
    }
    // address-far: x is a memory instruction moved away from its address computation
    if (k.mem[i]) {
      const addr = new Set<number>();
      for (const op of k.insns[i]!.operands) if (op.use && ADDRESS_ROLES.has(op.role)) for (const u of op.units) addr.add(u);
      const producers = new Set<number>();
      for (const u of addr) {
        for (let y = x - 1; y >= 0; y--) {
          const iy = rg.nodes[y]!;
          let writes = false;
          for (let p = k.defOff[iy]!; p < k.defOff[iy + 1]!; p++) if (k.defUnits[p] === u) { writes = true; break; }
          if (writes) { producers.add(y); break; }
        }
      }
      for (const y of producers) {
        const iy = rg.nodes[y]!;
        if (k.mem[iy]) continue;
        const cons = rawConsumers(k, r, y);
        if (cons.length !== 1 || cons[0] !== x || liveOutAny(k, r, iy) || !readsAsAddress(k, iy, i)) continue;
        const d = Math.abs(now - pos[y]!);
        const d0 = Math.abs(before - posBefore[y]!);
        if (d > ADDRESS_FAR && d > d0) add('address-far', 'warn', `${k.tags[iy]} computes the address of ${tag}, its only use, now ${d} instructions away (was ${d0})`);
      }
    }
  }
  // mfma-chain-adjacent: pairs of neighbours in the span the command changed that are new
  let lo = order.length;
  let hi = -1;
  for (const i of moved) {
    const x = k.localOf[i]!;
    lo = Math.min(lo, posBefore[x]!, pos[x]!);
    hi = Math.max(hi, posBefore[x]!, pos[x]!);
  }
  for (let p = Math.max(0, lo - 1); p <= hi && p + 1 < order.length; p++) {
    const a = order[p]!;
    const c = order[p + 1]!;
    const ia = rg.nodes[a]!;
    const ic = rg.nodes[c]!;
    if (k.insns[ia]!.info.cls !== 'mfma' || k.insns[ic]!.info.cls !== 'mfma') continue;
    if (posBefore[c]! - posBefore[a]! === 1) continue;
    if (!rawConsumers(k, r, a).includes(c)) continue;
    const passes = k.insns[ia]!.info.mfma?.passes ?? 0;
    add('mfma-chain-adjacent', 'warn', `${k.tags[ic]} now follows ${k.tags[ia]} directly and reads its result: it waits for all ${passes} passes`);
  }
  if (ev && metricsBefore) {
    const after = ev.evaluate(s);
    if (after.occupancy < metricsBefore.occupancy) {
      const what: string[] = [];
      if (after.peak_vgpr > metricsBefore.peak_vgpr) what.push(`peak VGPR ${metricsBefore.peak_vgpr} -> ${after.peak_vgpr}`);
      if (after.peak_agpr > metricsBefore.peak_agpr) what.push(`peak AGPR ${metricsBefore.peak_agpr} -> ${after.peak_agpr}`);
      if (after.peak_sgpr > metricsBefore.peak_sgpr) what.push(`peak SGPR ${metricsBefore.peak_sgpr} -> ${after.peak_sgpr}`);
      add('occupancy-drop', 'critical', `${what.join(', ') || 'peak pressure'} crosses an occupancy breakpoint: ${metricsBefore.occupancy} -> ${after.occupancy} waves per SIMD`);
    }
  }
  return out;
}
