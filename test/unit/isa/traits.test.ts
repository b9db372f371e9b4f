/**
 * The per-kernel traits table (src/isa/traits.ts): each instruction classified once, on
 * hand-written instructions of every kind the analyses ask about.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTraits, has, isClass, isMemOp, isMemSpace, isMfmaKind, issues, memSpaceName, traitsOf, EVENT, TRAIT, type KernelTraits } from '../../../src/isa/traits.js';
import type { TargetName } from '../../../src/isa/target.js';
import { res } from './helpers.js';

function one(text: string, target: TargetName = 'gfx942'): KernelTraits {
  return buildTraits([res(text, target)]);
}

test('class, MFMA kind and passes', () => {
  const x = one('v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]', 'gfx90a');
  assert.ok(isClass(x, 0, 'mfma'));
  assert.ok(isMfmaKind(x, 0, 'xdl'));
  assert.equal(x.passes[0], 16);
  assert.equal(one('v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]').passes[0], 8);
  const s = one('v_mfma_f32_32x32x2_f32 a[0:15], v0, v1, a[0:15]');
  assert.ok(isMfmaKind(s, 0, 'sgemm'));
  const d = one('v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]', 'gfx90a');
  assert.ok(isMfmaKind(d, 0, 'dgemm') && has(d, 0, TRAIT.dgemm16) && !has(d, 0, TRAIT.dgemm4));
  const v = one('v_add_f32 v0, v1, v2');
  assert.ok(isClass(v, 0, 'valu') && isMfmaKind(v, 0, 'none') && v.passes[0] === 0);
});

test('transcendental, DOT, v_cmpx, DPP/SDWA, accvgpr moves', () => {
  assert.ok(has(one('v_exp_f32 v0, v1'), 0, TRAIT.trans));
  assert.ok(has(one('v_dot2_f32_f16 v0, v1, v2, v3'), 0, TRAIT.dot));
  assert.ok(has(one('v_cmpx_lt_f32 vcc, v0, v1'), 0, TRAIT.cmpx));
  assert.ok(has(one('v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf'), 0, TRAIT.dpp));
  assert.ok(has(one('v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:DWORD'), 0, TRAIT.sdwa));
  assert.ok(has(one('v_accvgpr_read_b32 v0, a0'), 0, TRAIT.accRead));
  assert.ok(has(one('v_accvgpr_write_b32 a0, v0'), 0, TRAIT.accWrite));
  assert.equal(one('v_add_f32 v0, v1, v2').flags[0], 0);
});

test('memory operation, space, width and events', () => {
  const g = one('global_load_dwordx4 v[0:3], v[4:5], off');
  assert.ok(isClass(g, 0, 'vmem') && isMemOp(g, 0, 'load') && isMemSpace(g, 0, 'global'));
  assert.equal(g.memDwords[0], 4);
  assert.ok(issues(g, 0, EVENT['vmem-load']) && has(g, 0, TRAIT.vmemLoad) && has(g, 0, TRAIT.flatEncoding));
  assert.equal(g.vmInc[0], 1);
  const st = one('buffer_store_dword v0, v1, s[4:7], 0 offen');
  assert.ok(isMemOp(st, 0, 'store') && issues(st, 0, EVENT['vmem-store']) && has(st, 0, TRAIT.mayStore | TRAIT.bufferEncoding));
  const ds = one('ds_read_b64 v[0:1], v2');
  assert.ok(isClass(ds, 0, 'ds') && issues(ds, 0, EVENT.lds) && has(ds, 0, TRAIT.ldsMemory));
  assert.equal(memSpaceName(ds, 0), 'lds');
  const sw = one('ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,2,0)');
  assert.ok(isClass(sw, 0, 'ds') && !has(sw, 0, TRAIT.ldsMemory));
  const sm = one('s_load_dwordx2 s[0:1], s[4:5], 0x0');
  assert.ok(isClass(sm, 0, 'smem') && issues(sm, 0, EVENT.smem) && isMemSpace(sm, 0, 'scalar'));
  const fl = one('flat_load_dword v0, v[2:3]');
  assert.ok(isClass(fl, 0, 'flat') && issues(fl, 0, EVENT.flat) && !has(fl, 0, TRAIT.vmemLoad));
  const v = one('v_add_f32 v0, v1, v2');
  assert.ok(isMemOp(v, 0, 'none') && isMemSpace(v, 0, 'none') && v.events[0] === 0);
});

test('LDS-DMA, cache operations, d16 and wide stores', () => {
  const dma = one('buffer_load_dword v1, s[4:7], 0 offen lds');
  assert.ok(has(dma, 0, TRAIT.ldsDmaLoad | TRAIT.ldsDma | TRAIT.mayStore));
  assert.ok(has(one('buffer_wbl2 sc1'), 0, TRAIT.cacheOp));
  assert.ok(has(one('global_load_short_d16_hi v0, v[2:3], off'), 0, TRAIT.d16 | TRAIT.vmemLoad));
  const wide = one('buffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen');
  assert.ok(has(wide, 0, TRAIT.wideStore | TRAIT.sgprOffset));
  const imm = one('buffer_store_dwordx4 v[0:3], v4, s[8:11], 0 offen');
  assert.ok(has(imm, 0, TRAIT.wideStore) && !has(imm, 0, TRAIT.sgprOffset));
  assert.ok(!has(one('global_store_dwordx2 v[0:1], v[2:3], off'), 0, TRAIT.wideStore));
  assert.ok(has(one('global_store_dwordx3 v[0:1], v[2:4], off'), 0, TRAIT.wideStore));
});

test('one table per instruction list', () => {
  const list = [res('v_add_f32 v0, v1, v2'), res('s_endpgm')];
  assert.equal(traitsOf(list), traitsOf(list));
  assert.ok(isClass(traitsOf(list), 1, 'endpgm'));
});
