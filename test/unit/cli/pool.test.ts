/**
 * The V8 thread pool (src/cli/main.ts rerunArgs): started with one background thread by the command's
 * shebang, a schedule on more than one thread runs again with node's default pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rerunArgs, ONE_THREAD } from '../../../src/cli/main.js';

test('a schedule on more than one thread runs again without --v8-pool-size=1; every other command stays', () => {
  const exec = [ONE_THREAD, '--enable-source-maps'];
  assert.deepEqual(rerunArgs(['schedule', 'k.s', '--jobs', '2'], exec, 2), ['--enable-source-maps']);
  assert.deepEqual(rerunArgs(['schedule', 'k.s', '--jobs=3'], exec, 2), ['--enable-source-maps']);
  // the default: one less than the machine's parallelism, at most 4
  assert.deepEqual(rerunArgs(['-I', 'inc', 'schedule', 'k.s'], exec, 8), ['--enable-source-maps']);
  assert.equal(rerunArgs(['schedule', 'k.s'], exec, 2), undefined, 'one thread on two cores');
  assert.equal(rerunArgs(['schedule', 'k.s', '--jobs', '1'], exec, 16), undefined);
  assert.equal(rerunArgs(['check', 'schedule', '--jobs', '4'], exec, 16), undefined, 'a file named schedule');
  assert.equal(rerunArgs(['analyze', 'k.s'], exec, 16), undefined);
  // started without the option (node dist/bin/conductor.js): nothing to change
  assert.equal(rerunArgs(['schedule', 'k.s', '--jobs', '2'], [], 16), undefined);
});
