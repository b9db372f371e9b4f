/** setreg-getreg, setreg-setreg (2), setreg-trapsts-rfe (1), setreg-mode-vskip (2), setvskip-getreg-mode (2). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type Case } from '../harness.js';
import { hwregField, hwregId } from '../../../../src/hazards/rules/setreg.js';
import { MODE_FIELDS, MODE_VSKIP_BIT, modeFieldsIn } from '../../../../src/hazards/mode-register.js';
import { findings } from '../harness.js';
import { parseProgram } from '../../../../src/asm/parser.js';

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
  // MODE.VSKIP is bit 28: only a write whose bit field covers it is a producer.
  { name: 'a VSKIP write then a vector instruction', arch: 'gfx942', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1\nv_mov_b32 v0, 0' },
  { name: 'a VSKIP write then a load one wait state later', arch: 'gfx950', rule: 'setreg-mode-vskip', required: 2, actual: 1,
    asm: 's_setreg_b32 hwreg(HW_REG_MODE, 28, 1), s2\ns_mov_b32 s0, 0\nglobal_load_dword v0, v[2:3], off' },
  { name: 'two non-vector instructions in between', arch: 'gfx906', rule: 'setreg-mode-vskip',
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1\ns_mov_b32 s0, 0\ns_mov_b32 s1, 0\nv_mov_b32 v0, 0' },
  { name: 'the round bits (what compilers write) are not VSKIP', arch: 'gfx942', rule: 'setreg-mode-vskip',
    asm: 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3\nv_mov_b32 v0, 0' },
  { name: 'bits 0..27 end just below VSKIP', arch: 'gfx90a', rule: 'setreg-mode-vskip',
    asm: 's_setreg_b32 hwreg(HW_REG_MODE, 0, 28), s0\nv_mov_b32 v0, 0' },
  { name: 'bits 27..28 reach VSKIP', arch: 'gfx90a', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_b32 hwreg(HW_REG_MODE, 27, 2), s0\nv_mov_b32 v0, 0' },
  { name: 'bits 29..31 (CSP) start just above VSKIP', arch: 'gfx908', rule: 'setreg-mode-vskip',
    asm: 's_setreg_b32 hwreg(HW_REG_MODE, 29, 3), s0\nv_mov_b32 v0, 0' },
  { name: 'the whole register', arch: 'gfx906', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_b32 hwreg(HW_REG_MODE), s0\nv_mov_b32 v0, 0' },
  { name: 'numeric id 1 is MODE', arch: 'gfx950', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_b32 hwreg(1, 28, 1), s0\nv_mov_b32 v0, 0' },
  { name: 'raw simm16 0x701 = MODE bit 28', arch: 'gfx942', rule: 'setreg-mode-vskip', required: 2, actual: 0,
    asm: 's_setreg_b32 0x701, s0\nv_mov_b32 v0, 0' },
  { name: 'raw simm16 0x1801 = MODE bits 0..3', arch: 'gfx942', rule: 'setreg-mode-vskip',
    asm: 's_setreg_b32 0x1801, s0\nv_mov_b32 v0, 0' },
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
  it('decodes the bit field an s_setreg writes (symbolic, numeric, simm16)', () => {
    const p = parseProgram('s_setreg_b32 hwreg(HW_REG_MODE), s0\ns_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s0\n'
      + 's_setreg_b32 hwreg(1, 0x1c, 1), s0\ns_setreg_b32 0x701, s0\ns_setreg_imm32_b32 0x1801, 3\n', 'x.s');
    assert.deepEqual(p.instructions.map((i) => hwregField(i)),
      [{ offset: 0, size: 32 }, { offset: 4, size: 4 }, { offset: 28, size: 1 }, { offset: 28, size: 1 }, { offset: 0, size: 4 }]);
  });
  it('the MODE layout covers 32 bits once, VSKIP at bit 28', () => {
    const bits = new Array<number>(32).fill(0);
    for (const f of MODE_FIELDS) for (let b = f.lo; b <= f.hi; b++) bits[b]!++;
    assert.deepEqual(bits, new Array<number>(32).fill(1));
    assert.deepEqual(modeFieldsIn(MODE_VSKIP_BIT, 1).map((f) => f.name), ['VSKIP']);
    assert.deepEqual(modeFieldsIn(0, 8).map((f) => f.name), ['FP_ROUND', 'FP_DENORM']);
  });
  it('names the MODE bits the producer writes', () => {
    const fs = findings('gfx942', 's_setreg_b32 hwreg(HW_REG_MODE, 27, 2), s0\nv_mov_b32 v0, 0');
    assert.match(fs[0]!.message, /follows the write of MODE\.VSKIP by s_setreg_b32 at line \d+ \(MODE bits 27\.\.28 \(GPR_IDX_EN, VSKIP\)\)/);
  });
});
