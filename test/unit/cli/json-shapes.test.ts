/**
 * What --json gives for the cases a script meets: a file of a batch that cannot be read (the same
 * shape from check, analyze and schedule), check --fix's changes, analyze's counts; and the note
 * when --arch overrides the file's target; and one input that fails: the same record from every command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
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

test('one input that cannot be worked on: every command with --json prints the failed file\'s record, as check does (exit 2, the error on stderr)', () => {
  const record = { file: BAD, error: "unknown instruction 'v_bogus'", loc: { line: 4, col: 3 }, exit: 2, kernels: [] };
  const missing = join(dir, 'missing.s');
  const moves = file('moves.txt', ['swap a']);
  const cases: [string[], Record<string, unknown>][] = [
    [['check', BAD], record],
    [['check', BAD, '--fix', '-o', join(dir, 'never.s')], record],
    [['analyze', BAD], record],
    [['tag', BAD], record],
    [['simulate', BAD], record],
    [['verify', BAD, example], record],
    [['verify', example, BAD], record],
    [['schedule', BAD, '--budget', '5', '--no-cache'], record],
    [['apply', BAD, '--moves', 'done'], record],
    // a missing file, and what fails on a readable one: a kernel it lacks, an option out of range for it
    ...['check', 'analyze', 'tag', 'simulate', 'schedule'].map((cmd): [string[], Record<string, unknown>] =>
      [[cmd, missing], { file: missing, error: `cannot read '${missing}': no such file or directory`, loc: null, exit: 2, kernels: [] }]),
    [['tag', example, '--kernel', 'nope'], { file: example, loc: null, exit: 2, kernels: [] }],
    [['simulate', example, '--waves', '99'], { file: example, error: '--waves 99: a gfx942 SIMD holds 1 to 8 waves', loc: null, exit: 2, kernels: [] }],
    [['apply', example, '--moves-file', moves], { file: moves, exit: 2, kernels: [] }],
  ];
  for (const [args, want] of cases) {
    const r = run(...args, '--json');
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    const j = JSON.parse(r.out) as Record<string, unknown>;
    for (const [k, v] of Object.entries(want)) assert.deepEqual(j[k], v, `${args.join(' ')}: ${k}`);
    assert.deepEqual(Object.keys(j), ['file', 'error', 'loc', 'exit', 'kernels'], args.join(' '));
    assert.match(r.err, new RegExp(`error: ${String(j['error']).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), args.join(' '));
    if (j['loc']) assert.match(r.err, /bad\.s:4:3: error: unknown instruction 'v_bogus'/);
  }
  assert.equal(existsSync(join(dir, 'never.s')), false);
  // without --json the standard output stays empty
  for (const args of [['analyze', BAD], ['tag', BAD], ['simulate', BAD], ['verify', BAD, example], ['schedule', BAD, '--budget', '5', '--no-cache'], ['apply', BAD, '--moves', 'done']]) {
    const r = run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.out, '', args.join(' '));
    assert.match(r.err, /bad\.s:4:3: error: unknown instruction 'v_bogus'/);
  }
});
