/**
 * schedule's loops are reported at the input's lines (LoopChange.line, PipelinedLoop.line): also
 * when the fix inserted lines before them, and for a kernel after one the schedule changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { lineBefore } from '../../../src/check/line-diff.js';

const loop = (l: string) => [`${l}:`, '  global_load_dword v2, v0, s[4:5]', '  v_mul_lo_u32 v3, v0, v0', '  s_waitcnt vmcnt(0)', '  v_add_u32 v4, v2, v3',
  '  global_store_dword v0, v4, s[4:5]', '  s_sub_u32 s7, s7, 1', '  s_cmp_lg_u32 s7, 0', `  s_cbranch_scc1 ${l}`, '  s_endpgm'];
const head = (name: string) => ['.globl ' + name, '.p2align 8', `.type ${name},@function`, `${name}:`];
const descriptor = (name: string) => [`.amdhsa_kernel ${name}`, '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 8', '.end_amdhsa_kernel'];
// kernel a: v_readfirstlane reads v1 a VALU wrote just before (gfx942 wants 1 wait state), fixed by an s_nop above its loop
const TEXT = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text',
  ...head('a'), '  s_load_dwordx2 s[4:5], s[0:1], 0x0', '  v_add_u32 v1, v0, v0', '  v_readfirstlane_b32 s6, v1', '  s_mov_b32 s7, 8', '  s_waitcnt lgkmcnt(0)', ...loop('.La_loop'),
  ...head('b'), '  s_load_dwordx2 s[4:5], s[0:1], 0x0', '  s_mov_b32 s7, 8', '  s_waitcnt lgkmcnt(0)', ...loop('.Lb_loop'),
  '.rodata', '.p2align 6', ...descriptor('a'), ...descriptor('b'), ''].join('\n');
const lines = TEXT.split('\n');
const at = (s: string) => lines.indexOf(s) + 1;

test('loops at the lines of the input: after the fix inserted an s_nop, and in the kernel after a changed one', async () => {
  const r = await scheduleFile(loadText(TEXT, 'loops.s'), TEXT, { budget: 20, jobs: 1, cache: false, seed: 1 });
  assert.deepEqual(r.kernels.map((k) => k.kernel), ['a', 'b']);
  assert.ok(r.notes.some((n) => /inserted 1 s_nop/.test(n)), r.notes.join('\n'));
  assert.notEqual(r.text.split('\n').indexOf('.Lb_loop:') + 1, at('.Lb_loop:'), 'kernel a changed: b moved in the output');
  const want = [
    { line: at('.La_loop:') + 1, back: lines.indexOf('  s_cbranch_scc1 .La_loop') + 1 },
    { line: at('.Lb_loop:') + 1, back: lines.indexOf('  s_cbranch_scc1 .Lb_loop') + 1 },
  ];
  for (const [x, k] of r.kernels.entries()) {
    assert.equal(k.loops.length, 1);
    assert.equal(k.loops[0]!.line, want[x]!.line, `kernel ${k.kernel}: the loop's first instruction in the input`);
    assert.deepEqual(k.loops[0]!.backEdgeLines, [want[x]!.back], `kernel ${k.kernel}: its back edge in the input`);
    for (const p of k.pipelined ?? []) assert.equal(p.line, want[x]!.line, `kernel ${k.kernel}: pipelined loop`);
  }
});

test('lineBefore: lines after an insertion move back, inserted lines go to the line they precede, rewritten ones to theirs', () => {
  // a: x y z w -> b: x N y z2 w (N inserted before y, z rewritten)
  const hunks = [{ a0: 1, a1: 1, b0: 1, b1: 2 }, { a0: 2, a1: 3, b0: 3, b1: 4 }];
  assert.deepEqual([1, 2, 3, 4, 5].map((l) => lineBefore(hunks, l)), [1, 2, 2, 3, 4]);
});
