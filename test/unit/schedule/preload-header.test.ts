/**
 * The kernel-argument preload header (isa/descriptor.ts preloadHeaderLength): a kernel that
 * preloads arguments starts with 256 bytes firmware that preloads skips; LLVM 18 wrote them as
 * 64 `s_nop 0`, LLVM 20+ as a prologue of loads closed by `s_branch`. They are pinned (never
 * stripped as hazard padding, never reordered), and verify rejects a file whose header changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { pickKernel, ROLE } from '../../../src/schedule/kernel.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { applyRounds } from '../../../src/schedule/session.js';
import { parseCommandArgs } from '../../../src/schedule/commands.js';

/**
 * A kernel `k` that starts with `header` (the preload header's instructions, as written), then a
 * small body; its descriptor preloads `preload` argument SGPRs, of `sgprs` user SGPRs.
 */
const withHeader = (header: string[], preload: number, sgprs: number, nextFreeSgpr: number) => [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
  ...header,
  '  v_lshlrev_b32_e32 v1, 2, v0',
  '  global_load_dword v2, v1, s[2:3]',
  '  v_add_u32_e32 v3, 1, v0',
  '  v_add_u32_e32 v4, 2, v0',
  '  s_waitcnt vmcnt(0)',
  '  v_add_u32_e32 v2, v2, v3',
  '  global_store_dword v1, v2, s[4:5]',
  '  s_endpgm',
  '.rodata', '.p2align 6', '.amdhsa_kernel k',
  `  .amdhsa_user_sgpr_count ${sgprs}`, '  .amdhsa_user_sgpr_kernarg_segment_ptr 1',
  `  .amdhsa_user_sgpr_kernarg_preload_length ${preload}`,
  '  .amdhsa_next_free_vgpr 8', `  .amdhsa_next_free_sgpr ${nextFreeSgpr}`, '  .amdhsa_accum_offset 8',
  '.end_amdhsa_kernel', '',
].join('\n');

/** LLVM 18's header: 64 `s_nop 0`. */
const kernel = (preload: number) => withHeader(new Array<string>(64).fill('  s_nop 0'), preload, 6, 8);

test('the 64 s_nop 0 of a preloading kernel are pinned; without preload they are padding the schedule may drop', () => {
  const k = pickKernel(loadText(kernel(4), 'p.s'));
  for (let i = 0; i < 64; i++) assert.equal(k.role[i], ROLE.pinned, `s_nop ${i}`);
  assert.match(k.pinReason[0]!, /preload header/);
  assert.equal(k.role[64], ROLE.movable);
  const plain = pickKernel(loadText(kernel(0), 'q.s'));
  assert.notEqual(plain.role[0], ROLE.pinned);
});

test('a move in the code after the header writes the header as it was; verify rejects a header that changed', () => {
  const text = kernel(4);
  const r = applyRounds(loadText(text, 'p.s'), parseCommandArgs(['swap v_add_u32_e32_0 v_add_u32_e32_1']));
  assert.equal(r.failed, null);
  assert.equal((r.text.match(/^ {2}s_nop 0$/gm) ?? []).length, 64);
  assert.ok(r.text.indexOf('v_add_u32_e32 v4, 2, v0') < r.text.indexOf('v_add_u32_e32 v3, 1, v0'));
  assert.equal(verifyLoaded(loadText(text, 'p.s'), loadText(r.text, 'o.s')).equivalent, true);
  const shorter = text.replace('  s_nop 0\n', '');
  const v = verifyLoaded(loadText(text, 'p.s'), loadText(shorter, 's.s'));
  assert.equal(v.equivalent, false);
  assert.equal(v.difference?.kind, 'preload-header');
  assert.match(v.difference?.message ?? '', /starts with 64 s_nop .* with 63$/);
});

/** A preloading kernel as llc 22 writes it (AMDGPUPreloadKernArgProlog): the loads older firmware needs, then a branch to byte 256. */
const prologue = (preload: number) => withHeader([
  '  s_load_dwordx2 s[2:3], s[0:1], 0x0',
  '  s_load_dwordx8 s[4:11], s[0:1], 0x8',
  '  s_load_dwordx4 s[12:15], s[0:1], 0x28',
  '  s_waitcnt lgkmcnt(0)',
  '  s_branch .LBB0_0',
  '  .p2align 8',
  '.LBB0_0:',
], preload, 16, 17);

test('the prologue llc 22 writes for a preloading kernel (loads, s_waitcnt, s_branch) is pinned: the firmware that preloads never runs it; without preload its loads move', () => {
  const k = pickKernel(loadText(prologue(14), 'p.s'));
  for (let i = 0; i < 5; i++) assert.equal(k.role[i], ROLE.pinned, `prologue instruction ${i}`);
  assert.match(k.pinReason[1]!, /preload header/);
  assert.notEqual(k.role[5], ROLE.pinned);
  const plain = pickKernel(loadText(prologue(0), 'q.s'));
  assert.notEqual(plain.role[1], ROLE.pinned);
  // a swap of two of its loads is refused; verify names a prologue that changed
  const r = applyRounds(loadText(prologue(14), 'p.s'), parseCommandArgs(['swap s_load_dwordx8_0 s_load_dwordx4_0']));
  assert.equal(r.failed?.kind, 'pinned');
  assert.match(r.failed?.reason ?? '', /preload header/);
  const text = prologue(14);
  const swapped = text.replace('  s_load_dwordx8 s[4:11], s[0:1], 0x8\n  s_load_dwordx4 s[12:15], s[0:1], 0x28', '  s_load_dwordx4 s[12:15], s[0:1], 0x28\n  s_load_dwordx8 s[4:11], s[0:1], 0x8');
  const v = verifyLoaded(loadText(text, 'p.s'), loadText(swapped, 's.s'));
  assert.equal(v.difference?.kind, 'preload-header');
  assert.match(v.difference?.message ?? '', /starts with a prologue of 5 instructions \(s_load_dwordx2/);
});
