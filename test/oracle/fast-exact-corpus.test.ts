/**
 * Oracle: every fast path against the exact computation on the whole corpus. For every file of
 * ../shared/corpus the front end loads (with its target: the llvm-hazards pairs' file names, the
 * llvm-mc files' RUN line; gfx900 judged as gfx906, gfx940 as gfx942), `check`, `check --fix` and
 * `schedule` (every strategy, one thread, a small budget; files up to 1 MB) run twice: as shipped, and with
 * CONDUCTOR_CHECK_FAST=1, where every kept analysis (analysis/memo.ts), the zero-padding
 * shortcut of the hazard engine, the kept alignments, the Evaluator's incremental evaluations
 * and emission's scoped checks are computed again from scratch and compared (FastPathMismatch
 * when they differ). Both runs must give the same findings, fixed text and scheduled text.
 * Needs ../shared/corpus: fails, never skips, when it is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadText, type Loaded } from '../../src/load.js';
import { checkLoaded } from '../../src/check/check.js';
import { fixLoaded } from '../../src/check/fix.js';
import { scheduleFile } from '../../src/schedule/search/run.js';
import { ConductorError } from '../../src/errors.js';
import { corpusDir } from './llvm.js';

/** Evaluations per strategy run (each evaluation is also made from scratch in the checked mode). */
const BUDGET = 20;
/**
 * Files above this size are checked and fixed but not scheduled here: in the checked mode every
 * access to a kept whole-kernel analysis computes it again, which on the two 3 MB kernels takes
 * tens of minutes for one strategy of 5 evaluations (schedule-corpus schedules them as shipped).
 */
const SCHEDULE_MAX_BYTES = 1_000_000;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.s') ? [p] : [];
  });
}

/** The target a corpus file is for: its name (llvm-hazards pairs), its RUN line (llvm-mc), else its own .amdgcn_target. */
function archOf(file: string, text: string): string | undefined {
  const m = /\.(gfx9\w+)\.(?:no|with)hazard\.s$/.exec(file) ?? /-mcpu=(gfx9\w+)/.exec(text.slice(0, 2000));
  const a = m?.[1];
  return a === 'gfx900' ? 'gfx906' : a === 'gfx940' ? 'gfx942' : a;
}

/** Findings, fixed text and scheduled text of one file, as one string; undefined when the front end refuses it. */
async function outputs(file: string, text: string, arch: string | undefined): Promise<string | undefined> {
  const load = (): Loaded => loadText(text, file, { arch });
  try {
    load();
  } catch (e) {
    if (e instanceof ConductorError) return undefined;
    throw e;
  }
  const findings = checkLoaded(load()).findings.map((f) => `${f.loc.line}:${f.loc.col} ${f.severity} ${f.rule} ${f.message}`);
  const fixed = fixLoaded(load()).text;
  if (text.length > SCHEDULE_MAX_BYTES) return [...findings, fixed].join('\n');
  let scheduled: string;
  try {
    const r = await scheduleFile(load(), text, { budget: BUDGET, seconds: 600, jobs: 1, cache: false });
    scheduled = r.text + JSON.stringify(r.kernels.map((k) => [k.kernel, k.strategy, k.before, k.after]));
  } catch (e) {
    if (!(e instanceof ConductorError)) throw e;
    scheduled = `refused: ${e.message}`;
  }
  return [...findings, fixed, scheduled].join('\n');
}

test('corpus: check, check --fix and schedule give the same results with every fast path compared to the exact one', async () => {
  const root = corpusDir();
  const files = filesUnder(root).sort();
  let compared = 0;
  let tensile = 0;
  const saved = process.env['CONDUCTOR_CHECK_FAST'];
  try {
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const arch = archOf(file, text);
      const t0 = performance.now();
      delete process.env['CONDUCTOR_CHECK_FAST'];
      const plain = await outputs(file, text, arch);
      if (plain === undefined) continue;
      const t1 = performance.now();
      process.env['CONDUCTOR_CHECK_FAST'] = '1';
      const checked = await outputs(file, text, arch);
      const t2 = performance.now();
      const name = relative(root, file);
      assert.equal(checked, plain, `${name}: the same results with the fast paths checked`);
      compared++;
      if (name.startsWith('tensile')) tensile++;
      console.log(`  ${name.slice(0, 90)}: same (${((t1 - t0) / 1000).toFixed(1)} s as shipped, ${((t2 - t1) / 1000).toFixed(1)} s checked)`);
    }
  } finally {
    if (saved === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = saved;
  }
  console.log(`  fast-exact: ${compared} corpus files compared (${tensile} Tensile kernels)`);
  // 8 Tensile files, of which one is raw words (no instructions: check and schedule still run)
  assert.ok(tensile >= 7 && compared >= 12, `compared ${compared} files, ${tensile} Tensile`);
});
