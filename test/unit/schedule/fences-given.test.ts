/**
 * A kernel prepared with the fence waits another thread's check found (ScheduleOptions.fenceWaits,
 * what a worker thread gets with its task) gets the same roles as one that makes the waitcnt
 * analysis itself, without making it; under CONDUCTOR_CHECK_FAST=1 wrong ones are caught.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { pickKernel, ROLE } from '../../../src/schedule/kernel.js';
import { fenceWaits, keptFenceWaits } from '../../../src/waitcnt/index.js';
import { checkContexts } from '../../../src/check/check.js';
import { FastPathMismatch } from '../../../src/errors.js';

const TEXT = [
  'v_mov_b32 v1, 0',
  'ds_write_b32 v0, v1',
  's_waitcnt lgkmcnt(0)',
  's_barrier',
  'ds_read_b32 v2, v0',
  'global_store_dword v[6:7], v2, off',
  's_waitcnt vmcnt(0)',
  'buffer_wbl2',
  's_waitcnt lgkmcnt(0)',
  'v_add_u32 v4, v2, v1',
  's_endpgm',
].join('\n') + '\n';

const load = () => loadText(TEXT, 't.s', { arch: 'gfx90a' });

test('keptFenceWaits: undefined until a check made the analysis, then the fence waits', () => {
  const l = load();
  const ctx = kernelContexts(l)[0]!;
  assert.equal(keptFenceWaits(ctx), undefined);
  checkContexts(kernelContexts(l));
  const kept = keptFenceWaits(ctx);
  assert.deepEqual(kept, [...fenceWaits(ctx).keys()]);
  // the wait before the barrier, the one before the cache writeback and the one after it (a release's)
  assert.deepEqual([...kept!].sort((a, b) => a - b), [2, 6, 8]);
});

test('fence waits given: the same roles, and the analysis is not made', () => {
  const checked = load();
  checkContexts(kernelContexts(checked));
  const fences = keptFenceWaits(kernelContexts(checked)[0]!)!;
  const own = pickKernel(load());
  const l = load();
  const given = pickKernel(l, undefined, { fenceWaits: new Set(fences) });
  assert.deepEqual(given.role, own.role);
  assert.deepEqual(given.pinReason, own.pinReason);
  assert.equal(given.role[2], ROLE.pinned);
  assert.equal(keptFenceWaits(kernelContexts(l)[0]!), undefined);
});

test('fence waits given: CONDUCTOR_CHECK_FAST=1 compares them with the analysis', () => {
  const old = process.env['CONDUCTOR_CHECK_FAST'];
  try {
    process.env['CONDUCTOR_CHECK_FAST'] = '1';
    assert.throws(() => pickKernel(load(), undefined, { fenceWaits: new Set([2]) }), FastPathMismatch);
    assert.doesNotThrow(() => pickKernel(load(), undefined, { fenceWaits: new Set([2, 6, 8]) }));
  } finally {
    if (old === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = old;
  }
});
