/**
 * The hazard engine run on a window whose instructions change in place (hazards/window.ts)
 * against the engine from scratch: a NopWindow pads a changing window as computeNops pads it,
 * with and without a pair table; pair values with the rules known to find nothing skipped (learnt
 * in pairs and in windows alike) equal the values every rule gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { InertRules, NopWindow, PairWaits, windowNopModel } from '../../../src/hazards/window.js';
import { activeRules } from '../../../src/hazards/engine.js';
import { HazardContext, hazardInsns } from '../../../src/hazards/context.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

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

test('a pair table keeps every pair it computed, in tiles made as they are first needed: each pair asked for is the rules\' answer, asked again in any order', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(13);
  // a length that is no multiple of the tile's, so that the last row and column of tiles are partial
  const n = Math.min(k.n, 301);
  const table = model.pairTable(0, n)!;
  const fresh = model.pairTable(0, n)!;
  const asked = new Map<number, number>();
  // pairs near each other, as a search's orders ask, and a few far apart
  for (let t = 0; t < 3000; t++) {
    const c = Math.floor(rand() * n);
    const j = rand() < 0.99 ? Math.max(0, Math.min(n - 1, c - 1 - Math.floor(rand() * 12))) : Math.floor(rand() * n);
    const v = table.get(j, c);
    assert.equal(v, table.pairs.waits(j, c), `pair ${j} -> ${c}`);
    asked.set(c * n + j, v);
  }
  for (const [key, v] of [...asked].reverse()) assert.equal(table.get(key % n, Math.floor(key / n)), v);
  assert.equal(table.pairsKnown(), asked.size, 'every pair asked for is kept, and no other');
  assert.ok([...asked.values()].some((v) => v > 0), 'no pair asked for needs wait states');
  assert.ok(table.bytes < n * n / 2, `${table.bytes} bytes for ${asked.size} pairs of ${n * n}`);
  // the same pairs asked for in another order from another table: the same answers
  for (const [key, v] of [...asked].sort((a, b) => a[0] - b[0])) assert.equal(fresh.get(key % n, Math.floor(key / n)), v);
});
