/**
 * A loop closed by s_setpc_b64 of the address an s_getpc_b64 took before its label (MIOpen's
 * conv1x1wrw.s): the two ends stay where they are, the body between them is scheduled as the body
 * of a loop closed by s_branch is. A Tensile long branch (s_getpc_b64, address arithmetic on a
 * label, s_setpc_b64) stays pinned whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { prepareKernels, ROLE } from '../../../src/schedule/kernel.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { checkLoaded } from '../../../src/check/check.js';
import { kernel, text } from './helpers.js';

// each iteration loads v1 (read at the head of the next) and v7: the loads are best issued early
const PC_LOOP = [
  's_mov_b32 s4, 0',
  'v_mov_b32 v1, 0',
  's_getpc_b64 s[6:7]',
  'loop_begin:',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v2, v1, v1',
  'v_mul_f32 v3, v2, v2',
  'v_mul_f32 v6, v3, v3',
  'global_load_dword v7, v[4:5], off offset:8',
  'global_load_dword v1, v[4:5], off',
  's_add_u32 s4, s4, 4',
  's_cmp_ge_u32 s4, 16',
  's_cbranch_scc1 loop_exit',
  's_setpc_b64 s[6:7]',
  'loop_exit:',
  's_waitcnt vmcnt(0)',
];

test('a loop closed by s_setpc_b64: its ends are pinned, its body is not; a long branch stays pinned whole', () => {
  const [k] = prepareKernels(loadText(text(kernel('k', PC_LOOP)), 'pc.s'));
  const roles = k!.insns.map((r, i) => [r.insn.base, k!.role[i]] as const);
  const pinned = roles.filter(([, role]) => role === ROLE.pinned).map(([b]) => b);
  assert.deepEqual(pinned.filter((b) => b === 's_getpc_b64' || b === 's_setpc_b64'), ['s_getpc_b64', 's_setpc_b64']);
  for (const b of ['v_add_f32', 'v_mul_f32', 'global_load_dword']) {
    assert.ok(roles.some(([x, role]) => x === b && role === ROLE.movable), `${b} movable`);
  }
  // the same range as a long branch (address arithmetic on the label): every instruction pinned
  const long = ['s_getpc_b64 s[6:7]', 'v_mov_b32 v1, 1', 'v_mov_b32 v2, 2', 's_add_u32 s6, s6, far@rel32@lo+4',
    's_addc_u32 s7, s7, far@rel32@hi+12', 's_setpc_b64 s[6:7]', 'far:', 'v_add_f32 v3, v1, v2'];
  const [l] = prepareKernels(loadText(text(kernel('l', long)), 'long.s'));
  const at = l!.insns.findIndex((r) => r.insn.base === 's_setpc_b64');
  for (let i = 0; i <= at; i++) assert.equal(l!.role[i], ROLE.pinned, l!.insns[i]!.insn.text);
});

test('schedule reorders the body of a loop closed by s_setpc_b64; the result is equivalent and checks clean', async () => {
  const input = text(kernel('k', PC_LOOP));
  const r = await scheduleFile(loadText(input, 'pc.s'), input, { budget: 400, jobs: 1, cache: false, seed: 1 });
  assert.notEqual(r.text, input, 'the loop body is reordered');
  const lines = r.text.split('\n').map((x) => x.trim());
  // the s_getpc_b64 still takes the address of the loop's first instruction
  assert.equal(lines[lines.indexOf('s_getpc_b64 s[6:7]') + 1], 'loop_begin:');
  const out = loadText(r.text, 'out.s');
  assert.equal(checkLoaded(out).errors, 0);
  const v = verifyLoaded(loadText(input, 'pc.s'), out);
  assert.equal(v.equivalent, true, v.difference?.message);
  const k = r.kernels[0]!;
  assert.ok(k.after.est_cycles! < k.before.est_cycles!, `${k.before.est_cycles} -> ${k.after.est_cycles}`);
});
