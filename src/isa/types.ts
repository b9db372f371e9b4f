/**
 * The instruction catalogue's vocabulary: what kind of instruction a mnemonic is, which of its
 * operands are read and written, which registers it touches implicitly, which waitcnt counters
 * it increments, and which latency class it belongs to.
 *
 * Static facts live in an `InsnDesc` (one per mnemonic, built once, see catalogue.ts); what
 * depends on the operands as written (atomics with or without return, LDS-DMA, DPP/SDWA forms,
 * MFMA pass counts on the target) is settled by `resolveInstruction` (resolve.ts) and lands in
 * a `ResolvedInsn`.
 */
import type { Instruction } from '../asm/ast.js';
import type { Feature } from './target.js';
import type { RegUnit } from '../asm/registers.js';

/** The instruction's class, as the scheduler, the hazard rules and the waitcnt analysis see it. */
export type InsnClass =
  | 'salu'     // SOP1/SOP2/SOPK/SOPC scalar ALU
  | 'smem'     // scalar memory: s_load/s_store/s_atomic/s_buffer_*, s_memtime, s_dcache_*, s_atc_probe
  | 'valu'     // VOP1/VOP2/VOP3/VOPC/VOP3P (incl. DPP/SDWA forms, DOT, packed, v_readlane, v_accvgpr_*)
  | 'mfma'     // v_mfma_* / v_smfmac_* (VOP3P-MAI matrix ops)
  | 'vmem'     // MUBUF/MTBUF buffer_*, global_*, scratch_*
  | 'flat'     // flat_* (generic address: may reach LDS or memory)
  | 'ds'       // LDS/GDS/GWS
  | 'export'   // exp
  | 'branch'   // s_branch, s_cbranch_*, s_setpc/s_swappc/s_getpc, s_call, fork/join
  | 'barrier'  // s_barrier
  | 'waitcnt'  // s_waitcnt
  | 'nop'      // s_nop, v_nop, ds_nop
  | 'message'  // s_sendmsg, s_sendmsghalt, s_trap, s_ttracedata, s_sethalt, s_setkill, s_wakeup
  | 'endpgm'   // s_endpgm and its variants
  | 'other';   // s_setprio, s_sleep, s_setreg/getreg, cache invalidates, s_icache_inv, gpr_idx mode ...

/** Machine encoding family (VOP3 covers VOP3-only opcodes and the e64 forms of VOP1/2/C). */
export type Encoding =
  | 'sop1' | 'sop2' | 'sopk' | 'sopc' | 'sopp' | 'smem'
  | 'vop1' | 'vop2' | 'vopc' | 'vop3' | 'vop3p' | 'vintrp'
  | 'ds' | 'mubuf' | 'mtbuf' | 'flat' | 'global' | 'scratch' | 'exp';

/**
 * MFMA kinds (LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl) and GCNHazardRecognizer isXDL): XDL (on gfx908/gfx90a every non-DGEMM MFMA
 * counts as XDL), SGEMM (f32-input MFMAs on gfx942+), DGEMM (f64) and SMFMAC (sparse, XDL).
 */
export type MfmaKind = 'xdl' | 'sgemm' | 'dgemm' | 'smfmac';

export type MemSpace = 'global' | 'flat' | 'scratch' | 'buffer' | 'lds' | 'gds' | 'gws' | 'scalar';

/**
 * What a memory instruction does. 'load-lds' is LDS-DMA (a buffer/global/scratch load whose
 * data goes to LDS at M0 instead of VGPRs). 'atomic-rtn' returns the old value (glc / sc0).
 */
export type MemOp = 'load' | 'store' | 'atomic' | 'atomic-rtn' | 'load-lds' | 'store-lds' | 'cache' | 'time' | 'probe' | 'other';

/**
 * Events that increment the waitcnt counters, named after what they complete (LLVM's
 * SIInsertWaitcnts uses the same split). LLVM SIInsertWaitcnts::updateEventWaitcntAfter.
 */
export type WaitEvent =
  | 'vmem-load'     // buffer/global/scratch load or atomic with return: VGPRs written at completion (vmcnt)
  | 'vmem-store'    // buffer/global/scratch store, atomic without return, LDS-DMA (vmcnt; no separate vscnt on GFX9)
  | 'lds'           // DS LDS access (lgkmcnt, in order)
  | 'gds'           // DS with gds / GWS / ordered count (lgkmcnt + expcnt)
  | 'smem'          // scalar memory (lgkmcnt, out of order: only lgkmcnt(0) is safe)
  | 'flat'          // flat_* generic access (vmcnt and lgkmcnt; only a wait for 0 is safe)
  | 'message'       // s_sendmsg / s_sendmsghalt (lgkmcnt)
  | 'export';       // exp (expcnt)

export interface Counters {
  /** vmcnt increment. */
  vm: number;
  /** lgkmcnt increment (SMEM: ISA dword-pair rule, 1 for 1 dword and 2 for more). */
  lgkm: number;
  /** expcnt increment. */
  exp: number;
}

/** Latency class: a key into the target's latency table (numbers come from target data). */
export type LatencyClass =
  | 'salu' | 'smem' | 'valu' | 'valu_trans' | 'valu_dp' | 'valu_quarter' | 'valu_64' | 'valu_dot'
  | 'mfma' | 'ds' | 'vmem' | 'flat' | 'branch' | 'barrier' | 'waitcnt' | 'nop' | 'message' | 'export'
  | 'endpgm' | 'other';

/**
 * Operand roles. Vector ALU: vdst/sdst (results), src0..src2, carry-out/carry-in (VCC or an SGPR
 * pair), mask (v_cndmask's select), lane (readlane/writelane lane select). MFMA: srcA/srcB/srcC,
 * idx (SMFMAC sparsity index), scaleA/scaleB (gfx950 scaled MFMA). Memory: vdst (loaded data),
 * vdata (stored data / atomic operand), vaddr, saddr, srsrc, soffset, sbase, sdata, soff.
 * Scalar: sdst, ssrc0, ssrc1. Others: imm, label, hwreg, msg, target, attr, waitcnt.
 */
export type OperandRole =
  | 'vdst' | 'sdst' | 'src0' | 'src1' | 'src2' | 'carryOut' | 'carryIn' | 'mask' | 'lane'
  | 'srcA' | 'srcB' | 'srcC' | 'idx' | 'scaleA' | 'scaleB'
  | 'vaddr' | 'vdata' | 'vdata1' | 'saddr' | 'srsrc' | 'soffset' | 'sbase' | 'sdata' | 'soff'
  | 'ssrc0' | 'ssrc1'
  | 'imm' | 'label' | 'hwreg' | 'msg' | 'target' | 'attr' | 'waitcnt' | 'gpridx';

/** How an operand position is accessed: d = written, u = read, du = read and written (tied). */
export type Access = 'd' | 'u' | 'du';

/**
 * What may be written at an operand position.
 *   v   VGPR               a  AGPR               va  VGPR or AGPR (gfx90a+ memory data, MFMA C/D)
 *   s   SGPR-class register (SGPR, VCC, EXEC, M0, TTMP, flat_scratch ...)
 *   src vector ALU source: VGPR, AGPR where allowed, SGPR, constant or literal
 *   ssrc scalar source: SGPR or constant/literal
 *   vaddr VGPR or `off`   saddr SGPR or `off`
 *   imm  an immediate or expression    label a branch target    func hwreg()/sendmsg()/gpr_idx()
 *   any  anything (not checked)
 */
export type OperandKind = 'v' | 'a' | 'va' | 's' | 'src' | 'ssrc' | 'vaddr' | 'saddr' | 'imm' | 'label' | 'func' | 'any';

export interface OpSpec {
  role: OperandRole;
  access: Access;
  kind: OperandKind;
  /** Expected number of 32-bit units when a register is written here (0 = not checked). */
  width: number;
}

/** Static description of one mnemonic (without encoding suffix). */
export interface InsnDesc {
  /** Canonical mnemonic (without _e32/_e64/_sdwa/_dpp). */
  name: string;
  cls: InsnClass;
  encoding: Encoding;
  /** Explicit operands in assembly order. Optional trailing operands are marked by `minOperands`. */
  ops: readonly OpSpec[];
  /** Fewest operands that may be written (s_endpgm's immediate is optional). */
  minOperands: number;
  implicitDefs: readonly RegUnit[];
  implicitUses: readonly RegUnit[];
  counters: Counters;
  events: readonly WaitEvent[];
  latency: LatencyClass;
  /** All of these features are needed. */
  requires: readonly Feature[];
  /** The instruction was removed on targets that have any of these features. */
  removedBy: readonly Feature[];
  /**
   * Set for instructions of other GPU generations that none of the five targets has (the
   * GFX10+ s_waitcnt_vmcnt family, GFX8/GFX10 v_movrel*): the reason, for the error message.
   */
  never?: string;
  /** VALU details. */
  valu?: ValuDesc;
  mfma?: MfmaDesc;
  mem?: MemDesc;
  /** Encodings suffixes the mnemonic accepts (VOP1/2/C: e32, e64, sdwa, dpp; VOP3: e64). */
  suffixes: number;
  /** Where a fact that no family rule gives comes from. */
  note?: string;
}

/** Bits of InsnDesc.suffixes. */
export const SUFFIX = { e32: 1, e64: 2, sdwa: 4, dpp: 8 } as const;

export interface ValuDesc {
  /** Transcendental (LLVM GCNHazardRecognizer::checkVALUHazards; CDNA3 ISA Table 12). */
  trans: boolean;
  /** VOPC compare (writes VCC or an SGPR pair). */
  vopc: boolean;
  /** v_cmpx: also writes EXEC. */
  cmpx: boolean;
  /** Dot product (DL op). */
  dot: boolean;
  /** Reads the MODE register (floating point rounding/denormal state). */
  readsMode: boolean;
  /** Writes an SGPR as its result (v_readlane, v_readfirstlane, VOPC, carry-out). */
  writesSgpr: boolean;
  /** 16-bit result (op_sel / SDWA can place it in either half). */
  d16: boolean;
}

export interface MfmaDesc {
  /** Kind on gfx940+ (on gfx908/gfx90a non-DGEMM MFMAs count as XDL). */
  kind: MfmaKind;
  /** Output tile (4, 16 or 32) — the pass count depends on it and the element type. */
  m: number;
  /** Element type of A/B as in the mnemonic (f32, xf32, f16, bf16, bf16_1k, i8, fp8, f8f6f4, f64). */
  type: string;
  /** Legacy gfx908/gfx90a spelling (v_mfma_f32_32x32x8f16) or gfx940 spelling. */
  name940: string;
  /** gfx950 scaled form (v_mfma_scale_*): two extra scale operands. */
  scaled: boolean;
}

export interface MemDesc {
  space: MemSpace;
  op: MemOp;
  /** Data dwords moved per lane (loads/stores/atomics; 0 when none). */
  dwords: number;
  /** d16 loads write one half of the destination and keep the other: the destination is also read. */
  d16: boolean;
}

/** A resolved operand: the register units it names and how it is accessed. */
export interface ResolvedOperand {
  /** Position in Instruction.operands. */
  index: number;
  role: OperandRole;
  def: boolean;
  use: boolean;
  /** Register units (empty for immediates, labels, `off`, constants). */
  units: readonly RegUnit[];
}

/** Facts that depend on the instruction as written and on the target. */
export interface InsnInfo {
  desc: InsnDesc;
  cls: InsnClass;
  encoding: Encoding;
  /** The encoding variant used: e32, e64, sdwa or dpp for VALU; undefined otherwise. */
  variant?: 'e32' | 'e64' | 'sdwa' | 'dpp';
  mfma?: { kind: MfmaKind; passes: number; source: string };
  mem?: MemDesc;
  counters: Counters;
  events: readonly WaitEvent[];
  latency: LatencyClass;
}

export interface ResolvedInsn {
  insn: Instruction;
  info: InsnInfo;
  operands: readonly ResolvedOperand[];
  /** All units written (explicit + implicit), without duplicates. */
  defs: readonly RegUnit[];
  /** All units read (explicit + implicit), without duplicates. */
  uses: readonly RegUnit[];
  explicitDefs: readonly RegUnit[];
  explicitUses: readonly RegUnit[];
  implicitDefs: readonly RegUnit[];
  implicitUses: readonly RegUnit[];
  /** True when the instruction could not be resolved (see resolveProgram): effects are a guess. */
  unknown?: boolean;
}
