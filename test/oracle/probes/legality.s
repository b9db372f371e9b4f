// Operand legality probes: each line is judged by llvm-mc 22 on gfx906, gfx908, gfx90a, gfx942 and
// gfx950 (test/oracle/llvm-mc-corpus.test.ts); Conductor must reject exactly the lines llvm-mc rejects.
// Lines llvm-mc accepts that the ISA or LLVM's code generation forbids give warnings, not errors.

// removed registers (tba/tma are not operands on GFX9)
s_mov_b64 s[0:1], tba
s_mov_b32 s0, tma_lo
s_mov_b64 s[0:1], exec

// dlc is GFX10+; scc is not a cache bit from gfx940 on
global_load_dword v0, v[2:3], off dlc
global_load_dword v0, v[2:3], off glc
buffer_load_dword v0, off, s[4:7], 0 scc
buffer_load_dword v0, off, s[4:7], 0 sc0

// memory offsets
flat_load_dword v0, v[2:3] offset:4095
flat_load_dword v0, v[2:3] offset:4096
flat_load_dword v0, v[2:3] offset:-1
global_load_dword v0, v[2:3], off offset:-4096
global_load_dword v0, v[2:3], off offset:-4097
global_load_dword v0, v[2:3], off offset:4095
global_load_dword v0, v[2:3], off offset:4096
scratch_load_dword v0, off, s2 offset:-4096
scratch_load_dword v0, off, s2 offset:4096
ds_read_b32 v0, v1 offset:65535
ds_read_b32 v0, v1 offset:65536
ds_read2_b32 v[0:1], v2 offset0:255 offset1:0
ds_read2_b32 v[0:1], v2 offset0:256 offset1:0
buffer_load_dword v0, off, s[4:7], 0 offset:4095
buffer_load_dword v0, off, s[4:7], 0 offset:4096
s_load_dword s0, s[2:3], 0xfffff
s_load_dword s0, s[2:3], 0x100000
s_load_dword s0, s[2:3], s4 offset:0x10
s_load_dword s0, s[2:3] offset:0x10

// SALU literals: one unique 32-bit literal
s_add_u32 s0, 0x1234, 0x1234
s_add_u32 s0, 0x1234, 0x1235
s_add_u32 s0, 0x1234, 64
s_mov_b32 s0, 0xffffffff
s_mov_b32 s0, -0x80000000
s_mov_b32 s0, 0x100000000
s_mov_b32 s0, -0x80000001
s_mov_b64 s[0:1], 0xffffffff
s_mov_b64 s[0:1], -1
s_mov_b64 s[0:1], 0x100000000
v_mov_b32 v0, 0x100000000
v_mov_b32 v0, 0xffffffff
v_mov_b32 v0, -0x80000000
v_add_f64 v[0:1], 0x3ff00000, v[2:3]

// VOP3 / VOP3P literals (none on GFX9)
v_add_f32_e64 v0, 0x1234, v1
v_add_f32_e64 v0, 64, v1
v_add_f32_e64 v0, 0.5, v1
v_add_f32 v0, 0x1234, v1
v_fma_f32 v0, v1, v2, 0x1234
v_pk_add_f16 v0, 0x1234, v1
v_mad_u32_u24 v0, v1, v2, 1.0

// constant bus: one scalar value per VALU instruction
v_add_f32_e64 v0, s1, s2
v_add_f32_e64 v0, s1, s1
v_add_f32_e64 v0, s1, v2
v_add_f32 v0, s1, v2
v_add_f32 v0, 0x1234, v2
v_addc_co_u32 v0, vcc, s1, v2, vcc
v_addc_co_u32_e64 v0, s[2:3], s1, v2, vcc
v_cndmask_b32 v0, s1, v2, vcc
v_cndmask_b32_e64 v0, s1, v2, s[2:3]
v_cndmask_b32_e64 v0, s1, v2, s[0:1]
v_writelane_b32 v1, s4, m0
v_writelane_b32 v1, s4, s5
v_writelane_b32 v1, s4, 3
v_readlane_b32 s0, v1, s4
v_fma_f32 v0, s1, s1, v2
v_fma_f32 v0, s1, s2, v2
v_fma_f32 v0, exec_lo, s1, v2
v_add_f32_e64 v0, vcc_lo, s1
v_mov_b32 v0, src_shared_base
v_add_f32_e64 v0, src_shared_base, s1

// VOP3B: no abs
v_add_co_u32_e64 v0, s[0:1], |v1|, v2
v_add_co_u32_e64 v0, s[0:1], -v1, v2
v_div_scale_f32 v0, vcc, |v1|, v2, v3
v_div_scale_f32 v0, vcc, -v1, v2, v3
v_mad_u64_u32 v[0:1], s[2:3], |v1|, v2, v[4:5]
v_add_f32_e64 v0, |v1|, -v2

// VOP3P: neg_lo/neg_hi, not -x / |x|
v_pk_add_f16 v0, -v1, v2
v_pk_add_f16 v0, |v1|, v2
v_pk_add_f16 v0, v1, v2 neg_lo:[1,0]
v_dot2_f32_f16 v0, -v1, v2, v3
v_mfma_f32_4x4x1f32 a[0:3], -v0, v1, a[0:3]
// ... but the mixed-precision FMAs take neg and abs (ggml's gfx906 mmq kernels)
v_fma_mix_f32 v97, v97, v4, -v110 op_sel_hi:[0,1,0]
v_fma_mix_f32 v0, |v1|, -v2, v3
v_fma_mixlo_f16 v0, -v1, v2, v3

// v_accvgpr_write: a VGPR or an inline constant (gfx90a+: also an SGPR)
v_accvgpr_write_b32 a0, v1
v_accvgpr_write_b32 a0, 1
v_accvgpr_write_b32 a0, 0x1234
v_accvgpr_write_b32 a0, s1
v_accvgpr_write_b32 a0, a1
v_accvgpr_read_b32 v0, a1

// MFMA: register files of vdst / SrcC, SrcA / SrcB, the gfx908 inline-constant SrcC bug
v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]
v_mfma_f32_4x4x1f32 v[0:3], v0, v1, v[0:3]
v_mfma_f32_4x4x1f32 a[0:3], v0, v1, v[0:3]
v_mfma_f32_4x4x1f32 a[0:3], a0, a1, a[0:3]
v_mfma_f32_4x4x1f32 a[0:3], s0, v1, a[0:3]
v_mfma_f32_4x4x1f32 a[0:3], 1.0, v1, a[0:3]
v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0
v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 1.0

// MFMA: SrcC and vdst the same or disjoint for results over 128 bits
v_mfma_f32_16x16x16f16 a[0:3], v[6:7], v[8:9], a[2:5]
v_mfma_f32_16x16x16f16 v[0:3], v[6:7], v[8:9], v[2:5]
v_mfma_f32_32x32x8f16 a[0:15], v[16:17], v[18:19], a[2:17]
v_mfma_f32_32x32x8f16 a[0:15], v[16:17], v[18:19], a[16:31]
v_mfma_f32_32x32x8f16 a[0:15], v[16:17], v[18:19], a[0:15]
v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[2:33]
v_mfma_f32_32x32x1_2b_f32 v[0:31], v1, v2, v[2:33]
v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[2:9]
v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[2:9]
v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[2:17]
v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[2:17]
v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[0:15]
v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[2:17], v32, v33
v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[0:15], v32, v33
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[16:23], v[24:31], v[2:5], v32, v33
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[16:23], v[24:31], v[0:3], s0, v33
v_mfma_ld_scale_b32 v0, v1 op_sel:[1,0]
v_mfma_ld_scale_b32 v0, v1 clamp

// register alignment (gfx90a+: even VGPR / AGPR tuples; SGPR pairs even, quads by 4)
v_lshlrev_b64 v[1:2], 1, v[4:5]
v_lshlrev_b64 v[2:3], 1, v[4:5]
global_load_dwordx2 v[1:2], v[4:5], off
ds_read_b64 v[1:2], v0
v_accvgpr_read_b32 v1, a1
s_load_dwordx2 s[1:2], s[4:5], 0x0
s_load_dwordx4 s[2:5], s[4:5], 0x0
s_mov_b64 s[1:2], 0

// buffer addresses: a VGPR address with offen / idxen, off without
buffer_load_dword v0, v1, s[4:7], 0 offen
buffer_load_dword v0, v1, s[4:7], 0
buffer_load_dword v0, off, s[4:7], 0 offen
buffer_load_dword v0, off, s[4:7], 0
buffer_load_dword v0, v[2:3], s[4:7], 0 offen idxen

// 64-bit integer tokens are signed 64-bit values
s_mov_b64 s[0:1], 0xffffffff80000000
s_mov_b64 s[0:1], 0xffffffffffffffff
s_mov_b32 s0, 0xffffffff80000000
s_mov_b32 s0, 0xffffffff7fffffff
v_mov_b32 v0, 0xfffffffffffffff0

// e32 VOPC / VOP2 forms written without their vcc operand (llvm-mc adds it), and the forms that
// need it written (a carry-in and a carry-out; e64; sdwa; dpp)
v_cmp_eq_u32_e32 0, v0
v_cmp_eq_u32 0, v0
v_cmpx_eq_u32_e32 0, v0
v_cmp_class_f32_e32 v0, v1
v_cndmask_b32_e32 v0, v1, v2
v_cndmask_b32 v0, v1, v2
v_add_co_u32_e32 v0, v1, v2
v_sub_co_u32 v0, v1, v2
v_subrev_co_u32_e32 v0, v1, v2
v_addc_co_u32_e32 v0, v1, v2
v_subbrev_co_u32_e32 v0, v1, v2
v_cmp_eq_u32_e64 0, v0
v_cmp_eq_u32_sdwa 0, v0 src0_sel:WORD_1
v_cndmask_b32_dpp v0, v1, v2 quad_perm:[0,1,2,3]
s_and_b32 s0, tma_hi, 0xffff

// 64-bit values: an f64 inline pattern is inline on a 64-bit operand only; an integer beyond
// 2^53 is kept exactly (0x3ffffffffffffffc is not 0x4000000000000000, 2.0)
s_mov_b64 s[0:1], 0x4000000000000000
v_add_f64 v[0:1], v[2:3], 0x3ff0000000000000
s_mov_b32 s0, 0x4000000000000000
v_mov_b32 v0, 0x3ff0000000000000
s_mov_b64 s[0:1], 0x3ffffffffffffffc
v_add_f64 v[0:1], v[2:3], 0x4000000000000001
s_mov_b64 s[0:1], (1 << 62)
s_mov_b64 s[0:1], 0xffffffffffffffff

// op_sel outside VOP3P: only on the instructions that have it (catalogue VOP3_OP_SEL)
v_add_f16_e64 v1, v2, v3 op_sel:[0,0,1]
v_add_u32_e64 v1, v2, v3 op_sel:[0,0,0]
v_fma_f32 v1, v2, v3, v4 op_sel:[0,0,0,1]
v_cvt_pkrtz_f16_f32 v1, v2, v3 op_sel:[0,0,1]
v_cvt_f32_f16_e64 v1, v2 op_sel:[1,0]
v_lshlrev_b32_e64 v1, v2, v3 op_sel:[0,0,1]
v_fma_f16 v1, v2, v3, v4 op_sel:[0,0,0,1]
v_mad_u32_u16 v1, v2, v3, v4 op_sel:[1,0,0,0]
v_pack_b32_f16 v1, v2, v3 op_sel:[1,0,0]
v_alignbit_b32 v1, v2, v3, v4 op_sel:[0,0,0,0]
v_med3_i16 v1, v2, v3, v4 op_sel:[0,1,0,0]
v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]
v_cvt_pk_bf16_f32 v1, v2, v3 op_sel:[0,0,1]
