/** Operand legality (constant bus, literals in VOP3, VOP3P modifiers, MFMA operands), as llvm-mc 22 judges them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import { resolveInstruction } from '../../../src/isa/resolve.js';
import { getTarget } from '../../../src/targets/index.js';
import type { LegalityIssue } from '../../../src/isa/legality.js';

const at = { file: 'l.s', line: 1, col: 1 };
function verdict(text: string, arch: string): string {
  try {
    resolveInstruction(parseInstructionText(text, at, () => undefined), getTarget(arch)!);
    return 'ok';
  } catch (e) {
    return (e as Error).message;
  }
}

const CASES: [string, string, RegExp | 'ok'][] = [
  ['v_add_f32_e64 v0, s1, s2', 'gfx906', /constant bus/],
  ['v_add_f32_e64 v0, s1, s1', 'gfx906', 'ok'],
  ['v_cndmask_b32_e64 v0, s1, v1, s[2:3]', 'gfx90a', /constant bus/],
  ['v_cndmask_b32_e64 v0, v1, v1, s[2:3]', 'gfx90a', 'ok'],
  ['v_cndmask_b32_e32 v0, s1, v1, vcc', 'gfx942', /constant bus/],
  ['v_add_u32_e32 v0, s1, v1', 'gfx942', 'ok'],
  ['v_add_u32_e32 v0, 0x1234, v1', 'gfx942', 'ok'],
  ['v_add_u32_e64 v0, m0, s1', 'gfx906', /constant bus/],
  ['v_writelane_b32 v1, s5, s2', 'gfx906', /constant bus/],
  ['v_writelane_b32 v1, s4, m0', 'gfx906', 'ok'],
  ['v_readlane_b32 s0, v1, s2', 'gfx906', 'ok'],
  ['v_lshlrev_b64 v[0:1], s0, s[2:3]', 'gfx90a', /constant bus/],
  ['v_fma_f32 v0, s1, v1, 0x1234', 'gfx906', /literal operands are not supported/],
  ['v_fma_f32 v0, v2, v1, 1.0', 'gfx906', 'ok'],
  ['v_fma_f32 v0, v2, v1, 0x3f800000', 'gfx906', 'ok'],
  ['v_fma_f32 v0, v2, v1, -16', 'gfx906', 'ok'],
  ['v_pk_add_f16 v0, -v1, v2', 'gfx90a', /not a valid operand/],
  ['v_dot2_f32_f16 v0, |v1|, v2, v3', 'gfx906', /not a valid operand/],
  ['v_mfma_f32_4x4x1f32 a[0:3], -v0, v1, a[0:3]', 'gfx908', /not a valid operand/],
  ['v_mfma_f32_4x4x1f32 a[0:3], s0, v1, a[0:3]', 'gfx90a', /srcA must be a VGPR or AGPR/],
  ['v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0', 'gfx908', /inline constants are not allowed/],
  ['v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0', 'gfx90a', 'ok'],
  ['v_accvgpr_write_b32 a0, s0', 'gfx908', /VGPR or an inline constant/],
  ['v_accvgpr_write_b32 a0, s0', 'gfx90a', 'ok'],
  ['v_accvgpr_write_b32 a0, a1', 'gfx90a', /invalid operand/],
  ['v_accvgpr_write_b32 a0, 65', 'gfx90a', /no literal/],
  ['v_accvgpr_write_b32 a0, 64', 'gfx90a', 'ok'],
  // op_sel outside VOP3P only where LLVM's profile has it (llvm-mc 22: "not a valid operand")
  ['v_cvt_pk_bf16_f32 v1, v2, v3 op_sel:[0,0,1]', 'gfx950', /takes no op_sel/],
  ['v_add_f16_e64 v1, v2, v3 op_sel:[0,0,0]', 'gfx906', /takes no op_sel/],
  ['v_add_u32_e64 v1, v2, v3 op_sel:[0,0,1]', 'gfx942', /takes no op_sel/],
  ['v_fma_f16 v1, v2, v3, v4 op_sel:[0,0,0,1]', 'gfx906', 'ok'],
  ['v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]', 'gfx942', 'ok'],
  ['v_cvt_scalef32_pk_fp4_f16 v1, v3, v2 op_sel:[0,0,0,1]', 'gfx950', 'ok'],
  ['v_pk_add_f16 v0, v1, v2 op_sel:[1,0]', 'gfx90a', 'ok'],
];

for (const [text, arch, want] of CASES) {
  test(`${arch}: ${text}`, () => {
    const v = verdict(text, arch);
    if (want === 'ok') assert.equal(v, 'ok');
    else assert.match(v, want);
  });
}

test('a register the target lacks is one finding, not also a second literal', () => {
  const issues: LegalityIssue[] = [];
  resolveInstruction(parseInstructionText('s_and_b32 s0, tma_hi, 0xffff', at, () => undefined), getTarget('gfx906')!, issues);
  assert.deepEqual(issues.map((x) => x.message), ['tma_hi register not available on gfx906']);
  const two: LegalityIssue[] = [];
  resolveInstruction(parseInstructionText('s_and_b32 s0, 0x1234, 0xffff', at, () => undefined), getTarget('gfx906')!, two);
  assert.match(two[0]!.message, /only one unique literal operand/);
});
