/**
 * Oracle: schedules that make kernels faster. Every MFMA kernel of the corpus (the project's
 * clang builds for gfx908, gfx90a, gfx942 and gfx950, and the Tensile kernels llvm-mc accepts)
 * is scheduled with the default objective and budget, whole files at a time, and
 *   - every output assembles (llvm-mc 22), checks with no error, verifies as equivalent to the
 *     input, keeps the input's occupancy, has no [waitcnt-redundant] finding the input lacks,
 *     and reports the metrics of the text written;
 *   - no kernel gets slower by our own model (est_cycles);
 *   - the hottest loop of each kernel is judged by llvm-mca before and after (mca.ts): the
 *     per-kernel table, the geometric mean of after/before, the direction agreement between our
 *     estimate and llvm-mca and every disagreement are printed, and each disagreement must be
 *     one reviewed in speed-exceptions.json (which model is right and why); the agreement is
 *     asserted at the goal of 90% at least;
 *   - the largest drift between the search's estimate and the exact measure is printed;
 *   - the loops a result pipelines (software pipelining by one or two stages) are the ones verify
 *     proves; llvm-mca's cycles of a loop pipelined by two stages (its body holds two iterations
 *     of the source loop) are halved, so that both figures are per 50 source iterations.
 * The search's wall-clock cap is raised so that the budget alone decides (deterministic).
 * Needs LLVM 22 and ../shared/corpus: fails, never skips, when they are missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadText } from '../../src/load.js';
import { checkLoaded } from '../../src/check/check.js';
import { verifyLoaded } from '../../src/verify/verify.js';
import { programMetrics } from '../../src/schedule/metrics.js';
import { runLlvmMc } from './llvm.js';
import { formatSpeed, speedCorpus, speedRun, summarize, type SpeedRow } from './speedup.js';

const here = dirname(fileURLToPath(import.meta.url));
const exceptions = JSON.parse(readFileSync(join(here, '..', '..', '..', 'test', 'oracle', 'speed-exceptions.json'), 'utf8')) as {
  reasons: Record<string, string>; loop: { file: string; reason: string }[];
};
const work = mkdtempSync(join(tmpdir(), 'conductor-speed-'));

test('schedule speed: every MFMA kernel of the corpus, default objective and budget, judged by llvm-mca', async () => {
  const t0 = Date.now();
  const inputs = await speedCorpus();
  const targets = new Set(inputs.map((i) => i.target));
  assert.deepEqual([...targets].sort(), ['gfx908', 'gfx90a', 'gfx942', 'gfx950']);
  assert.ok(inputs.filter((i) => i.source === 'clang').length >= 40, 'clang MFMA builds');
  assert.ok(inputs.filter((i) => i.source === 'tensile').length >= 4, 'Tensile kernels');
  const rows = await speedRun(inputs, { jobs: 2, seconds: 600 });
  const failures: string[] = [];
  // each written file once
  const byFile = new Map<string, SpeedRow[]>();
  for (const r of rows) { const l = byFile.get(r.file) ?? []; l.push(r); byFile.set(r.file, l); }
  let n = 0;
  let pipelinedLoops = 0;
  for (const [name, list] of byFile) {
    const inp = inputs.find((i) => i.name === name)!;
    const out = list[0]!.text;
    const path = join(work, `out-${n++}.s`);
    writeFileSync(path, out);
    const mc = await runLlvmMc(path, inp.target);
    if (!mc.ok) failures.push(`${name}: does not assemble: ${mc.stderr.split('\n').slice(0, 2).join(' | ')}`);
    const orig = loadText(inp.text, inp.path, { arch: inp.target });
    const sched = loadText(out, path, { arch: inp.target });
    const report = checkLoaded(sched);
    if (report.errors > 0) failures.push(`${name}: ${report.errors} check errors, first: ${report.findings.find((f) => f.severity === 'error')!.message}`);
    const redundantIn = checkLoaded(orig).findings.filter((f) => f.rule === 'waitcnt-redundant').length;
    const redundantOut = report.findings.filter((f) => f.rule === 'waitcnt-redundant').length;
    if (redundantOut > redundantIn) failures.push(`${name}: ${redundantOut} [waitcnt-redundant] findings, the input has ${redundantIn}`);
    const v = verifyLoaded(orig, sched);
    if (!v.equivalent) failures.push(`${name}: not equivalent: ${v.difference!.kind}: ${v.difference!.message}`);
    for (const k of v.kernels) {
      const said = list.find((r) => r.kernel === k.name)?.pipelined?.length ?? 0;
      if (v.equivalent && k.pipelinedLoops !== said) failures.push(`${name} ${k.name}: ${said} loops pipelined, verify proved ${k.pipelinedLoops}`);
      pipelinedLoops += k.pipelinedLoops;
    }
    for (const r of list) {
      if (r.after.occupancy < r.before.occupancy) failures.push(`${name} ${r.kernel}: occupancy ${r.before.occupancy} -> ${r.after.occupancy}`);
      if (r.after.est_cycles > r.before.est_cycles) failures.push(`${name} ${r.kernel}: slower by our model (${r.before.est_cycles} -> ${r.after.est_cycles})`);
      const measured = programMetrics(sched, r.kernel);
      if (JSON.stringify(measured) !== JSON.stringify(r.after)) failures.push(`${name} ${r.kernel}: reported ${JSON.stringify(r.after)}, measured ${JSON.stringify(measured)}`);
    }
  }
  console.log(formatSpeed(rows));
  const s = summarize(rows);
  const reviewed = new Map(exceptions.loop.map((e) => [e.file, e.reason]));
  // every disagreement, of est_cycles as the objective compares it and of the hottest loop's estimate
  const disagreeing = [...new Set([...s.disagreements, ...s.loopDisagreements])];
  const unreviewed = disagreeing.filter((r) => !reviewed.has(r.file));
  const stale = exceptions.loop.filter((e) => !disagreeing.some((r) => r.file === e.file));
  for (const r of disagreeing) {
    const why = reviewed.get(r.file);
    console.log(`  ${r.file}: ${why ? `reviewed (${why}): ${exceptions.reasons[why]!.slice(0, 160)}...` : 'NOT REVIEWED'}`);
  }
  if (stale.length > 0) console.log(`  reviewed disagreements that no longer occur: ${stale.map((e) => e.file).join(', ')}`);
  const twoStages = rows.filter((r) => r.pipelined?.some((l) => l.stages === 2)).length;
  console.log(`  software pipelining: ${rows.filter((r) => r.pipelined).length} kernels (${twoStages} by two stages), ${pipelinedLoops} loops, each proven by verify (the count relation, and trip counts 1 to 4, or 1 to 8 for two stages)`);
  console.log(`  schedule-speed: ${rows.length} kernels in ${byFile.size} files; ${((Date.now() - t0) / 1000).toFixed(0)} s in all`);
  for (const f of failures.slice(0, 30)) console.log(`  FAIL ${f}`);
  assert.equal(failures.length, 0, `${failures.length} failures (first: ${failures[0]})`);
  assert.ok(s.judged >= 40, `only ${s.judged} kernels judged by llvm-mca`);
  // 0.648 with software pipelining by one and two stages (0.906 with one stage, 0.967 without);
  // the goal is 0.90. llvm-mca judges one wave: at the kernels' occupancy our model gains less
  // on the same loops (other waves hide the latency too), and it is the one the objective trusts
  assert.ok(s.geomean <= 0.66, `llvm-mca geomean after/before ${s.geomean.toFixed(3)}: the corpus got slower than it did`);
  const piped = rows.filter((r) => r.pipelined && r.pipelined.length > 0).length;
  assert.ok(piped >= 39, `only ${piped} kernels pipelined (39 were)`);
  assert.ok(twoStages >= 27, `only ${twoStages} kernels pipelined by two stages (27 were)`);
  // direction agreement with llvm-mca where either changes by more than 2%, like for like: our
  // estimate of the hottest loop against llvm-mca's cycles of that loop (docs: a schedule is
  // judged on its hot loops by both models; llvm-mca sees nothing of the code around the loop):
  // 41/45 = 91% (the goal is 90%). est_cycles' agreement (the whole kernel, as the objective
  // compares it, against the same loop) is printed beside it: 40/45 = 89%, where two kernels
  // gain only outside their hottest loop. Every disagreement of either is reviewed
  // (speed-exceptions.json says which model is right and why)
  const agreement = s.changedLoop > 0 ? s.agreeLoop / s.changedLoop : 1;
  console.log(`  direction agreement with llvm-mca on the hottest loop: ${s.agreeLoop}/${s.changedLoop} = ${(agreement * 100).toFixed(0)}% (goal 90%); ` +
    `est_cycles against the same loop: ${s.agree}/${s.changed} = ${(s.changed > 0 ? (100 * s.agree) / s.changed : 100).toFixed(0)}%`);
  assert.ok(agreement >= 0.9, `direction agreement with llvm-mca on the hottest loop ${(agreement * 100).toFixed(0)}%: below the goal of 90%`);
  assert.ok(s.drift <= 0.02, `the estimate drifts ${(s.drift * 100).toFixed(2)}% from the exact measure`);
  for (const e of exceptions.loop) assert.ok(exceptions.reasons[e.reason], `unknown reason '${e.reason}'`);
  assert.deepEqual(unreviewed.map((r) => r.file), [], 'disagreements with llvm-mca nobody has reviewed');
});
