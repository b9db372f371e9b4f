/**
 * Every error kind of the resolver, with the message it must give (clang-style: the
 * instruction and what is wrong), plus resolveProgram's diagnostics and placeholders.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { res } from './helpers.js';
import { ConductorError } from '../../../src/errors.js';
import { parseProgram } from '../../../src/asm/parser.js';
import { resolveProgram } from '../../../src/isa/resolve.js';
import { TARGETS } from '../../../src/targets/index.js';
import type { TargetName } from '../../../src/isa/target.js';

type Row = [text: string, target: TargetName, message: RegExp];

const ROWS: Row[] = [
  // unknown mnemonic
  ['v_foo_b32 v0, v1', 'gfx942', /^unknown instruction 'v_foo_b32'$/],
  ['s_mov_b32_x s0, s1', 'gfx906', /^unknown instruction 's_mov_b32_x'$/],
  // an image instruction (llvm-mc 22 assembles it for gfx90a): a limit of ours, said so
  ['image_load v[0:3], v[0:1], s[0:7] dmask:0xf unorm', 'gfx90a', /^'image_load': image \(MIMG\) instructions are not supported by Conductor/],
  // instructions of other generations are known, and the message says why they are missing
  ['v_movrels_b32 v0, v1', 'gfx906', /^'v_movrels_b32' is not available on gfx906 \(not a GFX9 instruction .*s_set_gpr_idx_on\)$/],
  ['s_waitcnt_vscnt null, 0', 'gfx950', /'s_waitcnt_vscnt' is not available on gfx950 \(a GFX10\+ instruction; .*s_waitcnt vmcnt/],
  // wrong operand count
  ['v_add_u32 v0, v1', 'gfx942', /^'v_add_u32' takes 3 operands, got 2$/],
  // vcc may be left out of an e32 form only when it is the one vcc operand (llvm-mc alike)
  ['v_addc_co_u32_e32 v0, v1, v2', 'gfx942', /^'v_addc_co_u32_e32' takes 5 operands, got 3$/],
  ['v_cmp_eq_u32_e64 0, v0', 'gfx942', /^'v_cmp_eq_u32_e64' takes 3 operands, got 2$/],
  ['s_load_dword s0', 'gfx942', /^'s_load_dword' takes 2 to 3 operands, got 1$/],
  ['global_atomic_add v0, v[2:3], v4, off', 'gfx90a', /'global_atomic_add' takes 3 operands, got 4/],
  ['global_atomic_add v[2:3], v4, off glc', 'gfx90a', /'global_atomic_add' takes 4 operands, got 3/],
  ['s_endpgm 1, 2', 'gfx942', /'s_endpgm' takes 0 to 1 operands, got 2/],
  // an LDS-DMA load written with a data register (a generator's form llvm-mc 22 refuses): a hint
  ['buffer_load_dword v3, v14, s[40:43], 0 offen lds', 'gfx908', /^'buffer_load_dword' takes 3 operands, got 4 \(the lds form names no data register: buffer_load_dword vaddr, srsrc, soffset \.\.\. lds\)$/],
  ['buffer_load_dword v3, v14, s[40:43], 0, 0 offen', 'gfx908', /^'buffer_load_dword' takes 4 operands, got 5$/],
  // registers the target does not have
  ['v_mov_b32 v256, 0', 'gfx942', /register v256 is out of range: gfx942 has v0\.\.v255 \('v_mov_b32'\)/],
  ['s_mov_b32 s104, 0', 'gfx906', /register s104 is out of range: gfx906 has s0\.\.s101 \('s_mov_b32'\)/],
  ['s_mov_b32 s102, 0', 'gfx942', /register s102 is out of range/],
  ['global_load_dwordx4 a[0:3], v[0:1], off', 'gfx906', /a\[0:3\] does not exist: gfx906 has no AGPRs/],
  // alignment: VGPR/AGPR tuples even on gfx90a+, SGPR tuples always
  ['v_mov_b64 v[1:2], v[4:5]', 'gfx942', /invalid register alignment: v\[1:2\] must start at an even register on gfx942 \('v_mov_b64'\)/],
  ['global_load_dwordx2 v[1:2], v[4:5], off', 'gfx90a', /invalid register alignment: v\[1:2\]/],
  ['v_mfma_f32_4x4x1f32 a[1:4], v0, v1, a[1:4]', 'gfx90a', /invalid register alignment: a\[1:4\]/],
  ['s_load_dwordx4 s[2:5], s[0:1], 0', 'gfx942', /invalid register alignment: s\[2:5\] must start at a multiple of 4/],
  ['s_mov_b64 s[1:2], 0', 'gfx906', /invalid register alignment: s\[1:2\] must start at a multiple of 2/],
  // not available on the target
  ['v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]', 'gfx906', /^'v_mfma_f32_32x32x1f32' is not available on gfx906 \(needs mai\)$/],
  ['v_mac_f32 v0, v1, v2', 'gfx942', /'v_mac_f32' is not available on gfx942 \(removed with gfx940-insts\)/],
  ['v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx950', /not available on gfx950 \(needs xf32-insts\)/],
  ['exp mrt0 v0, v0, v0, v0', 'gfx942', /'exp' is not available on gfx942/],
  ['ds_add_u32 v0, v1 gds', 'gfx90a', /the gds modifier is not available on gfx90a/],
  ['v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]', 'gfx908', /not available on gfx908 \(needs packed-fp32\)/],
  ['global_atomic_add_f32 v0, v[0:1], v2, off glc', 'gfx908', /'global_atomic_add_f32' with a return value is not available on gfx908 \(needs atomic-fadd-rtn\)/],
  // operand kind and width
  ['global_load_dwordx4 v[0:1], v[2:3], off', 'gfx942', /invalid operand for instruction: vdst of 'global_load_dwordx4' is 4 registers wide, 'v\[0:1\]' is 2/],
  ['global_load_dword v0, v2, off', 'gfx942', /invalid operand for instruction: vaddr of 'global_load_dword' is 2 registers wide/],
  ['v_add_u32 s0, v1, v2', 'gfx942', /invalid operand for instruction: 'v_add_u32' does not take an SGPR as vdst/],
  ['v_readlane_b32 v0, v1, 0', 'gfx942', /does not take a VGPR as sdst/],
  ['buffer_load_dword v0, off, s[4:7], 0 offen', 'gfx942', /needs a VGPR address here, not 'off'/],
  ['buffer_load_dword v0, v1, s[4:7], 0', 'gfx942', /neither offen nor idxen/],
  ['s_load_dwordx2 s[0:1], s[4:7], 0', 'gfx942', /sbase of 's_load_dwordx2' is 2 registers wide/],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3] cbsz:4', 'gfx950', /srcA of 'v_mfma_f32_16x16x128_f8f6f4' is 4 registers wide/],
  // encoding suffix the instruction lacks
  ['v_fma_f32_e32 v0, v1, v2, v3', 'gfx942', /'v_fma_f32_e32': v_fma_f32 has no e32 encoding/],
  ['s_mov_b32_e64 s0, s1', 'gfx942', /'s_mov_b32_e64': s_mov_b32 has no e64 encoding/],
];

test('each error kind names the instruction and what is wrong', () => {
  for (const [text, target, message] of ROWS) {
    assert.throws(() => res(text, target), (e: unknown) => {
      assert.ok(e instanceof ConductorError, `'${text}' throws a ConductorError`);
      assert.match(e.message, message, `message for '${text}' on ${target}`);
      assert.equal(e.loc?.line, 7, 'the error carries the instruction location');
      return true;
    }, `'${text}' on ${target} is rejected`);
  }
});

test('the same instructions are fine where they exist', () => {
  res('v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]', 'gfx908');
  res('v_mac_f32 v0, v1, v2', 'gfx90a');
  res('global_load_dwordx2 v[1:2], v[4:5], off', 'gfx908');
  res('s_mov_b32 s101, 0', 'gfx942');
  res('v_mov_b32 v255, 0', 'gfx942');
  res('global_load_dwordx4 a[0:3], v[0:1], off', 'gfx90a');
  res('ds_add_u32 v0, v1 gds', 'gfx906');
});

test('resolveProgram: diagnostics with file:line, placeholders that keep the program aligned', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
    'k:',
    '  v_add_u32 v0, v1, v2',
    '  v_bogus_b32 v3, v4',
    '  v_add_u32 v5, v6',
    '  s_endpgm',
  ].join('\n');
  const p = parseProgram(text, 'prog.s');
  const r = resolveProgram(p, TARGETS.gfx942);
  assert.equal(r.insns.length, p.instructions.length);
  assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.loc.line, d.rule]), [['error', 4, 'isa'], ['error', 5, 'isa']]);
  assert.match(r.diagnostics[0]!.message, /unknown instruction 'v_bogus_b32'/);
  assert.match(r.diagnostics[1]!.message, /'v_add_u32' takes 3 operands, got 2/);
  assert.equal(r.insns[0]!.unknown, undefined);
  assert.equal(r.insns[1]!.unknown, true);
  // a placeholder reads and writes every register it names, so nothing moves across it
  assert.deepEqual([...r.insns[1]!.defs].sort(), [...r.insns[1]!.uses].sort());
  assert.equal(r.insns[1]!.defs.length, 2);
});
