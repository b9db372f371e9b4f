/**
 * MFMA rules on gfx90a/gfx942/gfx950 (mfma.ts): MFMA -> MFMA SrcC / SrcA-B, MFMA -> VALU and
 * memory reads, WAW, the SrcC WAR, and VALU -> MFMA (also gfx908).
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { findings, runCase, type Case } from '../harness.js';

const X4 = 'v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]';
/** gfx90a: 16 passes and 8 passes on the same 16-register accumulator (identical tuple: no wait between them). */
const X32 = 'v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]';
const X16_1 = 'v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15]';
const CASES: Case[] = [
  // MFMA -> MFMA SrcC
  { name: 'XDL -> XDL overlapping SrcC (4 passes: N+1)', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc', required: 5, actual: 0,
    asm: `${X4}\nv_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[2:5]` },
  { name: 'gfx950: N+2', arch: 'gfx950', rule: 'mfma-xdl-write-mfma-srcc', required: 6, actual: 1,
    asm: `${X4}\ns_nop 0\nv_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[2:5]` },
  { name: 'gfx90a: N (16x16x16f16 is 8 passes)', arch: 'gfx90a', rule: 'mfma-xdl-write-mfma-srcc', required: 8, actual: 0,
    asm: 'v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]\nv_mfma_f32_16x16x16f16 v[8:11], v[4:5], v[6:7], v[2:5]' },
  { name: 'accumulation chain, 4 passes: none', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc',
    asm: `${X4}\n${X4}` },
  { name: 'accumulation chain, 2 passes: 2', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc', required: 2, actual: 0,
    asm: 'v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]\nv_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]' },
  { name: 'same tuple, different pass count: overlapped (XDL -> SGEMM N+1)', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc', required: 5, actual: 0,
    asm: `${X4}\nv_mfma_f32_16x16x4_f32 v[0:3], v8, v9, v[0:3]` },
  { name: 'SGEMM -> XDL overlapping SrcC: ISA N on gfx942', arch: 'gfx942', rule: 'mfma-sgemm-write-mfma-srcc', required: 8, actual: 0,
    asm: 'v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]\nv_mfma_f32_16x16x16_f16 v[8:11], v[12:13], v[14:15], v[2:5]' },
  { name: 'SGEMM -> XDL overlapping SrcC: 0 on gfx950', arch: 'gfx950', rule: 'mfma-sgemm-write-mfma-srcc',
    asm: 'v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]\nv_mfma_f32_16x16x16_f16 v[8:11], v[12:13], v[14:15], v[2:5]' },
  // MFMA -> MFMA SrcA/B
  { name: 'XDL -> SrcA (4 passes: 7)', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcab', required: 7, actual: 2,
    asm: `${X4}\ns_nop 1\nv_mfma_f32_16x16x16_f16 v[8:11], v[0:1], v[6:7], v[8:11]` },
  { name: 'SGEMM -> SrcA (8 passes: 10)', arch: 'gfx942', rule: 'mfma-sgemm-write-mfma-srcab', required: 10, actual: 0,
    asm: 'v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]\nv_mfma_f32_16x16x4_f32 v[8:11], v0, v5, v[8:11]' },
  { name: 'XDL -> SMFMAC index', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcab', required: 7, actual: 0,
    asm: 'v_mfma_f32_16x16x16_f16 v[10:13], v[4:5], v[6:7], v[10:13]\nv_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10' },
  { name: 'SMFMAC accumulation chain (vdst is C)', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc',
    asm: 'v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10\nv_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v11' },
  // MFMA -> VALU / memory
  { name: 'XDL -> VALU read', arch: 'gfx942', rule: 'mfma-xdl-write-valu-read', required: 7, actual: 3,
    asm: `${X4}\ns_nop 2\nv_add_f32 v8, v1, v1` },
  { name: 'XDL -> store data', arch: 'gfx942', rule: 'mfma-xdl-write-mem-read', required: 7, actual: 0,
    asm: `${X4}\nglobal_store_dword v[8:9], v1, off` },
  { name: 'DGEMM 16x16x4 -> VALU read: 11 on gfx90a', arch: 'gfx90a', rule: 'mfma-dgemm-write-valu-read', required: 11, actual: 0,
    asm: 'v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]\nv_add_f64 v[12:13], v[0:1], v[0:1]' },
  { name: 'DGEMM 16x16x4 -> VALU read: 19 on gfx950', arch: 'gfx950', rule: 'mfma-dgemm-write-valu-read', required: 19, actual: 0,
    asm: 'v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\nv_add_f64 v[12:13], v[0:1], v[0:1]' },
  { name: 'DGEMM 16x16x4 -> memory read: 18 (gfx90a also: the DGEMM is the VALU writer of its bug rule)', arch: 'gfx90a', rule: 'mfma-dgemm-write-mem-read', required: 18, actual: 0,
    alsoRules: ['valu-write-dgemm-mem-read'],
    asm: 'v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]\nglobal_store_dwordx2 v[20:21], v[0:1], off' },
  { name: 'DGEMM 16x16x4 -> VALU WAW: 19 on gfx950 (ISA)', arch: 'gfx950', rule: 'mfma-dgemm-write-vgpr-overwrite', required: 19, actual: 0,
    asm: 'v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]\nv_mov_b32 v0, 0' },
  { name: 'XDL -> VALU WAW (and the SrcC WAR)', arch: 'gfx942', rule: 'mfma-xdl-write-vgpr-overwrite', required: 7, actual: 0,
    alsoRules: ['mfma-srcc-read-overwrite'], asm: `${X4}\nv_mov_b32 v1, 0` },
  { name: 'SrcC WAR: 4 passes -> 3', arch: 'gfx942', rule: 'mfma-srcc-read-overwrite', required: 3, actual: 0,
    asm: 'v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[8:11]\nv_mov_b32 v9, 0' },
  { name: 'SrcC WAR on gfx90a: 8 passes -> 7', arch: 'gfx90a', rule: 'mfma-srcc-read-overwrite', required: 7, actual: 1,
    asm: 'v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[8:11]\ns_nop 0\nv_mov_b32 v9, 0' },
  { name: 'far enough', arch: 'gfx942', rule: 'mfma-xdl-write-valu-read', asm: `${X4}\ns_nop 6\nv_add_f32 v8, v1, v1` },
  { name: 'across a branch (the taken path is shorter)', arch: 'gfx942', rule: 'mfma-xdl-write-valu-read', required: 7, actual: 1,
    asm: `${X4}\ns_cbranch_scc0 .L1\ns_nop 0\n.L1:\nv_add_f32 v8, v1, v1` },
  { name: 'across a loop back-edge', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcab', required: 7, actual: 1,
    asm: `.L0:\nv_mfma_f32_16x16x16_f16 v[8:11], v[0:1], v[6:7], v[8:11]\n${X4}\ns_cbranch_scc1 .L0` },
  // A later MFMA that read the result as SrcC and rewrote the register ends the earlier producer's hazard.
  { name: 'identical tuple, fewer passes, rewritten: the second MFMA\'s 11 count (not the first\'s 19)', arch: 'gfx90a',
    rule: 'mfma-xdl-write-valu-read', required: 11, actual: 10, asm: `${X32}\n${X16_1}\ns_nop 7\ns_nop 1\nv_accvgpr_read_b32 v0, a0` },
  { name: 'identical tuple, rewritten, 11 wait states: clean', arch: 'gfx90a', rule: 'mfma-xdl-write-valu-read',
    asm: `${X32}\n${X16_1}\ns_nop 7\ns_nop 2\nv_accvgpr_read_b32 v0, a0` },
  { name: 'rewritten on one path only: the first MFMA counts on the other', arch: 'gfx90a', rule: 'mfma-xdl-write-valu-read',
    required: 19, actual: 11, asm: `${X32}\ns_cbranch_scc0 .L1\n${X16_1}\n.L1:\ns_nop 7\ns_nop 1\nv_accvgpr_read_b32 v0, a0` },
  // An MFMA of the same kind and pass count that overwrites the overlap without reading it also ends it: it writes after
  // the first (llc's rewrite-vgpr-mfma-to-agpr test, a new user's trial); the later writer's own chain rule applies.
  { name: 'overwritten by a same-pass MFMA, read by an exact chain: clean', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc',
    asm: 'v_mfma_f32_16x16x16_f16 a[6:9], v[4:5], v[4:5], a[6:9]\nv_mfma_f32_16x16x16_f16 a[8:11], v[4:5], v[4:5], a[10:13]\n'
      + 'v_accvgpr_write_b32 a15, v3\nv_accvgpr_write_b32 a14, v2\nv_mfma_f32_16x16x16_f16 a[8:11], v[4:5], v[4:5], a[8:11]' },
  { name: 'overwritten by an MFMA of another pass count: the first still counts', arch: 'gfx942', rule: 'mfma-xdl-write-mfma-srcc', required: 9, actual: 2,
    asm: 'v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[4:5], a[0:15]\nv_mfma_f32_16x16x16_f16 a[8:11], v[4:5], v[4:5], a[16:19]\n'
      + 'v_accvgpr_write_b32 a31, v3\nv_mfma_f32_16x16x16_f16 a[20:23], v[4:5], v[4:5], a[8:11]' },
  // VALU -> MFMA
  { name: 'VALU writes SrcA', arch: 'gfx90a', rule: 'valu-write-mfma-read', required: 2, actual: 0,
    asm: 'v_mov_b32 v4, 0\nv_mfma_f32_4x4x4f16 a[0:3], v[4:5], v[6:7], a[0:3]' },
  { name: 'v_accvgpr_write writes SrcC (gfx90a+)', arch: 'gfx942', rule: 'valu-write-mfma-read', required: 2, actual: 1,
    asm: 'v_accvgpr_write_b32 a0, v9\ns_nop 0\nv_mfma_f32_4x4x4_16b_f16 a[0:3], v[4:5], v[6:7], a[0:3]' },
  { name: 'gfx908: v_accvgpr_write reads a VALU result', arch: 'gfx908', rule: 'valu-write-mfma-read', required: 2, actual: 0,
    asm: 'v_mov_b32 v4, 0\nv_accvgpr_write_b32 a0, v4' },
  { name: 'VALU writes EXEC before an MFMA', arch: 'gfx90a', rule: 'valu-exec-write-mfma', required: 4, actual: 0,
    asm: 'v_cmpx_eq_u32 vcc, v0, v1\nv_mfma_f32_4x4x4f16 a[0:3], v[4:5], v[6:7], a[0:3]' },
];

describe('MFMA hazards', () => {
  for (const c of CASES) it(`${c.arch}: ${c.rule}: ${c.name}`, () => runCase(c));
});

test('same tuple, XDL after XDL of another pass count: the ISA value, and the message and source say it is stricter than LLVM', () => {
  const fs = findings('gfx950', 'v_mfma_f32_32x32x16_bf16 v[2:17], v[0:3], v[0:3], v[2:17]\nv_mfma_f32_16x16x32_bf16 v[2:5], v[0:3], v[0:3], v[2:5]')
    .filter((f) => f.rule === 'mfma-xdl-write-mfma-srcc');
  assert.equal(fs.length, 1, 'an overlapping tuple of another width: overlapped, as LLVM says too');
  assert.doesNotMatch(fs[0]!.message, /stricter than LLVM/);
  const same = findings('gfx950', 'v_mfma_f32_32x32x16_bf16 v[2:17], v[0:3], v[0:3], v[2:17]\nv_mfma_scale_f32_32x32x64_f8f6f4 v[2:17], v[20:27], v[20:27], v[2:17], v0, v1')
    .filter((f) => f.rule === 'mfma-xdl-write-mfma-srcc');
  assert.equal(same.length, 1);
  assert.match(same[0]!.message, /same tuple, 16 passes after 8: the ISA exempts only equal pass counts; stricter than LLVM, which requires 0/);
  assert.match(same[0]!.source ?? '', /Case 102 .*same number passes.*stricter than LLVM/);
});

test('same tuple, SGEMM after SGEMM of another pass count: Case 109\'s overlapped value, said to be stricter than LLVM; equal passes chain', () => {
  const srcc = (asm: string) => findings('gfx942', asm).filter((f) => f.rule === 'mfma-sgemm-write-mfma-srcc');
  // v_mfma_f32_16x16x4_f32 is 8 passes, v_mfma_f32_4x4x1_16b_f32 2: the producer's 8
  const fs = srcc('v_mfma_f32_16x16x4_f32 a[0:3], v1, v1, 0\ns_nop 5\nv_mfma_f32_4x4x1_16b_f32 a[4:7], v6, v6, a[0:3]');
  assert.equal(fs.length, 1);
  assert.match(fs[0]!.message, /same tuple, 2 passes after 8: the ISA exempts only equal pass counts; stricter than LLVM, which requires 0\), .*8 wait states required on gfx942, 6 present/);
  assert.match(fs[0]!.source ?? '', /Case 109 .*same number passes.*stricter than LLVM/);
  assert.deepEqual(srcc('v_mfma_f32_16x16x4_f32 a[0:3], v1, v1, 0\ns_nop 7\nv_mfma_f32_4x4x1_16b_f32 a[4:7], v6, v6, a[0:3]'), []);
  // the same pass count: an accumulation chain, nothing needed
  assert.deepEqual(srcc('v_mfma_f32_16x16x4_f32 a[0:3], v1, v1, 0\nv_mfma_f32_16x16x4_f32 a[4:7], v6, v6, a[0:3]'), []);
});
