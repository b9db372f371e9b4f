/**
 * Waitcnt analysis on the Tensile / hipBLASLt corpus (../shared/corpus/tensile): every kernel
 * that llvm-mc 22 accepts is analysed (check, minimal waits, re-derived waits) without error,
 * the analysis is fast, and the waits re-derived after stripping every dependency wait leave
 * no missing wait. Prints per kernel: instructions, findings by rule, times. The missing waits
 * the check reports on these hand-scheduled kernels are listed for review (they are findings
 * about the kernels, not failures of this test); a kernel reviewed path by path
 * (waitcnt-tensile-reviewed.json) must report exactly the errors its review found real, with the
 * wait that governs each (the `present:` part of the message).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import { analyzeWaitcnt, checkWaitcnt, dependencyWaits, minimalWaits } from '../../src/waitcnt/index.js';
import { corpusDir, runLlvmMc } from './llvm.js';

/** Generous: the analysis of the largest kernel (41k instructions) takes a fraction of this. */
const MAX_SECONDS_PER_KERNEL = 5;

const dir = join(corpusDir(), 'tensile');

interface ReviewedError { line: number; rule: string; counter: string; required: number; present: string; producer: number; verdict: 'real'; why: string }
const reviewed = JSON.parse(readFileSync(new URL('../../../test/oracle/waitcnt-tensile-reviewed.json', import.meta.url), 'utf8')) as {
  kernels: { file: string; errors: ReviewedError[] }[];
};
const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();

test('the Tensile corpus is present', () => {
  assert.ok(files.length >= 8, `expected at least 8 Tensile kernels in ${dir}`);
});

for (const f of files) {
  test(`waitcnt on tensile: ${f.slice(0, 70)}`, async () => {
    const path = join(dir, f);
    const text = readFileSync(path, 'utf8');
    const target = /\.amdgcn_target\s+"amdgcn-amd-amdhsa--(gfx\w+)/.exec(text)?.[1];
    assert.ok(target, 'file declares its target');
    const mc = await runLlvmMc(path, target!);
    if (!mc.ok) {
      // not a program (tensile.test.ts checks that the loader rejects it at the same lines)
      console.log(`  ${f}: llvm-mc rejects it: not analysed`);
      return;
    }
    const l = loadText(text, path);
    for (const ctx of kernelContexts(l)) {
      if (ctx.insns.length === 0) continue;
      const t0 = performance.now();
      const findings = checkWaitcnt(ctx);
      const t1 = performance.now();
      const minimal = minimalWaits(ctx);
      const t2 = performance.now();
      const strip = new Set(dependencyWaits(ctx));
      const rederived = analyzeWaitcnt(ctx, { skip: strip });
      const t3 = performance.now();
      const by: Record<string, number> = {};
      for (const x of findings) by[x.rule] = (by[x.rule] ?? 0) + 1;
      console.log(`  ${ctx.kernel.name.slice(0, 60)}: ${ctx.insns.length} instructions, ${JSON.stringify(by)}; `
        + `check ${(t1 - t0).toFixed(0)} ms, minimalWaits ${(t2 - t1).toFixed(0)} ms, re-derive ${(t3 - t2).toFixed(0)} ms `
        + `(${strip.size} dependency waits stripped, ${rederived.insertions.length} re-derived)`);
      for (const x of findings.filter((y) => y.rule === 'waitcnt-missing' || y.rule === 'waitcnt-fence')) console.log(`    ${x.loc.line}: ${x.severity}: ${x.message}`);
      const review = reviewed.kernels.find((r) => r.file === f);
      if (review) {
        const errs = findings.filter((x) => x.severity === 'error');
        assert.deepEqual(errs.map((x) => [x.loc.line, x.rule, x.required, x.related[0]?.loc.line]), review.errors.map((e) => [e.line, e.rule, e.required, e.producer]),
          'the errors the review found real, and no other');
        for (const [k, e] of review.errors.entries()) assert.match(errs[k]!.message, new RegExp(`needs ${e.counter}\\(${e.required}\\), present: ${e.present.replace(/[()]/g, '\\$&')} \\(allows`));
      }
      const every = checkWaitcnt(ctx, { paths: 'all' }).filter((x) => x.severity === 'error').length;
      assert.equal(every, findings.filter((x) => x.fix?.kind === 'waitcnt').length, '--paths all: every missing wait an error');
      assert.equal(minimal.length, findings.filter((x) => x.fix?.kind === 'waitcnt').map((x) => x.insn).filter((v, i, a) => a.indexOf(v) === i).length,
        'one inserted wait per instruction the check flags');
      assert.ok((t1 - t0) / 1000 < MAX_SECONDS_PER_KERNEL, `check took ${(t1 - t0).toFixed(0)} ms`);
      assert.ok((t3 - t2) / 1000 < MAX_SECONDS_PER_KERNEL, `re-derive took ${(t3 - t2).toFixed(0)} ms`);
    }
  });
}
