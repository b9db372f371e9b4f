/** gfx908 AGPR-based MFMA rules (mai908.ts). */
import { describe, it } from 'node:test';
import { runCase, type Case } from './hazards-harness.js';

const M4 = 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]';
const CASES: Case[] = [
  { name: 'MFMA -> overlapping SrcC', arch: 'gfx908', rule: 'mfma-agpr-write-srcc', required: 2, actual: 0,
    asm: `${M4}\nv_mfma_f32_4x4x1f32 a[8:11], v0, v1, a[2:5]` },
  { name: 'identical tuple: accumulation', arch: 'gfx908', rule: 'mfma-agpr-write-srcc', asm: `${M4}\n${M4}` },
  { name: 'MFMA -> SrcA in an AGPR', arch: 'gfx908', rule: 'mfma-agpr-write-srcab', required: 4, actual: 1,
    asm: `${M4}\ns_nop 0\nv_mfma_f32_4x4x1f32 a[4:7], a0, v1, a[4:7]` },
  { name: '32x32 MFMA -> v_accvgpr_read: 18', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-read', required: 18, actual: 0,
    asm: 'v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]\nv_accvgpr_read_b32 v2, a5' },
  { name: '16x16 MFMA -> v_accvgpr_write (WAW 7, WAR 5)', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-write', required: 7, actual: 0,
    alsoRules: ['mfma-srcc-read-accvgpr-write'],
    asm: 'v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15]\nv_accvgpr_write_b32 a3, v2' },
  { name: 'SrcC read -> v_accvgpr_write (WAR, 8 passes: 5)', arch: 'gfx908', rule: 'mfma-srcc-read-accvgpr-write', required: 5, actual: 0,
    asm: 'v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[16:31]\nv_accvgpr_write_b32 a17, v2' },
  { name: 'v_accvgpr_write -> SrcC', arch: 'gfx908', rule: 'accvgpr-write-agpr-read', required: 1, actual: 0,
    asm: `v_accvgpr_write_b32 a0, v2\n${M4}` },
  { name: 'v_accvgpr_write -> v_accvgpr_read', arch: 'gfx908', rule: 'accvgpr-write-agpr-read', required: 3, actual: 1,
    asm: 'v_accvgpr_write_b32 a0, v2\ns_nop 0\nv_accvgpr_read_b32 v3, a0' },
  { name: 'v_accvgpr_read -> store', arch: 'gfx908', rule: 'accvgpr-read-mem-read', required: 2, actual: 0,
    asm: 'v_accvgpr_read_b32 v2, a0\nglobal_store_dword v[4:5], v2, off' },
  { name: 'VALU, v_accvgpr_write, then a store of the VALU result', arch: 'gfx908', rule: 'accvgpr-after-valu-mem-read', required: 1, actual: 0,
    asm: 'v_mov_b32 v2, 0\nv_accvgpr_write_b32 a0, v3\nglobal_store_dword v[4:5], v2, off' },
  { name: 'not on gfx90a', arch: 'gfx90a', rule: 'mfma-agpr-write-srcc',
    asm: 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]\ns_nop 2\nv_mfma_f32_4x4x1f32 a[8:11], v0, v1, a[2:5]' },
];

describe('gfx908 MAI hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
