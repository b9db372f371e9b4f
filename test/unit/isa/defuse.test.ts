/**
 * What each instruction reads and writes: one row per family and per special case.
 * Columns: instruction text, target, defs, uses (units, explicit + implicit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectDefUse, res, U } from './helpers.js';
import type { TargetName } from '../../../src/isa/target.js';

type Row = [text: string, target: TargetName, defs: string, uses: string];

function rows(name: string, table: Row[]): void {
  test(name, () => {
    for (const [text, target, defs, uses] of table) expectDefUse(text, defs, uses, target);
  });
}

rows('SALU: SCC writers and readers, 64-bit tuples, tied destinations', [
  ['s_add_u32 s0, s1, s2', 'gfx942', 's0 scc', 's1 s2'],
  ['s_addc_u32 s1, s3, 0', 'gfx942', 's1 scc', 's3 scc'],
  ['s_mul_i32 s0, s1, s2', 'gfx942', 's0', 's1 s2'],
  ['s_mul_hi_u32 s0, s1, s2', 'gfx90a', 's0', 's1 s2'],
  ['s_lshl_b64 s[0:1], s[2:3], 4', 'gfx906', 's[0:1] scc', 's[2:3]'],
  ['s_lshl2_add_u32 s0, s1, s2', 'gfx908', 's0 scc', 's1 s2'],
  ['s_cselect_b64 s[0:1], s[2:3], 0', 'gfx942', 's[0:1]', 's[2:3] scc'],
  ['s_cselect_b32 s0, s1, s2', 'gfx950', 's0', 's1 s2 scc'],
  // a conditional move keeps its destination when SCC is 0: it reads it
  ['s_cmov_b32 s0, s1', 'gfx942', 's0', 's0 s1 scc'],
  ['s_cmov_b64 s[0:1], s[2:3]', 'gfx90a', 's[0:1]', 's[0:1] s[2:3] scc'],
  ['s_cmovk_i32 s0, 0x10', 'gfx908', 's0', 's0 scc'],
  ['s_cmp_eq_u32 s0, 1', 'gfx942', 'scc', 's0'],
  ['s_cmp_lg_u64 s[0:1], 0', 'gfx942', 'scc', 's[0:1]'],
  ['s_bitcmp1_b32 s0, 3', 'gfx906', 'scc', 's0'],
  ['s_cmpk_lt_i32 s0, 0x10', 'gfx942', 'scc', 's0'],
  ['s_movk_i32 s0, 0x1234', 'gfx942', 's0', ''],
  ['s_addk_i32 s0, 0x10', 'gfx942', 's0 scc', 's0'],
  ['s_mulk_i32 s0, 3', 'gfx942', 's0', 's0'],
  ['s_bitset1_b32 s0, 5', 'gfx942', 's0', 's0'],
  ['s_mov_b32 s0, s1', 'gfx942', 's0', 's1'],
  ['s_mov_b64 exec, s[0:1]', 'gfx942', 'exec', 's[0:1]'],
  ['s_mov_b32 m0, -1', 'gfx942', 'm0', ''],
  ['s_not_b64 s[0:1], s[2:3]', 'gfx942', 's[0:1] scc', 's[2:3]'],
  ['s_and_saveexec_b64 s[0:1], vcc', 'gfx942', 's[0:1] exec scc', 'vcc exec'],
  ['s_andn2_wrexec_b64 s[0:1], s[2:3]', 'gfx942', 's[0:1] exec scc', 's[2:3] exec'],
  ['s_and_b64 exec, exec, s[4:5]', 'gfx942', 'exec scc', 'exec s[4:5]'],
  ['s_movrels_b32 s0, s4', 'gfx906', 's0', 's4 m0'],
  ['s_movreld_b64 s[0:1], s[4:5]', 'gfx906', 's[0:1]', 's[4:5] m0'],
  ['s_set_gpr_idx_on s2, gpr_idx(SRC0)', 'gfx906', 'm0 mode', 's2 m0 mode'],
  ['s_set_gpr_idx_off', 'gfx906', 'mode', 'mode'],
  ['s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0', 'gfx942', 'mode', 's0 mode'],
  ['s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xf', 'gfx942', 'mode', 'mode'],
  ['s_getreg_b32 s0, hwreg(HW_REG_MODE)', 'gfx942', 's0', 'mode'],
]);

rows('branches, messages and other scalar control', [
  ['s_branch 0', 'gfx942', '', ''],
  ['s_cbranch_scc1 0', 'gfx942', '', 'scc'],
  ['s_cbranch_vccnz 0', 'gfx942', '', 'vcc'],
  ['s_cbranch_execz 0', 'gfx942', '', 'exec'],
  ['s_setpc_b64 s[30:31]', 'gfx942', '', 's[30:31]'],
  ['s_swappc_b64 s[30:31], s[4:5]', 'gfx942', 's[30:31]', 's[4:5]'],
  ['s_getpc_b64 s[0:1]', 'gfx942', 's[0:1]', ''],
  ['s_call_b64 s[30:31], 0', 'gfx942', 's[30:31]', ''],
  ['s_sendmsg sendmsg(MSG_INTERRUPT)', 'gfx942', '', 'm0 exec'],
  ['s_waitcnt vmcnt(0) lgkmcnt(0)', 'gfx942', '', ''],
  ['s_waitcnt 0', 'gfx942', '', ''],
  ['s_barrier', 'gfx942', '', ''],
  ['s_nop 7', 'gfx942', '', ''],
  ['s_endpgm', 'gfx942', '', ''],
  ['s_setprio 3', 'gfx942', '', ''],
  ['s_sleep 1', 'gfx942', '', ''],
  ['s_trap 2', 'gfx942', '', ''],
  ['s_icache_inv', 'gfx942', '', ''],
]);

rows('SMEM: loads, stores, atomics with and without return, optional offset', [
  ['s_load_dwordx4 s[4:7], s[0:1], 0x10', 'gfx942', 's[4:7]', 's[0:1]'],
  ['s_load_dword s4, s[0:1]', 'gfx942', 's4', 's[0:1]'],
  ['s_buffer_load_dwordx2 s[4:5], s[8:11], s12', 'gfx90a', 's[4:5]', 's[8:11] s12'],
  ['s_store_dword s4, s[0:1], 0', 'gfx906', '', 's4 s[0:1]'],
  ['s_atomic_add s4, s[0:1], 0', 'gfx942', '', 's4 s[0:1]'],
  ['s_atomic_add s4, s[0:1], 0 glc', 'gfx942', 's4', 's4 s[0:1]'],
  ['s_buffer_atomic_cmpswap s[4:5], s[8:11], 0 glc', 'gfx90a', 's4', 's[4:5] s[8:11]'],
  ['s_buffer_atomic_dec s4, s[8:11], glc', 'gfx90a', 's4', 's4 s[8:11]'],
  ['s_memtime s[0:1]', 'gfx942', 's[0:1]', ''],
  ['s_dcache_inv', 'gfx942', '', ''],
  ['s_scratch_load_dword s4, s[0:1], 0', 'gfx906', 's4', 's[0:1] flat_scratch'],
]);

rows('VALU: VOP1/VOP2/VOP3, MODE for floating point, tied destinations', [
  ['v_add_u32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 exec'],
  ['v_add_u32 v[1] v[2] v[3]', 'gfx90a', 'v1', 'v2 v3 exec'],
  ['v_add_u32_e64 v0, s1, v2', 'gfx942', 'v0', 's1 v2 exec'],
  ['v_add_f32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 exec mode'],
  ['v_mov_b32 v0, s5', 'gfx942', 'v0', 's5 exec'],
  ['v_cvt_f32_u32 v0, v1', 'gfx942', 'v0', 'v1 exec mode'],
  ['v_cvt_f32_ubyte0 v0, v1', 'gfx942', 'v0', 'v1 exec'],
  ['v_cvt_f64_f32 v[0:1], v2', 'gfx942', 'v[0:1]', 'v2 exec mode'],
  ['v_lshlrev_b64 v[0:1], 2, v[2:3]', 'gfx942', 'v[0:1]', 'v[2:3] exec'],
  ['v_mac_f32 v0, v1, v2', 'gfx906', 'v0', 'v0 v1 v2 exec mode'],
  ['v_fmac_f32 v0, v1, v2', 'gfx942', 'v0', 'v0 v1 v2 exec mode'],
  ['v_fmac_f64 v[0:1], v[2:3], v[4:5]', 'gfx90a', 'v[0:1]', 'v[0:5] exec mode'],
  ['v_pk_fmac_f16 v0, v1, v2', 'gfx908', 'v0', 'v0 v1 v2 exec mode'],
  ['v_madak_f32 v0, v1, v2, 0x41200000', 'gfx906', 'v0', 'v1 v2 exec mode'],
  ['v_fma_f32 v0, v1, v2, v3', 'gfx942', 'v0', 'v1 v2 v3 exec mode'],
  ['v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]', 'gfx942', 'v[0:1]', 'v[2:7] exec mode'],
  ['v_mul_lo_u32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 exec'],
  ['v_exp_f32 v0, v1', 'gfx942', 'v0', 'v1 exec mode'],
  ['v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]', 'gfx90a', 'v[0:1]', 'v[2:7] exec mode'],
  ['v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]', 'gfx90a', 'v[0:1]', 'v[2:5] exec'],
  ['v_dot2_f32_f16 v0, v1, v2, v3', 'gfx906', 'v0', 'v1 v2 v3 exec mode'],
  ['v_dot4_i32_i8 v0, v1, v2, v3', 'gfx942', 'v0', 'v1 v2 v3 exec'],
  ['v_dot2c_f32_f16 v0, v1, v2', 'gfx908', 'v0', 'v0 v1 v2 exec mode'],
  ['v_dot4c_i32_i8 v0, v1, v2', 'gfx942', 'v0', 'v0 v1 v2 exec'],
  ['v_fma_mixlo_f16 v0, v1, v2, v3', 'gfx942', 'v0', 'v0 v1 v2 v3 exec mode'],
  ['v_fma_mix_f32 v0, v1, v2, v3', 'gfx906', 'v0', 'v1 v2 v3 exec mode'],
  ['v_swap_b32 v0, v1', 'gfx942', 'v0 v1', 'v0 v1 exec'],
  ['v_permlane32_swap_b32 v0, v1', 'gfx950', 'v0 v1', 'v0 v1 exec'],
  ['v_nop', 'gfx942', '', 'exec'],
  ['v_mov_b32 v0, src_shared_base', 'gfx942', 'v0', 'exec'],
]);

rows('VALU with SGPR results or operands: VCC, carries, lane selects', [
  ['v_cndmask_b32 v0, v1, v2, vcc', 'gfx942', 'v0', 'v1 v2 vcc exec'],
  ['v_cndmask_b32_e64 v0, v1, v2, s[4:5]', 'gfx942', 'v0', 'v1 v2 s[4:5] exec'],
  ['v_add_co_u32 v0, vcc, v1, v2', 'gfx942', 'v0 vcc', 'v1 v2 exec'],
  ['v_add_co_u32_e64 v0, s[4:5], v1, v2', 'gfx942', 'v0 s[4:5]', 'v1 v2 exec'],
  // e32 written without vcc, as llvm-mc accepts: vcc is still written / read
  ['v_cndmask_b32_e32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 vcc exec'],
  ['v_cndmask_b32 v0, v1, v2', 'gfx906', 'v0', 'v1 v2 vcc exec'],
  ['v_add_co_u32_e32 v0, v1, v2', 'gfx90a', 'v0 vcc', 'v1 v2 exec'],
  ['v_sub_co_u32 v0, v1, v2', 'gfx950', 'v0 vcc', 'v1 v2 exec'],
  ['v_addc_co_u32 v0, vcc, v1, v2, vcc', 'gfx942', 'v0 vcc', 'v1 v2 vcc exec'],
  ['v_addc_co_u32_e64 v0, s[0:1], v1, v2, s[2:3]', 'gfx942', 'v0 s[0:1]', 'v1 v2 s[2:3] exec'],
  ['v_sub_co_u32_e32 v0, vcc, s4, v2', 'gfx90a', 'v0 vcc', 's4 v2 exec'],
  ['v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5]', 'gfx942', 'v[0:1] s[2:3]', 'v2 v3 v[4:5] exec'],
  ['v_div_scale_f32 v0, vcc, v1, v2, v3', 'gfx942', 'v0 vcc', 'v1 v2 v3 exec mode'],
  ['v_div_fmas_f32 v0, v1, v2, v3', 'gfx942', 'v0', 'v1 v2 v3 vcc exec mode'],
  ['v_readlane_b32 s0, v1, 5', 'gfx942', 's0', 'v1'],
  ['v_readlane_b32 s0, v1, s2', 'gfx942', 's0', 'v1 s2'],
  ['v_writelane_b32 v1, s0, 3', 'gfx942', 'v1', 'v1 s0'],
  ['v_readfirstlane_b32 s0, v1', 'gfx942', 's0', 'v1 exec'],
]);

rows('VOPC: VCC (e32) or an SGPR pair (e64); v_cmpx also writes EXEC', [
  ['v_cmp_eq_u32 vcc, v1, v2', 'gfx942', 'vcc', 'v1 v2 exec'],
  ['v_cmp_eq_u32_e64 s[0:1], v1, v2', 'gfx942', 's[0:1]', 'v1 v2 exec'],
  ['v_cmp_lt_f64 vcc, v[0:1], v[2:3]', 'gfx942', 'vcc', 'v[0:3] exec mode'],
  ['v_cmp_class_f32_e64 s[0:1], v1, v2', 'gfx942', 's[0:1]', 'v1 v2 exec'],
  ['v_cmpx_eq_u32 vcc, v1, v2', 'gfx906', 'vcc exec', 'v1 v2 exec'],
  ['v_cmp_eq_u32_e32 0, v0', 'gfx942', 'vcc', 'v0 exec'],
  ['v_cmp_class_f32 v0, v1', 'gfx906', 'vcc', 'v0 v1 exec'],
  ['v_cmpx_eq_u32_e32 0, v0', 'gfx90a', 'vcc exec', 'v0 exec'],
  ['v_cmpx_gt_u32_e64 s[0:1], v1, v2', 'gfx942', 's[0:1] exec', 'v1 v2 exec'],
  ['v_cmp_eq_u32_sdwa vcc, v1, v2 src0_sel:WORD_1 src1_sel:DWORD', 'gfx90a', 'vcc', 'v1 v2 exec'],
]);

rows('DPP and SDWA: kept destination bits are read', [
  ['v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf', 'gfx942', 'v0', 'v0 v1 exec'],
  ['v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:1', 'gfx942', 'v0', 'v1 exec'],
  ['v_mov_b32_dpp v0, v1 row_shl:1 bound_ctrl:0', 'gfx942', 'v0', 'v1 exec'],
  ['v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0x3 bound_ctrl:1', 'gfx942', 'v0', 'v0 v1 exec'],
  ['v_add_f32_dpp v0, v1, v2 row_shr:1 bound_ctrl:1', 'gfx90a', 'v0', 'v1 v2 exec mode'],
  ['v_fmac_f32_dpp v0, v1, v2 row_shr:1 bound_ctrl:1', 'gfx90a', 'v0', 'v0 v1 v2 exec mode'],
  ['v_mov_b32_sdwa v0, v1 dst_sel:WORD_1', 'gfx942', 'v0', 'v0 v1 exec'],
  ['v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD', 'gfx942', 'v0', 'v1 exec'],
  ['v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_1', 'gfx942', 'v0', 'v1 exec'],
  ['v_add_u16_sdwa v0, v1, v2 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE', 'gfx906', 'v0', 'v0 v1 v2 exec'],
  // VOP3 op_sel: the last bit selects the high half of vdst; the low half is kept
  ['v_mad_u16 v0, v1, v2, v3 op_sel:[1,1,0,1]', 'gfx942', 'v0', 'v0 v1 v2 v3 exec'],
  ['v_mad_u16 v0, v1, v2, v3 op_sel:[1,1,0,0]', 'gfx942', 'v0', 'v1 v2 v3 exec'],
  ['v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]', 'gfx942', 'v0', 'v1 v2 exec mode'],
]);

rows('MAI: accvgpr moves, MFMA (srcC read), SMFMAC (vdst read as C, index operand)', [
  ['v_accvgpr_write_b32 a0, v1', 'gfx908', 'a0', 'v1 exec'],
  ['v_accvgpr_write_b32 a1, 0', 'gfx908', 'a1', 'exec'],
  ['v_accvgpr_read_b32 v0, a1', 'gfx90a', 'v0', 'a1 exec'],
  ['v_accvgpr_mov_b32 a0, a1', 'gfx90a', 'a0', 'a1 exec'],
  ['v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]', 'gfx908', 'a[0:15]', 'v[0:3] a[0:15] exec mode'],
  ['v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]', 'gfx942', 'v[0:15]', 'v[0:19] exec mode'],
  ['v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], 0', 'gfx90a', 'v[0:3]', 'v[4:7] exec mode'],
  ['v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[8:11]', 'gfx942', 'v[0:3]', 'v[4:11] exec mode'],
  ['v_mfma_f64_4x4x4f64 a[0:1], v[0:1], v[2:3], a[0:1]', 'gfx90a', 'a[0:1]', 'v[0:3] a[0:1] exec mode'],
  ['v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10', 'gfx942', 'v[0:3]', 'v[0:10] exec mode'],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]', 'gfx950', 'v[0:3]', 'v[0:3] v[4:19] exec mode'],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:15], v[0:3] cbsz:4 blgp:4', 'gfx950', 'v[0:3]', 'v[0:7] v[12:15] exec mode'],
  ['v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21', 'gfx950', 'v[0:3]', 'v[0:21] exec mode'],
]);

rows('VMEM: buffer/global/scratch address forms, stores, atomics, d16, LDS-DMA', [
  ['global_load_dwordx4 v[0:3], v[4:5], off', 'gfx942', 'v[0:3]', 'v[4:5] exec'],
  ['global_load_dwordx4 v[0:3], v4, s[0:1] offset:16', 'gfx942', 'v[0:3]', 'v4 s[0:1] exec'],
  ['global_store_dword v[0:1], v2, off', 'gfx942', '', 'v[0:2] exec'],
  ['global_store_dwordx2 v0, v[2:3], s[4:5]', 'gfx90a', '', 'v0 v[2:3] s[4:5] exec'],
  ['global_atomic_add v[2:3], v4, off', 'gfx90a', '', 'v[2:4] exec'],
  ['global_atomic_add v0, v[2:3], v4, off glc', 'gfx90a', 'v0', 'v[2:4] exec'],
  ['global_atomic_add v0, v[2:3], v4, off sc0', 'gfx942', 'v0', 'v[2:4] exec'],
  ['global_atomic_cmpswap v0, v[2:3], v[4:5], off glc', 'gfx90a', 'v0', 'v[2:5] exec'],
  ['global_atomic_add_f32 v[0:1], v2, off', 'gfx908', '', 'v[0:2] exec'],
  ['global_load_short_d16_hi v0, v[2:3], off', 'gfx942', 'v0', 'v0 v[2:3] exec'],
  ['buffer_load_dword v0, v1, s[4:7], 0 offen', 'gfx942', 'v0', 'v1 s[4:7] exec'],
  ['buffer_load_dword v0, off, s[4:7], s8', 'gfx942', 'v0', 's[4:8] exec'],
  ['buffer_load_dwordx2 v[0:1], v[2:3], s[4:7], 0 idxen offen', 'gfx906', 'v[0:1]', 'v[2:3] s[4:7] exec'],
  ['buffer_store_dword v0, v1, s[4:7], 0 offen', 'gfx942', '', 'v0 v1 s[4:7] exec'],
  ['buffer_atomic_add v0, v1, s[4:7], 0 offen glc', 'gfx906', 'v0', 'v0 v1 s[4:7] exec'],
  ['buffer_atomic_add v0, v1, s[4:7], 0 offen', 'gfx906', '', 'v0 v1 s[4:7] exec'],
  ['buffer_atomic_cmpswap v[0:1], v2, s[4:7], 0 offen glc', 'gfx90a', 'v0', 'v[0:2] s[4:7] exec'],
  ['buffer_load_dword v1, s[4:7], 0 offen lds', 'gfx90a', '', 'v1 s[4:7] m0 exec'],
  ['global_load_lds_dwordx4 v[2:3], off', 'gfx950', '', 'v[2:3] m0 exec'],
  ['global_load_lds_dword v2, s[0:1] offset:16', 'gfx942', '', 'v2 s[0:1] m0 exec'],
  ['scratch_load_dword v0, v1, off', 'gfx942', 'v0', 'v1 flat_scratch exec'],
  ['scratch_store_dword off, v0, s4', 'gfx942', '', 'v0 s4 flat_scratch exec'],
  ['flat_load_dword v0, v[2:3]', 'gfx942', 'v0', 'v[2:3] flat_scratch exec'],
  ['flat_store_dwordx2 v[2:3], v[4:5]', 'gfx90a', '', 'v[2:5] flat_scratch exec'],
  ['buffer_wbinvl1_vol', 'gfx906', '', 'exec'],
  ['buffer_inv sc1', 'gfx942', '', 'exec'],
]);

rows('DS: reads, writes, read2/write2, atomics, GDS, lane exchange, M0 users', [
  ['ds_read_b128 v[0:3], v4 offset:16', 'gfx942', 'v[0:3]', 'v4 exec'],
  ['ds_read2_b32 v[0:1], v4 offset1:1', 'gfx942', 'v[0:1]', 'v4 exec'],
  ['ds_read_u16_d16_hi v0, v1', 'gfx942', 'v0', 'v0 v1 exec'],
  ['ds_write_b64 v4, v[0:1]', 'gfx942', '', 'v4 v[0:1] exec'],
  ['ds_write2_b32 v4, v0, v1 offset1:4', 'gfx942', '', 'v4 v0 v1 exec'],
  ['ds_write_b16_d16_hi v4, v0', 'gfx942', '', 'v4 v0 exec'],
  ['ds_add_rtn_u32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 exec'],
  ['ds_add_u32 v1, v2', 'gfx942', '', 'v1 v2 exec'],
  ['ds_cmpst_rtn_b32 v0, v1, v2, v3', 'gfx942', 'v0', 'v1 v2 v3 exec'],
  ['ds_add_u32 v1, v2 gds', 'gfx906', '', 'v1 v2 m0 exec'],
  ['ds_gws_init v0 gds', 'gfx908', '', 'v0 m0 exec'],
  ['ds_bpermute_b32 v0, v1, v2', 'gfx942', 'v0', 'v1 v2 exec'],
  ['ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)', 'gfx942', 'v0', 'v1 exec'],
  ['ds_append v0', 'gfx942', 'v0', 'm0 exec'],
  ['ds_read_addtid_b32 v0', 'gfx942', 'v0', 'm0 exec'],
  ['ds_write_addtid_b32 v0', 'gfx942', '', 'v0 m0 exec'],
]);

rows('export', [
  ['exp mrt0 v0, v1, v2, v3 done vm', 'gfx906', '', 'v[0:3] exec'],
  ['exp mrt0 v0, off, off, off', 'gfx908', '', 'v0 exec'],
]);

test('operand roles name what hazard rules need', () => {
  const m = res('v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[16:31]', 'gfx908');
  assert.deepEqual(m.operands.map((o) => o.role), ['vdst', 'srcA', 'srcB', 'srcC']);
  assert.deepEqual(m.operands.map((o) => [o.def, o.use]), [[true, false], [false, true], [false, true], [false, true]]);
  const s = res('v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10');
  assert.deepEqual(s.operands.map((o) => o.role), ['vdst', 'srcA', 'srcB', 'idx']);
  assert.deepEqual([s.operands[0]!.def, s.operands[0]!.use], [true, true]);
  const st = res('buffer_store_dword v0, v1, s[4:7], s8 offen');
  assert.deepEqual(st.operands.map((o) => o.role), ['vdata', 'vaddr', 'srsrc', 'soffset']);
  const g = res('global_atomic_add v0, v[2:3], v4, off glc', 'gfx90a');
  assert.deepEqual(g.operands.map((o) => o.role), ['vdst', 'vaddr', 'vdata', 'saddr']);
  const rl = res('v_readlane_b32 s0, v1, s2');
  assert.deepEqual(rl.operands.map((o) => o.role), ['sdst', 'src0', 'lane']);
  const c = res('v_addc_co_u32_e64 v0, s[0:1], v1, v2, s[2:3]');
  assert.deepEqual(c.operands.map((o) => o.role), ['vdst', 'carryOut', 'src0', 'src1', 'carryIn']);
  assert.deepEqual(res('s_load_dword s4, s[0:1], 0').operands.map((o) => o.role), ['sdst', 'sbase', 'soff']);
  // operand records of immediates hold no registers and are neither def nor use
  const k = res('v_madak_f32 v0, v1, v2, 0x41200000', 'gfx906').operands[3]!;
  assert.deepEqual([k.role, k.def, k.use, k.units.length], ['imm', false, false, 0]);
  assert.deepEqual(U('v0'), [...res('v_mov_b32 v0, 1').explicitDefs]);
});
