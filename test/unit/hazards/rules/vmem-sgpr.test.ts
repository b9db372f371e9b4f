/** valu-sgpr-write-vmem-read: VALU writes an SGPR, a VMEM/FLAT reads it: 5 (all targets). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const R = 'valu-sgpr-write-vmem-read';
const CASES: Case[] = [
  { name: 'soffset written by v_readfirstlane', arch: 'gfx906', rule: R, required: 5, actual: 0,
    asm: 'v_readfirstlane_b32 s4, v0\nbuffer_load_dword v1, v2, s[0:3], s4 offen' },
  { name: 'srsrc written by v_readlane, 2 present', arch: 'gfx908', rule: R, required: 5, actual: 2,
    asm: 'v_readlane_b32 s1, v1, 0\ns_nop 1\nbuffer_load_dword v3, v2, s[0:3], 0 offen' },
  { name: 'implicit EXEC read after v_cmpx', arch: 'gfx90a', rule: R, required: 5, actual: 0,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\nglobal_load_dword v2, v[4:5], off' },
  { name: 'global saddr written by a VOPC (gfx950)', arch: 'gfx950', rule: R, required: 5, actual: 4,
    asm: 'v_cmp_eq_u32_e64 s[2:3], v0, v1\ns_nop 3\nglobal_load_dword v2, v3, s[2:3]' },
  { name: 'enough wait states', arch: 'gfx906', rule: R,
    asm: 'v_readfirstlane_b32 s4, v0\ns_nop 4\nbuffer_load_dword v1, v2, s[0:3], s4 offen' },
  { name: 'SALU writer is interlocked', arch: 'gfx942', rule: R,
    asm: 's_mov_b32 s4, 0\nbuffer_load_dword v1, v2, s[0:3], s4 offen' },
  { name: 'across a branch (the branch counts 1)', arch: 'gfx906', rule: R, required: 5, actual: 1,
    asm: 'v_readfirstlane_b32 s4, v0\ns_cbranch_scc0 .L1\n.L1:\nbuffer_load_dword v1, v2, s[0:3], s4 offen' },
  { name: 'across a loop back-edge', arch: 'gfx90a', rule: R, required: 5, actual: 1,
    asm: '.L0:\nbuffer_load_dword v1, v2, s[0:3], s4 offen\nv_readfirstlane_b32 s4, v1\ns_cbranch_scc1 .L0' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});
