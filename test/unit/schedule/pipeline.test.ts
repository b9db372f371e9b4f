/**
 * Software pipelining by one stage (src/schedule/pipeline) and its proof (src/verify/pipeline.ts)
 * on hand-written loops, on both sides of each legality boundary: which loops are rotated and
 * why the others are not, the text written, verify accepting it and rejecting each kind of
 * broken variant, est_cycles' trip count for the rotated loop, and schedule choosing it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { prepareKernels } from '../../../src/schedule/kernel.js';
import { planPipelines, pipelineProgram, pipelineTwoStage } from '../../../src/schedule/pipeline/index.js';
import { verifyLoaded, formatVerify } from '../../../src/verify/verify.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { kernelLoops, loopChanges, type LoopChange } from '../../../src/cycles/kernel-time.js';
import { checkLoaded } from '../../../src/check/check.js';
import { noLoopFaster, scheduleFile } from '../../../src/schedule/search/run.js';
import { programMetrics } from '../../../src/schedule/metrics.js';
import { alignScheduled } from '../../../src/report/align.js';

/** After the loop: the accumulator stored at the last address the loop formed (v[26:27] and v0 live across the loop). */
const POST = ['s_nop 7', 'v_add_u32_e32 v0, v0, v2', 's_nop 1', 'global_store_dword v[26:27], v0, off'];

/** A gfx942 kernel: `pre` before the loop, `body` in it (ends before the back edge), `post` after it. */
function kernel(opts: { pre?: string[]; body: string[]; post?: string[]; end?: string[]; vgprs?: number; sgprs?: number; branch?: string }): string {
  return [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  s_load_dword s3, s[0:1], 0x20',
    '  s_load_dwordx4 s[4:7], s[0:1], 0x0',
    '  v_mov_b32 v23, 0',
    '  s_waitcnt lgkmcnt(0)',
    '  s_cmp_lt_i32 s3, 1',
    '  s_cbranch_scc1 .Lend',
    '  v_mov_b32 v2, 0', '  v_mov_b32 v3, 0', '  v_mov_b32 v4, 0', '  v_mov_b32 v5, 0',
    '  v_mov_b32 v22, v0',
    ...(opts.pre ?? []).map((l) => `  ${l}`),
    '.Lloop:',
    ...opts.body.map((l) => `  ${l}`),
    `  ${opts.branch ?? 's_cbranch_scc1 .Lloop'}`,
    ...(opts.post ?? POST).map((l) => `  ${l}`),
    '.Lend:',
    ...(opts.end ?? []).map((l) => `  ${l}`),
    '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k',
    `  .amdhsa_next_free_vgpr ${opts.vgprs ?? 32}`, `  .amdhsa_next_free_sgpr ${opts.sgprs ?? 8}`, `  .amdhsa_accum_offset ${Math.min(256, Math.ceil((opts.vgprs ?? 32) / 4) * 4)}`,
    '.end_amdhsa_kernel', '',
  ].join('\n');
}

/** The K-loop clang writes for an f32 MFMA: two loads, their address code, the counter, one MFMA. */
const LOOP = [
  'v_lshlrev_b64 v[24:25], 2, v[22:23]',
  'v_lshl_add_u64 v[26:27], s[4:5], 0, v[24:25]',
  'v_lshl_add_u64 v[24:25], s[6:7], 0, v[24:25]',
  'global_load_dword v1, v[26:27], off',
  'global_load_dword v28, v[24:25], off',
  's_add_i32 s3, s3, -1',
  's_cmp_lg_u32 s3, 0',
  'v_add_u32_e32 v22, 64, v22',
  's_waitcnt vmcnt(0)',
  'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]',
];

const load = (text: string, file = 'k.s') => loadText(text, file);
const plan = (text: string) => planPipelines(prepareKernels(load(text))[0]!);
const pipelined = (text: string) => {
  const k = prepareKernels(load(text))[0]!;
  const { plans } = planPipelines(k);
  assert.equal(plans.length, 1, 'one loop planned');
  return pipelineProgram(k, plans);
};
const texts = (text: string, idx: number[]) => idx.map((i) => prepareKernels(load(text))[0]!.insns[i]!.insn.text.trim());

test('pipeline plan: the clang K-loop, loads and address code rotated, free registers renamed', () => {
  const text = kernel({ body: LOOP });
  const { plans, refused } = plan(text);
  assert.deepEqual(refused, []);
  const p = plans[0]!;
  assert.deepEqual(texts(text, p.p), LOOP.slice(0, 5));
  assert.deepEqual(texts(text, p.r), ['s_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_add_u32_e32 v22, 64, v22', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]']);
  assert.equal(p.counter.step >>> 0, 0xffffffff);
  assert.equal(p.counter.loopBound, 1);
  assert.equal(p.counter.guardBound, 1);
  // v6.. are named nowhere and the descriptor covers them (v0 is live across the loop)
  assert.deepEqual(p.renames.map((r) => [r.from, r.to, r.count]), [[1, 6, 1], [28, 7, 1]]);
});

test('pipeline plan: every register the descriptor covers busy: the loads\' own address registers, else none (rotation only)', () => {
  const busy = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 29, 30, 31];
  const pre = busy.map((r) => `v_mov_b32 v${r}, 0`);
  const post = [...POST, ...busy.map((r) => `v_add_u32_e32 v0, v0, v${r}`)];
  const p = plan(kernel({ body: LOOP, pre, post })).plans[0]!;
  // v24/v25 are the second load's own address registers, free once it has issued; the first
  // load's (v26/v27) are live after the loop, and v24/v25 are read after it by the second load
  assert.deepEqual(p.renames.map((r) => [r.from, r.to]), [[28, 24]]);
  const none = kernel({ body: LOOP, pre, post: [...post, 'global_store_dword v[24:25], v0, off'] });
  assert.deepEqual(plan(none).plans[0]!.renames, []);
  // beyond the descriptor is never taken: v29.. are free but not covered by next_free_vgpr 29
  const p29 = plan(kernel({ body: LOOP, vgprs: 29, pre: pre.slice(0, 16), post: post.slice(0, POST.length + 16) })).plans[0]!;
  assert.deepEqual(p29.renames.map((r) => [r.from, r.to]), [[28, 24]]);
});

test('pipeline plan: refusals on the far side of each boundary', () => {
  const reason = (text: string) => plan(text).refused.map((r) => r.reason).join(' | ');
  // a sched_barrier in the loop: nothing moves across it, so no load starts an iteration early
  assert.match(reason(kernel({ body: [...LOOP.slice(0, 8), '; sched_barrier mask(0x00000000)', ...LOOP.slice(8)] })), /the loop holds a sched_barrier/);
  // a store before the load that may alias it: the load cannot start earlier
  const store = ['global_store_dword v[26:27], v2, off', ...LOOP];
  assert.match(reason(kernel({ body: store })), /global_load_dword v1, v\[26:27\], off' cannot move above 'global_store_dword v\[26:27\], v2, off'.*may alias/);
  // a store after the loads (it may write what the next iteration reads): rotated, and the
  // next iteration's loads stay behind it (see the verify test)
  const storeAfter = [...LOOP, 'global_store_dword v[26:27], v2, off'];
  assert.equal(plan(kernel({ body: storeAfter })).plans.length, 1);
  // the address depends on a value the iteration computes from an MFMA result
  const late = ['v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]', 's_nop 7', 'v_cvt_u32_f32_e32 v22, v2', ...LOOP.slice(0, 9)];
  assert.match(reason(kernel({ body: late })), /its address depends on 'v_mfma_f32_16x16x4_f32/);
  // the address computed late in the body from the previous iteration: rotated (a loop-carried value)
  const carried = [...LOOP.slice(0, 7), 's_waitcnt vmcnt(0)', LOOP[9]!, 'v_add_u32_e32 v22, 64, v22'];
  assert.equal(plan(kernel({ body: carried })).plans.length, 1);
  // a trip count of one from the code
  const once = kernel({ pre: ['s_mov_b32 s3, 1'], body: LOOP });
  assert.match(reason(once), /runs once/);
  const twice = kernel({ pre: ['s_mov_b32 s3, 2'], body: LOOP });
  assert.equal(plan(twice).plans[0]!.trip, 2);
  // a compare of two registers both written in the loop, a barrier in the loop, a compare of a register the loop does not step
  assert.match(reason(kernel({ body: ['s_add_i32 s2, s2, 1', ...LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_lg_u32 s3, s2'))] })), /two SGPRs are both written in the loop/);
  assert.match(reason(kernel({ body: [...LOOP, 's_barrier'] })), /must stay in place: 's_barrier'/);
  assert.match(reason(kernel({ body: LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_lg_u32 s2, 0')) })), /does not read an SGPR the loop steps/);
  // a float literal is its bits (-1.0 is 0xbf800000), no integer: neither a step nor a bound
  assert.match(reason(kernel({ body: LOOP.map((l) => l.replace('s_add_i32 s3, s3, -1', 's_add_i32 s3, s3, -1.0')) })), /the counter step 's_add_i32 s3, s3, -1.0' is not a constant added to the counter/);
  assert.match(reason(kernel({ body: LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_lg_u32 s3, 4.0')) })), /does not compare its counter with a constant or an SGPR/);
  // SCC live into the loop
  const sccLive = kernel({ body: ['s_addc_u32 s8, s8, 0', ...LOOP] });
  assert.match(reason(sccLive), /SCC is live into the loop/);
  // address code that writes SCC (the guard overwrites SCC between the first iteration's loads and the loop)
  const sccP = kernel({ body: ['s_add_u32 s8, s4, 0x100', 's_addc_u32 s9, s5, 0', 'global_load_dword v1, v22, s[8:9]', ...LOOP.slice(4)] });
  assert.match(reason(sccP), /'s_add_u32 s8, s4, 0x100' in the loads' address code writes SCC/);
  // no load
  assert.match(reason(kernel({ body: LOOP.filter((l) => !l.startsWith('global_load')).map((l) => l.replace('v1, v28', 'v22, v23')) })), /no vector-memory load/);
});

/** The K-loop compared with a bound in s2 (clang's loop over a runtime trip count: `s_cmp_eq_u32 s6, s13`). */
const SGPR_BOUND = LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_lg_u32 s3, s2'));
const LOAD_S2 = ['s_load_dword s2, s[0:1], 0x24', 's_waitcnt lgkmcnt(0)'];

test('pipeline plan: a compare the constant one step on cannot rotate tests the counter\'s next value, made in a free SGPR (a bound in an SGPR, lt/ge, going on while equal)', () => {
  // lg/eq with a constant, going on while different: the compare with the constant one step on, as before
  assert.equal(plan(kernel({ body: LOOP })).plans[0]!.counter.form, 'bound');
  const p = plan(kernel({ pre: LOAD_S2, body: SGPR_BOUND })).plans[0]!;
  assert.equal(p.counter.form, 'next');
  assert.equal(p.counter.boundSgpr, 2);
  // s0: the kernarg pointer, dead once s2 is loaded (s1 too; s2..s7 are live in the loop)
  assert.equal(p.counter.temp, 0);
  assert.equal(p.counter.growSgpr, undefined);
  assert.match(p.twoStageRefused!, /two stages rotate only a compare of the counter with a constant/);
  // a signed up-count to a constant (`for (i = 0; i < 64; i += 4)`: ge, back on scc0) and a loop going on while equal
  const ge = kernel({ body: LOOP.map((l) => l.replace('s_add_i32 s3, s3, -1', 's_add_i32 s3, s3, 4').replace('s_cmp_lg_u32 s3, 0', 's_cmp_ge_i32 s3, 64')), branch: 's_cbranch_scc0 .Lloop' });
  const pg = plan(ge).plans[0]!;
  assert.deepEqual([pg.counter.form, pg.counter.op, pg.counter.bound, pg.counter.step], ['next', 'ge', 64, 4]);
  const eq = plan(kernel({ body: LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_eq_u32 s3, 0')) })).plans[0]!;
  assert.equal(eq.counter.form, 'next');
  // the counter in the compare's second operand
  const second = plan(kernel({ pre: LOAD_S2, body: LOOP.map((l) => l.replace('s_cmp_lg_u32 s3, 0', 's_cmp_lg_u32 s2, s3')) })).plans[0]!;
  assert.deepEqual([second.counter.counterOperand, second.counter.boundSgpr], [1, 2]);
  // a kernel that reads or writes SGPRs by M0: liveness cannot tell a free SGPR
  const rel = kernel({ pre: [...LOAD_S2, 's_mov_b32 m0, 0', 's_movrels_b32 s8, s0'], body: SGPR_BOUND });
  assert.match(plan(rel).refused.map((r) => r.reason).join(' | '), /reads or writes SGPRs by M0 \('s_movrels_b32 s8, s0'\)/);
  // and the scheduler moves nothing across it
  const kr = prepareKernels(load(rel))[0]!;
  const at = kr.insns.findIndex((r) => r.insn.base === 's_movrels_b32');
  assert.match(kr.pinReason[at]!, /an SGPR access indexed by M0/);
  // an s_addk step cannot make the next value elsewhere
  const addk = kernel({ pre: LOAD_S2, body: SGPR_BOUND.map((l) => l.replace('s_add_i32 s3, s3, -1', 's_addk_i32 s3, 0xffff')) });
  assert.match(plan(addk).refused.map((r) => r.reason).join(' | '), /\(s_addk\) cannot make the next value elsewhere/);
});

test('pipeline plan: no SGPR free across the loop: the allocation grows by one where the occupancy stays, else refused', () => {
  // s0..s2 read after the loop, s3..s7 in it: every SGPR of next_free_sgpr 8 busy
  const post = [...POST, 's_cmp_eq_u32 s0, s1', 's_cselect_b32 s0, s2, 0', 's_nop 0'];
  const text = kernel({ pre: LOAD_S2, body: SGPR_BOUND, post });
  const p = plan(text).plans[0]!;
  assert.deepEqual([p.counter.temp, p.counter.growSgpr], [8, 9]);
  const meta = ['.amdgpu_metadata', '---', 'amdhsa.kernels:', '  - .name: k', '    .sgpr_count: 14', '    .vgpr_count: 32', '...', '.end_amdgpu_metadata', ''].join('\n');
  const out = pipelined(text + meta);
  assert.match(out.text, /\.amdhsa_next_free_sgpr 9\n/);
  assert.match(out.text, /\.sgpr_count: 15\n/);
  assert.match(out.text, /\.vgpr_count: 32\n/);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const v = verifyLoaded(load(text + meta, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  // at the largest allocation (102) there is nothing to grow into
  const all = Array.from({ length: 102 }, (_, x) => x).filter((x) => x > 7);
  const full = kernel({ pre: [...LOAD_S2, ...all.map((x) => `s_mov_b32 s${x}, 0`)], body: SGPR_BOUND, post: [...post, ...all.map((x) => `s_cmp_eq_u32 s${x}, 0`)], sgprs: 102 });
  assert.match(plan(full).refused.map((r) => r.reason).join(' | '), /no SGPR is free across the loop .* cannot grow by one at the same occupancy/);
});

test('pipeline transform, next-value form: the guard and the loop make the next value with the step and compare it as the original; clean, equivalent by verify', () => {
  const text = kernel({ pre: LOAD_S2, body: SGPR_BOUND });
  const out = pipelined(text);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const lines = out.text.split('\n').map((l) => l.trim());
  const at = (s: string, from = 0) => lines.indexOf(s, from);
  const loop = at('.Lloop:');
  const peel = at('.Lpipelined_peel0:');
  // before the loop: the first iteration's loads, then the guard on the next value
  assert.deepEqual(lines.slice(at('s_add_i32 s0, s3, -1'), loop), ['s_add_i32 s0, s3, -1', 's_cmp_lg_u32 s0, s2', 's_cbranch_scc0 .Lpipelined_peel0']);
  assert.ok(at('global_load_dword v6, v[26:27], off') < at('s_add_i32 s0, s3, -1'));
  // in the loop: the step, the next value after it, its compare; the peeled iteration compares the counter as written
  const body = lines.slice(loop + 1, at('s_cbranch_scc1 .Lloop')).filter((l) => !l.startsWith('s_waitcnt') && !l.startsWith('s_nop'));
  assert.ok(body.indexOf('s_add_i32 s3, s3, -1') < body.indexOf('s_add_i32 s0, s3, -1'));
  assert.equal(body.indexOf('s_cmp_lg_u32 s0, s2'), body.indexOf('s_add_i32 s0, s3, -1') + 1);
  assert.ok(!body.includes('s_cmp_lg_u32 s3, s2'));
  assert.ok(at('s_cmp_lg_u32 s3, s2', peel) > peel);
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
  // lt/ge up-count to a constant: the same form, verified
  const ge = kernel({ body: LOOP.map((l) => l.replace('s_add_i32 s3, s3, -1', 's_add_i32 s3, s3, 4').replace('s_cmp_lg_u32 s3, 0', 's_cmp_ge_i32 s3, 64')), branch: 's_cbranch_scc0 .Lloop' });
  const og = pipelined(ge);
  assert.match(og.text, /s_add_i32 s0, s3, 4\n\s*s_cmp_ge_i32 s0, 64\n\s*s_cbranch_scc1 \.Lpipelined_peel0/);
  const vg = verifyLoaded(load(ge, 'orig.s'), load(og.text, 'piped.s'));
  assert.equal(vg.equivalent, true, vg.difference?.message);
});

test('verify rejects broken next-value loops: each kind', () => {
  const text = kernel({ pre: LOAD_S2, body: SGPR_BOUND });
  const good = pipelined(text).text;
  const judge = judgeAgainst(text);
  assert.equal(judge(good).equivalent, true);
  // the loop's next value made with another step: it would leave at another count
  let r = judge(edit(good, nth('s_add_i32 s0, s3, -1', 1), (l) => [l.replace('-1', '-2')]));
  assert.equal(r.difference?.kind, 'pipelined-loop');
  assert.match(r.difference!.message, /is not made by the original's step 's_add_i32 s3, s3, -1'/);
  // the guard compares the counter itself (one iteration late)
  r = judge(edit(good, nth('s_cmp_lg_u32 s0, s2', 0), () => ['  s_cmp_lg_u32 s3, s2']));
  assert.match(r.difference!.message, /the guard does not test the counter's next value as the original's compare does/);
  // the guard compares with another bound
  r = judge(edit(good, nth('s_cmp_lg_u32 s0, s2', 0), () => ['  s_cmp_lg_u32 s0, s1']));
  assert.match(r.difference!.message, /the guard does not test .*does not read the original's bound/);
  // the next value made before the step in the loop: it is the current value
  r = judge(moveInLoop(good, 's_add_i32 s0, s3, -1', 's_add_i32 s3, s3, -1'));
  assert.match(r.difference!.message, /does not test the counter's next value \('s_add_i32 s3, s3, -1' writes the counter, the bound or the next value after the next value is made\)/);
  // the next value made by an s_addk of t itself (t + s, not the counter + s)
  r = judge(edit(good, nth('s_add_i32 s0, s3, -1', 1), () => ['  s_addk_i32 s0, 0xffff']));
  assert.match(r.difference!.message, /the compared SGPR is not made by the original's step 's_add_i32 s3, s3, -1' from the counter/);
  // another branch into the loop's label, in both files: it enters the rotated loop past the guard and the first loads
  const side = (t: string) => edit(t, (l) => l === 's_cbranch_scc1 .Lend', (l) => [l, '  s_cbranch_vccz .Lloop']);
  r = judgeAgainst(side(text))(side(good));
  assert.match(r.difference!.message, /'s_cbranch_vccz \.Lloop' \(orig\.s:\d+\) names the loop's label in the original: the loop is entered other than by falling into it/);
  // the bound written in the pipelined loop (the original's never changes)
  r = judge(edit(good, (l) => l === '.Lloop:', (l) => [l, '  s_mov_b32 s2, s2']));
  assert.match(r.difference!.message, /the pipelined loop writes the bound s2/);
  // the next value's SGPR read by other code in the loop after it is made
  r = judge(edit(good, nth('s_cmp_lg_u32 s0, s2', 1), (l) => [l, '  s_add_u32 s8, s0, 0']).replace('.amdhsa_next_free_sgpr 8', '.amdhsa_next_free_sgpr 9'));
  assert.equal(r.equivalent, false);
  // the next value in a register live after the loop (s4, the address base the stores read): values differ
  r = judge(good.replace(/\bs0\b/g, 's4'));
  assert.equal(r.equivalent, false);
});

test('pipeline transform: the text written, clean, equivalent by verify, assembled shape', () => {
  const text = kernel({ body: LOOP });
  const out = pipelined(text);
  assert.equal(out.loops.length, 1);
  assert.equal(out.loops[0]!.renamed, 2);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const lines = out.text.split('\n').map((l) => l.trim());
  const at = (s: string) => lines.indexOf(s);
  // prologue and guard before the loop, copies first in the body, the next loads last, the peel after it
  assert.ok(at('global_load_dword v6, v[26:27], off') < at('.Lloop:'));
  assert.ok(at('s_cmp_lg_u32 s3, 1') < at('s_cbranch_scc0 .Lpipelined_peel0'));
  assert.ok(at('s_cbranch_scc0 .Lpipelined_peel0') < at('.Lloop:'));
  const body = lines.slice(at('.Lloop:') + 1, at('s_cbranch_scc1 .Lloop'));
  assert.deepEqual(body.filter((l) => !l.startsWith('s_waitcnt') && !l.startsWith('s_nop')), [
    'v_mov_b32_e32 v1, v6', 'v_mov_b32_e32 v28, v7', 's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 1', 'v_add_u32_e32 v22, 64, v22',
    'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]', ...LOOP.slice(0, 3), 'global_load_dword v6, v[26:27], off', 'global_load_dword v7, v[24:25], off',
  ]);
  assert.match(body[0]!, /^s_waitcnt vmcnt\(\d\)$/, 'the copies wait for the loads of the iteration before');
  const peel = lines.slice(at('.Lpipelined_peel0:') + 1);
  // the peeled iteration reads the renamed registers itself (v1 and v28 are dead after the loop): no copies there
  assert.deepEqual(peel.filter((l) => !l.startsWith('s_waitcnt') && !l.startsWith('s_nop')).slice(0, 4), [
    's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_add_u32_e32 v22, 64, v22', 'v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]',
  ]);
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
  assert.match(formatVerify(v, 'orig.s', 'piped.s'), /1 pipelined loop: the same values for trip counts 1 to 4, the trip counts matched for every start value/);
});

/**
 * The K-loop with a spill and its reload after the MFMA (what clang writes under register
 * pressure): the reloads join a soft clause with the stores that read the registers they write,
 * a warning when the target id leaves XNACK unspecified (LLVM pads it: the code object may run
 * with XNACK on). Trial finding (clang-22 gfx90a spill kernel, anneal's pipelined candidate): the
 * peeled iteration kept the shortfall unpadded, since check --fix pads errors only.
 */
test('pipeline: a soft clause the target id leaves to XNACK is padded in the loop and in the peeled iteration', () => {
  const spill = [
    'buffer_store_dword v29, off, s[4:7], 0 offset:4', 'buffer_store_dword v30, off, s[4:7], 0 offset:8',
    'buffer_load_dword v29, off, s[4:7], 0 offset:12', 'buffer_load_dword v30, off, s[4:7], 0 offset:16',
    's_waitcnt vmcnt(0)', 'v_add_u32_e32 v0, v0, v29', 'v_add_u32_e32 v0, v0, v30',
  ];
  const text = kernel({ body: [...LOOP, ...spill] });
  const soft = (l: ReturnType<typeof load>) => checkLoaded(l).kernels.flatMap((x) => x.findings).filter((f) => f.rule === 'xnack-soft-clause');
  assert.equal(soft(load(text)).length, 1, 'the input: one warning');
  const out = pipelined(text);
  assert.equal(out.loops.length, 1);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  assert.deepEqual(soft(out.loaded).map((f) => f.message), []);
  const lines = out.text.split('\n').map((l) => l.trim());
  const padded = lines.flatMap((l, i) => (l === 's_nop 0' && lines[i - 1] === 'buffer_load_dword v29, off, s[4:7], 0 offset:12' ? [i] : []));
  assert.equal(padded.length, 2, 'one s_nop in the loop, one in the peel');
  assert.ok(padded[1]! > lines.indexOf('.Lpipelined_peel0:'));
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
});

/** The K-loop staging its data through LDS: the loads' data written to LDS, a release wait (a fence: pinned), then read back. */
const LDS_LOOP = [
  ...LOOP.slice(0, 8),
  's_waitcnt vmcnt(0)',
  'ds_write2_b32 v23, v1, v28 offset1:1',
  's_waitcnt lgkmcnt(0)',
  'ds_read_b64 v[30:31], v23',
  's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x4_f32 v[2:5], v30, v31, v[2:5]',
];

test('pipeline: a fence wait in the loop stays in its place in R (loop and peel); P before it rotates, a load after it stays', () => {
  const text = kernel({ body: LDS_LOOP });
  const k = prepareKernels(load(text))[0]!;
  const fenceAt = k.insns.findIndex((r, i) => r.insn.text.trim() === 's_waitcnt lgkmcnt(0)' && k.insns[i - 1]!.insn.base.startsWith('ds_write'));
  assert.ok(fenceAt > 0 && k.pinReason[fenceAt]!.includes('fence'), 'the release wait is pinned');
  const { plans, refused } = planPipelines(k);
  assert.deepEqual(refused, []);
  assert.deepEqual(plans[0]!.fences, [fenceAt]);
  assert.deepEqual(texts(text, plans[0]!.p), LOOP.slice(0, 5));
  const out = pipelineProgram(k, plans);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const lines = out.text.split('\n').map((l) => l.trim());
  const between = (from: number, to: number) => lines.slice(from, to).filter((l) => /^(ds_|s_waitcnt lgkmcnt\(0\))/.test(l)).slice(0, 3);
  const loopAt = lines.indexOf('.Lloop:');
  const peelAt = lines.indexOf('.Lpipelined_peel0:');
  // the release wait sits between the LDS write and the read, in the loop and in the peel
  for (const from of [loopAt, peelAt]) {
    const [w, fence, rd] = between(from, lines.length);
    assert.match(w!, /^ds_write2_b32 v23, v\d+, v\d+ offset1:1$/); // the peel reads the renamed registers
    assert.deepEqual([fence, rd], ['s_waitcnt lgkmcnt(0)', 'ds_read_b64 v[30:31], v23']);
  }
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
  // a load whose address code lies after the fence would cross it: it stays, and with it the loop
  const late = [...LOOP.slice(5, 8), 'ds_write_b32 v23, v2', 's_waitcnt lgkmcnt(0)', 'ds_read_b64 v[30:31], v23', ...LOOP.slice(0, 5), ...LDS_LOOP.slice(12)];
  const r = plan(kernel({ body: late }));
  assert.equal(r.plans.length, 0);
  assert.match(r.refused[0]!.reason, /is after the fence wait 's_waitcnt lgkmcnt\(0\)'/);
});

test('est_cycles: the rotated loop counts one iteration less than the trip it stands for; a trip from the code counts exactly', () => {
  const out = pipelined(kernel({ body: LOOP }));
  const loops = kernelLoops(kernelContexts(out.loaded)[0]!, 10);
  assert.equal(loops[0]!.trip, 9);
  assert.equal(kernelLoops(kernelContexts(load(kernel({ body: LOOP })))[0]!, 10)[0]!.trip, 10);
  const fixed = pipelined(kernel({ pre: ['s_mov_b32 s3, 16'], body: LOOP }));
  assert.equal(kernelLoops(kernelContexts(fixed.loaded)[0]!)[0]!.trip, 15);
  assert.equal(kernelLoops(kernelContexts(fixed.loaded)[0]!)[0]!.tripFrom, 'code');
  // schedule's loop line gives the source loop's trip (16 from the code; 10 from --trip), not the written-out loop's
  const source = load(kernel({ pre: ['s_mov_b32 s3, 16'], body: LOOP }));
  const ch = loopChanges(kernelContexts(source)[0]!, kernelContexts(fixed.loaded)[0]!, undefined);
  assert.deepEqual([ch[0]!.trip, ch[0]!.tripFrom, ch[0]!.weight], [16, 'code', 14]);
  const ch10 = loopChanges(kernelContexts(load(kernel({ body: LOOP })))[0]!, kernelContexts(out.loaded)[0]!, 10);
  assert.deepEqual([ch10[0]!.trip, ch10[0]!.tripFrom, ch10[0]!.weight], [10, 'option', 8]);
  // the next-value form: the compare reads the counter plus its step (`for (i = 0; i < 64; i += 4)`: 16 from the code)
  const up = kernel({ pre: ['s_mov_b32 s3, 0'], body: LOOP.map((l) => l.replace('s_add_i32 s3, s3, -1', 's_add_i32 s3, s3, 4').replace('s_cmp_lg_u32 s3, 0', 's_cmp_ge_i32 s3, 64')), branch: 's_cbranch_scc0 .Lloop' });
  const upOut = pipelined(up);
  assert.equal(plan(up).plans[0]!.counter.form, 'next');
  assert.deepEqual([kernelLoops(kernelContexts(load(up))[0]!)[0]!.trip, kernelLoops(kernelContexts(upOut.loaded)[0]!)[0]!.trip], [16, 15]);
  assert.equal(kernelLoops(kernelContexts(upOut.loaded)[0]!)[0]!.tripFrom, 'code');
});

/** The first line `what` after the loop's label moved in front of the first line `before` there (trimmed matches; `what` comes later). */
function moveInLoop(text: string, what: string, before: string): string {
  const lines = text.split('\n');
  const loop = lines.findIndex((l) => l.trim() === '.Lloop:');
  const from = lines.findIndex((l, i) => i > loop && l.trim() === what);
  const to = lines.findIndex((l, i) => i > loop && l.trim() === before);
  const [x] = lines.splice(from, 1);
  lines.splice(to, 0, x!);
  return lines.join('\n');
}

/** A line matcher for edit(): the n-th (from 0) line whose trimmed text is `s`. */
const nth = (s: string, n: number) => (l: string, i: number, all: string[]) => l === s && all.slice(0, i).filter((x) => x.trim() === s).length === n;

/** verify of a scheduled text against the original `text`. */
function judgeAgainst(text: string): (t: string) => ReturnType<typeof verifyLoaded> {
  const orig = load(text, 'orig.s');
  return (t) => verifyLoaded(orig, load(t, 'bad.s'));
}

/** Replace a line of the pipelined text (trimmed match) by others. */
function edit(text: string, find: (line: string, index: number, all: string[]) => boolean, by: (line: string) => string[]): string {
  const lines = text.split('\n');
  const out: string[] = [];
  lines.forEach((l, i) => { if (find(l.trim(), i, lines)) out.push(...by(l)); else out.push(l); });
  return out.join('\n');
}

test('verify rejects broken pipelined loops: each kind', () => {
  const text = kernel({ body: LOOP });
  const good = pipelined(text).text;
  const judge = judgeAgainst(text);
  const firstIndex = (t: string, s: string) => t.split('\n').findIndex((l) => l.trim() === s);
  // the guard's constant
  let r = judge(edit(good, nth('s_cmp_lg_u32 s3, 1', 0), (l) => [l.replace(', 1', ', 2')]));
  assert.equal(r.difference?.kind, 'pipelined-loop');
  assert.match(r.difference!.message, /guard's constant is 2, not 1/);
  // the loop's compare left as it was: it would run one iteration too many
  r = judge(edit(good, nth('s_cmp_lg_u32 s3, 1', 1), (l) => [l.replace(', 1', ', 0')]));
  assert.match(r.difference!.message, /compare constant is 0, not one step before the original's 0/);
  // the guard on the wrong sense
  r = judge(edit(good, (l) => l === 's_cbranch_scc0 .Lpipelined_peel0', (l) => [l.replace('scc0', 'scc1')]));
  assert.match(r.difference!.message, /guard does not leave on the original's exit test/);
  // no guard at all: the peel's label, named by nothing then, is no anchor (cfg.ts debugOnlyLabels),
  // and the first iteration's loads before the loop are code the original does not have there
  r = judge(edit(good, (l) => l === 's_cbranch_scc0 .Lpipelined_peel0', () => []));
  assert.equal(r.difference?.kind, 'region-contents');
  assert.match(r.difference!.message, /'global_load_dword v6, v\[26:27\], off' appears fewer times in the original \(absent\)/);
  // the peeled iteration reading the copied-to register, which holds the iteration before's value
  r = judge(edit(good, nth('v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]', 0), (l) => [l.replace('v7', 'v28')]));
  assert.match(r.difference!.message, /run with trip count 1: ('v_mfma_f32_16x16x4_f32 v\[2:5\], v6, v28, v\[2:5\]' \(bad\.s:\d+\) computes a value the original does not compute there|v[0-5] does not hold the same value)/);
  // the peeled iteration compares before its step: SCC is dead after the loop, but every
  // instruction reads the producers it reads in the original, as for any reordering
  r = judge(edit(good, nth('s_add_i32 s3, s3, -1', 1), () => []).replace(/(\n\s*s_cmp_lg_u32 s3, 0)/, '\n  s_add_i32 s3, s3, -1$1'));
  assert.equal(r.equivalent, true, `the same order again: ${r.difference?.message}`);
  const peelLines = good.split('\n');
  const pa = peelLines.findIndex((l, i) => i > firstIndex(good, '.Lpipelined_peel0:') && l.trim() === 's_add_i32 s3, s3, -1');
  const pc = peelLines.findIndex((l, i) => i > firstIndex(good, '.Lpipelined_peel0:') && l.trim() === 's_cmp_lg_u32 s3, 0');
  [peelLines[pa], peelLines[pc]] = [peelLines[pc]!, peelLines[pa]!];
  r = judge(peelLines.join('\n'));
  assert.match(r.difference!.message, /'s_cmp_lg_u32 s3, 0' \(bad\.s:\d+\) computes a value the original does not compute there/);
  // the next iteration's load placed before the copy that reads the current one
  const body0 = firstIndex(good, '.Lloop:');
  const lines = good.split('\n');
  const loadAt = lines.findIndex((l, i) => i > body0 && l.trim() === 'global_load_dword v7, v[24:25], off');
  const copyAt = lines.findIndex((l, i) => i > body0 && l.trim() === 'v_mov_b32_e32 v28, v7');
  const moved = lines.slice();
  const [ld] = moved.splice(loadAt, 1);
  moved.splice(copyAt, 0, ld!.replace('v[24:25]', 'v[26:27]'));
  r = judge(moved.join('\n'));
  assert.equal(r.equivalent, false);
  // a renamed register still live after the loop: v0 instead of v6 (the store after the loop reads v0)
  r = judge(good.replace(/v6\b/g, 'v0'));
  assert.match(r.difference!.message, /'v_add_u32_e32 v0, v0, v2' \(bad\.s:\d+\) computes a value the original does not compute there/);
  // live after the region itself: no store reads it, the code after the loop does
  const keepV0 = kernel({ body: LOOP, post: ['s_nop 7', 'v_mov_b32 v1, v2', 's_branch .Lend'], end: ['global_store_dword v[26:27], v0, off'] });
  const pk = pipelined(keepV0).text;
  r = verifyLoaded(load(keepV0, 'orig.s'), load(pk.replace(/v6\b/g, 'v0'), 'bad.s'));
  assert.match(r.difference!.message, /v0 does not hold the same value after the loop in both files \(it is live there\)/);
});

test('verify: a store the next iteration may read keeps the next loads behind it', () => {
  const text = kernel({ body: [...LOOP, 'global_store_dword v[26:27], v2, off'] });
  const good = pipelined(text).text;
  const orig = load(text, 'orig.s');
  assert.equal(verifyLoaded(orig, load(good, 'ok.s')).equivalent, true);
  // move the store after the next iteration's loads (the loop body's last instructions)
  const lines = good.split('\n');
  const body0 = lines.findIndex((l) => l.trim() === '.Lloop:');
  const st = lines.findIndex((l, i) => i > body0 && l.trim() === 'global_store_dword v[26:27], v2, off');
  const back = lines.findIndex((l, i) => i > body0 && l.trim() === 's_cbranch_scc1 .Lloop');
  const moved = lines.slice();
  const [s] = moved.splice(st, 1);
  moved.splice(back - 1, 0, s!);
  const r = verifyLoaded(orig, load(moved.join('\n'), 'bad.s'));
  assert.equal(r.equivalent, false);
  assert.match(r.difference!.message, /trip count 2: .*(may alias|not made with the same address|does not access memory|'global_load_dword v6, v\[26:27\], off' \(bad\.s:\d+\) computes a value the original does not compute)/);
});

/** Swap every pair of consecutive lines (trimmed) `a`, `b` of a text: in the loop body and in the peeled iteration. */
function swapEach(text: string, a: string, b: string): string {
  const lines = text.split('\n');
  let n = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    if (lines[i]!.trim() === a && lines[i + 1]!.trim() === b) { [lines[i], lines[i + 1]] = [lines[i + 1]!, lines[i]!]; n++; i++; }
  }
  assert.equal(n, 2, `the pair is in the loop body and in the peeled iteration: ${a} / ${b}`);
  return lines.join('\n');
}

test('verify: two stores that cannot alias each other may change order before a load that may alias both (spill stores before a global access)', () => {
  // reduced from a clang-22 gfx908 kernel spilling to scratch in its loop: two spill stores to
  // disjoint dwords of one buffer, then global accesses (a buffer and a global access may alias:
  // verify's rule). The scheduler swaps the spill stores; the value every later global access
  // reads is the same. verify's run used to name the earlier stores in program order, so the
  // global store after the peeled iteration (trip count 1) "read another producer".
  const st0 = 'buffer_store_dword v2, off, s[8:11], 0';
  const st4 = 'buffer_store_dword v3, off, s[8:11], 0 offset:4';
  const scratch = (body: string[]) => kernel({ body }).replace('.amdhsa_next_free_sgpr 8', '.amdhsa_next_free_sgpr 12');
  const text = scratch([...LOOP, st0, st4]);
  const good = pipelined(text).text;
  const orig = load(text, 'orig.s');
  let r = verifyLoaded(orig, load(good, 'ok.s'));
  assert.equal(r.equivalent, true, r.difference?.message);
  r = verifyLoaded(orig, load(swapEach(good, st0, st4), 'swapped.s'));
  assert.equal(r.equivalent, true, r.difference?.message);
  assert.equal(r.kernels[0]!.pipelinedLoops, 1);
  // stores to the same dword keep their order: swapped, the program differs
  const st0b = 'buffer_store_dword v3, off, s[8:11], 0';
  const same = scratch([...LOOP, st0, st0b]);
  const sameGood = pipelined(same).text;
  r = verifyLoaded(load(same, 'orig.s'), load(swapEach(sameGood, st0, st0b), 'bad.s'));
  assert.equal(r.equivalent, false);
  // (the second store's value names the first, or the order check finds the pair)
  assert.match(r.difference!.message, /trip count 1: .*('buffer_store_dword v\d, off, s\[8:11\], 0' \(bad\.s:\d+\) computes a value the original does not compute there|may alias .* and changed order)/);
});

test('schedule: the pipelined candidate wins on the K-loop, verifies, and one wave gets faster', async () => {
  const text = kernel({ body: LOOP });
  const loaded = load(text);
  const f = await scheduleFile(loaded, text, { budget: 200, jobs: 1, cache: false });
  const k = f.kernels[0]!;
  assert.ok(k.pipelined && k.pipelined.length === 1, `pipelined: ${k.strategy}`);
  assert.match(k.strategy, /^pipelined /);
  assert.ok(k.after.est_cycles <= k.before.est_cycles);
  assert.ok((k.after.wave_cycles ?? 0) < (k.before.wave_cycles ?? 0) * 0.95, `one wave ${k.before.wave_cycles} -> ${k.after.wave_cycles}`);
  const out = load(f.text, 'out.s');
  assert.equal(checkLoaded(out).errors, 0);
  assert.deepEqual(programMetrics(out, 'k'), k.after);
  const v = verifyLoaded(loaded, out);
  assert.equal(v.equivalent, true, v.difference?.message);
  const off = await scheduleFile(loaded, text, { budget: 200, jobs: 1, cache: false, pipeline: false });
  assert.equal(off.kernels[0]!.pipelined, undefined);
  // the command line's check of a pipelined program (verify's proof): passed, the same winner; refused,
  // the best program without pipelining wins, and the notes say why
  const seen: string[] = [];
  const proven = await scheduleFile(loaded, text, { budget: 200, jobs: 1, cache: false, checkPipelined: (a, b) => {
    seen.push(b.program.file);
    const r = verifyLoaded(a, b, { skipCheck: true });
    return r.equivalent ? undefined : r.difference?.message;
  } });
  assert.ok(seen.length >= 1 && seen.every((n) => n.endsWith('(pipelined program)')), seen.join(', '));
  assert.equal(proven.text, f.text);
  const refused = await scheduleFile(loaded, text, { budget: 200, jobs: 1, cache: false, checkPipelined: () => 'refused by the test' });
  const rk = refused.kernels[0]!;
  assert.equal(rk.pipelined, undefined);
  assert.equal(refused.text, off.text);
  assert.ok(rk.notes.some((n) => /the pipelined program \(.+\) was not taken: it is not proven equivalent to the input \(refused by the test\)/.test(n)), rk.notes.join('\n'));
  assert.ok(rk.runs.some((r) => r.rejected === 'its pipelined program is not proven equivalent to the input: refused by the test'));
});

test('pipelined in place: the same rotation with every load in its own registers (no copies), verified; searched beside the renamed one', async () => {
  const text = kernel({ body: LOOP });
  const k = prepareKernels(load(text))[0]!;
  const { plans } = planPipelines(k);
  assert.equal(plans[0]!.renames.length, 2);
  const out = pipelineProgram(k, plans.map((p) => ({ ...p, renames: [] })));
  assert.equal(out.loops[0]!.renamed, 0);
  const lines = out.text.split('\n').map((l) => l.trim());
  assert.ok(!lines.some((l) => l.startsWith('v_mov_b32_e32 v1,') || l.startsWith('v_mov_b32_e32 v28,')), 'no copies');
  assert.ok(lines.includes('global_load_dword v1, v[26:27], off') && lines.includes('global_load_dword v28, v[24:25], off'));
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  // searched where the copies raise the loop's lower bound (this short loop), not where they do
  // not (four MFMAs: the matrix pipe binds)
  const f = await scheduleFile(load(text), text, { budget: 40, jobs: 1, cache: false, strategies: ['list'] });
  assert.deepEqual(f.kernels[0]!.runs.map((r) => r.label), ['list', 'pipelined list', 'pipelined in place list', 'pipelined two stages list']);
  const mfma = LOOP[9]!;
  const heavy = kernel({ body: [...LOOP, mfma, mfma, mfma] });
  const g = await scheduleFile(load(heavy), heavy, { budget: 40, jobs: 1, cache: false, strategies: ['list'] });
  assert.deepEqual(g.kernels[0]!.runs.map((r) => r.label), ['list', 'pipelined list', 'pipelined two stages list']);
});

test('report --after: a pipelined schedule is named as such (it shows reorderings only)', () => {
  const text = kernel({ body: LOOP });
  assert.throws(() => alignScheduled(load(text, 'orig.s'), load(pipelined(text).text, 'piped.s')),
    /kernel 'k' has 1 loop pipelined \(proven equivalent by verify\); --after shows reorderings only/);
});

/* Two stages: the loads of iteration i+2 start in iteration i, into alternating registers. */

const twoStage = (text: string) => {
  const k = prepareKernels(load(text))[0]!;
  const plans = planPipelines(k).plans.filter((p) => p.twoStage);
  assert.equal(plans.length, 1, 'one loop planned by two stages');
  return pipelineTwoStage(k, plans);
};

test('two stages: plan for the K-loop (the address update joins the loads, alternate registers), and refusals', () => {
  const text = kernel({ body: LOOP });
  const p = plan(text).plans[0]!;
  const two = p.twoStage!;
  assert.ok(two, p.twoStageRefused);
  assert.deepEqual(texts(text, two.p), [...LOOP.slice(0, 5), 'v_add_u32_e32 v22, 64, v22']);
  assert.deepEqual(texts(text, two.moved), ['v_add_u32_e32 v22, 64, v22']);
  assert.deepEqual(texts(text, two.r), ['s_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]']);
  assert.deepEqual(two.buffers.map((b) => [b.from, b.to, b.count]), [[1, 6, 1], [28, 7, 1]]);
  assert.equal(two.loopBound, 2);
  assert.equal(two.firstBound, 1);
  assert.equal(two.grow, undefined);
  const why = (t: string) => plan(t).plans[0]!.twoStageRefused;
  // a store in the body: the loads of iteration i+2 would pass the store of iteration i+1
  assert.match(why(kernel({ body: [...LOOP, 'global_store_dword v[26:27], v2, off'] }))!, /writes memory/);
  // the loaded register read after the loop (it holds the iteration before's data on one way out)
  assert.match(why(kernel({ body: LOOP, post: ['s_nop 7', 'v_add_u32_e32 v0, v0, v1', 's_nop 1', 'global_store_dword v[26:27], v0, off'] }))!, /live after the loop/);
  // the rest of the body reads an address register of the loads (the next loads overwrite it)
  assert.match(why(kernel({ body: [...LOOP, 'v_add_u32_e32 v2, v2, v24'] }))!, /reads a register the loads' address code writes/);
  // a trip count of two from the code: nothing to gain
  assert.match(why(kernel({ pre: ['s_mov_b32 s3, 2'], body: LOOP }))!, /fewer than three times/);
});

test('two stages: the allocation grows only as far as the occupancy stays', () => {
  // every VGPR below 32 but v1/v28's own busy: the alternate registers come from above the
  // descriptor, which grows (next_free_vgpr and accum_offset), the occupancy unchanged
  const busy = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 29, 30, 31];
  const pre = busy.map((r) => `v_mov_b32 v${r}, 0`);
  const post = [...POST, ...busy.map((r) => `v_add_u32_e32 v0, v0, v${r}`)];
  const text = kernel({ body: LOOP, pre, post });
  const two = plan(text).plans[0]!.twoStage!;
  assert.deepEqual(two.buffers.map((b) => [b.from, b.to]), [[1, 32], [28, 33]]);
  assert.deepEqual(two.grow, { nextFree: 34, accumOffset: 36 });
  const out = twoStage(text);
  assert.match(out.text, /\.amdhsa_next_free_vgpr 34\n/);
  assert.match(out.text, /\.amdhsa_accum_offset 36\n/);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'two.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  // the code object metadata's .vgpr_count follows the two-stage allocation; the one-stage form
  // of the same loop uses registers the descriptor covers, so both stay as written
  const meta = ['.amdgpu_metadata', '---', 'amdhsa.kernels:', '  - .name: k', '    .vgpr_count: 32', '...', '.end_amdgpu_metadata', ''].join('\n');
  assert.match(twoStage(text + meta).text, /\.vgpr_count: 34\n/);
  const one = pipelined(text + meta).text;
  assert.match(one, /\.vgpr_count: 32\n/);
  assert.match(one, /\.amdhsa_next_free_vgpr 32\n/);
  // at 64 VGPRs (8 waves on gfx942) one more register would cost a wave: refused
  const busy64 = Array.from({ length: 58 }, (_, x) => x + 6).filter((r) => r < 22 || r > 28);
  const full = kernel({ body: LOOP, vgprs: 64, pre: busy64.map((r) => `v_mov_b32 v${r}, 0`), post: [...POST, ...busy64.map((r) => `v_add_u32_e32 v0, v0, v${r}`)] });
  assert.match(plan(full).plans[0]!.twoStageRefused!, /no free registers/);
});

test('two stages: the text written, clean, equivalent by verify; est_cycles counts the source iterations', () => {
  const text = kernel({ body: LOOP });
  const out = twoStage(text);
  assert.deepEqual(out.loops.map((l) => [l.stages, l.loads, l.renamed, l.p, l.r]), [[2, 2, 2, 6, 3]]);
  const lines = out.text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('s_waitcnt') && !l.startsWith('s_nop'));
  const from = lines.indexOf('v_mov_b32 v22, v0') + 1;
  const to = lines.indexOf('.Lend:');
  assert.deepEqual(lines.slice(from, to), [
    ...LOOP.slice(0, 5), 'v_add_u32_e32 v22, 64, v22', 's_cmp_lg_u32 s3, 1', 's_cbranch_scc0 .Lpipelined_last0',
    ...LOOP.slice(0, 3), 'global_load_dword v6, v[26:27], off', 'global_load_dword v7, v[24:25], off', 'v_add_u32_e32 v22, 64, v22', 's_cmp_lg_u32 s3, 2', 's_cbranch_scc0 .Lpipelined_even1',
    '.Lloop:',
    's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 2', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]', ...LOOP.slice(0, 5), 'v_add_u32_e32 v22, 64, v22', 's_cbranch_scc0 .Lpipelined_odd2',
    's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 2', 'v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]', ...LOOP.slice(0, 3), 'global_load_dword v6, v[26:27], off', 'global_load_dword v7, v[24:25], off', 'v_add_u32_e32 v22, 64, v22',
    's_cbranch_scc1 .Lloop',
    '.Lpipelined_even1:', 's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]',
    's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]', 's_branch .Lpipelined_out3',
    '.Lpipelined_odd2:', 's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]',
    '.Lpipelined_last0:', 's_add_i32 s3, s3, -1', 's_cmp_lg_u32 s3, 0', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]',
    '.Lpipelined_out3:', ...POST.filter((l) => !l.startsWith('s_nop')),
  ]);
  assert.equal(checkLoaded(out.loaded).errors, 0);
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'two.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
  // est_cycles: the loop stands for two source iterations, four more run after it
  const loop = kernelLoops(kernelContexts(out.loaded)[0]!).find((l) => l.unroll === 2)!;
  assert.equal(loop.trip, 30);
  assert.equal(kernelLoops(kernelContexts(out.loaded)[0]!, 10).find((l) => l.unroll === 2)!.trip, 3);
});

test('verify rejects broken two-stage loops: each kind', () => {
  const text = kernel({ body: LOOP });
  const good = twoStage(text).text;
  const judge = judgeAgainst(text);
  assert.equal(judge(good).equivalent, true);
  // the second guard's constant: a loop of two would run the loop
  let r = judge(edit(good, nth('s_cmp_lg_u32 s3, 2', 0), (l) => [l.replace(', 2', ', 3')]));
  assert.match(r.difference!.message, /guard's constant is 3, not 2/);
  // a half's compare one step on (the one-stage constant): one iteration too many
  r = judge(edit(good, nth('s_cmp_lg_u32 s3, 2', 2), (l) => [l.replace(', 2', ', 1')]));
  assert.match(r.difference!.message, /second half's compare constant is 1, not two steps before the original's 0/);
  // the first half's branch on the wrong sense
  r = judge(edit(good, (l) => l === 's_cbranch_scc0 .Lpipelined_odd2', (l) => [l.replace('scc0', 'scc1')]));
  assert.equal(r.difference?.kind, 'anchor');
  // the second half reading the first half's registers (the alternation broken)
  r = judge(edit(good, nth('v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]', 0), (l) => [l.replace('v6, v7', 'v1, v28')]));
  assert.match(r.difference!.message, /run with trip count \d: .*(v[2-5]|store)/);
  // the even way out in the wrong order
  const lines = good.split('\n');
  const ev = lines.findIndex((l) => l.trim() === '.Lpipelined_even1:');
  const m1 = lines.findIndex((l, i) => i > ev && l.trim() === 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]');
  const m2 = lines.findIndex((l, i) => i > ev && l.trim() === 'v_mfma_f32_16x16x4_f32 v[2:5], v6, v7, v[2:5]');
  [lines[m1], lines[m2]] = [lines[m2]!, lines[m1]!];
  r = judge(lines.join('\n'));
  assert.match(r.difference!.message, /run with trip count 2: /);
  // the odd way out compares before its step: what it computes is overwritten unread, but it
  // compares a counter value the original compares once, now twice
  const l3 = good.split('\n');
  const od = l3.findIndex((l) => l.trim() === '.Lpipelined_odd2:');
  const sa = l3.findIndex((l, i) => i > od && l.trim() === 's_add_i32 s3, s3, -1');
  const sc = l3.findIndex((l, i) => i > od && l.trim() === 's_cmp_lg_u32 s3, 0');
  [l3[sa], l3[sc]] = [l3[sc]!, l3[sa]!];
  r = judge(l3.join('\n'));
  assert.match(r.difference!.message, /run with trip count 3: 's_cmp_lg_u32 s3, [02]' \(bad\.s:\d+\) computes a value the original does not compute there/);
  // the jump past the odd way out removed: the even way runs the odd one's iterations too
  r = judge(edit(good, (l) => l === 's_branch .Lpipelined_out3', () => []));
  assert.equal(r.equivalent, false);
  // a load of iteration i+2 moved above the MFMA that reads the registers it overwrites
  r = judge(moveInLoop(good, 'global_load_dword v1, v[26:27], off', 'v_mfma_f32_16x16x4_f32 v[2:5], v1, v28, v[2:5]'));
  assert.equal(r.equivalent, false);
});

test('schedule: two stages searched beside one stage; the winner verifies and one wave gets faster', async () => {
  const text = kernel({ body: LOOP });
  const loaded = load(text);
  const f = await scheduleFile(loaded, text, { budget: 200, jobs: 1, cache: false });
  const k = f.kernels[0]!;
  assert.ok(k.runs.some((r) => r.label.startsWith('pipelined two stages ')), k.runs.map((r) => r.label).join(', '));
  const out = load(f.text, 'out.s');
  assert.equal(checkLoaded(out).errors, 0);
  assert.deepEqual(programMetrics(out, 'k'), k.after);
  assert.ok(k.after.est_cycles <= k.before.est_cycles);
  const v = verifyLoaded(loaded, out);
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, k.pipelined?.length ?? 0);
});

test('two stages: loads that overwrite their own address registers load into free registers in both halves', () => {
  // as clang writes the f64 K-loop: each load's data replaces its address
  const body = [
    'v_lshlrev_b64 v[24:25], 2, v[22:23]',
    'v_lshl_add_u64 v[26:27], s[4:5], 0, v[24:25]',
    'global_load_dword v26, v[26:27], off',
    'v_lshl_add_u64 v[24:25], s[6:7], 0, v[24:25]',
    'global_load_dword v24, v[24:25], off',
    's_add_i32 s3, s3, -1',
    's_cmp_lg_u32 s3, 0',
    'v_add_u32_e32 v22, 64, v22',
    's_waitcnt vmcnt(0)',
    'v_mfma_f32_16x16x4_f32 v[2:5], v26, v24, v[2:5]',
  ];
  const post = ['s_nop 7', 'v_add_u32_e32 v0, v0, v2', 's_nop 1', 'global_store_dword v[22:23], v0, off'];
  const text = kernel({ body, post });
  const two = plan(text).plans[0]!.twoStage!;
  assert.ok(two, plan(text).plans[0]!.twoStageRefused);
  assert.deepEqual(two.buffers.map((b) => [b.from, b.odd, b.to]), [[26, 1, 6], [24, 7, 8]]);
  const out = twoStage(text);
  const lines = out.text.split('\n').map((l) => l.trim());
  assert.ok(lines.includes('global_load_dword v1, v[26:27], off') && lines.includes('global_load_dword v6, v[26:27], off'));
  assert.ok(lines.includes('v_mfma_f32_16x16x4_f32 v[2:5], v1, v7, v[2:5]') && lines.includes('v_mfma_f32_16x16x4_f32 v[2:5], v6, v8, v[2:5]'));
  const orig = load(text, 'orig.s');
  const v = verifyLoaded(orig, load(out.text, 'two.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  // an odd iteration reading D, which now holds the address
  const bad = out.text.replace('v_mfma_f32_16x16x4_f32 v[2:5], v1, v7, v[2:5]', 'v_mfma_f32_16x16x4_f32 v[2:5], v26, v7, v[2:5]');
  const r = verifyLoaded(orig, load(bad, 'bad.s'));
  assert.equal(r.equivalent, false);
  // D read after the loop: refused (one of the ways out leaves it holding an address)
  assert.match(plan(kernel({ body, post: ['s_nop 7', 'v_add_u32_e32 v0, v0, v26', 's_nop 1', 'global_store_dword v[22:23], v0, off'] })).plans[0]!.twoStageRefused!, /live after the loop/);
});

test('pipeline: a .loc in the loop body (clang -g) stays where the loop\'s text was, and verify accepts the rotated loop', () => {
  // .loc adds a .debug_line row only: verify does not hold it as an anchor (src/verify/view.ts DEBUG_ONLY)
  const body = [...LOOP.slice(0, 5), '.loc 0 7 9', ...LOOP.slice(5)];
  const text = kernel({ body }).replace('.text\n', '.text\n.file 0 "/tmp" "k.hip"\n');
  const out = pipelined(text);
  assert.equal(out.loops.length, 1);
  const lines = out.text.split('\n').map((l) => l.trim());
  const loopAt = lines.indexOf('.Lloop:');
  const locAt = lines.indexOf('.loc 0 7 9');
  assert.ok(loopAt < locAt && locAt < lines.indexOf('s_cbranch_scc1 .Lloop'), 'the .loc line is kept in the loop');
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
  // a .loc is no anchor for a plain reordering either, nor a local label nothing but debug data
  // names (clang -g's .Ltmp<n>); another label still is
  const moved = text.replace('  .loc 0 7 9\n  s_add_i32 s3, s3, -1\n', '  s_add_i32 s3, s3, -1\n  .loc 0 7 9\n');
  assert.notEqual(moved, text);
  assert.equal(verifyLoaded(load(text, 'orig.s'), load(moved, 'moved.s')).equivalent, true);
  for (const [name, equivalent] of [['.Ltmp0', true], ['tmp0', false]] as const) {
    const label = text.replace('  .loc 0 7 9\n', `${name}:\n`);
    const labelMoved = label.replace(`${name}:\n  s_add_i32 s3, s3, -1\n`, `  s_add_i32 s3, s3, -1\n${name}:\n`);
    assert.notEqual(labelMoved, label);
    assert.equal(verifyLoaded(load(label, 'orig.s'), load(labelMoved, 'moved.s')).equivalent, equivalent, name);
  }
});

test('pipeline: a .loc between the loop\'s label and its first instruction (clang -g) keeps the first iteration\'s loads in front of the label', () => {
  const text = kernel({ body: ['.loc 0 6 52', ...LOOP] }).replace('.text\n', '.text\n.file 0 "/tmp" "k.hip"\n');
  const out = pipelined(text);
  assert.equal(out.loops.length, 1);
  const lines = out.text.split('\n').map((l) => l.trim());
  const label = lines.indexOf('.Lloop:');
  // the guard that skips to the peeled last iteration is written before the loop, not inside it
  const guard = lines.findIndex((l) => l.startsWith('s_cbranch_scc') && l.includes('.Lpipelined_peel'));
  assert.ok(guard >= 0 && guard < label, `the guard (line ${guard}) is before the loop's label (line ${label})`);
  assert.equal(lines[label + 1], '.loc 0 6 52', 'the .loc still heads the loop body');
  const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
  assert.equal(v.kernels[0]!.pipelinedLoops, 1);
});

test('a pipelined program is taken only for loop speed: some loop faster per iteration than without pipelining, at the occupancy or for one wave', () => {
  const loop = (line: number, before: number, after: number, beforeOne: number, afterOne: number): LoopChange => ({
    line, backEdgeLines: [line + 10], instructions: 20, trip: 64, tripFrom: 'default', weight: 63,
    before, after, beforeOne, afterOne, bound: 0, limiter: 'issue', gapPercent: 0, inner: 0,
  });
  // the program without pipelining already runs the loop as fast: the gain is outside the loop
  const without = [loop(10, 600, 512, 700, 420), loop(40, 90, 90, 100, 100)];
  assert.equal(noLoopFaster([loop(10, 600, 512, 700, 420), loop(40, 90, 90, 100, 100)], without),
    'line 10: 512 -> 512, one wave 420 -> 420; line 40: 90 -> 90, one wave 100 -> 100');
  assert.match(noLoopFaster([loop(10, 600, 520, 700, 420), loop(40, 90, 90, 100, 100)], without)!, /line 10: 512 -> 520/);
  // faster for one wave, or at the occupancy, in any loop (matched by line, not by position)
  assert.equal(noLoopFaster([loop(10, 600, 512, 700, 392), loop(40, 90, 90, 100, 100)], without), undefined);
  assert.equal(noLoopFaster([loop(40, 90, 88, 100, 100), loop(10, 600, 512, 700, 420)], without), undefined);
  // nothing won without pipelining: judged against the input's loops
  assert.equal(noLoopFaster([loop(10, 600, 512, 700, 420)]), undefined);
  assert.equal(noLoopFaster([loop(10, 600, 600, 700, 700)]), 'line 10: 600 -> 600, one wave 700 -> 700');
  // the lines of a text flattened from `.include`s are named in the files the user wrote
  const place = (line: number) => (line < 20 ? { line: line - 3, file: 'loop.inc' } : { line: line - 11 });
  assert.equal(noLoopFaster([loop(10, 600, 600, 700, 700), loop(40, 90, 90, 100, 100)], undefined, place),
    'loop.inc:7: 600 -> 600, one wave 700 -> 700; line 29: 90 -> 90, one wave 100 -> 100');
});

test('pipeline: address code copied before the loop that reads a scalar load outstanding on one path into it gets its wait (some paths: derived for every path)', () => {
  // one path into the loop loads s[4:7] again and does not wait: the loop's own wait covered it
  // (clang's remainder loop of an unrolled dot product); the copies before the loop need it, on
  // that path only, past a branch (a shortfall on some paths, which check --fix leaves alone)
  const text = kernel({
    pre: ['s_cmp_eq_u32 s2, 0', 's_cbranch_scc1 .Lready', 's_load_dwordx4 s[4:7], s[0:1], 0x10', 's_cmp_eq_u32 s2, 1', 's_cbranch_scc1 .Lready',
      'v_mov_b32 v29, 1', '.Lready:', 'v_mov_b32 v29, 0'],
    body: ['s_waitcnt lgkmcnt(0)', ...LOOP],
  });
  const missing = (l: ReturnType<typeof load>) => checkLoaded(l, { paths: 'all' }).findings.filter((f) => f.rule === 'waitcnt-missing').length;
  assert.equal(missing(load(text)), 0, 'no wait missing in the input, on any path');
  for (const out of [pipelined(text), twoStage(text)]) {
    assert.equal(missing(out.loaded), 0);
    const lines = out.text.split('\n').map((l) => l.trim());
    const first = lines.indexOf(LOOP[1]!);
    assert.ok(lines.slice(lines.indexOf('.Lready:'), first).includes('s_waitcnt lgkmcnt(0)'), 'the wait before the first copy');
    const v = verifyLoaded(load(text, 'orig.s'), load(out.text, 'piped.s'));
    assert.equal(v.equivalent, true, v.difference?.message);
  }
});
