/**
 * Real kernels, read right: every Tensile / hipBLASLt kernel of ../shared/corpus/tensile and
 * every project build (build/kernels, made by buildKernels()) parses and prints back
 * byte-identically; where llvm-mc 22 assembles the file, every instruction resolves against the
 * file's target with no error of any kind (syntax, catalogue or operand legality); where
 * llvm-mc refuses it, we report errors on exactly the lines it names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseProgram } from '../../src/asm/parser.js';
import { printProgram } from '../../src/asm/printer.js';
import { loadText } from '../../src/load.js';
import { InputErrors } from '../../src/errors.js';
import { buildKernels } from '../../scripts/build-kernels.js';
import { corpusDir, runLlvmMc } from './llvm.js';

interface Input { label: string; path: string; target?: string }

const tensileDir = join(corpusDir(), 'tensile');
const tensile: Input[] = readdirSync(tensileDir).filter((f) => f.endsWith('.s')).sort()
  .map((f) => ({ label: `tensile/${f}`, path: join(tensileDir, f) }));

/** Lines with an error of ours: unreadable input (thrown) or operand legality (reported). */
function ourErrorLines(text: string, path: string, target: string | undefined): { lines: number[]; messages: string[] } {
  try {
    const l = loadText(text, path, { arch: target, operandErrors: 'report' });
    const unknown = l.resolved.filter((r) => r.unknown).length;
    assert.equal(unknown, 0, 'every instruction resolved');
    return { lines: [...new Set(l.operandErrors.map((d) => d.loc.line))].sort((a, b) => a - b), messages: l.operandErrors.map((d) => `${d.loc.line}: ${d.message} [${d.rule}]`) };
  } catch (e) {
    if (!(e instanceof InputErrors)) throw e;
    return { lines: [...new Set(e.errors.map((x) => x.loc!.line))].sort((a, b) => a - b), messages: e.errors.map((x) => `${x.loc!.line}: ${x.message}`) };
  }
}

const totals = { files: 0, assembled: 0, instructions: 0, rejected: 0 };

async function readRight(input: Input): Promise<void> {
  const text = readFileSync(input.path, 'utf8');
  const p = parseProgram(text, input.path);
  assert.equal(printProgram(p), text, 'round trip is byte-identical');
  const target = input.target ?? p.declaredTarget?.name;
  assert.ok(target, 'the file names its target');
  const mc = await runLlvmMc(input.path, target!, ['-filetype=null']);
  assert.ok(!mc.crashed, `llvm-mc crashed on ${input.label}`);
  const ours = ourErrorLines(text, input.path, input.target);
  totals.files++;
  if (mc.ok) {
    assert.deepEqual(ours.messages, [], 'llvm-mc assembles the file: no error of ours');
    totals.assembled++;
    totals.instructions += p.instructions.length;
  } else {
    const theirs = [...new Set(mc.errors.map((e) => e.line))].sort((a, b) => a - b);
    assert.ok(theirs.length > 0, 'llvm-mc reported error lines');
    console.log(`  ${input.label}: llvm-mc rejects lines ${theirs.join(', ')}; ours: ${ours.messages.join(' | ')}`);
    assert.deepEqual(ours.lines, theirs, 'errors at the lines llvm-mc names');
    totals.rejected++;
  }
}

test('the Tensile corpus is present', () => {
  assert.ok(tensile.length >= 8, `expected at least 8 Tensile kernels in ${tensileDir}, found ${tensile.length}`);
});

for (const input of tensile) test(`read right: ${input.label.slice(0, 80)}`, () => readRight(input));

test('read right: every project build (build/kernels)', async () => {
  const builds = await buildKernels();
  assert.ok(builds.length >= 100, `only ${builds.length} builds`);
  const failures: string[] = [];
  for (const b of builds) {
    try {
      await readRight({ label: `build/${basename(b.s)}`, path: b.s, target: b.target });
    } catch (e) {
      failures.push(`${basename(b.s)}: ${(e as Error).message.split('\n').slice(0, 6).join('\n')}`);
    }
  }
  assert.deepEqual(failures, [], failures.join('\n\n'));
});

test('read right: summary', () => {
  console.log(`  ${totals.files} files read; ${totals.assembled} assembled by llvm-mc, all ${totals.instructions} of their instructions resolved with no error; ${totals.rejected} refused by llvm-mc, refused by us at the same lines`);
});
