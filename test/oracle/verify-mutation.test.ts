/**
 * Oracle: verify against the scheduler on real kernels. For the project's kernels (built with
 * LLVM 22 by scripts/build-kernels.ts) and the Tensile corpus:
 *   - random legal schedules (validated moves, waits and nops re-derived) must verify as
 *     equivalent and assemble with llvm-mc;
 *   - illegal reorderings written straight into the text (a broken read-after-write, a broken
 *     write-after-read, two accesses that may alias exchanged, a pinned instruction moved) must
 *     all be rejected by verify.
 * Needs LLVM 22 and ../shared/corpus: fails, never skips, when they are missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKernels } from '../../scripts/build-kernels.js';
import { loadText, type Loaded } from '../../src/load.js';
import { prepareKernels, type ScheduleKernel } from '../../src/schedule/kernel.js';
import { ScheduleState, canMove, moveTo } from '../../src/schedule/state.js';
import { Evaluator } from '../../src/schedule/metrics.js';
import { emitSchedule } from '../../src/schedule/emit.js';
import { verifyLoaded } from '../../src/verify/verify.js';
import { acceptedTensileKernels, corpusDir, runLlvmMc } from './llvm.js';
import { ILLEGAL_KINDS, illegalMutations, randomLegalMoves, rng, type IllegalKind } from './mutate.js';

const work = mkdtempSync(join(tmpdir(), 'conductor-verify-mutation-'));

interface Figures {
  files: number;
  legal: number;
  legalMoves: number;
  legalVerified: number;
  legalAssembled: number;
  illegal: Record<IllegalKind, { made: number; rejected: number }>;
  rejectedBy: Record<string, number>;
}

const figures: Figures = {
  files: 0, legal: 0, legalMoves: 0, legalVerified: 0, legalAssembled: 0,
  illegal: { raw: { made: 0, rejected: 0 }, war: { made: 0, rejected: 0 }, memory: { made: 0, rejected: 0 }, pinned: { made: 0, rejected: 0 } },
  rejectedBy: {},
};
const failures: string[] = [];

interface Plan { schedules: number; moves: number; perKind: number }

async function exercise(name: string, text: string, arch: string | undefined, plan: Plan, seed: number): Promise<void> {
  let orig: Loaded;
  try {
    orig = loadText(text, name, { arch });
  } catch (e) {
    failures.push(`${name}: the original does not load: ${(e as Error).message}`);
    return;
  }
  const target = orig.target.name;
  const kernels = prepareKernels(orig).filter((k: ScheduleKernel) => k.regions.some((r) => r.nodes.length >= 2));
  if (kernels.length === 0) return;
  figures.files++;
  const rand = rng(seed);
  for (const k of kernels) {
    for (let n = 0; n < plan.schedules; n++) {
      const s = new ScheduleState(k);
      const applied = randomLegalMoves(s, rand, plan.moves);
      if (applied === 0) continue;
      figures.legal++;
      figures.legalMoves += applied;
      let out: string;
      try {
        out = emitSchedule(s).text;
      } catch (e) {
        failures.push(`${name} ${k.name}: legal schedule (${applied} moves) could not be emitted: ${(e as Error).message}`);
        continue;
      }
      const sched = loadText(out, `${name}.scheduled.s`, { arch: target });
      const v = verifyLoaded(orig, sched);
      if (v.equivalent) figures.legalVerified++;
      else failures.push(`${name} ${k.name}: legal schedule rejected: ${v.difference!.kind}: ${v.difference!.message}`);
      const file = join(work, `legal-${figures.legal}.s`);
      writeFileSync(file, out);
      const mc = await runLlvmMc(file, target);
      if (mc.ok) figures.legalAssembled++;
      else failures.push(`${name} ${k.name}: legal schedule does not assemble: ${mc.stderr.split('\n').slice(0, 3).join(' | ')}`);
    }
    for (const kind of ILLEGAL_KINDS) {
      for (const m of illegalMutations(k, kind, rand, plan.perKind)) {
        figures.illegal[kind].made++;
        let rejected: boolean;
        let by: string;
        try {
          const mut = loadText(m.text, `${name}.mutated.s`, { arch: target });
          const v = verifyLoaded(orig, mut);
          rejected = !v.equivalent;
          by = v.difference?.kind ?? '';
        } catch (e) {
          rejected = true; // the mutated text does not even load (bad input): rejected
          by = 'input';
          void e;
        }
        if (rejected) {
          figures.illegal[kind].rejected++;
          figures.rejectedBy[`${kind} by ${by}`] = (figures.rejectedBy[`${kind} by ${by}`] ?? 0) + 1;
        } else failures.push(`${name} ${k.name}: illegal ${kind} mutation accepted: ${m.what}`);
      }
    }
  }
}

test('project kernels: legal schedules verify and assemble, illegal ones are rejected', async () => {
  const builds = await buildKernels();
  assert.ok(builds.length >= 100, `expected the project kernels, got ${builds.length}`);
  let seed = 1;
  for (const b of builds) {
    await exercise(b.s.split('/').pop()!, readFileSync(b.s, 'utf8'), b.target, { schedules: 1, moves: 40, perKind: 1 }, seed++);
  }
  assert.ok(figures.legal > 50, `too few legal schedules (${figures.legal})`);
});

test('tensile corpus: legal schedules verify and assemble, illegal ones are rejected', async () => {
  let seed = 1000;
  let used = 0;
  for (const { path, text } of await acceptedTensileKernels()) {
    const big = text.length > 1_000_000;
    const before = figures.files;
    await exercise(path, text, undefined, big ? { schedules: 1, moves: 400, perKind: 1 } : { schedules: 2, moves: 150, perKind: 3 }, seed++);
    if (figures.files > before) used++;
  }
  assert.ok(used >= 5, `expected at least 5 Tensile kernels with code, used ${used}`);
});

test('speed: validate + apply + evaluate per candidate on the largest region of the largest Tensile kernel', () => {
  const dir = join(corpusDir(), 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).map((f) => join(dir, f));
  let best: { k: ScheduleKernel; n: number } | undefined;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    if (best && text.length < 1_000_000) continue;
    let l: Loaded;
    try { l = loadText(text, f); } catch { continue; }
    for (const k of prepareKernels(l)) if (!best || k.n > best.n) best = { k, n: k.n };
  }
  assert.ok(best, 'no Tensile kernel loaded');
  const k = best.k;
  const rg = k.regions.reduce((a, b) => (a.nodes.length >= b.nodes.length ? a : b));
  for (const nops of [false, true]) {
    const ev = new Evaluator(k, { nops });
    const s = new ScheduleState(k);
    const rand = rng(99);
    const m = rg.nodes.length;
    const step = () => {
      const from = rand(m);
      const to = Math.max(0, Math.min(m - 1, from + rand(41) - 20));
      if (canMove(s, rg.id, from, to)) moveTo(s, rg.id, from, to);
      ev.evaluate(s);
    };
    for (let i = 0; i < 200; i++) step();
    const N = 2000;
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) step();
    const c = process.cpuUsage(c0);
    const us = (c.user + c.system) / N;
    console.log(`  speed: ${k.name.slice(0, 40)}... (${k.n} instructions), region ${rg.id} (${m} movable), s_nop estimate ${nops ? 'on' : 'off'}: ` +
      `${us.toFixed(0)} us CPU per candidate (${Math.round(1e6 / us)} per second)`);
    assert.ok(us < 20000, 'a candidate takes more than 20 ms');
  }
});

test('figures: 100% of illegal mutations rejected, every legal schedule equivalent and assembled', () => {
  const ill = ILLEGAL_KINDS.map((k) => `${k} ${figures.illegal[k].rejected}/${figures.illegal[k].made}`).join(', ');
  console.log(`  verify-mutation: ${figures.files} files; legal: ${figures.legal} schedules (${figures.legalMoves} moves), ` +
    `${figures.legalVerified} verified equivalent, ${figures.legalAssembled} assembled; illegal rejected: ${ill}`);
  console.log(`  rejected by: ${Object.entries(figures.rejectedBy).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const f of failures.slice(0, 30)) console.log(`  FAIL ${f}`);
  assert.equal(failures.length, 0, `${failures.length} failures (first: ${failures[0]})`);
  for (const k of ILLEGAL_KINDS) {
    assert.ok(figures.illegal[k].made > 0, `no illegal ${k} mutation was made`);
    assert.equal(figures.illegal[k].rejected, figures.illegal[k].made, `illegal ${k}: rejected ${figures.illegal[k].rejected} of ${figures.illegal[k].made}`);
  }
  assert.equal(figures.legalVerified, figures.legal);
  assert.equal(figures.legalAssembled, figures.legal);
});
