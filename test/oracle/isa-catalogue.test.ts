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
import type { InsnDesc, OpSpec } from '../../src/isa/types.js';
import { parseInstructionText } from '../../src/asm/instruction.js';
import { TARGETS, TARGET_NAMES } from '../../src/targets/index.js';
import type { Target } from '../../src/targets/types.js';
import { runLlvmMc } from './llvm.js';

function reg(prefix: string, base: number, width: number): string {
  return width <= 1 ? `${prefix}${base}` : `${prefix}[${base}:${base + width - 1}]`;
}

function sgprBase(width: number): number {
  return width >= 16 ? 16 : 8;
}

/** A sample operand for a spec (even-aligned, inside every target's register files). */
function sample(desc: InsnDesc, spec: OpSpec, target: Target): string {
  const w = Math.max(1, spec.width);
  const mfma = desc.cls === 'mfma';
  switch (spec.kind) {
    case 'v': return reg('v', spec.access === 'u' ? 2 : 16, w);
    case 'a': return reg('a', spec.access === 'u' ? 2 : 24, w); // not a16: the parser reads it as a modifier
    case 'va': return mfma && !target.has('gfx90a-insts') ? reg('a', 32, w) : reg('v', spec.access === 'u' ? 40 : 16, w);
    case 's': return reg('s', sgprBase(w), w);
    case 'src':
      if (spec.role === 'srcC') return target.has('gfx90a-insts') ? reg('v', 128, w) : reg('a', 128, w);
      return reg('v', spec.role === 'srcB' ? 80 : spec.role === 'src1' ? 4 : spec.role === 'src2' ? 8 : 2, w);
    case 'ssrc': return reg('s', 4, w);
    case 'vaddr':
      if (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf') return 'off';
      if (desc.encoding === 'global') return 'v[2:3]';
      return 'v2';
    case 'saddr': return 'off';
    case 'imm':
      if (desc.name.includes('mk_') || desc.name.includes('ak_')) return desc.name.endsWith('f16') ? '0x4120' : '0x41200000';
      return '0';
    case 'label': return 'L0';
    case 'func':
      if (desc.name.includes('reg')) return 'hwreg(HW_REG_MODE)';
      if (desc.name.includes('sendmsg')) return 'sendmsg(MSG_INTERRUPT)';
      return 'gpr_idx(SRC0)';
    case 'any':
      if (spec.role === 'waitcnt') return 'vmcnt(0)';
      if (spec.role === 'target') return 'mrt0';
      if (spec.role === 'attr') return 'attr0.x';
      if (spec.role === 'soff') return '0x10';
      return 'p10';
  }
}

/** Modifiers an instruction needs to be written at all (LDS-DMA forms, GWS, tbuffer). */
function modifiersFor(desc: InsnDesc): string {
  if (desc.name === 'buffer_store_lds_dword') return ' lds';
  if (desc.mem?.space === 'gws') return ' gds';
  if (desc.encoding === 'mtbuf') return ' format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]';
  return '';
}

export function sampleLine(desc: InsnDesc, target: Target): string {
  const ops = desc.ops.map((s) => sample(desc, s, target));
  return `${desc.name}${ops.length ? ' ' + ops.join(', ') : ''}${modifiersFor(desc)}`;
}

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
