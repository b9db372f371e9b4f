/** schedule of a file with a kernel whose error no s_nop or s_waitcnt fixes: the other kernels are scheduled. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { ConductorError } from '../../../src/errors.js';

const kernel = (name: string, body: string[]) => ['.globl ' + name, '.p2align 8', `.type ${name},@function`, `${name}:`, ...body.map((l) => `  ${l}`), '  s_endpgm'];
const descriptor = (name: string, vgprs: number) => [`.amdhsa_kernel ${name}`, `  .amdhsa_next_free_vgpr ${vgprs}`, '  .amdhsa_next_free_sgpr 8', '.end_amdhsa_kernel'];
// kernel a names v60 with next_free_vgpr 58 (gfx906 allocates 60): an error only a new descriptor fixes
const TEXT = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx906"', '.text',
  ...kernel('a', ['v_mov_b32 v1, 1', 'v_add_u32 v2, v3, v4', 'v_mov_b32 v60, 0']),
  ...kernel('b', ['v_mov_b32 v1, 1', 'v_add_u32 v2, v3, v4', 'v_mul_lo_u32 v5, v6, v7']),
  '.rodata', '.p2align 6', ...descriptor('a', 58), ...descriptor('b', 8), ''].join('\n');
const opts = { budget: 20, jobs: 1, cache: false, seed: 1 } as const;

test('without --kernel: the kernel with an unfixable error is left as written, with a note; the others are scheduled', async () => {
  const r = await scheduleFile(loadText(TEXT, 'two.s'), TEXT, opts);
  assert.deepEqual(r.kernels.map((k) => k.kernel), ['b']);
  assert.ok(r.notes.some((n) => /^kernel a not scheduled: 1 check error that need a change other than s_nop or s_waitcnt, the first at line \d+: .*the highest register used is v60,.*\[descriptor-registers\]/.test(n)), r.notes.join('\n'));
  assert.ok(!r.notes.some((n) => n.startsWith('left as written (not asked for)')), 'a is not "not asked for"');
  const lines = TEXT.split('\n');
  const out = r.text.split('\n');
  assert.deepEqual(out.slice(0, 10), lines.slice(0, 10), 'kernel a as written');
});

test('a kernel named with --kernel, or a file with no kernel left, is bad input naming the error', async () => {
  await assert.rejects(scheduleFile(loadText(TEXT, 'two.s'), TEXT, { ...opts, kernel: 'a', kernels: ['a'] }), (e: unknown) => e instanceof ConductorError && /cannot fix: .*the highest register used is v60,/.test(e.message));
  const only = TEXT.replace(/\.globl b[\s\S]*?s_endpgm\n/, '').replace(/\.amdhsa_kernel b[\s\S]*?\.end_amdhsa_kernel\n/, '');
  await assert.rejects(scheduleFile(loadText(only, 'one.s'), only, opts), (e: unknown) => e instanceof ConductorError && /cannot schedule: .*the highest register used is v60,/.test(e.message));
});
