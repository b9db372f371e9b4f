/**
 * `conductor tag`, `apply` and `verify` from the command line: output, JSON shape, exit codes
 * (0 ok, 1 a round failed / not equivalent, 2 bad input), nothing partial written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMALL_KERNEL, run } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-schedule-cli-'));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const SRC = SMALL_KERNEL;

test('tag: regions with tags, lines and metrics; JSON; bad region', () => {
  const f = write('t.s', SRC);
  const r = run('tag', f);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /region 0: lines 4-7 \(k\): peak VGPR \d+, AGPR 0, SGPR 0; s_waitcnt 0, s_nop 0; 4 instructions/);
  assert.match(r.out, /\s5\s+v_mov_b32_1\s+v_mov_b32 v2, 2/);
  assert.match(r.out, /s_barrier_0\s+s_barrier\s+\[pinned: a barrier\]/);
  const j = JSON.parse(run('tag', f, '--json', '--region', '1').out);
  assert.equal(j.kernels[0].regions.length, 1);
  assert.equal(j.kernels[0].regions[0].instructions[0].tag, 'v_mov_b32_2');
  assert.equal(run('tag', f, '--region', '9').code, 2);
  assert.equal(run('tag', f, '--kernel', 'nope').code, 2);
});

test('apply: rounds, JSON report, output written and verified; a failed round exits 1 and writes nothing', () => {
  const f = write('a.s', SRC);
  const out = join(dir, 'a.out.s');
  let r = run('apply', f, '--moves', 'swap v_mov_b32_0 v_mov_b32_1', '-o', out, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.applied, ['swap v_mov_b32_0 v_mov_b32_1']);
  assert.equal(j.failed, null);
  for (const key of ['peak_vgpr', 'peak_agpr', 'peak_sgpr', 's_waitcnt', 's_nop', 'total_instructions', 'occupancy', 'est_cycles']) {
    assert.equal(typeof j.before[key], 'number', key);
    assert.equal(typeof j.after[key], 'number', key);
  }
  assert.match(readFileSync(out, 'utf8'), /v_mov_b32 v2, 2\n {2}v_mov_b32 v1, 1\n/);
  const v = run('verify', f, out);
  assert.equal(v.code, 0, v.out + v.err);
  assert.match(v.out, /equivalent/);
  // a moves file with two rounds, the second failing: exit 1, nothing written
  const moves = write('m.txt', '# first\nswap v_mov_b32_0 v_mov_b32_1\n---\nswap v_add_u32_0 v_mov_b32_0\n');
  const out2 = join(dir, 'a2.out.s');
  r = run('apply', f, '--moves-file', moves, '-o', out2);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /round 2: failed, undone\n {2}failed : swap v_add_u32_0 v_mov_b32_0 \(.*m\.txt:4\): v_add_u32_0 reads v1 which v_mov_b32_0 writes/);
  assert.equal(existsSync(out2), false);
});

test('apply and verify: bad input exits 2 and writes nothing', () => {
  const f = write('b.s', SRC);
  const out = join(dir, 'never.s');
  let r = run('apply', f, '--moves', 'swap v_mov_b32_0', '-o', out);
  assert.equal(r.code, 2);
  assert.match(r.err, /--moves:1: malformed command: 'swap' takes two tags/);
  assert.equal(existsSync(out), false);
  r = run('apply', f, '-o', out);
  assert.equal(r.code, 2);
  r = run('apply', join(dir, 'missing.s'), '--moves', 'done');
  assert.equal(r.code, 2);
  r = run('verify', f, join(dir, 'missing.s'));
  assert.equal(r.code, 2);
});

test('verify: a reordering that breaks a dependency exits 1 with the place in both files', () => {
  const a = write('v1.s', SRC);
  const b = write('v2.s', SRC.replace('  v_mov_b32 v2, 2\n  v_add_u32 v3, v1, v2\n', '  v_add_u32 v3, v1, v2\n  v_mov_b32 v2, 2\n'));
  const r = run('verify', a, b, '--json');
  assert.equal(r.code, 1);
  const j = JSON.parse(r.out);
  assert.equal(j.equivalent, false);
  assert.equal(j.difference.kind, 'reaching-definition');
  assert.equal(j.difference.original.line, 6);
  assert.equal(j.difference.scheduled.line, 5);
});
