/**
 * What `schedule` writes is minimal: no s_waitcnt that waits for nothing where the input had
 * none (the waitcnt analysis' [waitcnt-redundant]), and waits that stand together before one
 * instruction are one wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { randomSchedule } from './helpers.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

function redundant(text: string): number {
  return checkLoaded(loadText(text, 'k.s')).findings.filter((f) => f.rule === 'waitcnt-redundant').length;
}

function adjacentWaits(text: string): number {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('//') && !l.startsWith(';'));
  let n = 0;
  for (let i = 1; i < lines.length; i++) if (lines[i]!.startsWith('s_waitcnt') && lines[i - 1]!.startsWith('s_waitcnt')) n++;
  return n;
}

test('random legal schedules of a real kernel: no redundant wait the input lacks, no two waits in a row', () => {
  const k = pickKernel(loadText(example, 'k.s'));
  const before = redundant(example);
  const beforeRuns = adjacentWaits(example);
  const rand = mulberry32(5);
  let written = 0;
  for (let t = 0; t < 25; t++) {
    const s = randomSchedule(k, rand, 12);
    if (s.changedRegions().length === 0) continue;
    const e = emitSchedule(s);
    written++;
    assert.ok(redundant(e.text) <= before, `schedule ${t}: ${redundant(e.text)} redundant waits, the input has ${before}`);
    assert.ok(adjacentWaits(e.text) <= beforeRuns, `schedule ${t}: waits in a row`);
    assert.equal(checkLoaded(e.loaded).errors, 0);
  }
  assert.ok(written >= 15, `only ${written} schedules written`);
});
