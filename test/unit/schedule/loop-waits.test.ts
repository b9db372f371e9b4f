/**
 * Waits around a loop when the code before it is reordered (src/schedule/rederive.ts): the wait
 * that closes a changed region which falls into a loop header is written at the region's end,
 * before the header's label, never as the loop's first instruction (where it would run on every
 * iteration); the loop's own waits stay where the analysis needs them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, moveTo } from '../../../src/schedule/state.js';
import { emitSchedule } from '../../../src/schedule/emit.js';

/** gfx90a: a scalar load, set-up, a wait right before an LDS + MFMA loop; the load is read after the loop. */
const LOOP = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
  '.text',
  'k:',
  '\ts_load_dwordx2 s[4:5], s[0:1], 0x0',
  '\ts_mov_b32 s6, 16',
  '\tv_lshlrev_b32_e32 v1, 4, v0',
  '\tv_mov_b32_e32 v10, 0',
  '\tv_mov_b32_e32 v11, 0',
  '\tv_accvgpr_write_b32 a0, 0',
  '\tv_accvgpr_write_b32 a1, 0',
  '\tv_accvgpr_write_b32 a2, 0',
  '\tv_accvgpr_write_b32 a3, 0',
  '\ts_waitcnt lgkmcnt(0)',
  '.Lloop:',
  '\tds_read_b64 v[2:3], v1',
  '\tds_read_b64 v[4:5], v1 offset:512',
  '\ts_waitcnt lgkmcnt(0)',
  '\tv_mfma_f32_16x16x16f16 a[0:3], v[2:3], v[4:5], a[0:3]',
  '\tv_add_u32_e32 v1, 0x800, v1',
  '\ts_sub_u32 s6, s6, 1',
  '\ts_cmp_lg_u32 s6, 0',
  '\ts_cbranch_scc1 .Lloop',
  '\ts_nop 7',
  '\ts_nop 2',
  '\tv_accvgpr_read_b32 v10, a0',
  '\tv_accvgpr_read_b32 v11, a1',
  '\tv_mov_b32_e32 v14, 0',
  '\tglobal_store_dwordx2 v14, v[10:11], s[4:5]',
  '\ts_endpgm',
].join('\n') + '\n';

/** The lines of the loop (from its label to its back edge) and the line right before the label. */
function loopOf(text: string): { before: string; body: string[] } {
  const lines = text.split('\n');
  const at = lines.indexOf('.Lloop:');
  const end = lines.findIndex((l, x) => x > at && l.includes('s_cbranch_scc1 .Lloop'));
  assert.ok(at > 0 && end > at, text);
  return { before: lines[at - 1]!, body: lines.slice(at + 1, end + 1).map((l) => l.trim()) };
}

test('a wait before a loop stays before it when the code before the loop is reordered', () => {
  const k = pickKernel(loadText(LOOP, 'k.s'));
  const s = new ScheduleState(k);
  const r = k.regionOf[k.insns.findIndex((i) => i.insn.mnemonic === 'v_mov_b32_e32')]!;
  moveTo(s, r, s.pos[r]![k.regions[r]!.nodes.indexOf(k.insns.findIndex((i) => i.insn.mnemonic === 'v_mov_b32_e32'))]!, 0);
  assert.deepEqual(s.changedRegions(), [r]);
  const out = emitSchedule(s).text;
  const orig = loopOf(LOOP);
  const got = loopOf(out);
  // the loop is what it was: no wait added at its top, its own wait kept
  assert.deepEqual(got.body, orig.body);
  assert.ok(!got.body[0]!.startsWith('s_waitcnt'));
  // the wait for the scalar load (read after the loop) closes the region, before the label
  assert.equal(got.before, '\ts_waitcnt lgkmcnt(0)');
  assert.notEqual(out, LOOP);
});
