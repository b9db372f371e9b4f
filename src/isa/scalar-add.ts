/**
 * A constant added to an SGPR, read from an instruction's operands: how loops step their scalar
 * counters (`s_add_i32 s4, s4, 8`, `s_sub_u32 s6, s6, 1`). The trip-count analysis
 * (cycles/kernel-time.ts), the pipeliner's loop counter (schedule/pipeline/plan.ts) and the index
 * ranges of kernel effects (kernel-effects.ts) read one parse of it.
 *
 * A constant operand is an integer literal or an integer inline constant. A float literal is not:
 * a scalar operand written `1.0` stands for the float's bits, 0x3f800000 (the SSRC encodings of
 * the AMD CDNA3 ISA guide: 242 is the inline constant 1.0; llvm-mc 22 encodes
 * `s_add_i32 s0, s0, 1.0` with it, and `3.0` as the literal 0x40400000), so the add does not add 1.
 */
import type { Instruction } from '../asm/ast.js';

/** SGPR n when operand k of `insn` is one SGPR (`s5`), else undefined. */
export function sgprOperand(insn: Instruction, k: number): number | undefined {
  const o = insn.operands[k];
  return o && o.kind === 'reg' && o.file === 's' && o.count === 1 ? o.first : undefined;
}

/** The value of operand k of `insn` when it is an integer constant (not a float literal), else undefined. */
export function intOperand(insn: Instruction, k: number): number | undefined {
  const o = insn.operands[k];
  return o && o.kind === 'imm' && !o.float && Number.isInteger(o.value) ? o.value : undefined;
}

/** A constant added to an SGPR: `dst = src + add` (a subtract's constant negated). */
export interface ConstantAdd { dst: number; src: number; add: number; sub: boolean }

/**
 * `s_add/s_sub_{i32,u32} d, s, c`, or `s_add_{i32,u32} d, c, s` (an add commutes, a subtract does
 * not), with d and s SGPRs and c a constant: d, s and what is added; undefined for any other
 * form (s_addk_i32, whose destination is also its source, included: callers that take it read
 * it themselves).
 */
export function constantAdd(insn: Instruction): ConstantAdd | undefined {
  const b = insn.base;
  const add = b === 's_add_i32' || b === 's_add_u32';
  if (!add && b !== 's_sub_i32' && b !== 's_sub_u32') return undefined;
  const dst = sgprOperand(insn, 0);
  const s1 = sgprOperand(insn, 1);
  const src = s1 ?? (add ? sgprOperand(insn, 2) : undefined);
  const x = s1 !== undefined ? intOperand(insn, 2) : intOperand(insn, 1);
  return dst === undefined || src === undefined || x === undefined ? undefined : { dst, src, add: add ? x : -x, sub: !add };
}
