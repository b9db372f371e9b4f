/**
 * Oracle report: the hazard check on every Tensile/hipBLASLt kernel in ../shared/corpus/tensile.
 * These kernels are hand-written assembly (no LLVM padding to compare with), so the test prints
 * what it finds — rule, line, required vs present wait states — for review against the
 * references, and asserts only what must hold: every file that llvm-mc 22 accepts loads, every
 * finding names a rule, its source and a fix (or is a no-nop rule), and the check of the largest
 * kernel (41k instructions) runs well under a second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import type { Finding } from '../../src/analysis/types.js';
import { checkHazards, computeNops } from '../../src/hazards/index.js';
import { corpusDir, llvmTool, runLlvmMc } from './llvm.js';

const dir = join(corpusDir(), 'tensile');
const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();
const largest = [...files].sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];

test('the Tensile corpus and llvm-mc are present', () => {
  assert.ok(files.length >= 8, `expected at least 8 Tensile kernels in ${dir}`);
  assert.ok(llvmTool('llvm-mc'), 'llvm-mc found');
});

for (const f of files) {
  test(`hazards in tensile: ${f.slice(0, 80)}`, async () => {
    const path = join(dir, f);
    const text = readFileSync(path, 'utf8');
    let loaded;
    try {
      loaded = loadText(text, f);
    } catch (e) {
      const mc = await runLlvmMc(path, /amdgcn-amd-amdhsa--(gfx\w+)/.exec(text)?.[1] ?? 'gfx942');
      assert.ok(!mc.ok, `we cannot load a file llvm-mc accepts: ${String((e as Error).message).split('\n')[0]}`);
      console.log(`  ${f}: not checked (llvm-mc rejects it too)`);
      return;
    }
    const ctxs = kernelContexts(loaded);
    const all: Finding[] = [];
    let pad = 0;
    for (const c of ctxs) {
      all.push(...checkHazards(c));
      pad += computeNops(c).total;
    }
    const by = new Map<string, Finding[]>();
    for (const x of all) by.set(x.rule, [...(by.get(x.rule) ?? []), x]);
    const insns = ctxs.reduce((n, c) => n + c.insns.length, 0);
    console.log(`  ${f} (${loaded.target.name}, xnack ${ctxs[0]?.xnack ?? 'any'}): ${insns} instructions, ${all.length} findings, minimal padding ${pad} wait states`);
    for (const [rule, list] of [...by].sort((a, b) => b[1].length - a[1].length)) {
      const errors = list.filter((x) => x.severity === 'error').length;
      console.log(`    ${rule}: ${list.length} (${errors} errors) — ${list[0]!.source}`);
      for (const x of list.slice(0, 5)) {
        console.log(`      line ${x.loc.line}: ${x.required ?? '-'} required, ${x.actual ?? '-'} present: ${x.message}`);
      }
      if (list.length > 5) console.log(`      ... ${list.length - 5} more at lines ${list.slice(5, 25).map((x) => x.loc.line).join(', ')}${list.length > 25 ? ', ...' : ''}`);
    }
    for (const x of all) {
      assert.ok(x.source, 'finding has a source');
      assert.ok(x.fix || x.required === undefined, 'finding has a fix');
    }
  });
}

test(`hazard check speed on the largest Tensile kernel (${largest?.slice(0, 60)})`, () => {
  assert.ok(largest, 'a largest file');
  const loaded = loadText(readFileSync(join(dir, largest), 'utf8'), largest);
  const ctxs = kernelContexts(loaded);
  const insns = ctxs.reduce((n, c) => n + c.insns.length, 0);
  const run = () => {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    let n = 0;
    for (const c of ctxs) n += checkHazards(c).length;
    return { n, wall: performance.now() - w0, cpu: process.cpuUsage(c0).user / 1000 };
  };
  const cold = run();
  const warm = run();
  const p0 = performance.now();
  for (const c of ctxs) computeNops(c);
  const padMs = performance.now() - p0;
  console.log(`  ${insns} instructions: check ${cold.wall.toFixed(0)} ms cold (${cold.cpu.toFixed(0)} ms CPU), `
    + `${warm.wall.toFixed(0)} ms warm (${warm.cpu.toFixed(0)} ms CPU); minimal padding ${padMs.toFixed(0)} ms`);
  assert.ok(insns > 40000, 'the largest kernel has over 40k instructions');
  assert.ok(warm.cpu < 1000, `warm check took ${warm.cpu.toFixed(0)} ms CPU`);
});
