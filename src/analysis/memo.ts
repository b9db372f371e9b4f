/**
 * Whole-kernel analyses made once per program. A loaded program's kernel contexts are made once
 * (context.ts kernelContexts), and what is computed from a context alone (the waitcnt analysis,
 * the hazard check, the resources, the cycle model's time of the kernel) is kept on it, so the
 * steps of a run that read the same program share one result instead of computing it again:
 * checking the fixed input, measuring it, preparing it for the scheduler and the original's part
 * of emission all read the same kernel.
 *
 * Results are shared, so they are never changed by the caller. With CONDUCTOR_CHECK_FAST=1
 * every reuse computes the result again and throws FastPathMismatch when the two differ (a
 * result changed after it was kept, or a computation that depends on more than its key).
 */
import { isDeepStrictEqual } from 'node:util';
import { checkFastFromEnv, FastPathMismatch } from '../errors.js';

const KEPT = new WeakMap<object, Map<string, unknown>>();

/**
 * `compute()` of `owner` under `key` (which names the computation and every option it depends
 * on), computed on the first call and kept as long as `owner` lives.
 */
export function once<T>(owner: object, key: string, compute: () => T): T {
  let m = KEPT.get(owner);
  if (!m) { m = new Map(); KEPT.set(owner, m); }
  if (m.has(key)) {
    const kept = m.get(key) as T;
    if (checkFastFromEnv() && !isDeepStrictEqual(kept, compute())) {
      throw new FastPathMismatch(`fast path check: the kept result '${key}' differs from the same computation made again`);
    }
    return kept;
  }
  const v = compute();
  m.set(key, v);
  return v;
}

/**
 * Keep `value` as what `once(owner, key, ...)` would compute, when nothing is kept there yet: for
 * a computation that gives the same result as part of a larger one. `once` then checks it like
 * any kept result.
 */
export function keep(owner: object, key: string, value: unknown): void {
  let m = KEPT.get(owner);
  if (!m) { m = new Map(); KEPT.set(owner, m); }
  if (!m.has(key)) m.set(key, value);
}

/** What `once` keeps for `owner` under `key`, when it was computed (this computes nothing). */
export function kept<T>(owner: object, key: string): T | undefined {
  return KEPT.get(owner)?.get(key) as T | undefined;
}

/** Forget what `owner` keeps (a program whose analyses are no longer read). */
export function forget(owner: object): void {
  KEPT.delete(owner);
}
