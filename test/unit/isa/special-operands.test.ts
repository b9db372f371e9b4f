/**
 * Operands with a grammar of their own (s_waitcnt counters, hwreg, sendmsg, swizzle, DPP controls,
 * 16-bit immediates, branch offsets): what llvm-mc 22 rejects is an error at the line, with
 * llvm-mc's message; what it accepts is accepted (test/oracle/probes/special-operands.s holds the
 * full set the oracle checks against llvm-mc).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram } from '../../../src/asm/parser.js';
import { resolveProgram } from '../../../src/isa/resolve.js';
import { getTarget } from '../../../src/targets/index.js';

/** The first error of a one-line program (parse or resolve), or 'ok'. */
function verdict(line: string, arch: string): string {
  const p = parseProgram(`${line}\n`, 'x.s');
  const r = resolveProgram(p, getTarget(arch)!);
  const e = [...p.diagnostics, ...r.diagnostics].find((d) => d.severity === 'error');
  if (!e) return 'ok';
  assert.equal(e.loc.line, 1);
  return e.message;
}

const CASES: [string, string, RegExp | 'ok'][] = [
  // s_waitcnt: GFX9 fields are 6, 3 and 4 bits
  ['s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)', 'gfx942', 'ok'],
  ['s_waitcnt vmcnt(64)', 'gfx942', /^too large value for vmcnt/],
  ['s_waitcnt lgkmcnt(16)', 'gfx906', /^too large value for lgkmcnt/],
  ['s_waitcnt expcnt(8)', 'gfx90a', /^too large value for expcnt/],
  ['s_waitcnt vmcnt_sat(64)', 'gfx942', 'ok'],
  ['s_waitcnt vmcnt(1) vmcnt(2)', 'gfx942', 'ok'],
  // hwreg
  ['s_getreg_b32 s1, hwreg(HW_REG_FOO)', 'gfx942', /^expected a register name or an absolute expression/],
  ['s_getreg_b32 s1, hwreg(HW_REG_XCC_ID)', 'gfx90a', /^invalid hardware register: not supported on this GPU/],
  ['s_getreg_b32 s1, hwreg(HW_REG_XCC_ID)', 'gfx942', 'ok'],
  ['s_getreg_b32 s1, hwreg(HW_REG_XNACK_MASK)', 'gfx942', /not supported on this GPU/],
  ['s_getreg_b32 s1, hwreg(HW_REG_MODE, 32, 1)', 'gfx906', /^invalid bit offset/],
  ['s_getreg_b32 s1, hwreg(HW_REG_MODE, 31, 2)', 'gfx906', 'ok'],
  ['s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 33)', 'gfx906', /^invalid bitfield width/],
  ['s_getreg_b32 s1, hwreg(HW_REG_MODE, 0)', 'gfx906', /^expected a comma/],
  ['s_getreg_b32 s1, hwreg(64)', 'gfx906', /only 6-bit values/],
  ['s_getreg_b32 s1, 0x10000', 'gfx906', /^invalid immediate: only 16-bit values are legal/],
  ['s_getreg_b32 s1, 0xffff', 'gfx906', 'ok'],
  // sendmsg
  ['s_sendmsg sendmsg(MSG_FOO)', 'gfx942', /^expected a message name or an absolute expression/],
  ['s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 9)', 'gfx942', /^invalid message stream id/],
  ['s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 3)', 'gfx942', 'ok'],
  ['s_sendmsg sendmsg(MSG_GS, GS_OP_NOP)', 'gfx942', /^invalid operation id/],
  ['s_sendmsg sendmsg(MSG_GS)', 'gfx942', /^missing message operation/],
  ['s_sendmsg sendmsg(MSG_INTERRUPT, 0)', 'gfx942', /^message does not support operations/],
  ['s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD, 0)', 'gfx942', /^message operation does not support streams/],
  ['s_sendmsg sendmsg(MSG_SYSMSG, SYSMSG_OP_HOST_TRAP_ACK)', 'gfx942', /not supported on this GPU/],
  ['s_sendmsg sendmsg(2, 3, 4)', 'gfx942', /^invalid message stream id/],
  ['s_sendmsg sendmsg(2, 4)', 'gfx942', 'ok'],
  ['s_sendmsg sendmsg(MSG_GET_DOORBELL)', 'gfx942', 'ok'],
  // swizzle
  ['ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,4)', 'gfx942', /^expected a 2-bit lane id/],
  ['ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,3)', 'gfx942', 'ok'],
  ['ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,3,0)', 'gfx942', /power of two/],
  ['ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,"01pip")', 'gfx942', 'ok'],
  ['ds_swizzle_b32 v0, v1 offset:swizzle(FOO,1)', 'gfx942', /^expected a swizzle mode/],
  // DPP
  ['v_mov_b32_dpp v0, v1 row_shl:16', 'gfx942', /^invalid row_shl value/],
  ['v_mov_b32_dpp v0, v1 row_shl:15', 'gfx942', 'ok'],
  ['v_mov_b32_dpp v0, v1 row_bcast:15', 'gfx906', 'ok'],
  ['v_mov_b32_dpp v0, v1 row_newbcast:1', 'gfx906', /not a valid operand/],
  ['v_mov_b32_dpp v0, v1 row_newbcast:1', 'gfx90a', 'ok'],
  ['v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:2', 'gfx942', /^invalid bound_ctrl value/],
  ['v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0x10', 'gfx942', 'ok'],
  ['v_mov_b32_dpp v0, v1 row_mask:0xf', 'gfx942', /not a valid operand/],
  ['v_mov_b32 v0, v1 row_shl:1', 'gfx942', 'ok'],
  ['v_cndmask_b32 v0, v1, v2, s[0:1] row_mask:0xf', 'gfx942', /not a valid operand/],
  ['v_cndmask_b32_dpp v0, v1, v2, s[0:1] quad_perm:[0,1,2,3]', 'gfx942', /^invalid operand for instruction/],
  ['v_cndmask_b32_dpp v0, v1, v2, vcc quad_perm:[0,1,2,3]', 'gfx942', 'ok'],
  ['v_mov_b32_dpp v0, s1 quad_perm:[0,1,2,3]', 'gfx942', /^invalid operand for instruction/],
  ['v_cndmask_b32_sdwa v0, v1, v2, s[0:1]', 'gfx942', /^invalid operand for instruction/],
  // branch offsets
  ['s_branch 0x10000', 'gfx942', /^expected a 16-bit signed jump offset/],
  ['s_branch 0xffff', 'gfx942', 'ok'],
  ['s_branch -32768', 'gfx942', 'ok'],
  ['s_cbranch_scc0 -32769', 'gfx942', /16-bit signed jump offset/],
];

test('special operands: llvm-mc 22 rejects exactly these, with these messages', () => {
  for (const [line, arch, want] of CASES) {
    const got = verdict(line, arch);
    if (want === 'ok') assert.equal(got, 'ok', `${line} (${arch})`);
    else assert.match(got, want, `${line} (${arch})`);
  }
});

test('special operands: symbols stand for numbers in hwreg() and sendmsg()', () => {
  const text = '.set OFF, 3\n.set MSG, 2\ns_getreg_b32 s1, hwreg(HW_REG_MODE, OFF, 2)\ns_sendmsg sendmsg(MSG, GS_OP_EMIT, 1)\ns_getreg_b32 s1, hwreg(HW_REG_MODE, UNDEF, 2)\n';
  const p = parseProgram(text, 'x.s');
  const r = resolveProgram(p, getTarget('gfx942')!);
  const errors = [...p.diagnostics, ...r.diagnostics].filter((d) => d.severity === 'error');
  assert.deepEqual(errors.map((d) => [d.loc.line, d.rule]), [[5, 'operand-hwreg']]);
});
