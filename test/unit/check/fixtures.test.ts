/**
 * The .s fixtures of test/fixtures/ (hazard rules, waitcnt cases), each checked against its
 * inline expectations (fixtures.ts describes the format); and the runner itself, which must
 * fail on an expected finding that is missing and on a finding that is not expected.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from '../../repo.js';
import { assertFixture, fixtureProblems, parseFixture, runFixture } from './fixtures.js';

const dir = join(root, 'test', 'fixtures');

function fixtureFiles(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? fixtureFiles(join(d, e.name)) : e.name.endsWith('.s') ? [join(d, e.name)] : []);
}

describe('fixtures', () => {
  const files = fixtureFiles(dir).sort();
  test('there are fixtures for hazards and waitcnt', () => {
    const rel = files.map((f) => relative(dir, f));
    assert.ok(rel.some((f) => f.startsWith('hazards/')) && rel.some((f) => f.startsWith('waitcnt/')), rel.join(', '));
  });
  for (const f of files) {
    const name = relative(root, f);
    test(name, () => runFixture(f, name));
  }
});

describe('the fixture runner', () => {
  const body = [
    '; target: gfx90a',
    'redundant:',
    '  v_mov_b32 v1, 0',
    '  s_waitcnt vmcnt(0)  ; REDUNDANT',
    '  v_mov_b32 v0, v1  ; expect-none',
    '  s_endpgm',
    'dgemm:',
    '  v_mfma_f64_4x4x4f64 v[12:13], v[0:1], v[2:3], v[12:13]',
    '  v_fma_f64 v[4:5], v[6:7], v[8:9], v[10:11]  ; EXPECT',
    '  s_endpgm',
    '',
  ].join('\n');
  const text = (expect: string, redundant = '; expect: warning waitcnt-redundant') =>
    body.replace('; EXPECT', expect).replace('; REDUNDANT', redundant);
  const problems = (expect: string, redundant?: string) => fixtureProblems(parseFixture('t.s', text(expect, redundant)));

  test('the expected findings, and only those: no problem', () => {
    assert.deepEqual(problems('; expect: dgemm-fma64 required=2 actual=0'), []);
    assert.deepEqual(problems('; expect(gfx90a): error dgemm-fma64 waitStates=2'), []);
    assert.doesNotThrow(() => assertFixture(parseFixture('t.s', text('; expect: dgemm-fma64'))));
  });
  test('an expected finding that is missing fails, naming file:line and the rule', () => {
    assert.deepEqual(problems('; expect: dgemm-fma64, dgemm-fma64'), ['missing (gfx90a): t.s:9: error [dgemm-fma64]']);
    assert.deepEqual(problems('; expect: dgemm-fma64 required=3'), [
      'missing (gfx90a): t.s:9: error [dgemm-fma64] required=3',
      'unexpected (gfx90a): t.s:9: error: v_fma_f64 follows the DGEMM v_mfma_f64_4x4x4f64 at line 8: 2 wait states required on gfx90a, 0 present [dgemm-fma64] required=2 actual=0',
    ]);
    assert.deepEqual(problems('; expect: dgemm-fma64\n  ; expect(gfx942): dgemm-fma64'), ['t.s:9: expect(gfx942): the file is not checked for gfx942']);
    assert.deepEqual(problems('; expect: dgemm-fma64', '; expect: waitcnt-redundant'), [
      'missing (gfx90a): t.s:4: error [waitcnt-redundant]',
      'unexpected (gfx90a): t.s:4: warning: s_waitcnt vmcnt(0) waits for nothing: no memory operation counted by vmcnt can be outstanding here [waitcnt-redundant]',
    ]);
  });
  test('a finding that is not expected fails', () => {
    const p = problems('; expect-none');
    assert.equal(p.length, 1);
    assert.match(p[0]!, /^unexpected \(gfx90a\): t\.s:9: error: .* \[dgemm-fma64\] required=2 actual=0$/);
    assert.throws(() => assertFixture(parseFixture('t.s', text('; expect-none'))), /t\.s: findings differ from the expectations:\n {2}unexpected .*\[dgemm-fma64\]/);
  });
  test('malformed or missing expectations and targets are errors, not passes', () => {
    assert.throws(() => parseFixture('t.s', text('; expect dgemm-fma64')), /t\.s:9: malformed expectation/);
    assert.throws(() => parseFixture('t.s', text('; expect: dgemm-fma64 required')), /t\.s:9: malformed expected finding/);
    assert.throws(() => parseFixture('t.s', 'v_nop\n; target: gfx942\n'), /no expectation/);
    assert.throws(() => parseFixture('t.s', '; target: gfx942\n; expect: dgemm-fma64\nv_nop\n'), /t\.s:2: an expectation before any code/);
    assert.throws(() => parseFixture('t.s', 'v_nop ; expect-none\n'), /no target/);
    assert.throws(() => parseFixture('t.s', '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n; target: gfx90a\nv_nop ; expect-none\n'), /both/);
  });
});
