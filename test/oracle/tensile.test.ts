/**
 * Tensile / hipBLASLt kernels (../shared/corpus/tensile): every file round-trips byte-exactly;
 * every file llvm-mc 22 accepts parses and resolves against its target with no error; a file
 * llvm-mc rejects is rejected by us at the same lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseProgram } from '../../src/asm/parser.js';
import { printProgram } from '../../src/asm/printer.js';
import { loadText } from '../../src/load.js';
import { InputErrors } from '../../src/errors.js';
import { analyzeLoaded } from '../../src/check/analyze.js';
import { corpusDir, runLlvmMc } from './llvm.js';

const dir = join(corpusDir(), 'tensile');
const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();

test('the Tensile corpus is present', () => {
  assert.ok(files.length >= 8, `expected at least 8 Tensile kernels in ${dir}, found ${files.length}`);
});

let totalInsns = 0;
for (const f of files) {
  test(`tensile: ${f.slice(0, 70)}`, async () => {
    const path = join(dir, f);
    const text = readFileSync(path, 'utf8');
    const p = parseProgram(text, path);
    assert.equal(printProgram(p), text, 'round trip is byte-identical');
    const target = p.declaredTarget?.name;
    assert.ok(target, 'file declares its target');
    const mc = await runLlvmMc(path, target!);
    assert.ok(!mc.crashed, `llvm-mc crashed on ${f}`);
    if (mc.ok) {
      const l = loadText(text, path);
      assert.equal(l.resolved.length, p.instructions.length);
      assert.equal(l.resolved.filter((r) => r.unknown).length, 0, 'every instruction resolved');
      totalInsns += p.instructions.length;
      const a = analyzeLoaded(l);
      if (p.instructions.length === 0) {
        assert.ok(p.rawWords > 0);
        assert.match(a.notes.join('\n'), /no decodable instructions/);
      } else {
        assert.ok(a.kernels.length >= 1 && a.kernels.some((k) => k.instructions > 0));
      }
    } else {
      const theirs = [...new Set(mc.errors.map((e) => e.line))].sort((a, b) => a - b);
      assert.ok(theirs.length > 0, 'llvm-mc reported error lines');
      let ours: number[] = [];
      try {
        loadText(text, path);
      } catch (e) {
        assert.ok(e instanceof InputErrors, String(e));
        ours = [...new Set(e.errors.map((x) => x.loc!.line))].sort((a, b) => a - b);
        console.log(`  ${f}: llvm-mc rejects lines ${theirs.join(', ')}; conductor: ${e.errors.map((x) => `${x.loc!.line}: ${x.message}`).join(' | ')}`);
      }
      assert.deepEqual(ours, theirs, 'rejected at the same lines as llvm-mc');
    }
  });
}

test('tensile summary', () => {
  console.log(`  tensile: ${files.length} files, ${totalInsns} instructions resolved in files llvm-mc accepts`);
});
