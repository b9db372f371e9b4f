/**
 * Judging the waits that are present: redundant (waits for nothing outstanding), too strong
 * (weakest safe value given), and fences (memory ordering for other waves: never judged).
 * Sources: LLVM SIInsertWaitcnts::generateWaitcntInstBefore; AMD CDNA3 ISA §4.4; see src/waitcnt/analysis.ts
 * for the fence rules. The simple redundant and too-strong cases are in test/fixtures/waitcnt/judge.s.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, ctxOf, summary } from './helpers.js';
import { analyzeWaitcnt, dependencyWaits, fenceWaits } from '../../../src/waitcnt/index.js';

test('a wait nothing after it needs: too strong, remove (a wait at the end of the kernel is not a fence)', () => {
  assert.deepEqual(summary(check([
    'global_load_dword v1, v[2:3], off',
    's_waitcnt vmcnt(0)',
    's_endpgm',
  ])), ['2 waitcnt-too-strong (remove)']);
  // stores complete without the wave: a wait for them right before s_endpgm is not needed
  assert.deepEqual(summary(check([
    'global_store_dword v[2:3], v1, off',
    's_waitcnt vmcnt(0)',
    's_endpgm',
  ])), ['2 waitcnt-too-strong (remove)']);
});

test('the first wait that completes a load is the one charged; a later duplicate is not needed', () => {
  const lines = [
    'global_load_dword v1, v[2:3], off',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
    'global_load_dword v5, v[2:3], off',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
  ];
  assert.deepEqual(summary(check(lines)), ['5 waitcnt-too-strong (remove)']);
  const j = analyzeWaitcnt(ctxOf(lines), { judge: true }).judgements;
  assert.deepEqual(j.map((x) => x.verdict), ['needed', 'too-strong']);
  assert.deepEqual(j[0]!.weakest, [0, 0x7fffffff, 0x7fffffff]);
});

test('fences: a wait before s_barrier is never judged (gfx90a+: release for other waves)', () => {
  assert.deepEqual(check([
    'ds_write_b32 v0, v1',
    's_waitcnt lgkmcnt(0)',
    's_barrier',
    'ds_read_b32 v2, v0 offset:4',
    's_waitcnt lgkmcnt(0)',
    'v_mov_b32 v3, v2',
  ]), []);
  // even when nothing is outstanding
  const ctx = ctxOf(['v_mov_b32 v0, 0', 's_waitcnt vmcnt(0) lgkmcnt(0)', 's_barrier']);
  assert.deepEqual([...fenceWaits(ctx)], [[1, 'barrier']]);
  assert.deepEqual(dependencyWaits(ctx), []);
});

test('fences: waits around cache invalidates / writebacks (acquire and release sequences)', () => {
  // acquire: load, wait, invalidate
  const acq = ctxOf([
    'global_load_dword v4, v3, s[6:7] sc1',
    's_waitcnt vmcnt(0)',
    'buffer_inv sc1',
    'v_mov_b32 v0, v4',
  ]);
  assert.deepEqual(check(['global_load_dword v4, v3, s[6:7] sc1', 's_waitcnt vmcnt(0)', 'buffer_inv sc1', 'v_mov_b32 v0, v4']), []);
  assert.deepEqual([...fenceWaits(acq)], [[1, 'cache']]);
  // release: store, writeback, wait for it, then the flag store
  const rel = ctxOf([
    'global_store_dword v[4:5], v1, off',
    'buffer_wbl2 sc1',
    's_waitcnt vmcnt(0)',
    'global_store_dword v3, v0, s[2:3] sc1',
  ]);
  assert.deepEqual([...fenceWaits(rel)], [[2, 'store']]);
  assert.deepEqual(check(['global_store_dword v[4:5], v1, off', 'buffer_wbl2 sc1', 's_waitcnt vmcnt(0)', 'global_store_dword v3, v0, s[2:3] sc1']), []);
});

test('fences: a wait that only completes stores before later memory accesses is a release', () => {
  // LLVM's workgroup release fence without s_barrier (one-wave work-group)
  const lines = [
    'ds_write_b32 v0, v1',
    's_waitcnt lgkmcnt(0)',
    'global_load_dword v1, v[2:3], off',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
  ];
  assert.deepEqual(check(lines), []);
  assert.deepEqual([...fenceWaits(ctxOf(lines))], [[1, 'store']]);
  assert.deepEqual(dependencyWaits(ctxOf(lines)), [3]);
});

test('a wait that is too weak is not reported as redundant: the missing wait merges into it', () => {
  assert.deepEqual(summary(check([
    'global_load_dword v10, v[2:3], off',
    'global_load_dword v11, v[2:3], off',
    's_waitcnt vmcnt(1)',
    'v_mov_b32 v0, v11',
  ])), ['4 waitcnt-missing vmcnt=0']);
});
