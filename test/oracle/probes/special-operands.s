// Operands with a grammar of their own, value by value: s_waitcnt counters, hwreg(), sendmsg(),
// ds_swizzle's swizzle(), DPP controls and DPP/SDWA scalar operands, 16-bit immediates and branch
// offsets. Judged by llvm-mc 22 on all five targets (test/oracle/llvm-mc-corpus.test.ts);
// Conductor must reject exactly the lines llvm-mc rejects (src/isa/special-operands.ts).
s_waitcnt vmcnt(63)
s_waitcnt vmcnt(64)
s_waitcnt lgkmcnt(15)
s_waitcnt lgkmcnt(16)
s_waitcnt expcnt(7)
s_waitcnt expcnt(8)
s_waitcnt vmcnt_sat(64)
s_waitcnt lgkmcnt_sat(100)
s_waitcnt vmcnt(0) lgkmcnt(16)
s_waitcnt 0x10000
s_waitcnt 0xffff
s_waitcnt -1
s_waitcnt vmcnt(-1)
s_waitcnt vmcnt(0x40)
s_waitcnt vmcnt(1) & lgkmcnt(2)
s_waitcnt vmcnt(1), lgkmcnt(2)
s_waitcnt vmcnt(1) vmcnt(2)
s_getreg_b32 s1, hwreg(HW_REG_FOO)
s_getreg_b32 s1, hwreg(HW_REG_XCC_ID)
s_getreg_b32 s1, hwreg(HW_REG_SQ_PERF_SNAPSHOT_DATA)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 32)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 32, 1)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 31, 1)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 31, 2)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 33)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 0)
s_getreg_b32 s1, hwreg(63)
s_getreg_b32 s1, hwreg(64)
s_getreg_b32 s1, hwreg(0)
s_getreg_b32 s1, hwreg(HW_REG_MODE, -1, 1)
s_getreg_b32 s1, hwreg(hw_reg_mode)
s_getreg_b32 s1, hwreg(HW_REG_SH_MEM_BASES)
s_getreg_b32 s1, hwreg(HW_REG_TBA_LO)
s_getreg_b32 s1, hwreg(HW_REG_FLAT_SCR_LO)
s_getreg_b32 s1, hwreg(HW_REG_HW_ID1)
s_getreg_b32 s1, hwreg(HW_REG_POPS_PACKER)
s_getreg_b32 s1, hwreg(HW_REG_SHADER_CYCLES)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0)
s_getreg_b32 s1, hwreg(HW_REG_MODE,)
s_getreg_b32 s1, hwreg()
s_setreg_b32 hwreg(HW_REG_FOO), s1
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 33), 1
s_getreg_b32 s1, 0xffff
s_getreg_b32 s1, 0x10000
s_getreg_b32 s1, hwreg(HW_REG_MODE, 2+3, 1)
s_getreg_b32 s1, hwreg(HW_REG_GPR_ALLOC, 0, 4)
s_getreg_b32 s1, hwreg(HW_REG_IB_STS)
s_getreg_b32 s1, hwreg(HW_REG_XNACK_MASK)
s_getreg_b32 s1, hwreg(HW_REG_SQ_PERF_SNAPSHOT_PC_HI)
s_getreg_b32 s1, hwreg(HW_REG_TMA_HI)
s_getreg_b32 s1, hwreg(HW_REG_TRAPSTS)
s_getreg_b32 s1, hwreg(HW_REG_HW_ID)
s_getreg_b32 s1, hwreg(HW_REG_LDS_ALLOC)
s_getreg_b32 s1, hwreg(HW_REG_STATUS)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 32, 1)
s_getreg_b32 s1, hwreg(foo)
s_sendmsg sendmsg(MSG_FOO)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 9)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 3)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 4)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT)
s_sendmsg sendmsg(MSG_GS, GS_OP_NOP)
s_sendmsg sendmsg(MSG_GS, GS_OP_CUT, 0)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT_CUT, 1)
s_sendmsg sendmsg(MSG_GS)
s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)
s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_EMIT, 0)
s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_CUT)
s_sendmsg sendmsg(MSG_INTERRUPT)
s_sendmsg sendmsg(MSG_INTERRUPT, 0)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_HOST_TRAP_ACK)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_TTRACE_PC)
s_sendmsg sendmsg(MSG_SYSMSG)
s_sendmsg sendmsg(MSG_SYSMSG, 0)
s_sendmsg sendmsg(MSG_SYSMSG, 5)
s_sendmsg sendmsg(MSG_SAVEWAVE)
s_sendmsg sendmsg(MSG_STALL_WAVE_GEN)
s_sendmsg sendmsg(MSG_HALT_WAVES)
s_sendmsg sendmsg(MSG_ORDERED_PS_DONE)
s_sendmsg sendmsg(MSG_EARLY_PRIM_DEALLOC)
s_sendmsg sendmsg(MSG_GS_ALLOC_REQ)
s_sendmsg sendmsg(MSG_GET_DOORBELL)
s_sendmsg sendmsg(MSG_GET_DDID)
s_sendmsg sendmsg(MSG_RTN_GET_DOORBELL)
s_sendmsg sendmsg(15)
s_sendmsg sendmsg(16)
s_sendmsg sendmsg(2, 4)
s_sendmsg sendmsg(2, 3, 4)
s_sendmsg sendmsg(2, 2, 3)
s_sendmsg sendmsg(MSG_GS, 0, 0)
s_sendmsg sendmsg(MSG_GS, 1, 0)
s_sendmsg sendmsg(MSG_INTERRUPT, GS_OP_EMIT)
s_sendmsg 0x10000
s_sendmsg 0xffff
s_sendmsg sendmsg(msg_gs, gs_op_emit, 1)
s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)
s_sendmsghalt sendmsg(MSG_FOO)
s_sendmsghalt sendmsg(MSG_INTERRUPT)
s_sendmsg sendmsg(MSG_GS_DONE)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, -1)
s_sendmsg sendmsg(3, 0)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 1, 2)
v_mov_b32_dpp v0, v1 row_shl:16
v_mov_b32_dpp v0, v1 row_shl:15
v_mov_b32_dpp v0, v1 row_shl:0
v_mov_b32_dpp v0, v1 row_shr:16
v_mov_b32_dpp v0, v1 row_ror:16
v_mov_b32_dpp v0, v1 wave_shl:2
v_mov_b32_dpp v0, v1 row_bcast:16
v_mov_b32_dpp v0, v1 row_bcast:15
v_mov_b32_dpp v0, v1 row_bcast:31
v_mov_b32_dpp v0, v1 row_mask:0x10
v_mov_b32_dpp v0, v1 bank_mask:0x10
v_mov_b32_dpp v0, v1 row_newbcast:1
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:0
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:1
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:2
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] fi:1
ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,4)
ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,3)
ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2)
ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,"01pip")
ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,"01pi")
ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,"01pix")
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,2,0)
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,3,0)
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,64,0)
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,2,2)
ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)
ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,32)
ds_swizzle_b32 v0, v1 offset:swizzle(REVERSE,8)
ds_swizzle_b32 v0, v1 offset:swizzle(REVERSE,3)
ds_swizzle_b32 v0, v1 offset:swizzle(FFT,5)
ds_swizzle_b32 v0, v1 offset:swizzle(ROTATE,0,5)
ds_swizzle_b32 v0, v1 offset:swizzle(FOO,1)
ds_swizzle_b32 v0, v1 offset:0xffff
ds_swizzle_b32 v0, v1 offset:swizzle(quad_perm,0,1,2,3)
v_cndmask_b32 v0, v1, v2, s[0:1] row_mask:0xf
v_cndmask_b32_dpp v0, v1, v2, s[0:1] row_mask:0xf
v_cndmask_b32_dpp v0, v1, v2, vcc row_mask:0xf
v_cndmask_b32_dpp v0, v1, v2 row_mask:0xf
v_cndmask_b32 v0, v1, v2, vcc row_mask:0xf
v_cndmask_b32_e64_dpp v0, v1, v2, s[0:1] row_mask:0xf
v_cndmask_b32_sdwa v0, v1, v2, s[0:1]
v_add_co_u32_dpp v0, s[0:1], v1, v2 row_mask:0xf
v_add_co_u32_dpp v0, vcc, v1, v2 row_mask:0xf
v_addc_co_u32_dpp v0, vcc, v1, v2, s[0:1] row_mask:0xf
s_branch 0x10000
s_branch 0xffff
s_branch 0x8000
s_branch -32768
s_branch -32769
s_cbranch_scc0 0x10000
s_branch 65535
v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 row_share:1
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,4]
v_cndmask_b32_dpp v0, v1, v2, vcc quad_perm:[0,1,2,3]
v_cndmask_b32_dpp v0, v1, v2, s[0:1] quad_perm:[0,1,2,3]
v_cndmask_b32 v0, v1, v2, s[0:1] quad_perm:[0,1,2,3]
v_cndmask_b32 v0, v1, v2, vcc row_shl:1
v_cndmask_b32_dpp v0, v1, v2 quad_perm:[0,1,2,3]
v_mov_b32_dpp v0, v1 row_mask:0xf
v_mov_b32_dpp v0, v1 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0x10
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bank_mask:16
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bank_mask:-1
v_mov_b32_dpp v0, v1 row_newbcast:1
v_mov_b32_dpp v0, v1 row_newbcast:16
v_mov_b32_dpp v0, v1 wave_shl:1
v_mov_b32_dpp v0, v1 wave_rol:1
v_mov_b32_dpp v0, v1 wave_shr:1
v_mov_b32_dpp v0, v1 wave_ror:1
v_mov_b32_dpp v0, v1 row_mirror
v_mov_b32_dpp v0, v1 row_shl:1 bound_ctrl:0
v_mov_b32_dpp v0, v1 row_shl:1 bound_ctrl:1
v_mov_b32_dpp v0, v1 row_shl:1 bound_ctrl:-1
v_add_co_u32_dpp v0, vcc, v1, v2 quad_perm:[0,1,2,3]
v_addc_co_u32_dpp v0, vcc, v1, v2, vcc quad_perm:[0,1,2,3]
v_addc_co_u32_dpp v0, vcc, v1, v2, s[0:1] quad_perm:[0,1,2,3]
v_mov_b32 v0, v1 row_shl:1
v_mov_b32 v0, v1
v_mov_b32_dpp v0, v1
v_mov_b32_dpp v0, v1 row_shl:1 row_shl:2
v_mov_b32_dpp v0, v1 dpp8:[0,1,2,3,4,5,6,7]
v_mov_b32_dpp v0, v1 row_xmask:1
v_mov_b32_dpp v0, v1 row_shr:0x0f
v_mov_b32_dpp v0, v1 row_ror:0
v_add_co_u32_sdwa v0, s[0:1], v1, v2
v_add_co_u32_sdwa v0, vcc, v1, v2
v_addc_co_u32_sdwa v0, vcc, v1, v2, s[2:3]
v_cmp_eq_f32_sdwa s[0:1], v1, v2
v_cmp_eq_f32_dpp vcc, v1, v2 quad_perm:[0,1,2,3]
v_cndmask_b32_sdwa v0, v1, v2, vcc
s_waitcnt vmcnt_sat(-1)
s_waitcnt vmcnt(-1)
s_waitcnt lgkmcnt_sat(16) vmcnt(3)
s_getreg_b32 s1, -1
s_getreg_b32 s1, -32768
s_getreg_b32 s1, -32769
s_sendmsg -1
s_sendmsg -32769
s_sendmsg sendmsg()
s_sendmsg sendmsg(MSG_HS_TESSFACTOR)
s_sendmsg sendmsg(MSG_NONE)
s_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP, 0)
s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD, 0)
s_sendmsg sendmsg(2, GS_OP_EMIT, 1)
s_sendmsg sendmsg(15, SYSMSG_OP_REG_RD)
s_sendmsg sendmsg(15, GS_OP_EMIT)
s_sendmsg sendmsg(MSG_GS, SYSMSG_OP_REG_RD)
s_getreg_b32 s1, hwreg(HW_REG_HW_ID2)
s_getreg_b32 s1, hwreg(HW_REG_SHADER_TBA_LO)
s_getreg_b32 s1, hwreg(HW_REG_PERF_SNAPSHOT_DATA)
s_getreg_b32 s1, hwreg(HW_REG_WAVE_MODE)
s_getreg_b32 s1, hwreg(HW_REG_EXCP_FLAG_PRIV)
s_getreg_b32 s1, hwreg(HW_REG_SCRATCH_BASE_LO)
s_getreg_b32 s1, hwreg(HW_REG_SHADER_CYCLES_HI)
s_getreg_b32 s1, hwreg(HW_REG_DVGPR_ALLOC_LO)
s_getreg_b32 s1, hwreg(HW_REG_MODE, 1+1, 2)
s_getreg_b32 s1, hwreg(HW_REG_MODE, UNDEF, 2)
s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, UNDEF)
s_sendmsg sendmsg(MSG_GS, UNDEFOP, 1)
v_mov_b32_dpp v0, s1 quad_perm:[0,1,2,3]
v_add_f32_dpp v0, v1, s2 quad_perm:[0,1,2,3]
v_add_f32_dpp v0, v1, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf bound_ctrl:0
ds_swizzle_b32 v0, v1 offset:swizzle(FFT,32)
ds_swizzle_b32 v0, v1 offset:swizzle(ROTATE,2,5)
ds_swizzle_b32 v0, v1 offset:swizzle(ROTATE,1,32)
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,32,31)
ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,1)
ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,0)
ds_swizzle_b32 v0, v1 offset:swizzle(REVERSE,1)
ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,1,0)
ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,3,4)
ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,"00000")
v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:0x1
// symbols stand for numbers in hwreg() and sendmsg()
.set OFF, 3
s_getreg_b32 s1, hwreg(HW_REG_MODE, OFF, 2)
.set MYREG, 1
s_getreg_b32 s1, hwreg(MYREG)
.set MYMSG, 2
s_sendmsg sendmsg(MYMSG, GS_OP_EMIT, 1)
// lit(N) in other encodings: 32-bit operands outside SDWA
v_add_f32 v0, lit(1.0), v1
v_add_f32_e64 v0, lit(1.0), v1
v_fma_f32 v0, v1, v2, lit(1.0)
v_fma_f32 v0, v1, v2, lit(0x12345678)
v_add_u32 v0, lit(4), v1
v_add_f32 v0, lit(1.0), lit(1.0)
s_add_u32 s0, lit(5), 0x5
v_add_f64 v[0:1], lit(1.0), v[2:3]
s_mov_b64 s[0:1], lit(1.0)
v_mov_b32_sdwa v0, lit(1)
