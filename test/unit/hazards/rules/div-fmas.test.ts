/** valu-vcc-write-div-fmas: VALU writes VCC, v_div_fmas reads it: 4. */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const R = 'valu-vcc-write-div-fmas';
const CASES: Case[] = [
  { name: 'v_div_scale then v_div_fmas', arch: 'gfx906', rule: R, required: 4, actual: 0,
    asm: 'v_div_scale_f32 v0, vcc, v1, v1, v2\nv_div_fmas_f32 v3, v4, v5, v6' },
  { name: 'f64 with 2 present', arch: 'gfx90a', rule: R, required: 4, actual: 2,
    asm: 'v_cmp_eq_u32 vcc, v0, v1\ns_nop 1\nv_div_fmas_f64 v[2:3], v[4:5], v[6:7], v[8:9]' },
  { name: 'gfx942: the implicit VCC read of v_div_fmas is not a constant read', arch: 'gfx942', rule: R, required: 4, actual: 0,
    asm: 'v_div_scale_f32 v0, vcc, v1, v1, v2\nv_div_fmas_f32 v3, v4, v5, v6' },
  { name: 'four wait states are enough', arch: 'gfx908', rule: R,
    asm: 'v_div_scale_f32 v0, vcc, v1, v1, v2\ns_nop 3\nv_div_fmas_f32 v3, v4, v5, v6' },
  { name: 'SALU write of VCC is interlocked', arch: 'gfx906', rule: R,
    asm: 's_mov_b64 vcc, 0\nv_div_fmas_f32 v3, v4, v5, v6' },
  { name: 'across a loop back-edge (s_cbranch counts 1)', arch: 'gfx906', rule: R, required: 4, actual: 1,
    asm: '.L0:\nv_div_fmas_f32 v3, v4, v5, v6\ns_add_u32 s0, s0, 1\nv_div_scale_f32 v0, vcc, v1, v1, v2\ns_cbranch_scc1 .L0' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});
