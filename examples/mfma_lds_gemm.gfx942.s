	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 6
	.text
	.protected	mfma_lds_gemm           ; -- Begin function mfma_lds_gemm
	.globl	mfma_lds_gemm
	.p2align	8
	.type	mfma_lds_gemm,@function
mfma_lds_gemm:                          ; @mfma_lds_gemm
; %bb.0:
	s_load_dword s3, s[0:1], 0x18
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	v_mov_b32_e32 v35, 0
	s_waitcnt lgkmcnt(0)
	s_cmp_lt_i32 s3, 1
	s_cbranch_scc1 .LBB0_4
; %bb.1:
	v_xor_b32_e32 v2, 32, v0
	v_lshlrev_b32_e32 v1, 3, v0
	v_lshlrev_b32_e32 v36, 3, v2
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	v_mov_b32_e32 v18, 0
	v_mov_b32_e32 v19, 0
	v_mov_b32_e32 v20, 0
	v_mov_b32_e32 v21, 0
	v_mov_b32_e32 v22, 0
	v_mov_b32_e32 v23, 0
	v_mov_b32_e32 v24, 0
	v_mov_b32_e32 v25, 0
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v27, 0
	v_mov_b32_e32 v28, 0
	v_mov_b32_e32 v29, 0
	v_mov_b32_e32 v30, 0
	v_mov_b32_e32 v31, 0
	v_mov_b32_e32 v32, 0
	v_mov_b32_e32 v33, 0
	v_mov_b32_e32 v34, v0
.LBB0_2:                                ; =>This Inner Loop Header: Depth=1
	v_lshlrev_b64 v[38:39], 3, v[34:35]
	v_add_u32_e32 v40, 64, v34
	v_mov_b32_e32 v41, v35
	v_add_u32_e32 v42, 0x80, v34
	v_mov_b32_e32 v43, v35
	v_add_u32_e32 v44, 0xc0, v34
	v_mov_b32_e32 v45, v35
	v_lshl_add_u64 v[46:47], s[4:5], 0, v[38:39]
	v_lshl_add_u64 v[38:39], s[6:7], 0, v[38:39]
	v_lshlrev_b64 v[40:41], 3, v[40:41]
	v_lshlrev_b64 v[42:43], 3, v[42:43]
	v_lshlrev_b64 v[44:45], 3, v[44:45]
	global_load_dwordx2 v[48:49], v[46:47], off
	global_load_dwordx2 v[50:51], v[38:39], off
                                        ; kill: killed $vgpr38_vgpr39
                                        ; kill: killed $vgpr46_vgpr47
	v_lshl_add_u64 v[38:39], s[4:5], 0, v[40:41]
	v_lshl_add_u64 v[40:41], s[6:7], 0, v[40:41]
	v_lshl_add_u64 v[46:47], s[4:5], 0, v[42:43]
	v_lshl_add_u64 v[42:43], s[6:7], 0, v[42:43]
	v_lshl_add_u64 v[52:53], s[4:5], 0, v[44:45]
	v_lshl_add_u64 v[44:45], s[6:7], 0, v[44:45]
	global_load_dwordx2 v[54:55], v[38:39], off
	global_load_dwordx2 v[56:57], v[40:41], off
	global_load_dwordx2 v[58:59], v[46:47], off
	global_load_dwordx2 v[60:61], v[42:43], off
	global_load_dwordx2 v[62:63], v[52:53], off
	global_load_dwordx2 v[64:65], v[44:45], off
                                        ; kill: killed $vgpr44_vgpr45
                                        ; kill: killed $vgpr42_vgpr43
                                        ; kill: killed $vgpr40_vgpr41
                                        ; kill: killed $vgpr38_vgpr39
                                        ; kill: killed $vgpr46_vgpr47
	s_add_i32 s3, s3, -1
	v_add_u32_e32 v34, 0x100, v34
	s_cmp_lg_u32 s3, 0
                                        ; kill: killed $vgpr52_vgpr53
	s_waitcnt vmcnt(5)
	ds_write2st64_b64 v1, v[48:49], v[54:55] offset1:1
	s_waitcnt vmcnt(4)
	ds_write2st64_b64 v1, v[50:51], v[56:57] offset0:4 offset1:5
	s_waitcnt vmcnt(1)
	ds_write2st64_b64 v1, v[58:59], v[62:63] offset0:2 offset1:3
	s_waitcnt vmcnt(0)
	ds_write2st64_b64 v1, v[60:61], v[64:65] offset0:6 offset1:7
	s_waitcnt lgkmcnt(0)
	; wave barrier
	ds_read2st64_b64 v[42:45], v1 offset1:4
	ds_read2st64_b64 v[38:41], v36 offset0:1 offset1:5
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 v[18:33], v[42:43], v[44:45], v[18:33]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 v[18:33], v[38:39], v[44:45], v[18:33]
	; sched_group_barrier mask(0x00000008) size(1) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(2) SyncID(0)
	v_mfma_f32_32x32x8_f16 v[2:17], v[38:39], v[40:41], v[2:17]
	ds_read2st64_b64 v[46:49], v36 offset0:3 offset1:7
	; sched_group_barrier mask(0x00000008) size(1) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(2) SyncID(0)
	v_mfma_f32_32x32x8_f16 v[2:17], v[42:43], v[40:41], v[2:17]
	ds_read2st64_b64 v[40:43], v1 offset0:2 offset1:6
	; sched_group_barrier mask(0x00000008) size(1) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(2) SyncID(0)
	s_waitcnt lgkmcnt(0)
	; wave barrier
	; sched_group_barrier mask(0x00000008) size(1) SyncID(0)
	; sched_group_barrier mask(0x00000100) size(2) SyncID(0)
	v_mfma_f32_32x32x8_f16 v[2:17], v[46:47], v[48:49], v[2:17]
	v_mfma_f32_32x32x8_f16 v[18:33], v[40:41], v[42:43], v[18:33]
	v_mfma_f32_32x32x8_f16 v[2:17], v[40:41], v[48:49], v[2:17]
	v_mfma_f32_32x32x8_f16 v[18:33], v[46:47], v[42:43], v[18:33]
	s_cbranch_scc1 .LBB0_2
; %bb.3:                                ; %Flow
	s_nop 8
	v_mov_b32_e32 v35, v17
	s_branch .LBB0_5
.LBB0_4:
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v33, 0
	v_mov_b32_e32 v32, 0
	v_mov_b32_e32 v31, 0
	v_mov_b32_e32 v30, 0
	v_mov_b32_e32 v29, 0
	v_mov_b32_e32 v28, 0
	v_mov_b32_e32 v27, 0
	v_mov_b32_e32 v26, 0
	v_mov_b32_e32 v25, 0
	v_mov_b32_e32 v24, 0
	v_mov_b32_e32 v23, 0
	v_mov_b32_e32 v22, 0
	v_mov_b32_e32 v21, 0
	v_mov_b32_e32 v20, 0
	v_mov_b32_e32 v19, 0
	v_mov_b32_e32 v18, 0
.LBB0_5:
	v_lshl_or_b32 v0, s2, 7, v0
	v_mov_b32_e32 v1, 0
	v_lshlrev_b64 v[36:37], 6, v[0:1]
	v_or_b32_e32 v0, 64, v0
	v_lshlrev_b64 v[0:1], 6, v[0:1]
	v_lshl_add_u64 v[36:37], s[8:9], 0, v[36:37]
	v_lshl_add_u64 v[0:1], s[8:9], 0, v[0:1]
	v_mov_b32_e32 v17, v35
	global_store_dwordx4 v[36:37], v[30:33], off offset:48
	global_store_dwordx4 v[36:37], v[26:29], off offset:32
	global_store_dwordx4 v[36:37], v[22:25], off offset:16
	global_store_dwordx4 v[36:37], v[18:21], off
	global_store_dwordx4 v[0:1], v[14:17], off offset:48
	global_store_dwordx4 v[0:1], v[10:13], off offset:32
	global_store_dwordx4 v[0:1], v[6:9], off offset:16
	global_store_dwordx4 v[0:1], v[2:5], off
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mfma_lds_gemm
		.amdhsa_group_segment_fixed_size 4096
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 28
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 97
		.amdhsa_next_free_sgpr 96
		.amdhsa_accum_offset 68
		.amdhsa_reserve_vcc 0
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	mfma_lds_gemm, .Lfunc_end0-mfma_lds_gemm
                                        ; -- End function
	.set mfma_lds_gemm.num_vgpr, 66
	.set mfma_lds_gemm.num_agpr, 0
	.set mfma_lds_gemm.numbered_sgpr, 10
	.set mfma_lds_gemm.num_named_barrier, 0
	.set mfma_lds_gemm.private_seg_size, 0
	.set mfma_lds_gemm.uses_vcc, 0
	.set mfma_lds_gemm.uses_flat_scratch, 0
	.set mfma_lds_gemm.has_dyn_sized_stack, 0
	.set mfma_lds_gemm.has_recursion, 0
	.set mfma_lds_gemm.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 812
; TotalNumSgprs: 16
; NumVgprs: 66
; NumAgprs: 0
; TotalNumVgprs: 66
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 4096 bytes/workgroup (compile time only)
; SGPRBlocks: 12
; VGPRBlocks: 12
; NumSGPRsForWavesPerEU: 102
; NumVGPRsForWavesPerEU: 97
; AccumOffset: 68
; Occupancy: 4
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 16
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.ident	"Debian clang version 22.1.8 (1~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .is_const:       true
        .offset:         0
        .size:           8
        .type_name:      'half4*'
        .value_kind:     global_buffer
      - .address_space:  global
        .is_const:       true
        .offset:         8
        .size:           8
        .type_name:      'half4*'
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .type_name:      'float16*'
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .type_name:      int
        .value_kind:     by_value
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .kernarg_segment_size: 28
    .language:       OpenCL C
    .language_version:
      - 2
      - 0
    .max_flat_workgroup_size: 64
    .name:           mfma_lds_gemm
    .private_segment_fixed_size: 0
    .reqd_workgroup_size:
      - 64
      - 1
      - 1
    .sgpr_count:     16
    .sgpr_spill_count: 0
    .symbol:         mfma_lds_gemm.kd
    .uses_dynamic_stack: false
    .vgpr_count:     66
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
