/**
 * The occupancies `schedule` prints beside a kernel's result, taken once for every kernel of the
 * input before the run (inputOccupancies), are the ones fixedOccupancies gives for each kernel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { fixedOccupancies, inputOccupancies } from '../../../src/cli/occupancy.js';
import { example, root } from '../../repo.js';

test('inputOccupancies: every kernel of a file, as fixedOccupancies gives it', () => {
  for (const f of [example, join(root, 'test', 'fixtures', 'waitcnt', 'dependencies.s')]) {
    const l = loadText(readFileSync(f, 'utf8'), f);
    const names = kernelContexts(l).map((c) => c.kernel.name);
    const all = inputOccupancies(l);
    assert.deepEqual([...all.keys()], [...new Set(names)], f);
    assert.ok(all.size >= 1, f);
    for (const n of names) {
      const one = fixedOccupancies(l, n);
      assert.ok(one, `${f}: ${n}`);
      assert.deepEqual(all.get(n), one, `${f}: ${n}`);
      assert.match(one.text, /occupancy \(descriptor\).*\(a reordering changes neither\)/);
    }
  }
});
