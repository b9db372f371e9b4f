/**
 * The wait that closes a changed region (closing.ts): emission adds it when a reordered region
 * leaves more memory operations pending than the original did, and the estimate counts it too,
 * so a reordering is not credited with a wait emission puts back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { Evaluator } from '../../../src/schedule/metrics.js';
import { replayMoves } from '../../../src/schedule/replay.js';
import { ScheduleState } from '../../../src/schedule/state.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { closingWait, originalClosings } from '../../../src/schedule/closing.js';
import { traitsOf } from '../../../src/isa/traits.js';
import { COUNTER, OP_CLASS } from '../../../src/targets/counters.js';

// a scalar load whose result the loop does not read, waited for before the loop (as clang writes it)
const KERNEL = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:',
  '  s_load_dwordx2 s[4:5], s[0:1], 0x0',
  '  s_mov_b32 s6, 16',
  '  v_mov_b32 v12, 0',
  '  v_mov_b32 v13, 0',
  '  s_waitcnt lgkmcnt(0)',
  '.Lloop:',
  '  ds_read_b64 v[2:3], v1',
  '  s_waitcnt lgkmcnt(0)',
  '  v_add_f32 v4, v2, v3',
  '  s_sub_u32 s6, s6, 1',
  '  s_cmp_lg_u32 s6, 0',
  '  s_cbranch_scc1 .Lloop',
  '  v_mov_b32 v14, 0',
  '  global_store_dwordx2 v14, v[12:13], s[4:5]',
  '  s_endpgm', '',
].join('\n');

test('a reordered region before a loop: the estimate counts the wait emission adds to close it', () => {
  const k = pickKernel(loadText(KERNEL, 'k.s'));
  const ev = new Evaluator(k);
  const r = replayMoves(k, ['swap v_mov_b32_0 v_mov_b32_1']);
  assert.ok('state' in r);
  const est = ev.evaluate(r.state);
  const exact = emitSchedule(r.state).metrics;
  assert.equal(exact.s_waitcnt, 2, 'the wait before the loop is written back (it closes the region)');
  assert.equal(est.s_waitcnt, exact.s_waitcnt);
  // and the swap gains nothing by either measure
  assert.equal(est.s_waitcnt, ev.evaluate(new ScheduleState(k)).s_waitcnt);
});

test('closingWait: out-of-order scalar loads left pending need lgkmcnt(0); nothing pending needs nothing', () => {
  const k = pickKernel(loadText(KERNEL, 'k.s'));
  const rc = originalClosings(k)[0]!;
  const t = traitsOf(k.insns);
  const seq = k.regions[0]!.nodes;
  const out = new Int32Array(3);
  const smem = OP_CLASS.smem;
  assert.equal(rc.pending[smem], 0, 'the original waits before the loop');
  const pending = new Int32Array(rc.pending.length);
  pending[smem] = 1;
  assert.equal(closingWait(t, rc, seq, pending, out), true);
  assert.equal(out[COUNTER.lgkm], 0);
  assert.equal(out[COUNTER.vm], -1);
  assert.equal(closingWait(t, rc, seq, new Int32Array(rc.pending.length), out), false);
});
