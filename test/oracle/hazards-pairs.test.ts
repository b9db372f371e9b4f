/**
 * Oracle: LLVM's own hazard recognizer on its hazard MIR tests
 * (../shared/corpus/llvm-hazards/pairs; see its README.md and MANIFEST.tsv).
 *
 * For every pair of files (the same functions compiled without and with LLVM's hazard NOPs):
 *   - every `withhazard` function must check clean (no finding of any severity), except the
 *     reviewed ISA-stricter cases listed in hazards-exceptions.json;
 *   - in every `nohazard` function, every place LLVM put s_nop (found by lining up the two
 *     files function by function) must be reported by us with at least as many missing wait
 *     states as LLVM inserted, except the reviewed LLVM-specific places (with their reasons);
 *   - functions LLVM rewrote instead of padding (the gfx90a 64-bit shift bug) must be reported
 *     by the shift64-high-reg rule;
 *   - a function we cannot load must be one llvm-mc 22 rejects too (instructions the target does
 *     not have, inline-asm operand placeholders).
 * gfx900 files are checked as gfx906. Prints positions, found, recall and the missing wait
 * states (ours vs LLVM's) per file. Fails, never skips, when LLVM or the corpus is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { kernelContextsFromText } from '../../src/analysis/context.js';
import { checkHazards } from '../../src/hazards/index.js';
import { corpusDir, readManifest, runLlvmMc } from './llvm.js';
import {
  insertedNops, instructionLines, loadHazardExceptions, shortfallByLine, splitFunctions, type PairException,
} from './hazards-common.js';

const root = join(corpusDir(), 'llvm-hazards');
const pairsDir = join(root, 'pairs');
const exc = loadHazardExceptions();
const used = new Set<PairException>();

function archOf(stem: string): { arch: string; mcpu: string } {
  const mcpu = stem.split('.')[1]!.split('_')[0]!;
  return { mcpu, arch: mcpu === 'gfx900' ? 'gfx906' : mcpu };
}

function findException(list: PairException[], file: string, fn: string, key: { rule?: string; consumer?: string }): PairException | undefined {
  const e = list.find((x) => x.file === file && x.function === fn
    && (key.rule === undefined || x.rule === key.rule) && (key.consumer === undefined || x.consumer === key.consumer));
  if (e) used.add(e);
  return e;
}

test('the llvm-hazards corpus is present', () => {
  assert.ok(existsSync(join(root, 'README.md')), `README.md missing in ${root}`);
  const manifest = readManifest(readFileSync(join(root, 'MANIFEST.tsv'), 'utf8'));
  assert.ok(manifest.length >= 10, 'MANIFEST.tsv lists the pair files');
  const stems = readdirSync(pairsDir).filter((f) => f.endsWith('.nohazard.s'));
  assert.ok(stems.length >= 10, `expected the pair files in ${pairsDir}`);
});

const stems = existsSync(pairsDir)
  ? readdirSync(pairsDir).filter((f) => f.endsWith('.nohazard.s')).map((f) => f.replace(/\.nohazard\.s$/, '')).sort()
  : [];

const total = { positions: 0, found: 0, excepted: 0, oursWs: 0, llvmWs: 0, functions: 0, unloadable: 0 };

for (const stem of stems) {
  test(`llvm-hazards pairs: ${stem}`, async () => {
    const { arch, mcpu } = archOf(stem);
    const noPath = join(pairsDir, `${stem}.nohazard.s`);
    const withPath = join(pairsDir, `${stem}.withhazard.s`);
    const noText = readFileSync(noPath, 'utf8');
    const withText = readFileSync(withPath, 'utf8');
    const noFns = splitFunctions(noText);
    const withFns = splitFunctions(withText);
    assert.deepEqual(noFns.map((f) => f.name), withFns.map((f) => f.name), 'both files hold the same functions');
    const mcNo = await runLlvmMc(noPath, mcpu);
    const mcWith = await runLlvmMc(withPath, mcpu);
    assert.ok(!mcNo.crashed && !mcWith.crashed, 'llvm-mc ran');
    const rejected = (fns: typeof noFns, errs: { line: number }[]) =>
      new Set(fns.filter((f) => errs.some((e) => e.line > f.start && e.line <= f.end)).map((f) => f.name));
    const rejNo = rejected(noFns, mcNo.errors);
    const rejWith = rejected(withFns, mcWith.errors);

    const noLines = noText.split('\n');
    const withLines = withText.split('\n');
    const s = { positions: 0, found: 0, excepted: 0, oursWs: 0, llvmWs: 0, unloadable: 0 };
    const problems: string[] = [];
    for (let k = 0; k < noFns.length; k++) {
      const a = noFns[k]!;
      const b = withFns[k]!;
      let ca;
      let cb;
      try {
        ca = kernelContextsFromText(a.text, `${stem}.nohazard.s`, arch).find((c) => c.kernel.name === a.name);
        cb = kernelContextsFromText(b.text, `${stem}.withhazard.s`, arch).find((c) => c.kernel.name === b.name);
      } catch (e) {
        s.unloadable++;
        if (!rejNo.has(a.name) || !rejWith.has(b.name)) {
          problems.push(`${a.name}: we cannot load it but llvm-mc accepts it: ${String((e as Error).message).split('\n')[0]}`);
        }
        continue;
      }
      assert.ok(ca && cb, `function ${a.name} found`);
      // withhazard checks clean
      for (const f of checkHazards(cb)) {
        if (!findException(exc.pairs.isaStricter, stem, b.name, { rule: f.rule })) problems.push(`withhazard ${b.name}:${f.loc.line}: ${f.message}`);
      }
      // nohazard: every LLVM padding site is reported
      const A = instructionLines(noLines, a.start, a.end);
      const B = instructionLines(withLines, b.start, b.end);
      const { sites, other } = insertedNops(A, B);
      const fa = checkHazards(ca);
      if (other.length > 0) {
        if (!fa.some((f) => f.rule === 'shift64-high-reg')) problems.push(`${a.name}: LLVM rewrote (${other.join('; ')}) but no shift64-high-reg finding`);
      }
      const byLine = shortfallByLine(fa);
      for (const [line, n] of sites) {
        s.positions++;
        s.llvmWs += n;
        const o = byLine.get(line);
        s.oursWs += o?.d ?? 0;
        if (o && o.d >= n) { s.found++; continue; }
        const consumer = A.find((x) => x.line === line)!.text;
        if (findException(exc.pairs.llvmSpecific, stem, a.name, { consumer })) { s.excepted++; continue; }
        problems.push(`MISSED ${a.name} line ${line} (${consumer}): LLVM inserted ${n}, we report ${o ? `${o.d} (${o.f.message})` : 'nothing'}`);
      }
    }
    const checked = s.positions - s.excepted;
    const recall = checked === 0 ? 100 : (100 * s.found) / checked;
    console.log(`  ${stem} (${arch}): ${noFns.length} functions (${s.unloadable} rejected by llvm-mc and us), `
      + `${s.positions} LLVM padding positions, found ${s.found}, ${s.excepted} LLVM-specific (excepted), `
      + `recall ${recall.toFixed(1)}%, missing wait states ours ${s.oursWs} vs LLVM ${s.llvmWs}`);
    total.positions += s.positions; total.found += s.found; total.excepted += s.excepted;
    total.oursWs += s.oursWs; total.llvmWs += s.llvmWs; total.functions += noFns.length; total.unloadable += s.unloadable;
    assert.deepEqual(problems, [], `${problems.length} problem(s)`);
  });
}

test('llvm-hazards pairs: summary and stale exceptions', () => {
  const checked = total.positions - total.excepted;
  console.log(`  llvm-hazards: ${total.functions} functions (${total.unloadable} unloadable), ${total.positions} positions, `
    + `${total.found} found, ${total.excepted} excepted, recall ${(checked ? (100 * total.found) / checked : 100).toFixed(1)}%, `
    + `wait states ours ${total.oursWs} / LLVM ${total.llvmWs}`);
  const stale = [...exc.pairs.llvmSpecific, ...exc.pairs.isaStricter].filter((e) => !used.has(e));
  assert.deepEqual(stale.map((e) => `${e.file} ${e.function}`), [], 'every listed exception still occurs');
});
