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
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadText } from '../../src/load.js';
import { pickKernel, type ScheduleKernel } from '../../src/schedule/kernel.js';
import { checkFastFromEnv, Evaluator, exactSequencePeaks, FastPathMismatch, metricDrift, PressureScanner } from '../../src/schedule/metrics.js';
import { canMove, moveTo, ScheduleState } from '../../src/schedule/state.js';
import { emitSchedule } from '../../src/schedule/emit.js';
import { mulberry32 } from '../../src/schedule/search/rng.js';
import { randomSchedule } from './schedule-helpers.js';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');
const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** A loop with global loads, LDS traffic, an MFMA chain and VALU work: every cache of the Evaluator has work. */
const LOOP = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:',
  '  s_mov_b32 s8, 16',
  'loop:',
  '  global_load_dwordx4 v[0:3], v[40:41], off',
  '  global_load_dwordx4 v[4:7], v[40:41], off offset:16',
  '  ds_read_b64 v[8:9], v42',
  '  ds_read_b64 v[10:11], v42 offset:8',
  '  v_add_u32 v40, 64, v40',
  '  s_waitcnt lgkmcnt(0)',
  '  v_mfma_f32_32x32x8f16 a[0:15], v[8:9], v[10:11], a[0:15]',
  '  v_mfma_f32_32x32x8f16 a[16:31], v[8:9], v[10:11], a[16:31]',
  '  s_waitcnt vmcnt(0)',
  '  ds_write_b128 v43, v[0:3]',
  '  ds_write_b128 v43, v[4:7] offset:16',
  '  v_add_u32 v42, 0x100, v42',
  '  v_accvgpr_read_b32 v20, a0',
  '  v_add_f32 v21, v20, v20',
  '  s_sub_u32 s8, s8, 1',
  '  s_cmp_lg_u32 s8, 0',
  '  s_cbranch_scc1 loop',
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
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const ev = new Evaluator(k, { checkFast: true });
    assert.ok(ev.checkFast);
    const n = exercise(k, ev, 7, 150);
    assert.ok(n > 60, `${name}: only ${n} evaluations`);
  }
});

test('check mode catches a wrong cache entry (region, s_nop segment, loop, model waits)', () => {
  const k = pickKernel(loadText(LOOP, 'loop.s'));
  type Internals = {
    slots: ({ peak_vgpr: number } | undefined)[];
    nopCache: (Map<number, { nops: number }> | undefined)[];
    loopCache: Map<string, { all: number }>[];
    idWaits: Int32Array;
  };
  const corrupt: [string, (x: Internals) => void][] = [
    ['region', (x) => { for (const sl of x.slots) if (sl) sl.peak_vgpr += 1; }],
    ['s_nop', (x) => { for (const c of x.nopCache) for (const e of c?.values() ?? []) e.nops += 1; }],
    ['loop', (x) => { for (const c of x.loopCache) for (const e of c.values()) e.all += 1; }],
    ['waits', (x) => { for (let r = 0; r < x.idWaits.length; r++) if (x.idWaits[r]! >= 0) x.idWaits[r]! += 1; }],
  ];
  for (const [what, hurt] of corrupt) {
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

test('the pressure scanner equals the plain live-set walk on every region of every random schedule', () => {
  const k = pickKernel(loadText(example, 'k.s'));
  const scanner = new PressureScanner();
  const out = new Int32Array(3);
  const rand = mulberry32(11);
  for (let t = 0; t < 20; t++) {
    const s = randomSchedule(k, rand, 30);
    k.regions.forEach((rg, r) => {
      const seq = Array.from(s.order[r]!, (q) => rg.nodes[q]!);
      scanner.scan(k, seq, rg.liveOut, out);
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
