/**
 * Oracle: the scheduler's wait estimate against the waitcnt analysis on every region of every
 * Tensile kernel of ../shared/corpus: in each region's original order, the estimate from the
 * Evaluator's entry state places exactly the waits (position and counter values) the analysis
 * inserts once the region's own dependency waits are set aside, which is what emission writes
 * into a changed region. Needs ../shared/corpus: fails, never skips, when it is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../src/load.js';
import { prepareKernels } from '../../src/schedule/kernel.js';
import { ConductorError } from '../../src/errors.js';
import { corpusDir } from './llvm.js';
import { estimateDifferences } from '../unit/schedule/wait-estimate.js';

const dir = join(corpusDir(), 'tensile');
const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();

test('the Tensile corpus is present', () => {
  assert.ok(files.length > 0, `no kernels in ${dir}`);
});

for (const f of files) {
  test(`wait estimate = waitcnt analysis on every region: ${f}`, () => {
    let loaded;
    try {
      loaded = loadText(readFileSync(join(dir, f), 'utf8'), f);
    } catch (e) {
      // a kernel the project rejects as bad input (as llvm-mc does) has nothing to schedule
      assert.ok(e instanceof ConductorError, String(e));
      console.log(`  wait-estimate ${f}: not loaded (${e.message})`);
      return;
    }
    let regions = 0;
    for (const k of prepareKernels(loaded)) {
      regions += k.regions.length;
      assert.deepEqual(estimateDifferences(k), [], `${f} ${k.name}`);
    }
    console.log(`  wait-estimate ${f}: ${regions} regions agree`);
  });
}
