/** store-data-valu-overwrite (1; 2 on gfx942/950); a load overwriting the data is no hazard (it writes when its data returns). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const V = 'store-data-valu-overwrite';
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
  // Writers at issue: VALU incl. v_accvgpr_write and v_writelane.
  { name: 'v_accvgpr_write overwrites AGPR store data', arch: 'gfx90a', rule: V, required: 1, actual: 0,
    asm: 'global_store_dwordx4 v[0:1], a[2:5], off\nv_accvgpr_write_b32 a3, v9' },
  { name: 'v_writelane overwrites store data', arch: 'gfx942', rule: V, required: 2, actual: 0,
    asm: 'scratch_store_dwordx4 off, v[2:5], off\nv_writelane_b32 v4, s0, 1' },
  { name: 'v_accvgpr_write of another AGPR', arch: 'gfx90a', rule: V,
    asm: 'global_store_dwordx4 v[0:1], a[2:5], off\nv_accvgpr_write_b32 a6, v9' },
  // Loads write their VGPRs when the data returns (vmcnt/lgkmcnt): no hazard, on every target.
  { name: 'a global load right after into the store data', arch: 'gfx906', rule: V,
    asm: 'global_store_dwordx4 v[0:1], v[2:5], off\nglobal_load_dword v3, v[6:7], off' },
  { name: 'a scratch load right after a scratch store (LLVM spill code)', arch: 'gfx942', rule: V,
    asm: 'scratch_store_dwordx4 off, v[6:9], off\nglobal_load_dwordx4 v[6:9], v[0:1], off' },
  { name: 'a buffer load into the data', arch: 'gfx908', rule: V,
    asm: 'buffer_store_dwordx4 v[2:5], v0, s[0:3], 0 offen\nbuffer_load_dword v2, v0, s[0:3], 0 offen' },
  { name: 'an LDS load into the data', arch: 'gfx950', rule: V,
    asm: 'global_store_dwordx4 v[0:1], v[2:5], off\nds_read_b32 v4, v8' },
  { name: 'a load into AGPR store data', arch: 'gfx90a', rule: V,
    asm: 'global_store_dwordx4 v[0:1], a[2:5], off\nglobal_load_dword a3, v[6:7], off' },
];

describe('store data hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
