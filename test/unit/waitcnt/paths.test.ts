/**
 * The value analysis of SGPR loop counters that excludes paths the program cannot take
 * (paths.ts), with which paths a wait then falls short on (waitcnt/index.ts classifyPaths,
 * witness.ts; the basic every-path / some-paths cases are in waitcnt-cfg.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ctxOf, pathShape, summary } from './helpers.js';
import { checkWaitcnt } from '../../../src/waitcnt/index.js';
import type { Finding } from '../../../src/analysis/types.js';
import { afterInsn, refineRange, rangeTest } from '../../../src/waitcnt/paths.js';
import { parseProgram } from '../../../src/asm/parser.js';

const run = (lines: string[], paths?: 'every' | 'all', arch = 'gfx942'): Finding[] => checkWaitcnt(ctxOf(lines, arch), paths ? { paths } : {});
const missing = (fs: Finding[]) => fs.filter((f) => f.rule === 'waitcnt-missing');

/**
 * The prefetch loads are skipped when the counter is at most 2, the loop runs only when it
 * exceeds 3: the path that skips them and enters the loop (where vmcnt(2) counts on them) is
 * impossible.
 */
const guarded = (loopGuard: string) => [
  'global_load_dword v1, v[2:3], off',
  's_cmp_le_u32 s12, 2',
  's_cbranch_scc1 skip',
  'global_load_dword v4, v[2:3], off',
  'global_load_dword v5, v[2:3], off',
  'skip:',
  loopGuard,
  's_cbranch_scc1 .Ldone',
  'loop:',
  's_waitcnt vmcnt(2)',
  'v_add_f32 v0, v1, v0',
  's_sub_u32 s12, s12, 1',
  's_cmp_gt_u32 s12, 3',
  's_cbranch_scc1 loop',
  '.Ldone:',
  's_endpgm',
];

describe('value analysis of SGPR loop counters', () => {
  it('a loop whose guard excludes the short path: no finding', () => {
    assert.deepEqual(run(guarded('s_cmp_le_u32 s12, 3')), []);
    assert.deepEqual(run(guarded('s_cmp_le_u32 s12, 3'), 'all'), [], 'an impossible path is not a path, even with --paths all');
    assert.deepEqual(run(guarded('s_cmpk_le_u32 s12, 0x3')), [], 's_cmpk form');
    assert.deepEqual(run(guarded('s_cmp_ge_u32 3, s12')), [], 'constant first');
  });

  it('the same loop without the guard: a finding along the skip and the loop entry', () => {
    // the loop also runs for s12 = 2, when the loads are skipped
    const fs = missing(run(guarded('s_cmp_le_u32 s12, 1')));
    assert.deepEqual(fs.map(pathShape), ['warning 11 [3: on that path s_cbranch_scc1 branches; 8: on that path s_cbranch_scc1 falls through]']);
    assert.deepEqual(summary(run(guarded('s_cmp_le_u32 s12, 1'), 'all')), ['11 waitcnt-missing vmcnt=0']);
    // a guard on another register proves nothing
    assert.equal(missing(run(guarded('s_cmp_le_u32 s13, 3'))).length, 1);
    // the counter changed between the two guards: the first guard no longer bounds it
    const moved = guarded('s_cmp_le_u32 s12, 3');
    moved.splice(6, 0, 's_lshl_b32 s12, s12, 1');
    assert.equal(missing(run(moved)).length, 1);
    // a call may change any SGPR: no fact survives it
    const fact = { key: 'v12', val: true, units: [12], lo: 0, hi: 2 };
    assert.deepEqual(afterInsn([fact], ctxOf(['s_swappc_b64 s[30:31], s[16:17]']).insns[0]!), []);
    assert.deepEqual(afterInsn([fact], ctxOf(['s_mov_b32 s13, 1']).insns[0]!), [fact]);
    const movreld = guarded('s_cmp_le_u32 s12, 3');
    movreld.splice(6, 0, 's_movreld_b32 s0, s1');
    assert.equal(missing(run(movreld)).length, 1, 's_movreld may write s12 (M0 = 12)');
    // ... but a constant step is carried along: s12 + 1 <= 3 when s12 <= 2 still excludes it (s12 + 1 > 4 needed)
    const stepped = guarded('s_cmp_le_u32 s12, 4');
    stepped.splice(6, 0, 's_add_u32 s12, s12, 1');
    assert.deepEqual(run(stepped), []);
  });

  it('signed comparisons: bounded once the counter is known not to be negative', () => {
    const signed = guarded('s_cmp_le_i32 s12, 3').map((l) => (l === 's_cmp_le_u32 s12, 2' ? 's_cmp_lt_i32 s12, 3' : l));
    // s12 < 3 (signed) also holds for every negative value: the skip path may enter the loop
    assert.equal(missing(run(signed)).length, 1);
    // after leaving when s12 < 0, the counter is in [0, 2^31): the guards exclude that path again
    assert.deepEqual(run(['s_cmp_lt_i32 s12, 0', 's_cbranch_scc1 .Ldone', ...signed]), []);
  });

  it('a counter stepped in a loop does not make a path class per iteration (widening)', () => {
    const lines = [
      's_mov_b32 s4, 0',
      's_cmp_eq_u32 s5, 7',
      's_cbranch_scc1 out',
      'loop:',
      'global_load_dword v1, v[2:3], off',
      's_waitcnt vmcnt(0)',
      'v_add_f32 v0, v1, v0',
      's_add_u32 s4, s4, 1',
      's_cmp_lg_u32 s4, 1000000',
      's_cbranch_scc1 loop',
      's_cmp_eq_u32 s4, 0',
      's_cbranch_scc1 out',
      'out:',
      's_endpgm',
    ];
    const t0 = performance.now();
    assert.deepEqual(run(lines), []);
    assert.ok(performance.now() - t0 < 1000);
  });
});

describe('range refinement', () => {
  const test = (text: string) => rangeTest(parseProgram(text + '\n', 'x.s').instructions[0]!)!;
  it('reads the comparison as SGPR op constant', () => {
    assert.deepEqual(test('s_cmp_le_u32 s12, 2'), { unit: test('s_cmp_le_u32 s12, 2').unit, op: 'le', c: 2, signed: false });
    assert.equal(test('s_cmp_lt_u32 3, s12').op, 'gt');
    assert.equal(test('s_cmpk_lt_i32 s12, 0xfffb').c, 0xfffffffb, 's_cmpk_*_i32 sign-extends its 16-bit constant');
    assert.equal(test('s_cmpk_lt_u32 s12, 0xfffb').c, 0xfffb);
    assert.equal(rangeTest(parseProgram('s_cmp_eq_u32 s12, s13\n', 'x.s').instructions[0]!), undefined);
  });
  it('refines unsigned and signed ranges', () => {
    const t = (op: string, c: number, signed = false) => ({ unit: 0, op: op as 'eq', c, signed });
    assert.deepEqual(refineRange(0, 0xffffffff, t('le', 2), true), [0, 2]);
    assert.deepEqual(refineRange(0, 0xffffffff, t('le', 2), false), [3, 0xffffffff]);
    assert.deepEqual(refineRange(0, 2, t('gt', 3), true), undefined);
    assert.deepEqual(refineRange(1, 5, t('lg', 1), true), [2, 5]);
    assert.deepEqual(refineRange(1, 5, t('lg', 3), true), [1, 5], 'a hole inside is not representable');
    assert.deepEqual(refineRange(0, 0xffffffff, t('lt', 0), false), [0, 0xffffffff]);
    assert.deepEqual(refineRange(0, 0xffffffff, t('lt', 0), true), undefined);
    // signed: x < 0 are the values from 2^31 up
    assert.deepEqual(refineRange(0, 0xffffffff, t('lt', 0, true), true), [0x80000000, 0xffffffff]);
    assert.deepEqual(refineRange(0, 10, t('le', 0xffffffff, true), true), undefined, 'no value of [0, 10] is <= -1');
    assert.deepEqual(refineRange(0, 0xffffffff, t('le', 3, true), true), [0, 0xffffffff], 'the hull of [0, 3] and the negatives');
  });
});
