/** setreg-getreg, setreg-setreg (2), setreg-trapsts-rfe (1), setreg-mode-vskip (2), setvskip-getreg-mode (2). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type Case } from './hazards-harness.js';
import { hwregId } from '../../src/hazards/rules/setreg.js';
import { parseProgram } from '../../src/asm/parser.js';

const CASES: Case[] = [
  { name: 's_setreg MODE then s_getreg MODE', arch: 'gfx906', rule: 'setreg-getreg', required: 2, actual: 0,
    asm: 's_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 4), s0\ns_getreg_b32 s1, hwreg(HW_REG_TRAPSTS)' },
  { name: 'numeric simm16 names the same register', arch: 'gfx942', rule: 'setreg-getreg', required: 2, actual: 1,
    asm: 's_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 4), s0\ns_nop 0\ns_getreg_b32 s1, 0xf803' },
  { name: 'different registers', arch: 'gfx906', rule: 'setreg-getreg',
    asm: 's_setreg_b32 hwreg(HW_REG_TRAPSTS, 0, 4), s0\ns_getreg_b32 s1, hwreg(HW_REG_HW_ID)' },
  { name: 's_setreg then s_setreg of the same register', arch: 'gfx90a', rule: 'setreg-setreg', required: 2, actual: 1,
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 1), 0\ns_nop 0\ns_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 1, 1), 0' },
  { name: 's_setreg TRAPSTS then s_rfe_b64', arch: 'gfx908', rule: 'setreg-trapsts-rfe', required: 1, actual: 0,
    asm: 's_setreg_b32 hwreg(HW_REG_TRAPSTS), s0\ns_rfe_b64 s[2:3]' },
  { name: 's_setreg MODE then a vector instruction', arch: 'gfx942', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3\nv_mov_b32 v0, 0' },
  { name: 's_setreg MODE then a load one wait state later', arch: 'gfx950', rule: 'setreg-mode-vskip', required: 2, actual: 1,
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3\ns_mov_b32 s0, 0\nglobal_load_dword v0, v[2:3], off' },
  { name: 'two non-vector instructions in between', arch: 'gfx906', rule: 'setreg-mode-vskip',
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3\ns_mov_b32 s0, 0\ns_mov_b32 s1, 0\nv_mov_b32 v0, 0' },
  { name: 'another register does not touch VSKIP', arch: 'gfx906', rule: 'setreg-mode-vskip',
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 0, 4), 3\nv_mov_b32 v0, 0' },
  { name: 's_setvskip then s_getreg MODE', arch: 'gfx906', rule: 'setvskip-getreg-mode', required: 2, actual: 0,
    asm: 's_setvskip s0, 0\ns_getreg_b32 s1, hwreg(HW_REG_MODE)' },
];

describe('hardware register hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
  it('decodes hwreg ids (symbolic, numeric, simm16)', () => {
    const p = parseProgram('s_getreg_b32 s0, hwreg(HW_REG_MODE)\ns_getreg_b32 s0, hwreg(3, 0, 1)\ns_getreg_b32 s0, 0x1804\n', 'x.s');
    assert.deepEqual(p.instructions.map((i) => hwregId(i)), [1, 3, 4]);
  });
});
