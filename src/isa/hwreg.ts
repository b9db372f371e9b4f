/**
 * Decoding the hardware-register operand of s_setreg_b32 / s_setreg_imm32_b32 / s_getreg_b32:
 * `hwreg(NAME_OR_ID[, offset[, size]])` or the raw simm16 (GFX9 encoding: simm16 = id |
 * offset << 6 | (size - 1) << 11).
 */
import type { Instruction } from '../asm/ast.js';

/**
 * Hardware register ids by symbolic name. Measured: oracle (LLVM 22.1.8): echo 's_getreg_b32 s0,
 * hwreg(NAME)' | llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=T -show-encoding, for T in
 * gfx906/gfx90a/gfx942/gfx950 (the XCC_ID and SQ_PERF_SNAPSHOT names exist on gfx942/gfx950 only).
 */
export const HWREG_IDS: Readonly<Record<string, number>> = {
  HW_REG_MODE: 1, HW_REG_STATUS: 2, HW_REG_TRAPSTS: 3, HW_REG_HW_ID: 4, HW_REG_GPR_ALLOC: 5,
  HW_REG_LDS_ALLOC: 6, HW_REG_IB_STS: 7, HW_REG_SH_MEM_BASES: 15, HW_REG_TBA_LO: 16, HW_REG_TBA_HI: 17,
  HW_REG_TMA_LO: 18, HW_REG_TMA_HI: 19, HW_REG_XCC_ID: 20, HW_REG_SQ_PERF_SNAPSHOT_DATA: 21,
  HW_REG_SQ_PERF_SNAPSHOT_DATA1: 22, HW_REG_SQ_PERF_SNAPSHOT_PC_LO: 23, HW_REG_SQ_PERF_SNAPSHOT_PC_HI: 24,
};

/** Id of the MODE register. */
export const HWREG_MODE = 1;

/** Bit field [offset, offset+size) an s_setreg writes, or undefined when it cannot be decided. */
export function hwregField(insn: Instruction): { offset: number; size: number } | undefined {
  for (const o of insn.operands) {
    if (o.kind === 'func' && o.name === 'hwreg') {
      const off = o.args[1] !== undefined ? Number(o.args[1].trim()) : 0;
      const size = o.args[2] !== undefined ? Number(o.args[2].trim()) : 32;
      return Number.isFinite(off) && Number.isFinite(size) ? { offset: off, size } : undefined;
    }
  }
  const n = insn.operands[0];
  if (n && n.kind === 'imm' && Number.isInteger(n.value)) return { offset: (n.value >> 6) & 0x1f, size: ((n.value >> 11) & 0x1f) + 1 };
  return undefined;
}

/** The hardware register id an s_setreg/s_getreg names, or undefined when it cannot be decided. */
export function hwregId(insn: Instruction): number | undefined {
  for (const o of insn.operands) {
    if (o.kind === 'func' && o.name === 'hwreg') {
      const a = (o.args[0] ?? '').trim();
      if (/^\d+$/.test(a) || /^0x[0-9a-f]+$/i.test(a)) return Number(a);
      return HWREG_IDS[a.toUpperCase()];
    }
  }
  // numeric simm16 form: s_getreg_b32 s0, 0x1801 / s_setreg_b32 0x1801, s0
  const n = insn.base === 's_getreg_b32' ? insn.operands[1] : insn.operands[0];
  if (n && n.kind === 'imm' && Number.isInteger(n.value)) return n.value & 0x3f;
  return undefined;
}
