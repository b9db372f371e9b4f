/**
 * The instruction catalogue: every GFX9-family mnemonic the five targets know (gfx906, gfx908,
 * gfx90a, gfx942, gfx950), described by family rules plus small tables.
 *
 * Sources of the facts:
 * - Mnemonics, operand order and register widths: the GFX9 / CDNA ISA operand layouts, checked
 *   against LLVM 22's disassembler and assembler on all five targets (every opcode of every
 *   encoding; test/oracle/isa-catalogue.test.ts re-runs that comparison).
 * - Implicit registers (EXEC, VCC, SCC, M0, MODE, flat_scratch): the implicit operands LLVM 22
 *   attaches to each opcode (its MIR verifier names them; measured the same way by the oracle
 *   test) and the def/use oracle on our clang-built kernels (test/oracle/defuse.test.ts).
 *   Where hardware and LLVM differ the choice is noted next to the rule.
 * - Counters: LLVM SIInsertWaitcnts::updateEventWaitcntAfter and CDNA3 ISA §4.4. MFMA kinds and
 *   passes: mfma.ts.
 *
 * Lookup is a Map from mnemonic (without _e32/_e64/_sdwa/_dpp) to an InsnDesc, built once.
 */
import type { Feature } from './target.js';
import { EXEC_LO, EXEC_HI, M0, MODE, SCC, VCC_LO, VCC_HI, FLAT_SCRATCH_LO, FLAT_SCRATCH_HI } from '../asm/registers.js';
import type { RegUnit } from '../asm/registers.js';
import { parseMfma, mfma940Name, mfmaKind } from './mfma.js';
import type {
  Access, Counters, Encoding, InsnClass, InsnDesc, LatencyClass, MemDesc, MemOp, MemSpace, OperandKind,
  OperandRole, OpSpec, ValuDesc, WaitEvent,
} from './types.js';
import { SUFFIX } from './types.js';

const EXEC: readonly RegUnit[] = [EXEC_LO, EXEC_HI];
const VCC: readonly RegUnit[] = [VCC_LO, VCC_HI];
const NONE: readonly RegUnit[] = [];
const NO_COUNT: Counters = Object.freeze({ vm: 0, lgkm: 0, exp: 0 });

/* ------------------------------------------------------------------------------------------ */
/* Operand signatures                                                                          */
/* ------------------------------------------------------------------------------------------ */

/**
 * A signature is a list of tokens, one per operand: a letter and an optional width in units.
 *   D vdst (VGPR, written)        T vdst (VGPR, read and written: mac/fmac/dot2c/writelane)
 *   S sdst (SGPR, written)        Q sdst (SGPR, read and written: s_addk, s_bitset, s_cmov)
 *   x VALU source (src0, src1, src2 in order)     Y src0 VGPR read and written (v_swap)
 *   s scalar source (ssrc0, ssrc1)  C carry-out    c carry-in    m cndmask select
 *   l lane select (readlane/writelane)   k literal constant   i immediate   t interp attribute
 *   L branch target   F hwreg()/sendmsg()/gpr_idx()   G AGPR destination   g AGPR source
 */
const TOKENS: Record<string, [OperandRole | 'src' | 'ssrc', Access, OperandKind, number]> = {
  D: ['vdst', 'd', 'v', 1],
  T: ['vdst', 'du', 'v', 1],
  S: ['sdst', 'd', 's', 1],
  Q: ['sdst', 'du', 's', 1],
  x: ['src', 'u', 'src', 1],
  Y: ['src0', 'du', 'v', 1],
  s: ['ssrc', 'u', 'ssrc', 1],
  C: ['carryOut', 'd', 's', 2],
  c: ['carryIn', 'u', 's', 2],
  m: ['mask', 'u', 's', 2],
  l: ['lane', 'u', 'ssrc', 1],
  k: ['imm', 'u', 'imm', 0],
  i: ['imm', 'u', 'imm', 0],
  t: ['attr', 'u', 'any', 0],
  L: ['label', 'u', 'label', 0],
  F: ['hwreg', 'u', 'func', 0],
  G: ['vdst', 'd', 'a', 1],
  g: ['src0', 'u', 'a', 1],
};

const sigCache = new Map<string, readonly OpSpec[]>();

function sig(text: string): readonly OpSpec[] {
  const hit = sigCache.get(text);
  if (hit) return hit;
  const out: OpSpec[] = [];
  let src = 0;
  let ssrc = 0;
  for (const tok of text.split(/\s+/).filter(Boolean)) {
    const t = TOKENS[tok[0]!];
    if (!t) throw new Error(`catalogue: bad signature token '${tok}' in '${text}'`);
    const width = tok.length > 1 ? Number(tok.slice(1)) : t[3];
    let role = t[0];
    if (role === 'src') role = (['src0', 'src1', 'src2'] as const)[src++]!;
    else if (role === 'ssrc') role = (['ssrc0', 'ssrc1'] as const)[ssrc++]!;
    out.push(Object.freeze({ role: role as OperandRole, access: t[1], kind: t[2], width }));
  }
  const frozen = Object.freeze(out);
  sigCache.set(text, frozen);
  return frozen;
}

function op(role: OperandRole, access: Access, kind: OperandKind, width: number): OpSpec {
  return Object.freeze({ role, access, kind, width });
}

/** Parse "name name ..." lists written over several lines. */
function words(s: string): string[] {
  return s.split(/\s+/).filter(Boolean);
}

/**
 * Tables written as lines "signature | name name ...". A line's names may span continuation
 * lines (lines without '|').
 */
function table(text: string): [string, string[]][] {
  const out: [string, string[]][] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    const bar = line.indexOf('|');
    if (bar < 0) { out[out.length - 1]![1].push(...words(line)); continue; }
    out.push([line.slice(0, bar).trim(), words(line.slice(bar + 1))]);
  }
  return out;
}

/* ------------------------------------------------------------------------------------------ */
/* The map and its builder                                                                     */
/* ------------------------------------------------------------------------------------------ */

const CATALOGUE = new Map<string, InsnDesc>();

interface DescInit {
  name: string;
  cls: InsnClass;
  encoding: Encoding;
  ops: readonly OpSpec[];
  minOperands?: number;
  implicitDefs?: readonly RegUnit[];
  implicitUses?: readonly RegUnit[];
  counters?: Counters;
  events?: readonly WaitEvent[];
  latency: LatencyClass;
  requires?: readonly Feature[];
  removedBy?: readonly Feature[];
  valu?: ValuDesc;
  mfma?: InsnDesc['mfma'];
  mem?: MemDesc;
  suffixes?: number;
  note?: string;
  never?: string;
}

function add(d: DescInit): InsnDesc {
  if (CATALOGUE.has(d.name)) throw new Error(`catalogue: duplicate mnemonic ${d.name}`);
  const desc: InsnDesc = Object.freeze({
    name: d.name,
    cls: d.cls,
    encoding: d.encoding,
    ops: d.ops,
    minOperands: d.minOperands ?? d.ops.length,
    implicitDefs: shared(uniq(d.implicitDefs ?? NONE)),
    implicitUses: shared(uniq(d.implicitUses ?? NONE)),
    counters: d.counters ?? NO_COUNT,
    events: Object.freeze(d.events ?? []),
    latency: d.latency,
    requires: Object.freeze(d.requires ?? []),
    removedBy: Object.freeze(d.removedBy ?? []),
    valu: d.valu ? Object.freeze(d.valu) : undefined,
    mfma: d.mfma ? Object.freeze(d.mfma) : undefined,
    mem: d.mem ? Object.freeze(d.mem) : undefined,
    suffixes: d.suffixes ?? 0,
    note: d.note,
    never: d.never,
  });
  CATALOGUE.set(d.name, desc);
  return desc;
}

function uniq(a: readonly RegUnit[]): RegUnit[] {
  return [...new Set(a)];
}

const sharedLists = new Map<string, readonly RegUnit[]>();

/** One frozen array per distinct implicit-register list (resolve.ts memoises on identity). */
function shared(a: RegUnit[]): readonly RegUnit[] {
  const k = a.join(',');
  let s = sharedLists.get(k);
  if (!s) { s = Object.freeze(a); sharedLists.set(k, s); }
  return s;
}

/** Implicit-register shorthand: "scc exec vcc m0 mode flat_scratch". */
function regs(list: string): RegUnit[] {
  const out: RegUnit[] = [];
  for (const w of words(list)) {
    switch (w) {
      case 'scc': out.push(SCC); break;
      case 'exec': out.push(...EXEC); break;
      case 'vcc': out.push(...VCC); break;
      case 'm0': out.push(M0); break;
      case 'mode': out.push(MODE); break;
      case 'flat_scratch': out.push(FLAT_SCRATCH_LO, FLAT_SCRATCH_HI); break;
      default: throw new Error(`catalogue: unknown implicit register '${w}'`);
    }
  }
  return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Feature gates (availability per target is asked of the Target's features)                   */
/* ------------------------------------------------------------------------------------------ */

interface Gate { requires?: Feature[]; removedBy?: Feature[] }

/**
 * Availability exceptions by mnemonic (everything else exists on all five targets).
 * Checked against llvm-mc 22 per target by test/oracle/isa-catalogue.test.ts.
 */
const GATES = new Map<string, Gate>();
function gate(names: string, g: Gate): void {
  for (const n of words(names)) GATES.set(n, g);
}

const NOT_90A: Gate = { removedBy: ['gfx90a-insts'] };
const NOT_940: Gate = { removedBy: ['gfx940-insts'] };
const G90A: Gate = { requires: ['gfx90a-insts'] };
const G940: Gate = { requires: ['gfx940-insts'] };
const G950: Gate = { requires: ['gfx950-insts'] };

// Removed with gfx90a: LDS "src2" reductions, VINTRP interpolation, v_mul_legacy_f32 as VOP2.
gate(`v_interp_p1_f32 v_interp_p2_f32 v_interp_mov_f32 v_interp_p1ll_f16 v_interp_p1lv_f16 v_interp_p2_f16
  v_interp_p2_legacy_f16`, NOT_90A);
// Removed with gfx940: legacy MAD/MAC f32, L1 write-back-invalidate.
gate('v_mac_f32 v_mad_f32 v_mad_legacy_f32 v_madak_f32 v_madmk_f32 buffer_wbinvl1 buffer_wbinvl1_vol buffer_store_lds_dword', NOT_940);
gate('buffer_invl2', { requires: ['gfx90a-insts'], removedBy: ['gfx940-insts'] });
gate('buffer_wbl2 v_fmac_f64 v_accvgpr_mov_b32', G90A);
gate('v_pk_fma_f32 v_pk_mul_f32 v_pk_add_f32 v_pk_mov_b32', { requires: ['packed-fp32'] });
gate('buffer_inv v_fmaak_f32 v_fmamk_f32 v_lshl_add_u64 v_mov_b64', G940);
gate(`buffer_atomic_add_f64 buffer_atomic_min_f64 buffer_atomic_max_f64 global_atomic_add_f64 global_atomic_min_f64
  global_atomic_max_f64 flat_atomic_add_f64 flat_atomic_min_f64 flat_atomic_max_f64 ds_add_f64 ds_add_rtn_f64`,
{ requires: ['atomic-f64'] });
gate('buffer_atomic_add_f32 buffer_atomic_pk_add_f16 global_atomic_add_f32 global_atomic_pk_add_f16',
  { requires: ['atomic-fadd'] });
gate(`flat_atomic_add_f32 flat_atomic_pk_add_f16 flat_atomic_pk_add_bf16 global_atomic_pk_add_bf16 ds_pk_add_f16
  ds_pk_add_rtn_f16 ds_pk_add_bf16 ds_pk_add_rtn_bf16`, G940);
gate('buffer_atomic_pk_add_bf16 ds_read_b64_tr_b4 ds_read_b64_tr_b8 ds_read_b64_tr_b16 ds_read_b96_tr_b6', G950);
gate(`global_load_lds_dword global_load_lds_ubyte global_load_lds_sbyte global_load_lds_ushort global_load_lds_sshort
  scratch_load_lds_dword scratch_load_lds_ubyte scratch_load_lds_sbyte scratch_load_lds_ushort scratch_load_lds_sshort`,
G940);
gate('global_load_lds_dwordx3 global_load_lds_dwordx4', { requires: ['lds-dma-dwordx3-4'] });
gate('exp', { requires: ['export'] });
gate('ds_ordered_count', { requires: ['gds'] });
gate('v_accvgpr_read_b32 v_accvgpr_write_b32', { requires: ['mai'] });
// VALU by feature
gate('v_fmac_f32 v_xnor_b32', { requires: ['dl-insts'] });
gate('v_dot4_i32_i8 v_dot8_i32_i4', { requires: ['dot1-insts'] });
gate('v_dot2_i32_i16 v_dot2_u32_u16', { requires: ['dot2-insts'] });
gate('v_dot8c_i32_i4', { requires: ['dot3-insts'] });
gate('v_dot2c_i32_i16', { requires: ['dot4-insts'] });
gate('v_dot2c_f32_f16', { requires: ['dot5-insts'] });
gate('v_dot4c_i32_i8', { requires: ['dot6-insts'] });
gate('v_dot4_u32_u8 v_dot8_u32_u4', { requires: ['dot7-insts'] });
gate('v_dot2_f32_f16', { requires: ['dot10-insts'] });
gate('v_dot2_f32_bf16', { requires: ['dot12-insts'] });
gate('v_dot2c_f32_bf16', { requires: ['dot13-insts'] });
gate('v_mad_mix_f32 v_mad_mixlo_f16 v_mad_mixhi_f16', { requires: ['mad-mix'] });
gate('v_fma_mix_f32 v_fma_mixlo_f16 v_fma_mixhi_f16', { requires: ['fma-mix'] });
// v_pk_fmac_f16 exists from gfx908 on; LLVM's FeaturePkFmacF16Inst has no Feature of ours: 'mai'
// (gfx908+) stands for it (reported to the lead).
gate('v_pk_fmac_f16', { requires: ['mai'] });
gate('v_accvgpr_read_b32 v_accvgpr_write_b32', { requires: ['mai'] });
gate(`v_cvt_f32_fp8 v_cvt_f32_bf8 v_cvt_pk_f32_fp8 v_cvt_pk_f32_bf8 v_cvt_pk_fp8_f32 v_cvt_pk_bf8_f32
  v_cvt_sr_fp8_f32 v_cvt_sr_bf8_f32`, { requires: ['fp8-conversion-insts'] });
gate('v_permlane16_swap_b32 v_permlane32_swap_b32', { requires: ['permlane-swap'] });
gate('v_prng_b32', { requires: ['prng'] });
gate('v_ashr_pk_i8_i32 v_ashr_pk_u8_i32', { requires: ['ashr-pk'] });
gate('v_minimum3_f32 v_maximum3_f32 v_pk_minimum3_f16 v_pk_maximum3_f16', { requires: ['minimum3-maximum3-f32'] });
gate('v_cvt_pk_bf16_f32 v_cvt_sr_bf16_f32 v_cvt_f32_bf16', { requires: ['bf16-cvt-insts'] });
gate('v_cvt_pk_f16_f32 v_cvt_sr_f16_f32 v_bitop3_b16 v_bitop3_b32 v_mfma_ld_scale_b32', G950);

function gateOf(name: string): Gate {
  const g = GATES.get(name);
  if (g) return g;
  if (name.startsWith('v_cvt_scalef32_')) return G950;
  if (name.startsWith('ds_') && name.includes('_src2_')) return NOT_90A;
  return {};
}

/* ------------------------------------------------------------------------------------------ */
/* Scalar ALU                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * SALU table: "signature ; implicit | names". Implicit effects: "+scc" writes SCC, "<scc" reads
 * it, likewise exec, m0, mode. The SCC writers are those LLVM 22 marks `implicit-def $scc`.
 * s_cmov_b32/b64 and s_cmovk_i32 write their destination only when SCC is 1 and leave it as it
 * was otherwise (the ISA's "if SCC then D = S0"), so they read it too (Q): its value before
 * them is live, and a write before them stays before them. LLVM's S_CMOV_B32 names no tied
 * operand (SOPInstructions.td), and its code generation never relies on the kept value; Tensile's
 * `s_cmov_b32 s67, s[sgprWGM] // remainder = WGM if remainder == 0` does.
 */
const SALU = `
S s s ; +scc | s_add_u32 s_sub_u32 s_add_i32 s_sub_i32 s_min_i32 s_min_u32 s_max_i32 s_max_u32
  s_and_b32 s_or_b32 s_xor_b32 s_andn2_b32 s_orn2_b32 s_nand_b32 s_nor_b32 s_xnor_b32
  s_lshl_b32 s_lshr_b32 s_ashr_i32 s_bfe_u32 s_bfe_i32 s_absdiff_i32
  s_lshl1_add_u32 s_lshl2_add_u32 s_lshl3_add_u32 s_lshl4_add_u32
S s s ; +scc <scc | s_addc_u32 s_subb_u32
S s s ; <scc | s_cselect_b32
S2 s2 s2 ; <scc | s_cselect_b64
S s s | s_bfm_b32 s_mul_i32 s_mul_hi_u32 s_mul_hi_i32 s_pack_ll_b32_b16 s_pack_lh_b32_b16 s_pack_hh_b32_b16
S2 s s | s_bfm_b64
S2 s2 s2 ; +scc | s_and_b64 s_or_b64 s_xor_b64 s_andn2_b64 s_orn2_b64 s_nand_b64 s_nor_b64 s_xnor_b64
S2 s2 s ; +scc | s_lshl_b64 s_lshr_b64 s_ashr_i64 s_bfe_u64 s_bfe_i64
s2 s | s_rfe_restore_b64
S s | s_mov_b32 s_brev_b32 s_sext_i32_i8 s_sext_i32_i16 s_ff0_i32_b32 s_ff1_i32_b32 s_flbit_i32_b32 s_flbit_i32
S2 s2 | s_mov_b64 s_brev_b64
S s2 | s_ff0_i32_b64 s_ff1_i32_b64 s_flbit_i32_b64 s_flbit_i32_i64
S s ; +scc | s_not_b32 s_wqm_b32 s_bcnt0_i32_b32 s_bcnt1_i32_b32 s_quadmask_b32 s_abs_i32
S2 s2 ; +scc | s_not_b64 s_wqm_b64 s_quadmask_b64
S s2 ; +scc | s_bcnt0_i32_b64 s_bcnt1_i32_b64
Q s ; <scc | s_cmov_b32
Q2 s2 ; <scc | s_cmov_b64
Q s | s_bitset0_b32 s_bitset1_b32
Q2 s | s_bitset0_b64 s_bitset1_b64
S2 s | s_bitreplicate_b64_b32
S2 s2 ; +exec +scc <exec | s_and_saveexec_b64 s_or_saveexec_b64 s_xor_saveexec_b64 s_andn2_saveexec_b64
  s_orn2_saveexec_b64 s_nand_saveexec_b64 s_nor_saveexec_b64 s_xnor_saveexec_b64 s_andn1_saveexec_b64
  s_orn1_saveexec_b64 s_andn1_wrexec_b64 s_andn2_wrexec_b64
S s ; <m0 | s_movrels_b32 s_movreld_b32
S2 s2 ; <m0 | s_movrels_b64 s_movreld_b64
s ; +m0 +mode <m0 <mode | s_set_gpr_idx_idx
s s ; +scc | s_cmp_eq_i32 s_cmp_lg_i32 s_cmp_gt_i32 s_cmp_ge_i32 s_cmp_lt_i32 s_cmp_le_i32
  s_cmp_eq_u32 s_cmp_lg_u32 s_cmp_gt_u32 s_cmp_ge_u32 s_cmp_lt_u32 s_cmp_le_u32
  s_bitcmp0_b32 s_bitcmp1_b32
s2 s2 ; +scc | s_cmp_eq_u64 s_cmp_lg_u64
s2 s ; +scc | s_bitcmp0_b64 s_bitcmp1_b64
s s ; +scc | s_setvskip
S i | s_movk_i32
Q i ; <scc | s_cmovk_i32
s i ; +scc | s_cmpk_eq_i32 s_cmpk_lg_i32 s_cmpk_gt_i32 s_cmpk_ge_i32 s_cmpk_lt_i32 s_cmpk_le_i32
  s_cmpk_eq_u32 s_cmpk_lg_u32 s_cmpk_gt_u32 s_cmpk_ge_u32 s_cmpk_lt_u32 s_cmpk_le_u32
Q i ; +scc | s_addk_i32
Q i | s_mulk_i32
`;

/**
 * Scalar control, state and program-flow instructions (classes other than 'salu').
 * s_set_gpr_idx_mode writes M0[15:12] only (the ISA's "M0[15:12] = SIMM16[3:0]"): it reads M0.
 */
const SCALAR_OTHER = `
branch   L ;            | s_branch
branch   L ; <scc       | s_cbranch_scc0 s_cbranch_scc1
branch   L ; <vcc       | s_cbranch_vccz s_cbranch_vccnz
branch   L ; <exec      | s_cbranch_execz s_cbranch_execnz
branch   L ;            | s_cbranch_cdbgsys s_cbranch_cdbguser s_cbranch_cdbgsys_or_user s_cbranch_cdbgsys_and_user
branch   S2 ;           | s_getpc_b64
branch   s2 ;           | s_setpc_b64
branch   S2 s2 ;        | s_swappc_b64
branch   S2 L ;         | s_call_b64
branch   s2 L ;         | s_cbranch_i_fork
branch   s2 s2 ;        | s_cbranch_g_fork
branch   s ;            | s_cbranch_join
message  s2 ;           | s_rfe_b64
nop      i ;            | s_nop
endpgm   ;              | s_endpgm_saved s_endpgm_ordered_ps_done
barrier  ;              | s_barrier
message  ;              | s_wakeup
message  i ;            | s_setkill s_sethalt s_trap
message  F ; <m0 <exec  | s_sendmsg s_sendmsghalt
message  ; <m0          | s_ttracedata
other    i ;            | s_sleep s_setprio s_incperflevel s_decperflevel
other    ;              | s_icache_inv
other    S F ; <mode    | s_getreg_b32
other    F s ; +mode <mode | s_setreg_b32
other    F i ; +mode <mode | s_setreg_imm32_b32
other    s F ; +m0 +mode <m0 <mode | s_set_gpr_idx_on
other    ; +mode <mode  | s_set_gpr_idx_off
other    F ; +m0 +mode <m0 <mode | s_set_gpr_idx_mode
`;

function implicitFrom(spec: string): { defs: RegUnit[]; uses: RegUnit[] } {
  const defs: RegUnit[] = [];
  const uses: RegUnit[] = [];
  for (const w of words(spec)) {
    if (w[0] === '+') defs.push(...regs(w.slice(1)));
    else if (w[0] === '<') uses.push(...regs(w.slice(1)));
    else throw new Error(`catalogue: bad implicit spec '${w}'`);
  }
  return { defs, uses };
}

function encodingOfSalu(name: string, ops: readonly OpSpec[]): Encoding {
  if (/^s_(cmpk|movk|cmovk|addk|mulk|getreg|setreg|call|cbranch_i_fork)/.test(name)) return 'sopk';
  if (/^s_(cmp_|bitcmp|setvskip|set_gpr_idx_on)/.test(name)) return 'sopc';
  if (ops.length === 3 || /^s_(rfe_restore|cbranch_g_fork)/.test(name)) return 'sop2';
  return 'sop1';
}

function buildScalar(): void {
  for (const [head, names] of table(SALU)) {
    const [sigText, impl = ''] = head.split(';').map((x) => x.trim());
    const ops = sig(sigText!);
    const { defs, uses } = implicitFrom(impl);
    for (const name of names) {
      add({
        name, cls: 'salu', encoding: encodingOfSalu(name, ops), ops,
        implicitDefs: defs, implicitUses: uses, latency: 'salu', ...gateOf(name),
      });
    }
  }
  for (const [head, names] of table(SCALAR_OTHER)) {
    const m = /^(\w+)\s+(.*)$/.exec(head)!;
    const cls = m[1] as InsnClass;
    const [sigText, impl = ''] = m[2]!.split(';').map((x) => x.trim());
    const ops = sig(sigText!);
    const { defs, uses } = implicitFrom(impl);
    for (const name of names) {
      const isMsg = name === 's_sendmsg' || name === 's_sendmsghalt';
      add({
        name, cls, encoding: /^s_(getpc|setpc|swappc|rfe_b64|cbranch_join)/.test(name) ? 'sop1'
          : /^s_(getreg|setreg|call|cbranch_i_fork)/.test(name) ? 'sopk'
            : name === 's_set_gpr_idx_on' ? 'sopc' : name === 's_cbranch_g_fork' ? 'sop2' : 'sopp',
        ops, implicitDefs: defs, implicitUses: uses,
        counters: isMsg ? { vm: 0, lgkm: 1, exp: 0 } : NO_COUNT,
        events: isMsg ? ['message'] : [],
        latency: cls,
      });
    }
  }
  add({ name: 's_endpgm', cls: 'endpgm', encoding: 'sopp', ops: sig('i'), minOperands: 0, latency: 'endpgm' });
  add({ name: 's_waitcnt', cls: 'waitcnt', encoding: 'sopp', ops: [op('waitcnt', 'u', 'any', 0)], latency: 'waitcnt' });
  // The split counter waits are GFX10+ (LLVM's AMDGPU assembler: "The SOPK forms
  // s_waitcnt_vmcnt/expcnt/lgkmcnt/vscnt are GFX10+ only"); known, so the error says so.
  for (const name of words('s_waitcnt_vmcnt s_waitcnt_expcnt s_waitcnt_lgkmcnt s_waitcnt_vscnt')) {
    add({
      name, cls: 'waitcnt', encoding: 'sopk', ops: [op('sdst', 'u', 's', 1), op('imm', 'u', 'imm', 0)], latency: 'waitcnt',
      never: 'a GFX10+ instruction; GFX9 targets wait with s_waitcnt vmcnt(N) expcnt(N) lgkmcnt(N)',
    });
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Scalar memory                                                                               */
/* ------------------------------------------------------------------------------------------ */

function smemCounters(dwords: number, isLoad: boolean): Counters {
  // CDNA3 ISA §4.4: scalar reads count by dword pairs (1 for one dword, 2 for more).
  return { vm: 0, lgkm: isLoad && dwords > 1 ? 2 : 1, exp: 0 };
}

function buildSmem(): void {
  const sizes: [string, number][] = [['', 1], ['x2', 2], ['x4', 4], ['x8', 8], ['x16', 16]];
  const sbase = (buffer: boolean) => op('sbase', 'u', 's', buffer ? 4 : 2);
  const soff = op('soff', 'u', 'any', 0);
  const smem = (name: string, ops: OpSpec[], memOp: MemOp, dwords: number, space: MemSpace = 'scalar'): void => {
    const isLoad = memOp === 'load' || memOp === 'time';
    add({
      implicitUses: name.startsWith('s_scratch_') ? [FLAT_SCRATCH_LO, FLAT_SCRATCH_HI] : NONE,
      // the offset operand may be omitted (llvm-mc reads `s_load_dword s4, s[8:9]` as offset 0)
      minOperands: ops.length && ops[ops.length - 1]!.role === 'soff' ? ops.length - 1 : ops.length,
      name, cls: memOp === 'cache' ? 'other' : 'smem', encoding: 'smem', ops,
      counters: smemCounters(dwords, isLoad), events: ['smem'], latency: 'smem',
      mem: { space, op: memOp, dwords, d16: false }, ...gateOf(name),
    });
  };
  for (const [sfx, n] of sizes) {
    const s = sfx ? `_dword${sfx}` : '_dword';
    smem(`s_load${s}`, [op('sdst', 'd', 's', n), sbase(false), soff], 'load', n);
    smem(`s_buffer_load${s}`, [op('sdst', 'd', 's', n), sbase(true), soff], 'load', n);
    if (n <= 4) {
      smem(`s_store${s}`, [op('sdata', 'u', 's', n), sbase(false), soff], 'store', n);
      smem(`s_buffer_store${s}`, [op('sdata', 'u', 's', n), sbase(true), soff], 'store', n);
      smem(`s_scratch_load${s}`, [op('sdst', 'd', 's', n), sbase(false), soff], 'load', n);
      smem(`s_scratch_store${s}`, [op('sdata', 'u', 's', n), sbase(false), soff], 'store', n);
    }
  }
  const atomics = 'swap cmpswap add sub smin umin smax umax and or xor inc dec';
  for (const a of words(atomics)) {
    for (const x2 of [false, true]) {
      const n = (x2 ? 2 : 1) * (a === 'cmpswap' ? 2 : 1);
      for (const buffer of [false, true]) {
        const name = `s_${buffer ? 'buffer_' : ''}atomic_${a}${x2 ? '_x2' : ''}`;
        // The data operand is also the return register when glc is set (resolve.ts).
        smem(name, [op('sdata', 'u', 's', n), sbase(buffer), soff], 'atomic', n);
      }
    }
  }
  smem('s_dcache_inv', [], 'cache', 0);
  smem('s_dcache_wb', [], 'cache', 0);
  smem('s_dcache_inv_vol', [], 'cache', 0);
  smem('s_dcache_wb_vol', [], 'cache', 0);
  smem('s_dcache_discard', [sbase(false), soff], 'cache', 0);
  smem('s_dcache_discard_x2', [sbase(false), soff], 'cache', 0);
  smem('s_memtime', [op('sdst', 'd', 's', 2)], 'time', 2);
  smem('s_memrealtime', [op('sdst', 'd', 's', 2)], 'time', 2);
  smem('s_atc_probe', [op('imm', 'u', 'imm', 0), sbase(false), soff], 'probe', 0);
  smem('s_atc_probe_buffer', [op('imm', 'u', 'imm', 0), sbase(true), soff], 'probe', 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector ALU                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** VOP1 (e32, e64, sdwa, dpp). */
const VOP1 = `
D x | v_mov_b32 v_cvt_f32_i32 v_cvt_f32_u32 v_cvt_u32_f32 v_cvt_i32_f32 v_cvt_f16_f32 v_cvt_f32_f16
  v_cvt_rpi_i32_f32 v_cvt_flr_i32_f32 v_cvt_off_f32_i4 v_cvt_f32_ubyte0 v_cvt_f32_ubyte1 v_cvt_f32_ubyte2
  v_cvt_f32_ubyte3 v_fract_f32 v_trunc_f32 v_ceil_f32 v_rndne_f32 v_floor_f32 v_exp_f32 v_log_f32 v_rcp_f32
  v_rcp_iflag_f32 v_rsq_f32 v_sqrt_f32 v_sin_f32 v_cos_f32 v_not_b32 v_bfrev_b32 v_ffbh_u32 v_ffbl_b32
  v_ffbh_i32 v_frexp_exp_i32_f32 v_frexp_mant_f32 v_screen_partition_4se_b32 v_cvt_f16_u16 v_cvt_f16_i16
  v_cvt_u16_f16 v_cvt_i16_f16 v_rcp_f16 v_sqrt_f16 v_rsq_f16 v_log_f16 v_exp_f16 v_frexp_mant_f16
  v_frexp_exp_i16_f16 v_floor_f16 v_ceil_f16 v_trunc_f16 v_rndne_f16 v_fract_f16 v_sin_f16 v_cos_f16
  v_exp_legacy_f32 v_log_legacy_f32 v_cvt_norm_i16_f16 v_cvt_norm_u16_f16 v_sat_pk_u8_i16 v_cvt_f32_fp8
  v_cvt_f32_bf8 v_prng_b32 v_cvt_f32_bf16
D2 x | v_cvt_f64_i32 v_cvt_f64_f32 v_cvt_f64_u32 v_cvt_pk_f32_fp8 v_cvt_pk_f32_bf8
D x2 | v_cvt_i32_f64 v_cvt_f32_f64 v_cvt_u32_f64 v_frexp_exp_i32_f64
D2 x2 | v_trunc_f64 v_ceil_f64 v_rndne_f64 v_floor_f64 v_rcp_f64 v_rsq_f64 v_sqrt_f64 v_frexp_mant_f64
  v_fract_f64 v_mov_b64
`;

/** VOP1 opcodes without e64/SDWA/DPP forms or with unusual operands. */
const VOP1_SPECIAL = `
S x | v_readfirstlane_b32
T Y | v_swap_b32
T Y | v_permlane16_swap_b32 v_permlane32_swap_b32
G g | v_accvgpr_mov_b32
 | v_nop v_clrexcp
`;

/** VOP2 (e32, e64, sdwa, dpp unless noted). */
const VOP2 = `
D x x | v_add_f32 v_sub_f32 v_subrev_f32 v_mul_legacy_f32 v_mul_f32 v_mul_i32_i24 v_mul_hi_i32_i24
  v_mul_u32_u24 v_mul_hi_u32_u24 v_min_f32 v_max_f32 v_min_i32 v_max_i32 v_min_u32 v_max_u32 v_lshrrev_b32
  v_ashrrev_i32 v_lshlrev_b32 v_and_b32 v_or_b32 v_xor_b32 v_add_f16 v_sub_f16 v_subrev_f16 v_mul_f16
  v_add_u16 v_sub_u16 v_subrev_u16 v_mul_lo_u16 v_lshlrev_b16 v_lshrrev_b16 v_ashrrev_i16 v_max_f16
  v_min_f16 v_max_u16 v_max_i16 v_min_u16 v_min_i16 v_ldexp_f16 v_add_u32 v_sub_u32 v_subrev_u32 v_xnor_b32
D x x m | v_cndmask_b32
T x x | v_mac_f32 v_mac_f16 v_fmac_f32 v_dot2c_f32_f16 v_dot2c_i32_i16 v_dot4c_i32_i8 v_dot8c_i32_i4
  v_pk_fmac_f16 v_dot2c_f32_bf16
T2 x2 x2 | v_fmac_f64
D C x x | v_add_co_u32 v_sub_co_u32 v_subrev_co_u32
D C x x c | v_addc_co_u32 v_subb_co_u32 v_subbrev_co_u32
`;

/** VOP2 literal forms (one encoding only). */
const VOP2_LITERAL = `
D x k x | v_madmk_f32 v_madmk_f16 v_fmamk_f32
D x x k | v_madak_f32 v_madak_f16 v_fmaak_f32
`;

/** VOP3-only opcodes (e64 only). */
const VOP3 = `
D x x | v_mul_lo_u32 v_mul_hi_u32 v_mul_hi_i32 v_ldexp_f32 v_bcnt_u32_b32 v_mbcnt_lo_u32_b32
  v_mbcnt_hi_u32_b32 v_bfm_b32 v_cvt_pknorm_i16_f32 v_cvt_pknorm_u16_f32 v_cvt_pkrtz_f16_f32
  v_cvt_pk_u16_u32 v_cvt_pk_i16_i32 v_cvt_pknorm_i16_f16 v_cvt_pknorm_u16_f16 v_add_i32 v_sub_i32
  v_add_i16 v_sub_i16 v_pack_b32_f16 v_cvt_pk_bf16_f32 v_cvt_pk_f16_f32 v_cvt_sr_bf16_f32 v_cvt_sr_f16_f32
  v_cvt_scalef32_f16_fp8 v_cvt_scalef32_f16_bf8 v_cvt_scalef32_f32_fp8 v_cvt_scalef32_f32_bf8
  v_cvt_scalef32_pk_bf16_bf8 v_cvt_scalef32_pk_bf16_fp4 v_cvt_scalef32_pk_bf16_fp8 v_cvt_scalef32_pk_f16_bf8
  v_cvt_scalef32_pk_f16_fp4 v_cvt_scalef32_pk_f16_fp8
T x x | v_cvt_pkaccum_u8_f32 v_cvt_pk_fp8_f32 v_cvt_pk_bf8_f32 v_cvt_sr_fp8_f32 v_cvt_sr_bf8_f32
  v_cvt_scalef32_pk_fp8_bf16 v_cvt_scalef32_pk_fp8_f16 v_cvt_scalef32_pk_bf8_bf16 v_cvt_scalef32_pk_bf8_f16
  v_cvt_scalef32_pk_fp4_bf16 v_cvt_scalef32_pk_fp4_f16
D2 x x | v_cvt_scalef32_pk_f32_fp8 v_cvt_scalef32_pk_f32_bf8 v_cvt_scalef32_pk_f32_fp4
D2 x2 x2 | v_add_f64 v_mul_f64 v_min_f64 v_max_f64
D2 x2 x | v_ldexp_f64 v_trig_preop_f64
D2 x x2 | v_lshlrev_b64 v_lshrrev_b64 v_ashrrev_i64
D x x x | v_mad_legacy_f32 v_mad_f32 v_mad_i32_i24 v_mad_u32_u24 v_cubeid_f32 v_cubesc_f32 v_cubetc_f32
  v_cubema_f32 v_bfe_u32 v_bfe_i32 v_bfi_b32 v_fma_f32 v_lerp_u8 v_alignbit_b32 v_alignbyte_b32 v_min3_f32
  v_min3_i32 v_min3_u32 v_max3_f32 v_max3_i32 v_max3_u32 v_med3_f32 v_med3_i32 v_med3_u32 v_sad_u8
  v_sad_hi_u8 v_sad_u16 v_sad_u32 v_cvt_pk_u8_f32 v_div_fixup_f32 v_msad_u8 v_mad_legacy_f16 v_mad_legacy_u16
  v_mad_legacy_i16 v_perm_b32 v_fma_legacy_f16 v_div_fixup_legacy_f16 v_mad_u32_u16 v_mad_i32_i16 v_xad_u32
  v_min3_f16 v_min3_i16 v_min3_u16 v_max3_f16 v_max3_i16 v_max3_u16 v_med3_f16 v_med3_i16 v_med3_u16
  v_lshl_add_u32 v_add_lshl_u32 v_add3_u32 v_lshl_or_b32 v_and_or_b32 v_or3_b32 v_mad_f16 v_mad_u16
  v_mad_i16 v_fma_f16 v_div_fixup_f16 v_bitop3_b16 v_bitop3_b32 v_ashr_pk_i8_i32 v_ashr_pk_u8_i32
  v_minimum3_f32 v_maximum3_f32 v_div_fmas_f32 v_cvt_scalef32_sr_bf8_bf16 v_cvt_scalef32_sr_bf8_f16
  v_cvt_scalef32_sr_bf8_f32 v_cvt_scalef32_sr_fp8_bf16 v_cvt_scalef32_sr_fp8_f16 v_cvt_scalef32_sr_fp8_f32
  v_cvt_scalef32_sr_pk_fp4_bf16 v_cvt_scalef32_sr_pk_fp4_f16
T x x x | v_cvt_scalef32_pk_fp8_f32 v_cvt_scalef32_pk_bf8_f32 v_cvt_scalef32_pk_fp4_f32
D x2 x x | v_cvt_scalef32_sr_pk_fp4_f32
D2 x2 x2 x2 | v_fma_f64 v_div_fixup_f64 v_div_fmas_f64
D2 x2 x x2 | v_qsad_pk_u16_u8 v_mqsad_pk_u16_u8 v_lshl_add_u64
D4 x2 x x4 | v_mqsad_u32_u8
D C x x x | v_div_scale_f32
D2 C x2 x2 x2 | v_div_scale_f64
D2 C x x x2 | v_mad_u64_u32 v_mad_i64_i32
S x l | v_readlane_b32
T s l | v_writelane_b32
D x t | v_interp_p1ll_f16
D x t x | v_interp_p1lv_f16 v_interp_p2_f16 v_interp_p2_legacy_f16
D6 x16 x16 x | v_cvt_scalef32_2xpk16_bf6_f32 v_cvt_scalef32_2xpk16_fp6_f32
D16 x6 x | v_cvt_scalef32_pk32_bf16_bf6 v_cvt_scalef32_pk32_bf16_fp6 v_cvt_scalef32_pk32_f16_bf6
  v_cvt_scalef32_pk32_f16_fp6
D32 x6 x | v_cvt_scalef32_pk32_f32_bf6 v_cvt_scalef32_pk32_f32_fp6
D6 x16 x | v_cvt_scalef32_pk32_bf6_bf16 v_cvt_scalef32_pk32_bf6_f16 v_cvt_scalef32_pk32_fp6_bf16
  v_cvt_scalef32_pk32_fp6_f16
D6 x16 x x | v_cvt_scalef32_sr_pk32_bf6_bf16 v_cvt_scalef32_sr_pk32_bf6_f16 v_cvt_scalef32_sr_pk32_fp6_bf16
  v_cvt_scalef32_sr_pk32_fp6_f16
D6 x32 x x | v_cvt_scalef32_sr_pk32_bf6_f32 v_cvt_scalef32_sr_pk32_fp6_f32
`;

/** VOP3P opcodes. */
const VOP3P = `
D x x | v_pk_mul_lo_u16 v_pk_add_i16 v_pk_sub_i16 v_pk_lshlrev_b16 v_pk_lshrrev_b16 v_pk_ashrrev_i16
  v_pk_max_i16 v_pk_min_i16 v_pk_add_u16 v_pk_sub_u16 v_pk_max_u16 v_pk_min_u16 v_pk_add_f16 v_pk_mul_f16
  v_pk_min_f16 v_pk_max_f16
D x x x | v_pk_mad_i16 v_pk_mad_u16 v_pk_fma_f16 v_mad_mix_f32 v_fma_mix_f32 v_dot2_f32_f16 v_dot2_i32_i16
  v_dot2_u32_u16 v_dot4_i32_i8 v_dot4_u32_u8 v_dot8_i32_i4 v_dot8_u32_u4 v_dot2_f32_bf16 v_pk_minimum3_f16
  v_pk_maximum3_f16
T x x x | v_mad_mixlo_f16 v_mad_mixhi_f16 v_fma_mixlo_f16 v_fma_mixhi_f16
D2 x2 x2 | v_pk_mul_f32 v_pk_add_f32 v_pk_mov_b32
D2 x2 x2 x2 | v_pk_fma_f32
D g | v_accvgpr_read_b32
G x | v_accvgpr_write_b32
x x | v_mfma_ld_scale_b32
`;

/** Transcendental VALU ops: CDNA3 ISA §4.5 Table 12. */
const TRANS = new Set(words(`v_exp_f32 v_log_f32 v_rcp_f32 v_rcp_iflag_f32 v_rsq_f32 v_rcp_f64 v_rsq_f64
  v_sqrt_f32 v_sqrt_f64 v_sin_f32 v_cos_f32 v_rcp_f16 v_sqrt_f16 v_rsq_f16 v_log_f16 v_exp_f16 v_sin_f16
  v_cos_f16 v_exp_legacy_f32 v_log_legacy_f32`));

/** Quarter-rate integer ops (CLRX GCN instruction timings: 32-bit multiplies run at 1/4 rate). */
const QUARTER = new Set(words('v_mul_lo_u32 v_mul_hi_u32 v_mul_hi_i32 v_mad_u64_u32 v_mad_i64_i32'));

/** 64-bit non-FP ops issued at half rate (shifts and moves on 64-bit data). */
const HALF64 = new Set(words('v_lshlrev_b64 v_lshrrev_b64 v_ashrrev_i64 v_lshl_add_u64 v_mov_b64 v_pk_mov_b32'));

/**
 * VALU ops LLVM models as reading MODE: every op with a floating point operand type, except the
 * ones listed here (measured: LLVM 22 implicit operands).
 */
const FLOAT_TYPE = /_(f16|f32|f64|bf16|fp8|bf8|fp4|fp6|bf6|xf32|f8f6f4)(_|$)/;
const MODE_EXCEPT_NO = new Set<string>(words(`v_cvt_rpi_i32_f32 v_cvt_flr_i32_f32 v_cvt_off_f32_i4 v_cvt_f32_ubyte0
  v_cvt_f32_ubyte1 v_cvt_f32_ubyte2 v_cvt_f32_ubyte3 v_cvt_pk_f16_f32 v_cvt_pk_bf16_f32 v_cvt_pknorm_i16_f32
  v_cvt_pknorm_u16_f32 v_minimum3_f32 v_maximum3_f32`));

function readsMode(name: string): boolean {
  if (MODE_EXCEPT_NO.has(name)) return false;
  if (/^v_cmpx?_class_/.test(name)) return false;
  return FLOAT_TYPE.test(name);
}

/**
 * VALU ops that do not read EXEC: v_readlane reads the lane it names whatever EXEC says and
 * v_writelane writes it (LLVM 22 gives neither an implicit $exec; isa-implicit oracle test).
 */
const NO_EXEC = new Set(words('v_readlane_b32 v_writelane_b32'));

function valuLatency(name: string, trans: boolean, dot: boolean): LatencyClass {
  if (trans) return name.endsWith('_f64') ? 'valu_dp' : 'valu_trans';
  if (dot) return 'valu_dot';
  if (QUARTER.has(name)) return 'valu_quarter';
  if (/_f64$/.test(name) || /^v_(cvt_f64_|cvt_\w+_f64$|frexp_\w+_f64|trig_preop_f64|div_\w+_f64|ldexp_f64)/.test(name)) return 'valu_dp';
  if (HALF64.has(name)) return 'valu_64';
  return 'valu';
}

function addValu(name: string, encoding: Encoding, ops: readonly OpSpec[], suffixes: number, extra: Partial<DescInit> = {}): void {
  const trans = TRANS.has(name);
  const dot = /^v_dot\d/.test(name);
  const vopc = encoding === 'vopc';
  const cmpx = vopc && name.startsWith('v_cmpx_');
  const mode = readsMode(name);
  const uses: RegUnit[] = [];
  const defs: RegUnit[] = [];
  if (!NO_EXEC.has(name)) uses.push(...EXEC);
  if (mode) uses.push(MODE);
  if (cmpx) defs.push(...EXEC);
  if (name === 'v_div_fmas_f32' || name === 'v_div_fmas_f64') uses.push(...VCC);
  // every interpolation reads its parameter's LDS offset and primitive mask in M0 (llc 22's MIR:
  // V_INTERP_P2_F16 ... implicit $m0, as the others)
  if (/^v_interp_/.test(name)) uses.push(M0);
  if (extra.implicitUses) uses.push(...extra.implicitUses);
  if (extra.implicitDefs) defs.push(...extra.implicitDefs);
  const writesSgpr = ops.some((o) => o.access !== 'u' && o.kind === 's');
  add({
    name, cls: 'valu', encoding, ops, latency: valuLatency(name, trans, dot), suffixes,
    ...gateOf(name), ...extra,
    implicitDefs: defs, implicitUses: uses,
    valu: {
      trans, vopc, cmpx, dot, readsMode: mode, writesSgpr,
      d16: /_(f16|i16|u16|b16)$/.test(name) && !/^v_(pk_|cvt_f32_f16|cvt_\w+_f16$)/.test(name),
    },
  });
}

function buildVopc(): void {
  const fconds = words('f lt eq le gt lg ge o u nge nlg ngt nle neq nlt tru');
  const iconds = words('f lt eq le gt ne ge t');
  for (const x of ['cmp', 'cmpx']) {
    for (const t of ['f16', 'f32', 'f64']) {
      const w = t === 'f64' ? 2 : 1;
      for (const c of fconds) addValu(`v_${x}_${c}_${t}`, 'vopc', sig(`S2 x${w} x${w}`), SUFFIX.e32 | SUFFIX.e64 | SUFFIX.sdwa);
      addValu(`v_${x}_class_${t}`, 'vopc', sig(`S2 x${w} x`), SUFFIX.e32 | SUFFIX.e64 | SUFFIX.sdwa);
    }
    for (const t of ['i16', 'i32', 'i64', 'u16', 'u32', 'u64']) {
      const w = t.endsWith('64') ? 2 : 1;
      for (const c of iconds) addValu(`v_${x}_${c}_${t}`, 'vopc', sig(`S2 x${w} x${w}`), SUFFIX.e32 | SUFFIX.e64 | SUFFIX.sdwa);
    }
  }
}

function buildValu(): void {
  const ALL = SUFFIX.e32 | SUFFIX.e64 | SUFFIX.sdwa | SUFFIX.dpp;
  for (const [s, names] of table(VOP1)) {
    for (const n of names) addValu(n, 'vop1', sig(s), n.endsWith('64') && /(f64|b64)$/.test(n) ? SUFFIX.e32 | SUFFIX.e64 | SUFFIX.dpp : ALL);
  }
  for (const [s, names] of table(VOP1_SPECIAL)) {
    for (const n of names) {
      const sfx = n === 'v_readfirstlane_b32' ? SUFFIX.e32 | SUFFIX.e64
        : n.startsWith('v_permlane') ? SUFFIX.e32 | SUFFIX.e64
          : n === 'v_nop' || n === 'v_clrexcp' ? SUFFIX.e32 | SUFFIX.e64 | SUFFIX.sdwa | SUFFIX.dpp : SUFFIX.e32;
      addValu(n, 'vop1', sig(s), sfx, n === 'v_nop' ? { cls: 'nop', latency: 'nop' } : {});
    }
  }
  for (const [s, names] of table(VOP2)) {
    for (const n of names) addValu(n, 'vop2', sig(s), n === 'v_fmac_f64' ? SUFFIX.e32 | SUFFIX.e64 | SUFFIX.dpp : ALL);
  }
  for (const [s, names] of table(VOP2_LITERAL)) for (const n of names) addValu(n, 'vop2', sig(s), 0);
  for (const [s, names] of table(VOP3)) for (const n of names) addValu(n, 'vop3', sig(s), SUFFIX.e64);
  for (const [s, names] of table(VOP3P)) for (const n of names) addValu(n, 'vop3p', sig(s), 0);
  buildVopc();
  // VGPR-indexed moves of GFX8 and GFX10+; GFX9 indexes with s_set_gpr_idx_on instead.
  for (const n of words('v_movrels_b32 v_movreld_b32 v_movrelsd_b32 v_movrelsd_2_b32')) {
    addValu(n, 'vop1', sig('D x'), SUFFIX.e32 | SUFFIX.e64, {
      implicitUses: [M0], never: 'not a GFX9 instruction (GFX8 and GFX10+); GFX9 indexes VGPRs with s_set_gpr_idx_on',
    });
  }
  // v_interp_* (VINTRP): vdst, vsrc or parameter, attribute; p2 accumulates into vdst.
  addValu('v_interp_p1_f32', 'vintrp', sig('D x t'), SUFFIX.e32 | SUFFIX.e64);
  addValu('v_interp_p2_f32', 'vintrp', sig('T x t'), SUFFIX.e32 | SUFFIX.e64);
  addValu('v_interp_mov_f32', 'vintrp', [op('vdst', 'd', 'v', 1), op('imm', 'u', 'any', 0), op('attr', 'u', 'any', 0)], SUFFIX.e32 | SUFFIX.e64);
}

/* ------------------------------------------------------------------------------------------ */
/* MFMA / SMFMAC                                                                               */
/* ------------------------------------------------------------------------------------------ */

/** Every MFMA/SMFMAC mnemonic the five targets accept (gfx908/gfx90a and gfx940 spellings). */
const MFMA_NAMES = `
v_mfma_f32_32x32x1f32 v_mfma_f32_16x16x1f32 v_mfma_f32_4x4x1f32 v_mfma_f32_32x32x2f32 v_mfma_f32_16x16x4f32
v_mfma_f32_32x32x4f16 v_mfma_f32_16x16x4f16 v_mfma_f32_4x4x4f16 v_mfma_f32_32x32x8f16 v_mfma_f32_16x16x16f16
v_mfma_i32_32x32x4i8 v_mfma_i32_16x16x4i8 v_mfma_i32_4x4x4i8 v_mfma_i32_32x32x8i8 v_mfma_i32_16x16x16i8
v_mfma_f32_32x32x2bf16 v_mfma_f32_16x16x2bf16 v_mfma_f32_4x4x2bf16 v_mfma_f32_32x32x4bf16 v_mfma_f32_16x16x8bf16
v_mfma_f32_32x32x4bf16_1k v_mfma_f32_16x16x4bf16_1k v_mfma_f32_4x4x4bf16_1k v_mfma_f32_32x32x8bf16_1k
v_mfma_f32_16x16x16bf16_1k v_mfma_f64_16x16x4f64 v_mfma_f64_4x4x4f64
v_mfma_f32_32x32x1_2b_f32 v_mfma_f32_16x16x1_4b_f32 v_mfma_f32_4x4x1_16b_f32 v_mfma_f32_32x32x2_f32
v_mfma_f32_16x16x4_f32 v_mfma_f32_32x32x4_2b_f16 v_mfma_f32_16x16x4_4b_f16 v_mfma_f32_4x4x4_16b_f16
v_mfma_f32_32x32x8_f16 v_mfma_f32_16x16x16_f16 v_mfma_i32_32x32x4_2b_i8 v_mfma_i32_16x16x4_4b_i8
v_mfma_i32_4x4x4_16b_i8 v_mfma_i32_32x32x16_i8 v_mfma_i32_16x16x32_i8 v_mfma_f32_32x32x4_2b_bf16
v_mfma_f32_16x16x4_4b_bf16 v_mfma_f32_4x4x4_16b_bf16 v_mfma_f32_32x32x8_bf16 v_mfma_f32_16x16x16_bf16
v_mfma_f64_16x16x4_f64 v_mfma_f64_4x4x4_4b_f64 v_mfma_f32_16x16x8_xf32 v_mfma_f32_32x32x4_xf32
v_mfma_f32_16x16x32_bf8_bf8 v_mfma_f32_16x16x32_bf8_fp8 v_mfma_f32_16x16x32_fp8_bf8 v_mfma_f32_16x16x32_fp8_fp8
v_mfma_f32_32x32x16_bf8_bf8 v_mfma_f32_32x32x16_bf8_fp8 v_mfma_f32_32x32x16_fp8_bf8 v_mfma_f32_32x32x16_fp8_fp8
v_mfma_f32_16x16x32_f16 v_mfma_f32_16x16x32_bf16 v_mfma_i32_16x16x64_i8 v_mfma_f32_32x32x16_f16
v_mfma_f32_32x32x16_bf16 v_mfma_i32_32x32x32_i8 v_mfma_f32_16x16x128_f8f6f4 v_mfma_f32_32x32x64_f8f6f4
v_mfma_scale_f32_16x16x128_f8f6f4 v_mfma_scale_f32_32x32x64_f8f6f4
v_smfmac_f32_16x16x32_f16 v_smfmac_f32_32x32x16_f16 v_smfmac_f32_16x16x32_bf16 v_smfmac_f32_32x32x16_bf16
v_smfmac_i32_16x16x64_i8 v_smfmac_i32_32x32x32_i8 v_smfmac_f32_16x16x64_bf8_bf8 v_smfmac_f32_16x16x64_bf8_fp8
v_smfmac_f32_16x16x64_fp8_bf8 v_smfmac_f32_16x16x64_fp8_fp8 v_smfmac_f32_32x32x32_bf8_bf8
v_smfmac_f32_32x32x32_bf8_fp8 v_smfmac_f32_32x32x32_fp8_bf8 v_smfmac_f32_32x32x32_fp8_fp8
v_smfmac_f32_16x16x64_f16 v_smfmac_f32_32x32x32_f16 v_smfmac_f32_16x16x64_bf16 v_smfmac_f32_32x32x32_bf16
v_smfmac_i32_16x16x128_i8 v_smfmac_i32_32x32x64_i8 v_smfmac_f32_16x16x128_bf8_bf8 v_smfmac_f32_16x16x128_bf8_fp8
v_smfmac_f32_16x16x128_fp8_bf8 v_smfmac_f32_16x16x128_fp8_fp8 v_smfmac_f32_32x32x64_bf8_bf8
v_smfmac_f32_32x32x64_bf8_fp8 v_smfmac_f32_32x32x64_fp8_bf8 v_smfmac_f32_32x32x64_fp8_fp8
`;

/** gfx940 spellings that exist on gfx942 as well as gfx950 (all others new in gfx950 need gfx950-insts). */
const GFX950_NEW_MFMA = /^v_(mfma_(f32_16x16x32_(f16|bf16)|i32_16x16x64_i8|f32_32x32x16_(f16|bf16)|i32_32x32x32_i8|(scale_)?f32_\d+x\d+x\d+_f8f6f4)|smfmac_(f32_16x16x64_(f16|bf16)|f32_32x32x32_(f16|bf16)|i32_16x16x128_i8|i32_32x32x64_i8|f32_16x16x128_\w+|f32_32x32x64_\w+))$/;

function mfmaGate(name: string, s: NonNullable<ReturnType<typeof parseMfma>>): Gate {
  if (GFX950_NEW_MFMA.test(name)) return G950;
  if (s.type === 'xf32') return { requires: ['xf32-insts'] };
  if (s.type === 'fp8') return { requires: ['fp8-insts'] };
  if (s.legacy) {
    // non-1k bf16 and the single-block i8 shapes were replaced on gfx940 (32x32x16_i8, 16x16x32_i8)
    if (s.type === 'bf16' || (s.type === 'i8' && s.blocks === 1)) return { requires: ['mai'], removedBy: ['gfx940-insts'] };
    if (s.type === 'bf16_1k' || s.type === 'f64') return { requires: ['gfx90a-insts'] };
    return { requires: ['mai'] };
  }
  return G940;
}

function buildMfma(): void {
  for (const name of words(MFMA_NAMES)) {
    const s = parseMfma(name);
    if (!s) throw new Error(`catalogue: cannot parse MFMA ${name}`);
    const ops: OpSpec[] = s.op === 'smfmac'
      ? [op('vdst', 'du', 'va', s.dstUnits), op('srcA', 'u', 'src', s.aUnits), op('srcB', 'u', 'src', s.bUnits), op('idx', 'u', 'v', 1)]
      : [op('vdst', 'd', 'va', s.dstUnits), op('srcA', 'u', 'src', s.aUnits), op('srcB', 'u', 'src', s.bUnits), op('srcC', 'u', 'src', s.dstUnits)];
    if (s.scaled) ops.push(op('scaleA', 'u', 'src', 1), op('scaleB', 'u', 'src', 1));
    const g = mfmaGate(name, s);
    add({
      name, cls: 'mfma', encoding: 'vop3p', ops, latency: 'mfma',
      implicitUses: [...EXEC, MODE], // LLVM 22: every MAI op reads MODE, i8 ones included
      requires: g.requires, removedBy: g.removedBy,
      mfma: { kind: mfmaKind(s), m: s.m, type: s.type, name940: mfma940Name(s, name), scaled: s.scaled },
    });
  }
}

/* ------------------------------------------------------------------------------------------ */
/* DS (LDS / GDS / GWS)                                                                        */
/* ------------------------------------------------------------------------------------------ */

const DS_ATOMIC32 = 'add sub rsub inc dec min_i32 max_i32 min_u32 max_u32 and or xor mskor wrxchg cmpst min_f32 max_f32 add_f32 pk_add_f16 pk_add_bf16';

function dsCounters(gds: boolean): Counters {
  return gds ? { vm: 0, lgkm: 1, exp: 1 } : { vm: 0, lgkm: 1, exp: 0 };
}

function addDs(name: string, ops: OpSpec[], memOp: MemOp, dwords: number, opts: { m0?: boolean; gws?: boolean; d16?: boolean } = {}): void {
  const uses: RegUnit[] = [...EXEC];
  if (opts.m0 || opts.gws) uses.push(M0);
  add({
    name, cls: 'ds', encoding: 'ds', ops, implicitUses: uses,
    counters: dsCounters(!!opts.gws), events: [opts.gws ? 'gds' : 'lds'], latency: 'ds',
    mem: { space: opts.gws ? 'gws' : 'lds', op: memOp, dwords, d16: !!opts.d16 }, ...gateOf(name),
  });
}

function buildDs(): void {
  const vaddr = op('vaddr', 'u', 'v', 1);
  const vdst = (n: number, acc: Access = 'd') => op('vdst', acc, 'va', n);
  const vdata = (n: number, role: OperandRole = 'vdata') => op(role, 'u', 'va', n);
  // loads
  const reads: [string, number][] = [['b32', 1], ['b64', 2], ['b96', 3], ['b128', 4], ['u8', 1], ['i8', 1], ['u16', 1], ['i16', 1]];
  for (const [t, n] of reads) addDs(`ds_read_${t}`, [vdst(n), vaddr], 'load', n);
  for (const t of ['u8_d16', 'u8_d16_hi', 'i8_d16', 'i8_d16_hi', 'u16_d16', 'u16_d16_hi']) addDs(`ds_read_${t}`, [vdst(1, 'du'), vaddr], 'load', 1, { d16: true });
  addDs('ds_read2_b32', [vdst(2), vaddr], 'load', 2);
  addDs('ds_read2st64_b32', [vdst(2), vaddr], 'load', 2);
  addDs('ds_read2_b64', [vdst(4), vaddr], 'load', 4);
  addDs('ds_read2st64_b64', [vdst(4), vaddr], 'load', 4);
  for (const t of ['b64_tr_b4', 'b64_tr_b8', 'b64_tr_b16']) addDs(`ds_read_${t}`, [vdst(2), vaddr], 'load', 2);
  addDs('ds_read_b96_tr_b6', [vdst(3), vaddr], 'load', 3);
  addDs('ds_read_addtid_b32', [vdst(1)], 'load', 1, { m0: true });
  // stores
  const writes: [string, number][] = [['b32', 1], ['b64', 2], ['b96', 3], ['b128', 4], ['b8', 1], ['b16', 1], ['b8_d16_hi', 1], ['b16_d16_hi', 1]];
  for (const [t, n] of writes) addDs(`ds_write_${t}`, [vaddr, vdata(n)], 'store', n);
  addDs('ds_write2_b32', [vaddr, vdata(1), vdata(1, 'vdata1')], 'store', 2);
  addDs('ds_write2st64_b32', [vaddr, vdata(1), vdata(1, 'vdata1')], 'store', 2);
  addDs('ds_write2_b64', [vaddr, vdata(2), vdata(2, 'vdata1')], 'store', 4);
  addDs('ds_write2st64_b64', [vaddr, vdata(2), vdata(2, 'vdata1')], 'store', 4);
  addDs('ds_write_addtid_b32', [vdata(1)], 'store', 1, { m0: true });
  // atomics, 32 and 64 bit, with and without return
  for (const a of words(DS_ATOMIC32)) {
    const two = a === 'mskor' || a === 'cmpst';
    const has64 = !/_f32$|pk_add/.test(a);
    const bases: [string, number][] = [];
    if (/^(min|max)_(i32|u32|f32)$/.test(a)) {
      const [k, t] = a.split('_') as [string, string];
      bases.push([`${k}_${t}`, 1]);
      bases.push([`${k}_${t.replace('32', '64')}`, 2]);
    } else if (a === 'add_f32') {
      bases.push(['add_f32', 1]);
    } else if (a.startsWith('pk_add')) {
      bases.push([a, 1]);
    } else {
      const t32 = /^(and|or|xor|mskor|wrxchg|cmpst)$/.test(a) ? 'b32' : 'u32';
      bases.push([`${a}_${t32}`, 1]);
      if (has64) bases.push([`${a}_${t32.replace('32', '64')}`, 2]);
      if (a === 'cmpst') { bases.push(['cmpst_f32', 1], ['cmpst_f64', 2]); }
    }
    for (const [b, n] of bases) {
      const data = two ? [vdata(n), vdata(n, 'vdata1')] : [vdata(n)];
      if (a !== 'wrxchg') addDs(`ds_${b}`, [vaddr, ...data], 'atomic', n);
      const rtn = b.replace(/^(\w+?)_(b32|b64|u32|u64|i32|i64|f32|f64|f16|bf16)$/, '$1_rtn_$2');
      addDs(`ds_${rtn}`, [vdst(n), vaddr, ...data], 'atomic-rtn', n);
    }
  }
  addDs('ds_add_f64', [vaddr, vdata(2)], 'atomic', 2);
  addDs('ds_add_rtn_f64', [vdst(2), vaddr, vdata(2)], 'atomic-rtn', 2);
  addDs('ds_wrap_rtn_b32', [vdst(1), vaddr, vdata(1), vdata(1, 'vdata1')], 'atomic-rtn', 1);
  addDs('ds_condxchg32_rtn_b64', [vdst(2), vaddr, vdata(2)], 'atomic-rtn', 2);
  addDs('ds_wrxchg2_rtn_b32', [vdst(2), vaddr, vdata(1), vdata(1, 'vdata1')], 'atomic-rtn', 2);
  addDs('ds_wrxchg2st64_rtn_b32', [vdst(2), vaddr, vdata(1), vdata(1, 'vdata1')], 'atomic-rtn', 2);
  addDs('ds_wrxchg2_rtn_b64', [vdst(4), vaddr, vdata(2), vdata(2, 'vdata1')], 'atomic-rtn', 4);
  addDs('ds_wrxchg2st64_rtn_b64', [vdst(4), vaddr, vdata(2), vdata(2, 'vdata1')], 'atomic-rtn', 4);
  // lane exchange: no LDS memory access but LDS hardware and lgkmcnt
  addDs('ds_swizzle_b32', [vdst(1), vaddr], 'other', 1);
  addDs('ds_permute_b32', [vdst(1), vaddr, vdata(1)], 'other', 1);
  addDs('ds_bpermute_b32', [vdst(1), vaddr, vdata(1)], 'other', 1);
  addDs('ds_append', [vdst(1)], 'atomic-rtn', 1, { m0: true });
  addDs('ds_consume', [vdst(1)], 'atomic-rtn', 1, { m0: true });
  // GDS-only reductions of a register into memory (removed on gfx90a)
  for (const b of words(`add_u32 sub_u32 rsub_u32 inc_u32 dec_u32 min_i32 max_i32 min_u32 max_u32 and_b32 or_b32 xor_b32
    min_f32 max_f32 add_f32 add_u64 sub_u64 rsub_u64 inc_u64 dec_u64 min_i64 max_i64 min_u64 max_u64 and_b64 or_b64
    xor_b64 min_f64 max_f64 write_b32 write_b64`)) {
    const name = b.startsWith('write_') ? `ds_write_src2_${b.slice(6)}` : b.replace(/^(\w+?)_(\w+)$/, 'ds_$1_src2_$2');
    addDs(name, [vaddr], 'atomic', /64$/.test(b) ? 2 : 1, { m0: true }); // LLVM 22: implicit $m0
  }
  // GWS (global wave sync) and ordered count: always GDS, M0 holds the resource base
  addDs('ds_gws_init', [vdata(1)], 'other', 0, { gws: true });
  addDs('ds_gws_sema_br', [vdata(1)], 'other', 0, { gws: true });
  addDs('ds_gws_barrier', [vdata(1)], 'other', 0, { gws: true });
  addDs('ds_gws_sema_v', [], 'other', 0, { gws: true });
  addDs('ds_gws_sema_p', [], 'other', 0, { gws: true });
  addDs('ds_gws_sema_release_all', [], 'other', 0, { gws: true });
  addDs('ds_ordered_count', [vdst(1), vaddr], 'atomic-rtn', 1, { gws: true });
  add({ name: 'ds_nop', cls: 'nop', encoding: 'ds', ops: [], latency: 'nop', implicitUses: [M0, ...EXEC] });
}

/* ------------------------------------------------------------------------------------------ */
/* MUBUF / MTBUF / FLAT / GLOBAL / SCRATCH                                                     */
/* ------------------------------------------------------------------------------------------ */

const VMEM_ATOMICS: [string, number][] = [
  ['swap', 1], ['cmpswap', 2], ['add', 1], ['sub', 1], ['smin', 1], ['umin', 1], ['smax', 1], ['umax', 1],
  ['and', 1], ['or', 1], ['xor', 1], ['inc', 1], ['dec', 1],
];

/** Loads and stores common to buffer/global/flat/scratch: suffix -> [dwords, d16 (keeps other half)]. */
const VMEM_LOADS: [string, number, boolean][] = [
  ['ubyte', 1, false], ['sbyte', 1, false], ['ushort', 1, false], ['sshort', 1, false], ['dword', 1, false],
  ['dwordx2', 2, false], ['dwordx3', 3, false], ['dwordx4', 4, false],
  ['ubyte_d16', 1, true], ['ubyte_d16_hi', 1, true], ['sbyte_d16', 1, true], ['sbyte_d16_hi', 1, true],
  ['short_d16', 1, true], ['short_d16_hi', 1, true],
];
const VMEM_STORES: [string, number][] = [
  ['byte', 1], ['byte_d16_hi', 1], ['short', 1], ['short_d16_hi', 1], ['dword', 1], ['dwordx2', 2], ['dwordx3', 3], ['dwordx4', 4],
];
const VMEM_FP_ATOMICS: [string, number][] = [['add_f32', 1], ['pk_add_f16', 1], ['pk_add_bf16', 1], ['add_f64', 2], ['min_f64', 2], ['max_f64', 2]];

type VmemInit = Pick<DescInit, 'cls' | 'latency'> & Omit<Partial<DescInit>, 'name' | 'encoding' | 'ops'>;

function vmemInit(name: string, space: MemSpace, memOp: MemOp, dwords: number, d16: boolean): VmemInit {
  const flat = space === 'flat';
  const uses: RegUnit[] = [...EXEC];
  if (memOp === 'load-lds' || memOp === 'store-lds') uses.push(M0);
  // flat_* and scratch_* may address scratch through FLAT_SCRATCH (LLVM: implicit $flat_scr).
  if (space === 'flat' || space === 'scratch') uses.push(FLAT_SCRATCH_LO, FLAT_SCRATCH_HI);
  const store = memOp === 'store' || memOp === 'atomic' || memOp === 'load-lds' || memOp === 'store-lds';
  return {
    cls: flat ? 'flat' : 'vmem',
    implicitUses: uses,
    counters: flat ? { vm: 1, lgkm: 1, exp: 0 } : { vm: 1, lgkm: 0, exp: 0 },
    events: flat ? ['flat'] : [store ? 'vmem-store' : 'vmem-load'],
    latency: flat ? 'flat' : 'vmem',
    mem: { space, op: memOp, dwords, d16 },
    ...gateOf(name),
  };
}

function buildBuffer(): void {
  const vaddr = op('vaddr', 'u', 'vaddr', 0); // width from offen/idxen, checked in resolve.ts
  const srsrc = op('srsrc', 'u', 's', 4);
  const soffset = op('soffset', 'u', 'ssrc', 1);
  const mk = (name: string, first: OpSpec | undefined, memOp: MemOp, dwords: number, d16 = false, encoding: Encoding = 'mubuf') => {
    const ops = first ? [first, vaddr, srsrc, soffset] : [vaddr, srsrc, soffset];
    add({ ...vmemInit(name, 'buffer', memOp, dwords, d16), name, encoding, ops });
  };
  for (const [t, n, d16] of VMEM_LOADS) mk(`buffer_load_${t}`, op('vdst', d16 ? 'du' : 'd', 'va', n), 'load', n, d16);
  for (const [t, n] of VMEM_STORES) mk(`buffer_store_${t}`, op('vdata', 'u', 'va', n), 'store', n);
  const fmts: [string, number][] = [['x', 1], ['xy', 2], ['xyz', 3], ['xyzw', 4]];
  for (const pre of ['buffer', 'tbuffer']) {
    const enc: Encoding = pre === 'tbuffer' ? 'mtbuf' : 'mubuf';
    for (const [f, n] of fmts) {
      mk(`${pre}_load_format_${f}`, op('vdst', 'd', 'va', n), 'load', n, false, enc);
      mk(`${pre}_store_format_${f}`, op('vdata', 'u', 'va', n), 'store', n, false, enc);
      const h = Math.ceil(n / 2);
      mk(`${pre}_load_format_d16_${f}`, op('vdst', 'd', 'va', h), 'load', h, false, enc);
      mk(`${pre}_store_format_d16_${f}`, op('vdata', 'u', 'va', h), 'store', h, false, enc);
    }
  }
  mk('buffer_load_format_d16_hi_x', op('vdst', 'du', 'va', 1), 'load', 1, true);
  mk('buffer_store_format_d16_hi_x', op('vdata', 'u', 'va', 1), 'store', 1);
  for (const [a, n] of [...VMEM_ATOMICS, ...VMEM_FP_ATOMICS]) {
    for (const x2 of a.endsWith('64') || VMEM_FP_ATOMICS.some(([f]) => f === a) ? [false] : [false, true]) {
      const w = n * (x2 ? 2 : 1);
      mk(`buffer_atomic_${a}${x2 ? '_x2' : ''}`, op('vdata', 'u', 'va', w), 'atomic', w);
    }
  }
  // buffer_store_lds_dword: LDS (at M0) to memory
  add({ ...vmemInit('buffer_store_lds_dword', 'buffer', 'store-lds', 1, false), name: 'buffer_store_lds_dword', encoding: 'mubuf', ops: [srsrc, soffset] });
  // cache control: LLVM SIInsertWaitcnts counts none of them on vmcnt, the writeback buffer_wbl2
  // included: the memory model's release writes buffer_wbl2 and a soft s_waitcnt vmcnt(0) after it,
  // which SIInsertWaitcnts drops when nothing else is outstanding (llc 22 -mcpu=gfx942 of `fence
  // syncscope("agent") release` then a store, or a return, writes buffer_wbl2 sc1 and no wait). The
  // wait orders the memory operations before the writeback (waitcnt SOURCES.release).
  for (const name of words('buffer_wbinvl1 buffer_wbinvl1_vol buffer_inv buffer_invl2 buffer_wbl2')) {
    add({
      name, cls: 'other', encoding: 'mubuf', ops: [], latency: 'vmem', ...gateOf(name), implicitUses: EXEC,
      counters: NO_COUNT, events: [],
      mem: { space: 'global', op: 'cache', dwords: 0, d16: false },
    });
  }
}

function buildFlat(): void {
  for (const seg of ['flat', 'global', 'scratch'] as const) {
    const space: MemSpace = seg;
    const encoding: Encoding = seg;
    const vaddr = seg === 'flat' ? op('vaddr', 'u', 'v', 2) : op('vaddr', 'u', 'vaddr', 0);
    const tail = seg === 'flat' ? [] : [op('saddr', 'u', 'saddr', 0)];
    const mk = (name: string, ops: OpSpec[], memOp: MemOp, dwords: number, d16 = false) =>
      add({ ...vmemInit(name, space, memOp, dwords, d16), name, encoding, ops });
    for (const [t, n, d16] of VMEM_LOADS) mk(`${seg}_load_${t}`, [op('vdst', d16 ? 'du' : 'd', 'va', n), vaddr, ...tail], 'load', n, d16);
    for (const [t, n] of VMEM_STORES) mk(`${seg}_store_${t}`, [vaddr, op('vdata', 'u', 'va', n), ...tail], 'store', n);
    if (seg !== 'flat') {
      for (const t of ['ubyte', 'sbyte', 'ushort', 'sshort', 'dword', 'dwordx3', 'dwordx4']) {
        if (seg === 'scratch' && t.startsWith('dwordx')) continue;
        mk(`${seg}_load_lds_${t}`, [vaddr, ...tail], 'load-lds', t === 'dwordx3' ? 3 : t === 'dwordx4' ? 4 : 1);
      }
    }
    if (seg === 'scratch') continue;
    for (const [a, n] of [...VMEM_ATOMICS, ...VMEM_FP_ATOMICS]) {
      for (const x2 of a.endsWith('64') || VMEM_FP_ATOMICS.some(([f]) => f === a) ? [false] : [false, true]) {
        const w = n * (x2 ? 2 : 1);
        // Without glc/sc0 the returning vdst operand is absent (resolve.ts inserts it when written).
        mk(`${seg}_atomic_${a}${x2 ? '_x2' : ''}`, [vaddr, op('vdata', 'u', 'va', w), ...tail], 'atomic', w);
      }
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Export                                                                                      */
/* ------------------------------------------------------------------------------------------ */

function buildExport(): void {
  const src = (i: number) => op(i === 0 ? 'src0' : i === 1 ? 'src1' : i === 2 ? 'src2' : 'vdata', 'u', 'vaddr', 1);
  add({
    name: 'exp', cls: 'export', encoding: 'exp',
    ops: [op('target', 'u', 'any', 0), src(0), src(1), src(2), src(3)],
    implicitUses: [...EXEC], counters: { vm: 0, lgkm: 0, exp: 1 }, events: ['export'], latency: 'export',
    ...gateOf('exp'),
  });
}

/* ------------------------------------------------------------------------------------------ */

buildScalar();
buildSmem();
buildValu();
buildMfma();
buildDs();
buildBuffer();
buildFlat();
buildExport();

/**
 * Other spellings llvm-mc accepts for a mnemonic (accvgpr-altnames.s in the llvm-mc corpus;
 * v_mul_lo_i32: LLVM VOP3Instructions.td's mnemonic alias of v_mul_lo_u32, which llvm-mc 22
 * encodes with v_mul_lo_u32's opcode on gfx906..gfx950, measured; MIOpen's xform_data_filter.inc
 * writes it).
 */
const ALIASES = new Map<string, string>([
  ['v_accvgpr_read', 'v_accvgpr_read_b32'],
  ['v_accvgpr_write', 'v_accvgpr_write_b32'],
  ['v_mul_lo_i32', 'v_mul_lo_u32'],
]);

/**
 * The VALU instructions outside VOP3P that take an op_sel modifier: LLVM VOP3Instructions.td's
 * VOP3_OPSEL profiles on GFX9 (the 16-bit three-operand and min/max/med ops, v_pack_b32_f16,
 * v_alignbit/alignbyte, the 16-bit-to-32 mads, v_interp_p2_f16), v_pk_fmac_f16's VOP3 form, and
 * the gfx940/gfx950 converts that select a word or byte with it. Measured: llvm-mc 22 accepts
 * `op_sel` on exactly these of the catalogue's VALU opcodes, on every one of gfx906, gfx908,
 * gfx90a, gfx942 and gfx950 that has the instruction, and refuses it on the others ("not a valid
 * operand": v_add_f16_e64, v_add_u32_e64, v_fma_f32, v_cvt_pk_bf16_f32 ...).
 */
export const VOP3_OP_SEL: ReadonlySet<string> = new Set(words(`v_add_i16 v_sub_i16 v_alignbit_b32 v_alignbyte_b32
  v_cvt_pknorm_i16_f16 v_cvt_pknorm_u16_f16 v_div_fixup_f16 v_fma_f16 v_mad_f16 v_mad_i16 v_mad_u16
  v_mad_i32_i16 v_mad_u32_u16 v_max3_f16 v_max3_i16 v_max3_u16 v_med3_f16 v_med3_i16 v_med3_u16
  v_min3_f16 v_min3_i16 v_min3_u16 v_pack_b32_f16 v_interp_p2_f16 v_pk_fmac_f16
  v_cvt_pk_fp8_f32 v_cvt_pk_bf8_f32 v_cvt_sr_fp8_f32 v_cvt_sr_bf8_f32
  v_cvt_sr_bf16_f32 v_cvt_sr_f16_f32 v_ashr_pk_i8_i32 v_ashr_pk_u8_i32 v_bitop3_b16
  v_cvt_scalef32_f16_bf8 v_cvt_scalef32_f16_fp8 v_cvt_scalef32_f32_bf8 v_cvt_scalef32_f32_fp8
  v_cvt_scalef32_pk_bf16_bf8 v_cvt_scalef32_pk_bf16_fp4 v_cvt_scalef32_pk_bf16_fp8 v_cvt_scalef32_pk_bf8_bf16
  v_cvt_scalef32_pk_bf8_f16 v_cvt_scalef32_pk_bf8_f32 v_cvt_scalef32_pk_f16_bf8 v_cvt_scalef32_pk_f16_fp4
  v_cvt_scalef32_pk_f16_fp8 v_cvt_scalef32_pk_f32_bf8 v_cvt_scalef32_pk_f32_fp4 v_cvt_scalef32_pk_f32_fp8
  v_cvt_scalef32_pk_fp4_bf16 v_cvt_scalef32_pk_fp4_f16 v_cvt_scalef32_pk_fp4_f32 v_cvt_scalef32_pk_fp8_bf16
  v_cvt_scalef32_pk_fp8_f16 v_cvt_scalef32_pk_fp8_f32 v_cvt_scalef32_sr_bf8_bf16 v_cvt_scalef32_sr_bf8_f16
  v_cvt_scalef32_sr_bf8_f32 v_cvt_scalef32_sr_fp8_bf16 v_cvt_scalef32_sr_fp8_f16 v_cvt_scalef32_sr_fp8_f32
  v_cvt_scalef32_sr_pk_fp4_bf16 v_cvt_scalef32_sr_pk_fp4_f16 v_cvt_scalef32_sr_pk_fp4_f32`));

/** Descriptor of a mnemonic (suffix already removed), or undefined when it is unknown. */
export function lookupInsn(base: string): InsnDesc | undefined {
  return CATALOGUE.get(base) ?? CATALOGUE.get(ALIASES.get(base) ?? '');
}

/** Every catalogued mnemonic (for tests and tools). */
export function allInsns(): IterableIterator<InsnDesc> {
  return CATALOGUE.values();
}

export function catalogueSize(): number {
  return CATALOGUE.size;
}
