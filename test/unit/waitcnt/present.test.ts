/**
 * What a missing-wait message says is present: the governing wait on the counter, i.e. on every
 * path back from the instruction the nearest s_waitcnt that names the counter (not only a wait
 * right before it), with its line and what it allows; a wait before the producer governs nothing.
 * vmcnt(N) lets the N youngest VMEM operations stay outstanding (AMD CDNA3 ISA §4.4).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, ctxOf, errors, summary } from './helpers.js';
import { governingWaits } from '../../../src/waitcnt/analysis.js';
import { kernelEffects } from '../../../src/waitcnt/index.js';
import { COUNTER_NAMES } from '../../../src/waitcnt/model.js';

const VM = COUNTER_NAMES.indexOf('vmcnt');

test('a wait two lines above the reader governs it (the prefetch pattern of a Tensile NoGlobalLoadLoop)', () => {
  const lines = [
    'buffer_load_dwordx4 v[10:13], v0, s[8:11], 0 offen',
    'buffer_load_dwordx4 v[14:17], v0, s[8:11], 0 offen',
    'buffer_load_dwordx4 v[18:21], v0, s[8:11], 0 offen',
    'buffer_load_dwordx4 v[22:25], v0, s[8:11], 0 offen',
    's_waitcnt vmcnt(3)',
    'ds_write_b128 v1, v[10:13]',
    's_waitcnt vmcnt(3)',
    'v_mov_b32 v2, v3',
    'ds_write_b128 v1, v[14:17] offset:64',
  ];
  const fs = check(lines);
  // line 7 completes nothing: three operations are outstanding and it allows three
  assert.deepEqual(summary(fs), ['7 waitcnt-redundant (remove)', '9 waitcnt-missing vmcnt=2']);
  const f = errors(fs)[0]!;
  assert.match(f.message, /needs vmcnt\(2\), present: vmcnt\(3\) at line 7 \(allows 3 outstanding\)$/);
  assert.equal(f.actual, 3);
  // the wait that is enough, two lines above: clean
  assert.deepEqual(errors(check([...lines.slice(0, 6), 's_waitcnt vmcnt(2)', ...lines.slice(7)])), []);
});

test('a wait before the producer governs nothing', () => {
  const fs = check([
    's_waitcnt vmcnt(0)',
    'global_load_dword v1, v[2:3], off',
    'v_mov_b32 v4, v5',
    'v_add_f32 v0, v1, v1',
  ]);
  assert.deepEqual(summary(fs), ['1 waitcnt-redundant (remove)', '4 waitcnt-missing vmcnt=0']);
  assert.match(errors(fs)[0]!.message, /needs vmcnt\(0\), present: no vmcnt wait$/);
  assert.equal(errors(fs)[0]!.actual, 63, 'no wait: the counter maximum');
});

const twoSides = (other: string[]) => [
  'global_load_dword v1, v[2:3], off', // 1
  'global_load_dword v5, v[2:3], off', // 2
  'global_load_dword v6, v[2:3], off', // 3
  's_cmp_eq_u32 s4, 0', // 4
  's_cbranch_scc1 other', // 5
  's_waitcnt vmcnt(3)', // 6
  's_branch join', // 7
  'other:', // 8
  'global_load_dword v7, v[2:3], off', // 9
  ...other, // 10
  'join:',
  'v_mov_b32 v8, v9',
  'v_mov_b32 v0, v1',
];

test('different waits on the paths into the reader: each named, with its line', () => {
  const fs = check(twoSides(['s_waitcnt vmcnt(4)']));
  // v1 has 2 younger loads on one side (vmcnt(3) does not complete it) and 3 on the other (vmcnt(4) does not either)
  const f = errors(fs)[0]!;
  assert.equal(f.loc.line, 13);
  assert.match(f.message, /needs vmcnt\(2\), present: vmcnt\(3\) at line 6 \(allows 3 outstanding\) or vmcnt\(4\) at line 10 \(allows 4 outstanding\), depending on the path$/);
  assert.equal(f.actual, 4, 'the weakest of them');
  const ctx = ctxOf(twoSides(['s_waitcnt vmcnt(4)']));
  assert.deepEqual(governingWaits(ctx, kernelEffects(ctx), 10, VM, 0), { waits: [5, 8], none: false, issued: [] });
});

test('a path without a wait on the counter: "no wait" beside the others', () => {
  // an lgkmcnt wait on the other side does not govern vmcnt
  const fs = check(twoSides(['s_waitcnt lgkmcnt(0)']));
  const f = fs.find((x) => x.rule === 'waitcnt-missing')!;
  assert.match(f.message, /present: vmcnt\(3\) at line 6 \(allows 3 outstanding\) or no vmcnt wait, depending on the path/);
  assert.equal(f.actual, 63);
});

test('around a loop: the wait in the body and the one before the loop', () => {
  const lines = [
    'global_load_dword v1, v[2:3], off', // 1
    'global_load_dword v5, v[2:3], off', // 2
    's_waitcnt vmcnt(2)', // 3
    's_mov_b32 s4, 0', // 4
    'loop:', // 5
    'v_add_f32 v0, v1, v0', // 6: reads v1 (loaded before the loop and at its bottom)
    'global_load_dword v1, v[2:3], off', // 7
    'global_load_dword v5, v[2:3], off', // 8
    's_waitcnt vmcnt(2)', // 9
    's_add_u32 s4, s4, 1', // 10
    's_cmp_lt_u32 s4, 10', // 11
    's_cbranch_scc1 loop', // 12
    's_endpgm',
  ];
  const f = errors(check(lines))[0]!;
  assert.equal(f.loc.line, 6);
  assert.match(f.message, /needs vmcnt\(1\), present: vmcnt\(2\) at line 3 \(allows 2 outstanding\) or vmcnt\(2\) at line 9 \(allows 2 outstanding\), depending on the path$/);
});

test('a wait written at the counter\'s maximum is named, and waits for nothing', () => {
  // gfx942: vmcnt counts to 63, lgkmcnt to 15 (AMD CDNA3 ISA §4.4); a wait at the maximum waits for nothing
  const fs = check([
    'global_load_dword v1, v[2:3], off',
    's_waitcnt vmcnt(63)',
    'v_mov_b32 v0, v1',
  ]);
  const f = errors(fs)[0]!;
  assert.match(f.message, /needs vmcnt\(0\), present: vmcnt\(63\) at line 2 \(waits for nothing\)$/);
  assert.equal(f.actual, 63);
  const lds = errors(check([
    'ds_read_b32 v1, v0',
    's_waitcnt lgkmcnt(15)',
    'v_mov_b32 v2, v1',
  ]))[0]!;
  assert.match(lds.message, /needs lgkmcnt\(0\), present: lgkmcnt\(15\) at line 2 \(waits for nothing\)$/);
});

test('operations issued after the governing wait are named: a wait that allows what is needed came before them', () => {
  // a new user's trial (a hand-written SGEMM): "needs lgkmcnt(4), present: lgkmcnt(4)" read as a
  // false report; the four LDS reads issued after the wait are what make it short
  const fs = check([
    'ds_read_b128 v[72:75], v1',
    'ds_read_b128 v[76:79], v1 offset:256',
    'ds_read_b128 v[88:91], v2',
    'ds_read_b128 v[92:95], v2 offset:256',
    's_waitcnt lgkmcnt(4)',
    'ds_read_b128 v[64:67], v1 offset:512',
    'ds_read_b128 v[68:71], v1 offset:768',
    'ds_read_b128 v[80:83], v2 offset:512',
    'ds_read_b128 v[84:87], v2 offset:768',
    'v_fmac_f32 v0, v72, v88',
  ]);
  const f = errors(fs)[0]!;
  assert.match(f.message, /reads v88 loaded by ds_read_b128 \(line 3\).*: needs lgkmcnt\(5\), present: lgkmcnt\(4\) at line 5 \(allows 4 outstanding\), then 4 lgkmcnt operations issued \(ds_read_b128 at line 6 \.\. ds_read_b128 at line 9\) after it$/);
  // no operation after the wait: the message is as before
  const g = errors(check(['ds_read_b32 v1, v0', 'ds_read_b32 v2, v0 offset:4', 's_waitcnt lgkmcnt(1)', 'v_add_f32 v3, v2, v2']))[0]!;
  assert.match(g.message, /needs lgkmcnt\(0\), present: lgkmcnt\(1\) at line 3 \(allows 1 outstanding\)$/);
});
