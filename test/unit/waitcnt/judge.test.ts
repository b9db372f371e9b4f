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
  // the wait after the writeback is the release's (positional: a cache fence)
  assert.deepEqual([...fenceWaits(rel)], [[2, 'cache']]);
  assert.deepEqual(check(['global_store_dword v[4:5], v1, off', 'buffer_wbl2 sc1', 's_waitcnt vmcnt(0)', 'global_store_dword v3, v0, s[2:3] sc1']), []);
});

test('a release: what the writeback follows completes before the next global store (LLVM: buffer_wbl2, s_waitcnt vmcnt(0), the store)', () => {
  // the wait deleted: the data store may land after the flag store
  const fs = check(['global_store_dword v[4:5], v1, off', 'buffer_wbl2 sc1', 'global_store_dword v3, v0, s[2:3] sc1']);
  assert.deepEqual(summary(fs), ['3 waitcnt-missing vmcnt=0']);
  assert.equal(fs[0]!.severity, 'error');
  assert.match(fs[0]!.message, /^global_store_dword writes memory while global_store_dword \(line 1\), issued before a cache writeback \(buffer_wbl2: a release\), may still be in flight/);
  assert.match(fs[0]!.source!, /AMDGPUUsage, memory models GFX90A and GFX942/);
  // the writeback itself counts on no counter: with nothing before it, LLVM writes no wait (llc 22, gfx942)
  assert.deepEqual(check(['v_mov_b32 v0, 1', 'buffer_wbl2 sc1', 'global_store_dword v3, v0, s[2:3] sc1']), []);
  assert.deepEqual(check(['.text', '.globl f', '.type f,@function', 'f:', 's_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', 'buffer_wbl2 sc1', 's_setpc_b64 s[30:31]']), []);
  // a load before the writeback: its wait is the release's, a fence, not judged redundant
  const load = ['global_load_dword v7, v[4:5], off', 'buffer_wbl2 sc1', 's_waitcnt vmcnt(0)', 'global_store_dword v3, v0, s[2:3] sc1'];
  assert.deepEqual(check(load), []);
  assert.deepEqual([...fenceWaits(ctxOf(load))], [[2, 'cache']]);
  // operations after the writeback are not the release's: vmcnt(1) leaves only the later one in flight
  assert.deepEqual(check(['global_store_dword v[4:5], v1, off', 'buffer_wbl2 sc1', 'global_load_dword v7, v[4:5], off', 's_waitcnt vmcnt(1)', 'global_store_dword v3, v0, s[2:3] sc1']), []);
  // scratch and LDS stores publish nothing
  assert.deepEqual(check(['global_store_dword v[4:5], v1, off', 'buffer_wbl2 sc1', 'scratch_store_dword off, v1, s4', 'ds_write_b32 v0, v1', 's_endpgm']), []);
});

test('an acquire: a coherent load (glc / sc0 / sc1) completes before the cache invalidate (LLVM: the load, s_waitcnt vmcnt(0), buffer_inv)', () => {
  const fs = check(['global_load_dword v4, v3, s[6:7] sc1', 'buffer_inv sc1', 'global_load_dword v5, v3, s[8:9]', 's_waitcnt vmcnt(0)', 'v_add_u32 v0, v4, v5']);
  assert.deepEqual(summary(fs), ['2 waitcnt-missing vmcnt=0']);
  assert.match(fs[0]!.message, /^buffer_inv invalidates the cache while global_load_dword \(line 1\), a coherent load \(an acquire's\), may still be in flight/);
  // gfx90a: glc and buffer_wbinvl1_vol
  // (the later wait stays needed by the plain load after the invalidate)
  assert.deepEqual(summary(check(['global_load_dword v4, v3, s[6:7] glc', 'buffer_wbinvl1_vol', 'global_load_dword v5, v3, s[8:9]', 's_waitcnt vmcnt(0)', 'v_add_u32 v0, v4, v5'], 'gfx90a')), ['2 waitcnt-missing vmcnt=0']);
  // an atomic with return is an acquire's load too
  assert.deepEqual(summary(check(['global_atomic_add v4, v3, v1, s[6:7] sc0 sc1', 'buffer_inv sc1', 'global_load_dword v5, v3, s[8:9]', 's_waitcnt vmcnt(0)', 'v_add_u32 v0, v4, v5'])), ['2 waitcnt-missing vmcnt=0']);
  // a plain load in flight at the invalidate is not waited for (a load before an acquire may see older data)
  assert.deepEqual(check(['global_load_dword v4, v3, s[6:7]', 'buffer_inv sc1', 's_waitcnt vmcnt(0)', 'v_mov_b32 v0, v4']), []);
  // the coherent load, then a plain one: vmcnt(1) completes the coherent one
  assert.deepEqual(check(['global_load_dword v4, v3, s[6:7] sc1', 'global_load_dword v5, v3, s[8:9]', 's_waitcnt vmcnt(1)', 'buffer_inv sc1', 's_waitcnt vmcnt(0)', 'v_add_u32 v0, v4, v5']), []);
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

test('vmcnt(0) right after a volatile (glc / sc0 sc1) access that no read needs is a fence: LLVM completes volatile accesses so', () => {
  // llc's volatile loads (a new user's trial): each followed by vmcnt(0), none of their results read
  const lines = [
    'global_load_dword v21, v1, s[22:23] offset:16 sc0 sc1',
    's_waitcnt vmcnt(0)',
    'global_load_dword v20, v1, s[22:23] offset:20 sc0 sc1',
    's_waitcnt vmcnt(0)',
    'global_store_dword v1, v2, s[22:23] sc0 sc1',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v3, 0',
  ];
  assert.deepEqual(summary(check(lines)), []);
  const ctx = ctxOf(lines);
  assert.deepEqual(analyzeWaitcnt(ctx, { judge: true }).judgements.map((x) => [x.verdict, x.fence]), [['fence', 'volatile'], ['fence', 'volatile'], ['fence', 'volatile']]);
  assert.deepEqual([...fenceWaits(ctx).keys()], [1, 3, 5], 'the scheduler keeps them');
  // without the cache bits: not needed, as before; a wait a read needs stays a dependency wait
  assert.deepEqual(summary(check(lines.map((l) => l.replace(' sc0 sc1', '')))), ['2 waitcnt-too-strong (remove)', '4 waitcnt-too-strong (remove)', '6 waitcnt-too-strong (remove)']);
  assert.deepEqual(analyzeWaitcnt(ctxOf(['global_load_dword v21, v1, s[22:23] sc0 sc1', 's_waitcnt vmcnt(0)', 'v_mov_b32 v3, v21']), { judge: true }).judgements.map((x) => x.verdict), ['needed']);
});
