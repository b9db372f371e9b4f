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
import { counterMax, CounterScores, flatEffects, IncrementalWaits, sequenceWaits } from '../../../src/waitcnt/estimate.js';
import { InertRules, NopWindow, PairWaits, windowNopModel } from '../../../src/hazards/window.js';
import { activeRules } from '../../../src/hazards/engine.js';
import { HazardContext, hazardInsns } from '../../../src/hazards/context.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');


/** Moves one instruction of a window a few places (the search's change), now and then anywhere. */
function moveInWindow(content: Int32Array, rand: () => number): [number, number] {
  const n = content.length;
  const a = Math.floor(rand() * n);
  const b = rand() < 0.8 ? Math.max(0, Math.min(n - 1, a + Math.floor(rand() * 9) - 4)) : Math.floor(rand() * n);
  const x = content[a]!;
  if (a < b) content.copyWithin(a, a + 1, b + 1); else content.copyWithin(b + 1, b, a);
  content[b] = x;
  return [a, b];
}

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
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const ev = new Evaluator(k, { checkFast: true });
    assert.ok(ev.checkFast);
    const n = exercise(k, ev, 7, 150);
    assert.ok(n > 60, `${name}: only ${n} evaluations`);
    // with one incremental wait model kept, every other region's starts from scratch again
    assert.ok(exercise(k, new Evaluator(k, { checkFast: true, waitModels: 1 }), 8, 100) > 40);
  }
});

test('check mode catches a wrong cache entry (region, s_nop segment, loop, model waits, running totals)', () => {
  const loopKernel = pickKernel(loadText(LOOP, 'loop.s'));
  // a kernel with regions outside its loop: those run the incremental wait model (a whole
  // single-block loop body runs the exact one, its entry depending on its own order)
  const straight = pickKernel(loadText(example, 'k.s'));
  type Internals = {
    slots: ({ peak_vgpr: number } | undefined)[];
    nopCache: ({ nops: Int32Array } | undefined)[];
    nopSegs: (Int32Array | undefined)[];
    loopCache: Map<string, { all: number }>[];
    idWaits: Int32Array;
    waitRuns: ({ waits: Int32Array; m: number } | undefined)[];
    sumWaits: number;
    peakMax: Int32Array;
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
    ['waits', (x) => { for (let r = 0; r < x.idWaits.length; r++) if (x.idWaits[r]! >= 0) x.idWaits[r]! += 1; }],
  ];
  for (const [what, hurt] of corrupt) {
    const k = what === 'incremental waits' ? straight : loopKernel;
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

test('the incremental wait model equals sequenceWaits on every region of random schedules, resumed from each change and stopped where the states meet', () => {
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const f = flatEffects(k.insns, k.ctx.cfg.control);
    const max = counterMax(k.target);
    const need = new Int32Array(3);
    const runs = k.regions.map((rg) => new IncrementalWaits(f, new CounterScores(), max, rg.nodes.length));
    const rand = mulberry32(5);
    let resumed = 0;
    let stopped = 0;
    for (let t = 0; t < 40; t++) {
      const s = randomSchedule(k, rand, 1 + Math.floor(rand() * 6));
      k.regions.forEach((_rg, r) => {
        const seq = s.regionSequence(r);
        const at: { at: number; vm: number; lgkm: number; exp: number }[] = [];
        const exact = sequenceWaits(f, new CounterScores(), seq, max, need, at);
        const run = runs[r]!;
        let first = 0;
        while (first < seq.length && run.seq[first] === seq[first]) first++;
        assert.equal(run.run(seq, need), exact, `${name} region ${r}`);
        if (first < seq.length && first > 0) resumed++;
        if (first < seq.length && run.stepped < seq.length - first) stopped++;
        const got = [];
        for (let p = 0; p < seq.length; p++) if (run.has[p]) got.push({ at: p, vm: run.vm[p]!, lgkm: run.lgkm[p]!, exp: run.exp[p]! });
        assert.deepEqual(got, at, `${name} region ${r}: where the waits are`);
      });
    }
    assert.ok(resumed > 10, `${name}: ${resumed} resumed runs`);
    assert.ok(stopped > 0, `${name}: no run stopped where its state met the last run's`);
  }
});

/**
 * A straight-line kernel of independent global loads and LDS reads, each used a few
 * instructions later: a move that swaps two loads gives their registers other scores, which
 * stop mattering once a wait completes both.
 */
const LOADS = (() => {
  const lines = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:'];
  for (let x = 0; x < 16; x++) {
    lines.push(`  global_load_dword v${x}, v[40:41], off offset:${x * 4}`);
    lines.push(`  ds_read_b32 v${16 + x}, v42 offset:${x * 4}`);
    if (x >= 2) lines.push(`  v_add_u32 v${48 + x}, v${x - 2 - (x % 3)}, v${14 + x - (x % 2)}`);
    if (x % 4 === 3) lines.push(`  s_load_dword s${20 + x}, s[4:5], ${x * 4}`, `  s_add_u32 s${40 + x}, s${20 + x - 3}, 1`);
    lines.push(`  v_mul_u32_u24 v${64 + x}, v43, v43`);
  }
  lines.push('  s_endpgm', '');
  return lines.join('\n');
})();

/**
 * More LDS reads in flight than lgkmcnt counts (15 on GFX9): the counter's width completes the
 * oldest, so two orders of the reads reach the same window bounds with other reads pending.
 */
const LDS_FLOOD = (() => {
  const lines = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:'];
  for (let x = 0; x < 24; x++) lines.push(`  ds_read_b32 v${x}, v42 offset:${x * 4}`);
  for (let x = 0; x < 24; x++) lines.push(`  v_add_u32 v${48 + x}, v${(x * 7) % 24}, v43`);
  lines.push('  s_endpgm', '');
  return lines.join('\n');
})();

test('the incremental wait model under the search\'s small moves: equal to sequenceWaits after every move, stopped where the states meet as the model sees them (scores that differ but are pending in neither run)', () => {
  for (const [text, name] of [[LOADS, 'loads.s'], [LDS_FLOOD, 'lds-flood.s'], [example, 'example.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const f = flatEffects(k.insns, k.ctx.cfg.control);
    const max = counterMax(k.target);
    const need = new Int32Array(3);
    const rg = k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
    const m = rg.nodes.length;
    // an entry with operations pending (the region's own loads and LDS reads, issued once before it)
    const entry = new CounterScores();
    sequenceWaits(f, entry, rg.nodes, max, need);
    const run = new IncrementalWaits(f, entry, max, m);
    const s = new ScheduleState(k);
    const rand = mulberry32(21);
    let runs = 0;
    let early = 0;
    for (let t = 0; t < 3000 && runs < 600; t++) {
      const from = Math.floor(rand() * m);
      const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 13) - 6));
      if (from === to || !canMove(s, rg.id, from, to)) continue;
      moveTo(s, rg.id, from, to);
      const seq = s.regionSequence(rg.id);
      const at: { at: number; vm: number; lgkm: number; exp: number }[] = [];
      const st = entry.clone();
      const exact = sequenceWaits(f, st, seq, max, need, at);
      let first = 0;
      while (first < m && run.seq[first] === seq[first]) first++;
      assert.equal(run.run(seq, need), exact, `${name} move ${t}`);
      const got = [];
      for (let p = 0; p < m; p++) if (run.has[p]) got.push({ at: p, vm: run.vm[p]!, lgkm: run.lgkm[p]!, exp: run.exp[p]! });
      assert.deepEqual(got, at, `${name} move ${t}: where the waits are`);
      assert.deepEqual(Array.from(run.endPending), Array.from(st.pendingPerClass()), `${name} move ${t}: pending at the end`);
      runs++;
      if (run.stepped < m - first) early++;
    }
    assert.ok(runs > 300, `${name}: ${runs} runs`);
    assert.ok(early > runs / 4, `${name}: ${early} of ${runs} runs stopped before the end`);
    if (name !== 'example.s') assert.ok(run.settledStops > 10, `${name}: ${run.settledStops} runs stopped with scores differing from the last run's, pending in neither`);
  }
});

test('pair values: skipping the rules a consumer showed to find nothing (in a pair or in a window) gives the values every rule gives', () => {
  for (const [text, name] of [[example, 'example.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const facts = hazardInsns(k.ctx);
    const rules = activeRules(new HazardContext(k.ctx, facts)).filter((r) => !r.noNopFix);
    // what the pair table skips is learnt by the windows too: a window over each region first
    const shared = new InertRules(rules, k.ctx.insns.length);
    for (const rg of k.regions) new NopWindow(k.ctx, facts, rules, shared, k.ctx.target.maxNopImm.value, rg.nodes.length).nops(Int32Array.from(rg.nodes), 0);
    const learning = new PairWaits(k.ctx, facts, rules, shared);
    const every = new PairWaits(k.ctx, facts, rules, new InertRules(rules, k.ctx.insns.length), false);
    // every pair of the kernel's instructions, in a random order
    const rand = mulberry32(13);
    const order = Int32Array.from({ length: k.n * k.n }, (_, x) => x);
    for (let x = order.length - 1; x > 0; x--) { const y = Math.floor(rand() * (x + 1)); [order[x], order[y]] = [order[y]!, order[x]!]; }
    let nonzero = 0;
    for (const x of order) {
      const j = Math.floor(x / k.n);
      const c = x % k.n;
      const w = every.waits(j, c);
      assert.equal(learning.waits(j, c), w, `${name}: pair ${j} -> ${c}`);
      if (w > 0) nonzero++;
    }
    assert.ok(nonzero > 100, `${name}: ${nonzero} pairs need wait states`);
    assert.ok(learning.skipped > order.length, `${name}: ${learning.skipped} rule runs skipped`);
    assert.equal(every.skipped, 0);
  }
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

test('a NopWindow pads a changing window as the engine pads it from scratch, re-checking fewer consumers than it holds', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(9);
  // a window around the kernel's MFMAs, where moves make and break hazards
  const mfma = k.insns.findIndex((r) => r.insn.mnemonic.startsWith('v_mfma'));
  assert.ok(mfma >= 0);
  const start = Math.max(0, mfma - 20);
  const n = Math.min(k.n - start, 60);
  const from = 20;
  const win = model.window(n);
  const content = Int32Array.from({ length: n }, (_, x) => start + x);
  let partial = 0;
  let padded = 0;
  for (let t = 0; t < 300; t++) {
    const [a, b] = moveInWindow(content, rand);
    const got = win.nops(content, from);
    const exact = model.nops(Array.from(content.subarray(0, from)), Array.from(content.subarray(from)), []);
    assert.equal(got, exact, `step ${t}`);
    if (exact > 0) padded++;
    if (a !== b && win.checked < n - Math.min(a, b)) partial++;
  }
  assert.ok(padded > 50, `${padded} windows needed padding`);
  assert.ok(partial > 50, `${partial} windows re-checked only part of what follows the change`);
});

test('with a pair table a NopWindow still pads as the engine does: the table answers most consumers, every rule runs where it shows a shortfall', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(11);
  const mfma = k.insns.findIndex((r) => r.insn.mnemonic.startsWith('v_mfma'));
  const start = Math.max(0, mfma - 20);
  const n = Math.min(k.n - start, 60);
  const from = 20;
  const table = model.pairTable(start, start + n);
  assert.ok(table);
  const win = model.window(n, table);
  const content = Int32Array.from({ length: n }, (_, x) => start + x);
  let byTable = 0;
  let byRules = 0;
  let padded = 0;
  for (let t = 0; t < 300; t++) {
    moveInWindow(content, rand);
    const got = win.nops(content, from);
    const exact = model.nops(Array.from(content.subarray(0, from)), Array.from(content.subarray(from)), []);
    assert.equal(got, exact, `step ${t}`);
    if (exact > 0) padded++;
    byTable += win.byTable;
    byRules += win.checked - win.byTable;
  }
  assert.ok(padded > 50, `${padded} windows needed padding`);
  assert.ok(byTable > byRules && byRules > 50, `${byTable} consumers answered by the table, ${byRules} by every rule`);
  assert.ok(table.rowsKnown() > 10, `${table.rowsKnown()} consumers walked only as far as their row's largest value`);
  // a pair whose wait states the table forgets: the window pads too little, where the engine does not
  let hazard: [number, number] | undefined;
  for (let j = start; j < start + n && !hazard; j++) for (let c = j + 1; c < start + n; c++) if (table.get(j, c) > 1) { hazard = [j, c]; break; }
  assert.ok(hazard, 'no pair of the window needs wait states');
  const [j, c] = hazard;
  const wrong = model.pairTable(start, start + n)!;
  wrong.corrupt(j, c, 0);
  const order = [...Array.from({ length: n }, (_, x) => start + x).filter((i) => i !== j && i !== c), j, c];
  assert.ok(model.window(n, table).nops(Int32Array.from(order), 0) > 0);
  assert.equal(model.window(n, table).nops(Int32Array.from(order), 0), model.nops([], order, []));
  assert.notEqual(model.window(n, wrong).nops(Int32Array.from(order), 0), model.nops([], order, []));
  // a row bound too small stops the walk before the producer: caught the same way
  const short = model.pairTable(start, start + n)!;
  short.corruptRow(c, 0);
  assert.notEqual(model.window(n, short).nops(Int32Array.from(order), 0), model.nops([], order, []));
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
