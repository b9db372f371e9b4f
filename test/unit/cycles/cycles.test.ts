/**
 * The cycle model on small snippets, with timings computed by hand from the parameter table
 * (src/targets/latency.ts): one slot = 4 cycles; VMEM load completes 320 cycles after issue and
 * holds the VMEM pipe 8 (1 dword) or 16 cycles; ds_read_b64 holds the LDS pipe 8 cycles and
 * completes 20 cycles after issue; an MFMA holds the matrix pipe passes x 4 cycles and its result
 * reaches a SrcA/B or VALU reader after (1 + W) slots (W from the hazard tables); s_nop N takes
 * N + 1 slots; a taken branch 20 cycles; a conditional branch right after the SALU write of SCC
 * one extra slot. Then properties over random snippets: monotonicity and lower bound <= estimate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { estimateCycles, lowerBound, cycleEngineFor } from '../../../src/cycles/estimate.js';
import { simulateKernel, formatKernelReport } from '../../../src/cycles/simulate.js';
import { kernelLoops, loopBound } from '../../../src/cycles/kernel-time.js';
import { buildCycleModel } from '../../../src/cycles/model.js';
import { CycleEngine } from '../../../src/cycles/engine.js';
import { applyLatencyFile, defaultCycleParams, allParamKeys, LatencyFileError } from '../../../src/targets/latency.js';
import { knownMnemonic, instructionDwords } from '../../../src/cycles/model.js';
import { TARGET_NAMES } from '../../../src/targets/index.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin } from '../../repo.js';

const ctxOf = (lines: string[], arch = 'gfx942'): KernelContext => kernelContextsFromText(lines.join('\n'), 't.s', arch)[0]!;
const est = (lines: string[], arch = 'gfx942', extra: Parameters<typeof estimateCycles>[1] = {}) => estimateCycles(ctxOf(lines, arch), extra);

test('a load followed by its use: the wait covers the 320-cycle load', () => {
  const withWait = ['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0'];
  // load at 0; s_waitcnt issues at 320; v_add at 324; its result at 328
  assert.equal(est(withWait), 328);
  const r = simulateKernel(ctxOf(withWait), { waves: 1 });
  assert.deepEqual(r.rows.map((x) => x.issue), [0, 320, 324]);
  assert.equal(r.rows[1]!.stall, 316);
  assert.deepEqual([r.rows[1]!.wait, r.rows[1]!.hold], [316, 0]);
  assert.match(r.rows[1]!.reason, /^wait vmcnt\(0\) for global_load_dword at line 1$/);
  // without the wait the use itself waits for the data (and says the program lacks the wait)
  const noWait = ['global_load_dword v0, v[2:3], off', 'v_add_f32 v1, v0, v0'];
  assert.equal(est(noWait), 324);
  assert.match(simulateKernel(ctxOf(noWait), { waves: 1 }).rows[1]!.reason, /memory result of global_load_dword at line 1 \(no s_waitcnt covers it\)/);
});

test('MFMA accumulation chain: back to back at the pipe rate; the last result after N+3 slots (gfx942)', () => {
  const chain = Array.from({ length: 3 }, () => 'v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]');
  // 8 passes = 32 cycles: issues at 0, 32, 64; a VALU reader sees the last one at 64 + 4 * (1 + 11)
  assert.equal(est(chain), 112);
  const r = simulateKernel(ctxOf(chain), { waves: 1 });
  assert.deepEqual(r.rows.map((x) => x.issue), [0, 32, 64]);
  assert.match(r.rows[1]!.reason, /pipe busy \(matrix|mfma srcC chain/);
  // gfx90a: the same shape is 16 passes; N+3 = 19 wait states
  const chain90a = chain.map((l) => l.replace('v_mfma_f32_32x32x8_f16', 'v_mfma_f32_32x32x8f16'));
  assert.equal(est(chain90a, 'gfx90a'), 128 + 4 * 20);
});

test('MFMA SrcA/B dependency waits for the producer result (N+3 on gfx942, N+4 on gfx950)', () => {
  const dep = [
    'v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]',
    'v_mfma_f32_16x16x16_f16 v[8:11], v[0:1], v[6:7], v[8:11]',
  ];
  // 4 passes: srcA read after 4 * (1 + 7) = 32 on gfx942, 4 * (1 + 8) = 36 on gfx950
  const r = simulateKernel(ctxOf(dep), { waves: 1 });
  assert.equal(r.rows[1]!.issue, 32);
  assert.match(r.rows[1]!.reason, /^mfma srcA\/B dependency on v_mfma_f32_16x16x16_f16 at line 1$/);
  assert.equal(simulateKernel(ctxOf(dep, 'gfx950'), { waves: 1 }).rows[1]!.issue, 36);
  // a VALU result read by an MFMA: 2 wait states (issue at 12)
  const fwd = ['v_mov_b32 v4, 0', 'v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]'];
  assert.equal(simulateKernel(ctxOf(fwd), { waves: 1 }).rows[1]!.issue, 12);
});

test('interleaved LDS / MFMA with a partial lgkmcnt wait beats waiting for every read', () => {
  const reads = [0, 1, 2, 3].map((k) => `ds_read_b64 v[${2 * k}:${2 * k + 1}], v10 offset:${8 * k}`);
  const m1 = 'v_mfma_f32_16x16x16_f16 v[20:23], v[0:1], v[2:3], v[20:23]';
  const m2 = 'v_mfma_f32_16x16x16_f16 v[24:27], v[4:5], v[6:7], v[24:27]';
  // reads issue at 0, 8, 16, 24 (LDS pipe 8 each) and complete at 20, 28, 36, 44
  const grouped = [...reads, 's_waitcnt lgkmcnt(0)', m1, m2];
  // wait until 44; MFMAs at 48 and 64; the last result 64 + 4 * (1 + 7)
  assert.equal(est(grouped), 96);
  const interleaved = [...reads, 's_waitcnt lgkmcnt(2)', m1, 's_waitcnt lgkmcnt(0)', m2];
  // lgkmcnt(2) holds at 28 (two reads still out); m1 at 32; wait to 44; m2 at 48 (pipe free); 48 + 32
  assert.equal(est(interleaved), 80);
  const r = simulateKernel(ctxOf(interleaved), { waves: 1 });
  assert.deepEqual(r.rows.map((x) => x.issue), [0, 8, 16, 24, 28, 32, 44, 48]);
  assert.match(r.rows[1]!.reason, /^pipe busy \(lds: ds_read_b64 at line 1\)$/);
  assert.match(r.rows[6]!.reason, /^wait lgkmcnt\(0\) for ds_read_b64 at line 4$/);
});

test('s_nop, s_barrier, trans forwarding and counter-driven waits', () => {
  // s_nop 3 = 4 slots
  const nop = simulateKernel(ctxOf(['v_add_f32 v0, v1, v2', 's_nop 3', 'v_add_f32 v3, v1, v2']), { waves: 1 });
  assert.deepEqual(nop.rows.map((x) => x.issue), [0, 4, 20]);
  assert.equal(nop.rows[1]!.stall, 12);
  assert.equal(nop.rows[1]!.reason, 'nop');
  // the stall is the hold after issue here, a wait before it below (a new user's trial: the two were one figure)
  assert.deepEqual([nop.rows[1]!.wait, nop.rows[1]!.hold], [0, 12]);
  // s_barrier with every wave arriving together: 16 cycles (estimate in the table)
  const bar = simulateKernel(ctxOf(['s_barrier', 's_add_u32 s0, s1, s2']), { waves: 1 });
  assert.deepEqual(bar.rows.map((x) => x.issue), [0, 16]);
  assert.equal(bar.rows[0]!.reason, 'barrier');
  // gfx942 transcendental: 8 cycles, one more slot before a non-trans reader: 12
  assert.deepEqual(simulateKernel(ctxOf(['v_exp_f32 v0, v1', 'v_add_f32 v2, v0, v0']), { waves: 1 }).rows.map((x) => x.issue), [0, 12]);
  // gfx90a: 16 cycles
  assert.deepEqual(simulateKernel(ctxOf(['v_exp_f32 v0, v1', 'v_add_f32 v2, v0, v0'], 'gfx90a'), { waves: 1 }).rows.map((x) => x.issue), [0, 16]);
  // vmcnt(1) waits for the older of two loads only (in order)
  const two = ['global_load_dword v0, v[2:3], off', 'global_load_dword v1, v[2:3], off offset:4', 's_waitcnt vmcnt(1)', 'v_add_f32 v4, v0, v0'];
  assert.deepEqual(simulateKernel(ctxOf(two), { waves: 1 }).rows.map((x) => x.issue), [0, 8, 320, 324]);
  // the drain waits for the second load: 8 + 320
  assert.equal(est(two), 328);
  assert.equal(est(two, 'gfx942', { drain: false }), 328);
  assert.equal(est(two.slice(0, 2), 'gfx942', { drain: false }), 12);
});

test('a loop with --trip, and in steady state', () => {
  const loop = [
    's_mov_b32 s0, 4',
    '.L1:',
    '  v_add_f32 v0, v0, v1',
    '  s_sub_u32 s0, s0, 1',
    '  s_cmp_lg_u32 s0, 0',
    '  s_cbranch_scc1 .L1',
    's_endpgm',
  ];
  // one iteration: v_add t, s_sub t+4, s_cmp t+8, s_cbranch t+16 (SCC written right before:
  // one extra slot), taken: the next iteration at t+36; the last one falls through at t+20
  const steady = simulateKernel(ctxOf(loop), { waves: 1 });
  assert.equal(steady.loops.length, 1);
  assert.equal(steady.loops[0]!.perIteration, 36);
  assert.ok(steady.loops[0]!.stable);
  assert.match(steady.rows[4]!.reason, /^branch right after the write by s_cmp_lg_u32 at line 5$/);
  const four = simulateKernel(ctxOf(loop), { waves: 1, trip: 4 });
  assert.equal(four.loops[0]!.total, 3 * 36 + 20);
  // the walk: s_mov at 0, the loop from 4, s_endpgm at 4 + 128, ends 4 later
  assert.equal(four.single.cycles, 4 + 3 * 36 + 20 + 4);
  assert.equal(four.rows[1]!.count, 4);
  const once = simulateKernel(ctxOf(loop), { waves: 1 });
  assert.equal(once.single.cycles, 4 + 20 + 4);
});

test('a loop\'s lower bound per iteration is the bound schedule reports: a load\'s chain through its wait binds one wave', () => {
  // a new user's trial: simulate said 48 (issue) where schedule said the chain, 328, binds
  const loop = [
    's_mov_b32 s0, 10',
    '.L1:',
    '  global_load_dword v1, v[2:3], off',
    '  s_waitcnt vmcnt(0)',
    '  v_fma_f32 v0, v1, v1, v0',
    '  s_sub_u32 s0, s0, 1',
    '  s_cmp_lg_u32 s0, 0',
    '  s_cbranch_scc1 .L1',
    's_endpgm',
  ];
  const ctx = ctxOf(loop);
  const r = simulateKernel(ctx, { waves: 1 });
  const l = kernelLoops(ctx)[0]!;
  const body = Int32Array.from({ length: l.end - l.start }, (_, k) => l.start + k);
  const b = loopBound(cycleEngineFor(ctx), body, 1);
  assert.equal(b.limiter, 'critical path');
  // every field is loopBound's: the critical path the limiter names is the criticalPath beside it
  const { gapPercent, ...reported } = r.loops[0]!.lowerBoundPerIteration;
  assert.deepEqual(reported, b);
  assert.equal(reported.criticalPath, reported.bound);
  assert.ok(gapPercent >= 0);
  assert.ok(b.bound <= r.loops[0]!.perIteration, 'a bound');
});

test('two waves hide each other\'s memory latency', () => {
  const lines = ['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0'];
  const ctx = ctxOf(lines);
  assert.equal(estimateCycles(ctx), 328);
  // wave 1's load waits for the VMEM pipe (8): everything shifts by 8 -> 336 for both waves
  assert.equal(estimateCycles(ctx, { waves: 2 }), 336);
  const lb = lowerBound(ctx, { waves: 2 });
  assert.ok(lb.bound <= 336);
});

test('estimateCycles takes an order permutation', () => {
  const ctx = ctxOf(['global_load_dword v0, v[2:3], off', 'v_add_f32 v4, v5, v6', 'v_add_f32 v7, v5, v6', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0']);
  const inOrder = estimateCycles(ctx);
  assert.equal(inOrder, 328);
  // moving the load below the independent VALU ops delays it by two slots
  assert.equal(estimateCycles(ctx, { order: [1, 2, 0, 3, 4] }), 336);
  assert.equal(estimateCycles(ctx, { start: 1, end: 3 }), 8);
});

// ---------------------------------------------------------------------------------------------
// Properties over random snippets

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; };
}

const TEMPLATES: ((r: () => number) => string)[] = [
  (r) => `v_add_f32 v${v(r)}, v${v(r)}, v${v(r)}`,
  (r) => `v_mul_lo_u32 v${v(r)}, v${v(r)}, v${v(r)}`,
  (r) => `v_exp_f32 v${v(r)}, v${v(r)}`,
  (r) => `v_fma_f64 ${pair(r)}, ${pair(r)}, v[0:1], v[2:3]`,
  (r) => `s_add_u32 s${sg(r)}, s${sg(r)}, s${sg(r)}`,
  (r) => `v_readfirstlane_b32 s${sg(r)}, v${v(r)}`,
  (r) => `global_load_dword v${v(r)}, v[30:31], off`,
  (r) => `global_load_dwordx2 ${pair(r)}, v[30:31], off`,
  (r) => `global_store_dword v[30:31], v${v(r)}, off`,
  (r) => `ds_read_b32 v${v(r)}, v29`,
  (r) => `ds_write_b64 v29, ${pair(r)}`,
  (r) => `s_load_dword s${sg(r)}, s[20:21], 0x0`,
  (r) => `s_waitcnt vmcnt(${Math.floor(r() * 3)})`,
  (r) => `s_waitcnt lgkmcnt(${Math.floor(r() * 2)})`,
  (r) => `s_nop ${Math.floor(r() * 4)}`,
  (r) => { const a = 32 + 4 * Math.floor(r() * 3); return `v_mfma_f32_16x16x16_f16 v[${a}:${a + 3}], ${pair(r)}, v[2:3], v[${a}:${a + 3}]`; },
  (r) => { const a = 32 + 4 * Math.floor(r() * 3); return `v_mov_b32 v${v(r)}, v${a + Math.floor(r() * 4)}`; },
];
function v(r: () => number): number { return Math.floor(r() * 12); }
function pair(r: () => number): string { const a = 2 * Math.floor(r() * 6); return `v[${a}:${a + 1}]`; }
function sg(r: () => number): number { return Math.floor(r() * 8); }

function snippet(r: () => number, n: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    out.push(TEMPLATES[Math.floor(r() * TEMPLATES.length)]!(r));
  }
  return out;
}

/** The snippet for a target: legacy MFMA spelling on gfx90a, no MFMA on gfx906. */
function tryCtx(lines: string[], arch: string): KernelContext | undefined {
  let ls = lines;
  if (arch === 'gfx90a') ls = lines.map((l) => l.replace('v_mfma_f32_16x16x16_f16', 'v_mfma_f32_16x16x16f16'));
  if (arch === 'gfx906') ls = lines.filter((l) => !l.startsWith('v_mfma'));
  try { return ctxOf(ls, arch); } catch { return undefined; }
}

const ARCHS = ['gfx906', 'gfx90a', 'gfx942', 'gfx950'];

test('property: adding latency to one instruction never lowers the estimate', () => {
  const r = rng(1);
  let checked = 0;
  for (let trial = 0; trial < 150; trial++) {
    const arch = ARCHS[trial % ARCHS.length]!;
    const ctx = tryCtx(snippet(r, 4 + Math.floor(r() * 14)), arch);
    if (!ctx) continue;
    const base = estimateCycles(ctx);
    const k = Math.floor(r() * ctx.insns.length);
    const add = 1 + Math.floor(r() * 200);
    const m = buildCycleModel(ctx);
    m.lat[k] += add;
    for (let s = 0; s < 5; s++) m.mfmaLat[k * 5 + s] += add;
    const e = new CycleEngine(m);
    e.reset(1);
    e.runSingle(Int32Array.from(ctx.insns.keys()), 0, ctx.insns.length);
    assert.ok(e.drained(0) >= base, `${arch}: +${add} on instruction ${k} lowered ${base} to ${e.drained(0)}:\n${ctx.insns.map((x) => x.insn.text).join('\n')}`);
    // more issue cost or pipe occupancy never helps either
    const m2 = buildCycleModel(ctx);
    m2.occA[k] += add;
    m2.issue[k] += Math.floor(add / 10);
    const e2 = new CycleEngine(m2);
    e2.reset(1);
    e2.runSingle(Int32Array.from(ctx.insns.keys()), 0, ctx.insns.length);
    assert.ok(e2.drained(0) >= base);
    checked++;
  }
  assert.ok(checked > 100, `only ${checked} snippets resolved`);
});

function units(ctx: KernelContext, i: number): Set<number> {
  const r = ctx.insns[i]!;
  return new Set([...r.explicitDefs, ...r.explicitUses, ...r.implicitDefs.filter((u) => u !== 128)]);
}

test('property: removing an independent instruction never raises the estimate', () => {
  const r = rng(2);
  let checked = 0;
  for (let trial = 0; trial < 200; trial++) {
    const arch = ARCHS[trial % ARCHS.length]!;
    const ctx = tryCtx(snippet(r, 4 + Math.floor(r() * 14)), arch);
    if (!ctx) continue;
    const n = ctx.insns.length;
    const base = estimateCycles(ctx);
    for (let k = 0; k < n; k++) {
      const mine = units(ctx, k);
      let independent = true;
      for (let j = 0; j < n && independent; j++) {
        if (j === k) continue;
        for (const u of units(ctx, j)) if (mine.has(u)) { independent = false; break; }
      }
      if (!independent) continue;
      const order = [...Array(n).keys()].filter((x) => x !== k);
      const without = estimateCycles(ctx, { order });
      assert.ok(without <= base, `${arch}: removing ${ctx.insns[k]!.insn.text} raised ${base} to ${without}:\n${ctx.insns.map((x) => x.insn.text).join('\n')}`);
      checked++;
    }
  }
  assert.ok(checked > 100, `only ${checked} removals checked`);
});

test('property: the lower bound never exceeds the estimate (1 to 4 waves)', () => {
  const r = rng(3);
  let checked = 0;
  for (let trial = 0; trial < 150; trial++) {
    const arch = ARCHS[trial % ARCHS.length]!;
    const lines = snippet(r, 3 + Math.floor(r() * 20));
    if (r() < 0.3) lines.splice(Math.floor(r() * lines.length), 0, 's_barrier');
    const ctx = tryCtx(lines, arch);
    if (!ctx) continue;
    for (const waves of [1, 2, 4]) {
      const e = estimateCycles(ctx, { waves });
      const lb = lowerBound(ctx, { waves });
      assert.ok(lb.bound <= e + 1e-9, `${arch} x${waves}: bound ${lb.bound} (${lb.limiter}) > estimate ${e}:\n${lines.join('\n')}`);
      checked++;
    }
  }
  assert.ok(checked > 300);
});

test('blocks and kernels report their lower bound; the report prints', () => {
  const r = simulateKernel(ctxOf(['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0', 's_endpgm']), { waves: 3 });
  assert.equal(r.multi.waves, 3);
  assert.equal(r.multi.wavesFrom, '--waves');
  assert.ok(r.blocks[0]!.lowerBound.bound <= r.blocks[0]!.alone);
  assert.equal(r.blocks[0]!.lowerBound.limiter, 'latency');
  const text = formatKernelReport(r);
  assert.match(text, /wait vmcnt\(0\) for global_load_dword at line 1/);
  assert.match(text, /3 waves on one SIMD, as --waves asks:/);
});

test('the report says which of two figures for the same waves the scheduler compares orders by', () => {
  // 8 waves (the registers allow them): est_cycles, one wave's time here, and the walk of 8 waves side by side differ
  const r = simulateKernel(ctxOf(['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0', 'v_add_f32 v4, v1, v1', 's_endpgm']), {});
  assert.equal(r.multi.waves, 8);
  assert.equal(r.asItRuns.waves, 8);
  assert.notEqual(r.multi.cycles, r.asItRuns.cycles);
  const text = formatKernelReport(r, { insns: false });
  assert.match(text, new RegExp(`est_cycles is the larger of one wave's time and 8 times the busiest pipe's or the issue port's share.*the walk of 8 waves above, ${r.multi.cycles}, .*not what schedules are compared by`));
  // one wave: a single figure, no such line
  assert.doesNotMatch(formatKernelReport(simulateKernel(ctxOf(['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0', 's_endpgm']), { waves: 1 }), { insns: false }), /est_cycles is the larger/);
});

test('every target has every parameter, each with a source', () => {
  const keys = allParamKeys();
  for (const t of TARGET_NAMES) {
    const p = defaultCycleParams(t);
    for (const k of keys) {
      const v = p.values[k];
      assert.ok(v, `${t}: ${k} missing`);
      assert.ok(Number.isFinite(v.value) && v.value >= 0, `${t}: ${k}`);
      assert.ok(v.source.length > 10, `${t}: ${k} has no source`);
    }
  }
  // figures from the references
  assert.equal(defaultCycleParams('gfx942').values['mfma.xdl.srcAB.16'].value, 19);
  assert.equal(defaultCycleParams('gfx950').values['mfma.xdl.srcAB.16'].value, 20);
  assert.equal(defaultCycleParams('gfx90a').values['mfma.xdl.srcC.8'].value, 8);
  assert.equal(defaultCycleParams('gfx906').values['valu.trans'].value, 16);
});

test('latency files: overrides apply, bad keys are named', () => {
  const base = defaultCycleParams('gfx942');
  const p = applyLatencyFile(base, {
    'vmem.latency': 500,
    'insn.v_exp_f32.latency': { value: 40, source: 'rocprof' },
    targets: { gfx942: { 'ds.latency': 64 }, gfx90a: { 'ds.latency': 80 } },
  }, 'cal.json', knownMnemonic);
  assert.equal(p.values['vmem.latency'].value, 500);
  assert.equal(p.values['ds.latency'].value, 64);
  assert.match(p.values['vmem.latency'].source, /cal\.json/);
  assert.equal(p.insn['v_exp_f32']!.latency!.value, 40);
  assert.equal(base.values['vmem.latency'].value, 320, 'defaults are untouched');
  const ctx = ctxOf(['global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_exp_f32 v1, v0']);
  assert.equal(estimateCycles(ctx, { params: p }), 500 + 4 + 40);
  const bad = (d: unknown, re: RegExp) => assert.throws(() => applyLatencyFile(base, d, 'cal.json', knownMnemonic), (e: unknown) => e instanceof LatencyFileError && re.test(e.message));
  bad({ 'vmem.latncy': 5 }, /key 'vmem\.latncy': unknown parameter \(did you mean 'vmem\.latency'\?\)/);
  bad({ 'vmem.latency': 'fast' }, /key 'vmem\.latency': value must be a finite number/);
  bad({ 'vmem.latency': -1 }, /key 'vmem\.latency'/);
  bad({ 'insn.v_frobnicate.latency': 3 }, /key 'insn\.v_frobnicate\.latency': unknown instruction 'v_frobnicate'/);
  bad({ 'insn.v_exp_f32.speed': 3 }, /unknown field 'speed'/);
  bad({ targets: { gfx1100: {} } }, /key 'targets\.gfx1100': unknown target/);
  bad({ targets: { gfx90a: { 'ds.latncy': 1 } } }, /key 'targets\.gfx90a\.ds\.latncy'/);
  bad({ 'mfma.xdl.srcAB.4': 2.5 }, /wait states must be an integer/);
  bad([1, 2], /JSON object/);
});

test('cycle engine caches its model per context and parameter set', () => {
  const ctx = ctxOf(['v_add_f32 v0, v1, v2']);
  assert.equal(cycleEngineFor(ctx), cycleEngineFor(ctx));
  assert.notEqual(cycleEngineFor(ctx), cycleEngineFor(ctx, applyLatencyFile(defaultCycleParams('gfx942'), { valu: 8 }, 'x', knownMnemonic)));
});

test('conductor simulate: text, JSON, --list-params and a bad latency file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cycles-'));
  const f = join(dir, 'k.s');
  writeFileSync(f, ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', 'global_load_dword v0, v[2:3], off', 's_waitcnt vmcnt(0)', 'v_add_f32 v1, v0, v0', 's_endpgm', ''].join('\n'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ 'vmem.latencyy': 3 }));
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
  const text = run('simulate', f, '--waves', '2');
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /wait vmcnt\(0\) for global_load_dword at line 2/);
  assert.match(text.out, /2 waves on one SIMD, as --waves asks:/);
  const json = run('simulate', f, '--json', '--trip', '3');
  assert.equal(json.code, 0, json.err);
  const j = JSON.parse(json.out);
  assert.equal(j.kernels[0].trip, 3);
  assert.equal(j.kernels[0].rows[1].issue, 320);
  const list = run('simulate', '--list-params', '--arch', 'gfx950');
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /mfma\.xdl\.srcAB\.16 +20 /);
  const b = run('simulate', f, '--latency-file', bad);
  assert.equal(b.code, 2);
  assert.match(b.err, /key 'vmem\.latencyy': unknown parameter \(did you mean 'vmem\.latency'\?\)/);
  assert.equal(run('simulate', f, '--waves', 'x').code, 2);
});

test('2-dword instructions: sizes, and the optional issue penalty', () => {
  const ctx = ctxOf(['v_add_f32 v0, v1, v2', 'v_add_f32_e64 v0, v1, v2', 'v_add_f32 v0, 0x1234, v2', 's_mov_b32 s0, 0x12345',
    's_movk_i32 s0, 0x1234', 'global_load_dword v0, v[2:3], off', 'v_add_f32 v0, 1.0, v2', 'v_add_u32 v0, 64, v2', 'v_add_u32 v0, 65, v2']);
  assert.deepEqual(ctx.insns.map((r) => instructionDwords(r)), [1, 2, 2, 2, 1, 2, 1, 1, 2]);
  const two = ['v_add_f32_e64 v0, v1, v2', 'v_add_f32 v3, v1, v2'];
  assert.equal(est(two), 8);
  const p = applyLatencyFile(defaultCycleParams('gfx942'), { 'issue.twoDword': 4 }, 'x', knownMnemonic);
  assert.equal(estimateCycles(ctxOf(two), { params: p }), 12);
});
