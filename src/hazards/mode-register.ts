/**
 * The MODE hardware register (hwreg id 1, HW_REG_MODE) of the GFX9 targets (gfx906 through
 * gfx950): its bit fields, so that an `s_setreg` of MODE can be told apart by the bits it writes
 * (`hwreg(HW_REG_MODE, offset, size)` writes bits offset .. offset+size-1).
 *
 * Sources (both give the same positions):
 *   - AMD, "AMD Instinct MI200" Instruction Set Architecture Reference Guide (2021), chapter 3
 *     ("Kernel State"), section "Mode Register", table "Mode Register Fields";
 *   - LLVM, llvm/lib/Target/AMDGPU/SIDefines.h, namespace Hwreg, enum ModeRegisterMasks
 *     (FP_ROUND_MASK, FP_DENORM_MASK, DX10_CLAMP_MASK, IEEE_MODE_MASK, LOD_CLAMP_MASK, DEBUG_MASK,
 *     EXCP_EN_*_MASK, GPR_IDX_EN_MASK = 1 << 27, VSKIP_MASK = 1 << 28, CSP_MASK = 7 << 29), used
 *     for every GFX9 target.
 * Bits 21..26 hold further fields (FP16 overflow clamp, POPS packer, performance-counter
 * disable) whose exact positions these sources do not give; they are one range here.
 */

export interface ModeField {
  name: string;
  /** Lowest and highest bit (inclusive). */
  lo: number;
  hi: number;
  what: string;
}

export const MODE_SOURCE = 'AMD Instinct MI200 ISA Reference Guide, chapter 3, table "Mode Register Fields"; LLVM SIDefines.h (Hwreg::ModeRegisterMasks)';

export const MODE_FIELDS: readonly ModeField[] = [
  { name: 'FP_ROUND', lo: 0, hi: 3, what: 'rounding modes (1:0 single precision, 3:2 double and half precision)' },
  { name: 'FP_DENORM', lo: 4, hi: 7, what: 'denormal modes (5:4 single precision, 7:6 double and half precision)' },
  { name: 'DX10_CLAMP', lo: 8, hi: 8, what: 'DX10 NaN clamping' },
  { name: 'IEEE', lo: 9, hi: 9, what: 'IEEE-754-2008 NaN handling' },
  { name: 'LOD_CLAMPED', lo: 10, hi: 10, what: 'sticky LOD-clamped flag' },
  { name: 'DEBUG', lo: 11, hi: 11, what: 'debug mode' },
  { name: 'EXCP_EN', lo: 12, hi: 20, what: 'exception enables' },
  { name: 'OTHER', lo: 21, hi: 26, what: 'FP16 overflow clamp, POPS packer, performance-counter disable' },
  { name: 'GPR_IDX_EN', lo: 27, hi: 27, what: 'VGPR indexing enabled' },
  { name: 'VSKIP', lo: 28, hi: 28, what: 'skip every vector instruction' },
  { name: 'CSP', lo: 29, hi: 31, what: 'conditional branch stack pointer' },
];

/** Bit position of MODE.VSKIP. */
export const MODE_VSKIP_BIT = 28;

/** The MODE fields that the bit range [offset, offset+size) touches. */
export function modeFieldsIn(offset: number, size: number): ModeField[] {
  const hi = offset + size - 1;
  return MODE_FIELDS.filter((f) => f.lo <= hi && f.hi >= offset);
}
