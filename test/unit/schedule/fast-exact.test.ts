/**
 * Every incremental or cached result of the scheduler's fast evaluation (per-region metrics,
 * pressure peaks, s_nop segments, the wait model's waits, cycles of regions and loops) equals
 * the same thing computed from scratch (Evaluator's check mode, CONDUCTOR_CHECK_FAST=1), on
 * random legal schedules of real kernels; the check mode catches a wrong cache entry; and the
 * drift between the estimate and the exact metrics of emitted schedules is reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel, type ScheduleKernel } from '../../../src/schedule/kernel.js';
import { checkFastFromEnv, Evaluator, FastPathMismatch, metricDrift } from '../../../src/schedule/metrics.js';
import { exactSequencePeaks, sequencePeaks } from '../../../src/analysis/pressure-incremental.js';
import { canMove, moveTo, ScheduleState } from '../../../src/schedule/state.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP, randomSchedule } from './helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');


/** A loop whose load is still in flight when it branches back (the next iteration waits for it first). */
const CARRIED = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:',
  '  s_mov_b32 s8, 16',
  '  global_load_dwordx4 v[0:3], v[40:41], off',
  'loop:',
  '  s_waitcnt vmcnt(0)',
  '  v_add_f32 v20, v0, v20',
  '  v_add_f32 v21, v1, v21',
  '  v_mul_f32 v22, v22, v22',
  '  v_mul_f32 v23, v23, v23',
  '  v_add_f32 v24, v2, v3',
  '  global_load_dwordx4 v[0:3], v[40:41], off',
  '  v_add_u32 v40, 64, v40',
  '  v_mul_f32 v25, v25, v25',
  '  s_sub_u32 s8, s8, 1',
  '  s_cmp_lg_u32 s8, 0',
  '  s_cbranch_scc1 loop',
  '  s_waitcnt vmcnt(0)',
  '  s_endpgm', '',
].join('\n');

/** Random moves, each evaluated twice (the second answer comes from the caches), undone now and then. */
function exercise(k: ScheduleKernel, ev: Evaluator, seed: number, steps: number): number {
  const rand = mulberry32(seed);
  const s = new ScheduleState(k);
  let evaluations = 0;
  for (let t = 0; t < steps; t++) {
    const r = Math.floor(rand() * k.regions.length);
    const m = k.regions[r]!.nodes.length;
    if (m < 2) continue;
    const from = Math.floor(rand() * m);
    const to = Math.floor(rand() * m);
    if (!canMove(s, r, from, to)) continue;
    moveTo(s, r, from, to);
    ev.evaluate(s);
    ev.evaluate(s);
    evaluations += 2;
    if (rand() < 0.3 && canMove(s, r, to, from)) { moveTo(s, r, to, from); ev.evaluate(s); evaluations++; }
  }
  return evaluations;
}

test('check mode: every cache of the Evaluator equals a fresh computation on random schedules', () => {
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s'], [CARRIED, 'carried.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const ev = new Evaluator(k, { checkFast: true });
    assert.ok(ev.checkFast);
    const n = exercise(k, ev, 7, 150);
    assert.ok(n > 60, `${name}: only ${n} evaluations`);
    // with one incremental wait model kept, every other region's starts from scratch again
    assert.ok(exercise(k, new Evaluator(k, { checkFast: true, waitModels: 1 }), 8, 100) > 40);
    // with one dense wait state, every other region's model is parked and lent it back
    const parking = new Evaluator(k, { checkFast: true, denseWaits: 1 });
    assert.ok(exercise(k, parking, 9, 150) > 60);
    if (name === 'example.s') assert.ok((parking as unknown as { waitRuns: unknown[] }).waitRuns.filter((w) => w !== undefined).length > 2, 'models parked');
    // every region with a cycle run of its own (a search moves in one region, then in another)
    const own = new Evaluator(k, { checkFast: true, ownCycles: 2 });
    assert.ok(exercise(k, own, 10, 150) > 60);
    if (name === 'example.s') assert.ok((own as unknown as { ownCycles: unknown[] }).ownCycles.filter((c) => c !== undefined).length > 2, 'runs of their own');
  }
});

test('check mode catches a wrong cache entry (region, s_nop segment, loop, loop entry scores, incremental waits, running totals)', () => {
  const loopKernel = pickKernel(loadText(LOOP, 'loop.s'));
  // a kernel with regions outside its loop: those run the incremental wait model (a whole
  // single-block loop body runs the exact one, its entry depending on its own order)
  const straight = pickKernel(loadText(example, 'k.s'));
  type Internals = {
    slots: ({ peak_vgpr: number } | undefined)[];
    nopCache: ({ nops: Int32Array } | undefined)[];
    nopSegs: (Int32Array | undefined)[];
    loopCache: Map<string, { all: number }>[];
    waitRuns: ({ waits: Int32Array; m: number } | undefined)[];
    sumWaits: number;
    peakMax: Int32Array;
    loopScores: (Int32Array | undefined)[];
    loopPreScores: (Int32Array | undefined)[];
  };
  const corrupt: [string, (x: Internals) => void][] = [
    ['region', (x) => { for (const sl of x.slots) if (sl) sl.peak_vgpr += 1; }],
    ['s_nop', (x) => {
      for (const c of x.nopCache) if (c) for (let e = 0; e < c.nops.length; e++) if (c.nops[e]! >= 0) c.nops[e]! += 1;
      for (const segs of x.nopSegs) if (segs) for (let a = 0; a < segs.length; a++) segs[a]! += 1;
    }],
    ['incremental waits', (x) => { for (const w of x.waitRuns) if (w) w.waits[w.m]! += 1; }],
    ['running totals', (x) => { x.sumWaits += 1; }],
    ['running peaks', (x) => { x.peakMax[0]! += 1; }],
    ['loop', (x) => { for (const c of x.loopCache) for (const e of c.values()) e.all += 1; }],
    // the loop entry's join and comparison read only the scores its states can hold: with none
    // listed, the way in's pending loads are not joined in
    ['loop entry scores', (x) => {
      for (const l of [x.loopScores, x.loopPreScores]) l.forEach((a, r) => { if (a) l[r] = new Int32Array(0); });
    }],
  ];
  // a load in flight across the back edge: the loop's entry holds its registers' scores
  const carried = pickKernel(loadText(CARRIED, 'carried.s'));
  for (const [what, hurt] of corrupt) {
    const k = what === 'incremental waits' ? straight : what === 'loop entry scores' ? carried : loopKernel;
    const ev = new Evaluator(k, { checkFast: true });
    const s = randomSchedule(k, mulberry32(3), 40);
    assert.ok(s.changedRegions().length > 0);
    ev.evaluate(s);
    hurt(ev as unknown as Internals);
    assert.throws(() => ev.evaluate(s), FastPathMismatch, what);
    // without the check the wrong entry is used as it is
    const quiet = new Evaluator(k, { checkFast: false });
    quiet.evaluate(s);
    hurt(quiet as unknown as Internals);
    assert.doesNotThrow(() => quiet.evaluate(s));
  }
});

test('sequencePeaks equals the plain live-set walk on every region of every random schedule', () => {
  const k = pickKernel(loadText(example, 'k.s'));
  const out = new Int32Array(3);
  const rand = mulberry32(11);
  for (let t = 0; t < 20; t++) {
    const s = randomSchedule(k, rand, 30);
    k.regions.forEach((rg, r) => {
      const seq = Array.from(s.order[r]!, (q) => rg.nodes[q]!);
      sequencePeaks(k, seq, rg.liveOut, out);
      assert.deepEqual(Array.from(out), exactSequencePeaks(k, seq, rg.liveOut));
    });
  }
});

test('CONDUCTOR_CHECK_FAST=1 turns the check mode on', () => {
  const old = process.env['CONDUCTOR_CHECK_FAST'];
  try {
    process.env['CONDUCTOR_CHECK_FAST'] = '1';
    assert.equal(checkFastFromEnv(), true);
    assert.equal(new Evaluator(pickKernel(loadText(LOOP, 'loop.s'))).checkFast, true);
    process.env['CONDUCTOR_CHECK_FAST'] = '0';
    assert.equal(checkFastFromEnv(), false);
  } finally {
    if (old === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = old;
  }
});

test('drift of the estimate from the exact metrics of emitted schedules', () => {
  const k = pickKernel(loadText(example, 'k.s'));
  const ev = new Evaluator(k);
  const rand = mulberry32(5);
  let worst = 0;
  for (let t = 0; t < 10; t++) {
    const s = randomSchedule(k, rand, 12);
    if (s.changedRegions().length === 0) continue;
    const d = metricDrift(ev.evaluate(s), emitSchedule(s).metrics);
    assert.equal(d.difference.peak_vgpr, 0, 'peaks are exact');
    worst = Math.max(worst, Math.abs(d.estCyclesRelative));
  }
  assert.ok(worst < 0.03, `largest est_cycles drift ${worst}`);
  const same = metricDrift(ev.evaluate(new ScheduleState(k)), ev.evaluate(new ScheduleState(k)));
  assert.equal(same.estCyclesRelative, 0);
  assert.ok(Object.values(same.difference).every((x) => x === 0));
});

test('evaluate() follows the occupancy as the peaks cross its breakpoints (the occupancy of the last peaks is kept)', () => {
  // each load used right after it: hoisting the loads keeps up to 4 x 40 VGPRs live
  const lines = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:'];
  for (let x = 0; x < 40; x++) {
    lines.push(`  global_load_dwordx4 v[${4 * x}:${4 * x + 3}], v[200:201], off offset:${16 * x}`,
      `  v_add_f32 v250, v${4 * x}, v${4 * x + 3}`, `  v_add_f32 v251, v${4 * x + 1}, v${4 * x + 2}`);
  }
  lines.push('  s_endpgm', '');
  const k = pickKernel(loadText(lines.join('\n'), 'hoist.s'));
  const rg = k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
  const ev = new Evaluator(k);
  const s = new ScheduleState(k);
  const rand = mulberry32(17);
  const seen = new Set<number>();
  let evaluations = 0;
  for (let t = 0; t < 2000 && evaluations < 300; t++) {
    const m = rg.nodes.length;
    const from = Math.floor(rand() * m);
    // mostly toward the start (the loads gather there and the peak rises), now and then anywhere
    const to = rand() < 0.8 ? Math.floor(rand() * Math.min(from + 1, 6)) : Math.floor(rand() * m);
    if (from === to || !canMove(s, rg.id, from, to)) continue;
    moveTo(s, rg.id, from, to);
    const got = ev.evaluate(s);
    assert.deepEqual(got, new Evaluator(k).evaluate(s), `move ${t}`);
    seen.add(got.occupancy);
    evaluations++;
  }
  assert.ok(evaluations > 100, `${evaluations} evaluations`);
  assert.ok(seen.size >= 3, `occupancies seen: ${[...seen].join(', ')}`);
});

test('the Evaluator with pair tables gives the metrics it gives without them; check mode catches a wrong table', () => {
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const rand = mulberry32(21);
    const withTables = new Evaluator(k, { checkFast: false });
    const without = new Evaluator(k, { checkFast: false, pairTables: false });
    const s = new ScheduleState(k);
    let nops = 0;
    for (let t = 0; t < 400; t++) {
      const r = Math.floor(rand() * k.regions.length);
      const m = k.regions[r]!.nodes.length;
      const from = Math.floor(rand() * m);
      const to = Math.floor(rand() * m);
      if (m < 2 || !canMove(s, r, from, to)) continue;
      moveTo(s, r, from, to);
      const got = withTables.evaluate(s);
      assert.deepEqual(got, without.evaluate(s), `${name} step ${t}`);
      nops += got.s_nop;
    }
    assert.ok(withTables.stats.consumersByTable > 0, `${name}: no consumer answered by a table`);
    if (name === 'example.s') assert.ok(nops > 0, 'no schedule needed s_nop');
  }
  // every pair of every table forgotten: schedules that need s_nop are caught by the check
  const k = pickKernel(loadText(example, 'example.s'));
  const wipe = (ev: Evaluator): void => {
    for (let r = 0; r < k.regions.length; r++) {
      const t = ev.pairTable(r);
      if (!t) continue;
      for (let j = t.lo; j < t.hi; j++) for (let c = t.lo; c < t.hi; c++) if (t.get(j, c) > 0) t.corrupt(j, c, 0);
    }
  };
  let caught = 0;
  for (let seed = 1; seed <= 20 && caught === 0; seed++) {
    const s = randomSchedule(k, mulberry32(seed), 60);
    const right = new Evaluator(k, { checkFast: false }).evaluate(s).s_nop;
    const quiet = new Evaluator(k, { checkFast: false });
    wipe(quiet);
    if (quiet.evaluate(s).s_nop === right) continue;
    const checked = new Evaluator(k, { checkFast: true });
    wipe(checked);
    assert.throws(() => checked.evaluate(s), FastPathMismatch);
    caught++;
  }
  assert.ok(caught > 0, 'no random schedule where the wiped tables change the s_nop estimate');
});

test('evaluate() alternating between states, and after many changes of one state, equals a full pass (check mode)', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const ev = new Evaluator(k, { checkFast: true });
  const rand = mulberry32(13);
  const a = randomSchedule(k, rand, 30);
  const b = randomSchedule(k, rand, 30);
  for (let t = 0; t < 40; t++) {
    const s = t % 3 === 0 ? b : a;
    const r = Math.floor(rand() * k.regions.length);
    const m = k.regions[r]!.nodes.length;
    const from = Math.floor(rand() * m);
    const to = Math.floor(rand() * m);
    if (m > 1 && canMove(s, r, from, to)) moveTo(s, r, from, to);
    const got = ev.evaluate(s);
    assert.deepEqual(got, new Evaluator(k, { checkFast: false }).evaluate(s));
  }
});
