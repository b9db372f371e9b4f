/**
 * The hazard engine run on a window whose instructions change in place (hazards/window.ts)
 * against the engine from scratch: a NopWindow pads a changing window as computeNops pads it,
 * with and without a pair table; pair values with the rules known to find nothing skipped (learnt
 * in pairs and in windows alike), and with the rules whose producer predicate or register
 * relation rules a pair out skipped, equal the values every rule gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { InertRules, NopWindow, PairWaits, windowNopModel } from '../../../src/hazards/window.js';
import { activeRules } from '../../../src/hazards/engine.js';
import { HazardContext, hazardInsns } from '../../../src/hazards/context.js';
import { root } from '../../repo.js';
import { context, findings } from './harness.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

test('pair values: skipping the rules a consumer showed to find nothing (in a pair or in a window) gives the values every rule gives', () => {
  for (const [text, name] of [[example, 'example.s']] as const) {
    const k = pickKernel(loadText(text, name));
    const facts = hazardInsns(k.ctx);
    const rules = activeRules(new HazardContext(k.ctx, facts)).filter((r) => !r.noNopFix);
    // what the pair table skips is learnt by the windows too: a window over each region first
    const shared = new InertRules(rules, k.ctx.insns.length);
    for (const rg of k.regions) new NopWindow(k.ctx, facts, rules, shared, k.ctx.target.maxNopImm.value, rg.nodes.length).nops(Int32Array.from(rg.nodes), 0);
    const learning = new PairWaits(k.ctx, facts, shared);
    const every = new PairWaits(k.ctx, facts, new InertRules(rules, k.ctx.insns.length), false);
    // every pair of the kernel's instructions, in a random order
    const rand = mulberry32(13);
    const order = Int32Array.from({ length: k.n * k.n }, (_, x) => x);
    for (let x = order.length - 1; x > 0; x--) { const y = Math.floor(rand() * (x + 1)); [order[x], order[y]] = [order[y]!, order[x]!]; }
    let nonzero = 0;
    for (const x of order) {
      const j = Math.floor(x / k.n);
      const c = x % k.n;
      const w = every.waits(j, c);
      assert.equal(learning.waits(j, c), w, `${name}: pair ${j} -> ${c}`);
      if (w > 0) nonzero++;
    }
    assert.ok(nonzero > 100, `${name}: ${nonzero} pairs need wait states`);
    assert.ok(learning.skipped > 0, `${name}: ${learning.skipped} rule runs skipped as inert`);
    assert.ok(learning.filtered > order.length, `${name}: ${learning.filtered} rule runs ruled out by producer or registers`);
    assert.equal(every.skipped + every.filtered, 0);
  }
});

/**
 * Hand-written kernels in which every pairwise rule of the target finds a hazard (the check
 * reports it): the rules' producer predicates and register relations (HazardRule.producer,
 * sharesRegisters) must leave every pair's value as every rule gives it.
 */
const PAIR_KERNELS: Record<string, string> = {
  gfx908: `
    v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]
    v_mfma_f32_4x4x1f32 a[8:11], v0, v1, a[2:5]
    v_mfma_f32_32x32x1f32 a[16:47], v0, v1, a[16:47]
    v_accvgpr_read_b32 v2, a20
    v_mov_b32 v3, 0
    v_accvgpr_write_b32 a60, v3
    v_mfma_f32_4x4x1f32 a[4:7], v3, v1, a[4:7]
    v_cmpx_eq_u32 vcc, v0, v1
    v_mfma_f32_4x4x1f32 a[12:15], v0, v1, a[12:15]
    v_add_co_u32 v10, s[10:11], v11, v12
    buffer_load_dword v13, v14, s[12:15], s10 offen
    global_store_dwordx4 v[20:21], v[22:25], off
    v_mov_b32 v23, 0
    v_mfma_f32_4x4x1f32 a[64:67], v0, v1, a[64:67]
    v_mfma_f32_4x4x1f32 a[68:71], a64, v1, a[68:71]
    v_mfma_f32_32x32x1f32 a[96:127], v0, v1, a[96:127]
    v_accvgpr_write_b32 a100, v3
    v_accvgpr_write_b32 a72, v3
    v_mfma_f32_4x4x1f32 a[72:75], v0, v1, a[72:75]
    v_accvgpr_read_b32 v30, a0
    global_store_dword v[20:21], v30, off`,
  gfx90a: `
    v_mfma_f32_16x16x16f16 v[0:3], v[4:5], v[6:7], v[0:3]
    v_mfma_f32_16x16x16f16 v[8:11], v[4:5], v[6:7], v[2:5]
    v_mfma_f64_16x16x4f64 v[24:31], v[32:33], v[34:35], v[24:31]
    v_add_f64 v[36:37], v[24:25], v[26:27]
    global_load_dword v25, v[4:5], off
    v_mfma_f32_32x32x8f16 v[64:79], v[4:5], v[6:7], v[64:79]
    v_mov_b32 v66, 0
    v_mov_b32 v40, 0
    v_mfma_f32_16x16x16f16 v[44:47], v[40:41], v[6:7], v[44:47]
    v_cmpx_eq_u32 vcc, v0, v1
    v_mfma_f32_16x16x16f16 v[48:51], v[4:5], v[6:7], v[48:51]
    v_add_co_u32 v10, s[10:11], v11, v12
    buffer_load_dword v13, v14, s[12:15], s10 offen
    global_store_dwordx4 v[20:21], v[52:55], off
    v_mov_b32 v53, 0
    v_mfma_f32_16x16x16f16 v[100:103], v[4:5], v[6:7], v[100:103]
    v_mfma_f32_16x16x16f16 v[104:107], v[100:101], v[6:7], v[104:107]
    v_mfma_f32_16x16x16f16 v[110:113], v[4:5], v[6:7], v[110:113]
    global_store_dword v[4:5], v110, off
    v_mfma_f64_16x16x4f64 v[120:127], v[32:33], v[34:35], v[120:127]
    v_mfma_f64_16x16x4f64 v[132:139], v[32:33], v[34:35], v[124:131]
    v_mfma_f64_16x16x4f64 v[140:147], v[32:33], v[34:35], v[140:147]
    v_mfma_f64_16x16x4f64 v[148:155], v[140:141], v[34:35], v[148:155]
    v_mfma_f64_16x16x4f64 v[160:167], v[32:33], v[34:35], v[160:167]
    global_store_dwordx2 v[4:5], v[160:161], off`,
  gfx942: `
    v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]
    v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[2:5]
    v_mfma_f32_16x16x4_f32 v[12:15], v0, v5, v[12:15]
    v_add_f32 v20, v12, v13
    global_load_dword v14, v[4:5], off
    v_mfma_f64_16x16x4_f64 v[24:31], v[32:33], v[34:35], v[24:31]
    v_add_f64 v[36:37], v[24:25], v[26:27]
    v_mfma_f32_32x32x8_f16 v[64:79], v[4:5], v[6:7], v[64:79]
    v_mov_b32 v66, 0
    v_mov_b32 v40, 0
    v_mfma_f32_16x16x16_f16 v[44:47], v[40:41], v[34:35], v[44:47]
    v_smfmac_f32_16x16x32_f16 v[80:83], v[4:5], v[6:9], v10
    v_readfirstlane_b32 s0, v0
    v_add_u32 v1, s0, v2
    v_cmpx_eq_u32 vcc, v0, v1
    v_readfirstlane_b32 s1, v2
    v_add_u32 v1, v2, v3
    v_readlane_b32 s2, v1, 0
    v_exp_f32 v50, v51
    v_add_f32 v52, v50, v53
    v_add_u16_sdwa v60, v61, v62 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_3
    v_add_f16 v63, v60, v60
    v_add_co_u32 v70, s[10:11], v71, v72
    buffer_load_dword v73, v74, s[12:15], s10 offen
    global_store_dwordx4 v[84:85], v[86:89], off
    v_mov_b32 v87, 0
    v_cmpx_eq_u32 vcc, v0, v1
    v_mfma_f32_16x16x16_f16 v[92:95], v[4:5], v[6:7], v[92:95]
    v_cmpx_eq_u32 vcc, v0, v1
    global_load_dword v96, v[4:5], off
    v_mfma_f32_16x16x16_f16 v[100:103], v[4:5], v[6:7], v[100:103]
    v_add_f32 v104, v100, v101
    v_mfma_f32_16x16x16_f16 v[108:111], v[4:5], v[6:7], v[108:111]
    global_store_dword v[4:5], v108, off
    v_mfma_f32_16x16x4_f32 v[112:115], v0, v5, v[112:115]
    v_mfma_f32_16x16x4_f32 v[188:191], v0, v5, v[114:117]
    v_mfma_f32_16x16x4_f32 v[120:123], v0, v5, v[120:123]
    v_mfma_f32_16x16x4_f32 v[124:127], v120, v5, v[124:127]
    v_mfma_f32_16x16x4_f32 v[128:131], v0, v5, v[128:131]
    global_store_dword v[4:5], v128, off
    v_mfma_f64_16x16x4_f64 v[136:143], v[32:33], v[34:35], v[136:143]
    v_mfma_f64_16x16x4_f64 v[184:191], v[32:33], v[34:35], v[140:147]
    v_mfma_f64_16x16x4_f64 v[152:159], v[32:33], v[34:35], v[152:159]
    v_mfma_f64_16x16x4_f64 v[160:167], v[152:153], v[34:35], v[160:167]
    v_mfma_f64_16x16x4_f64 v[168:175], v[32:33], v[34:35], v[168:175]
    global_store_dwordx2 v[4:5], v[168:169], off
    v_mfma_f64_16x16x4_f64 v[176:183], v[32:33], v[34:35], v[176:183]
    v_mov_b32 v177, 0`,
};
// gfx950 (CDNA4) has gfx942's pairwise rules; its FP4 convert writes at a shifted bit position
PAIR_KERNELS['gfx950'] = `${PAIR_KERNELS['gfx942']}
    v_cvt_scalef32_sr_pk_fp4_f16 v193, v194, v195, v196
    v_mov_b32 v197, v193`;

test('pair values on hand-written kernels that hit every pairwise rule: producer and register filters change no value', () => {
  for (const [arch, body] of Object.entries(PAIR_KERNELS)) {
    const ctx = context(arch, body);
    const facts = hazardInsns(ctx);
    const rules = activeRules(new HazardContext(ctx, facts)).filter((r) => !r.noNopFix);
    const found = new Set(findings(arch, body).map((f) => f.rule));
    // the kernel exercises every pairwise rule with a filter that is active on the target
    const filtered = rules.filter((r) => r.pairwise === true && (r.producer !== undefined || r.sharesRegisters === true)).map((r) => r.id);
    const missed = filtered.filter((id) => !found.has(id));
    assert.deepEqual(missed, [], `${arch}: pairwise rules the kernel does not exercise`);
    const learning = new PairWaits(ctx, facts, new InertRules(rules, ctx.insns.length));
    const every = new PairWaits(ctx, facts, new InertRules(rules, ctx.insns.length), false);
    const n = ctx.insns.length;
    let nonzero = 0;
    for (let j = 0; j < n; j++) {
      for (let c = 0; c < n; c++) {
        const w = every.waits(j, c);
        assert.equal(learning.waits(j, c), w, `${arch}: pair ${ctx.insns[j]!.insn.text} -> ${ctx.insns[c]!.insn.text}`);
        if (w > 0) nonzero++;
      }
    }
    assert.ok(nonzero >= filtered.length / 2, `${arch}: ${nonzero} pairs need wait states`);
    assert.ok(learning.filtered > n * n, `${arch}: ${learning.filtered} rule runs ruled out`);
  }
});

/** Moves one instruction of a window a few places (the search's change), now and then anywhere. */
function moveInWindow(content: Int32Array, rand: () => number): [number, number] {
  const n = content.length;
  const a = Math.floor(rand() * n);
  const b = rand() < 0.8 ? Math.max(0, Math.min(n - 1, a + Math.floor(rand() * 9) - 4)) : Math.floor(rand() * n);
  const x = content[a]!;
  if (a < b) content.copyWithin(a, a + 1, b + 1); else content.copyWithin(b + 1, b, a);
  content[b] = x;
  return [a, b];
}

test('a NopWindow pads a changing window as the engine pads it from scratch, re-checking fewer consumers than it holds', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(9);
  // a window around the kernel's MFMAs, where moves make and break hazards
  const mfma = k.insns.findIndex((r) => r.insn.mnemonic.startsWith('v_mfma'));
  assert.ok(mfma >= 0);
  const start = Math.max(0, mfma - 20);
  const n = Math.min(k.n - start, 60);
  const from = 20;
  const win = model.window(n);
  const content = Int32Array.from({ length: n }, (_, x) => start + x);
  let partial = 0;
  let padded = 0;
  for (let t = 0; t < 300; t++) {
    const [a, b] = moveInWindow(content, rand);
    const got = win.nops(content, from);
    const exact = model.nops(Array.from(content.subarray(0, from)), Array.from(content.subarray(from)), []);
    assert.equal(got, exact, `step ${t}`);
    if (exact > 0) padded++;
    if (a !== b && win.checked < n - Math.min(a, b)) partial++;
  }
  assert.ok(padded > 50, `${padded} windows needed padding`);
  assert.ok(partial > 50, `${partial} windows re-checked only part of what follows the change`);
});

test('with a pair table a NopWindow still pads as the engine does: the table answers most consumers, every rule runs where it shows a shortfall', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(11);
  const mfma = k.insns.findIndex((r) => r.insn.mnemonic.startsWith('v_mfma'));
  const start = Math.max(0, mfma - 20);
  const n = Math.min(k.n - start, 60);
  const from = 20;
  const table = model.pairTable(start, start + n);
  assert.ok(table);
  const win = model.window(n, table);
  const content = Int32Array.from({ length: n }, (_, x) => start + x);
  let byTable = 0;
  let byRules = 0;
  let padded = 0;
  for (let t = 0; t < 300; t++) {
    moveInWindow(content, rand);
    const got = win.nops(content, from);
    const exact = model.nops(Array.from(content.subarray(0, from)), Array.from(content.subarray(from)), []);
    assert.equal(got, exact, `step ${t}`);
    if (exact > 0) padded++;
    byTable += win.byTable;
    byRules += win.checked - win.byTable;
    // no row is computed whole before the table has served as many paddings as it has rows
    if (t === n - 2) assert.equal(table.rowsKnown(), 0, `rows computed after ${t + 1} paddings of a table of ${n} rows`);
  }
  assert.ok(padded > 50, `${padded} windows needed padding`);
  assert.ok(byTable > byRules && byRules > 50, `${byTable} consumers answered by the table, ${byRules} by every rule`);
  assert.ok(table.rowsKnown() > 10, `${table.rowsKnown()} consumers walked only as far as their row's largest value`);
  // a pair whose wait states the table forgets: the window pads too little, where the engine does not
  let hazard: [number, number] | undefined;
  for (let j = start; j < start + n && !hazard; j++) for (let c = j + 1; c < start + n; c++) if (table.get(j, c) > 1) { hazard = [j, c]; break; }
  assert.ok(hazard, 'no pair of the window needs wait states');
  const [j, c] = hazard;
  const wrong = model.pairTable(start, start + n)!;
  wrong.corrupt(j, c, 0);
  const order = [...Array.from({ length: n }, (_, x) => start + x).filter((i) => i !== j && i !== c), j, c];
  assert.ok(model.window(n, table).nops(Int32Array.from(order), 0) > 0);
  assert.equal(model.window(n, table).nops(Int32Array.from(order), 0), model.nops([], order, []));
  assert.notEqual(model.window(n, wrong).nops(Int32Array.from(order), 0), model.nops([], order, []));
  // a row bound too small stops the walk before the producer: caught the same way
  const short = model.pairTable(start, start + n)!;
  short.corruptRow(c, 0);
  assert.notEqual(model.window(n, short).nops(Int32Array.from(order), 0), model.nops([], order, []));
});

test('a pair table keeps every pair it computed, in tiles made as they are first needed: each pair asked for is the rules\' answer, asked again in any order', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const model = windowNopModel(k.ctx);
  const rand = mulberry32(13);
  // a length that is no multiple of the tile's, so that the last row and column of tiles are partial
  const n = Math.min(k.n, 301);
  const table = model.pairTable(0, n)!;
  const fresh = model.pairTable(0, n)!;
  const asked = new Map<number, number>();
  // pairs near each other, as a search's orders ask, and a few far apart
  for (let t = 0; t < 3000; t++) {
    const c = Math.floor(rand() * n);
    const j = rand() < 0.99 ? Math.max(0, Math.min(n - 1, c - 1 - Math.floor(rand() * 12))) : Math.floor(rand() * n);
    const v = table.get(j, c);
    assert.equal(v, table.pairs.waits(j, c), `pair ${j} -> ${c}`);
    asked.set(c * n + j, v);
  }
  for (const [key, v] of [...asked].reverse()) assert.equal(table.get(key % n, Math.floor(key / n)), v);
  assert.equal(table.pairsKnown(), asked.size, 'every pair asked for is kept, and no other');
  assert.ok([...asked.values()].some((v) => v > 0), 'no pair asked for needs wait states');
  assert.ok(table.bytes < n * n / 2, `${table.bytes} bytes for ${asked.size} pairs of ${n * n}`);
  // the same pairs asked for in another order from another table: the same answers
  for (const [key, v] of [...asked].sort((a, b) => a[0] - b[0])) assert.equal(fresh.get(key % n, Math.floor(key / n)), v);
});

test('gfx908 MAI rules bounded by a pair table: a NopWindow over MFMA / v_accvgpr code pads as the engine does, the table answering consumers', () => {
  const ctx = context('gfx908', PAIR_KERNELS['gfx908']!);
  const model = windowNopModel(ctx);
  const n = ctx.insns.length;
  const table = model.pairTable(0, n);
  assert.ok(table);
  const win = model.window(n, table);
  const plain = model.window(n);
  const rand = mulberry32(17);
  const content = Int32Array.from({ length: n }, (_, x) => x);
  let padded = 0;
  let byTable = 0;
  for (let t = 0; t < 400; t++) {
    moveInWindow(content, rand);
    const from = t % 3 === 0 ? 0 : 4;
    const exact = model.nops(Array.from(content.subarray(0, from)), Array.from(content.subarray(from)), []);
    assert.equal(win.nops(content, from), exact, `step ${t}`);
    assert.equal(plain.nops(content, from), exact, `step ${t} (no table)`);
    if (exact > 0) padded++;
    byTable += win.byTable;
  }
  assert.ok(padded > 100, `${padded} windows needed padding`);
  assert.ok(byTable > 400, `${byTable} consumers answered by the table`);
});
