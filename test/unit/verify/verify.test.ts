/**
 * verify on hand-written pairs (legal reorders accepted, each kind of illegal one rejected), and
 * the emitted text of a schedule: untouched lines byte-identical, moved lines with their
 * comments, macro invocations written out expanded, waits re-derived, verified equivalent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { verifyLoaded, formatVerify } from '../../../src/verify/verify.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, applyCommand, isFailure } from '../../../src/schedule/state.js';
import { parseCommand, type Command } from '../../../src/schedule/commands.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { reorderedText } from '../../../src/schedule/reorder.js';
import { DEFAULT_CHECKERS, type Checker } from '../../../src/check/checkers.js';
import { checkContexts } from '../../../src/check/check.js';
import { kernelContexts } from '../../../src/analysis/context.js';

const HEAD = '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n.text\n';
const load = (body: string[], name = 'a.s') => loadText(HEAD + body.join('\n') + '\n', name);
const verify = (a: string[], b: string[]) => verifyLoaded(load(a, 'orig.s'), load(b, 'sched.s'));

const ORIGINAL = [
  'k:',
  '  v_mov_b32 v1, 1',
  '  v_mov_b32 v2, 2',
  '  v_add_u32 v3, v1, v2',
  '  ds_write_b32 v0, v3',
  '  ds_write_b32 v0, v1 offset:4',
  '  v_mov_b32 v1, 7',
  '  s_waitcnt lgkmcnt(0)',
  '  s_barrier',
  '  ds_read_b32 v4, v0',
  '  v_mov_b32 v5, 5',
  '  s_waitcnt lgkmcnt(0)',
  '  v_add_u32 v6, v4, v5',
  '  s_endpgm',
];

function permute(lines: string[], ...swaps: [number, number][]): string[] {
  const out = lines.slice();
  for (const [a, b] of swaps) { const t = out[a]!; out[a] = out[b]!; out[b] = t; }
  return out;
}

test('verify: the summary counts kernels, instructions, memory pairs and pipelined loops in the singular and the plural', () => {
  const one = { equivalent: true, kernels: [{ name: 'k', instructions: 1, memoryPairs: 1, pipelinedLoops: 1 }] };
  assert.match(formatVerify(one, 'o.s', 's.s'), /^s\.s: equivalent to o\.s \(1 kernel; 1 movable instruction, each reading the same producers; 1 memory pair kept in order; 1 pipelined loop: /);
  const more = { equivalent: true, kernels: [{ name: 'k', instructions: 5, memoryPairs: 0, pipelinedLoops: 0 }, { name: 'j', instructions: 2, memoryPairs: 2, pipelinedLoops: 0 }] };
  assert.equal(formatVerify(more, 'o.s', 's.s'), 's.s: equivalent to o.s (2 kernels; 7 movable instructions, each reading the same producers; 2 memory pairs kept in order)');
});

test('verify: the identity and legal reorders are equivalent', () => {
  assert.equal(verify(ORIGINAL, ORIGINAL).equivalent, true);
  // v_mov_b32 v2 before v_mov_b32 v1
  const legal = permute(ORIGINAL, [1, 2]);
  const r = verify(ORIGINAL, legal);
  assert.equal(r.equivalent, true, r.difference?.message);
  // the two LDS writes to disjoint offsets of the same VGPR base: only under the per-lane model
  const lanes = permute(ORIGINAL, [1, 2], [4, 5]);
  assert.equal(verify(ORIGINAL, lanes).difference?.kind, 'memory-order');
  assert.equal(verifyLoaded(load(ORIGINAL, 'orig.s'), load(lanes, 'sched.s'), { disambiguate: 'per-lane' }).equivalent, true);
  assert.match(formatVerify(r, 'orig.s', 'sched.s'), /equivalent/);
  // waits may differ (they are re-derived): the second wait earlier, an extra nop
  const rewaited = permute(ORIGINAL, [10, 11]);
  rewaited.splice(3, 0, '  s_nop 1');
  assert.equal(verify(ORIGINAL, rewaited).equivalent, true, verify(ORIGINAL, rewaited).difference?.message);
});

test('verify rejects: RAW, WAR and WAW broken, with the lines in both files', () => {
  let r = verify(ORIGINAL, permute(ORIGINAL, [2, 3])); // v_add_u32 before v_mov_b32 v2
  assert.equal(r.equivalent, false);
  assert.equal(r.difference!.kind, 'reaching-definition');
  // in the source's terms: instructions as written, registers by name, never unit numbers
  assert.match(r.difference!.message, /^'v_add_u32 v3, v1, v2' \(orig\.s:6\) reads v2 from 'v_mov_b32 v2, 2' \(orig\.s:5\) in the original but from the value from before the region in the scheduled file \(sched\.s:5\)$/);
  assert.ok(r.difference!.original && r.difference!.scheduled);
  r = verify(ORIGINAL, permute(ORIGINAL, [5, 6])); // v_mov_b32 v1, 7 before ds_write ... v1
  assert.equal(r.difference!.kind, 'reaching-definition');
  assert.match(r.difference!.message, /ds_write_b32 .* reads v1/);
  const waw = ['k:', '  s_mov_b32 s1, 1', '  s_mov_b32 s1, 2', '  s_barrier', '  s_mov_b32 s2, s1', '  s_endpgm'];
  r = verify(waw, permute(waw, [1, 2]));
  assert.equal(r.difference!.kind, 'exit-definition');
  // a VGPR's second write keeps the lanes EXEC leaves out of the first: found at the write
  // a conditional move keeps its destination when SCC is 0: the write before it is read through it
  const cmov = ['k:', '  s_mov_b32 s5, 1', '  s_mov_b32 s5, 2', '  s_cmp_eq_u32 s0, 0', '  s_cmov_b32 s5, s6', '  s_barrier', '  s_mov_b32 s7, s5', '  s_endpgm'];
  r = verify(cmov, permute(cmov, [1, 2]));
  assert.equal(r.difference?.kind, 'reaching-definition');
  assert.match(r.difference!.message, /'s_cmov_b32 s5, s6' \(orig\.s:\d+\) reads s5 from 's_mov_b32 s5, 2'/);
  r = verify(waw, permute(waw, [1, 2]));
  const wawV = ['k:', '  v_mov_b32 v1, 1', '  v_mov_b32 v1, 2', '  s_endpgm'];
  assert.equal(verify(wawV, permute(wawV, [1, 2])).difference!.kind, 'reaching-definition');
  assert.match(formatVerify(r, 'orig.s', 'sched.s'), /NOT equivalent.*exit-definition.*\n {2}at orig\.s:\d+ vs sched\.s:\d+/);
});

test('verify: a scalar register written again before any read after the region may leave it with another last writer', () => {
  // two independent compares swapped: SCC's value leaving the region is written over before it is read
  const scc = ['k:', '  s_cmp_eq_u32 s0, 1', '  s_cmp_eq_u32 s1, 2', '  v_mov_b32 v1, 0', '  s_barrier', '.Lnext:', '  s_cmp_lg_u32 s2, 0',
    '  s_cbranch_scc1 .Lnext', '  s_endpgm'];
  const swapped = permute(scc, [1, 2]);
  assert.equal(verify(scc, swapped).equivalent, true, verify(scc, swapped).difference?.message);
  // ... and at the program's end (nothing reads registers after s_endpgm)
  const end = ['k:', '  s_mov_b32 s1, 1', '  s_mov_b32 s1, 2', '  s_endpgm'];
  assert.equal(verify(end, permute(end, [1, 2])).equivalent, true);
  // read after the region: the last writer counts
  const read = scc.map((l) => (l === '  s_cmp_lg_u32 s2, 0' ? '  s_cselect_b32 s3, 1, 0' : l));
  assert.equal(verify(read, permute(read, [1, 2])).difference?.kind, 'exit-definition');
  // the branch right after the region reads SCC
  const branch = ['k:', '  s_cmp_eq_u32 s0, 1', '  s_cmp_eq_u32 s1, 2', '  s_cbranch_scc1 .Lend', '  s_mov_b32 s4, 0', '.Lend:', '  s_endpgm'];
  assert.equal(verify(branch, permute(branch, [1, 2])).difference?.kind, 'exit-definition');
  // not followed past a branch, even one that does not read it
  const past = ['k:', '  s_mov_b32 s1, 1', '  s_mov_b32 s1, 2', '  s_cbranch_execz .Lend', '  s_mov_b32 s1, 3', '.Lend:', '  s_endpgm'];
  assert.equal(verify(past, permute(past, [1, 2])).difference?.kind, 'exit-definition');
  // nor past s_movrels / s_movreld (the SGPR M0 selects: s_movrels s8, s4 with M0 = 2 reads s6)
  const rel = ['k:', '  s_mov_b32 s6, 1', '  s_mov_b32 s6, 2', '  s_mov_b32 m0, 2', '  s_movrels_b32 s8, s4', '  s_mov_b32 s6, 3', '  s_endpgm'];
  assert.equal(verify(rel, permute(rel, [1, 2])).difference?.kind, 'exit-definition');
  // nor past a trap (its handler sees the registers)
  const trap = ['k:', '  s_mov_b32 s1, 1', '  s_mov_b32 s1, 2', '  s_trap 2', '  s_mov_b32 s1, 3', '  s_endpgm'];
  assert.equal(verify(trap, permute(trap, [1, 2])).difference?.kind, 'exit-definition');
  // nor past an anchor whose register lists do not hold all it does, nor on a vector instruction's
  // write (found by an adversarial trial: each was accepted with the first two writes swapped)
  const at = (arch: string, body: string[]) => loadText(`.amdgcn_target "amdgcn-amd-amdhsa--${arch}"\n.text\n` + body.join('\n') + '\n', 'x.s');
  const rejected = (arch: string, body: string[]) => verifyLoaded(at(arch, body), at(arch, permute(body, [1, 2])));
  const trials: [string, string, string[]][] = [
    // s_set_gpr_idx_mode writes M0[15:12] only
    ['gpr_idx_mode', 'gfx90a', ['k:', '  s_mov_b32 m0, s1', '  s_mov_b32 m0, s2', '  s_set_gpr_idx_mode gpr_idx(SRC0)', '  s_mov_b32 s3, m0', '  s_store_dword s3, s[4:5], 0', '  s_endpgm']],
    // with VSKIP on the v_cmp after it is not issued
    ['setvskip', 'gfx90a', ['k:', '  v_cmp_eq_u32 vcc, v0, v1', '  v_cmp_eq_u32 vcc, v0, v2', '  s_setvskip 1, 0', '  v_cmp_eq_u32 vcc, v3, v4', '  s_setvskip 0, 0',
      '  s_mov_b64 s[10:11], vcc', '  s_store_dwordx2 s[10:11], s[12:13], 0', '  s_endpgm']],
    ['setvskip on before', 'gfx90a', ['k:', '  s_mov_b64 vcc, s[2:3]', '  s_mov_b64 vcc, s[4:5]', '  s_barrier', '  v_cmp_eq_u32 vcc, v3, v4', '  s_mov_b64 s[10:11], vcc',
      '  s_store_dwordx2 s[10:11], s[12:13], 0', '  s_endpgm'].map((l, x) => (x === 0 ? 'k:\n  s_setvskip 1, 0' : l))],
    // s_getreg of STATUS reads SCC (bit 0) and VCCZ (bit 10)
    ['getreg scc', 'gfx942', ['k:', '  s_cmp_eq_u32 s0, 1', '  s_cmp_eq_u32 s1, 2', '  s_getreg_b32 s4, hwreg(HW_REG_STATUS, 0, 1)', '  s_cmp_eq_u32 s2, 3', '  s_store_dword s4, s[6:7], 0', '  s_endpgm']],
    ['getreg vccz', 'gfx942', ['k:', '  s_mov_b64 vcc, 0', '  s_mov_b64 vcc, s[8:9]', '  s_getreg_b32 s4, hwreg(HW_REG_STATUS, 10, 1)', '  s_mov_b64 vcc, -1', '  s_store_dword s4, s[6:7], 0', '  s_endpgm']],
    // v_interp_p2_f16 reads M0 (as every interpolation)
    ['interp', 'gfx906', ['k:', '  s_mov_b32 m0, s1', '  s_mov_b32 m0, s2', '  s_barrier', '  v_interp_p2_f16 v5, v2, attr1.x, v3', '  s_mov_b32 m0, -1', '  global_store_short v[8:9], v5, off', '  s_endpgm']],
  ];
  for (const [what, arch, body] of trials) assert.equal(rejected(arch, body).equivalent, false, what);
  // plain anchors are passed (s_setprio); an alignment is not: its padding is code (zeros, or the
  // fill it names: 0x00000000 is v_cndmask_b32 v0, s0, v0, vcc)
  const plain = ['k:', '  s_cmp_eq_u32 s0, 1', '  s_cmp_eq_u32 s1, 2', '  s_barrier', '  s_setprio 2', '.Lloop:', '  s_cmp_lg_u32 s2, 0', '  s_cbranch_scc1 .Lloop', '  s_endpgm'];
  assert.equal(verify(plain, permute(plain, [1, 2])).equivalent, true, verify(plain, permute(plain, [1, 2])).difference?.message);
  const fill = ['k:', '  s_mov_b64 vcc, s[2:3]', '  s_mov_b64 vcc, s[4:5]', '  .p2align 3, 0', '  s_mov_b64 vcc, 0', '  global_store_dword v[2:3], v0, off', '  s_endpgm'];
  assert.equal(verify(fill, permute(fill, [1, 2])).difference?.kind, 'exit-definition');
  // a scalar load's write lands when its data returns: a read before its wait sees the old value
  const load = ['k:', '  s_mov_b64 vcc, s[2:3]', '  s_mov_b64 vcc, s[4:5]', '  s_barrier', '  s_load_dwordx2 vcc, s[6:7], 0', '  v_cndmask_b32 v0, v1, v2, vcc',
    '  s_waitcnt lgkmcnt(0)', '  global_store_dword v[2:3], v0, off', '  s_endpgm'];
  assert.equal(verify(load, permute(load, [1, 2])).difference?.kind, 'exit-definition');
  // a vector register is not: its writes keep the lanes EXEC leaves out
  const vec = ['k:', '  v_mov_b32 v1, 1', '  v_mov_b32 v1, 2', '  s_endpgm'];
  assert.equal(verify(vec, permute(vec, [1, 2])).equivalent, false);
});

test('verify rejects: memory order, pinned instruction moved, region contents, completion before a barrier', () => {
  const mem = ['k:', '  ds_write_b32 v0, v3', '  ds_read_b32 v4, v0', '  s_endpgm'];
  let r = verify(mem, permute(mem, [1, 2]));
  assert.equal(r.difference!.kind, 'memory-order');
  assert.match(r.difference!.message, /may alias/);
  // disjoint offsets from the same VGPR base may reorder only under the per-lane model (lanes' addresses may meet)
  const disjoint = ['k:', '  ds_write_b32 v0, v3', '  ds_read_b32 v4, v0 offset:16', '  s_endpgm'];
  assert.equal(verify(disjoint, permute(disjoint, [1, 2])).difference?.kind, 'memory-order');
  assert.equal(verifyLoaded(load(disjoint, 'orig.s'), load(permute(disjoint, [1, 2]), 'sched.s'), { disambiguate: 'per-lane' }).equivalent, true);
  // a uniform base (buffer resource, no VGPR address) with disjoint offsets reorders by default
  const uniform = ['k:', '  buffer_store_dword v3, off, s[8:11], 0', '  buffer_load_dword v4, off, s[8:11], 0 offset:16', '  s_endpgm'];
  assert.equal(verify(uniform, permute(uniform, [1, 2])).equivalent, true, verify(uniform, permute(uniform, [1, 2])).difference?.message);
  // the barrier moved up past the ds_write / instruction moved across the barrier
  r = verify(ORIGINAL, permute(ORIGINAL, [8, 9]));
  assert.equal(r.equivalent, false);
  assert.ok(['anchor', 'region-contents'].includes(r.difference!.kind), r.difference!.kind);
  r = verify(ORIGINAL, permute(ORIGINAL, [6, 7], [7, 8])); // v_mov_b32 v1, 7 moved below the barrier
  assert.equal(r.difference!.kind, 'region-contents');
  assert.match(r.difference!.message, /v_mov_b32/);
  assert.match(r.difference!.message, /; an instruction moves only within its region, between the pinned instructions around it$/);
  const p = ['k:', '  s_setprio 3', '  v_mov_b32 v1, 1', '  s_endpgm'];
  r = verify(p, permute(p, [1, 2]));
  assert.equal(r.difference!.kind, 'region-contents');
  // a VGPR write keeps the lanes EXEC leaves out: two full writes of v0 swapped before a write under EXEC = 1
  const lanes = ['k:', '  s_mov_b64 s[10:11], exec', '  v_mov_b32 v0, 1', '  v_mov_b32 v0, 2', '  s_mov_b64 exec, 1', '  v_mov_b32 v0, 3',
    '  s_mov_b64 exec, s[10:11]', '  global_store_dword v1, v0, s[0:1]', '  s_endpgm'];
  r = verify(lanes, permute(lanes, [2, 3]));
  assert.equal(r.difference!.kind, 'reaching-definition');
  assert.match(r.difference!.message, /^'v_mov_b32 v0, 1' \(orig\.s:\d+\) writes v0 over the value from before the region in the original but over 'v_mov_b32 v0, 2' \(sched\.s:\d+\) in the scheduled file \(sched\.s:\d+\), whose lanes or half it does not write stay$/);
  // src_scc reads SCC, src_execz EXEC: moved across their writers
  const scc = ['k:', '  s_mov_b32 s2, src_scc', '  s_cmp_eq_u32 s3, s4', '  v_mov_b32 v0, s2', '  global_store_dword v1, v0, s[0:1]', '  s_endpgm'];
  assert.match(verify(scc, permute(scc, [1, 2])).difference!.message, /'s_mov_b32 s2, src_scc' .* reads scc from/);
  const execz = ['k:', '  s_mov_b32 s2, src_execz', '  s_mov_b64 exec, 0', '  s_endpgm'];
  assert.match(verify(execz, permute(execz, [1, 2])).difference!.message, /reads exec/);
  // v_mfma_ld_scale_b32 (the next MFMA's scales) and s_rfe_restore_b64 (a return) do not move
  const rfe = ['k:', '  s_mov_b32 s5, 1', '  s_rfe_restore_b64 s[0:1], s2', '  s_mov_b32 s6, 2', '  s_endpgm'];
  assert.equal(verify(rfe, permute(rfe, [2, 3])).equivalent, false);
  const scale = ['k:', '  v_mfma_ld_scale_b32 v20, v21', '  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]',
    '  v_mfma_f32_16x16x128_f8f6f4 v[24:27], v[4:11], v[12:19], v[24:27]', '  s_endpgm'];
  const load950 = (body: string[], name: string) => loadText('.amdgcn_target "amdgcn-amd-amdhsa--gfx950"\n.text\n' + body.join('\n') + '\n', name);
  assert.equal(verifyLoaded(load950(scale, 'orig.s'), load950(permute(scale, [1, 2]), 'sched.s')).equivalent, false);
  // a label a data table in .rodata names is a place code may jump to (s_setpc_b64 to a loaded address): nothing moves across it
  const table = ['k:', '  s_load_dwordx2 s[2:3], s[0:1], 0x0', '  s_waitcnt lgkmcnt(0)', '  s_setpc_b64 s[2:3]', '  v_mov_b32 v5, 7', '.Lentry:',
    '  v_mov_b32 v6, 8', '  global_store_dword v1, v5, s[0:1]', '  s_endpgm', '.section .rodata', '.p2align 3', 'jump_table:', '  .quad .Lentry'];
  assert.equal(verify(table, permute(table, [4, 5])).equivalent, false);
  // s_movreld writes the SGPR M0 selects (s12 here), not the one it names: nothing moves across it
  const rel = ['k:', '  s_mov_b32 m0, 2', '  s_mov_b32 s12, 5', '  s_movreld_b32 s10, s11', '  v_mov_b32 v1, s12', '  s_endpgm'];
  r = verify(rel, permute(rel, [3, 4]));
  assert.equal(r.difference!.kind, 'region-contents');
  assert.match(r.difference!.message, /v_mov_b32 v1, s12/);
  // a load to LDS (written when its data returns, counted by vmcnt) complete before an LDS read of the original, not in the scheduled file
  const dma = ['k:', '  s_mov_b32 m0, 0', '  v_lshlrev_b32 v2, 2, v0', '  buffer_load_dword v2, s[4:7], 0 offen lds', '  s_waitcnt vmcnt(0)',
    '  ds_read_b32 v0, v2', '  s_waitcnt lgkmcnt(0)', '  global_store_dword v2, v0, s[0:1]', '  s_endpgm'];
  r = verify(dma, ['k:', '  s_mov_b32 m0, 0', '  v_lshlrev_b32 v2, 2, v0', '  buffer_load_dword v2, s[4:7], 0 offen lds',
    '  ds_read_b32 v0, v2', '  s_waitcnt vmcnt(0) lgkmcnt(0)', '  global_store_dword v2, v0, s[0:1]', '  s_endpgm']);
  assert.equal(r.difference!.kind, 'completion');
  assert.match(r.difference!.message, /'buffer_load_dword v2, s\[4:7\], 0 offen lds' .*, which writes LDS in the background, is complete before 'ds_read_b32 v0, v2' in the original but not in the scheduled file/);
  assert.equal(verify(dma, dma).equivalent, true);
  // ds_bpermute / ds_swizzle access no LDS: they may pass the wait for a load to LDS
  const perm = ['k:', '  s_mov_b32 m0, 0', '  buffer_load_dword v2, s[4:7], 0 offen lds', '  s_waitcnt vmcnt(0)', '  ds_bpermute_b32 v3, v1, v5',
    '  ds_read_b32 v0, v2', '  s_waitcnt lgkmcnt(0)', '  s_endpgm'];
  assert.equal(verify(perm, permute(perm, [3, 4])).equivalent, true, verify(perm, permute(perm, [3, 4])).difference?.message);
  // the LDS write no longer complete at the barrier
  const fence = ['k:', '  ds_write_b32 v0, v3', '  v_mov_b32 v9, 0', '  s_waitcnt lgkmcnt(0)', '  s_barrier', '  s_endpgm'];
  r = verify(fence, ['k:', '  v_mov_b32 v9, 0', '  s_waitcnt lgkmcnt(0)', '  ds_write_b32 v0, v3', '  s_barrier', '  s_endpgm']);
  assert.equal(r.difference!.kind, 'completion');
  assert.match(r.difference!.message, /^'ds_write_b32 v0, v3' \(orig\.s:\d+\) is complete before 's_barrier' in the original but not in the scheduled file \(sched\.s:\d+\)$/);
});

test('verify rejects a fence wait moved after, or taken from before, the store it orders (a release), and accepts moves after it', () => {
  // the data store, the wait that completes it (a fence wait: the waitcnt analysis judges it one),
  // then the flag store that other waves read the data by
  const release = ['k:', '  v_mov_b32 v1, 1', '  global_store_dwordx4 v0, v[2:5], s[0:1]', '  s_waitcnt vmcnt(0)', '  v_mov_b32 v7, 2', '  global_store_dword v0, v1, s[2:3]', '  s_endpgm'];
  const message = /^'global_store_dwordx4 v0, v\[2:5\], s\[0:1\]' \(orig\.s:5\) is complete before 'global_store_dword v0, v1, s\[2:3\]' in the original, by the fence 's_waitcnt vmcnt\(0\)' \(orig\.s:6\), but not in the scheduled file \(sched\.s:\d+\)$/;
  for (const sched of [permute(release, [3, 4], [4, 5]), release.filter((l) => !l.includes('s_waitcnt'))]) {
    const r = verify(release, sched);
    assert.equal(r.difference?.kind, 'completion', sched.join('; '));
    assert.match(r.difference!.message, message);
  }
  // the flag store moved up past an instruction after the wait: still after it
  assert.equal(verify(release, permute(release, [4, 5])).equivalent, true, verify(release, permute(release, [4, 5])).difference?.message);
});

test('verify names what stands in the place of a changed instruction: the other file\'s extra instruction, where it is', () => {
  const a = ['k:', '  v_add_f32_e32 v0, v0, v2', '  v_mov_b32 v3, 1', '  v_add_f32_e32 v4, v4, v2', '  s_endpgm'];
  const b = a.map((l) => (l.includes('v4, v4') ? l.replace('v_add_f32', 'v_sub_f32') : l));
  const r = verify(a, b);
  assert.equal(r.difference?.kind, 'region-contents');
  assert.match(r.difference!.message, /'v_add_f32_e32 v4, v4, v2' appears more times in the original \(orig\.s:6\) than in the scheduled file \(absent\); the scheduled file has 'v_sub_f32_e32 v4, v4, v2' \(sched\.s:6\) more times than the original; an instruction moves only within its region/);
  assert.equal(r.difference!.scheduled?.line, 6);
});

test('verify rejects a scheduled file with a check error the original does not have', () => {
  const fake: Checker = { name: 'test-fake', description: 'flags v_mov_b32 v9', run: (ctx) => ctx.insns.flatMap((r, i) => (r.insn.text === 'v_mov_b32 v9, 0' && ctx.program.file === 'sched.s' ? [{ rule: 'fake', severity: 'error' as const, message: 'fake error', loc: r.insn.loc, insn: i, related: [] }] : [])) };
  const checkers = [...DEFAULT_CHECKERS, fake];
  const a = ['k:', '  v_mov_b32 v9, 0', '  s_endpgm'];
  const r = verifyLoaded(load(a, 'orig.s'), load(a, 'sched.s'), { checkers });
  assert.equal(r.difference!.kind, 'check');
  assert.match(r.difference!.message, /does not check clean: fake error/);
  // an error the original has too is not the schedule's doing
  const same = verifyLoaded(load(a, 'sched.s'), load(a, 'sched.s'), { checkers });
  assert.equal(same.equivalent, true);
  // without the fake checker the same files verify
  assert.equal(verify(a, a).equivalent, true);
});

test('a checker that throws stops the check with an error naming it', () => {
  const broken: Checker = { name: 'broken', description: 'always throws', run: () => { throw new Error('boom'); } };
  assert.throws(() => checkContexts(kernelContexts(load(['k:', '  s_endpgm'])), { checkers: [broken] }), /checker 'broken' failed on .*boom/);
});

const cmd = (t: string): Command => parseCommand(t) as Command;

test('emit: untouched lines byte-identical, moved lines keep their comments, waits re-derived', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
    '.text',
    'k:',
    '  s_load_dword s4, s[0:1], 0x0   ; kernel argument',
    '  ds_read_b32 v1, v0             // the first read',
    '  // comment about the second read',
    '  ds_read_b32 v2, v0 offset:4',
    '  s_waitcnt lgkmcnt(0)',
    '  v_add_u32 v3, v1, v2',
    '  s_barrier',
    '  v_mov_b32 v9, s4',
    '  s_endpgm',
    '',
  ].join('\r\n');
  const l = loadText(text, 'e.s');
  const k = pickKernel(l);
  const s = new ScheduleState(k);
  assert.ok(!isFailure(applyCommand(s, cmd('swap ds_read_b32_0 ds_read_b32_1'))));
  const stripped = reorderedText(s);
  assert.ok(stripped.includes('  // comment about the second read\r\n  ds_read_b32 v2, v0 offset:4\r\n  ds_read_b32 v1, v0             // the first read\r\n'), stripped);
  assert.ok(!stripped.includes('s_waitcnt lgkmcnt(0)\r\n  v_add'), 'the dependency wait is removed');
  const e = emitSchedule(s);
  assert.deepEqual(e.changedRegions, [0]);
  // lines outside the region are byte-identical, CRLF kept
  assert.ok(e.text.startsWith('.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\r\n.text\r\nk:\r\n  s_load_dword s4, s[0:1], 0x0   ; kernel argument\r\n'), e.text);
  assert.ok(e.text.endsWith('  s_barrier\r\n  v_mov_b32 v9, s4\r\n  s_endpgm\r\n'), e.text);
  assert.match(e.text, /ds_read_b32 v1, v0 {13}\/\/ the first read\r\n\s*s_waitcnt lgkmcnt\(0\)\r\n\s*v_add_u32 v3, v1, v2/);
  const v = verifyLoaded(l, loadText(e.text, 'e2.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
});

test('emit: a comment heading a block (; %bb.N:) stays at the block start when its first instruction moves', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
    '.text',
    'k:',
    '; %bb.0:',
    '  s_load_dword s4, s[0:1], 0x0',
    '  v_mov_b32 v1, 1',
    '  ; about the add',
    '  v_add_u32 v2, v0, v0',
    '  s_cbranch_scc1 .LBB0_2',
    '; %bb.1:                                ; %then',
    '  v_mov_b32 v3, 3',
    '  v_mov_b32 v4, 4',
    '.LBB0_2:',
    '  s_endpgm',
    '',
  ].join('\n');
  const l = loadText(text, 'b.s');
  const s = new ScheduleState(pickKernel(l));
  for (const c of ['move v_mov_b32_0 before s_load_dword_0', 'move v_add_u32_0 before v_mov_b32_0', 'swap v_mov_b32_1 v_mov_b32_2']) {
    assert.ok(!isFailure(applyCommand(s, cmd(c))), c);
  }
  const out = reorderedText(s);
  assert.ok(out.includes('k:\n; %bb.0:\n  ; about the add\n  v_add_u32 v2, v0, v0\n  v_mov_b32 v1, 1\n  s_load_dword s4, s[0:1], 0x0\n'), out);
  assert.ok(out.includes('  s_cbranch_scc1 .LBB0_2\n; %bb.1:                                ; %then\n  v_mov_b32 v4, 4\n  v_mov_b32 v3, 3\n'), out);
});

test('emit: a macro invocation whose expansion is reordered is written out expanded', () => {
  const text = HEAD + [
    '.macro PAIR a, b',
    '  v_mov_b32 v\\a, 1',
    '  v_mov_b32 v\\b, 2',
    '.endm',
    'k:',
    '  PAIR 1, 2',
    '  v_add_u32 v3, v1, v2',
    '  PAIR 5, 6',
    '  s_endpgm',
    '',
  ].join('\n');
  const l = loadText(text, 'm.s');
  const k = pickKernel(l);
  const s = new ScheduleState(k);
  assert.ok(!isFailure(applyCommand(s, cmd('swap v_mov_b32_0 v_mov_b32_1'))));
  const e = emitSchedule(s);
  assert.match(e.text, / {2}\/\/ expanded from: PAIR 1, 2\n {2}v_mov_b32 v2, 2\n {2}v_mov_b32 v1, 1\n {2}v_add_u32 v3, v1, v2\n {2}PAIR 5, 6\n/);
  const v = verifyLoaded(l, loadText(e.text, 'm2.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
});

test('emit: a call written out expanded keeps the \\@ numbering of later calls (no label defined twice), and verify matches the labels by name', () => {
  const text = HEAD + [
    '.macro skipif s, a, b',
    '  v_add_f32 v[\\a], v[\\a], v[\\b]',
    '  v_mul_f32 v[\\b+10], v[\\b], v[\\b]',
    '  s_cmp_lt_u32 s[\\s], 4',
    '  s_cbranch_scc1 L_skip_\\@',
    '  s_add_u32 s[\\s], s[\\s], 1',
    'L_skip_\\@:',
    '.endm',
    '.macro plain',
    '  v_mov_b32 v30, 0',
    '.endm',
    'k:',
    '  skipif 8, 1, 2',
    '  skipif 9, 3, 4',
    '  plain',
    '  s_endpgm',
    '',
  ].join('\n');
  const l = loadText(text, 'at.s');
  const s = new ScheduleState(pickKernel(l));
  assert.ok(!isFailure(applyCommand(s, cmd('swap v_add_f32_0 v_mul_f32_0'))));
  const e = emitSchedule(s);
  // one instantiation written out, counted by one call of an empty macro
  assert.match(e.text, /\n {2}L_skip_0:\n {2}\/\/ 1 macro call written out above[^\n]*\n {2}\.macro conductor_macro_count\n {2}\.endm\n {2}conductor_macro_count\n {2}\.purgem conductor_macro_count\n {2}skipif 9, 3, 4\n/);
  const out = loadText(e.text, 'at2.s');
  assert.deepEqual(out.program.statements.filter((x) => x.kind === 'label').map((x) => x.name), ['k', 'L_skip_0', 'L_skip_1']);
  const v = verifyLoaded(l, out);
  assert.equal(v.equivalent, true, v.difference?.message);
  // without the count the later call makes L_skip_0 again
  const bare = e.text.replace(/ {2}\/\/ 1 macro call[^\n]*\n {2}\.macro conductor_macro_count\n {2}\.endm\n {2}conductor_macro_count\n {2}\.purgem conductor_macro_count\n/, '');
  assert.notEqual(bare, e.text);
  assert.throws(() => loadText(bare, 'at3.s'), /symbol 'L_skip_0' is already defined/);
  // a branch to the wrong one of the two labels is still told apart
  const wrong = e.text.replace('s_cbranch_scc1 L_skip_0', 's_cbranch_scc1 L_skip_1');
  assert.equal(verifyLoaded(l, loadText(wrong, 'at4.s')).equivalent, false);
});

test('verify: a label a macro makes with its \\@ counter, numbered anew after a call written out expanded, is the same label; a branch to another label is not', () => {
  const body = (target: string) => ['k:', '  s_cmp_lt_u32 s8, 4', `  s_cbranch_scc1 ${target}`, '  s_add_u32 s8, s8, 1', 'L_skip:', '  s_nop 0', 'L_end:', '  s_endpgm'];
  const other = verify(body('L_skip'), body('L_end'));
  assert.equal(other.equivalent, false);
  assert.equal(other.difference?.kind, 'anchor');
  // a label the scheduled file adds (or lacks) is named as added (lacking), not as another anchor out of place
  const added = verify(body('L_skip'), [...body('L_skip').slice(0, 4), 'L_new:', ...body('L_skip').slice(4)]);
  assert.match(added.difference!.message, /^the scheduled file adds label L_new \(sched\.s:7\), which the original does not have$/);
  const lacks = verify([...body('L_skip').slice(0, 4), 'L_new:', ...body('L_skip').slice(4)], body('L_skip'));
  assert.match(lacks.difference!.message, /^the scheduled file lacks label L_new \(orig\.s:7\)$/);
  // the scheduled file has the .rept's calls written out expanded, so the label the last call makes is numbered anew
  for (const name of ['skipif', '.skipif']) { // a macro's name may start with a dot (MIOpen's generated kernels)
    const macro = [`.macro ${name} s`, '  s_cmp_lt_u32 s[\\s], 4', '  s_cbranch_scc1 L_skip_\\@', '  s_add_u32 s[\\s], s[\\s], 1', 'L_skip_\\@:', '.endm',
      '.macro two', '  v_mov_b32 v1, 1', '.endm'];
    const orig = [...macro, 'k:', '  .rept 2', '  two', '  .endr', `  ${name} 8`, '  s_endpgm'];
    const sched = [...macro, 'k:', '  v_mov_b32 v1, 1', '  v_mov_b32 v1, 1', `  ${name} 8`, '  s_endpgm'];
    assert.equal(verify(orig, sched).equivalent, true, name);
  }
});
