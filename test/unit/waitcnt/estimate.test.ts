/**
 * The wait estimate's kept states (ScoreSnapshot: the window bounds and the pending scores of a
 * CounterScores) against the whole states they keep: written back, each is the same state as the
 * model sees it (equals), asks every instruction for the same wait, and goes on exactly as the
 * whole state does; and the comparison fails when a pending score is lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { counterMax, CounterScores, flatEffects, kernelWaits, needBefore, ScoreSnapshot, sequenceWaits } from '../../../src/waitcnt/estimate.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP } from '../schedule/helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** The two states ask every instruction of the kernel for the same wait. */
function sameNeeds(f: ReturnType<typeof flatEffects>, a: CounterScores, b: CounterScores): boolean {
  const na = new Int32Array(3);
  const nb = new Int32Array(3);
  for (let i = 0; i < f.n; i++) {
    const x = needBefore(f, a, i, na);
    const y = needBefore(f, b, i, nb);
    if (x !== y || na.join() !== nb.join()) return false;
  }
  return true;
}

test('a ScoreSnapshot written back is the state it keeps, as the wait model sees it, and goes on as it does', () => {
  let pendingSeen = 0;
  let lossCaught = 0;
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const ctx = kernelContexts(loadText(text, name)).find((c) => c.insns.length > 0)!;
    const f = flatEffects(ctx.insns, ctx.cfg.control);
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
      assert.ok(back.equals(whole) && whole.equals(back), `${name}: state ${t} written back differs`);
      assert.deepEqual(Array.from(snap.pendingPerClass()), Array.from(whole.pendingPerClass()));
      assert.ok(sameNeeds(f, whole, back), `${name}: state ${t} written back asks another wait`);
      // the same continuation from both: the same waits, the same state
      const more = Array.from({ length: 30 }, () => Math.floor(rand() * f.n));
      const a = new Int32Array(3);
      const wa = sequenceWaits(f, whole, more, max, need);
      const wb = sequenceWaits(f, back, more, max, a);
      assert.equal(wb, wa, `${name}: state ${t}: waits after it`);
      assert.ok(back.equals(whole), `${name}: state ${t}: states after the same continuation`);
      if (snap.at.length > 0) {
        pendingSeen++;
        // a snapshot that lost a pending score is another state: the comparison can fail
        const lost = new ScoreSnapshot(whole);
        const again = new CounterScores();
        new ScoreSnapshot(whole).writeTo(again);
        if (lost.at.length > 0) {
          again.score[lost.at[0]!] = 0;
          if (!again.equals(whole)) lossCaught++;
        }
      }
    }
  }
  assert.ok(pendingSeen > 40, `only ${pendingSeen} states held pending scores`);
  assert.ok(lossCaught > 20, `a lost pending score went unnoticed (${lossCaught} caught)`);
});

test('kernelWaits keeps snapshots of the states the whole-state pass reaches (before and after the instructions asked for)', () => {
  const ctx = kernelContexts(loadText(LOOP, 'loop.s')).find((c) => c.insns.length > 0)!;
  const f = flatEffects(ctx.insns, ctx.cfg.control);
  const max = counterMax(ctx.target);
  const all = Array.from({ length: f.n }, (_, i) => i);
  const kw = kernelWaits(ctx.cfg, f, max, { at: all, after: all });
  // within a block, the state after i and the one before i + 1 are the same state
  let compared = 0;
  for (const b of ctx.cfg.blocks) {
    for (let i = b.start; i + 1 < b.end; i++) {
      const after = kw.after.get(i)!.state();
      const before = kw.before.get(i + 1)!.state();
      assert.ok(after.equals(before), `after ${i} / before ${i + 1}`);
      assert.ok(sameNeeds(f, after, before));
      compared++;
    }
  }
  assert.ok(compared > 10);
  // and the pass with every wait of the loop in place needs none: the states kept agree with it
  const need = new Int32Array(3);
  let waited = 0;
  for (let i = 0; i < f.n; i++) if (f.special[i] !== 1 && needBefore(f, kw.before.get(i)!.state(), i, need)) waited++;
  assert.equal(waited, kw.inserted.size, 'the kept states ask exactly the waits the pass inserted');
});
