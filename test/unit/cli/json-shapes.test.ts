/**
 * What --json gives for the cases a script meets: a file of a batch that cannot be read (the same
 * shape from check, analyze and schedule), check --fix's changes, analyze's counts; and the note
 * when --arch overrides the file's target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { example, run } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-json-'));
const file = (name: string, lines: string[]) => { const p = join(dir, name); writeFileSync(p, lines.join('\n') + '\n'); return p; };
const BAD = file('bad.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', '  v_bogus v0, v1', '  s_endpgm']);
const NEEDS_WAIT = file('wait.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
  '  global_load_dword v1, v[2:3], off', '  v_add_f32 v4, v1, v1', '  s_endpgm']);

test('a file of a batch that cannot be read: one shape from check, analyze and schedule', () => {
  for (const cmd of ['check', 'analyze', 'schedule']) {
    const r = run(cmd, BAD, example, '--json', ...(cmd === 'schedule' ? ['--budget', '20', '--strategy', 'list', '--no-cache'] : []));
    assert.equal(r.code, 2, `${cmd}: ${r.err}`);
    const failed = (JSON.parse(r.out) as { files: Record<string, unknown>[] }).files.find((f) => f['file'] === BAD);
    assert.deepEqual(failed, { file: BAD, error: "unknown instruction 'v_bogus'", loc: { line: 4, col: 3 }, exit: 2, kernels: [] }, cmd);
  }
});

test('check --fix --json: what was changed, line by line; SARIF and -o - refused with a reason', () => {
  const out = join(dir, 'wait.fixed.s');
  const r = run('check', NEEDS_WAIT, '--fix', '-o', out, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out) as Record<string, unknown>;
  assert.equal(j['output'], out);
  assert.deepEqual(j['inserted'], { s_nop: 0, waitStates: 0, s_waitcnt: 1 });
  assert.deepEqual(j['changes'], [{ line: 5, before: [], after: ['s_waitcnt vmcnt(0)'] }]);
  const s = run('check', NEEDS_WAIT, '--fix', '-o', join(dir, 'x.s'), '--format', 'sarif');
  assert.equal(s.code, 2);
  assert.match(s.err, /SARIF is for findings/);
  const o = run('check', NEEDS_WAIT, '--fix', '-o', '-', '--json');
  assert.equal(o.code, 2);
  assert.match(o.err, /write the fixed file with -o FILE/);
});

test('analyze --json: counts by class, s_waitcnt and s_nop beside them (not twice)', () => {
  const k = (JSON.parse(run('analyze', example, '--json').out) as { kernels: Record<string, unknown>[] }).kernels[0]!;
  const counts = k['counts'] as Record<string, number>;
  assert.equal(counts['s_waitcnt'], undefined);
  assert.equal(k['s_waitcnt'], counts['waitcnt']);
  assert.equal(typeof k['s_nop'], 'number');
});

test('--arch over a file that names another target: a note says so', () => {
  const f = file('t90a.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:', '  v_mov_b32 v0, v1', '  s_endpgm']);
  assert.match(run('check', f, '--arch', 'gfx942').out, /note: --arch gfx942 overrides the file's \.amdgcn_target gfx90a \(line 1\)/);
  assert.doesNotMatch(run('check', f, '--arch', 'gfx90a').out, /overrides/);
});
