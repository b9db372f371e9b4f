/**
 * Where one kernel's vector registers sit: on targets with one register file for VGPRs and
 * AGPRs (gfx90a, gfx942, gfx950: `target.registers.unifiedVgprFile`), AGPR k is VGPR
 * accum_offset+k. AMD MI200 ISA, "What changed in MI200" and "Registers": one unified pool of up
 * to 512 registers per wave, architectural VGPRs first, accumulation VGPRs (AGPRs) after them;
 * LLVM AMDGPUUsage, "Code Object V3+ Kernel Descriptor": `.amdhsa_accum_offset` is the offset
 * of the first AGPR in the unified file (a multiple of 4 in [4, 256]) and
 * `.amdhsa_next_free_vgpr` counts both parts together.
 *
 * Register units (registers.ts) follow the hardware: every physical register is one unit, so a
 * VGPR written at or above accum_offset is the AGPR unit it aliases (v(accum_offset+k) is the
 * unit of a_k). AGPR units stay AGPR units, so code that names no VGPR above accum_offset (all
 * compiler output: LLVM places accum_offset above every VGPR it uses) has exactly the units it
 * names.
 *
 * A kernel without a descriptor (a snippet, a function) or without `.amdhsa_accum_offset` gets
 * an assumed accum_offset: the highest VGPR its code names, plus one, rounded up to the granule.
 * That is where LLVM puts the AGPRs (SIProgramInfo: accum_offset = alignTo(NumVGPRs, 4)), it is
 * the smallest offset at which no VGPR the code names aliases an AGPR, so no dependency is
 * invented for code that uses the two files apart, and every larger offset would alias nothing
 * either: only a kernel that really reuses AGPRs as VGPRs (which needs its descriptor to say
 * where) is read differently, and for it the note says what was assumed.
 */
import type { KernelSymbol, Program } from '../asm/ast.js';
import { ParsedProgram } from '../asm/program.js';
import { FILE_A, FILE_V, OP_REG } from '../asm/store.js';
import type { Target } from './target.js';
import { AGPR_BASE, VGPR_BASE, type RegUnit } from '../asm/registers.js';

export interface RegisterLayout {
  /** VGPRs and AGPRs share one file (target.registers.unifiedVgprFile). */
  unified: boolean;
  /** Unified file: the VGPR index of a0. Undefined on targets with separate files. */
  accumOffset?: number;
  /** Where accumOffset comes from. */
  accumFrom?: 'descriptor' | 'assumed';
  /** Highest VGPR / AGPR index the code names (explicit operands, as written) + 1. */
  namedVgprs: number;
  namedAgprs: number;
  /** Some VGPR the code names lies at or above accumOffset (the code reuses AGPR space as VGPRs). */
  reusesAgprs: boolean;
  /**
   * Vector registers the kernel has, as written: v0..v(vgprEnd-1) and a0..a(agprEnd-1) (from
   * .amdhsa_next_free_vgpr, else from what the code names). What an indexed operand may reach.
   */
  vgprEnd: number;
  agprEnd: number;
  /** Says what was assumed (undefined when nothing was). */
  note?: string;
}

function alignTo(n: number, granule: number): number {
  return Math.ceil(n / granule) * granule;
}

/** The layout of one kernel of a parsed program on a target. */
export function kernelLayout(program: Program, kernel: KernelSymbol, target: Target): RegisterLayout {
  let namedVgprs = 0;
  let namedAgprs = 0;
  if (program instanceof ParsedProgram) {
    const st = program.store;
    const [first, end] = program.kernelRange(kernel);
    for (let k = st.opBegin[first]!, e = st.opBegin[end]!; k < e; k++) {
      if (st.oKind[k] !== OP_REG) continue;
      const file = st.oFile[k];
      if (file === FILE_V) namedVgprs = Math.max(namedVgprs, st.oIndex[k]! + st.oCount[k]!);
      else if (file === FILE_A) namedAgprs = Math.max(namedAgprs, st.oIndex[k]! + st.oCount[k]!);
    }
  } else {
    for (let s = kernel.start; s < kernel.end; s++) {
      const insn = program.statements[s]!.insn;
      if (!insn) continue;
      for (const o of insn.operands) {
        if (o.kind !== 'reg') continue;
        if (o.file === 'v') namedVgprs = Math.max(namedVgprs, o.index + o.count);
        else if (o.file === 'a') namedAgprs = Math.max(namedAgprs, o.index + o.count);
      }
    }
  }
  const regs = target.registers;
  const values = kernel.descriptor?.values;
  const nextFree = values?.next_free_vgpr;
  const maxV = regs.maxVgprs.value;
  if (!regs.unifiedVgprFile.value) {
    // Separate files (gfx908: next_free_vgpr is max(VGPRs, AGPRs); gfx906: no AGPRs).
    return {
      unified: false, namedVgprs, namedAgprs, reusesAgprs: false,
      vgprEnd: Math.min(maxV, Math.max(namedVgprs, nextFree ?? 0)),
      agprEnd: Math.min(regs.maxAgprs.value, Math.max(namedAgprs, nextFree ?? 0)),
    };
  }
  const granule = regs.accumOffsetGranule?.value ?? 4;
  let accumOffset = values?.accum_offset;
  let accumFrom: RegisterLayout['accumFrom'] = 'descriptor';
  let note: string | undefined;
  if (accumOffset === undefined || !validAccumOffset(accumOffset, target)) {
    const why = !kernel.descriptor ? 'no kernel descriptor'
      : accumOffset === undefined ? '.amdhsa_accum_offset is missing'
        : `.amdhsa_accum_offset ${accumOffset} is not a multiple of ${granule} in [${granule}, ${maxV}]`;
    const given = accumOffset !== undefined;
    accumFrom = 'assumed';
    accumOffset = Math.min(maxV, alignTo(Math.max(namedVgprs, 1), granule));
    if (namedAgprs > 0 || given) {
      note = `${why}: accum_offset ${accumOffset} assumed (a0 is v${accumOffset}: the AGPRs follow the highest VGPR the code names, rounded up to ${granule}, as LLVM places them)`;
    }
  }
  const reusesAgprs = namedVgprs > accumOffset;
  // The physical registers the kernel holds: the descriptor's count, else what the code names.
  const physical = Math.max(nextFree ?? 0, reusesAgprs ? namedVgprs : 0, namedAgprs > 0 ? accumOffset + namedAgprs : namedVgprs);
  return {
    unified: true, accumOffset, accumFrom, namedVgprs, namedAgprs, reusesAgprs,
    vgprEnd: Math.min(maxV, Math.max(namedVgprs, physical)),
    agprEnd: Math.min(regs.maxAgprs.value, Math.max(namedAgprs, physical - accumOffset)),
    note,
  };
}

/** Is `n` an .amdhsa_accum_offset the target takes (a multiple of the granule in [granule, maxVgprs])? */
export function validAccumOffset(n: number, target: Target): boolean {
  const g = target.registers.accumOffsetGranule?.value ?? 4;
  return Number.isInteger(n) && n >= g && n <= target.registers.maxVgprs.value && n % g === 0;
}

/** The unit of VGPR index j in this layout (an AGPR unit at or above a unified file's accum_offset). */
export function vgprUnitIn(layout: RegisterLayout, j: number): RegUnit {
  return layout.unified && j >= layout.accumOffset! ? AGPR_BASE + j - layout.accumOffset! : VGPR_BASE + j;
}

/** Physical position in the vector file of a register written as v<j> or a<j> (for messages and the descriptor check). */
export function physicalIndex(layout: RegisterLayout, file: 'v' | 'a', j: number): number {
  return file === 'a' && layout.unified ? layout.accumOffset! + j : j;
}
