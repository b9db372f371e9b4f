/** Helpers shared by the scheduling tests. */
import type { ScheduleKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, canMove, moveTo } from '../../../src/schedule/state.js';

/** A random legal schedule of `k`: `moves` random moves, each applied when it keeps every dependency. */
export function randomSchedule(k: ScheduleKernel, rand: () => number, moves: number): ScheduleState {
  const s = new ScheduleState(k);
  for (let step = 0; step < moves; step++) {
    const r = Math.floor(rand() * k.regions.length);
    const m = k.regions[r]!.nodes.length;
    if (m < 2) continue;
    const from = Math.floor(rand() * m);
    const to = Math.floor(rand() * m);
    if (canMove(s, r, from, to)) moveTo(s, r, from, to);
  }
  return s;
}
