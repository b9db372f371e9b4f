/**
 * Cycle-model parameters per target: issue costs, pipe occupancies, result latencies and the
 * MFMA dependency wait states the cycle model (src/cycles) uses. Every number is data with its
 * source: a public document with its section (targets/common.ts REF), an oracle measurement (llvm-mca 22,
 * whose AMDGPU scheduling model counts in issue slots of 4 cycles: VALU 1, trans 4, SMEM/LDS 5,
 * VMEM 80, MFMA passes + 4), or "estimate" with the reasoning. Where references disagree the
 * note says so and why the value was chosen.
 *
 * The table is flat: one key per number ("vmem.latency", "mfma.xdl.srcAB.16"), so that a
 * calibration file (`--latency-file F`, JSON) can override any of them by name, and so that
 * per-instruction overrides ("insn.v_exp_f32.latency") fit the same scheme. Units are clock
 * cycles unless the key ends in `.ws` or sits under `mfma.` (wait states: one wait state is one
 * issue slot of `slot` cycles, LLVM SIInstrInfo::getNumWaitStates; one MFMA pass is `mfma.pass`
 * cycles, LLVM SISchedule.td).
 */
import { generationOf, type Sourced, type Target, type TargetName } from '../isa/target.js';
import { TARGETS } from './index.js';
import { ConductorError } from '../errors.js';
import { REF } from './common.js';

export const MFMA_PASS_COUNTS = [2, 4, 8, 16] as const;
export const MFMA_TABLE_KINDS = ['xdl', 'sgemm', 'dgemm'] as const;
/** srcCSame: SrcC is exactly the producer's vDst (same first register, size and passes). */
export const MFMA_CONSUMERS = ['srcCSame', 'srcC', 'srcAB', 'valu', 'mem'] as const;
export type MfmaTableKind = (typeof MFMA_TABLE_KINDS)[number];
export type MfmaConsumer = (typeof MFMA_CONSUMERS)[number];

/** Every scalar parameter key with its meaning (the MFMA table keys are generated below). */
export const PARAM_DOCS = {
  'slot': 'cycles of one issue slot: a wave64 instruction on a SIMD16 (also one wait state and one s_nop count)',
  'salu': 'SALU issue and result latency',
  'issue.twoDword': 'extra issue cycles of a 2-dword instruction (VOP3/VOP3P/SDWA/DPP, memory, SMEM, or a 32-bit literal)',
  'salu.long': 'issue of s_*_saveexec_b64 and s_setreg*: the wave\'s next issue waits this long',
  'smem.issue.x4': 'scalar-memory pipe occupancy for up to 4 dwords',
  'smem.issue.x8': 'scalar-memory pipe occupancy for 8 dwords',
  'smem.issue.x16': 'scalar-memory pipe occupancy for 16 dwords',
  'smem.latency': 'scalar-memory completion (lgkmcnt decrement, SGPRs written), from issue',
  'valu': 'full-rate VALU pipe occupancy and result latency',
  'valu.trans': 'transcendental VALU pipe occupancy (v_exp/log/rcp/rsq/sqrt/sin/cos f32/f16)',
  'valu.trans.latency': 'transcendental VALU result latency',
  'valu.quarter': 'quarter-rate integer VALU (v_mul_lo/hi_u32, v_mad_u64_u32 ...) occupancy and latency',
  'valu.64': '64-bit integer shifts/moves (v_lshlrev_b64, v_mov_b64, v_pk_mov_b32 ...) occupancy and latency',
  'valu.dpFactor': 'DPFACTOR: multiplies the FP64 base cycles (1: half-rate FP64, 0.5: full rate)',
  'valu.dp.fast': 'FP64 base cycles at DPFACTOR 1 for add/min/max/cvt/ldexp/frexp...',
  'valu.dp.slow': 'FP64 base cycles at DPFACTOR 1 for fma/mul/rcp/rsq/sqrt/div_fmas/trig_preop',
  'valu.dot': 'DOT (v_dot*) pipe occupancy',
  'valu.dot.ws': 'wait states before another opcode (or a SrcA/B read) may use a DOT result',
  'valu.toMfma.ws': 'wait states between a VALU write of a VGPR and an MFMA reading it',
  'valu.sgprToSalu': 'cycles from a VALU writing an SGPR (VCC, readlane, carry-out) to a scalar instruction reading it',
  'valu.sgprToVmem.ws': 'wait states between a VALU writing an SGPR and a VMEM instruction reading it',
  'valu.sgprToValu.ws': 'wait states between a VALU writing an SGPR and a VALU reading it as an explicit operand',
  'valu.transToValu.ws': 'wait states between a transcendental VALU and a non-transcendental VALU reading its result',
  'mfma.pass': 'cycles per MFMA pass',
  'mfma.issue': 'VALU issue-port occupancy of an MFMA (the matrix pipe stays busy passes x mfma.pass)',
  'vmem.issue.load.x1': 'vector-memory pipe occupancy of a 1-dword load',
  'vmem.issue.load.x2': 'vector-memory pipe occupancy of a 2-dword load',
  'vmem.issue.load.x4': 'vector-memory pipe occupancy of a 3- or 4-dword load',
  'vmem.issue.store': 'vector-memory pipe occupancy of a store',
  'vmem.issue.atomic': 'vector-memory pipe occupancy of an atomic',
  'vmem.issue.cmpswap': 'vector-memory pipe occupancy of a compare-swap atomic',
  'vmem.latency': 'vector-memory load completion (vmcnt decrement, VGPRs written), from issue',
  'vmem.store.latency': 'vector-memory store completion (vmcnt decrement), from issue',
  'flat.latency': 'flat_* completion (vmcnt and lgkmcnt), from issue',
  'ds.read.x1': 'LDS pipe occupancy of a 1-dword read (b32, u8, i16 ...)',
  'ds.read.x2': 'LDS pipe occupancy of a 2-dword read (b64, read2_b32)',
  'ds.read.x4': 'LDS pipe occupancy of a 3- or 4-dword read (b96, b128, read2_b64)',
  'ds.write.x1': 'LDS pipe occupancy of a 1-dword write',
  'ds.write.x2': 'LDS pipe occupancy of a 2-dword write (b64, write2_b32)',
  'ds.write.x3': 'LDS pipe occupancy of a 3-dword write',
  'ds.write.x4': 'LDS pipe occupancy of a 4-dword write (b128, write2_b64)',
  'ds.atomic.x1': 'LDS pipe occupancy of a 32-bit atomic',
  'ds.atomic.x2': 'LDS pipe occupancy of a 64-bit atomic',
  'ds.other': 'LDS pipe occupancy of swizzle/permute/append/consume/nop',
  'ds.latency': 'LDS completion (lgkmcnt decrement, VGPRs written), from issue',
  'branch': 'branch issue when not taken',
  'branch.taken': 'a taken branch: cycles until the wave issues at the target',
  'branch.afterWrite': 'extra cycles when a conditional branch tests SCC/VCC/EXEC written by the instruction right before it',
  'barrier': 's_barrier when every wave arrives together: cycles until the wave issues again',
  'message.latency': 's_sendmsg completion (lgkmcnt), from issue',
  'export.latency': 'exp / GDS completion (expcnt), from issue',
  'sleep.unit': 'cycles per unit of s_sleep',
} as const;

export type ScalarParamKey = keyof typeof PARAM_DOCS;
/** `mfma.<kind>.<consumer>.<passes>`: wait states (see MFMA_CONSUMERS). */
export type MfmaParamKey = `mfma.${MfmaTableKind}.${MfmaConsumer}.${(typeof MFMA_PASS_COUNTS)[number]}`;
export type ParamKey = ScalarParamKey | MfmaParamKey;

/** Per-instruction calibration: `insn.<mnemonic>.<field>`. */
export const INSN_FIELDS = ['latency', 'occupancy', 'issue'] as const;
export type InsnField = (typeof INSN_FIELDS)[number];

export interface CycleParams {
  target: TargetName;
  values: Record<ParamKey, Sourced<number>>;
  /** Per-mnemonic overrides (mnemonic without encoding suffix). */
  insn: Record<string, Partial<Record<InsnField, Sourced<number>>>>;
}

export function mfmaParamKey(kind: MfmaTableKind, consumer: MfmaConsumer, passes: number): MfmaParamKey {
  return `mfma.${kind}.${consumer}.${passes}` as MfmaParamKey;
}

export function allParamKeys(): ParamKey[] {
  const out: ParamKey[] = Object.keys(PARAM_DOCS) as ScalarParamKey[];
  for (const k of MFMA_TABLE_KINDS) for (const c of MFMA_CONSUMERS) for (const n of MFMA_PASS_COUNTS) out.push(mfmaParamKey(k, c, n));
  return out;
}

export function paramDoc(key: string): string | undefined {
  if (key in PARAM_DOCS) return PARAM_DOCS[key as ScalarParamKey];
  const m = /^mfma\.(xdl|sgemm|dgemm)\.(srcCSame|srcC|srcAB|valu|mem)\.(2|4|8|16)$/.exec(key);
  if (!m) return undefined;
  const what: Record<string, string> = {
    srcCSame: 'an MFMA reading it as SrcC exactly (same registers and passes: accumulation chain)',
    srcC: 'an MFMA reading it as SrcC with a partial overlap',
    srcAB: 'an MFMA reading it as SrcA/SrcB (or the SMFMAC index)',
    valu: 'a VALU reading or overwriting it',
    mem: 'a VMEM/LDS/FLAT/export instruction reading it',
  };
  return `wait states after a ${m[3]}-pass ${m[1]!.toUpperCase()} MFMA write before ${what[m[2]!]}`;
}

// ------------------------------------------------------------------------------------------------
// Sources

const GCN = REF.gcnTimings;
const C3 = REF.cdna3;
const C4 = REF.cdna4Notes;
const MCA = 'oracle: llvm-mca-22 -mtriple=amdgcn-amd-amdhsa (LLVM 22.1.8), instruction-info latency';

const s = (value: number, source: string, note?: string): Sourced<number> => (note ? { value, source, note } : { value, source });

type Table = Record<ParamKey, Sourced<number>>;

function common(target: Target): Omit<Table, MfmaParamKey> {
  const t = target.name;
  const gen = generationOf(target);
  const cdna3plus = target.has('gfx940-insts');
  const dpFull = target.has('gfx90a-insts');
  const hasDotHazard = target.has('gfx90a-insts');
  const LLVM_SLOT = 'llvm-mca counts in issue slots; x4 cycles';
  return {
    'slot': s(4, `${GCN} "Preliminary explanations" (almost all instructions take 4 cycles); LLVM SIInstrInfo::getNumWaitStates (one instruction = one wait state); ${REF.hipHardware} (four SIMD16 units, wave64)`),
    'salu': s(4, `${GCN} "SOP2/SOPK/SOP1/SOPC Instruction timings" (4 cycles); ${MCA}: s_add_u32 1 slot`),
    'issue.twoDword': s(0, `estimate: 0. ${GCN} "Preliminary explanations" and "Instruction alignment": a 2-dword instruction "can require" 4 extra cycles depending on where it falls in a 32-byte fetch block (stated for GCN 1.0/1.1)`,
      'the model does not track code addresses, so no penalty is charged by default; set 4 to charge every 2-dword instruction (an upper bound of the reference rule)'),
    'salu.long': s(8, `${GCN} "SOP1" (S_*_SAVEEXEC_B64 8 cycles) and "SOPK" (S_SETREG_B32 8 cycles)`),
    'smem.issue.x4': s(4, `${GCN} "SMRD Instruction timings" (S_LOAD_DWORD..X4 4 cycles)`),
    'smem.issue.x8': s(8, `${GCN} "SMRD Instruction timings" (S_LOAD_DWORDX8 8 cycles)`),
    'smem.issue.x16': s(16, `${GCN} "SMRD Instruction timings" (S_LOAD_DWORDX16 16-24 cycles)`,
      'the table gives a range 16-24; the lower end is used (a cache hit)'),
    'smem.latency': s(20, `${MCA}: s_load_* 5 slots (${LLVM_SLOT})`,
      `${C4} say only "variable"; LLVM's figure stands for a scalar-cache hit`),
    'valu': s(4, `${GCN} "VOP2 Instruction timings" (4 cycles, 1 per cycle); ${MCA}: 1 slot`,
      `conversions (v_cvt_f32_f16, v_cvt_f16_f32, v_cvt_f32_i32, v_cvt_pk_fp8_f32 ...) are timed as any VALU: ${GCN} "VOP1" gives them 4 cycles, ` +
      `while LLVM's WriteFloatCvt class (SISchedule.td) gives them 4 slots (16 cycles); the sources disagree and the written timing table is used`),
    'valu.trans': cdna3plus
      ? s(8, `${C4} (transcendental 2 vs VALU 1, in issue slots)`,
        `estimate for the pipe occupancy: ${C4} give only the latency ratio and the model assumes throughput = latency; ` +
        `${GCN} (GCN) gives 16 cycles and ${MCA} 4 slots (16 cycles); ${gen === 'cdna3' ? 'the CDNA4 figure is assumed for CDNA3 (no CDNA3 timing reference)' : 'the CDNA4 notes are this target\'s own figures'}; ` +
        `the f64 transcendentals (v_rcp_f64, v_rsq_f64, v_sqrt_f64) are timed alike, where LLVM's WriteTrans64 also says 4 slots`)
      : s(16, `${GCN} "VOP1 Instruction timings" (V_EXP_F32, V_RCP_F32 ... 16 cycles); ${MCA}: 4 slots`),
    'valu.trans.latency': cdna3plus
      ? s(8, `${C4} (2 slots); ${C3} §4.5 Table 11 case 21 (one extra wait state before a non-trans consumer: 4 + 4)`,
        `${MCA} says 4 slots (16 cycles); the two ISA-side references agree on 8`)
      : s(16, `${GCN} "VOP1 Instruction timings" (16 cycles); ${MCA}: 4 slots`),
    'valu.quarter': s(16, `${GCN} "VOP3 Instruction timings" (V_MUL_LO_U32, V_MUL_HI_U32, V_MAD_U64_U32 16 cycles)`,
      dpFull ? `${MCA} models these at 1 slot on ${t} (the DP-full-speed model); the GCN table is the only written reference and is kept` : undefined),
    'valu.64': dpFull
      ? s(4, `${MCA}: v_lshlrev_b64 1 slot on ${t}`, `${GCN} "VOP3" gives DPFACTOR*4 (4 at full-rate FP64): the two agree`)
      : s(8, `${MCA}: v_lshlrev_b64 2 slots on ${t}`, `${GCN} "VOP3" gives V_LSHL_B64 DPFACTOR*4 = 4 at DPFACTOR 1: the sources disagree; the slower is used`),
    'valu.dpFactor': gen === 'gcn5'
      ? s(1, `AMD's MI50/MI60 launch release of 6 Nov 2018 (FP64 peak is half of FP32: 6.7 vs 13.4 TFLOPS) with ${GCN} "DPFACTOR" table (1 = 1/2 DP speed)`,
        `LLVM schedules gfx906 with SIQuarterSpeedModel (LLVM AMDGPU.td / GCNSubtarget.h feature predicates) and ${MCA} gives v_fma_f64 8 slots: the sources disagree; the product figure is used`)
      : gen === 'cdna1'
        ? s(1, 'estimate: CDNA1 keeps the GCN5 FP64 datapath of gfx906 (half rate)',
          `no reference gives the MI100 FP64 rate; LLVM uses SIQuarterSpeedModel (LLVM AMDGPU.td / GCNSubtarget.h feature predicates; ${MCA}: v_fma_f64 8 slots)`)
        : s(0.5, `LLVM AMDGPU.td / GCNSubtarget.h feature predicates (sched model ${gen === 'cdna2' ? 'SIDPFullSpeedModel' : gen === 'cdna3' ? 'SIDPGFX942FullSpeedModel' : 'SIDPGFX950FullSpeedModel'}: FP64 at full rate); ${MCA}: v_fma_f64 1 slot`),
    'valu.dp.fast': s(4, `${GCN} "VOP1"/"VOP3" (V_ADD_F64, V_CVT_*_F64, V_LDEXP_F64 ... DPFACTOR*4)`),
    'valu.dp.slow': s(8, `${GCN} "VOP1"/"VOP3" (V_FMA_F64, V_MUL_F64, V_RCP_F64, V_DIV_FMAS_F64 ... DPFACTOR*8)`),
    'valu.dot': s(4, `${MCA}: v_dot2_f32_f16 1 slot`),
    'valu.dot.ws': hasDotHazard
      ? s(3, `LLVM GCNHazardRecognizer::checkMAIVALUHazards (DOT write -> other opcode or SrcA/B: 3); ${C3} §7.5 Table 37 case 101`)
      : s(0, `LLVM GCNHazardRecognizer::checkMAIVALUHazards (the DOT rule applies to gfx90a/942/950 only)`),
    'valu.toMfma.ws': !target.has('mai')
      ? s(0, 'no MFMA on gfx906')
      : s(2, `LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAIHazards90A (VALU writes VGPR -> MFMA reads it: 2); ${C3} §7.5 Table 37 case 100`),
    'valu.sgprToSalu': s(16, `${GCN} "Instruction scheduling" (16-cycle delay between V_ADD*/V_READLANE/V_READFIRSTLANE and a scalar instruction)`,
      'stated for GCN; assumed for every GFX9 target (hidden when other waves run)'),
    'valu.sgprToVmem.ws': s(5, `LLVM GCNHazardRecognizer::checkVMEMHazards; ${C3} §4.5 Table 11 case 10; ${REF.mi200} §4.5 Table 9`),
    'valu.sgprToValu.ws': cdna3plus
      ? s(2, `LLVM GCNHazardRecognizer::checkVALUHazards (hasVDecCoExecHazard); ${C3} §4.5 Table 11 case 18`)
      : s(0, `LLVM GCNHazardRecognizer::checkVALUHazards (gfx942/950 only)`),
    'valu.transToValu.ws': cdna3plus
      ? s(1, `LLVM GCNHazardRecognizer::checkVALUHazards; ${C3} §4.5 Table 11 case 21`)
      : s(0, `LLVM GCNHazardRecognizer::checkVALUHazards (gfx942/950 only)`),
    'mfma.pass': s(4, `LLVM SISchedule.td (MFMA latency = 4 cycles per pass); ${C3} §7.5 ("PASS 4 clock cycles")`),
    'mfma.issue': s(4, `LLVM SIInstrInfo::getNumWaitStates (an MFMA is one instruction, one wait state); ${REF.cdna3} §7.5 ("Dependency Resolution: Required Independent Instructions": independent instructions fill the wait after an MFMA)`),
    'vmem.issue.load.x1': s(8, `${GCN} "MUBUF Instruction timings" (BUFFER_LOAD_DWORD 8)`, 'GCN table, assumed for every GFX9 target; applied to global_/scratch_ too'),
    'vmem.issue.load.x2': s(16, `${GCN} "MUBUF Instruction timings" (BUFFER_LOAD_DWORDX2 18, FORMAT_XY 18?)`,
      'the table gives 18 for x2 but 16 for x3/x4; read as a measurement artefact, 16 is used'),
    'vmem.issue.load.x4': s(16, `${GCN} "MUBUF Instruction timings" (BUFFER_LOAD_DWORDX3/X4 16)`),
    'vmem.issue.store': s(16, `${GCN} "MUBUF Instruction timings" (BUFFER_STORE_* 16)`),
    'vmem.issue.atomic': s(16, `${GCN} "MUBUF Instruction timings" (BUFFER_ATOMIC_* 16+GLC)`),
    'vmem.issue.cmpswap': s(32, `${GCN} "MUBUF Instruction timings" (BUFFER_ATOMIC_CMPSWAP 32)`),
    'vmem.latency': s(320, `${MCA}: global_load_*/buffer_load_* 80 slots (${LLVM_SLOT})`,
      `${C4} say ~100 cycles for a global load; LLVM's figure is kept for every target (consistent across targets; calibrate with --latency-file)`),
    'vmem.store.latency': s(320, `${MCA}: global_store_* 80 slots`),
    'flat.latency': s(320, `${MCA}: flat_load_* 80 slots`),
    'ds.read.x1': s(4, `${GCN} "DS Instruction timings" (DS_READ_B32 4)`),
    'ds.read.x2': s(8, `${GCN} "DS Instruction timings" (DS_READ_B64 8, DS_READ2_B32 8)`),
    'ds.read.x4': s(16, `${GCN} "DS Instruction timings" (DS_READ_B96/B128 16, DS_READ2_B64 16)`),
    'ds.write.x1': s(8, `${GCN} "DS Instruction timings" (DS_WRITE_B32 8)`),
    'ds.write.x2': s(12, `${GCN} "DS Instruction timings" (DS_WRITE_B64 12, DS_WRITE2_B32 12)`),
    'ds.write.x3': s(16, `${GCN} "DS Instruction timings" (DS_WRITE_B96 16)`),
    'ds.write.x4': s(20, `${GCN} "DS Instruction timings" (DS_WRITE_B128 20, DS_WRITE2_B64 20)`),
    'ds.atomic.x1': s(8, `${GCN} "DS Instruction timings" (DS_ADD_U32 ... 8)`),
    'ds.atomic.x2': s(12, `${GCN} "DS Instruction timings" (DS_ADD_U64 ... 12)`),
    'ds.other': s(4, `${GCN} "DS Instruction timings" (DS_SWIZZLE_B32, DS_APPEND, DS_NOP 4)`),
    'ds.latency': s(20, `${C4} (LDS read/write ~20); ${MCA}: ds_* 5 slots (20 cycles)`,
      'both sources agree; bank conflicts (up to 64 cycles, ' + C4 + ') are not modelled'),
    'branch': s(4, `${GCN} "SOPP Instruction timings" (jumps cost 4 when not taken)`, `${MCA} gives 8 slots whether taken or not`),
    'branch.taken': s(20, `${GCN} "SOPP Instruction timings" (20 cycles "(???)" when taken)`,
      `the reference marks the figure as uncertain; ${MCA} gives 8 slots (32 cycles)`),
    'branch.afterWrite': s(4, `${GCN} "Instruction scheduling" (a conditional jump right after the instruction that changed SCC/VCC/EXEC: one 4-cycle penalty)`),
    'barrier': s(16, 'estimate: with every wave arriving together the barrier costs its round trip through the sequencer, a few issue slots; no reference gives a figure',
      `${MCA} uses 500 slots, a placeholder for waiting on other waves`),
    'message.latency': s(20, 'estimate: s_sendmsg decrements lgkmcnt once the message leaves; taken equal to smem.latency (no reference gives a figure)'),
    'export.latency': s(16, 'estimate: expcnt drops once the VGPRs are read out (4 slots); no reference gives a figure'),
    'sleep.unit': s(64, 'estimate: the ISA describes s_sleep as about 64 clocks per unit; that text is not among the local references'),
  };
}

/** The MFMA wait-state table (LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAILdStHazards, CDNA3 ISA Table 37). */
function mfmaTable(target: Target): Record<MfmaParamKey, Sourced<number>> {
  const t = target.name;
  const gen = generationOf(target);
  const out = {} as Record<MfmaParamKey, Sourced<number>>;
  const put = (kind: MfmaTableKind, c: MfmaConsumer, n: number, v: number, src: string, note?: string) => {
    out[mfmaParamKey(kind, c, n)] = s(v, src, note);
  };
  const none = (kind: MfmaTableKind, why: string) => {
    for (const c of MFMA_CONSUMERS) for (const n of MFMA_PASS_COUNTS) put(kind, c, n, 0, why);
  };
  if (gen === 'gcn5') {
    for (const k of MFMA_TABLE_KINDS) none(k, 'no MFMA on gfx906');
    return out;
  }
  if (gen === 'cdna1') {
    const src = `LLVM GCNHazardRecognizer::checkMAIHazards908 / checkMAILdStHazards (gfx908, AGPR based)`;
    for (const n of MFMA_PASS_COUNTS) {
      put('xdl', 'srcCSame', n, 0, `${src}: identical tuple -> SrcC 0`);
      put('xdl', 'srcC', n, 2, `${src}: overlap -> SrcC 2`);
      put('xdl', 'srcAB', n, 4, `${src}: overlap -> SrcA/SrcB 4`);
      const rd = n === 2 ? 4 : n === 8 ? 10 : n === 16 ? 18 : 6;
      put('xdl', 'valu', n, rd, `${src}: -> v_accvgpr_read 4/10/18 for 2/8/16 passes`, n === 4 ? 'no 4-pass MFMA on gfx908; interpolated (N+2)' : undefined);
      put('xdl', 'mem', n, rd, `${src}: memory instructions cannot read AGPRs on gfx908; the v_accvgpr_read value is used`);
    }
    for (const c of MFMA_CONSUMERS) for (const n of MFMA_PASS_COUNTS) {
      put('sgemm', c, n, out[mfmaParamKey('xdl', c, n)].value, `LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl) and GCNHazardRecognizer isXDL (on gfx908 every MFMA counts as XDL: the XDL values apply)`);
    }
    none('dgemm', 'no DGEMM on gfx908');
    return out;
  }
  const is950 = gen === 'cdna4';
  const is942 = gen === 'cdna3';
  const is90a = gen === 'cdna2';
  const src23 = `LLVM GCNHazardRecognizer::checkMAIHazards90A (MFMA consumer)`;
  const src24 = `LLVM GCNHazardRecognizer::checkMAIVALUHazards (VALU/memory consumer)`;
  for (const n of MFMA_PASS_COUNTS) {
    // XDL (every non-DGEMM MFMA on gfx90a)
    put('xdl', 'srcCSame', n, !is90a && n === 2 ? 2 : 0, `${src23}: identical tuple -> SrcC`, !is90a && n === 2 ? 'LLVM needs 2 for any 2-pass producer on gfx942/950' : undefined);
    put('xdl', 'srcC', n, is90a ? n : is942 ? n + 1 : n + 2, `${src23}: XDL overlap -> XDL SrcC (${is90a ? 'N' : is942 ? 'N+1' : 'N+2'})`,
      'the value for an XDL consumer; S/DGEMM consumers differ by one wait state or less and are not told apart');
    const ab = is90a || is942 ? n + 3 : n === 2 ? 5 : n + 4;
    put('xdl', 'srcAB', n, ab, `${src23}: XDL -> SrcA/SrcB (${is90a || is942 ? 'N+3' : 'N=2: 5, else N+4'}); ${C3} §7.5 Table 37 case 105`);
    put('xdl', 'valu', n, ab, `${src24}: XDL -> VALU read/write (same formula)`);
    put('xdl', 'mem', n, ab, `${src24}: XDL -> VMEM/LDS/FLAT read (same formula)`);
    if (is90a) {
      // no SGEMM class on gfx90a: the XDL values apply
      for (const c of MFMA_CONSUMERS) put('sgemm', c, n, out[mfmaParamKey('xdl', c, n)].value, `LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl) and GCNHazardRecognizer isXDL (on gfx90a every non-DGEMM MFMA counts as XDL)`);
    } else {
      put('sgemm', 'srcCSame', n, n === 2 ? 2 : 0, `${src23}: identical tuple -> SrcC`, n === 2 ? 'LLVM 2; the CDNA3 ISA table says 0 (SGEMM -> XDL)' : undefined);
      put('sgemm', 'srcC', n, n, `${src23}: SGEMM overlap -> S/DGEMM SrcC (N)`, 'SGEMM -> XDL SrcC needs 0 (XDL reads SrcC faster); the S/DGEMM value is used');
      put('sgemm', 'srcAB', n, n + 2, `${src23}: SGEMM -> SrcA/SrcB (N+2); ${C3} §7.5 Table 37 case 110`);
      put('sgemm', 'valu', n, n + 2, `${src24}: SGEMM -> VALU (N+2)`);
      put('sgemm', 'mem', n, n + 2, `${src24}: SGEMM -> memory read (N+2)`);
    }
    // DGEMM: 4x4x4 is 4 passes; 16x16x4 is 8 passes (gfx90a/942) or 16 (gfx950)
    const big = is950 ? 16 : 8;
    if (n === 4) {
      put('dgemm', 'srcCSame', n, 4, `${src23}: v_mfma_f64_4x4x4 -> same SrcC 4`);
      put('dgemm', 'srcC', n, 4, `${src23}: f64 4x4x4 overlap -> SrcC 4`);
      put('dgemm', 'srcAB', n, 6, `${src23}: f64 4x4x4 -> SrcA/B 6`);
      put('dgemm', 'valu', n, 6, `${src24}: f64 4x4x4 -> VALU 6`);
      put('dgemm', 'mem', n, 9, `${src24}: f64 4x4x4 -> memory read 9`);
    } else if (n === big) {
      put('dgemm', 'srcCSame', n, 0, `${src23}: f64 16x16x4 identical tuple -> 0`);
      put('dgemm', 'srcC', n, is950 ? 17 : 9, `${src23}: f64 16x16x4 overlap -> SrcC ${is950 ? 17 : 9}`);
      put('dgemm', 'srcAB', n, is950 ? 19 : 11, `${src23}: f64 16x16x4 -> SrcA/B ${is950 ? 19 : 11}; ${C3} §7.5 Table 37 case 116`);
      put('dgemm', 'valu', n, is950 ? 19 : 11, `${src24}: f64 16x16x4 -> VALU read ${is950 ? 19 : 11}`,
        is950 ? 'WAW: LLVM 11, CDNA4 ISA Table 38 19; the read value (19) is used for both' : undefined);
      put('dgemm', 'mem', n, 18, `${src24}: f64 16x16x4 -> memory read 18; ${C3} §7.5 Table 37 case 120`);
    } else {
      for (const c of MFMA_CONSUMERS) {
        const v = c === 'srcCSame' ? 0 : c === 'srcC' ? n + 1 : c === 'mem' ? n + 10 : n + 3;
        put('dgemm', c, n, v, `estimate: no f64 MFMA has ${n} passes on ${t}; extrapolated from the 16x16x4 row`);
      }
    }
  }
  return out;
}

const CACHE = new Map<TargetName, CycleParams>();

/** The default parameters of a target (shared, frozen: copy before changing). */
export function defaultCycleParams(target: Target | TargetName): CycleParams {
  const t = typeof target === 'string' ? TARGETS[target] : target;
  const name = t.name;
  let p = CACHE.get(name);
  if (!p) {
    p = Object.freeze({ target: name, values: Object.freeze({ ...common(t), ...mfmaTable(t) }) as Table, insn: Object.freeze({}) as CycleParams['insn'] });
    CACHE.set(name, p);
  }
  return p;
}

// ------------------------------------------------------------------------------------------------
// Calibration files

/**
 * A calibration file is a JSON object. Its keys are parameter keys ("vmem.latency") or
 * per-instruction keys ("insn.v_exp_f32.latency"); values are numbers (cycles / wait states) or
 * `{ "value": n, "source": "rocprof run 2025-01-03" }`. Target-specific values go under
 * `"targets": { "gfx942": { ... } }` and win over the top-level ones. `"$schema"` and
 * `"description"` are ignored.
 */
export interface LatencyFile {
  [key: string]: unknown;
}

/** Error naming the bad key. */
export class LatencyFileError extends ConductorError {}

function closest(key: string, keys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of keys) {
    const d = editDistance(key, k);
    if (d < bestD) { bestD = d; best = k; }
  }
  return bestD <= Math.max(2, Math.floor(key.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[n]!;
}

/**
 * Apply a calibration object to a target's parameters. `known` tells whether a mnemonic exists
 * (for `insn.*` keys). Throws LatencyFileError naming the first bad key.
 */
export function applyLatencyFile(base: CycleParams, data: unknown, origin: string,
  known: (mnemonic: string) => boolean): CycleParams {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new LatencyFileError(`${origin}: a latency file must hold a JSON object of "key": number pairs`);
  }
  const values: Record<string, Sourced<number>> = { ...base.values };
  const insn: CycleParams['insn'] = {};
  for (const [m, f] of Object.entries(base.insn)) insn[m] = { ...f };
  const keys = allParamKeys();
  const apply = (obj: Record<string, unknown>, where: string, vals: Record<string, Sourced<number>>, ins: CycleParams['insn']) => {
    for (const [key, raw] of Object.entries(obj)) {
      if (key === '$schema' || key === 'description' || (key === 'targets' && where === '')) continue;
      const at = `${origin}: key '${where}${key}'`;
      let value: unknown = raw;
      let source = `${origin} (calibration file)`;
      let note: string | undefined;
      if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
        const r = raw as Record<string, unknown>;
        for (const k of Object.keys(r)) {
          if (k !== 'value' && k !== 'source' && k !== 'note') throw new LatencyFileError(`${at}: unknown field '${k}' (expected value, source, note)`);
        }
        value = r['value'];
        if (r['source'] !== undefined) {
          if (typeof r['source'] !== 'string') throw new LatencyFileError(`${at}: 'source' must be a string`);
          source = `${r['source']} (${origin})`;
        }
        if (r['note'] !== undefined) {
          if (typeof r['note'] !== 'string') throw new LatencyFileError(`${at}: 'note' must be a string`);
          note = r['note'];
        }
      }
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new LatencyFileError(`${at}: value must be a finite number >= 0, got ${JSON.stringify(value)}`);
      }
      const entry: Sourced<number> = note ? { value, source, note } : { value, source };
      const im = /^insn\.([a-z0-9_]+)\.([a-z]+)$/.exec(key);
      if (im) {
        const [, mnem, field] = im;
        if (!(INSN_FIELDS as readonly string[]).includes(field!)) {
          throw new LatencyFileError(`${at}: unknown field '${field}' (expected ${INSN_FIELDS.join(', ')})`);
        }
        if (!known(mnem!)) throw new LatencyFileError(`${at}: unknown instruction '${mnem}'`);
        (ins[mnem!] ??= {})[field as InsnField] = entry;
        continue;
      }
      if (!(key in vals)) {
        const near = closest(key, keys);
        throw new LatencyFileError(`${at}: unknown parameter${near ? ` (did you mean '${near}'?)` : ''}; 'conductor simulate --list-params' lists them`);
      }
      if (key.startsWith('mfma.') && key !== 'mfma.pass' && key !== 'mfma.issue' && !Number.isInteger(value)) {
        throw new LatencyFileError(`${at}: wait states must be an integer, got ${value}`);
      }
      vals[key] = entry;
    }
  };
  const obj = data as Record<string, unknown>;
  apply(obj, '', values, insn);
  if (obj['targets'] !== undefined) {
    const t = obj['targets'];
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw new LatencyFileError(`${origin}: key 'targets' must be an object of target -> parameters`);
    for (const [name, sub] of Object.entries(t as Record<string, unknown>)) {
      if (!['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'].includes(name)) {
        throw new LatencyFileError(`${origin}: key 'targets.${name}': unknown target (gfx906, gfx908, gfx90a, gfx942, gfx950)`);
      }
      if (typeof sub !== 'object' || sub === null || Array.isArray(sub)) throw new LatencyFileError(`${origin}: key 'targets.${name}' must be an object`);
      // every section is validated; only the section of this target is kept
      const mine = name === base.target;
      apply(sub as Record<string, unknown>, `targets.${name}.`, mine ? values : { ...values }, mine ? insn : {});
    }
  }
  return { target: base.target, values: values as Table, insn };
}
