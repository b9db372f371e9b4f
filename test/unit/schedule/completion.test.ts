/**
 * Completions kept at synchronization points (src/schedule/completion.ts): what the original has
 * complete in front of a barrier, a cache operation, a message or a return stays complete in the
 * scheduled program, on the counter model's classes (in-order classes by their younger count,
 * out-of-order classes and FLAT only at 0).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { missingCompletions } from '../../../src/schedule/completion.js';

const ctxOf = (lines: string[], arch = 'gfx942'): KernelContext => kernelContextsFromText(lines.join('\n') + '\n', 't.s', arch)[0]!;

/** sched's instructions map one to one onto orig's, except the listed ones (waits added or removed). */
function identity(n: number): Int32Array { return Int32Array.from({ length: n }, (_, i) => i); }

const HEAD = ['ds_write_b32 v0, v1', 'ds_write_b32 v0, v2 offset:4', 'global_store_dword v[4:5], v3, off'];

test('a wait the original gives a barrier is kept when the schedule drops it', () => {
  const orig = ctxOf([...HEAD, 's_waitcnt vmcnt(0) lgkmcnt(0)', 's_barrier', 's_endpgm']);
  // the schedule re-derived no wait: instruction 3 of sched is the barrier (orig 4)
  const sched = ctxOf([...HEAD, 's_barrier', 's_endpgm']);
  const map = Int32Array.from([0, 1, 2, 4, 5]);
  const m = missingCompletions(orig, sched, map);
  assert.deepEqual([...m.entries()], [[3, { vm: 0, lgkm: 0, exp: undefined }]]);
});

test('in-order classes: a partial wait completes the older operations only, and the barrier needs what the original had', () => {
  // the original's lgkmcnt(1) completes the first ds_write (one younger LDS operation)
  const orig = ctxOf([...HEAD, 's_waitcnt lgkmcnt(1)', 's_barrier', 's_endpgm']);
  const sched = ctxOf([...HEAD, 's_barrier', 's_endpgm']);
  const m = missingCompletions(orig, sched, Int32Array.from([0, 1, 2, 4, 5]));
  assert.deepEqual([...m.entries()], [[3, { vm: undefined, lgkm: 1, exp: undefined }]]);
  // the same wait in the schedule: nothing missing
  assert.equal(missingCompletions(orig, orig, identity(6)).size, 0);
});

test('out-of-order classes (scalar memory, FLAT) complete only at 0', () => {
  const smem = ['s_load_dword s4, s[0:1], 0x0', 's_load_dword s5, s[0:1], 0x4'];
  const orig = ctxOf([...smem, 's_waitcnt lgkmcnt(0)', 's_barrier', 's_endpgm']);
  const sched = ctxOf([...smem, 's_waitcnt lgkmcnt(1)', 's_barrier', 's_endpgm']);
  assert.deepEqual([...missingCompletions(orig, sched, identity(5)).entries()], [[3, { vm: undefined, lgkm: 0, exp: undefined }]]);
  const flat = ['flat_store_dword v[4:5], v3', 'ds_write_b32 v0, v1'];
  const origF = ctxOf([...flat, 's_waitcnt vmcnt(0) lgkmcnt(0)', 's_barrier', 's_endpgm']);
  const schedF = ctxOf([...flat, 's_waitcnt vmcnt(0)', 's_barrier', 's_endpgm']);
  // the FLAT store may complete through lgkmcnt: only lgkmcnt(0) is safe for it
  assert.deepEqual([...missingCompletions(origF, schedF, identity(5)).entries()], [[3, { vm: 0, lgkm: 0, exp: undefined }]]);
});

test('nothing is asked where the original completed nothing, or at instructions that are no synchronization point', () => {
  const orig = ctxOf([...HEAD, 's_barrier', 's_endpgm']);
  assert.equal(missingCompletions(orig, orig, identity(5)).size, 0);
  const plain = ctxOf([...HEAD, 's_waitcnt vmcnt(0) lgkmcnt(0)', 'v_mov_b32 v9, 0', 's_endpgm']);
  const schedPlain = ctxOf([...HEAD, 'v_mov_b32 v9, 0', 's_endpgm']);
  assert.equal(missingCompletions(plain, schedPlain, Int32Array.from([0, 1, 2, 4, 5])).size, 0);
});

test('GDS operations complete in order among themselves (targets/counters.ts), like LDS', () => {
  const gds = ['ds_add_u32 v0, v1 gds', 'ds_add_u32 v0, v2 gds'];
  const orig = ctxOf([...gds, 's_waitcnt lgkmcnt(1)', 's_barrier', 's_endpgm'], 'gfx908');
  const sched = ctxOf([...gds, 's_barrier', 's_endpgm'], 'gfx908');
  assert.deepEqual([...missingCompletions(orig, sched, Int32Array.from([0, 1, 3, 4])).entries()], [[2, { vm: undefined, lgkm: 1, exp: undefined }]]);
});
