/**
 * The evaluator's incremental parts against their from-scratch references on random move
 * sequences of real kernels (the bundled example and a loop with loads, LDS traffic and MFMAs):
 *   - IncrementalPressure (a region's peaks re-scanned from the change) equals sequencePeaks (and the plain set-based walk),
 *     on legal moves and on arbitrary swaps (where the live sets before the change differ and
 *     the scan must go on past it); it and IncrementalWaits given the changed positions equal
 *     the ones that look for them;
 *   - ResumableCycles (a region's cycles resumed from the change through the engine's undo
 *     journal) equals runWaves from scratch, switching between regions and between sequences of
 *     different lengths (the model's waits come and go);
 *   - SegmentCache gives back exactly what was stored for a window and nothing for another;
 *   - the check mode catches a corrupted incremental pressure and a corrupted cycle journal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel, type ScheduleKernel } from '../../../src/schedule/kernel.js';
import { Evaluator, FastPathMismatch, SegmentCache } from '../../../src/schedule/metrics.js';
import { exactSequencePeaks, IncrementalPressure, sequencePeaks } from '../../../src/analysis/pressure-incremental.js';
import { canMove, moveTo, ScheduleState } from '../../../src/schedule/state.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { cycleEngineFor } from '../../../src/cycles/estimate.js';
import { runWaves } from '../../../src/cycles/kernel-time.js';
import { ResumableCycles } from '../../../src/cycles/resumable.js';
import { FLAG, syntheticWait } from '../../../src/cycles/model.js';
import { root } from '../../repo.js';
import { LOOP } from './helpers.js';
import { counterMax, CounterScores, flatEffects, IncrementalWaits, ScoreSnapshot, sequenceWaits } from '../../../src/waitcnt/estimate.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');


const kernels = (): [string, ScheduleKernel][] => [['example', pickKernel(loadText(example, 'example.s'))], ['loop', pickKernel(loadText(LOOP, 'loop.s'))]];

test('incremental pressure equals the full scan on random legal moves and on arbitrary swaps', () => {
  const want = new Int32Array(3);
  const got = new Int32Array(3);
  for (const [name, k] of kernels()) {
    const rand = mulberry32(5);
    let partial = 0;
    let runs = 0;
    for (const rg of k.regions) {
      const m = rg.nodes.length;
      const inc = new IncrementalPressure(k, rg.liveOut, m);
      const s = new ScheduleState(k);
      const seq = Int32Array.from(rg.nodes);
      for (let t = 0; t < 200; t++) {
        if (m >= 2) {
          const from = Math.floor(rand() * m);
          const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 21) - 10));
          if (t % 3 === 2) {
            // any swap, legal or not
            const x = seq[from]!; seq[from] = seq[to]!; seq[to] = x;
          } else if (canMove(s, rg.id, from, to)) {
            moveTo(s, rg.id, from, to);
            const o = s.order[rg.id]!;
            for (let p = 0; p < m; p++) seq[p] = rg.nodes[o[p]!]!;
          }
        }
        inc.run(seq, got);
        sequencePeaks(k, seq, rg.liveOut, want);
        assert.deepEqual(Array.from(got), Array.from(want), `${name}: region ${rg.id}, step ${t}`);
        // both share the scan's step: every tenth step also against the plain set-based walk
        if (t % 10 === 0) assert.deepEqual(Array.from(got), exactSequencePeaks(k, seq, rg.liveOut), `${name}: region ${rg.id}, step ${t} (plain walk)`);
        runs++;
        if (inc.scanned > 0 && inc.scanned < m) partial++;
      }
    }
    assert.ok(runs > 200, `${name}: ${runs} runs`);
    if (name === 'example') assert.ok(partial > 50, `${name}: only ${partial} runs scanned part of the region`);
  }
});

test('incremental pressure and wait model given the changed positions (as the Evaluator gives them) equal the ones that look for them, and the full runs', () => {
  const want = new Int32Array(3);
  const got = new Int32Array(3);
  const need = new Int32Array(3);
  for (const [name, k] of kernels()) {
    const f = flatEffects(k.ctx);
    const max = counterMax(k.target);
    const entry = new ScoreSnapshot(new CounterScores());
    const rand = mulberry32(11);
    let given = 0;
    for (const rg of k.regions) {
      const m = rg.nodes.length;
      const press = [new IncrementalPressure(k, rg.liveOut, m), new IncrementalPressure(k, rg.liveOut, m)];
      const waits = [new IncrementalWaits(f, entry, max, m), new IncrementalWaits(f, entry, max, m)];
      const seq = Int32Array.from(rg.nodes);
      const last = Int32Array.from(rg.nodes);
      for (let t = 0; t < 150; t++) {
        if (m >= 2 && t > 0) {
          // any swap, or (one step in five) none
          if (t % 5 !== 0) {
            const a = Math.floor(rand() * m);
            const b = Math.max(0, Math.min(m - 1, a + Math.floor(rand() * 21) - 10));
            const x = seq[a]!; seq[a] = seq[b]!; seq[b] = x;
          }
        }
        let d0 = m;
        let d1 = -1;
        for (let p = 0; p < m; p++) if (seq[p] !== last[p]) { if (d1 < 0) d0 = p; d1 = p; }
        last.set(seq);
        const hinted = t > 0;
        if (hinted) given++;
        sequencePeaks(k, seq, rg.liveOut, want);
        press[0]!.run(seq, got);
        assert.deepEqual(Array.from(got), Array.from(want), `${name}: region ${rg.id}, step ${t}: peaks`);
        if (hinted) press[1]!.run(seq, got, d0, d1); else press[1]!.run(seq, got);
        assert.deepEqual(Array.from(got), Array.from(want), `${name}: region ${rg.id}, step ${t}: peaks given the changed positions ${d0}..${d1}`);
        const st = new CounterScores();
        entry.writeTo(st);
        const exact = sequenceWaits(f, st, seq, max, need);
        assert.equal(waits[0]!.run(seq, need), exact, `${name}: region ${rg.id}, step ${t}: waits`);
        assert.equal(hinted ? waits[1]!.run(seq, need, d0, d1) : waits[1]!.run(seq, need), exact, `${name}: region ${rg.id}, step ${t}: waits given the changed positions ${d0}..${d1}`);
        assert.deepEqual(Array.from(waits[1]!.has), Array.from(waits[0]!.has), `${name}: region ${rg.id}, step ${t}: where the waits are`);
        assert.deepEqual(Array.from(waits[1]!.endPending), Array.from(waits[0]!.endPending), `${name}: region ${rg.id}, step ${t}: pending at the end`);
      }
    }
    assert.ok(given > 200, `${name}: ${given} runs given the changed positions`);
  }
});

test('resumed cycles equal runWaves from scratch, across regions and with waits coming and going', () => {
  for (const [name, k] of kernels()) {
    const engine = cycleEngineFor(k.ctx);
    const res = new ResumableCycles(engine.m);
    const rand = mulberry32(9);
    const s = new ScheduleState(k);
    let resumed = 0;
    for (let t = 0; t < 400; t++) {
      const r = rand() < 0.8 ? 0 : Math.floor(rand() * k.regions.length);
      const rg = k.regions[r]!;
      const m = rg.nodes.length;
      if (m >= 2) {
        const from = Math.floor(rand() * m);
        const to = Math.floor(rand() * m);
        if (canMove(s, r, from, to)) moveTo(s, r, from, to);
      }
      // the region in its order, with a synthetic wait now and then (the cycle sequences the evaluator simulates)
      const seq: number[] = [];
      const o = s.order[r]!;
      for (let p = 0; p < m; p++) {
        if (rand() < 0.1) syntheticWait(engine.m, Math.floor(rand() * 3), -1, -1, seq);
        seq.push(rg.nodes[o[p]!]!);
      }
      // runs of one wave leave the running sums to be counted whole when next read; runs of
      // three waves in a row keep them changed by the positions that changed
      for (const waves of t % 3 === 0 ? [1, 3] : [3]) {
        const got = res.run(r, seq, waves);
        if (res.stepped < seq.length) resumed++;
        const want = runWaves(engine, seq, waves);
        assert.deepEqual([got.one, got.all], [want.one, want.all], `${name}: region ${r}, step ${t}, ${waves} waves`);
      }
      // the running sums of the co-resident bound: the sequence's busiest pipe and issue-port slots
      const pipes = engine.resourceSums(seq, 0, seq.length).pipes;
      const port = seq.filter((i) => (engine.m.flags[i]! & FLAG.free) === 0).length;
      assert.deepEqual(res.runningSums(), { pipe: Math.max(0, ...pipes.subarray(1)), port }, `${name}: region ${r}, step ${t}, running sums`);
    }
    assert.ok(resumed > 10, `${name}: only ${resumed} runs resumed`);
  }
});

test('segment cache: a stored window comes back with its count, another window or place does not', () => {
  const c = new SegmentCache(8, 56);
  const rand = mulberry32(2);
  const seq = Int32Array.from({ length: 100 }, () => Math.floor(rand() * 50));
  const slot = c.slot(32, false, seq, 8, 64);
  assert.equal(c.get(slot, 32, false, seq, 8, 64), -1);
  c.set(slot, 32, false, seq, 8, 64, 5);
  assert.equal(c.get(slot, 32, false, seq, 8, 64), 5);
  assert.equal(c.get(slot, 32, true, seq, 8, 64), -1);
  assert.equal(c.get(slot, 0, false, seq, 8, 64), -1);
  const other = seq.slice();
  other[20] = 99;
  assert.equal(c.get(slot, 32, false, other, 8, 64), -1);
  assert.equal(c.get(slot, 32, false, seq, 9, 64), -1);
  // another window in the same slot replaces the entry
  c.set(slot, 32, false, other, 8, 64, 2);
  assert.equal(c.get(slot, 32, false, seq, 8, 64), -1);
  assert.equal(c.get(slot, 32, false, other, 8, 64), 2);
  // a window longer than the cache's width is never stored, and never found
  const narrow = new SegmentCache(8, 40);
  const s2 = narrow.slot(32, false, seq, 8, 64);
  narrow.set(s2, 32, false, seq, 8, 64, 5);
  assert.equal(narrow.get(s2, 32, false, seq, 8, 64), -1);
  const s3 = narrow.slot(32, false, seq, 24, 64);
  narrow.set(s3, 32, false, seq, 24, 64, 3);
  assert.equal(narrow.get(s3, 32, false, seq, 24, 64), 3);
});

test('segment cache: a table that grows as windows come keeps answering with their counts, or not at all', () => {
  const rand = mulberry32(4);
  const c = new SegmentCache(256, 40, 0, 0, 2);
  const wins = Array.from({ length: 120 }, (_, x) => ({ at: 32 * (x % 5), last: x % 7 === 0, seq: Int32Array.from({ length: 40 }, () => Math.floor(rand() * 30)), n: x }));
  let found = 0;
  for (let round = 0; round < 3; round++) {
    for (const w of wins) {
      const slot = c.slot(w.at, w.last, w.seq, 4, 40);
      const n = c.get(slot, w.at, w.last, w.seq, 4, 40);
      if (n >= 0) { assert.equal(n, w.n, 'a window found with another count'); found++; continue; }
      c.set(slot, w.at, w.last, w.seq, 4, 40, w.n);
      assert.equal(c.get(c.slot(w.at, w.last, w.seq, 4, 40), w.at, w.last, w.seq, 4, 40), w.n, 'a window just stored is not found');
    }
  }
  assert.ok(c.size >= 128, `the table grew to ${c.size} slots`);
  assert.ok(found > 100, `${found} windows found again`);
  // windows of kernel instructions far from 0, kept as offsets from the region's first: found as stored
  const far = new SegmentCache(256, 40, 70000, 100);
  const fseq = Int32Array.from({ length: 40 }, () => 70000 + Math.floor(rand() * 100));
  far.set(far.slot(0, false, fseq, 0, 40), 0, false, fseq, 0, 40, 3);
  assert.equal(far.get(far.slot(0, false, fseq, 0, 40), 0, false, fseq, 0, 40), 3);
  const shifted = fseq.map((x) => x + 1);
  assert.equal(far.get(far.slot(0, false, shifted, 0, 40), 0, false, shifted, 0, 40), -1);
  // a region longer than 16-bit offsets reach is never cached
  const huge = new SegmentCache(256, 40, 0, 0x10001);
  huge.set(huge.slot(0, false, fseq, 0, 40), 0, false, fseq, 0, 40, 3);
  assert.equal(huge.get(huge.slot(0, false, fseq, 0, 40), 0, false, fseq, 0, 40), -1);
  // a few windows in a large table: it stays small
  const small = new SegmentCache(256, 40);
  for (const w of wins.slice(0, 6)) small.set(small.slot(w.at, w.last, w.seq, 4, 40), w.at, w.last, w.seq, 4, 40, w.n);
  assert.ok(small.size <= 16, `${small.size} slots for 6 windows`);
});

test('check mode catches a corrupted incremental pressure and a corrupted cycle journal', () => {
  const k = pickKernel(loadText(example, 'k.s'));
  type Internals = { pressures: ({ pv: Int32Array } | undefined)[]; cycles: { engine: { journal: { scalars: Float64Array } } } };
  const hurts: [string, (x: Internals) => void][] = [
    ['pressure', (x) => { for (const p of x.pressures) if (p) { p.pv.fill(1000); } }],
    // the journal's states are wrong: the next run resumes from a wrong state
    ['cycles', (x) => { x.cycles.engine.journal.scalars.fill(1e6); }],
  ];
  for (const [what, hurt] of hurts) {
    const ev = new Evaluator(k, { checkFast: true });
    // moves in one region only (check mode recomputes every changed region, which would hand the cycle journal to another)
    const s = new ScheduleState(k);
    const r = k.regions.reduce((a, b) => (b.nodes.length > a.nodes.length ? b : a)).id;
    // moves in region r: its pressure and cycles are taken up from what the last evaluation kept
    const m = k.regions[r]!.nodes.length;
    const move = (top: number): void => {
      for (let from = top; from > 0; from--) if (canMove(s, r, from, from - 1)) { moveTo(s, r, from, from - 1); return; }
      assert.fail('no legal move');
    };
    move(m - 1);
    ev.evaluate(s);
    hurt(ev as unknown as Internals);
    // another move, below the first (not the one undoing it)
    move(m - 4);
    assert.throws(() => ev.evaluate(s), FastPathMismatch, what);
  }
});

test('resumed cycles of sequences of one length stop where the state meets the last run (up to a time shift) and still equal runWaves', () => {
  for (const [name, k] of kernels()) {
    const engine = cycleEngineFor(k.ctx);
    // every same-length run converges (no tail run plainly), as this test counts the stops
    const res = new ResumableCycles(engine.m, { plainTail: -1 });
    const rg = k.regions.reduce((a, b) => (b.nodes.length > a.nodes.length ? b : a));
    const m = rg.nodes.length;
    const rand = mulberry32(21);
    const s = new ScheduleState(k);
    let prev: number[] = [];
    let stopped = 0;
    const cur = Array.from(rg.nodes);
    for (let t = 0; t < 3000; t++) {
      const from = Math.floor(rand() * m);
      const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 9) - 4));
      if (t % 2 === 1) {
        // any swap, legal or not (the engine simulates whatever it is given): more states that meet the last run's with units that differ
        const x = cur[from]!; cur[from] = cur[to]!; cur[to] = x;
      } else if (canMove(s, rg.id, from, to)) {
        moveTo(s, rg.id, from, to);
        const x = cur[from]!; cur.splice(from, 1); cur.splice(to, 0, x);
      }
      const seq = cur.slice();
      // a region of another owner now and then (the journal starts again)
      const owner = rand() < 0.05 ? 1 : 0;
      const got = res.run(owner, seq, 2);
      let first = 0;
      while (owner === 0 && first < prev.length && prev[first] === seq[first]) first++;
      if (owner === 0 && prev.length > 0 && res.stepped < seq.length - (first - (first % 8))) stopped++;
      prev = owner === 0 ? seq : [];
      const want = runWaves(engine, seq, 2);
      assert.deepEqual([got.one, got.all], [want.one, want.all], `${name}: step ${t}`);
    }
    if (name === 'example') assert.ok(stopped > 30, `${name}: only ${stopped} runs stopped early`);
    // the loop's MFMA chain moves the rest of the region in time: those runs take the last run's rest shifted
    if (name === 'loop') assert.ok(res.shiftedStops > 50, `${name}: only ${res.shiftedStops} runs met the last run's state shifted in time`);
  }
});

/**
 * Straight-line code where a change early in the region moves the rest of it in time: global
 * loads whose results are read far later (still in flight where a run stops), MFMA chains and
 * the VALU work between them. Random swaps (the engine simulates any order) then make runs meet
 * the last run's state shifted in time, with loads issued before the change still pending and
 * loads after it taken over from the last run.
 */
const SHIFTED = (() => {
  const l = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:'];
  for (let b = 0; b < 6; b++) {
    l.push(`  global_load_dwordx2 v[${2 * b}:${2 * b + 1}], v[40:41], off offset:${16 * b}`);
    l.push(`  v_mfma_f32_32x32x8f16 a[${16 * (b % 2)}:${16 * (b % 2) + 15}], v[20:21], v[22:23], a[${16 * (b % 2)}:${16 * (b % 2) + 15}]`);
    l.push(`  v_accvgpr_read_b32 v${24 + b}, a${16 * (b % 2)}`);
    for (let x = 0; x < 6; x++) l.push(`  v_add_u32 v${50 + x}, v${50 + x}, v${24 + b}`);
    if (b >= 2) l.push(`  v_add_f32 v${60 + b}, v${2 * (b - 2)}, v${2 * (b - 2) + 1}`);
    l.push(`  v_mul_f32 v${70 + b}, v${24 + b}, v${24 + b}`);
  }
  l.push('  s_endpgm', '');
  return l.join('\n');
})();

test('resumed cycles that take over the last run shifted in time equal runWaves, loads in flight across the change included', () => {
  const k = pickKernel(loadText(SHIFTED, 'shifted.s'));
  const engine = cycleEngineFor(k.ctx);
  const res = new ResumableCycles(engine.m, { plainTail: -1 });
  const rg = k.regions.reduce((a, b) => (b.nodes.length > a.nodes.length ? b : a));
  const m = rg.nodes.length;
  assert.ok(m > 60, `region of ${m}`);
  const rand = mulberry32(17);
  const cur = Array.from(rg.nodes);
  for (let t = 0; t < 4000; t++) {
    // mostly small swaps (the rest of the region then runs as before, later or earlier), now and then one back
    const from = Math.floor(rand() * m);
    const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 7) - 3));
    const x = cur[from]!; cur[from] = cur[to]!; cur[to] = x;
    const got = res.run(0, cur, 2);
    const want = runWaves(engine, cur, 2);
    assert.deepEqual([got.one, got.all], [want.one, want.all], `step ${t}`);
  }
  assert.ok(res.shiftedStops > 200, `only ${res.shiftedStops} runs met the last run's state shifted in time`);
});

test('resumed cycles mixing runs that converge and runs whose short tail runs plainly (PLAIN_TAIL) equal runWaves; the default runs short tails plainly', () => {
  const k = pickKernel(loadText(SHIFTED, 'shifted.s'));
  const engine = cycleEngineFor(k.ctx);
  const rg = k.regions.reduce((a, b) => (b.nodes.length > a.nodes.length ? b : a));
  const m = rg.nodes.length;
  for (const plainTail of [16, undefined]) {
    const res = new ResumableCycles(engine.m, plainTail === undefined ? {} : { plainTail });
    const rand = mulberry32(5);
    const cur = Array.from(rg.nodes);
    let converged = 0;
    for (let t = 0; t < 3000; t++) {
      const from = Math.floor(rand() * m);
      const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 7) - 3));
      const x = cur[from]!; cur[from] = cur[to]!; cur[to] = x;
      const plainBefore = res.plainRuns;
      const got = res.run(0, cur, 2);
      if (res.plainRuns === plainBefore && t > 0) converged++;
      const want = runWaves(engine, cur, 2);
      assert.deepEqual([got.one, got.all], [want.one, want.all], `plainTail ${plainTail}: step ${t}`);
    }
    if (plainTail === 16) {
      // both kinds, one after the other on the same journal
      assert.ok(res.plainRuns > 300 && converged > 300, `plain ${res.plainRuns}, converged ${converged}`);
    } else {
      // the region is shorter than PLAIN_TAIL: every same-length run after the first runs plainly
      assert.ok(m <= 96 && res.plainRuns === 2999, `region of ${m}, ${res.plainRuns} plain runs`);
    }
  }
});

