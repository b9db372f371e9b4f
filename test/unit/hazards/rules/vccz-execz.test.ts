/** valu-vcc-exec-write-vccz-read: VALU writes VCC/EXEC, a VALU reads VCCZ/EXECZ as data: 5 (ISA). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const R = 'valu-vcc-exec-write-vccz-read';
const CASES: Case[] = [
  { name: 'VOPC writes VCC, v_mov reads src_vccz', arch: 'gfx906', rule: R, required: 5, actual: 0,
    asm: 'v_cmp_eq_u32 vcc, v0, v1\nv_mov_b32 v2, src_vccz' },
  { name: 'v_cmpx writes EXEC, src_execz read 2 later', arch: 'gfx90a', rule: R, required: 5, actual: 2,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\ns_nop 1\nv_mov_b32 v2, src_execz' },
  { name: 'SALU write of VCC', arch: 'gfx942', rule: R,
    asm: 's_mov_b64 vcc, 0\nv_mov_b32 v2, src_vccz' },
  { name: 'five wait states are enough', arch: 'gfx950', rule: R,
    asm: 'v_cmp_eq_u32 vcc, v0, v1\ns_nop 4\nv_mov_b32 v2, src_vccz' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});
