/**
 * How a scheduled kernel lines up with the original: the scheduled program is the original with
 * changed regions permuted, their waits and nops removed, and waits and nops inserted anywhere.
 */
import type { KernelContext } from '../analysis/types.js';
import { ConductorError } from '../errors.js';
import { ROLE } from './kernel.js';
import type { ScheduleState } from './state.js';

/**
 * For each instruction of the scheduled kernel, the original instruction it is (-1 for waits and
 * nops): the scheduled program is the original with changed regions permuted, their waits and
 * nops removed, and waits and nops inserted anywhere.
 */
export function alignToOriginal(s: ScheduleState, sched: KernelContext): Int32Array {
  const k = s.k;
  const expected: number[] = [];
  const seen = new Int32Array(k.regions.length);
  for (let i = 0; i < k.n; i++) {
    const base = k.insns[i]!.insn.base;
    if (base === 's_waitcnt' || base === 's_nop') continue;
    const r = k.regionOf[i]!;
    if (k.role[i] === ROLE.movable && r >= 0) {
      const rg = k.regions[r]!;
      expected.push(rg.nodes[s.order[r]![seen[r]!]!]!);
      seen[r]!++;
    } else expected.push(i);
  }
  const out = new Int32Array(sched.insns.length).fill(-1);
  let p = 0;
  for (let j = 0; j < sched.insns.length; j++) {
    const base = sched.insns[j]!.insn.base;
    if (base === 's_waitcnt' || base === 's_nop') continue;
    const o = expected[p++];
    if (o === undefined || k.insns[o]!.insn.mnemonic !== sched.insns[j]!.insn.mnemonic) {
      throw new ConductorError(`internal: the scheduled kernel does not line up with the original at ${sched.insns[j]!.insn.loc.line} ('${sched.insns[j]!.insn.text}')`);
    }
    out[j] = o;
  }
  if (p !== expected.length) throw new ConductorError('internal: the scheduled kernel has fewer instructions than the original');
  return out;
}
