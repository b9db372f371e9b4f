/**
 * Oracle: the instruction catalogue against LLVM 22's assembler.
 *
 * For every catalogued mnemonic and every target, write one instruction with operands of the
 * kinds and widths the catalogue expects, assemble the lot with llvm-mc for that target, and
 * compare: an instruction the catalogue calls available must assemble (so its operand count,
 * register widths and availability gates are right), and one it calls unavailable must be
 * rejected. It also checks that our own resolver accepts each generated line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allInsns, catalogueSize } from '../../src/isa/catalogue.js';
import { resolveInstruction, unavailableReason } from '../../src/isa/resolve.js';
import { parseInstructionText } from '../../src/asm/instruction.js';
import { TARGETS, TARGET_NAMES } from '../../src/targets/index.js';
import { runLlvmMc } from './llvm.js';
import { sampleLine } from './isa-samples.js';

test('catalogue: every mnemonic assembles where available and is rejected elsewhere (llvm-mc 22)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-isa-'));
  const descs = [...allInsns()];
  assert.ok(catalogueSize() > 1000, `catalogue has ${catalogueSize()} entries`);
  const problems: string[] = [];
  for (const name of TARGET_NAMES) {
    const target = TARGETS[name];
    const lines = ['L0:'];
    for (const d of descs) lines.push(sampleLine(d, target));
    const file = join(dir, `${name}.s`);
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runLlvmMc(file, name);
    assert.ok(!r.crashed, `llvm-mc crashed on ${file}`);
    const rejected = new Map<number, string>();
    for (const e of r.errors) if (!rejected.has(e.line)) rejected.set(e.line, e.message);
    descs.forEach((d, i) => {
      const line = i + 2;
      const ours = unavailableReason(d, target);
      const theirs = rejected.get(line);
      if (ours === undefined && theirs !== undefined) problems.push(`${name}: ${lines[line - 1]} -- llvm-mc: ${theirs}`);
      if (ours !== undefined && theirs === undefined) problems.push(`${name}: ${lines[line - 1]} -- we say unavailable (${ours}), llvm-mc accepts it`);
      if (ours === undefined) {
        try {
          resolveInstruction(parseInstructionText(lines[line - 1]!, { file: 'sample', line, col: 1 }, () => undefined), target);
        } catch (e) {
          problems.push(`${name}: ${lines[line - 1]} -- our resolver: ${(e as Error).message}`);
        }
      }
    });
  }
  assert.deepEqual(problems.slice(0, Number(process.env['SHOW'] ?? 60)), [], `${problems.length} disagreements with llvm-mc`);
});
