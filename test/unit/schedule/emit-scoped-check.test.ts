/**
 * Emission re-checks only what each edit can change (emit.ts CheckScope): the descriptor's
 * register coverage never (the scheduled kernel names the original's registers), hazards and
 * waits after a reordering or inserted waits and nops, hazards alone after waits that wait for
 * nothing were removed and after the padding of a program with no wait missing. On random schedules of real kernels the scoped checks find what the
 * whole check finds (EmitOptions.checkFast compares them at every step and throws when they
 * differ), the output is the same with and without the comparison, and a scope that leaves out
 * a check whose premise is broken is told apart from the whole check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { checkContexts } from '../../../src/check/check.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { emitSchedule, paddedChecks, scheduleErrors, type Fresh } from '../../../src/schedule/emit.js';
import { FastPathMismatch } from '../../../src/schedule/metrics.js';
import { ConductorError } from '../../../src/errors.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP as MFMA_LOOP, randomSchedule } from './helpers.js';
import type { ScheduleState } from '../../../src/schedule/state.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** the loop of helpers.ts with the s_nops its MFMA results need before v_accvgpr_read_b32 written out. */
const LOOP = MFMA_LOOP.replace('  v_accvgpr_read_b32', '  s_nop 7\n  s_nop 7\n  s_nop 2\n  v_accvgpr_read_b32');

const KERNELS: readonly [string, string][] = [
  ['example.s', example],
  // the same kernel with a descriptor that does not cover its registers (66 VGPRs used; 65 still
  // allocates the accum_offset of 68, as llvm-mc requires): an error of the original
  ['uncovered.s', example.replace('.amdhsa_next_free_vgpr 97', '.amdhsa_next_free_vgpr 65')],
  ['loop.s', LOOP],
];

/** Random schedules of each kernel that emit (a random order may be one emission refuses). */
function emittedSchedules(seed: number, tries: number): { name: string; s: ScheduleState }[] {
  const out: { name: string; s: ScheduleState }[] = [];
  for (const [name, text] of KERNELS) {
    const k = pickKernel(loadText(text, name));
    const rand = mulberry32(seed);
    for (let t = 0; t < tries; t++) {
      const s = randomSchedule(k, rand, 6 + 6 * t);
      if (s.changedRegions().length > 0) out.push({ name, s });
    }
  }
  return out;
}

test('scoped re-checks find what the whole check finds at every step of emission, and the output does not depend on the comparison', () => {
  const before = { ...paddedChecks };
  let emitted = 0;
  let refused = 0;
  for (const { name, s } of emittedSchedules(11, 5)) {
    let plain: string | undefined;
    try {
      plain = emitSchedule(s, { checkFast: false }).text;
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
    }
    try {
      const checked = emitSchedule(s, { checkFast: true }).text;
      assert.equal(checked, plain, `${name}: the same text with and without the comparison`);
      emitted++;
    } catch (e) {
      if (e instanceof FastPathMismatch) throw e;
      if (!(e instanceof ConductorError)) throw e;
      assert.equal(plain, undefined, `${name}: refused only with the comparison`);
      refused++;
    }
  }
  assert.ok(emitted >= 10, `emitted ${emitted} (refused ${refused})`);
  // the check after the padding left the waitcnt analysis out (no wait missing before it) in
  // most of these emissions, each compared with the whole check above
  assert.ok(paddedChecks.hazards - before.hazards >= 10, `hazards only after padding: ${paddedChecks.hazards - before.hazards} of ${emitted * 2}`);
});

test('the original\'s descriptor error is the scheduled kernel\'s too: discounted by the whole check, never run by the scoped one', () => {
  const k = pickKernel(loadText(KERNELS[1]![1], 'uncovered.s'));
  const s = randomSchedule(k, mulberry32(3), 40);
  assert.ok(s.changedRegions().length > 0);
  const e = emitSchedule(s, { checkFast: true });
  const ctxs = kernelContexts(loadText(e.text, 'out.s'));
  const descriptorErrors = (cs: typeof ctxs) => checkContexts(cs, { paths: 'all' }).flatMap((c) => c.findings).filter((f) => f.rule === 'descriptor-registers');
  assert.equal(descriptorErrors(kernelContexts(k.loaded)).length, 1, 'the original has it');
  assert.equal(descriptorErrors(ctxs).length, 1, 'the scheduled program has it');
  assert.deepEqual(scheduleErrors(s, ctxs, 'whole'), []);
  assert.deepEqual(scheduleErrors(s, ctxs, 'hazards+waitcnt'), []);
});

/** Keys of fresh findings, for comparing scopes. */
function keys(l: Fresh[]): string[] {
  return l.map((f) => `${f.finding.rule}@${f.finding.insn}`);
}

test('a scope that leaves out a check whose premise is broken differs from the whole check (what checkFast catches)', () => {
  // an emitted schedule of the loop with one of its waits, then one of its nops, taken out
  const k = pickKernel(loadText(LOOP, 'loop.s'));
  let s: ScheduleState | undefined;
  let text = '';
  for (let seed = 1; seed < 40 && !s; seed++) {
    const c = randomSchedule(k, mulberry32(seed), 20);
    if (c.changedRegions().length === 0) continue;
    try {
      text = emitSchedule(c).text;
      s = c;
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
    }
  }
  assert.ok(s, 'an emitted schedule');
  const lines = text.split('\n');
  const without = (pattern: RegExp, rule: RegExp): { scoped: (scope: 'hazards' | 'hazards+waitcnt') => string[]; whole: string[] } | undefined => {
    for (let i = 0; i < lines.length; i++) {
      if (!pattern.test(lines[i]!)) continue;
      const broken = [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n');
      const ctxs = kernelContexts(loadText(broken, 'broken.s'));
      const whole = keys(scheduleErrors(s!, ctxs, 'whole'));
      if (!whole.some((x) => rule.test(x))) continue;
      return { scoped: (scope) => keys(scheduleErrors(s!, ctxs, scope)), whole };
    }
    return undefined;
  };
  const noWait = without(/^\s*s_waitcnt\b/, /^waitcnt-/);
  assert.ok(noWait, 'a wait whose removal is a missing-wait error');
  assert.deepEqual(noWait.scoped('hazards+waitcnt'), noWait.whole);
  assert.notDeepEqual(noWait.scoped('hazards'), noWait.whole, 'hazards alone miss the missing wait');
  const noNop = without(/^\s*s_nop\b/, /^(?!waitcnt-)/);
  assert.ok(noNop, 'a nop whose removal is a hazard');
  assert.deepEqual(noNop.scoped('hazards'), noNop.whole);
  assert.deepEqual(noNop.scoped('hazards+waitcnt'), noNop.whole);
});
