/**
 * How a scheduled kernel lines up with the original: the scheduled program is the original with
 * changed regions permuted, their waits and nops removed, and waits and nops inserted anywhere.
 */
import type { KernelContext } from '../analysis/types.js';
import { isDeepStrictEqual } from 'node:util';
import { checkFastFromEnv, ConductorError, FastPathMismatch } from '../errors.js';
import { ROLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { isWaitOrNop } from '../asm/program.js';

/**
 * For each instruction of the scheduled kernel, the original instruction it is (-1 for waits and
 * nops): the scheduled program is the original with changed regions permuted, their waits and
 * nops removed, and waits and nops inserted anywhere.
 */
export function alignToOriginal(s: ScheduleState, sched: KernelContext): Int32Array {
  // each step of an emission aligns the same draft with the same schedule: made once per context
  // and the schedule's region versions (a version names one order of its region)
  const a = ALIGNED.get(sched);
  if (a && a.k === s.k && sameVersions(a.version, s.version)) {
    if (checkFastFromEnv() && !isDeepStrictEqual(a.out, align(s, sched))) {
      throw new FastPathMismatch(`fast path check: the kept alignment of ${s.k.name} with the original differs from the alignment made again`);
    }
    return a.out;
  }
  const out = align(s, sched);
  ALIGNED.set(sched, { k: s.k, version: s.version.slice(), out });
  return out;
}

const ALIGNED = new WeakMap<KernelContext, { k: ScheduleKernel; version: Uint32Array; out: Int32Array }>();

function sameVersions(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let r = 0; r < a.length; r++) if (a[r] !== b[r]) return false;
  return true;
}

function align(s: ScheduleState, sched: KernelContext): Int32Array {
  const k = s.k;
  const expected: number[] = [];
  const seen = new Int32Array(k.regions.length);
  for (let i = 0; i < k.n; i++) {
    if (isWaitOrNop(k.insns[i]!.insn)) continue;
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
    if (isWaitOrNop(sched.insns[j]!.insn)) continue;
    const o = expected[p++];
    if (o === undefined || k.insns[o]!.insn.mnemonic !== sched.insns[j]!.insn.mnemonic) {
      throw new ConductorError(`internal: the scheduled kernel does not line up with the original at ${sched.insns[j]!.insn.loc.line} ('${sched.insns[j]!.insn.text}')`);
    }
    out[j] = o;
  }
  if (p !== expected.length) throw new ConductorError('internal: the scheduled kernel has fewer instructions than the original');
  return out;
}
