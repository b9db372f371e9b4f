/** gfx908 AGPR-based MFMA rules (mai908.ts). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const M4 = 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]';
const M32 = 'v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]';
const M16C = 'v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]';
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
  // 32x32x8f16 (16 passes) then 16x16x16f16 (8 passes) reading a[0:3] as SrcC: the second waited for the first and
  // rewrote a[0:3]; LLVM pads 10 after the second, and so do we (not 18 from the first).
  { name: 'SrcC chain of different passes: the later MFMA\'s 10 count', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-read',
    required: 10, actual: 9, asm: `${M32}\ns_nop 1\n${M16C}\ns_nop 7\ns_nop 0\nv_accvgpr_read_b32 v0, a0` },
  { name: 'SrcC chain of different passes, 10 wait states: clean', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-read',
    asm: `${M32}\ns_nop 1\n${M16C}\ns_nop 7\ns_nop 1\nv_accvgpr_read_b32 v0, a0` },
  { name: 'a register the later MFMA did not rewrite: the first\'s 18', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-read',
    required: 18, actual: 13, asm: `${M32}\ns_nop 1\n${M16C}\ns_nop 7\ns_nop 1\nv_accvgpr_read_b32 v0, a4` },
  { name: 'sharing the accumulator without a SrcC read stays a hazard', arch: 'gfx908', rule: 'mfma-agpr-write-accvgpr-read',
    required: 18, actual: 13, asm: `${M32}\ns_nop 1\nv_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[16:19]\ns_nop 7\ns_nop 1\nv_accvgpr_read_b32 v0, a0` },
  { name: 'not on gfx90a', arch: 'gfx90a', rule: 'mfma-agpr-write-srcc',
    asm: 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]\ns_nop 2\nv_mfma_f32_4x4x1f32 a[8:11], v0, v1, a[2:5]' },
];

describe('gfx908 MAI hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
