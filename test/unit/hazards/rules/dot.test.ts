/** DOT producers on gfx90a+: dot-write-read, dot-write-overwrite, dot-write-mfma (3). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const D = 'v_dot2c_f32_f16 v0, v1, v2';
const CASES: Case[] = [
  { name: 'another opcode reads the result', arch: 'gfx90a', rule: 'dot-write-read', required: 3, actual: 0,
    asm: `${D}\nv_add_f32 v3, v0, v0` },
  { name: 'same opcode reads it as SrcC (accumulation)', arch: 'gfx942', rule: 'dot-write-read', asm: `${D}\nv_dot2c_f32_f16 v0, v3, v4` },
  { name: 'same opcode reads it as SrcA', arch: 'gfx950', rule: 'dot-write-read', required: 3, actual: 1,
    asm: `${D}\ns_nop 0\nv_dot2c_f32_f16 v5, v0, v4` },
  { name: 'a store reads it', arch: 'gfx90a', rule: 'dot-write-read', required: 3, actual: 0,
    asm: `${D}\nglobal_store_dword v[6:7], v0, off` },
  { name: 'another opcode overwrites it', arch: 'gfx90a', rule: 'dot-write-overwrite', required: 3, actual: 0,
    asm: `${D}\nv_mov_b32 v0, 0` },
  { name: 'an MFMA reads it (ISA; LLVM 0)', arch: 'gfx90a', rule: 'dot-write-mfma', required: 3, actual: 0,
    asm: `${D}\nv_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[6:7], a[0:3]` },
  { name: 'not on gfx908', arch: 'gfx908', rule: 'dot-write-read', asm: `${D}\nv_add_f32 v3, v0, v0` },
];

describe('DOT hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
