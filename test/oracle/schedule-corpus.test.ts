/**
 * Oracle: automatic scheduling on real kernels. For every Tensile kernel of ../shared/corpus
 * that llvm-mc accepts, and for the project's clang builds with MFMA (every target that has
 * MFMA, all MFMA loops) plus the largest gfx906 builds, each strategy alone (list, beam,
 * anneal) must produce a kernel that
 *   - assembles with llvm-mc 22,
 *   - checks with zero errors,
 *   - verifies as equivalent to the input (independent verifier),
 *   - is not worse than the input under the objective, and whose reported metrics are those of
 *     the text written.
 * Then verify is tried on the scheduler's outputs made illegal: random swaps that break a
 * read-after-write, a write-after-read, the order of two accesses that may alias, or move a
 * pinned instruction, written into the scheduled text; verify must reject every one.
 * The budget per run is small (CI time); the figures (gains per strategy) are printed.
 * Needs LLVM 22 and ../shared/corpus: fails, never skips, when they are missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKernels } from '../../scripts/build-kernels.js';
import { loadText } from '../../src/load.js';
import { checkLoaded } from '../../src/check/check.js';
import { verifyLoaded } from '../../src/verify/verify.js';
import { prepareKernels } from '../../src/schedule/kernel.js';
import { compareMetrics, DEFAULT_OBJECTIVE, programMetrics, type MetricName, type Metrics } from '../../src/schedule/metrics.js';
import { scheduleLoaded } from '../../src/schedule/search/run.js';
import { STRATEGIES, type StrategyName } from '../../src/schedule/search/search.js';
import { acceptedTensileKernels, runLlvmMc } from './llvm.js';
import { ILLEGAL_KINDS, illegalMutations, rng, type IllegalKind } from './mutate.js';

const work = mkdtempSync(join(tmpdir(), 'conductor-schedule-corpus-'));

interface Row { name: string; strategy: StrategyName; before: Metrics; after: Metrics; won: string; evaluations: number; seconds: number }
const rows: Row[] = [];
const failures: string[] = [];
let outputs = 0;
const illegal: Record<IllegalKind, { made: number; rejected: number }> = { raw: { made: 0, rejected: 0 }, war: { made: 0, rejected: 0 }, memory: { made: 0, rejected: 0 }, pinned: { made: 0, rejected: 0 } };
const mutRand = rng(4242);

async function scheduleAll(name: string, text: string, arch: string | undefined, budget: number, objective: readonly MetricName[]): Promise<boolean> {
  const orig = loadText(text, name, { arch });
  const target = orig.target.name;
  const kernels = prepareKernels(orig).filter((k) => k.regions.some((r) => r.nodes.length >= 2));
  if (kernels.length === 0) return false;
  for (const k of kernels) {
    for (const strategy of STRATEGIES) {
      const label = `${name.split('/').pop()} ${k.name.slice(0, 40)} ${strategy}`;
      let r;
      try {
        r = await scheduleLoaded(loadText(text, name, { arch }), text, {
          kernel: k.name, strategies: [strategy], objective, budget, seconds: 20, seed: 1, jobs: 1, cache: false, candidates: 1, annealReplicas: 1,
        });
      } catch (e) {
        failures.push(`${label}: schedule failed: ${(e as Error).message}`);
        continue;
      }
      outputs++;
      rows.push({ name: label, strategy, before: r.before, after: r.after, won: r.strategy, evaluations: r.evaluations, seconds: r.seconds });
      const file = join(work, `out-${outputs}.s`);
      writeFileSync(file, r.text);
      const mc = await runLlvmMc(file, target);
      if (!mc.ok) failures.push(`${label}: does not assemble: ${mc.stderr.split('\n').slice(0, 2).join(' | ')}`);
      const out = loadText(r.text, file, { arch: target });
      const errors = checkLoaded(out).kernels.flatMap((c) => c.findings.filter((f) => f.severity === 'error'));
      if (errors.length > 0) failures.push(`${label}: ${errors.length} check errors, first: ${errors[0]!.message} [${errors[0]!.rule}]`);
      const v = verifyLoaded(orig, out);
      if (!v.equivalent) failures.push(`${label}: not equivalent: ${v.difference!.kind}: ${v.difference!.message}`);
      if (compareMetrics(r.after, r.before, objective) > 0) failures.push(`${label}: worse than the input`);
      const measured = programMetrics(out, k.name);
      if (JSON.stringify(measured) !== JSON.stringify(r.after)) failures.push(`${label}: reported ${JSON.stringify(r.after)}, measured ${JSON.stringify(measured)}`);
      if (r.strategy === 'input' || (text.length > 1_000_000 && strategy !== 'list')) continue; // large files: one strategy's output (CI time)
      // the scheduled output made illegal must be rejected
      const ks = prepareKernels(out).find((x) => x.name === k.name);
      if (!ks) { failures.push(`${label}: the output has no kernel ${k.name}`); continue; }
      for (const kind of ILLEGAL_KINDS) {
        for (const m of illegalMutations(ks, kind, mutRand, 1)) {
          illegal[kind].made++;
          let rejected: boolean;
          try { rejected = !verifyLoaded(orig, loadText(m.text, `${file}.mutated.s`, { arch: target })).equivalent; } catch { rejected = true; }
          if (rejected) illegal[kind].rejected++;
          else failures.push(`${label}: illegal ${kind} mutation of the output accepted: ${m.what}`);
        }
      }
    }
  }
  return true;
}

test('project kernels: every MFMA build and the largest gfx906 builds, each strategy', async () => {
  const builds = await buildKernels();
  const mfma = builds.filter((b) => readFileSync(b.s, 'utf8').includes('v_mfma'));
  const gfx906 = builds.filter((b) => b.target === 'gfx906').sort((a, b) => statSync(b.s).size - statSync(a.s).size).slice(0, 8);
  const chosen = [...mfma, ...gfx906];
  const targets = new Set(chosen.map((b) => b.target));
  assert.ok(chosen.length >= 30, `only ${chosen.length} builds chosen`);
  assert.deepEqual([...targets].sort(), ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950']);
  let used = 0;
  for (const b of chosen) if (await scheduleAll(b.s, readFileSync(b.s, 'utf8'), b.target, 200, DEFAULT_OBJECTIVE)) used++;
  assert.ok(used >= 30, `only ${used} builds had something to schedule`);
});

test('tensile corpus: every kernel llvm-mc accepts, each strategy', async () => {
  let used = 0;
  for (const { path, text } of await acceptedTensileKernels()) {
    let ok: boolean;
    try { ok = await scheduleAll(path, text, undefined, 150, DEFAULT_OBJECTIVE); } catch (e) {
      if (/no decodable instructions/.test((e as Error).message)) continue; // the raw .long kernel
      throw e;
    }
    if (ok) used++;
  }
  assert.ok(used >= 6, `expected at least 6 Tensile kernels with code, used ${used}`);
});

test('figures: every output assembles, checks clean, verifies, and is not worse', () => {
  const by = new Map<StrategyName, { runs: number; better: number; waits: number; nops: number; vgpr: number; cycles: number; evals: number; secs: number }>();
  for (const r of rows) {
    const s = by.get(r.strategy) ?? { runs: 0, better: 0, waits: 0, nops: 0, vgpr: 0, cycles: 0, evals: 0, secs: 0 };
    s.runs++;
    if (r.won !== 'input') s.better++;
    s.waits += r.after.s_waitcnt - r.before.s_waitcnt;
    s.nops += r.after.s_nop - r.before.s_nop;
    s.vgpr += r.after.peak_vgpr - r.before.peak_vgpr;
    s.cycles += r.after.est_cycles - r.before.est_cycles;
    s.evals += r.evaluations;
    s.secs += r.seconds;
    by.set(r.strategy, s);
  }
  for (const [name, s] of by) {
    console.log(`  schedule-corpus ${name}: ${s.runs} kernels, ${s.better} improved; total change: peak_vgpr ${s.vgpr}, s_waitcnt ${s.waits}, s_nop ${s.nops}, est_cycles ${s.cycles}; ${s.evals} evaluations, ${s.secs.toFixed(0)} s`);
  }
  console.log(`  schedule-corpus mutations of the outputs rejected by verify: ${ILLEGAL_KINDS.map((k) => `${k} ${illegal[k].rejected}/${illegal[k].made}`).join(', ')}`);
  for (const f of failures.slice(0, 30)) console.log(`  FAIL ${f}`);
  for (const k of ILLEGAL_KINDS) assert.ok(illegal[k].made >= 10, `only ${illegal[k].made} illegal ${k} mutations of outputs`);
  assert.ok(outputs >= 3 * 36, `only ${outputs} outputs`);
  assert.equal(failures.length, 0, `${failures.length} failures (first: ${failures[0]})`);
  assert.ok(rows.some((r) => r.won !== 'input'), 'no strategy improved any kernel');
});
