/**
 * gfx942/gfx950 VALU forwarding rules: valu-sgpr-write-valu-read (2),
 * (a mask or carry-in read needs 0: CDNA3 Table 11 Case 18), valu-exec-write-rwlane (4),
 * valu-vgpr-write-readlane-src0 (1), dst-sel-forwarding (1), trans-write-valu-read (1).
 * None of them exists before gfx940.
 */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const SDWA = 'v_add_u16_sdwa v0, v1, v2 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_3';
const CASES: Case[] = [
  { name: 'VALU-written SGPR read as a constant', arch: 'gfx942', rule: 'valu-sgpr-write-valu-read', required: 2, actual: 0,
    asm: 'v_readfirstlane_b32 s0, v0\nv_add_u32 v1, s0, v2' },
  { name: 'one wait state is not enough', arch: 'gfx950', rule: 'valu-sgpr-write-valu-read', required: 2, actual: 1,
    asm: 'v_readfirstlane_b32 s0, v0\ns_nop 0\nv_add_u32 v1, s0, v2' },
  { name: 'not before gfx940', arch: 'gfx90a', rule: 'valu-sgpr-write-valu-read',
    asm: 'v_readfirstlane_b32 s0, v0\nv_add_u32 v1, s0, v2' },
  { name: 'v_cndmask select written by a VOPC: a lane-mask read needs 0', arch: 'gfx942', rule: 'valu-sgpr-write-valu-read',
    asm: 'v_cmp_eq_u32_e64 s[0:1], v0, v1\nv_cndmask_b32_e64 v2, v3, v4, s[0:1]' },
  { name: 'carry-in VCC needs 0', arch: 'gfx950', rule: 'valu-sgpr-write-valu-read',
    asm: 'v_add_co_u32 v0, vcc, v1, v2\nv_addc_co_u32 v3, vcc, v4, v5, vcc' },
  { name: 'an SGPR spill\'s v_writelane writes no SGPR: the next v_writelane reading s1 needs nothing (LLVM pads 2 for its spill\'s implicit def)',
    arch: 'gfx942', rule: 'valu-sgpr-write-valu-read',
    asm: 's_load_dwordx2 s[0:1], s[4:5], 0x0\ns_waitcnt lgkmcnt(0)\nv_writelane_b32 v127, s0, 10\nv_writelane_b32 v127, s1, 11' },
  { name: 'VCC read as a constant operand needs 2', arch: 'gfx942', rule: 'valu-sgpr-write-valu-read', required: 2, actual: 0,
    asm: 'v_cmp_eq_u32 vcc, v0, v1\nv_add_u32 v3, vcc_lo, v4' },
  { name: 'an SALU overwrite of EXEC between v_cmpx and v_readfirstlane ends the hazard', arch: 'gfx942', rule: 'valu-exec-write-rwlane',
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\ns_mov_b64 exec, -1\nv_readfirstlane_b32 s0, v2' },
  { name: 'an SALU write of half of EXEC does not', arch: 'gfx942', rule: 'valu-exec-write-rwlane', required: 4, actual: 1,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\ns_mov_b32 exec_lo, -1\nv_readfirstlane_b32 s0, v2' },
  { name: 'v_cmpx then v_readfirstlane', arch: 'gfx942', rule: 'valu-exec-write-rwlane', required: 4, actual: 0,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\nv_readfirstlane_b32 s0, v2' },
  { name: 'v_cmpx then v_writelane, 3 present', arch: 'gfx950', rule: 'valu-exec-write-rwlane', required: 4, actual: 3,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\ns_nop 2\nv_writelane_b32 v3, s6, 0' },
  { name: 'VALU writes v_readlane src0', arch: 'gfx942', rule: 'valu-vgpr-write-readlane-src0', required: 1, actual: 0,
    asm: 'v_add_u32 v1, v2, v3\nv_readlane_b32 s0, v1, 0' },
  { name: 'a load is not a VALU writer', arch: 'gfx942', rule: 'valu-vgpr-write-readlane-src0',
    asm: 'global_load_dword v1, v[4:5], off\ns_waitcnt vmcnt(0)\nv_readlane_b32 s0, v1, 0' },
  { name: 'SDWA dst_sel BYTE_1 then a read', arch: 'gfx942', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: `${SDWA}\nv_add_f16 v3, v0, v0` },
  { name: 'SDWA dst_sel then an overwrite (WAW)', arch: 'gfx950', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: `${SDWA}\nv_mov_b32 v0, 0` },
  { name: 'VOP3 op_sel destination bit', arch: 'gfx942', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_mad_u16 v0, v3, v4, v2 op_sel:[0,0,0,1]\nv_mov_b32 v5, v0' },
  { name: 'VOP3 op_sel on sources only', arch: 'gfx942', rule: 'dst-sel-forwarding',
    asm: 'v_mad_u16 v0, v3, v4, v2 op_sel:[1,1,1,0]\nv_mov_b32 v5, v0' },
  { name: 'FP8 byte select op_sel[2]', arch: 'gfx942', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_sr_fp8_f32 v0, v3, v1 op_sel:[0,0,1,0]\nv_mov_b32 v5, v0' },
  { name: 'VOP3P has no destination select', arch: 'gfx942', rule: 'dst-sel-forwarding',
    asm: 'v_pk_add_f32 v[4:5], v[0:1], v[2:3]\nv_mov_b32 v6, v5' },
  { name: 'gfx950 FP4 SR cvt_scale with any op_sel', arch: 'gfx950', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_scalef32_sr_pk_fp4_f16 v1, v2, v3, v4\nv_mov_b32 v5, v1' },
  // gfx950's packed FP4 converts select the destination byte with op_sel[3:2] whatever their source
  // count (llc 22 pads each of these; index 0 has no select, and no pad)
  { name: 'gfx950 packed FP4 convert of f32, byte 1 (op_sel[2])', arch: 'gfx950', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_scalef32_pk_fp4_f32 v1, v4, v2, v3 op_sel:[0,0,1,0]\nv_add_u32_e32 v1, 7, v1' },
  { name: 'gfx950 packed FP4 convert of f16, byte 2 (op_sel[3])', arch: 'gfx950', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_scalef32_pk_fp4_f16 v1, v3, v2 op_sel:[0,0,0,1]\nv_add_u32_e32 v1, 7, v1' },
  { name: 'gfx950 packed FP4 convert of bf16, byte 2 (op_sel[3])', arch: 'gfx950', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_scalef32_pk_fp4_bf16 v1, v3, v2 op_sel:[0,0,0,1]\nv_add_u32_e32 v1, 7, v1' },
  { name: 'gfx950 packed FP4 convert, byte 0', arch: 'gfx950', rule: 'dst-sel-forwarding',
    asm: 'v_cvt_scalef32_pk_fp4_f32 v1, v4, v2, v3\nv_add_u32_e32 v1, 7, v1' },
  { name: 'not before gfx940', arch: 'gfx90a', rule: 'dst-sel-forwarding', asm: `${SDWA}\nv_add_f16 v3, v0, v0` },
  { name: 'transcendental result read by a plain VALU', arch: 'gfx942', rule: 'trans-write-valu-read', required: 1, actual: 0,
    asm: 'v_exp_f32 v0, v1\nv_add_f32 v2, v0, v0' },
  { name: 'transcendental consumer', arch: 'gfx950', rule: 'trans-write-valu-read',
    asm: 'v_exp_f32 v0, v1\nv_log_f32 v2, v0' },
  // LLVM runs its VALU hazards on LDS-DMA loads (isVALU(MI, AllowLDSDMA)): llc 22 pads 1 here
  { name: 'transcendental result as an LDS-DMA load\'s address', arch: 'gfx942', rule: 'trans-write-valu-read', required: 1, actual: 0,
    asm: 'v_exp_f32_e32 v1, v2\nglobal_load_lds_dword v1, s[0:1]' },
  { name: 'transcendental result as a buffer LDS-DMA load\'s offset', arch: 'gfx950', rule: 'trans-write-valu-read', required: 1, actual: 0,
    asm: 'v_exp_f32_e32 v1, v2\nbuffer_load_dword v1, s[0:3], 0 offen lds' },
  { name: 'a plain global load reading it needs nothing', arch: 'gfx950', rule: 'trans-write-valu-read',
    asm: 'v_exp_f32_e32 v1, v2\nglobal_load_dword v3, v1, s[0:1]' },
  { name: 'across a branch', arch: 'gfx942', rule: 'trans-write-valu-read',
    asm: 'v_rcp_f32 v0, v1\ns_cbranch_scc0 .L1\n.L1:\nv_add_f32 v2, v0, v0' },
];

describe('gfx940+ VALU forwarding hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
