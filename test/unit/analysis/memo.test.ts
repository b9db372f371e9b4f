/**
 * Whole-kernel analyses made once per program (src/analysis/memo.ts): the contexts of a loaded
 * program are made once, and what is kept on a context equals the same analysis made on a
 * fresh load of the same text; with CONDUCTOR_CHECK_FAST=1 a kept result that no longer equals a
 * fresh computation is caught.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText, type Loaded } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { kernelResources } from '../../../src/analysis/resources.js';
import type { Finding, KernelContext } from '../../../src/analysis/types.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { analyzeWaitcnt, checkWaitcnt, fenceWaits, minimalWaits } from '../../../src/waitcnt/index.js';
import { flatEffects } from '../../../src/waitcnt/estimate.js';
import { checkHazards, computeNops } from '../../../src/hazards/index.js';
import { kept } from '../../../src/analysis/memo.js';
import { kernelTime } from '../../../src/cycles/kernel-time.js';
import { checkContexts } from '../../../src/check/check.js';
import { example, root } from '../../repo.js';

/** The example kernel (loops, waits, MFMA) and a snippet with a missing wait and hazards. */
const TEXTS: [string, string][] = [
  [example, readFileSync(example, 'utf8')],
  ['dgemm-gfx942.s', readFileSync(join(root, 'test', 'fixtures', 'hazards', 'dgemm-gfx942.s'), 'utf8')],
  ['missing.s', ['.text', 'k:', '  global_load_dword v1, v[2:3], off', '  v_add_u32 v4, v1, v1',
    '  s_waitcnt vmcnt(0)', '  v_mov_b32 v5, v4', '  s_endpgm', ''].join('\n')],
];

function load(file: string, text: string): Loaded {
  return loadText(text, file, { arch: 'gfx942' });
}

/** Every analysis kept on a context, as the callers ask for it; `reversed`: made in the opposite order. */
function analyses(c: KernelContext, reversed = false): unknown[] {
  const made: (() => unknown)[] = [
    () => analyzeWaitcnt(c, { judge: true }), () => analyzeWaitcnt(c), () => analyzeWaitcnt(c, { pendAt: true }), () => checkWaitcnt(c),
    () => checkWaitcnt(c, { paths: 'all' }), () => [...fenceWaits(c)], () => minimalWaits(c), () => checkHazards(c), () => kernelResources(c),
    () => flatEffects(c), () => kernelTime(c), () => kernelTime(c, { trip: 7, bounds: true }), () => kernelTime(c, { waves: 2 }),
  ];
  if (!reversed) return made.map((f) => f());
  return made.reverse().map((f) => f()).reverse();
}

test('the contexts of a loaded program are made once, in a new array each call', () => {
  for (const [file, text] of TEXTS) {
    const l = load(file, text);
    const a = kernelContexts(l);
    const b = kernelContexts(l);
    assert.notEqual(a, b);
    assert.equal(a.length, b.length);
    a.forEach((c, x) => assert.equal(c, b[x]));
    // a caller that reorders its array does not reorder the next caller's
    a.reverse();
    assert.deepEqual(kernelContexts(l).map((c) => c.kernel.name), b.map((c) => c.kernel.name));
  }
});

test('what is kept on a context equals the same analyses of a fresh load of the text', () => {
  let findings = 0;
  for (const [file, text] of TEXTS) {
    const l = load(file, text);
    for (const c of kernelContexts(l)) {
      const first = analyses(c);
      const again = analyses(c);
      // kept: the same objects (arrays of findings are new arrays of the same findings)
      assert.equal(again[0], first[0]);
      assert.equal(again[9], first[9]);
      assert.deepEqual(again, first);
      const fresh = kernelContexts(load(file, text)).find((x) => x.kernel.name === c.kernel.name)!;
      assert.notEqual(fresh, c);
      // made in the other order on a fresh context: a key that mixed two analyses up would differ
      assert.deepEqual(analyses(fresh, true), first);
      assert.deepEqual(checkContexts([fresh], { paths: 'all' }), checkContexts([c], { paths: 'all' }));
      findings += checkHazards(c).length + checkWaitcnt(c).length;
    }
  }
  assert.ok(findings > 0, 'the inputs have findings to keep');
});

test('the kept results are not changed by callers that change what they got', () => {
  const [file, text] = TEXTS[2]!;
  const c = kernelContexts(load(file, text))[0]!;
  const w = checkWaitcnt(c);
  assert.ok(w.length > 0);
  w.length = 0;
  assert.ok(checkWaitcnt(c).length > 0);
  const r = kernelResources(c);
  r.findings.push(r.findings[0] ?? { rule: 'x', severity: 'error', message: 'x', loc: { file, line: 1, col: 1 }, insn: -1, related: [] });
  assert.equal(kernelResources(c).findings.length, r.findings.length - 1);
  const t = kernelTime(c);
  t.loops.push(t.loops[0]!);
  assert.equal(kernelTime(c).loops.length, t.loops.length - 1);
});

test('CONDUCTOR_CHECK_FAST=1: a kept result that differs from the analysis made again is caught', () => {
  const [file, text] = TEXTS[2]!;
  const c = kernelContexts(load(file, text))[0]!;
  const saved = process.env['CONDUCTOR_CHECK_FAST'];
  process.env['CONDUCTOR_CHECK_FAST'] = '1';
  try {
    // unchanged: each reuse is compared and passes
    analyses(c);
    analyses(c);
    // a kept missing-wait finding changed behind the analysis' back
    const kept = analyzeWaitcnt(c, { judge: true });
    assert.ok(kept.missing.length > 0);
    (kept.missing[0] as { message: string }).message += ' (changed)';
    assert.throws(() => checkWaitcnt(c), FastPathMismatch);
    // a kept hazard finding and a kept time
    const h = checkHazards(c);
    if (h.length > 0) {
      (h[0] as { required?: number }).required = 99;
      assert.throws(() => checkHazards(c), FastPathMismatch);
    }
    // a kept loop time of the example (its loops' objects are shared by the copies)
    const [ef, et] = TEXTS[0]!;
    const ce = kernelContexts(load(ef, et))[0]!;
    const t = kernelTime(ce);
    assert.ok(t.loops.length > 0);
    kernelTime(ce);
    t.loops[0]!.perIteration = -1;
    assert.throws(() => kernelTime(ce), FastPathMismatch);
    // the contexts themselves
    const l3 = load(file, text);
    const ctx3 = kernelContexts(l3)[0]!;
    (ctx3.insns as unknown[]).pop();
    assert.throws(() => kernelContexts(l3), FastPathMismatch);
  } finally {
    if (saved === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = saved;
  }
});

test('the padding of a kernel whose kept hazard check finds nothing to pad is none, as computeNops computes it', () => {
  const snippets: [string, string][] = [
    // a hazard an s_nop fixes: the check finds it, the padding is computed
    ['gfx942', 'v_cmpx_eq_u32 vcc, v0, v1\nv_readlane_b32 s0, v1, s4\nv_readlane_b32 s1, v1, s5\ns_endpgm'],
    // the same, padded as written: nothing to pad
    ['gfx942', 'v_cmpx_eq_u32 vcc, v0, v1\ns_nop 3\nv_readlane_b32 s0, v1, s4\nv_readlane_b32 s1, v1, s5\ns_endpgm'],
    ['gfx90a', 'v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]\nv_accvgpr_read_b32 v4, a3\ns_endpgm'],
  ];
  const inputs = [...snippets.map(([arch, body]): [string, Loaded] => [arch, loadText(`.text\nk:\n${body}\n`, 's.s', { arch })]),
    ...TEXTS.map(([file, text]): [string, Loaded] => ['gfx942', load(file, text)])];
  let none = 0;
  let some = 0;
  for (const [arch, l] of inputs) {
    for (const c of kernelContexts(l)) {
      // computed before the check is kept, and after it (the shortcut where it finds nothing)
      const fresh = kernelContexts(loadText(c.program.lines.map((x) => x.text + x.eol).join(''), 'f.s', { arch })).find((x) => x.kernel.name === c.kernel.name)!;
      const exact = computeNops(fresh);
      checkHazards(c);
      assert.ok(kept(c, 'checkHazards'));
      assert.deepEqual(computeNops(c), exact);
      if (exact.total === 0) none++; else some++;
    }
  }
  assert.ok(none > 0 && some > 0, 'kernels with padding and without');
});

test('CONDUCTOR_CHECK_FAST=1: a kept hazard check that misses a hazard is caught where the padding trusts it', () => {
  const c = kernelContexts(loadText('.text\nk:\nv_cmpx_eq_u32 vcc, v0, v1\nv_readlane_b32 s0, v1, s4\ns_endpgm\n', 's.s', { arch: 'gfx942' }))[0]!;
  assert.equal(checkHazards(c).length, 1);
  assert.ok(computeNops(c).total > 0);
  // the kept check loses its finding: the shortcut now pads nothing (wrong), and check mode says so
  kept<Finding[]>(c, 'checkHazards')!.length = 0;
  assert.equal(computeNops(c).total, 0);
  const saved = process.env['CONDUCTOR_CHECK_FAST'];
  process.env['CONDUCTOR_CHECK_FAST'] = '1';
  try {
    assert.throws(() => computeNops(c), FastPathMismatch);
  } finally {
    if (saved === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = saved;
  }
});

test('a waitcnt analysis asked for states keeps the same analysis without them, equal to it computed alone', () => {
  const saved = process.env['CONDUCTOR_CHECK_FAST'];
  for (const check of [false, true]) {
    if (check) process.env['CONDUCTOR_CHECK_FAST'] = '1'; else delete process.env['CONDUCTOR_CHECK_FAST'];
    try {
      for (const [file, text] of TEXTS) {
        for (const b of kernelContexts(load(file, text))) {
          const alone = analyzeWaitcnt(kernelContexts(load(file, text)).find((x) => x.kernel.name === b.kernel.name)!);
          const at = new Set(b.cfg.blocks.map((x) => x.start));
          const withStates = analyzeWaitcnt(b, { statesAt: at });
          assert.ok(withStates.states && withStates.states.size > 0);
          const kept1 = analyzeWaitcnt(b);
          assert.equal(kept1.states, undefined);
          assert.deepEqual(kept1, alone);
          assert.equal(analyzeWaitcnt(b), kept1);
          assert.deepEqual(minimalWaits(b), alone.insertions);
        }
      }
    } finally {
      if (saved === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = saved;
    }
  }
});
