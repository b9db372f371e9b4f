/** dgemm-fma64 (2) and the gfx90a valu-write-dgemm-mem-read bug rule (2). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const DG = 'v_mfma_f64_4x4x4f64 v[12:13], v[0:1], v[2:3], v[12:13]';
const CASES: Case[] = [
  { name: 'v_fma_f64 right after a DGEMM', arch: 'gfx90a', rule: 'dgemm-fma64', required: 2, actual: 0,
    asm: `${DG}\nv_fma_f64 v[4:5], v[6:7], v[8:9], v[10:11]` },
  { name: 'v_fmac_f64 one later', arch: 'gfx942', rule: 'dgemm-fma64', required: 2, actual: 1,
    asm: 'v_mfma_f64_4x4x4_4b_f64 v[12:13], v[0:1], v[2:3], v[12:13]\ns_nop 0\nv_fmac_f64 v[4:5], v[6:7], v[8:9]' },
  { name: 'VALU write, DGEMM, then a store of the VGPR (gfx90a)', arch: 'gfx90a', rule: 'valu-write-dgemm-mem-read', required: 2, actual: 1,
    asm: `v_mov_b32 v4, 0\n${DG}\nglobal_store_dword v[6:7], v4, off` },
  { name: 'not on gfx942', arch: 'gfx942', rule: 'valu-write-dgemm-mem-read',
    asm: 'v_mov_b32 v4, 0\nv_mfma_f64_4x4x4_4b_f64 v[12:13], v[0:1], v[2:3], v[12:13]\nglobal_store_dword v[6:7], v4, off' },
];

describe('DGEMM side hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
