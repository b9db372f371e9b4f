/**
 * Emission checks the other kernels of the file only where the schedule changed them (emit.ts
 * unchangedOther): a kernel written as in the original is not checked again (its findings are the
 * original's, which the schedule's check discounts), and the whole check (checkFast) agrees; a
 * kernel whose instructions differ from the original's is checked, and its new errors are found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { emitSchedule, otherKernels, scheduleErrors } from '../../../src/schedule/emit.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { kernel, randomSchedule, text } from './helpers.js';

const A = [
  's_mov_b32 s8, 16',
  'loop:',
  'global_load_dwordx4 v[0:3], v[40:41], off',
  'global_load_dwordx4 v[4:7], v[40:41], off offset:16',
  'ds_read_b64 v[8:9], v42',
  'ds_read_b64 v[10:11], v42 offset:8',
  'v_add_u32 v40, 64, v40',
  's_waitcnt lgkmcnt(0)',
  'v_add_f32 v12, v8, v10',
  'v_mul_f32 v13, v9, v11',
  's_waitcnt vmcnt(0)',
  'ds_write_b128 v43, v[0:3]',
  'ds_write_b128 v43, v[4:7] offset:16',
  'v_add_u32 v42, 0x100, v42',
  'v_add_f32 v21, v12, v13',
  's_sub_u32 s8, s8, 1',
  's_cmp_lg_u32 s8, 0',
  's_cbranch_scc1 loop',
];
/** A kernel with an error of its own in the original: v1 read before its load returned. */
const B = ['global_load_dword v1, v[2:3], off', 'v_add_f32 v3, v1, v1'];

test('emission does not check again another kernel the schedule left as it was, and the whole check agrees', () => {
  const file = text(kernel('a', A), kernel('b', B));
  const k = pickKernel(loadText(file, 'two.s'), 'a');
  const rand = mulberry32(5);
  let emitted = 0;
  for (let t = 0; t < 6 && emitted < 3; t++) {
    const s = randomSchedule(k, rand, 12);
    if (s.changedRegions().length === 0) continue;
    const before = { ...otherKernels };
    const plain = emitSchedule(s, { checkFast: false }).text;
    assert.ok(otherKernels.skipped > before.skipped, 'b was not checked again');
    assert.equal(otherKernels.checked, before.checked);
    // the whole check beside it (every kernel checked) finds the same: nothing new
    assert.equal(emitSchedule(s, { checkFast: true }).text, plain);
    emitted++;
  }
  assert.ok(emitted >= 2, `only ${emitted} schedules emitted`);
});

test('another kernel whose instructions differ from the original\'s is checked, and its new error found', () => {
  const file = text(kernel('a', A), kernel('b', B));
  const k = pickKernel(loadText(file, 'two.s'), 'a');
  const s = randomSchedule(k, mulberry32(5), 12);
  const out = emitSchedule(s, { checkFast: false }).text;
  // b as the original had it: nothing of b reported (its error is the original's)
  assert.deepEqual(scheduleErrors(s, kernelContexts(loadText(out, 'two.s')), 'hazards+waitcnt'), []);
  // b with a second read of a load still in flight: checked, the new error reported
  const changed = out.replace('v_add_f32 v3, v1, v1', 'global_load_dword v5, v[2:3], off\n  v_add_f32 v3, v1, v1\n  v_add_f32 v6, v5, v5');
  assert.notEqual(changed, out);
  const before = otherKernels.checked;
  const fresh = scheduleErrors(s, kernelContexts(loadText(changed, 'two.s')), 'hazards+waitcnt');
  assert.equal(otherKernels.checked, before + 1);
  assert.ok(fresh.some((f) => f.ctx.kernel.name === 'b' && f.finding.rule === 'waitcnt-missing' && /v5/.test(f.finding.message)),
    fresh.map((f) => `${f.ctx.kernel.name}: ${f.finding.message}`).join('\n'));
});
