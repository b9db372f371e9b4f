/**
 * alignToOriginal is made once per scheduled context and schedule (the steps of an emission
 * align the same draft with the same schedule): the kept alignment equals one made on a fresh
 * load of the same text, a changed schedule is aligned again, and with CONDUCTOR_CHECK_FAST=1 a
 * kept alignment that differs from the one made again is caught.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { alignToOriginal } from '../../../src/schedule/align.js';
import { reorderedText } from '../../../src/schedule/reorder.js';
import { canMove, moveTo, ScheduleState } from '../../../src/schedule/state.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { randomSchedule } from './helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

function scheduledCtx(s: ScheduleState): KernelContext {
  return kernelContexts(loadText(reorderedText(s), 'scheduled.s', { arch: s.k.target.name })).find((c) => c.kernel.name === s.k.name)!;
}

/** The alignment, or the message of the error that says the context does not line up. */
function aligned(s: ScheduleState, c: KernelContext): Int32Array | string {
  try {
    return alignToOriginal(s, c);
  } catch (e) {
    return (e as Error).message;
  }
}

test('the alignment of a scheduled context with its schedule is made once, and again when the schedule changes', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const rand = mulberry32(5);
  let changed = 0;
  for (let t = 0; t < 6; t++) {
    const s = randomSchedule(k, rand, 10 + 5 * t);
    const c = scheduledCtx(s);
    const a = alignToOriginal(s, c);
    assert.equal(alignToOriginal(s, c), a);
    // the same schedule in another state (a clone shares its versions) reads the kept alignment
    assert.equal(alignToOriginal(new ScheduleState(k, s), c), a);
    assert.deepEqual(a, alignToOriginal(s, scheduledCtx(s)));
    // a move changes a region's version: the context is aligned again, not answered from what was kept
    const r = k.regions.findIndex((rg, x) => rg.nodes.length >= 2 && canMove(s, x, 0, 1));
    if (r < 0) continue;
    moveTo(s, r, 0, 1);
    changed++;
    const b = aligned(s, c);
    assert.notEqual(b, a);
    const fresh = new ScheduleState(k, s);
    fresh.version.fill(0xffffffff);
    assert.deepEqual(b, aligned(fresh, c));
  }
  assert.ok(changed > 0);
});

test('CONDUCTOR_CHECK_FAST=1: a kept alignment that differs from the alignment made again is caught', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const s = randomSchedule(k, mulberry32(9), 30);
  const c = scheduledCtx(s);
  const a = alignToOriginal(s, c);
  const saved = process.env['CONDUCTOR_CHECK_FAST'];
  process.env['CONDUCTOR_CHECK_FAST'] = '1';
  try {
    assert.equal(alignToOriginal(s, c), a);
    const j = a.findIndex((x) => x >= 0);
    a[j] = -1;
    assert.throws(() => alignToOriginal(s, c), FastPathMismatch);
  } finally {
    if (saved === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = saved;
  }
});
