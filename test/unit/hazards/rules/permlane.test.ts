/** gfx950 v_permlane*_swap: valu-write-permlane-swap (2), cmpx-write-permlane-swap (4). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const CASES: Case[] = [
  { name: 'VALU writes a swapped operand', arch: 'gfx950', rule: 'valu-write-permlane-swap', required: 2, actual: 0,
    asm: 'v_add_u32 v1, v2, v3\nv_permlane16_swap_b32 v0, v1' },
  { name: 'the destination operand is read too', arch: 'gfx950', rule: 'valu-write-permlane-swap', required: 2, actual: 1,
    asm: 'v_mov_b32 v0, 0\ns_nop 0\nv_permlane32_swap_b32 v0, v1' },
  { name: 'two wait states are enough', arch: 'gfx950', rule: 'valu-write-permlane-swap',
    asm: 'v_add_u32 v1, v2, v3\ns_nop 1\nv_permlane16_swap_b32 v0, v1' },
  { name: 'v_cmpx then a swap', arch: 'gfx950', rule: 'cmpx-write-permlane-swap', required: 4, actual: 1,
    asm: 'v_cmpx_eq_u32 vcc, v2, v3\ns_nop 0\nv_permlane32_swap_b32 v0, v1' },
];

describe('permlane swap hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
