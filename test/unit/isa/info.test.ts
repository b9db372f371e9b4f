/**
 * Class, encoding, counters, latency class, memory description and MFMA kind/passes of
 * representative instructions of every family.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { res } from './helpers.js';
import type { TargetName } from '../../../src/isa/target.js';
import type { InsnClass, LatencyClass } from '../../../src/isa/types.js';

type Row = [text: string, target: TargetName, cls: InsnClass, latency: LatencyClass, counters: string];

const ROWS: Row[] = [
  // text, target, class, latency class, counters "vm lgkm exp"
  ['s_add_u32 s0, s1, s2', 'gfx942', 'salu', 'salu', '0 0 0'],
  ['s_load_dword s4, s[0:1], 0', 'gfx942', 'smem', 'smem', '0 1 0'],
  ['s_load_dwordx8 s[8:15], s[0:1], 0', 'gfx942', 'smem', 'smem', '0 2 0'],
  ['s_memtime s[0:1]', 'gfx942', 'smem', 'smem', '0 2 0'],
  ['s_dcache_wb', 'gfx942', 'other', 'smem', '0 1 0'],
  ['s_sendmsg sendmsg(MSG_INTERRUPT)', 'gfx942', 'message', 'message', '0 1 0'],
  ['s_trap 2', 'gfx942', 'message', 'message', '0 0 0'],
  ['s_branch 0', 'gfx942', 'branch', 'branch', '0 0 0'],
  ['s_cbranch_execz 0', 'gfx942', 'branch', 'branch', '0 0 0'],
  ['s_getpc_b64 s[0:1]', 'gfx942', 'branch', 'branch', '0 0 0'],
  ['s_barrier', 'gfx942', 'barrier', 'barrier', '0 0 0'],
  ['s_waitcnt lgkmcnt(0)', 'gfx942', 'waitcnt', 'waitcnt', '0 0 0'],
  ['s_nop 1', 'gfx942', 'nop', 'nop', '0 0 0'],
  ['s_endpgm', 'gfx942', 'endpgm', 'endpgm', '0 0 0'],
  ['s_setprio 2', 'gfx942', 'other', 'other', '0 0 0'],
  ['s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0', 'gfx942', 'other', 'other', '0 0 0'],
  ['v_add_u32 v0, v1, v2', 'gfx942', 'valu', 'valu', '0 0 0'],
  ['v_exp_f32 v0, v1', 'gfx942', 'valu', 'valu_trans', '0 0 0'],
  ['v_rsq_f16 v0, v1', 'gfx942', 'valu', 'valu_trans', '0 0 0'],
  ['v_rcp_f64 v[0:1], v[2:3]', 'gfx942', 'valu', 'valu_dp', '0 0 0'],
  ['v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]', 'gfx942', 'valu', 'valu_dp', '0 0 0'],
  ['v_mul_hi_u32 v0, v1, v2', 'gfx942', 'valu', 'valu_quarter', '0 0 0'],
  ['v_lshlrev_b64 v[0:1], 1, v[2:3]', 'gfx942', 'valu', 'valu_64', '0 0 0'],
  ['v_dot2_f32_f16 v0, v1, v2, v3', 'gfx942', 'valu', 'valu_dot', '0 0 0'],
  ['v_accvgpr_write_b32 a0, v0', 'gfx908', 'valu', 'valu', '0 0 0'],
  ['v_readlane_b32 s0, v1, 3', 'gfx942', 'valu', 'valu', '0 0 0'],
  ['v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]', 'gfx908', 'mfma', 'mfma', '0 0 0'],
  ['global_load_dword v0, v[0:1], off', 'gfx942', 'vmem', 'vmem', '1 0 0'],
  ['global_store_dword v[0:1], v2, off', 'gfx942', 'vmem', 'vmem', '1 0 0'],
  ['buffer_load_dword v1, s[4:7], 0 offen lds', 'gfx90a', 'vmem', 'vmem', '1 0 0'],
  ['scratch_load_dword v0, off, s4', 'gfx942', 'vmem', 'vmem', '1 0 0'],
  ['flat_load_dword v0, v[0:1]', 'gfx942', 'flat', 'flat', '1 1 0'],
  ['ds_read_b32 v0, v1', 'gfx942', 'ds', 'ds', '0 1 0'],
  ['ds_write_b32 v1, v0', 'gfx942', 'ds', 'ds', '0 1 0'],
  ['ds_add_u32 v1, v2 gds', 'gfx906', 'ds', 'ds', '0 1 1'],
  ['ds_gws_barrier v0 gds', 'gfx90a', 'ds', 'ds', '0 1 1'],
  ['exp mrt0 v0, v0, v0, v0', 'gfx906', 'export', 'export', '0 0 1'],
  ['buffer_wbl2', 'gfx90a', 'other', 'vmem', '0 0 0'], // counted on no counter, as LLVM SIInsertWaitcnts counts it (isa/catalogue.ts)
  ['buffer_wbinvl1', 'gfx906', 'other', 'vmem', '0 0 0'],
  ['v_nop', 'gfx942', 'nop', 'nop', '0 0 0'],
  ['ds_nop', 'gfx942', 'nop', 'nop', '0 0 0'],
];

test('class, latency class and counters per family', () => {
  for (const [text, target, cls, latency, counters] of ROWS) {
    const r = res(text, target);
    assert.equal(r.info.cls, cls, `class of '${text}'`);
    assert.equal(r.info.latency, latency, `latency class of '${text}'`);
    const c = r.info.counters;
    assert.equal(`${c.vm} ${c.lgkm} ${c.exp}`, counters, `counters of '${text}'`);
  }
});

test('waitcnt events: loads, stores, returning atomics, SMEM out of order, FLAT both, GDS', () => {
  const ev = (t: string, target: TargetName = 'gfx942') => res(t, target).info.events.join(',');
  assert.equal(ev('global_load_dword v0, v[0:1], off'), 'vmem-load');
  assert.equal(ev('global_store_dword v[0:1], v2, off'), 'vmem-store');
  assert.equal(ev('global_atomic_add v[0:1], v2, off'), 'vmem-store');
  assert.equal(ev('global_atomic_add v3, v[0:1], v2, off sc0'), 'vmem-load');
  assert.equal(ev('buffer_load_dword v1, s[4:7], 0 offen lds', 'gfx90a'), 'vmem-store');
  assert.equal(ev('s_load_dword s0, s[0:1], 0'), 'smem');
  assert.equal(ev('flat_load_dword v0, v[0:1]'), 'flat');
  assert.equal(ev('ds_read_b32 v0, v1'), 'lds');
  assert.equal(ev('ds_add_u32 v1, v2 gds', 'gfx906'), 'gds');
  assert.equal(ev('s_sendmsg sendmsg(MSG_INTERRUPT)'), 'message');
  assert.equal(ev('exp mrt0 v0, v0, v0, v0', 'gfx906'), 'export');
  assert.equal(ev('v_add_u32 v0, v1, v2'), '');
});

test('memory description: space, operation, dwords, d16', () => {
  const mem = (t: string, target: TargetName = 'gfx942') => {
    const m = res(t, target).info.mem!;
    return `${m.space} ${m.op} ${m.dwords}${m.d16 ? ' d16' : ''}`;
  };
  assert.equal(mem('global_load_dwordx4 v[0:3], v[4:5], off'), 'global load 4');
  assert.equal(mem('global_load_short_d16_hi v0, v[4:5], off'), 'global load 1 d16');
  assert.equal(mem('buffer_store_dwordx3 v[0:2], v4, s[0:3], 0 offen'), 'buffer store 3');
  assert.equal(mem('buffer_atomic_add_f32 v0, v4, s[0:3], 0 offen'), 'buffer atomic 1');
  assert.equal(mem('buffer_atomic_add_f32 v0, v4, s[0:3], 0 offen sc0'), 'buffer atomic-rtn 1');
  assert.equal(mem('global_load_lds_dword v[0:1], off'), 'global load-lds 1');
  assert.equal(mem('buffer_load_dword v1, s[4:7], 0 offen lds', 'gfx90a'), 'buffer load-lds 1');
  assert.equal(mem('scratch_store_dwordx2 v0, v[2:3], off'), 'scratch store 2');
  assert.equal(mem('flat_atomic_cmpswap v0, v[2:3], v[4:5] sc0'), 'flat atomic-rtn 2');
  assert.equal(mem('ds_read2_b64 v[0:3], v4'), 'lds load 4');
  assert.equal(mem('ds_write_b32 v0, v1 gds', 'gfx906'), 'gds store 1');
  assert.equal(mem('ds_bpermute_b32 v0, v1, v2'), 'lds other 1');
  assert.equal(mem('s_load_dwordx2 s[0:1], s[2:3], 0'), 'scalar load 2');
  assert.equal(mem('s_atomic_add s0, s[2:3], 0 glc'), 'scalar atomic-rtn 1');
});

test('VALU flags: trans, VOPC/cmpx, DOT, MODE, SGPR result, encoding variant', () => {
  const v = res('v_cmpx_lt_f32 vcc, v0, v1').info.desc.valu!;
  assert.deepEqual([v.vopc, v.cmpx, v.readsMode, v.writesSgpr], [true, true, true, true]);
  assert.equal(res('v_sqrt_f32 v0, v1').info.desc.valu!.trans, true);
  assert.equal(res('v_mul_f32 v0, v1, v2').info.desc.valu!.trans, false);
  assert.equal(res('v_dot4c_i32_i8 v0, v1, v2').info.desc.valu!.dot, true);
  assert.equal(res('v_readfirstlane_b32 s0, v1').info.desc.valu!.writesSgpr, true);
  assert.equal(res('v_add_f32 v0, v1, v2').info.variant, 'e32');
  assert.equal(res('v_add_f32_e64 v0, v1, v2').info.variant, 'e64');
  assert.equal(res('v_add_f32_dpp v0, v1, v2 row_shr:1').info.variant, 'dpp');
  assert.equal(res('v_add_f32_sdwa v0, v1, v2').info.variant, 'sdwa');
  assert.equal(res('v_fma_f32 v0, v1, v2, v3').info.encoding, 'vop3');
  assert.equal(res('v_pk_fma_f16 v0, v1, v2, v3').info.encoding, 'vop3p');
  assert.equal(res('v_cmp_eq_u32 vcc, v0, v1').info.encoding, 'vopc');
});

type MfmaRow = [text: string, target: TargetName, kind: string, passes: number];

// kinds: LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl); passes per target: LLVM SISchedule.td
const MFMA: MfmaRow[] = [
  ['v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]', 'gfx908', 'xdl', 16],
  ['v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15]', 'gfx908', 'xdl', 8],
  ['v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]', 'gfx908', 'xdl', 2],
  ['v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]', 'gfx908', 'xdl', 16],
  ['v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx90a', 'xdl', 8],
  ['v_mfma_f32_32x32x2f32 v[0:15], v16, v17, v[0:15]', 'gfx90a', 'xdl', 16],
  ['v_mfma_f32_32x32x8bf16_1k v[0:15], v[16:17], v[18:19], v[0:15]', 'gfx90a', 'xdl', 16],
  ['v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]', 'gfx90a', 'dgemm', 8],
  ['v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]', 'gfx90a', 'dgemm', 4],
  ['v_mfma_f32_32x32x2_f32 v[0:15], v16, v17, v[0:15]', 'gfx942', 'sgemm', 16],
  ['v_mfma_f32_16x16x4_f32 v[0:3], v16, v17, v[0:3]', 'gfx942', 'sgemm', 8],
  ['v_mfma_f32_4x4x1_16b_f32 v[0:3], v16, v17, v[0:3]', 'gfx942', 'sgemm', 2],
  ['v_mfma_f32_32x32x1f32 v[0:31], v32, v33, v[0:31]', 'gfx942', 'sgemm', 16],
  ['v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx942', 'xdl', 4],
  ['v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx942', 'xdl', 4],
  ['v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]', 'gfx942', 'xdl', 8],
  ['v_mfma_f32_32x32x4_2b_f16 v[0:31], v[32:33], v[34:35], v[0:31]', 'gfx942', 'xdl', 16],
  ['v_mfma_f32_4x4x4_16b_f16 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx942', 'xdl', 2],
  ['v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx942', 'xdl', 4],
  ['v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[16:17], v[18:19], v[0:15]', 'gfx942', 'xdl', 8],
  ['v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]', 'gfx942', 'xdl', 4],
  ['v_mfma_f32_32x32x4_xf32 v[0:15], v[16:17], v[18:19], v[0:15]', 'gfx942', 'xdl', 8],
  ['v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]', 'gfx942', 'dgemm', 8],
  ['v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]', 'gfx950', 'dgemm', 16],
  ['v_mfma_f64_4x4x4_4b_f64 v[0:1], v[2:3], v[4:5], v[0:1]', 'gfx950', 'dgemm', 4],
  ['v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10', 'gfx942', 'smfmac', 4],
  ['v_smfmac_f32_32x32x16_bf16 v[0:15], v[16:17], v[18:21], v22', 'gfx942', 'smfmac', 8],
  ['v_smfmac_f32_16x16x128_fp8_fp8 v[0:3], v[4:7], v[8:15], v16', 'gfx950', 'smfmac', 4],
  ['v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3]', 'gfx950', 'xdl', 4],
  ['v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]', 'gfx950', 'xdl', 8],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]', 'gfx950', 'xdl', 8],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:15], v[0:3] cbsz:4 blgp:4', 'gfx950', 'xdl', 4],
  ['v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:19], v[0:3] cbsz:2', 'gfx950', 'xdl', 8],
  ['v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:21], v[24:29], v[0:15] cbsz:3 blgp:2', 'gfx950', 'xdl', 8],
  ['v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[0:15]', 'gfx950', 'xdl', 16],
  ['v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21', 'gfx950', 'xdl', 8],
];

test('MFMA kind and pass count per target', () => {
  for (const [text, target, kind, passes] of MFMA) {
    const m = res(text, target).info.mfma;
    assert.ok(m, `'${text}' is an MFMA`);
    assert.equal(m.kind, kind, `kind of '${text}' on ${target}`);
    assert.equal(m.passes, passes, `passes of '${text}' on ${target}`);
    assert.match(m.source, /^LLVM SISchedule\.td \(/);
  }
});

test('v_mfma_ld_scale_b32 is a plain VOP3P, not an MFMA', () => {
  const r = res('v_mfma_ld_scale_b32 v0, v1', 'gfx950');
  assert.equal(r.info.cls, 'valu');
  assert.equal(r.info.mfma, undefined);
});
