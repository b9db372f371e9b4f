/**
 * Shadows (waitcnt/state.ts) are kept as lists sorted by wait, one shadow per wait. Merging two
 * (mergedShadows: a join of states, a wait charged again) keeps per wait the smaller need and the
 * first list's producer, inserts a new wait at its place without sorting again, and makes no new
 * list where nothing changes. Compared here with the plain merge (append, replace, sort) on lists
 * drawn at random.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergedShadows, type Shadow } from '../../../src/waitcnt/state.js';

/** The plain merge: b's shadows appended or replacing a's of the same wait when they need less, then sorted by wait. */
function plainMerge(a: readonly Shadow[], b: readonly Shadow[]): Shadow[] {
  const out = a.slice();
  for (const x of b) {
    const j = out.findIndex((o) => o.w === x.w);
    if (j < 0) out.push(x);
    else if (x.need < out[j]!.need) out[j] = { w: x.w, need: x.need, p: out[j]!.p };
  }
  return out.sort((p, q) => p.w - q.w);
}

/** A list sorted by wait, one shadow per wait, from a seeded generator. */
function randomList(next: () => number, n: number): Shadow[] {
  const waits = new Set<number>();
  while (waits.size < n) waits.add(Math.floor(next() * 40));
  return [...waits].sort((x, y) => x - y).map((w) => ({ w, need: Math.floor(next() * 8), p: Math.floor(next() * 100) }));
}

test('mergedShadows equals the plain merge, keeps the order, and gives undefined (no new list) exactly when nothing changes', () => {
  let seed = 12345;
  const next = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 2 ** 32; };
  let unchanged = 0;
  let changed = 0;
  for (let t = 0; t < 3000; t++) {
    const a = randomList(next, Math.floor(next() * 6));
    const b = randomList(next, Math.floor(next() * 4));
    const want = plainMerge(a, b);
    const got = mergedShadows(a, b);
    if (got === undefined) {
      unchanged++;
      assert.deepEqual(a, want, `merging ${JSON.stringify(b)} into ${JSON.stringify(a)} changes it`);
    } else {
      changed++;
      assert.notEqual(got, a);
      assert.deepEqual(got, want);
      for (let k = 1; k < got.length; k++) assert.ok(got[k - 1]!.w < got[k]!.w, 'sorted by wait, one per wait');
    }
  }
  // both cases are exercised
  assert.ok(unchanged > 100 && changed > 100, `${unchanged} unchanged, ${changed} changed`);
  // `a` itself is never changed in place
  const a: Shadow[] = [{ w: 3, need: 2, p: 7 }, { w: 9, need: 5, p: 1 }];
  const copy = JSON.stringify(a);
  assert.deepEqual(mergedShadows(a, [{ w: 9, need: 1, p: 4 }, { w: 5, need: 0, p: 2 }]), [{ w: 3, need: 2, p: 7 }, { w: 5, need: 0, p: 2 }, { w: 9, need: 1, p: 1 }]);
  assert.equal(JSON.stringify(a), copy);
});
