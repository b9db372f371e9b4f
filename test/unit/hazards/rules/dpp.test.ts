/** vgpr-write-dpp-read (2) and valu-exec-write-dpp (5). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const V = 'vgpr-write-dpp-read';
const E = 'valu-exec-write-dpp';
const DPP = 'quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1';
const CASES: Case[] = [
  { name: 'VALU writes the DPP source', arch: 'gfx906', rule: V, required: 2, actual: 0,
    asm: `v_add_f32 v1, v2, v3\nv_mov_b32_dpp v0, v1 ${DPP}` },
  { name: 'a load writes it (any writer counts)', arch: 'gfx90a', rule: V, required: 2, actual: 1,
    asm: `global_load_dword v1, v[4:5], off\ns_waitcnt vmcnt(0)\nv_mov_b32_dpp v0, v1 ${DPP}` },
  { name: 'two wait states are enough', arch: 'gfx942', rule: V,
    asm: `v_add_f32 v1, v2, v3\ns_nop 1\nv_mov_b32_dpp v0, v1 ${DPP}` },
  { name: 'VALU writes EXEC before a DPP op', arch: 'gfx908', rule: E, required: 5, actual: 2,
    asm: `v_cmpx_eq_u32 vcc, v0, v1\ns_nop 1\nv_mov_b32_dpp v2, v3 ${DPP}` },
  { name: 'SALU write of EXEC is interlocked', arch: 'gfx906', rule: E,
    asm: `s_mov_b64 exec, -1\nv_mov_b32_dpp v2, v3 ${DPP}` },
  { name: 'across a branch', arch: 'gfx906', rule: V, required: 2, actual: 1,
    asm: `v_add_f32 v1, v2, v3\ns_cbranch_execz .L1\n.L1:\nv_mov_b32_dpp v0, v1 ${DPP}` },
];

describe('dpp hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
