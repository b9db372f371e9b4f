/**
 * What a worker thread gets with its task besides the text, as the launching thread computed it
 * for the same text: the kernel's time as written (the Evaluator's kernelTime option) and the
 * cycle model's tables (giveCycleTables). An Evaluator given them evaluates as one that makes them
 * itself, without making them; a wrong one is caught when fast paths are checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { kept } from '../../../src/analysis/memo.js';
import { kernelTime } from '../../../src/cycles/kernel-time.js';
import { cycleEngineFor, cycleTablesFor, giveCycleTables } from '../../../src/cycles/estimate.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { Evaluator } from '../../../src/schedule/metrics.js';
import { ScheduleState, canMove, moveTo } from '../../../src/schedule/state.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { example } from '../../repo.js';

const text = readFileSync(example, 'utf8');
const load = () => loadText(text, example);
/** The time as the launching thread computes it: on its own load of the text. */
const computed = () => kernelTime(kernelContexts(load())[0]!, {});

/** The metrics of 40 random legal moves, evaluated one after the other. */
function walk(ev: Evaluator, s: ScheduleState): unknown[] {
  const rand = mulberry32(11);
  const out: unknown[] = [ev.evaluate(s)];
  const k = s.k;
  for (let n = 0; n < 40;) {
    const r = Math.floor(rand() * k.regions.length);
    const m = k.regions[r]!.nodes.length;
    if (m < 2) continue;
    const from = Math.floor(rand() * m);
    const to = Math.floor(rand() * m);
    if (from === to || !canMove(s, r, from, to)) continue;
    moveTo(s, r, from, to);
    out.push(ev.evaluate(s));
    n++;
  }
  return out;
}

test('kernel time given: the same evaluations, and the kernel is not simulated (nor its resources made) on this load', () => {
  const own = pickKernel(load());
  const l = load();
  const k = pickKernel(l);
  const given = computed();
  assert.ok(given.loops.length > 0, 'the example has a loop');
  const a = new Evaluator(own, { checkFast: false });
  const b = new Evaluator(k, { checkFast: false, kernelTime: given });
  assert.equal(b.baseCycles, a.baseCycles);
  assert.equal(b.baseCyclesOne, a.baseCyclesOne);
  assert.equal(b.waves, a.waves);
  assert.deepEqual(b.loops, a.loops);
  assert.deepEqual(walk(b, new ScheduleState(k)), walk(a, new ScheduleState(own)));
  // the waves of the kernel time come from the resources: neither was made for this load
  assert.equal(kept(kernelContexts(l)[0]!, 'kernelResources'), undefined);
  assert.ok(kept(kernelContexts(own.loaded)[0]!, 'kernelResources') !== undefined, 'made where the time is simulated');
});

test('kernel time given: CONDUCTOR_CHECK_FAST compares it with the kernel simulated again', () => {
  const right = computed();
  const wrong = { ...right, cycles: right.cycles + 1 };
  assert.throws(() => new Evaluator(pickKernel(load()), { checkFast: true, kernelTime: wrong }), FastPathMismatch);
  assert.doesNotThrow(() => new Evaluator(pickKernel(load()), { checkFast: true, kernelTime: right }));
});

test('cycle tables given: the kernel\'s model uses them, and evaluations are the same as with a model built here', () => {
  const tables = structuredClone(cycleTablesFor(kernelContexts(load())[0]!));
  const own = pickKernel(load());
  const k = pickKernel(load());
  giveCycleTables(k.ctx, tables, false);
  assert.equal(cycleEngineFor(k.ctx).m.opId, tables.opId, 'the given tables, not a model built again');
  assert.deepEqual(walk(new Evaluator(k, { checkFast: false }), new ScheduleState(k)), walk(new Evaluator(own, { checkFast: false }), new ScheduleState(own)));
  // a context that has its model keeps it
  const again = structuredClone(tables);
  giveCycleTables(k.ctx, again, false);
  assert.equal(cycleEngineFor(k.ctx).m.opId, tables.opId);
});

test('cycle tables given: checked against the model built here when asked', () => {
  const right = cycleTablesFor(kernelContexts(load())[0]!);
  const wrong = { ...right, lat: right.lat.map((x, i) => (i === 0 ? x + 1 : x)) };
  assert.throws(() => giveCycleTables(kernelContexts(load())[0]!, wrong, true), FastPathMismatch);
  assert.doesNotThrow(() => giveCycleTables(kernelContexts(load())[0]!, structuredClone(right), true));
});
