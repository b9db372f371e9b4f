/**
 * Oracle: emission's scoped re-checks (emit.ts CheckScope: hazards and waits after reordering
 * and inserted waits and nops, hazards alone after tidying waits, the descriptor's register
 * coverage never) find what the whole check finds, on every Tensile kernel of ../shared/corpus:
 * random legal schedules of each are emitted with EmitOptions.checkFast, which runs the whole
 * check beside every scoped one and throws when they differ, and the text is the one emitted
 * without the comparison. Needs ../shared/corpus: fails, never skips, when it is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../src/load.js';
import { pickKernel } from '../../src/schedule/kernel.js';
import { emitSchedule } from '../../src/schedule/emit.js';
import { ConductorError } from '../../src/errors.js';
import { mulberry32 } from '../../src/schedule/search/rng.js';
import { randomSchedule } from '../unit/schedule/helpers.js';
import { corpusDir } from './llvm.js';

test('tensile corpus: scoped re-checks of emission agree with the whole check on random schedules', () => {
  const dir = join(corpusDir(), 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();
  assert.ok(files.length >= 8, `the Tensile corpus in ${dir}`);
  // 6 of the 8 schedule: one is raw words, one has an operand llvm-mc refuses
  let emitted = 0;
  let kernels = 0;
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    let k;
    try {
      k = pickKernel(loadText(text, f));
    } catch (e) {
      // a file the front end refuses, or one with no instructions (raw words), is another oracle's business
      if (e instanceof ConductorError) continue;
      throw e;
    }
    kernels++;
    const rand = mulberry32(17);
    for (const moves of [30, 300]) {
      const s = randomSchedule(k, rand, moves);
      if (s.changedRegions().length === 0) continue;
      let plain: string;
      try {
        plain = emitSchedule(s).text;
      } catch (e) {
        if (!(e instanceof ConductorError)) throw e;
        continue;
      }
      assert.equal(emitSchedule(s, { checkFast: true }).text, plain, `${f}: the same text with the comparison`);
      emitted++;
    }
  }
  console.log(`  emit-scoped-check: ${emitted} schedules of ${kernels} Tensile kernels emitted with every scoped check compared to the whole check`);
  assert.ok(kernels >= 6 && emitted >= kernels, `emitted ${emitted} schedules of ${kernels} kernels`);
});
