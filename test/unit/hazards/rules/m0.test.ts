/** salu-m0-write-msg-gds and salu-m0-write-lds-m0-read (1). */
import { describe, it } from 'node:test';
import { runCase, type Case } from '../harness.js';

const M = 'salu-m0-write-msg-gds';
const L = 'salu-m0-write-lds-m0-read';
const CASES: Case[] = [
  { name: 's_sendmsg right after s_mov m0', arch: 'gfx906', rule: M, required: 1, actual: 0,
    asm: 's_mov_b32 m0, s0\ns_sendmsg sendmsg(MSG_INTERRUPT)' },
  { name: 'GDS op right after s_mov m0', arch: 'gfx908', rule: M, required: 1, actual: 0,
    asm: 's_mov_b32 m0, 0\nds_add_u32 v0, v1 gds' },
  { name: 'one wait state is enough', arch: 'gfx942', rule: M,
    asm: 's_mov_b32 m0, s0\ns_nop 0\ns_sendmsg sendmsg(MSG_INTERRUPT)' },
  { name: 'ds_read_addtid', arch: 'gfx906', rule: L, required: 1, actual: 0,
    asm: 's_mov_b32 m0, -1\nds_read_addtid_b32 v0' },
  { name: 'LDS-DMA buffer load', arch: 'gfx90a', rule: L, required: 1, actual: 0,
    asm: 's_mov_b32 m0, s0\nbuffer_load_dword v1, s[4:7], 0 offen lds' },
  { name: 's_movrels', arch: 'gfx950', rule: L, required: 1, actual: 0,
    asm: 's_mov_b32 m0, s1\ns_movrels_b32 s0, s2' },
  { name: 'one wait state is enough', arch: 'gfx906', rule: L,
    asm: 's_mov_b32 m0, -1\ns_nop 0\nds_read_addtid_b32 v1' },
  { name: 'an SMEM write of M0 is not an SALU write', arch: 'gfx90a', rule: L,
    asm: 's_load_dword m0, s[0:1], 0x0\nds_read_addtid_b32 v1' },
];

describe('M0 hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});
