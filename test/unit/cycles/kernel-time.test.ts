/**
 * est_cycles as the kernel runs (src/cycles/kernel-time.ts): trip counts read from a scalar
 * counter, loops found by their back edges (a backward jump that cannot come back is no loop),
 * the walk plus weight x steady state, co-resident waves at the kernel's occupancy, the loop
 * bound; the scheduler's fast estimate against the exact measure of what it writes; the
 * occupancy floor; the original order kept where nothing is gained.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { afterKand2K, DEFAULT_TRIP, kernelLoops, loopChanges, kernelTime, periodStats, steadyState, tripFromCode, walkOf, runWaves } from '../../../src/cycles/kernel-time.js';
import { cycleEngineFor } from '../../../src/cycles/estimate.js';
import { syntheticWait } from '../../../src/cycles/model.js';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { CONDUCTOR_OBJECTIVE, DEFAULT_OBJECTIVE, Evaluator, compareMetrics, parseObjective, programMetrics, type Metrics } from '../../../src/schedule/metrics.js';
import { ScheduleState, moveTo } from '../../../src/schedule/state.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { preferOriginal } from '../../../src/schedule/search/search.js';
import { scheduleLoaded } from '../../../src/schedule/search/run.js';
import { formatSchedule } from '../../../src/cli/schedule.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { randomSchedule } from '../schedule/helpers.js';

const ctxOf = (lines: string[], arch = 'gfx942'): KernelContext => kernelContextsFromText(lines.join('\n') + '\n', 't.s', arch)[0]!;

/** A counted loop: s0 from 0 to 16 by 1, an LDS read feeding an MFMA, a global load. */
const COUNTED = [
  's_mov_b32 s0, 0',
  'v_mov_b32 v20, 0',
  '.LBB0_1:',
  'global_load_dword v1, v[2:3], off',
  'ds_read_b64 v[4:5], v20',
  's_add_i32 s0, s0, 1',
  's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[4:5], v[8:11]',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v12, v1, v12',
  's_cmp_lg_u32 s0, 16',
  's_cbranch_scc1 .LBB0_1',
  'global_store_dword v[2:3], v12, off',
  's_endpgm',
];

test('trip count from a scalar counter: init, step and compare; otherwise unknown', () => {
  const c = ctxOf(COUNTED);
  const loops = kernelLoops(c);
  assert.equal(loops.length, 1);
  assert.equal(tripFromCode(c, loops[0]!.header, loops[0]!.latch), 16);
  assert.equal(loops[0]!.trip, 16);
  assert.equal(loops[0]!.tripFrom, 'code');
  assert.equal(loops[0]!.weight, 15);
  // the compare before the step, a signed bound, counting down
  const down = COUNTED.map((l) => l.replace('s_mov_b32 s0, 0', 's_mov_b32 s0, 10').replace('s_add_i32 s0, s0, 1', 's_sub_i32 s0, s0, 2')
    .replace('s_cmp_lg_u32 s0, 16', 's_cmp_gt_i32 s0, 0'));
  assert.equal(kernelLoops(ctxOf(down))[0]!.trip, 5);
  // a bound in a register (a kernel argument): unknown, so --trip or the default
  const arg = COUNTED.map((l) => l.replace('s_cmp_lg_u32 s0, 16', 's_cmp_lg_u32 s0, s5'));
  const la = kernelLoops(ctxOf(arg));
  assert.equal(la[0]!.tripFrom, 'default');
  assert.equal(la[0]!.trip, DEFAULT_TRIP);
  assert.equal(kernelLoops(ctxOf(arg), 7)[0]!.trip, 7);
  assert.equal(kernelLoops(ctxOf(arg), 7)[0]!.tripFrom, 'option');
  // a counter stepped twice in the body: both steps count (0 to 16 by 2)
  const twice = COUNTED.map((l) => (l === 'v_add_f32 v12, v1, v12' ? 's_add_i32 s0, s0, 1' : l));
  assert.equal(kernelLoops(ctxOf(twice))[0]!.trip, 8);
  assert.equal(kernelLoops(ctxOf(twice))[0]!.tripFrom, 'code');
  // a write of the counter that is no constant step: unknown
  const other = COUNTED.map((l) => (l === 'v_add_f32 v12, v1, v12' ? 's_lshl_b32 s0, s0, 1' : l));
  assert.equal(kernelLoops(ctxOf(other))[0]!.tripFrom, 'default');
  // a float literal is its bits (1.0 is 0x3f800000), not an integer: no step, no bound, no start
  for (const [from, to] of [['s_add_i32 s0, s0, 1', 's_add_i32 s0, s0, 1.0'], ['s_cmp_lg_u32 s0, 16', 's_cmp_lg_u32 s0, 16.0'],
    ['s_mov_b32 s0, 0', 's_mov_b32 s0, 2.0']]) {
    const f = kernelLoops(ctxOf(COUNTED.map((l) => (l === from ? to : l))));
    assert.equal(f[0]!.tripFrom, 'default', to);
  }
});

/** MIOpen conv1x1u's counter: set, stepped once before the loop and twice in the unrolled body. */
const TWO_STEPS = [
  's_mov_b32 s4, 64',
  's_addk_i32 s4, -2',
  '.Lloop:',
  'v_add_f32 v1, v1, v2',
  's_addk_i32 s4, -2',
  'v_add_f32 v1, v1, v2',
  's_addk_i32 s4, -2',
  's_cmpk_gt_i32 s4, 2',
  's_cbranch_scc1 .Lloop',
  's_endpgm',
];

test('trip count: a counter stepped before the loop and several times in it; a conditional move of the same value', () => {
  // 62 before the loop, 4 less each iteration, on while above 2: 58, 54, ..., 2 -> 15 iterations
  const l = kernelLoops(ctxOf(TWO_STEPS))[0]!;
  assert.equal(l.trip, 15);
  assert.equal(l.tripFrom, 'code');
  // s_cmov of the value the counter already holds changes nothing (conv1x1u's `s_cmov_b32 s4, 64`)
  const cmov = ['s_mov_b32 s4, 64', 's_cmpk_eq_u32 s5, 0', 's_cmov_b32 s4, 64', ...TWO_STEPS.slice(1)];
  assert.equal(kernelLoops(ctxOf(cmov))[0]!.trip, 15);
  // of another value: the start depends on s5, unknown
  const cmov2 = cmov.map((x) => (x === 's_cmov_b32 s4, 64' ? 's_cmov_b32 s4, 32' : x));
  assert.equal(kernelLoops(ctxOf(cmov2))[0]!.tripFrom, 'default');
  // a step on one way round only (a branch inside the body skips it): unknown
  const skip = ['s_mov_b32 s4, 64', '.Lloop:', 'v_add_f32 v1, v1, v2', 's_cmp_eq_u32 s5, 0', 's_cbranch_scc1 .Lskip', 's_addk_i32 s4, -2', '.Lskip:',
    ...TWO_STEPS.slice(6)];
  const ls = kernelLoops(ctxOf(skip));
  assert.equal(ls.length, 1);
  assert.equal(ls[0]!.tripFrom, 'default');
  // without the conditional step it is read (64 -> 2 by 2: 31)
  assert.equal(kernelLoops(ctxOf(skip.filter((_, i) => i !== 5)))[0]!.trip, 31);
});

test('a counter set by s_and_b32 with a constant mask (a remainder loop): the most the loop runs', () => {
  // the shape of rocBLAS trsm_small_left_device's remainder loop as clang-22 builds it for gfx942:
  // `s_and_b32 s2, s10, 7` then count down to 0 (0 .. 7 iterations; entry guarded when 0)
  const rem = [
    's_and_b32 s2, s10, 7',
    '.LBB0_1:',
    'global_load_dword v1, v[2:3], off',
    's_add_i32 s2, s2, -1',
    's_cmp_lg_u32 s2, 0',
    's_waitcnt vmcnt(0)',
    'v_add_f32 v12, v1, v12',
    's_cbranch_scc1 .LBB0_1',
    's_endpgm',
  ];
  const l = kernelLoops(ctxOf(rem))[0]!;
  assert.equal(l.trip, 7);
  assert.equal(l.tripFrom, 'code');
  // the mask as the first operand, counting up to it
  const up = rem.map((x) => x.replace('s_and_b32 s2, s10, 7', 's_and_b32 s2, 3, s10').replace('s_add_i32 s2, s2, -1', 's_add_i32 s2, s2, 1')
    .replace('s_cmp_lg_u32 s2, 0', 's_cmp_lt_u32 s2, 4'));
  assert.equal(kernelLoops(ctxOf(up))[0]!.trip, 4);
  // a mask that is no small range (the high bits cleared, a sign test): unknown
  for (const m of ['0x7fffffff', '-8']) {
    const big = rem.map((x) => x.replace('s_and_b32 s2, s10, 7', `s_and_b32 s2, s10, ${m}`));
    assert.equal(kernelLoops(ctxOf(big))[0]!.tripFrom, 'default');
  }
});

test('a backward jump whose target cannot reach it again is not a loop', () => {
  const c = ctxOf([
    's_cmp_eq_u32 s1, 0',
    's_cbranch_scc1 .Lother',
    '.Lshared:',
    'v_mov_b32 v0, 1',
    's_endpgm',
    '.Lother:',
    'v_mov_b32 v0, 2',
    's_branch .Lshared',
  ]);
  assert.deepEqual(kernelLoops(c), []);
});

test('a loop laid out rotated (header in the middle, entered by s_branch) is one loop, not two nested', () => {
  // LLVM's block placement as in ggml's soft_max_f32 (clang-22, gfx942): `.LA` and `.LB` come
  // before the header `.LH` in the text, all three "in Loop: Header=.LH Depth=1". The edge from
  // `.LH` back to `.LB` stays inside one iteration: `.LB`..`.LH` is entered at `.LH` from outside.
  const rotated = [
    's_mov_b32 s2, 0',
    's_branch .LH',
    '.LA:',
    'v_add_f32_e32 v1, v1, v2',
    '.LB:',
    's_or_b64 exec, exec, s[6:7]',
    's_add_i32 s2, s2, 1',
    's_cmp_ge_i32 s2, 100',
    's_cselect_b64 s[10:11], -1, 0',
    's_or_b64 s[8:9], s[10:11], s[8:9]',
    's_andn2_b64 exec, exec, s[8:9]',
    's_cbranch_execz .Lexit',
    '.LH:',
    'v_cmp_gt_u32_e32 vcc, s2, v0',
    's_and_saveexec_b64 s[6:7], vcc',
    's_cbranch_execz .LB',
    'v_mul_f32_e32 v2, v1, v1',
    's_branch .LA',
    '.Lexit:',
    's_endpgm',
  ];
  const loops = kernelLoops(ctxOf(rotated));
  assert.equal(loops.length, 1);
  assert.equal(loops[0]!.weight, DEFAULT_TRIP - 1);
  // a loop nested in it and entered at its own first block stays a loop
  const nested = rotated.map((l) => (l === 'v_mul_f32_e32 v2, v1, v1' ? 'v_mul_f32_e32 v2, v1, v1\n.Linner:\ns_sub_u32 s12, s12, 1\ns_cmp_lg_u32 s12, 0\ns_cbranch_scc1 .Linner' : l));
  const ln = kernelLoops(ctxOf(nested.join('\n').split('\n')));
  assert.equal(ln.length, 2);
  assert.equal(ln[1]!.parent, 0);
});

test('a loop whose if/else arms are laid out around its header is one loop over its blocks, not two overlapping ones', () => {
  // the project's lds_double_buffer kernel (clang-22, gfx942): the entry jumps to the header .LH;
  // one arm (.LA) and the exit test (.LB) come before it, the other arm after it, and both arms
  // reach .LB by layout-backward branches. Two loops of 64 iterations each were counted.
  const arms = [
    's_mov_b32 s2, 0', // 1
    's_branch .LH', // 2
    '.LA:',
    'v_add_f32_e32 v1, v1, v2', // 4
    '.LB:',
    's_add_i32 s2, s2, 1', // 6
    's_cmp_ge_i32 s2, 100',
    's_cbranch_scc1 .Lexit', // 8
    '.LH:',
    'v_mul_f32_e32 v2, v1, v1', // 10
    's_cmp_eq_u32 s3, 0',
    's_cbranch_scc0 .LA', // 12
    'v_sub_f32_e32 v1, v1, v2',
    's_branch .LB', // 14
    '.Lexit:',
    's_endpgm',
  ];
  const loops = kernelLoops(ctxOf(arms));
  assert.equal(loops.length, 1);
  assert.deepEqual([loops[0]!.line, loops[0]!.backEdgeLines], [4, [12, 14]]);
  assert.equal(loops[0]!.end - loops[0]!.start, 9, 'every instruction from .LA to the branch back to .LB');
  assert.equal(loops[0]!.weight, DEFAULT_TRIP - 1);
});

test('an outer loop whose latch is laid out before its header, around an inner loop left by a break, is found', () => {
  // a new user's trial (llc -O2, gfx942): the outer latch comes first, the header after it; the
  // inner loop's exit branches back to the outer latch
  const nested = [
    's_mov_b32 s0, 0', // 1
    's_branch .Lhdr', // 2
    '.Llatch:',
    's_add_u32 s0, s0, 1', // 4
    's_cmp_lt_u32 s0, 10',
    's_cbranch_scc0 .Lexit', // 6
    '.Lhdr:',
    'v_add_f32_e32 v1, v1, v2', // 8
    's_mov_b32 s1, 0',
    's_branch .Linner', // 10
    '.Linnerlatch:',
    's_cbranch_scc1 .Llatch', // 12
    '.Linner:',
    'v_add_f32_e32 v1, v1, v2', // 14
    's_add_u32 s1, s1, 1',
    's_cmp_lt_u32 s1, 10',
    's_branch .Linnerlatch', // 17
    '.Lexit:',
    's_endpgm',
  ];
  const loops = kernelLoops(ctxOf(nested));
  assert.deepEqual(loops.map((l) => [l.line, l.parent]), [[4, -1], [12, 0]]);
  // the inner loop runs 64 times per outer iteration: its weight is the outer's trip times its own less one
  assert.equal(loops[1]!.weight, (DEFAULT_TRIP - 1) * DEFAULT_TRIP);
});

/** One loop `.Lhead` whose body's first part may go back early (a `continue`): two back edges. */
const TWO_BACK = [
  's_mov_b32 s0, 10',
  '.Lhead:',
  'v_add_u32_e32 v1, v1, v2',
  's_sub_u32 s0, s0, 1',
  's_cmp_eq_u32 s0, 5',
  's_cbranch_scc1 .Lhead',
  'v_add_u32_e32 v3, v3, v2',
  's_cmp_lg_u32 s0, 0',
  's_cbranch_scc1 .Lhead',
  's_endpgm',
];
/** The same loop with one back edge: the early exit jumps to the loop's last compare. */
const ONE_BACK = [
  's_mov_b32 s0, 10',
  '.Lhead:',
  'v_add_u32_e32 v1, v1, v2',
  's_sub_u32 s0, s0, 1',
  's_cmp_eq_u32 s0, 5',
  's_cbranch_scc1 .Lskip',
  'v_add_u32_e32 v3, v3, v2',
  '.Lskip:',
  's_cmp_lg_u32 s0, 0',
  's_cbranch_scc1 .Lhead',
  's_endpgm',
];

test('back edges to one header make one loop: a two-back-edge loop costs what its one-back-edge form costs', () => {
  const two = ctxOf(TWO_BACK);
  const one = ctxOf(ONE_BACK);
  const lt = kernelLoops(two);
  assert.equal(lt.length, 1);
  assert.equal(lt[0]!.line, 3);
  assert.deepEqual(lt[0]!.backEdgeLines, [6, 9]);
  assert.equal(lt[0]!.parent, -1);
  assert.equal(lt[0]!.trip, 10);
  assert.equal(lt[0]!.tripFrom, 'code');
  assert.equal(lt[0]!.end - lt[0]!.start, 7);
  const lo = kernelLoops(one);
  assert.equal(lo.length, 1);
  assert.deepEqual(lo[0]!.backEdgeLines, [10]);
  const a = kernelTime(two);
  const b = kernelTime(one);
  assert.equal(a.loops.length, 1);
  assert.equal(a.cycles, b.cycles);
  assert.equal(a.cyclesOne, b.cyclesOne);
  assert.equal(a.loops[0]!.perIteration, b.loops[0]!.perIteration);
  // the step after the early back edge: not on every way round, so the count is not read
  const late = TWO_BACK.map((l) => (l === 's_sub_u32 s0, s0, 1' ? 's_nop 0' : l === 'v_add_u32_e32 v3, v3, v2' ? 's_sub_u32 s0, s0, 1' : l));
  assert.equal(kernelLoops(ctxOf(late))[0]!.tripFrom, 'default');
});

test('a loop inside another loop still multiplies: its weight is (trip - 1) x the outer trip', () => {
  const nested = [
    's_mov_b32 s1, 4',
    '.Louter:',
    's_mov_b32 s0, 8',
    '.Linner:',
    'v_add_u32_e32 v1, v1, v2',
    's_sub_u32 s0, s0, 1',
    's_cmp_lg_u32 s0, 0',
    's_cbranch_scc1 .Linner',
    'v_add_u32_e32 v3, v3, v2',
    's_sub_u32 s1, s1, 1',
    's_cmp_lg_u32 s1, 0',
    's_cbranch_scc1 .Louter',
    's_endpgm',
  ];
  const loops = kernelLoops(ctxOf(nested));
  assert.equal(loops.length, 2);
  assert.equal(loops[0]!.line, 3);
  assert.equal(loops[0]!.parent, -1);
  assert.equal(loops[0]!.trip, 4);
  assert.equal(loops[1]!.line, 5);
  assert.equal(loops[1]!.parent, 0);
  assert.equal(loops[1]!.trip, 8);
  assert.equal(loops[1]!.weight, 7 * 4);
  // an inner loop with two back edges is still one loop inside the outer one
  const inner2 = nested.flatMap((l) => (l === 's_sub_u32 s0, s0, 1' ? [l, 's_cmp_eq_u32 s0, 3', 's_cbranch_scc1 .Linner'] : [l]));
  const l2 = kernelLoops(ctxOf(inner2));
  assert.equal(l2.length, 2);
  assert.equal(l2[1]!.parent, 0);
  assert.equal(l2[1]!.backEdgeLines.length, 2);
  assert.equal(l2[1]!.weight, 7 * 4);
});

test('est_cycles = walk + weight x steady state per iteration, every wave together', () => {
  const c = ctxOf(COUNTED);
  const one = kernelTime(c, { waves: 1, bounds: true });
  assert.equal(one.loops.length, 1);
  const l = one.loops[0]!;
  assert.ok(Math.abs(one.cycles - (one.walk + 15 * l.perIteration)) < 1e-9);
  // the steady state of the body is the difference of 2k and k iterations (k >= 2)
  const e = cycleEngineFor(c);
  const body = walkOf(e, c).seq.subarray(l.loop.start, l.loop.end);
  assert.equal(steadyState(e, body, 1).all, l.perIteration);
  assert.equal(l.perIterationOne, l.perIteration);
  // one iteration waits for the global load (320 cycles): latency, not a pipe, binds
  assert.ok(l.perIteration >= 320, String(l.perIteration));
  assert.ok(['recurrence', 'critical path'].includes(l.bound!.limiter), l.bound!.limiter);
  assert.ok(l.bound!.bound <= l.perIteration);
  // four waves hide one another's waits: four times the work in the time of one, as long as no
  // pipe or the issue port is full; 64 waves fill the matrix pipe (16 cycles per iteration each)
  assert.equal(kernelTime(c, { waves: 4 }).loops[0]!.perIteration, l.perIteration);
  assert.equal(kernelTime(c, { waves: 64 }).loops[0]!.perIteration, 64 * 16);
  // the default waves: the occupancy the registers give (no descriptor here)
  assert.equal(kernelTime(c).waves, 8);
});

test('a loop body\'s iterations once the state repeats D later: the measures after k and 2k iterations are those every iteration run gives', () => {
  // loads in flight over the back edge (a prefetch read next iteration), an MFMA chain through the
  // back edge, and a body whose waits leave nothing in flight
  const bodies = [
    COUNTED,
    ['s_mov_b32 s0, 0', '.LBB0_1:', 'global_load_dwordx4 v[20:23], v[2:3], off', 'v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[4:5], v[8:11]',
      's_waitcnt vmcnt(1)', 'v_add_f32 v12, v24, v12', 'v_mov_b32 v24, v20', 'ds_write_b128 v30, v[20:23]', 's_add_i32 s0, s0, 1',
      's_cmp_lg_u32 s0, 64', 's_cbranch_scc1 .LBB0_1', 's_endpgm'],
    ['s_mov_b32 s0, 0', '.LBB0_1:', 'v_exp_f32 v1, v1', 'v_add_f32 v2, v1, v2', 's_add_i32 s0, s0, 1', 's_cmp_lg_u32 s0, 8', 's_cbranch_scc1 .LBB0_1', 's_endpgm'],
  ];
  periodStats.run = 0; periodStats.known = 0;
  for (const lines of bodies) {
    const c = ctxOf(lines);
    const e = cycleEngineFor(c);
    const l = kernelLoops(c)[0]!;
    const body = walkOf(e, c).seq.subarray(l.start, l.end);
    const taken = new Uint8Array(body.length);
    taken[body.length - 1] = 1;
    for (const [reset, at] of [[() => e.reset(1), () => e.drained(0)], [() => e.reset(1, false), () => e.time(0)]] as const) {
      for (const k of [2, 3, 8]) {
        const known = afterKand2K(e, body, taken, k, reset, at);
        const run = afterKand2K(e, body, taken, k, reset, at, false);
        assert.deepEqual(known, run, `${lines[2]}: k ${k}`);
      }
    }
  }
  assert.ok(periodStats.known > 0, 'the state repeated before the last iteration');
});

test('synthetic waits in the model wait like the s_waitcnt they stand for', () => {
  const c = ctxOf(['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0']);
  const e = cycleEngineFor(c);
  const written = runWaves(e, [0, 1, 2], 1);
  const parts: number[] = [];
  syntheticWait(e.m, 0, -1, -1, parts);
  assert.deepEqual(runWaves(e, [0, ...parts, 2], 1), written);
  assert.equal(written.one, 328);
  // in the interleaved simulation too (its parts take no issue-port cycle)
  assert.equal(e.runMulti([0, ...parts, 2], 3), e.runMulti([0, 1, 2], 3));
});

test('the fast estimate of est_cycles and the exact measure of the written program agree', () => {
  const text = COUNTED.map((l) => (l.startsWith('.') || l.endsWith(':') ? l : `  ${l}`)).join('\n') + '\n';
  const k = pickKernel(loadText(`.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nk:\n${text}`, 'k.s'));
  const ev = new Evaluator(k);
  const s0 = new ScheduleState(k);
  assert.equal(ev.evaluate(s0).est_cycles, programMetrics(k.loaded, k.name).est_cycles);
  const rand = mulberry32(11);
  let compared = 0;
  let worst = 0;
  for (let t = 0; t < 60; t++) {
    const s = randomSchedule(k, rand, 4);
    if (s.changedRegions().length === 0) continue;
    const fast = ev.evaluate(s).est_cycles;
    const exact = emitSchedule(s).metrics.est_cycles;
    worst = Math.max(worst, Math.abs(fast - exact) / exact);
    compared++;
  }
  assert.ok(compared >= 20, `only ${compared} schedules compared`);
  assert.ok(worst <= 0.03, `largest drift ${(worst * 100).toFixed(1)}%`);
});

test('objectives: est_cycles first by default, conductor names the register order; the occupancy floor', () => {
  assert.equal(DEFAULT_OBJECTIVE[0], 'est_cycles');
  assert.deepEqual(parseObjective('conductor'), [...CONDUCTOR_OBJECTIVE]);
  assert.deepEqual(parseObjective('est_cycles,s_nop'), ['est_cycles', 's_nop']);
  const m = (est: number, occ: number): Metrics => ({ peak_vgpr: 10, peak_agpr: 0, peak_sgpr: 0, s_waitcnt: 0, s_nop: 0, total_instructions: 1, occupancy: occ, est_cycles: est });
  assert.ok(compareMetrics(m(100, 4), m(200, 4), DEFAULT_OBJECTIVE, 4) < 0);
  // faster but below the floor: worse than anything at or above it
  assert.ok(compareMetrics(m(100, 3), m(200, 4), DEFAULT_OBJECTIVE, 4) > 0);
  assert.ok(compareMetrics(m(100, 3), m(200, 4), DEFAULT_OBJECTIVE) < 0);
});

test('the original order is kept where a move gains nothing', async () => {
  // two independent moves: one that gains nothing and one that hides the load
  const k = pickKernel(loadText([
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
    '  v_mov_b32 v10, 1', '  v_mov_b32 v11, 2', '  v_mov_b32 v12, 3', '  v_mov_b32 v13, 4',
    '  global_load_dword v1, v[2:3], off', '  s_waitcnt vmcnt(0)', '  v_add_f32 v4, v1, v1', '  s_endpgm', ''].join('\n'), 'p.s'));
  const ev = new Evaluator(k);
  const s = new ScheduleState(k);
  moveTo(s, 0, 1, 0); // v_mov_b32_1 before v_mov_b32_0: nothing gained
  moveTo(s, 0, 4, 0); // the load first: hides four instructions of its latency
  const r = preferOriginal(k, ev, s, { objective: DEFAULT_OBJECTIVE });
  const order = Array.from(r.state.order[0]!);
  assert.deepEqual(order.slice(0, 5), [4, 0, 1, 2, 3]);
  assert.ok(r.metrics.est_cycles < ev.evaluate(new ScheduleState(k)).est_cycles);
  // a whole run: only the move that gains is written
  const text = k.loaded.program.lines.map((l) => l.text + l.eol).join('');
  const run = await scheduleLoaded(loadText(text, 'p.s'), text, { budget: 200, cache: false, jobs: 1 });
  assert.match(run.text, /global_load_dword v1, v\[2:3\], off\n {2}v_mov_b32 v10, 1\n {2}v_mov_b32 v11, 2\n {2}v_mov_b32 v12, 3\n {2}v_mov_b32 v13, 4\n/);
});

/** An outer loop holding an inner one (the shape of LLVM's remainder loop inside a row loop). */
const NESTED = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
  '  s_mov_b32 s8, 0',
  'outer:',
  '  global_load_dwordx2 v[6:7], v[4:5], off',
  '  s_mov_b32 s2, 5',
  '  s_waitcnt vmcnt(0)',
  'inner:',
  '  global_load_dwordx2 v[10:11], v[8:9], off',
  '  s_add_i32 s2, s2, -1',
  '  s_cmp_lg_u32 s2, 0',
  '  s_waitcnt vmcnt(0)',
  '  v_fma_f64 v[6:7], -v[10:11], v[12:13], v[6:7]',
  '  s_cbranch_scc1 inner',
  '  global_store_dwordx2 v[4:5], v[6:7], off',
  '  s_add_i32 s8, s8, 1',
  '  s_cmp_ge_i32 s8, s11',
  '  s_cbranch_scc0 outer',
  '  s_endpgm',
];

test('loopChanges: an enclosing loop counts the loops directly inside it, and schedule says its figure walks them once', async () => {
  const ctx = ctxOf(NESTED);
  const changes = loopChanges(ctx, ctx, undefined);
  assert.deepEqual(changes.map((l) => [l.line, l.inner]), [[6, 1], [10, 0]]);
  const text0 = NESTED.join('\n') + '\n';
  const r = await scheduleLoaded(loadText(text0, 't.s'), text0, { budget: 30, jobs: 1, cache: false, pipeline: false });
  const text = formatSchedule(r);
  assert.match(text, /loop at line 6 [^\n]*; its inner loop counted once per iteration \(est_cycles counts the rest\)/);
  assert.doesNotMatch(text, /loop at line 10 [^\n]*inner loop/);
});

/** MIOpen conv7x7's counter: kept in lane 2 of v22 between iterations, s21 reused for a load in the body. */
const LANE = [
  's_movk_i32 s21, 3',
  'v_writelane_b32 v22, s6, 0',
  'v_writelane_b32 v22, s21, 2',
  '.Lch:',
  'v_readlane_b32 s6, v22, 0',
  's_load_dwordx2 s[20:21], s[0:1], 0x0',
  's_waitcnt lgkmcnt(0)',
  'v_mac_f32 v8, v0, s21',
  'v_readlane_b32 s21, v22, 2',
  's_sub_u32 s21, s21, 1',
  'v_writelane_b32 v22, s21, 2',
  's_cmp_gt_u32 s21, 0',
  's_cbranch_scc1 .Lch',
  's_endpgm',
];

test('trip count: a counter kept in a VGPR lane between iterations (v_readlane, step, v_writelane)', () => {
  const l = kernelLoops(ctxOf(LANE, 'gfx906'))[0]!;
  assert.deepEqual([l.trip, l.tripFrom], [3, 'code']);
  const unknown = (lines: string[]) => kernelLoops(ctxOf(lines, 'gfx906'))[0]!.tripFrom;
  // the lane written again in the body with another value, or the VGPR written whole: unknown
  assert.equal(unknown(LANE.map((x) => (x === 'v_mac_f32 v8, v0, s21' ? 'v_writelane_b32 v22, s7, 2' : x))), 'default');
  assert.equal(unknown(LANE.map((x) => (x === 'v_mac_f32 v8, v0, s21' ? 'v_mov_b32 v22, 0' : x))), 'default');
  // another lane written in the body: the count stands
  assert.equal(kernelLoops(ctxOf(LANE.map((x) => (x === 'v_mac_f32 v8, v0, s21' ? 'v_writelane_b32 v22, s7, 5' : x)), 'gfx906'))[0]!.trip, 3);
  // the lane set before the loop from a register of unknown value: unknown
  assert.equal(unknown(LANE.map((x) => (x === 's_movk_i32 s21, 3' ? 's_mov_b32 s21, s9' : x))), 'default');
  // the lane written before the compare's step: the lane and the compared value differ, unknown
  assert.equal(unknown([...LANE.slice(0, 9), 'v_writelane_b32 v22, s21, 2', 's_sub_u32 s21, s21, 1', ...LANE.slice(11)]), 'default');
});
