/**
 * Automatic scheduling: the list scheduler keeps every dependency, strategies never end worse
 * than they start and are reproducible per seed, the schedule run is the same with one thread
 * or several, never worse than the input (the input comes back unchanged when nothing beats
 * it), the cache replays, and the command line reports bad options with exit 2.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { dependent } from '../../../src/schedule/deps.js';
import { Evaluator, DEFAULT_OBJECTIVE, FastPathMismatch, compareMetrics, programMetrics, type MetricName } from '../../../src/schedule/metrics.js';
import { ScheduleState, canMove, moveTo } from '../../../src/schedule/state.js';
import { LIST_VARIANTS, listSchedule, regionFacts } from '../../../src/schedule/search/list.js';
import { preferOriginal, runStrategy, STRATEGIES, searchCompare } from '../../../src/schedule/search/search.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { checkContexts } from '../../../src/check/check.js';
import { keptFenceWaits } from '../../../src/waitcnt/index.js';
import { answerWarm, preferredState, preferTime, preparedFor, runTask, WARM, warmSignal } from '../../../src/schedule/search/task.js';
import { SearchWorkers, defaultJobs, poolsStarted, scheduleFile, scheduleLoaded } from '../../../src/schedule/search/run.js';
import { PLAIN, kernel, text } from './helpers.js';
import { movesFromState, replayMoves } from '../../../src/schedule/replay.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { cacheKey } from '../../../src/cache.js';
import { bin, example } from '../../repo.js';

const exampleText = readFileSync(example, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'conductor-search-'));

/** A region with global loads, LDS reads, MFMA and VALU work, written in a poor order. */
const REGION = [
  'v_mov_b32 v30, 1',
  'v_add_u32 v31, v30, v30',
  'v_mul_lo_u32 v32, v31, v31',
  'ds_read_b128 v[8:11], v21',
  's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[10:11], a[0:3]',
  'ds_read_b128 v[12:15], v21 offset:64',
  's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x16f16 a[4:7], v[12:13], v[14:15], a[4:7]',
  'global_load_dwordx4 v[0:3], v20, s[0:1]',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v33, v0, v1',
  'global_load_dwordx4 v[4:7], v20, s[0:1] offset:16',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v34, v4, v5',
  'v_mov_b32 v35, v32',
  's_endpgm',
];
const regionText = REGION.join('\n') + '\n';

test('list scheduler: every variant keeps every dependency edge of the region (and jittered ones too)', () => {
  for (const text of [regionText, exampleText]) {
    const k = pickKernel(loadText(text, 't.s', { arch: text === regionText ? 'gfx90a' : undefined }));
    const ev = new Evaluator(k);
    const rand = mulberry32(3);
    let checked = 0;
    for (const rg of k.regions) {
      if (rg.nodes.length < 2) continue;
      const id = ev.region(new ScheduleState(k), rg.id);
      const f = regionFacts(k, rg.id, [id.peak_vgpr, id.peak_agpr]);
      for (const v of [...LIST_VARIANTS, { ...LIST_VARIANTS[0]!, jitter: 50 }]) {
        const order = listSchedule(f, v, rand);
        const pos = new Int32Array(order.length);
        order.forEach((a, p) => { pos[a] = p; });
        assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: order.length }, (_, i) => i), 'a permutation');
        for (let a = 0; a < order.length; a++) {
          for (let b = a + 1; b < order.length; b++) {
            if (dependent(rg.graph, a, b)) { assert.ok(pos[a]! < pos[b]!, `${v.name}: ${k.tags[rg.nodes[a]!]} must stay before ${k.tags[rg.nodes[b]!]}`); checked++; }
          }
        }
      }
    }
    assert.ok(checked > 20, `only ${checked} edges checked`);
  }
});

/** A gfx90a kernel `k` of the given instruction lines, ended by s_endpgm. */
function gfx90aKernel(body: string[]): string {
  return ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:', ...body, '  s_endpgm'].join('\n') + '\n';
}

/**
 * Two readers of v0 and v1 (live into the region) ready together beside independent writes:
 * once the first reader is placed, the second is their last reader and frees both, so its
 * live-set change drops from +1 to -1 while it waits (what a kept value that is not brought up
 * to date misses: the pressure variant then places a v_mov_b32 before it).
 */
const LAST_READER = gfx90aKernel([
  '  v_add_f32 v10, v1, v0',
  '  v_mov_b32 v12, 1.0',
  '  v_mov_b32 v13, 2.0',
  '  v_mov_b32 v14, 3.0',
  '  v_add_f32 v11, v1, v0',
  '  v_mov_b32 v15, 4.0',
  '  global_store_dwordx4 v[20:21], v[10:13], off',
  '  global_store_dwordx2 v[20:21], v[14:15], off offset:16',
]);

test('list scheduler: a candidate\'s kept live-set change gives the orders of one computed at every step', () => {
  let regions = 0;
  for (const text of [LAST_READER, regionText, exampleText]) {
    const k = pickKernel(loadText(text, 't.s', { arch: text === regionText ? 'gfx90a' : undefined }));
    const ev = new Evaluator(k);
    for (const rg of k.regions) {
      if (rg.nodes.length < 2) continue;
      const id = ev.region(new ScheduleState(k), rg.id);
      // a cap at the original peak, and one a unit lower on each file, which binds
      for (const cap of [[id.peak_vgpr, id.peak_agpr], [id.peak_vgpr - 1, id.peak_agpr - 1]] as [number, number][]) {
        const f = regionFacts(k, rg.id, cap);
        for (const v of [...LIST_VARIANTS, { ...LIST_VARIANTS[2]!, jitter: 30 }, { ...LIST_VARIANTS[4]!, jitter: 30 }]) {
          const a = listSchedule(f, v, mulberry32(rg.id + 1));
          const b = listSchedule(f, v, mulberry32(rg.id + 1), true);
          assert.deepEqual(Array.from(a), Array.from(b), `${v.name}, region ${rg.id}, cap ${cap}`);
        }
      }
      regions++;
    }
  }
  assert.ok(regions >= 3, `only ${regions} regions`);
});

/**
 * A region where EXEC, VCC and SCC make the dependency graph dense (every reader of EXEC depends on
 * every write of it): its list schedules walk the kept edges only.
 */
const DENSE = gfx90aKernel([
  ...Array.from({ length: 6 }, (_, x) => [
    `  v_cmp_gt_f32 vcc, v${x}, v${x + 10}`,
    '  s_and_saveexec_b64 s[4:5], vcc',
    `  v_add_f32 v${x + 20}, v${x}, v${x + 10}`,
    `  v_mul_f32 v${x + 30}, v${x + 20}, v${x + 20}`,
    `  global_load_dword v${x + 40}, v[50:51], off offset:${4 * x}`,
    `  v_fma_f32 v${x + 52}, v${x + 40}, v${x + 30}, v${x + 52}`,
    '  s_or_b64 exec, exec, s[4:5]',
  ]).flat(),
  '  global_store_dwordx4 v[50:51], v[52:55], off',
]);

/**
 * A load's reader that also depends on the load through a write of EXEC between them (the load
 * reads EXEC): the edge from the load to its reader is implied by that path, but the path does
 * not carry the load's latency, so the edge stays (without it the reader goes first).
 */
const LATENCY_PATH = gfx90aKernel([
  '  global_load_dword v40, v[50:51], off',
  '  s_mov_b64 exec, s[6:7]',
  '  v_add_f32 v42, v40, v41',
  '  v_mul_f32 v43, v44, v44',
  '  v_mul_f32 v45, v46, v46',
  '  v_mul_f32 v47, v48, v48',
  '  global_store_dwordx4 v[50:51], v[42:45], off',
  '  global_store_dwordx4 v[50:51], v[46:49], off offset:16',
]);

/** A write after a read with no other path between them: the edge is its own reduction edge. */
const WAR = gfx90aKernel([
  '  v_mov_b32 v1, v2',
  '  v_mov_b32 v5, 0',
  '  v_mov_b32 v2, 0',
  '  v_mov_b32 v6, v5',
  '  v_mov_b32 v7, v2',
  '  global_store_dword v[10:11], v1, off',
  '  global_store_dword v[10:11], v7, off offset:4',
  '  global_store_dword v[10:11], v6, off offset:8',
]);

test('list scheduler: the kept edges (the transitive reduction and the uncovered reads after writes) give the orders of the whole graph', () => {
  let fewer = 0;
  for (const [text, arch] of [[DENSE, 'gfx90a'], [LATENCY_PATH, 'gfx90a'], [WAR, 'gfx90a'], [regionText, 'gfx90a'], [exampleText, undefined], [LAST_READER, 'gfx90a']] as const) {
    const k = pickKernel(loadText(text, 't.s', { arch }));
    const ev = new Evaluator(k);
    for (const rg of k.regions) {
      if (rg.nodes.length < 2) continue;
      const id = ev.region(new ScheduleState(k), rg.id);
      const cap: [number, number] = [id.peak_vgpr, id.peak_agpr];
      const kept = regionFacts(k, rg.id, cap);
      const all = regionFacts(k, rg.id, cap, true);
      const edges = (f: typeof kept) => f.succ.reduce((a, s) => a + s.length, 0);
      if (edges(kept) < edges(all)) fewer++;
      assert.deepEqual(Array.from(kept.height), Array.from(all.height), `heights, region ${rg.id}`);
      for (const v of [...LIST_VARIANTS, { ...LIST_VARIANTS[0]!, jitter: 40 }, { ...LIST_VARIANTS[4]!, jitter: 40 }]) {
        const a = listSchedule(kept, v, mulberry32(rg.id + 5));
        const b = listSchedule(all, v, mulberry32(rg.id + 5));
        assert.deepEqual(Array.from(a), Array.from(b), `${v.name}, region ${rg.id}`);
      }
      if (text === DENSE) assert.ok(edges(kept) * 3 < edges(all), `dense region ${rg.id}: ${edges(kept)} kept of ${edges(all)} edges`);
    }
  }
  assert.ok(fewer >= 3, `only ${fewer} regions with edges dropped`);
});

test('list scheduler: hides the load latency behind independent work (est_cycles objective)', () => {
  const k = pickKernel(loadText(regionText, 't.s', { arch: 'gfx90a' }));
  const ev = new Evaluator(k);
  const start = new ScheduleState(k);
  const r = runStrategy('list', k, ev, start, { objective: ['est_cycles'], budget: 200, seed: 1 });
  assert.ok(r.metrics.est_cycles < r.start.est_cycles, `est_cycles ${r.start.est_cycles} -> ${r.metrics.est_cycles}`);
  // both global loads issue before any VALU work that does not feed them
  const seq = Array.from(r.state.regionSequence(0), (i) => k.tags[i]!);
  assert.ok(seq.indexOf('global_load_dwordx4_1') < seq.indexOf('v_add_f32_0'), seq.join(' '));
  assert.ok(seq.indexOf('global_load_dwordx4_0') < seq.indexOf('v_mov_b32_0'), seq.join(' '));
});

test('strategies: never worse than the start, reproducible for a seed', () => {
  const k = pickKernel(loadText(exampleText, example));
  const ev = new Evaluator(k);
  for (const name of STRATEGIES) {
    const a = runStrategy(name, k, ev, new ScheduleState(k), { objective: DEFAULT_OBJECTIVE, budget: 150, seed: 5 });
    const b = runStrategy(name, k, ev, new ScheduleState(k), { objective: DEFAULT_OBJECTIVE, budget: 150, seed: 5 });
    assert.ok(searchCompare(a.metrics, a.start, DEFAULT_OBJECTIVE) <= 0, `${name} ended worse than it started`);
    assert.ok(a.evaluations <= 150);
    assert.deepEqual(movesFromState(a.state), movesFromState(b.state), `${name} differs between two runs with the same seed`);
    assert.deepEqual(a.metrics, ev.evaluate(a.state), `${name}: the reported metrics are those of the returned state`);
  }
});

test('schedule run: same result with one thread and with worker threads; better than the input on the example; its two launches share one worker pool', async () => {
  const opts = { budget: 120, seed: 2, cache: false } as const;
  const one = await scheduleLoaded(loadText(exampleText, example), exampleText, { ...opts, jobs: 1 });
  const pools = poolsStarted.count;
  const two = await scheduleLoaded(loadText(exampleText, example), exampleText, { ...opts, jobs: 2 });
  // the input's search and the pipelined program's (below) ran on the pool started while the input was checked
  assert.equal(poolsStarted.count - pools, 1);
  assert.equal(one.text, two.text);
  assert.deepEqual(one.moves, two.moves);
  assert.equal(one.strategy, two.strategy);
  assert.notEqual(one.strategy, 'input');
  assert.ok(compareMetrics(one.after, one.before, DEFAULT_OBJECTIVE) < 0, `after ${JSON.stringify(one.after)} before ${JSON.stringify(one.before)}`);
  // the example's K-loop is pipelined too (its LDS release wait stays in place): the same strategies run on that
  // program (its loop is bound by the matrix pipe, which the copies do not raise: not searched in place)
  assert.deepEqual(one.runs.map((x) => x.label), ['list', 'beam', 'anneal#1', 'anneal#2', 'pipelined list', 'pipelined beam', 'pipelined anneal#1', 'pipelined anneal#2']);
  assert.deepEqual(one.runs.map((x) => [x.evaluations, x.moves, x.estimate]), two.runs.map((x) => [x.evaluations, x.moves, x.estimate]));
  assert.ok(one.evaluationsPerSecond > 0);
});

test('schedule run: without --jobs the search runs on one thread less than the machine has (at most 4, at least 1): on two cores in this thread alone', async () => {
  assert.deepEqual([1, 2, 3, 4, 8, 64].map((cores) => defaultJobs(cores)), [1, 1, 2, 3, 4, 4]);
  const opts = { budget: 40, seed: 5, cache: false } as const;
  const pools = poolsStarted.count;
  const dflt = await scheduleLoaded(loadText(exampleText, example), exampleText, opts);
  assert.equal(poolsStarted.count - pools, defaultJobs() > 1 ? 1 : 0, `worker pools started with ${defaultJobs()} jobs`);
  const one = await scheduleLoaded(loadText(exampleText, example), exampleText, { ...opts, jobs: 1 });
  assert.equal(dflt.text, one.text);
});

test('schedule run: an input with a check error is searched on its fixed text by the warm pool\'s worker (its own preparation cancelled by the check), with the results of one thread', async () => {
  // the example without the wait its first ds_write of a loaded value needs
  const lines = exampleText.split('\n');
  const at = lines.findIndex((l) => l.trim() === 's_waitcnt vmcnt(4)');
  assert.ok(at > 0);
  const broken = [...lines.slice(0, at), ...lines.slice(at + 1)].join('\n');
  const opts = { budget: 60, seed: 4, cache: false } as const;
  const one = await scheduleFile(loadText(broken, 'broken.s'), broken, { ...opts, jobs: 1 });
  const pools = poolsStarted.count;
  const two = await scheduleFile(loadText(broken, 'broken.s'), broken, { ...opts, jobs: 2 });
  assert.equal(poolsStarted.count - pools, 1);
  assert.equal(two.text, one.text);
  assert.deepEqual(two.kernels.map((k) => k.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])), one.kernels.map((k) => k.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])));
  assert.match(JSON.stringify(two.notes), /check error/);
});

test('schedule run: the kernels of a file share one worker pool, with the results of one thread', async () => {
  const two = text(kernel('a', PLAIN), kernel('b', [...PLAIN].reverse()));
  const opts = { budget: 40, seed: 2, cache: false } as const;
  const one = await scheduleFile(loadText(two, 'two.s'), two, { ...opts, jobs: 1 });
  const pools = poolsStarted.count;
  const both = await scheduleFile(loadText(two, 'two.s'), two, { ...opts, jobs: 2 });
  assert.equal(poolsStarted.count - pools, 1);
  assert.deepEqual(both.kernels.map((k) => k.kernel), ['a', 'b']);
  assert.equal(both.text, one.text);
  assert.deepEqual(both.kernels.map((k) => k.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])), one.kernels.map((k) => k.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])));
});

test('schedule run: files given the same SearchWorkers share one worker pool, with the results of one thread', async () => {
  const files = [text(kernel('a', PLAIN)), text(kernel('b', [...PLAIN].reverse()))];
  const opts = { budget: 40, seed: 2, cache: false } as const;
  const one = await Promise.all(files.map((t, x) => scheduleFile(loadText(t, `f${x}.s`), t, { ...opts, jobs: 1 })));
  const workers = new SearchWorkers();
  const pools = poolsStarted.count;
  const shared: Awaited<ReturnType<typeof scheduleFile>>[] = [];
  for (const [x, t] of files.entries()) {
    workers.more = x < files.length - 1;
    shared.push(await scheduleFile(loadText(t, `f${x}.s`), t, { ...opts, jobs: 2, workers }));
  }
  assert.equal(poolsStarted.count - pools, 1);
  // the last file's search ended the pool before its emission
  assert.equal(workers.pool, undefined);
  assert.deepEqual(shared.map((r) => r.text), one.map((r) => r.text));
  assert.deepEqual(shared.map((r) => r.kernels[0]!.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])), one.map((r) => r.kernels[0]!.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate])));
});

/** An anneal task on the example (150 evaluations, seed 3), its kernel and the objective and floor it ran with. */
function exampleAnnealTask() {
  const loaded = loadText(exampleText, example);
  const k = pickKernel(loaded);
  const opts = { objective: DEFAULT_OBJECTIVE, minOccupancy: programMetrics(loaded, k.name).occupancy };
  const o = runTask({
    text: exampleText, file: example, kernel: k.name, disambiguate: true, strategy: 'anneal', startMoves: [], objective: [...DEFAULT_OBJECTIVE],
    minOccupancy: opts.minOccupancy, budget: 150, seconds: 60, seed: 3, label: 'anneal',
  });
  return { k, opts, o };
}

test('strategy task: its best state brought toward the input order is what preferOriginal gives on its replayed moves; check mode refuses another', () => {
  const { k, opts, o } = exampleAnnealTask();
  assert.ok(o.preferred, 'the task brought its best state toward the input order');
  assert.ok(o.preferred.moves.length > 0);
  const ev = new Evaluator(k);
  const replayed = replayMoves(k, o.moves);
  assert.ok('state' in replayed);
  const here = preferOriginal(k, ev, replayed.state, opts);
  assert.deepEqual(o.preferred.moves, movesFromState(here.state));
  assert.deepEqual(o.preferred.metrics, here.metrics);
  const got = preferredState(k, ev, o, opts, true);
  assert.ok('state' in got);
  assert.deepEqual(got.state.order, here.state.order);
  assert.deepEqual(got.metrics, here.metrics);
  // a task result that is not preferOriginal's (the input order) is taken as it is without check mode, refused with it
  const wrong = { ...o, preferred: { moves: [], metrics: o.preferred.metrics } };
  const taken = preferredState(k, ev, wrong, opts, false);
  assert.ok('state' in taken);
  assert.deepEqual(movesFromState(taken.state), []);
  assert.throws(() => preferredState(k, ev, wrong, opts, true), FastPathMismatch);
  // without a task result, preferOriginal runs here on the run's own moves
  const { preferred: _drop, ...bare } = o;
  const mine = preferredState(k, ev, bare, opts, false);
  assert.ok('state' in mine);
  assert.deepEqual(movesFromState(mine.state), o.preferred.moves);
  // moves that do not replay give their failure: the run's own without a task result, the preferred ones with one
  const bad = 'move no_such_tag before v_mov_b32_e32_0';
  const noOwn = preferredState(k, ev, { ...bare, moves: [bad] }, opts, false);
  assert.ok('failure' in noOwn && noOwn.failure.command === bad);
  const noPreferred = preferredState(k, ev, { ...o, preferred: { moves: [bad], metrics: o.preferred.metrics } }, opts, false);
  assert.ok('failure' in noPreferred && noPreferred.failure.command === bad);
  // in check mode the run's own moves must replay too
  assert.throws(() => preferredState(k, ev, { ...o, moves: [bad] }, opts, true), FastPathMismatch);
});

test('preferOriginal: with seconds its instruction-by-instruction pass stops when the time is up (cut), and a cut pass is not compared in check mode; preferTime', () => {
  const { k, opts, o } = exampleAnnealTask();
  assert.equal(o.preferred?.cut, undefined, 'a pass with time to spare is not cut');
  const ev = new Evaluator(k);
  const replayed = replayMoves(k, o.moves);
  assert.ok('state' in replayed);
  const whole = preferOriginal(k, ev, replayed.state, opts);
  assert.equal(whole.cut, false);
  let evaluations = 0;
  const counting = new Proxy(ev, { get: (t, p) => (p === 'evaluate' ? (s: ScheduleState) => { evaluations++; return t.evaluate(s); } : Reflect.get(t, p)) });
  const timed = preferOriginal(k, counting, replayed.state, { ...opts, seconds: 0 });
  assert.equal(timed.cut, true);
  assert.ok(evaluations <= 1 + replayed.state.changedRegions().length + 1, `${evaluations} evaluations: the start, one per changed region, one move`);
  assert.notDeepEqual(movesFromState(timed.state), movesFromState(whole.state), 'the pass was cut before it was through');
  assert.deepEqual(timed.metrics, ev.evaluate(timed.state));
  // a task's cut pass is taken as it is in check mode
  const cut = { ...o, preferred: { moves: movesFromState(timed.state), metrics: timed.metrics, cut: true as const } };
  const got = preferredState(k, ev, cut, opts, true);
  assert.ok('state' in got);
  assert.deepEqual(movesFromState(got.state), movesFromState(timed.state));
  assert.equal(preferTime(10, 2), 8);
  assert.equal(preferTime(10, 10), 1);
});

test('schedule run: nothing to gain returns the input unchanged', async () => {
  const chain = ['v_mov_b32 v1, 1', 'v_add_u32 v2, v1, v1', 'v_add_u32 v3, v2, v2', 'v_add_u32 v4, v3, v3', 's_endpgm'].join('\n') + '\n';
  const r = await scheduleLoaded(loadText(chain, 'chain.s', { arch: 'gfx942' }), chain, { budget: 50, cache: false, jobs: 1 });
  assert.equal(r.strategy, 'input');
  assert.equal(r.text, chain);
  assert.deepEqual(r.after, r.before);
  assert.deepEqual(r.moves, []);
});

test('schedule run: an input with a missing wait is scheduled from its fixed version and comes out clean', async () => {
  const broken = ['global_load_dword v1, v[2:3], off', 'v_mov_b32 v5, 3', 'v_add_u32 v4, v1, v1', 'v_mov_b32 v6, v5', 's_endpgm'].join('\n') + '\n';
  const r = await scheduleLoaded(loadText(broken, 'broken.s', { arch: 'gfx90a' }), broken, { budget: 50, cache: false, jobs: 1 });
  assert.ok(r.notes.some((n) => /^kernel .+ has 1 check error \(see conductor check\); scheduled from the file as check --fix writes it/.test(n)), r.notes.join("\n"));
  const out = loadText(r.text, 'out.s', { arch: 'gfx90a' });
  const errors = checkLoaded(out).kernels.flatMap((c) => c.findings.filter((f) => f.severity === 'error'));
  assert.deepEqual(errors.map((f) => f.message), []);
  assert.match(r.text, /s_waitcnt vmcnt\(0\)/);
});

test('schedule run: a second run is a cache hit that replays to the same text; a stale entry is searched again', async () => {
  const cacheDir = join(dir, 'cache');
  const opts = { budget: 80, seed: 4, jobs: 1, cacheDir } as const;
  const a = await scheduleLoaded(loadText(exampleText, example), exampleText, opts);
  assert.equal(a.cached, false);
  const b = await scheduleLoaded(loadText(exampleText, example), exampleText, opts);
  assert.equal(b.cached, true);
  assert.equal(b.text, a.text);
  assert.deepEqual(b.after, a.after);
  // a stale entry (moves that do not replay) is dropped and the search runs again
  const sub = readdirSync(join(cacheDir, 'schedule'));
  const f = join(cacheDir, 'schedule', sub[0]!, readdirSync(join(cacheDir, 'schedule', sub[0]!))[0]!);
  const entry = JSON.parse(readFileSync(f, 'utf8'));
  entry.moves = ['move no_such_tag_0 before v_mov_b32_0'];
  writeFileSync(f, JSON.stringify(entry));
  const c = await scheduleLoaded(loadText(exampleText, example), exampleText, opts);
  assert.equal(c.cached, false);
  assert.equal(c.text, a.text);
  assert.ok(c.notes.some((n) => /no longer replays/.test(n)));
  assert.match(cacheKey({ a: 1 }), /^[0-9a-f]{64}$/);
});

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, CONDUCTOR_CACHE_DIR: join(dir, 'cli-cache') } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

test('schedule CLI: JSON shape, output written, replayable moves; bad options exit 2 and write nothing', () => {
  const out = join(dir, 'out.s');
  const moves = join(dir, 'moves.txt');
  // --no-pipeline: apply replays moves on the input, not on a pipelined program
  const r = run('schedule', example, '--budget', '60', '--jobs', '1', '--no-pipeline', '--json', '-o', out, '--save-moves', moves);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  for (const key of ['strategy', 'evaluations', 'seconds', 'before', 'after']) assert.ok(key in j, `missing ${key}`);
  assert.ok(j.evaluations > 0);
  assert.equal(readFileSync(out, 'utf8') !== exampleText, j.strategy !== 'input');
  // the saved moves replay with apply to the same program
  const replayed = join(dir, 'replayed.s');
  const a = run('apply', example, '--moves-file', moves, '-o', replayed);
  assert.equal(a.code, 0, a.out + a.err);
  assert.equal(readFileSync(replayed, 'utf8'), readFileSync(out, 'utf8'));
  const v = run('verify', example, out);
  assert.equal(v.code, 0, v.out + v.err);
  for (const bad of [['--strategy', 'greedy'], ['--budget', '0'], ['--seconds', '-1'], ['--objective', 'speed'], ['--jobs', 'two']]) {
    const o = join(dir, `bad-${bad[0]!.slice(2)}.s`);
    const b = run('schedule', example, ...bad, '-o', o);
    assert.equal(b.code, 2, `${bad.join(' ')}: ${b.err}`);
    assert.ok(b.err.length > 0);
    assert.equal(existsSync(o), false);
  }
  const missing = run('schedule', join(dir, 'nope.s'), '-o', join(dir, 'never.s'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /nope\.s/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a clone shares the regions of the state it was made from until either changes one (copy on write): neither sees the other\'s moves', () => {
  const k = pickKernel(loadText(exampleText, 'example.s'));
  const rand = mulberry32(21);
  const a = new ScheduleState(k);
  const movable = k.regions.filter((rg) => rg.nodes.length > 3).map((rg) => rg.id);
  assert.ok(movable.length >= 2);
  const seqs = (s: ScheduleState) => k.regions.map((rg) => Array.from(s.regionSequence(rg.id)).join(','));
  const moveSome = (s: ScheduleState) => {
    for (let t = 0, done = 0; t < 500 && done < 20; t++) {
      const r = movable[Math.floor(rand() * movable.length)]!;
      const m = k.regions[r]!.nodes.length;
      const from = Math.floor(rand() * m);
      const to = Math.floor(rand() * m);
      if (from !== to && canMove(s, r, from, to)) { moveTo(s, r, from, to); done++; }
    }
  };
  moveSome(a);
  const before = seqs(a);
  // the original moves first, then the clone: each write to a shared region must copy it
  const b = a.clone();
  assert.deepEqual(seqs(b), before);
  moveSome(a);
  assert.deepEqual(seqs(b), before, 'the clone is unchanged by the original\'s moves');
  const afterA = seqs(a);
  assert.notDeepEqual(afterA, before);
  const d = a.clone();
  moveSome(d);
  assert.deepEqual(seqs(a), afterA, 'the original is unchanged by its clone\'s moves');
  moveSome(b);
  const afterB = seqs(b);
  assert.notDeepEqual(afterB, before);
  // copyFrom shares the regions that differ: later moves on either stay apart too
  const c = new ScheduleState(k);
  c.copyFrom(b);
  assert.deepEqual(seqs(c), afterB);
  moveSome(b);
  assert.deepEqual(seqs(c), afterB, 'a copy is unchanged by its source\'s moves');
  const afterB2 = seqs(b);
  moveSome(c);
  assert.deepEqual(seqs(b), afterB2, 'copyFrom\'s source is unchanged by the copy\'s moves');
  // every state's inverse permutation stays the inverse of its order
  for (const s of [a, b, c, d]) for (const rg of k.regions) for (let p = 0; p < rg.nodes.length; p++) assert.equal(s.pos[rg.id]![s.order[rg.id]![p]!], p);
});

test('schedule run: the worker started while the input is checked changes no result: an input the fix changes (its prepared text dropped) and a cache hit (no worker) come out as with one thread', async () => {
  const broken = ['global_load_dword v1, v[2:3], off', 'v_mov_b32 v5, 3', 'v_add_u32 v4, v1, v1', 'v_mov_b32 v6, v5', 'v_mov_b32 v7, v6', 'v_add_u32 v8, v7, v4', 's_endpgm'].join('\n') + '\n';
  const opts = { budget: 60, seed: 3, cache: false } as const;
  const one = await scheduleLoaded(loadText(broken, 'broken.s', { arch: 'gfx90a' }), broken, { ...opts, jobs: 1 });
  const two = await scheduleLoaded(loadText(broken, 'broken.s', { arch: 'gfx90a' }), broken, { ...opts, jobs: 2 });
  assert.ok(two.notes.some((n) => /scheduled from the file as check --fix writes it/.test(n)), two.notes.join('\n'));
  assert.equal(two.text, one.text);
  assert.deepEqual(two.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate]), one.runs.map((x) => [x.label, x.evaluations, x.moves, x.estimate]));
  const cacheDir = join(dir, 'cache-warm');
  const first = await scheduleLoaded(loadText(exampleText, example), exampleText, { budget: 60, seed: 3, jobs: 2, cacheDir });
  const hit = await scheduleLoaded(loadText(exampleText, example), exampleText, { budget: 60, seed: 3, jobs: 2, cacheDir });
  assert.equal(first.cached, false);
  assert.equal(hit.cached, true);
  assert.equal(hit.text, first.text);
});

test('warm worker preparation: cancelled by the check, it stops before its next step (nothing kept); answered, the kernel is prepared once and kept, with the check\'s fence waits when given', () => {
  // a text no other test prepared in this thread
  const text = exampleText + '\n; warm preparation\n';
  const task = { text, file: example, kernel: pickKernel(loadText(text, example)).name, disambiguate: true as const };
  const n = kernelContexts(loadText(text, example)).find((c) => c.kernel.name === task.kernel)!.insns.length;
  const cancelled = warmSignal(n);
  answerWarm(cancelled, WARM.cancelled);
  assert.equal(preparedFor(task, cancelled), undefined);
  const alone = warmSignal(n);
  answerWarm(alone, WARM.alone);
  const p = preparedFor(task, alone);
  assert.ok(p && p.k.regions.length > 0);
  assert.equal(preparedFor(task), p);
  // another text drops the kept kernel even when cancelled before loading it
  assert.equal(preparedFor({ ...task, text: text + '\n' }, cancelled), undefined);
  assert.notEqual(preparedFor(task), p);
  // the fence waits of the check: the same roles as the kernel's own analysis gives, which is not made
  const checked = loadText(text, example);
  checkContexts(kernelContexts(checked));
  const fences = keptFenceWaits(kernelContexts(checked).find((c) => c.kernel.name === task.kernel)!)!;
  assert.ok(fences.length > 0, 'the example has fence waits');
  const given = warmSignal(n);
  answerWarm(given, WARM.fences, fences);
  const g = preparedFor({ ...task, text: text + '\n\n' }, given)!;
  assert.deepEqual(g.k.role, p.k.role);
  assert.equal(keptFenceWaits(g.k.ctx), undefined);
  // no room for them: prepared alone
  const small = warmSignal(fences.length - 1);
  answerWarm(small, WARM.fences, fences);
  assert.equal(Atomics.load(small, 0), WARM.alone);
});

test('preferOriginal: with time first, a loop keeps the input order where the new one is only leaner (peak VGPR) at the same modelled time; straight-line code and a register-first objective keep it', () => {
  // an MFMA-bound loop: three VALU temporaries live at once; making one later lowers the peak, hidden under the MFMAs
  const body = ['  v_mov_b32 v20, s1', '  v_mov_b32 v21, s2', '  v_mov_b32 v24, s3', '  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]',
    '  v_add_u32 v22, v21, v20', '  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]', '  v_add_u32 v23, v22, v24',
    '  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]', '  v_add_u32 v4, v23, v4'];
  const head = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:'];
  const looped = [...head, '  v_mov_b32 v20, s1', '  v_add_u32 v4, v20, v4', '  s_mov_b32 s0, 8', '.Lloop:', ...body,
    '  s_sub_u32 s0, s0, 1', '  s_cmp_lg_u32 s0, 0', '  s_cbranch_scc1 .Lloop', '  s_endpgm', ''].join('\n');
  const straight = [...head, ...body, '  s_endpgm', ''].join('\n');
  // v_add v22 before the MFMA, v_mov v24 after it: peak VGPR 8 -> 7, est_cycles and one wave's time unchanged
  const leaner = [0, 1, 4, 3, 2, 5, 6, 7, 8];
  const run = (text: string, objective: readonly MetricName[]) => {
    const k = pickKernel(loadText(text, 'p.s'));
    const ev = new Evaluator(k);
    const r = k.regions.find((x) => x.nodes.length >= body.length)!;
    const s = new ScheduleState(k);
    const order = Int32Array.from({ length: r.nodes.length }, (_, i) => (i < leaner.length ? leaner[i]! : i));
    s.setOrder(r.id, order);
    const before = ev.evaluate(new ScheduleState(k));
    const moved = ev.evaluate(s);
    assert.equal(moved.est_cycles, before.est_cycles);
    assert.equal(moved.wave_cycles, before.wave_cycles);
    assert.equal(moved.peak_vgpr, before.peak_vgpr - 1, 'the new order is leaner');
    const p = preferOriginal(k, ev, s, { objective });
    return { inLoop: ev.inLoop(r.id), kept: p.state.isChanged(r.id), peak: p.metrics.peak_vgpr, before };
  };
  const loop = run(looped, DEFAULT_OBJECTIVE);
  assert.equal(loop.inLoop, true);
  assert.equal(loop.kept, false, 'the loop goes back to the input order');
  assert.equal(loop.peak, loop.before.peak_vgpr);
  const regsFirst = run(looped, ['peak_vgpr', 'est_cycles']);
  assert.equal(regsFirst.kept, true, 'asked for registers first: kept');
  const line = run(straight, DEFAULT_OBJECTIVE);
  assert.equal(line.inLoop, false);
  assert.equal(line.kept, true, 'straight-line code keeps the leaner order');
  assert.equal(line.peak, line.before.peak_vgpr - 1);
});

