/** store-data-valu-overwrite (1; 2 on gfx942/950) and store-data-load-overwrite (1, ISA). */
import { describe, it } from 'node:test';
import { runCase, type Case } from './hazards-harness.js';

const V = 'store-data-valu-overwrite';
const L = 'store-data-load-overwrite';
const CASES: Case[] = [
  { name: 'FLAT store x4, VALU overwrites data', arch: 'gfx90a', rule: V, required: 1, actual: 0,
    asm: 'global_store_dwordx4 v[0:1], v[2:5], off\nv_mov_b32 v3, 0' },
  { name: 'FLAT store x4 on gfx942: 2', arch: 'gfx942', rule: V, required: 2, actual: 1,
    asm: 'global_store_dwordx4 v[0:1], v[2:5], off\ns_nop 0\nv_mov_b32 v3, 0' },
  { name: 'buffer store with SGPR soffset on gfx942: 1 (LLVM; ISA 0)', arch: 'gfx942', rule: V, required: 1, actual: 0,
    asm: 'buffer_store_dwordx4 v[2:5], v0, s[0:3], s4 offen\nv_mov_b32 v3, 0' },
  { name: 'buffer store with SGPR soffset before gfx940: none', arch: 'gfx90a', rule: V,
    asm: 'buffer_store_dwordx4 v[2:5], v0, s[0:3], s4 offen\nv_mov_b32 v3, 0' },
  { name: 'buffer store with immediate soffset on gfx950: 2', arch: 'gfx950', rule: V, required: 2, actual: 0,
    asm: 'buffer_store_dwordx3 v[2:4], v0, s[0:3], 0 offen\nv_mov_b32 v4, 0' },
  { name: 'cmpswap_x2 data', arch: 'gfx906', rule: V, required: 1, actual: 0,
    asm: 'global_atomic_cmpswap_x2 v[0:1], v[2:5], off\nv_mov_b32 v2, 0' },
  { name: '64-bit stores have no such hazard', arch: 'gfx942', rule: V,
    asm: 'global_store_dwordx2 v[0:1], v[2:3], off\nv_mov_b32 v3, 0' },
  { name: 'a load overwrites store data', arch: 'gfx906', rule: L, required: 1, actual: 0,
    asm: 'global_store_dwordx4 v[0:1], v[2:5], off\nglobal_load_dword v3, v[6:7], off' },
  { name: 'a load after a buffer store with SGPR soffset', arch: 'gfx906', rule: L,
    asm: 'buffer_store_dwordx4 v[2:5], v0, s[0:3], s4 offen\nglobal_load_dword v3, v[6:7], off' },
];

describe('store data hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
