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
  // a pinned instruction between regions is listed under its own heading, not the region above
  assert.match(r.out, /ds_write_b32 v0, v3\npinned: lines 8-9: 2 instructions that stay in place\n\s+8\s+s_waitcnt_0 [^\n]*\n\s+9\s+s_barrier_0 /);
  assert.match(r.out, /^region 1: line 10: [^\n]*; 1 instruction\n/m);
  assert.match(r.out, /v_mov_b32 v4, 4\npinned: line 11: 1 instruction that stays in place\n\s+11\s+s_endpgm_0 /);
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

test('schedule text: a loop line adds one wave\'s cycles per iteration where they change otherwise than at the kernel\'s waves', async () => {
  const { formatSchedule } = await import('../../../src/cli/schedule.js');
  const m = { peak_vgpr: 10, peak_agpr: 0, peak_sgpr: 4, s_waitcnt: 1, s_nop: 0, total_instructions: 20, occupancy: 4, est_cycles: 1000, wave_cycles: 900 };
  const loop = (before: number, after: number, beforeOne: number, afterOne: number) => ({
    line: 9, backEdgeLines: [20], instructions: 12, trip: 64, tripFrom: 'default', weight: 63, before, after, beforeOne, afterOne, bound: 512, limiter: 'matrix', gapPercent: 0,
  });
  const text = (waves: number, loops: ReturnType<typeof loop>[]) => formatSchedule({
    file: 'k.s', kernel: 'k', arch: 'gfx942', objective: ['est_cycles'], waves, cached: false, runs: [], strategy: 'list', moves: [],
    evaluations: 0, evaluationsPerSecond: 0, seconds: 0, before: m, after: m, loops, notes: [],
  } as unknown as Parameters<typeof formatSchedule>[0]).split('\n').filter((l) => l.startsWith('loop at'));
  const [tie, same, both] = text(4, [loop(1024, 1024, 800, 688), loop(1024, 1024, 800, 800), loop(1024, 900, 1024, 900)]);
  assert.match(tie!, /: 1024 -> 1024 cycles per iteration \(0\.0%\), one wave 800 -> 688 \(-14\.0%\); at its bound: matrix binds$/);
  assert.match(same!, /\(0\.0%\); at its bound/, 'nothing changed');
  assert.match(both!, /\(-12\.1%\); at its bound/, 'one wave tells the same story');
  assert.match(text(1, [loop(1024, 1000, 1024, 1000)])[0]!, /\(-2\.3%\); at its bound/, 'one wave per SIMD');
});

test('schedule text: one move is "1 move", in the run lines and the result', async () => {
  const { formatSchedule } = await import('../../../src/cli/schedule.js');
  const m = { peak_vgpr: 10, peak_agpr: 0, peak_sgpr: 4, s_waitcnt: 1, s_nop: 0, total_instructions: 20, occupancy: 4, est_cycles: 1000, wave_cycles: 900 };
  const text = formatSchedule({
    file: 'k.s', kernel: 'k', arch: 'gfx942', objective: ['est_cycles'], waves: 4, cached: false, strategy: 'list', moves: ['swap a b'],
    runs: [{ label: 'list', strategy: 'list', evaluations: 10, seconds: 0.1, moves: 1, estimate: m }], evaluations: 10, evaluationsPerSecond: 100, seconds: 0.1,
    before: m, after: m, loops: [], notes: [],
  } as unknown as Parameters<typeof formatSchedule>[0]);
  assert.match(text, /; 1 move; /);
  assert.match(text, /, 1 wait, 0 nops/);
  assert.match(text, /^result: list, 1 move; /m);
  assert.doesNotMatch(text, /1 moves/);
  // the run found more moves than the result keeps: the result says why they differ
  const fewer = formatSchedule({
    file: 'k.s', kernel: 'k', arch: 'gfx942', objective: ['est_cycles'], waves: 4, cached: false, strategy: 'list', moves: ['swap a b', 'swap c d'],
    runs: [{ label: 'list', strategy: 'list', evaluations: 10, seconds: 0.1, moves: 5, estimate: m }], evaluations: 10, evaluationsPerSecond: 100, seconds: 0.1,
    before: m, after: m, loops: [], notes: [],
  } as unknown as Parameters<typeof formatSchedule>[0]);
  assert.match(fewer, /^result: list, 2 moves \(the run's 5 less those that gain nothing\); /m);
});

test('schedule text: the run lines keep one column for their counts whatever the labels\' length', async () => {
  const { formatSchedule } = await import('../../../src/cli/schedule.js');
  const m = { peak_vgpr: 10, peak_agpr: 0, peak_sgpr: 4, s_waitcnt: 1, s_nop: 0, total_instructions: 20, occupancy: 4, est_cycles: 1000, wave_cycles: 900 };
  const run = (label: string) => ({ label, strategy: 'list', evaluations: 50, seconds: 0.1, moves: 2, estimate: m });
  const text = formatSchedule({
    file: 'k.s', kernel: 'k', arch: 'gfx942', objective: ['est_cycles'], waves: 4, cached: false, strategy: 'list', moves: [],
    runs: [run('list'), run('anneal#1'), run('pipelined list'), run('pipelined in place anneal#1')], evaluations: 200, evaluationsPerSecond: 100, seconds: 0.1,
    before: m, after: m, loops: [], notes: [],
  } as unknown as Parameters<typeof formatSchedule>[0]);
  const columns = text.split('\n').filter((l) => / evaluations in /.test(l)).map((l) => l.indexOf(' 50 evaluations'));
  assert.equal(columns.length, 4);
  assert.deepEqual(new Set(columns).size, 1, text);
  assert.match(text, /^ {2}pipelined in place anneal#1 {5}50 evaluations/m);
});
