/**
 * Waitcnt dependencies on straight-line snippets (the simple cases are in
 * test/fixtures/waitcnt/dependencies.s). Expected values are worked out by hand from
 * LLVM SIInsertWaitcnts and the AMD CDNA3 ISA §4.4 and §10.2.2 (in-order return per type; SMEM out of order; FLAT
 * only 0; vmcnt(N) lets the N youngest operations stay outstanding).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, ctxOf, errors, summary } from './helpers.js';
import { checkWaitcnt, minimalWaits } from '../../../src/waitcnt/index.js';

test('load then use: missing vmcnt(0), with the producer and the register', () => {
  const fs = check([
    'global_load_dword v1, v[2:3], off',
    'v_add_f32 v0, v1, v1',
  ]);
  assert.deepEqual(summary(fs), ['2 waitcnt-missing vmcnt=0']);
  const f = fs[0]!;
  assert.equal(f.severity, 'error');
  assert.equal(f.required, 0);
  assert.equal(f.actual, 63, 'no wait present: the counter maximum');
  assert.match(f.message, /v_add_f32 reads v1 loaded by global_load_dword \(line 1\)/);
  assert.equal(f.related[0]!.loc.line, 1);
  assert.deepEqual(f.fix, { kind: 'waitcnt', before: 1, vmcnt: 0 });
});

test('SMEM is out of order: lgkmcnt(0) even for the oldest of several', () => {
  const fs = check([
    's_load_dword s4, s[0:1], 0x0',
    's_load_dwordx2 s[6:7], s[0:1], 0x8',
    's_load_dword s8, s[0:1], 0x10',
    's_add_u32 s9, s4, 1',
  ]);
  assert.deepEqual(summary(fs), ['4 waitcnt-missing lgkmcnt=0']);
  assert.match(fs[0]!.message, /SMEM results return out of order/);
  // lgkmcnt(2) does not cover an SMEM result
  assert.deepEqual(summary(check([
    's_load_dword s4, s[0:1], 0x0',
    's_load_dword s8, s[0:1], 0x10',
    's_waitcnt lgkmcnt(1)',
    's_add_u32 s9, s4, 1',
  ])), ['4 waitcnt-missing lgkmcnt=0']);
});

test('mixed SMEM and LDS on lgkmcnt: an LDS result needs only its younger LDS count, an SMEM result 0', () => {
  const lines = [
    'ds_read_b32 v1, v0',
    's_load_dword s4, s[0:1], 0x0',
    'ds_read_b32 v2, v0 offset:4',
  ];
  // v1 has one younger LDS read: lgkmcnt(1) leaves at most one operation outstanding, and the
  // younger LDS read completes after v1's (per-type order; LLVM would wait lgkmcnt(0) here)
  assert.deepEqual(summary(check([...lines, 'v_mov_b32 v3, v1'])), ['4 waitcnt-missing lgkmcnt=1']);
  assert.deepEqual(summary(check([...lines, 'v_mov_b32 v3, v2'])), ['4 waitcnt-missing lgkmcnt=0']);
  assert.deepEqual(summary(check([...lines, 's_mov_b32 s5, s4'])), ['4 waitcnt-missing lgkmcnt=0']);
  // an lgkmcnt(1) present does not complete the SMEM load
  assert.deepEqual(summary(check([...lines, 's_waitcnt lgkmcnt(1)', 's_mov_b32 s5, s4'])), ['5 waitcnt-missing lgkmcnt=0']);
  // LLVM's rule as an option: any mix of types on the counter forces 0
  assert.deepEqual(summary(checkWaitcnt(ctxOf([...lines, 'v_mov_b32 v3, v1']), { mixed: 'force-zero' })), ['4 waitcnt-missing lgkmcnt=0']);
  // without the SMEM load, LDS alone: lgkmcnt(1) either way
  assert.deepEqual(summary(checkWaitcnt(ctxOf(['ds_read_b32 v1, v0', 'ds_read_b32 v2, v0 offset:4', 'v_mov_b32 v3, v1']), { mixed: 'force-zero' })), ['3 waitcnt-missing lgkmcnt=1']);
});

test('WAW: overwriting a pending load destination waits, except a VMEM load over a VMEM load (and LDS over LDS, below)', () => {
  assert.deepEqual(summary(check([
    'global_load_dword v1, v[2:3], off',
    'global_load_dword v4, v[2:3], off',
    'v_mov_b32 v1, 0',
  ])), ['3 waitcnt-missing vmcnt=1']);
  assert.match(check(['global_load_dword v1, v[2:3], off', 'v_mov_b32 v1, 0'])[0]!.message, /overwrites v1 while global_load_dword \(line 1\) may still write it/);
  // VMEM writes VGPRs in issue order: no wait between two loads of the same register
  assert.deepEqual(check([
    'global_load_dword v1, v[2:3], off',
    'buffer_load_dword v1, v4, s[8:11], 0 offen',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
  ]), []);
  // a DS load over a pending VMEM load does wait
  assert.deepEqual(summary(check([
    'global_load_dword v1, v[2:3], off',
    'ds_read_b32 v1, v0',
  ])), ['2 waitcnt-missing vmcnt=0']);
  // SMEM over SMEM (out of order) waits
  assert.deepEqual(summary(check([
    's_load_dword s4, s[0:1], 0x0',
    's_load_dword s4, s[0:1], 0x4',
  ])), ['2 waitcnt-missing lgkmcnt=0']);
});

test('an LDS load over a pending LDS load of the same registers needs no wait (LDS returns in order); over FLAT or VMEM it waits', () => {
  // two buffers read into one set of registers (HipKittens' gfx950 attention kernel): the younger read's data lands last
  const twoReads = ['ds_read_b128 v[4:7], v0', 'ds_read_b128 v[4:7], v1 offset:2048', 's_waitcnt lgkmcnt(0)', 'v_add_f32 v8, v4, v5'];
  assert.deepEqual(check(twoReads), []);
  assert.deepEqual(minimalWaits(ctxOf(twoReads.filter((l) => !l.startsWith('s_waitcnt')))), [{ before: 2, lgkmcnt: 0 }], 'only the read (index 2) waits');
  // with an SMEM load in flight between them the LDS order still holds (its own class)
  assert.deepEqual(check(['ds_read_b32 v4, v0', 's_load_dword s4, s[0:1], 0x0', 'ds_read_b32 v4, v0 offset:4', 's_waitcnt lgkmcnt(0)', 'v_add_u32 v5, s4, v4']), []);
  // FLAT may be LDS or memory, in no order with LDS: waits
  assert.deepEqual(summary(check(['flat_load_dword v4, v[2:3]', 'ds_read_b32 v4, v0'])), ['2 waitcnt-missing vmcnt=0', '2 waitcnt-missing lgkmcnt=0']);
  // a VALU overwrite of a pending LDS load still waits
  assert.deepEqual(summary(check(['ds_read_b32 v4, v0', 'v_mov_b32 v4, 0'])), ['2 waitcnt-missing lgkmcnt=0']);
});

test('a d16 load over a pending VMEM load of the same register needs no wait (in-order VGPR writes)', () => {
  assert.deepEqual(check([
    'global_load_ushort v1, v[2:3], off',
    'global_load_short_d16_hi v1, v[2:3], off offset:2',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
  ]), []);
});

test('atomic with return writes its destination; without return it is a store', () => {
  assert.deepEqual(summary(check([
    'global_atomic_add v1, v[2:3], v4, off sc0',
    'v_mov_b32 v0, v1',
  ])), ['2 waitcnt-missing vmcnt=0']);
  assert.deepEqual(check([
    'global_atomic_add v[2:3], v4, off',
    'v_mov_b32 v0, v4',
  ]), []);
});

test('LDS-DMA: an LDS access may need the DMA on vmcnt: a warning (the LDS ranges are not in the assembly), once per DMA', () => {
  const fs = check([
    'global_load_lds_dword v[2:3], off',
    'global_load_dword v9, v[2:3], off',
    'ds_read_b32 v1, v0',
    'ds_read_b32 v4, v0 offset:64',
  ]);
  assert.deepEqual(summary(fs), ['3 waitcnt-missing vmcnt=1']);
  assert.equal(fs[0]!.severity, 'warning');
  assert.match(fs[0]!.message, /accesses LDS while global_load_lds_dword \(line 1\) \(LDS-DMA\) may still be writing LDS: needs vmcnt\(1\).*only if the two LDS ranges overlap/);
  // the scheduler's minimal waits keep LLVM's safe value
  assert.deepEqual(minimalWaits(ctxOf([
    'global_load_lds_dword v[2:3], off',
    'ds_read_b32 v1, v0',
  ])), [{ before: 1, vmcnt: 0 }]);
});

test('LDS-DMA: a lane exchange (ds_bpermute/ds_permute/ds_swizzle) accesses no LDS memory: no warning, no wait', () => {
  // Triton's gfx950 MXFP4 GEMM: a ds_bpermute_b32 right after a buffer_load ... lds, no vmcnt wait
  // (LLVM DSInstructions.td: DS_1A1D_PERMUTE and DS_SWIZZLE_B32 have mayLoad = 0, mayStore = 0)
  const lines = [
    'buffer_load_dwordx4 v18, s[8:11], 0 offen lds',
    'ds_bpermute_b32 v24, v17, v10',
    'ds_permute_b32 v25, v17, v10',
    'ds_swizzle_b32 v26, v10 offset:swizzle(SWAP,16)',
    's_waitcnt lgkmcnt(0)',
    'v_add_u32_e32 v1, v24, v25',
    'v_add_u32_e32 v1, v1, v26',
  ];
  assert.deepEqual(check(lines, 'gfx950'), []);
  // the scheduler's minimal waits: lgkmcnt for the exchanged values, no vmcnt for the DMA
  const bare = lines.filter((l) => !l.startsWith('s_waitcnt'));
  assert.deepEqual(minimalWaits(ctxOf(bare, 'gfx950')), [{ before: 4, lgkmcnt: 1 }, { before: 5, lgkmcnt: 0 }]);
  // an LDS read in the same place is still warned about
  assert.deepEqual(summary(check([lines[0]!, 'ds_read_b32 v24, v17', 's_waitcnt lgkmcnt(0)', 'v_mov_b32 v1, v24'], 'gfx950')), ['2 waitcnt-missing vmcnt=0']);
});

test('LDS-DMA: the warning hides no error: a read of a load on the same instruction, or of an older load later', () => {
  // v9's load is older than the DMA: its read at line 3 is an error beside the LDS-DMA warning
  const same = check([
    'global_load_dword v9, v[2:3], off',
    'global_load_lds_dword v[2:3], off',
    'ds_write_b32 v0, v9',
  ]);
  assert.deepEqual(same.map((f) => `${f.loc.line} ${f.severity} ${f.fix?.kind === 'waitcnt' ? f.fix.vmcnt : ''}`), ['3 error 1', '3 warning 0']);
  // the DMA's warning does not count v9's load complete: its later read is still an error
  const later = check([
    'global_load_dword v9, v[2:3], off',
    'global_load_lds_dword v[2:3], off',
    'ds_read_b32 v1, v0',
    'global_load_dword v10, v[2:3], off',
    'v_mov_b32 v5, v9',
  ]);
  assert.deepEqual(later.map((f) => `${f.loc.line} ${f.severity}`), ['3 warning', '5 error']);
  assert.deepEqual(errors(later).map((f) => f.fix), [{ kind: 'waitcnt', before: 4, vmcnt: 2 }]);
});

test('LDS-DMA: the waits LLVM put in front of later LDS accesses are not judged stronger than needed (it knew the LDS ranges)', () => {
  // LLVM's gfx950 output (an MXFP8 GEMM, clang-22): no wait before the first read (a range it
  // proved disjoint), vmcnt(1) and vmcnt(0) before the next ones; nothing in the registers needs them
  const lines = [
    'global_load_lds_dwordx4 v[14:15], off',
    'global_load_lds_dwordx4 v[18:19], off',
    'global_load_lds_dwordx4 v[2:3], off',
    'ds_read_b128 v[32:35], v19 offset:4096',
    's_waitcnt vmcnt(1)',
    'ds_read_b128 v[28:31], v18',
    's_waitcnt vmcnt(0)',
    'ds_read_b128 v[36:39], v18 offset:16384',
    's_waitcnt vmcnt(0)',
    'ds_read_b128 v[40:43], v18 offset:64',
  ];
  const fs = check(lines, 'gfx950');
  // the warning at the first read; the last wait completes nothing (nothing is pending): redundant
  assert.deepEqual(fs.map((f) => `${f.loc.line} ${f.rule} ${f.severity}`), ['4 waitcnt-missing warning', '9 waitcnt-redundant warning']);
  // without a DMA pending the same waits are notes
  const plain = check(['global_load_dword v9, v[2:3], off', ...lines.slice(3)], 'gfx950');
  assert.ok(plain.some((f) => f.loc.line === 5 && f.rule === 'waitcnt-too-strong'), plain.map((f) => `${f.loc.line} ${f.rule}`).join(', '));
});

test('expcnt (gfx908): a GDS operation holds its source VGPRs until expcnt', () => {
  const fs = check([
    's_mov_b32 m0, 0',
    'ds_add_u32 v0, v1 gds',
    'v_mov_b32 v1, 0',
  ], 'gfx908');
  assert.deepEqual(summary(fs), ['3 waitcnt-missing expcnt=0']);
  assert.match(fs[0]!.message, /overwrites v1 while ds_add_u32 \(line 2\) may still be reading it/);
  // reading the source is fine
  assert.deepEqual(check(['s_mov_b32 m0, 0', 'ds_add_u32 v0, v1 gds', 'v_mov_b32 v2, v1'], 'gfx908'), []);
});

test('counter width: more younger operations than the counter holds is a warning naming both models; the fix waits max-1', () => {
  const reads = Array.from({ length: 17 }, (_, k) => `ds_read_b32 v${10 + k}, v0 offset:${4 * k}`);
  for (const arch of ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950']) {
    const fs = check([...reads, 'v_mov_b32 v1, v10'], arch);
    assert.deepEqual(summary(fs), ['18 waitcnt-missing lgkmcnt=14'], arch);
    assert.equal(fs[0]!.severity, 'warning', arch);
    assert.match(fs[0]!.message, /16 later LDS operations count on lgkmcnt, more than its maximum 15: .*issue holds.*LLVM waits lgkmcnt\(14\) where it counts them in straight-line code, but omits the wait when they are counted across a loop.s back edge/);
    assert.match(fs[0]!.source ?? '', /determineWait/);
    // lgkmcnt(15) as written waits for nothing: the same warning (Tensile's form)
    const t = check([...reads, 's_waitcnt lgkmcnt(15)', 'v_mov_b32 v1, v10'], arch);
    assert.deepEqual(summary(t), ['19 waitcnt-missing lgkmcnt=14'], arch);
    assert.equal(t[0]!.severity, 'warning', arch);
    // one operation fewer than the maximum after the producer: an error, as before
    const e = check([...reads.slice(0, 15), 'v_mov_b32 v1, v10'], arch);
    assert.deepEqual(summary(e), ['16 waitcnt-missing lgkmcnt=14'], arch);
    assert.equal(e[0]!.severity, 'error', arch);
  }
  const vm = Array.from({ length: 70 }, (_, k) => `global_load_dword v${10 + k}, v[2:3], off offset:${4 * k}`);
  const v = check([...vm, 'v_mov_b32 v1, v10']);
  assert.deepEqual(summary(v), ['71 waitcnt-missing vmcnt=62']);
  assert.equal(v[0]!.severity, 'warning');
  // out of order (scalar memory): no such reasoning, still an error
  const sm = Array.from({ length: 17 }, (_, k) => `s_load_dword s${10 + k}, s[0:1], 0x${(4 * k).toString(16)}`);
  const s = check([...sm, 's_mov_b32 s2, s10']);
  assert.ok(s.length > 0 && s.every((f) => f.severity === 'error'));
});

test('minimalWaits: the missing waits, merged per instruction', () => {
  const ctx = ctxOf([
    'flat_load_dword v1, v[2:3]',
    's_load_dword s4, s[0:1], 0x0',
    'v_add_f32 v0, s4, v1',
  ]);
  assert.deepEqual(minimalWaits(ctx), [{ before: 2, vmcnt: 0, lgkmcnt: 0 }]);
  assert.equal(errors(check(['s_waitcnt vmcnt(0) lgkmcnt(0)', 'v_mov_b32 v0, v1'])).length, 0);
});
