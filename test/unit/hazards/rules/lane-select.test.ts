/** valu-sgpr-write-lane-select: VALU writes the SGPR v_readlane/v_writelane uses as lane select: 4. */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const R = 'valu-sgpr-write-lane-select';
const CASES: Case[] = [
  { name: 'v_readfirstlane writes the lane select of v_readlane', arch: 'gfx906', rule: R, required: 4, actual: 0,
    asm: 'v_readfirstlane_b32 s2, v0\nv_readlane_b32 s0, v1, s2' },
  { name: 'VOPC writes the lane select of v_writelane', arch: 'gfx90a', rule: R, required: 4, actual: 1,
    asm: 'v_cmp_eq_u32_e64 s[2:3], v0, v1\ns_nop 0\nv_writelane_b32 v1, 5, s2' },
  { name: 'gfx942: also a constant read of a VALU-written SGPR (2)', arch: 'gfx942', rule: R, required: 4, actual: 0,
    alsoRules: ['valu-sgpr-write-valu-read'],
    asm: 'v_readfirstlane_b32 s2, v0\nv_readlane_b32 s0, v1, s2' },
  { name: 'immediate lane select', arch: 'gfx906', rule: R,
    asm: 'v_readfirstlane_b32 s2, v0\nv_readlane_b32 s0, v1, 3' },
  { name: 'four wait states are enough', arch: 'gfx908', rule: R,
    asm: 'v_readfirstlane_b32 s2, v0\ns_nop 3\nv_readlane_b32 s0, v1, s2' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});
