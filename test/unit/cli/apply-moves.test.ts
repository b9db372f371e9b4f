/** apply with a moves file: the `# kernel K` sections schedule --save-moves writes, `done`, failures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './harness.js';
import { afterDone, pickSection } from '../../../src/cli/apply.js';
import { parseRoundsOrThrow } from '../../../src/schedule/commands.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-apply-'));
const fn = (name: string, body: string[]) => [`.type ${name},@function`, `${name}:`, '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', ...body, '  s_setpc_b64 s[30:31]'];
const TWO = join(dir, 'two.s');
writeFileSync(TWO, ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text',
  ...fn('a', ['  v_mov_b32 v1, 0', '  v_mov_b32 v2, 0', '  v_add_f32 v3, v4, v5']),
  ...fn('b', ['  v_mov_b32 v1, 0', '  v_add_f32 v3, v4, v5', '  v_mov_b32 v2, 0']), ''].join('\n'));
const moves = (name: string, lines: string[]) => { const p = join(dir, name); writeFileSync(p, lines.join('\n') + '\n'); return p; };

test('pickSection: the kernel asked for, the one section with commands, or an error naming the choice', () => {
  const text = '# kernel a\n# kernel b\nswap x y\n';
  assert.deepEqual(pickSection(text, 'm', undefined), { text: '\n\nswap x y\n', kernel: 'b' });
  assert.equal(pickSection(text, 'm', 'a').text.trim(), '');
  assert.throws(() => pickSection('# kernel a\nswap x y\n# kernel b\nswap y z\n', 'm', undefined), /m has commands for kernels a, b: pick one with --kernel/);
  assert.throws(() => pickSection(text, 'm', 'c'), /m has no '# kernel c' section \(it has a, b\)/);
  // a file without sections is the commands for the kernel picked as usual
  assert.deepEqual(pickSection('swap x y\n', 'm', undefined), { text: 'swap x y\n', kernel: undefined });
  // line numbers stay those of the file
  assert.equal(parseRoundsOrThrow(pickSection('# kernel a\nswap p q\n# kernel b\nswap x y\n', 'm', 'b').text)[0]![0]!.line, 4);
});

test('apply --moves-file follows the # kernel sections of a multi-kernel moves file', () => {
  const r = run('apply', TWO, '--moves-file', moves('one.moves', ['# kernel a', '# kernel b', 'swap v_mov_b32_1 v_add_f32_0']));
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(r.out, /kernel b \(gfx942\)[^]*applied: swap v_mov_b32_1 v_add_f32_0/);
  const both = moves('both.moves', ['# kernel a', 'swap v_mov_b32_0 v_mov_b32_1', '# kernel b', 'swap v_mov_b32_1 v_add_f32_0']);
  const e = run('apply', TWO, '--moves-file', both);
  assert.equal(e.code, 2);
  assert.match(e.err, /has commands for kernels a, b: pick one with --kernel/);
  const a = run('apply', TWO, '--moves-file', both, '--kernel', 'a');
  assert.equal(a.code, 0, a.err);
  assert.match(a.out, /kernel a \(gfx942\)[^]*applied: swap v_mov_b32_0 v_mov_b32_1/);
});

test('apply says what `done` left out, and names a failed command once, by where it was given', () => {
  const r = run('apply', TWO, '--kernel', 'b', '--moves', 'swap v_mov_b32_0 v_mov_b32_1', 'done', 'swap v_mov_b32_0 v_mov_b32_1');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /note: 'done' \(--moves argument 2\) ends the run: 1 later command was not applied/);
  const f = run('apply', TWO, '--kernel', 'a', '--moves-file', moves('bad.moves', ['# a comment', 'swap v_mov_b32_0 v_nope_0']));
  assert.equal(f.code, 1);
  assert.match(f.out, /round 1: failed, undone\n {2}failed : swap v_mov_b32_0 v_nope_0 \(.*bad\.moves:2\): unknown tag 'v_nope_0'/);
  assert.equal(f.out.match(/unknown tag/g)!.length, 1);
  const cmds = parseRoundsOrThrow('swap a b\ndone\n---\nswap c d\n');
  assert.deepEqual(afterDone(cmds), { done: cmds[0]![1], count: 1 });
  assert.equal(afterDone(parseRoundsOrThrow('swap a b\ndone\n')), undefined);
});

test('apply --moves A --- B: the documented round separator starts a new round, not an unknown option', () => {
  const r = run('apply', TWO, '--kernel', 'b', '--moves', 'swap v_mov_b32_1 v_add_f32_0', '---', 'done');
  assert.equal(r.code, 0, r.err + r.out);
  assert.doesNotMatch(r.err, /unknown option/);
  assert.match(r.out, /round 1: [^]*round 2: /);
});

test('apply of moves schedule saved for a pipelined program: a failure says where they come from', () => {
  // a tag the input does not have (the pipelined program's peeled copy): the command fails
  const head = '# from the program with the loops at lines 9 pipelined, not from the input (schedule --no-pipeline gives moves that replay on the input)';
  const p = moves('piped.txt', [head, 'swap v_mov_b32_9 v_add_f32_0']);
  const r = run('apply', TWO, '--kernel', 'b', '--moves-file', p);
  assert.equal(r.code, 1, r.err + r.out);
  assert.match(r.out + r.err, /piped\.txt: these moves are of the program schedule wrote with its loops pipelined, not of .*two\.s .*schedule --no-pipeline --save-moves/);
  // the same failure from a file without that line: no such note
  const plain = run('apply', TWO, '--kernel', 'b', '--moves-file', moves('plain.txt', ['swap v_mov_b32_9 v_add_f32_0']));
  assert.equal(plain.code, 1);
  assert.doesNotMatch(plain.out + plain.err, /pipelined/);
});

test('apply: a round that makes the objective worse says "reverted" once, with why', () => {
  const f = join(dir, 'worse.s');
  writeFileSync(f, ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.type w,@function', 'w:', '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)',
    '  global_load_dword v1, v[2:3], off', '  global_load_dword v4, v[2:3], off offset:4', '  v_mov_b32 v10, 0', '  v_mov_b32 v11, 0',
    '  s_waitcnt vmcnt(0)', '  v_add_u32 v5, v1, v4', '  v_add_u32 v6, v1, v1', '  s_setpc_b64 s[30:31]', ''].join('\n'));
  const r = run('apply', f, '--objective', 's_waitcnt', '--moves', 'move v_add_u32_1 before v_mov_b32_0');
  assert.match(r.out, /round 1: reverted: the objective got worse \(s_waitcnt 2 -> 3\)$/m, r.out + r.err);
  assert.equal((r.out.match(/reverted/g) ?? []).length, 1, r.out);
});
