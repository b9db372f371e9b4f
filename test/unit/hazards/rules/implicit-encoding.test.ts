/**
 * DPP and SDWA written without the encoding suffix: llvm-mc reads `v_add_f32 v0, v1, v2 row_shl:1`
 * as v_add_f32_dpp and `v_cvt_f32_f16 v0, v1 dst_sel:WORD_1` as v_cvt_f32_f16_sdwa, and the
 * rules of those forms apply (vLLM's ROCm skinny GEMMs write their DPP reductions so, in inline asm).
 */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const CASES: Case[] = [
  // reduced from clang-22 gfx942 code of vLLM csrc/rocm/skinny_gemms.cu (wvSplitK, inline-asm DPP sum)
  { name: 'DPP without _dpp reads as src0 a VGPR written 1 wait state before', arch: 'gfx942', rule: 'vgpr-write-dpp-read', required: 2, actual: 1,
    asm: 'v_add_f32 v28, v31, v27 row_shl:3 bound_ctrl:0\nv_add_f32 v24, v27, v25 row_shl:3 bound_ctrl:0\nv_add_f32 v20, v28, v21 row_shl:4 bound_ctrl:0' },
  { name: 'v_mov_b32 with row_shr and no bound_ctrl', arch: 'gfx90a', rule: 'vgpr-write-dpp-read', required: 2, actual: 0,
    asm: 'v_add_f32 v28, v29, v27\nv_mov_b32 v26, v28 row_shr:15' },
  { name: 'the same instructions without DPP modifiers: no DPP hazard', arch: 'gfx942', rule: 'vgpr-write-dpp-read',
    asm: 'v_add_f32 v28, v29, v27\nv_mov_b32 v26, v28' },
  { name: 'SDWA without _sdwa writes at a shifted position', arch: 'gfx942', rule: 'dst-sel-forwarding', required: 1, actual: 0,
    asm: 'v_cvt_f32_f16 v1, v2 dst_sel:WORD_1\nv_add_f32 v3, v1, v4' },
];

describe('DPP and SDWA forms written without the encoding suffix', () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});
