/**
 * The wait estimate's kept states (ScoreSnapshot: the window bounds and the pending scores of a
 * CounterScores) against the whole states they keep: written back, each is the same state as the
 * model sees it (equals), asks every instruction for the same wait, and goes on exactly as the
 * whole state does; and the comparison fails when a pending score is lost. The incremental wait
 * model (IncrementalWaits) equals sequenceWaits from scratch on random schedules and under the
 * search's small moves, resumed from each change and stopped where the states meet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { counterMax, CounterScores, flatEffects, type CounterMax, IncrementalWaits, kernelWaits, needBefore, ScoreSnapshot, sequenceWaits } from '../../../src/waitcnt/estimate.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { canMove, moveTo, ScheduleState } from '../../../src/schedule/state.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP, randomSchedule } from '../schedule/helpers.js';
import { NCLASSES } from '../../../src/targets/counters.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** The two states ask every instruction of the kernel for the same wait. */
function sameNeeds(f: ReturnType<typeof flatEffects>, a: CounterScores, b: CounterScores, max: CounterMax): boolean {
  const na = new Int32Array(3);
  const nb = new Int32Array(3);
  for (let i = 0; i < f.n; i++) {
    const x = needBefore(f, a, i, na, max);
    const y = needBefore(f, b, i, nb, max);
    if (x !== y || na.join() !== nb.join()) return false;
  }
  return true;
}

test('a ScoreSnapshot written back is the state it keeps, as the wait model sees it, and goes on as it does', () => {
  let pendingSeen = 0;
  let lossCaught = 0;
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const ctx = kernelContexts(loadText(text, name)).find((c) => c.insns.length > 0)!;
    const f = flatEffects(ctx);
    const max = counterMax(ctx.target);
    const need = new Int32Array(3);
    const rand = mulberry32(3);
    for (let t = 0; t < 60; t++) {
      // a state reached by a random straight-line run of the kernel's instructions
      const seq = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * f.n));
      const whole = new CounterScores();
      sequenceWaits(f, whole, seq, max, need);
      const snap = new ScoreSnapshot(whole);
      const back = snap.state();
      assert.ok(back.equals(whole, max) && whole.equals(back, max), `${name}: state ${t} written back differs`);
      assert.deepEqual(Array.from(snap.pendingPerClass(max)), Array.from(whole.pendingPerClass(max)));
      assert.ok(sameNeeds(f, whole, back, max), `${name}: state ${t} written back asks another wait`);
      // the same continuation from both: the same waits, the same state
      const more = Array.from({ length: 30 }, () => Math.floor(rand() * f.n));
      const a = new Int32Array(3);
      const wa = sequenceWaits(f, whole, more, max, need);
      const wb = sequenceWaits(f, back, more, max, a);
      assert.equal(wb, wa, `${name}: state ${t}: waits after it`);
      assert.ok(back.equals(whole, max), `${name}: state ${t}: states after the same continuation`);
      if (snap.at.length > 0) {
        pendingSeen++;
        // a snapshot that lost a pending score is another state: the comparison can fail
        const lost = new ScoreSnapshot(whole);
        const again = new CounterScores();
        new ScoreSnapshot(whole).writeTo(again);
        if (lost.at.length > 0) {
          again.score[lost.at[0]!] = 0;
          if (!again.equals(whole, max)) lossCaught++;
        }
      }
    }
  }
  assert.ok(pendingSeen > 40, `only ${pendingSeen} states held pending scores`);
  assert.ok(lossCaught > 20, `a lost pending score went unnoticed (${lossCaught} caught)`);
});

test('kernelWaits keeps snapshots of the states the whole-state pass reaches (before and after the instructions asked for)', () => {
  const ctx = kernelContexts(loadText(LOOP, 'loop.s')).find((c) => c.insns.length > 0)!;
  const f = flatEffects(ctx);
  const max = counterMax(ctx.target);
  const all = Array.from({ length: f.n }, (_, i) => i);
  const kw = kernelWaits(ctx.cfg, f, max, { at: all, after: all });
  // within a block, the state after i and the one before i + 1 are the same state
  let compared = 0;
  for (const b of ctx.cfg.blocks) {
    for (let i = b.start; i + 1 < b.end; i++) {
      const after = kw.after.get(i)!.state();
      const before = kw.before.get(i + 1)!.state();
      assert.ok(after.equals(before, max), `after ${i} / before ${i + 1}`);
      assert.ok(sameNeeds(f, after, before, max));
      compared++;
    }
  }
  assert.ok(compared > 10);
  // and the pass with every wait of the loop in place needs none: the states kept agree with it
  const need = new Int32Array(3);
  let waited = 0;
  for (let i = 0; i < f.n; i++) if (f.special[i] !== 1 && needBefore(f, kw.before.get(i)!.state(), i, need, max)) waited++;
  assert.equal(waited, kw.inserted.size, 'the kept states ask exactly the waits the pass inserted');
});

test('the incremental wait model equals sequenceWaits on every region of random schedules, resumed from each change and stopped where the states meet', () => {
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const f = flatEffects(k.ctx);
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

/**
 * The largest region of a kernel and the wait model's facts, with an entry that has operations
 * pending (the region's own loads and LDS reads, issued once before it).
 */
function largestRegion(text: string, name: string) {
  const k = pickKernel(loadText(text, name));
  const f = flatEffects(k.ctx);
  const max = counterMax(k.target);
  const need = new Int32Array(3);
  const rg = k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
  const entry = new CounterScores();
  sequenceWaits(f, entry, rg.nodes, max, need);
  return { k, f, max, need, rg, m: rg.nodes.length, entry };
}

/** A random move of region r's instruction by up to 6 places, made when the dependencies allow it. */
function smallMove(s: ScheduleState, r: number, m: number, rand: () => number): boolean {
  const from = Math.floor(rand() * m);
  const to = Math.max(0, Math.min(m - 1, from + Math.floor(rand() * 13) - 6));
  if (from === to || !canMove(s, r, from, to)) return false;
  moveTo(s, r, from, to);
  return true;
}

test('the incremental wait model under the search\'s small moves: equal to sequenceWaits after every move, stopped where the states meet as the model sees them (scores that differ but are pending in neither run)', () => {
  for (const [text, name] of [[LOADS, 'loads.s'], [LDS_FLOOD, 'lds-flood.s'], [example, 'example.s']] as const) {
    const { k, f, max, need, rg, m, entry } = largestRegion(text, name);
    const run = new IncrementalWaits(f, entry, max, m);
    const s = new ScheduleState(k);
    const rand = mulberry32(21);
    let runs = 0;
    let early = 0;
    for (let t = 0; t < 3000 && runs < 600; t++) {
      if (!smallMove(s, rg.id, m, rand)) continue;
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
      assert.deepEqual(Array.from(run.endPending), Array.from(st.pendingPerClass(max)), `${name} move ${t}: pending at the end`);
      runs++;
      if (run.stepped < m - first) early++;
    }
    assert.ok(runs > 300, `${name}: ${runs} runs`);
    assert.ok(early > runs / 4, `${name}: ${early} of ${runs} runs stopped before the end`);
    if (name !== 'example.s') assert.ok(run.settledStops > 10, `${name}: ${run.settledStops} runs stopped with scores differing from the last run's, pending in neither`);
  }
});

test('an incremental wait model parked after every run, its dense state lent to another model in between, runs exactly as one never parked', () => {
  for (const [text, name] of [[LOADS, 'loads.s'], [LDS_FLOOD, 'lds-flood.s'], [example, 'example.s']] as const) {
    const { k, f, max, need, rg, m, entry } = largestRegion(text, name);
    const kept = new IncrementalWaits(f, entry, max, m);
    const parked = new IncrementalWaits(f, entry, max, m);
    // the other model runs the region backwards from the entry, in the state `parked` gives up
    const other = new IncrementalWaits(f, entry, max, m);
    other.park();
    let dense = parked.park();
    const held = (w: IncrementalWaits) => ((w as unknown as { parkedState: Int32Array }).parkedState.length - 2 * NCLASSES) / 2;
    const s = new ScheduleState(k);
    const rand = mulberry32(23);
    let runs = 0;
    let scores = 0;
    for (let t = 0; t < 2000 && runs < 300; t++) {
      if (!smallMove(s, rg.id, m, rand)) continue;
      const seq = s.regionSequence(rg.id);
      const a = kept.run(seq, need);
      assert.equal(parked.parked, true);
      parked.unpark(dense);
      assert.equal(parked.run(seq, need), a, `${name} move ${t}`);
      assert.equal(parked.stepped, kept.stepped, `${name} move ${t}: positions stepped`);
      assert.deepEqual([Array.from(parked.has), Array.from(parked.vm), Array.from(parked.lgkm), Array.from(parked.exp), Array.from(parked.endPending)],
        [Array.from(kept.has), Array.from(kept.vm), Array.from(kept.lgkm), Array.from(kept.exp), Array.from(kept.endPending)], `${name} move ${t}: the waits`);
      dense = parked.park();
      scores += held(parked);
      assert.ok(dense.score.every((v) => v === 0), `${name} move ${t}: the state given up is not cleared`);
      other.unpark(dense);
      const back = Array.from(seq).reverse();
      assert.equal(other.run(back, need), sequenceWaits(f, entry.clone(), back, max, need), `${name} move ${t}: the other model`);
      dense = other.park();
      assert.ok(dense.score.every((v) => v === 0), `${name} move ${t}: the state given up is not cleared`);
      runs++;
    }
    assert.ok(runs > 100, `${name}: ${runs} runs`);
    if (name !== 'example.s') assert.ok(scores > runs, `${name}: ${scores} scores kept by ${runs} parked states`);
  }
});
