/**
 * The scheduler's wait estimate against the waitcnt analysis, region by region: the waits the
 * estimate (src/waitcnt/estimate.ts) places in a region's original order, from the entry state
 * the Evaluator gives it, and the waits the analysis inserts there once the region's own
 * dependency waits are set aside, which is what emission writes into a region when it is the
 * one changed (schedule/rederive.ts keeps every other region's waits).
 */
import type { ScheduleKernel } from '../../../src/schedule/kernel.js';
import { Evaluator } from '../../../src/schedule/metrics.js';
import { analyzeWaitcnt } from '../../../src/waitcnt/index.js';
import { CounterScores, sequenceWaits, type ScoreSource } from '../../../src/waitcnt/estimate.js';

const text = (at: number, vm: number, lgkm: number, exp: number) => `${at}:${vm}/${lgkm}/${exp}`;

/** Per region whose waits differ: "r<id> analysis <waits> estimate <waits>", each wait "position:vm/lgkm/exp" (-1 = not waited on). */
export function estimateDifferences(k: ScheduleKernel): string[] {
  const ev = new Evaluator(k, { nops: false });
  const entryState = (ev as unknown as { entryState(r: number, seq: ArrayLike<number>): ScoreSource }).entryState.bind(ev);
  const asWritten = analyzeWaitcnt(k.ctx);
  const need = new Int32Array(3);
  const out: string[] = [];
  for (const rg of k.regions) {
    const own = Array.from(rg.stripped).filter((i) => k.insns[i]!.insn.base === 's_waitcnt');
    const res = own.length > 0 ? analyzeWaitcnt(k.ctx, { skip: new Set(own) }) : asWritten;
    const pos = new Map(Array.from(rg.nodes, (i, p) => [i, p]));
    const analysis = res.insertions.filter((w) => k.regionOf[w.before] === rg.id)
      .map((w) => text(pos.get(w.before) ?? -1, w.vmcnt ?? -1, w.lgkmcnt ?? -1, w.expcnt ?? -1)).join(' ');
    const at: { at: number; vm: number; lgkm: number; exp: number }[] = [];
    const st = new CounterScores();
    entryState(rg.id, rg.nodes).writeTo(st);
    sequenceWaits(ev.flatEffects, st, rg.nodes, ev.max, need, at);
    const estimate = at.map((w) => text(w.at, w.vm, w.lgkm, w.exp)).join(' ');
    if (analysis !== estimate) out.push(`r${rg.id} analysis ${analysis || '-'} estimate ${estimate || '-'}`);
  }
  return out;
}
