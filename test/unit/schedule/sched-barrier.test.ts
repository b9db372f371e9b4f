/** `; sched_barrier mask(...)`, the trace __builtin_amdgcn_sched_barrier leaves: nothing is moved across it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { pickKernel, schedBarrierBetween } from '../../../src/schedule/kernel.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { debugOnlyLabels } from '../../../src/analysis/cfg.js';
import { applyRounds } from '../../../src/schedule/session.js';
import { parseCommandArgs } from '../../../src/schedule/commands.js';

const head = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:'];
const BEFORE = [...head, '  v_mov_b32 v1, 1', '  v_mov_b32 v2, 2', '\t; sched_barrier mask(0x00000000)', '  v_mov_b32 v3, 3', '  v_add_u32 v4, v1, v2', '  s_endpgm', ''].join('\n');
const ACROSS = [...head, '  v_mov_b32 v1, 1', '  v_mov_b32 v2, 2', '  v_mov_b32 v3, 3', '\t; sched_barrier mask(0x00000000)', '  v_add_u32 v4, v1, v2', '  s_endpgm', ''].join('\n');

test('a sched_barrier comment splits the scheduling region; other comments do not', () => {
  const k = pickKernel(loadText(BEFORE, 'b.s'));
  assert.deepEqual(k.regions.map((r) => r.lines), [[4, 5], [7, 8]]);
  const other = BEFORE.replace('sched_barrier mask(0x00000000)', 'sched_group_barrier mask(0x00000008) size(1) SyncID(0)');
  assert.equal(pickKernel(loadText(other, 'g.s')).regions.length, 1);
  // lines 3-7: an instruction, the two comment forms, a comment that only names it, the end
  const p = loadText([...head, '  s_nop 0', '  ; sched_barrier mask(0x00000001)', '  // sched_barrier mask(0x00000000)', '  ; no sched_barrier here', '  s_endpgm', ''].join('\n'), 'p.s').program;
  assert.equal(schedBarrierBetween(p, 3, 5), true);
  assert.equal(schedBarrierBetween(p, 4, 5), false);
  assert.equal(schedBarrierBetween(p, 4, 6), true);
  // the text names it between, but not as a barrier; and a barrier only after the range
  assert.equal(schedBarrierBetween(p, 5, 7), false);
  assert.equal(schedBarrierBetween(p, 0, 3), false);
  // a text that never names it
  assert.equal(schedBarrierBetween(loadText([...head, '  s_nop 0', '  ; a comment', '  s_endpgm', ''].join('\n'), 'q.s').program, 3, 5), false);
});

test('apply refuses a move across it; verify rejects a file where an instruction crossed it', () => {
  const r = applyRounds(loadText(BEFORE, 'b.s'), parseCommandArgs(['move v_mov_b32_2 before v_mov_b32_1']));
  assert.match(r.failed?.reason ?? '', /different scheduling regions.*sched_barrier/);
  const v = verifyLoaded(loadText(BEFORE, 'b.s'), loadText(ACROSS, 'a.s'));
  assert.equal(v.equivalent, false);
  assert.equal(v.difference?.kind, 'region-contents');
  assert.equal(verifyLoaded(loadText(BEFORE, 'b.s'), loadText(BEFORE, 'c.s')).equivalent, true);
});

test('an instruction moved to the head of the region below it is written below the comment, which stays', () => {
  // the first instruction below the comment moves down: the comment is not carried with it
  const text = [...head, '  v_add_u32_e32 v1, v2, v3', '  ; sched_barrier mask(0x00000000)', '  ; the next two', '  s_add_i32 s0, s1, 1', '  v_add_u32_e32 v4, v5, v6', '  s_endpgm', ''].join('\n');
  const r = applyRounds(loadText(text, 'h.s'), parseCommandArgs(['move v_add_u32_e32_1 before s_add_i32_0']));
  assert.equal(r.failed, null);
  const out = r.text;
  assert.deepEqual(out.split('\n').slice(3, 8), ['  v_add_u32_e32 v1, v2, v3', '  ; sched_barrier mask(0x00000000)', '  v_add_u32_e32 v4, v5, v6', '  ; the next two', '  s_add_i32 s0, s1, 1']);
  assert.equal(verifyLoaded(loadText(text, 'h.s'), loadText(out, 'o.s')).equivalent, true);
});

test('inline asm (between ;;#ASMSTART and ;;#ASMEND) is pinned and kept as written; its markers are not carried by a moved instruction', () => {
  const text = [...head,
    '  v_mov_b32 v1, 1',
    '  ;;#ASMSTART',
    '  s_nop 0',
    '  ;;#ASMEND',
    '  v_mov_b32 v2, 2',
    '  v_mov_b32 v3, 3',
    '  ;;#ASMSTART',
    '  ;; marker ;;',
    '  ;;#ASMEND',
    '  v_mov_b32 v4, 4',
    '  v_add_u32 v5, v1, v2',
    '  s_endpgm', ''].join('\n');
  const k = pickKernel(loadText(text, 'i.s'));
  assert.match(k.pinReason[1]!, /inline asm/);
  // the s_nop inside the asm splits the regions; the comment-only asm block does not
  assert.deepEqual(k.regions.map((r) => r.lines), [[4, 4], [8, 14]]);
  const r = applyRounds(loadText(text, 'i.s'), parseCommandArgs(['move v_mov_b32_3 before v_mov_b32_1']));
  assert.equal(r.failed, null);
  const out = r.text.split('\n');
  // v4 moved up (the instructions fill the region's slots in the new order); the marker block
  // stays at its place in the text, so does the s_nop inside the first block
  assert.deepEqual(out.slice(3, 15), ['  v_mov_b32 v1, 1', '  ;;#ASMSTART', '  s_nop 0', '  ;;#ASMEND', '  v_mov_b32 v4, 4', '  v_mov_b32 v2, 2',
    '  ;;#ASMSTART', '  ;; marker ;;', '  ;;#ASMEND', '  v_mov_b32 v3, 3', '  v_add_u32 v5, v1, v2', '  s_endpgm']);
  assert.equal(verifyLoaded(loadText(text, 'i.s'), loadText(r.text, 'o.s')).equivalent, true);
});

test('a .loc line (clang -g) splits no region: it moves with the instruction below it, and verify accepts the result', () => {
  const text = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.file 0 "/src" "k.hip"', '.text', 'k:',
    '  .loc 0 3 5',
    '  v_add_u32_e32 v1, v2, v3',
    '  .loc 0 4 7',
    '  s_add_i32 s0, s1, 1',
    '  v_add_u32_e32 v4, v5, v6',
    '  s_endpgm', ''].join('\n');
  const k = pickKernel(loadText(text, 'l.s'));
  assert.deepEqual(k.regions.map((r) => r.lines), [[6, 9]], 'one region across the .loc lines');
  const r = applyRounds(loadText(text, 'l.s'), parseCommandArgs(['move s_add_i32_0 before v_add_u32_e32_0']));
  assert.equal(r.failed, null);
  // the .loc above s_add_i32 travels with it; the one above the first instruction heads the block and stays
  assert.deepEqual(r.text.split('\n').slice(4, 9), ['  .loc 0 3 5', '  .loc 0 4 7', '  s_add_i32 s0, s1, 1', '  v_add_u32_e32 v1, v2, v3', '  v_add_u32_e32 v4, v5, v6']);
  assert.equal(verifyLoaded(loadText(text, 'l.s'), loadText(r.text, 'o.s')).equivalent, true);
  // another directive still splits the region
  assert.equal(pickKernel(loadText(text.replace('  .loc 0 4 7', '  .p2align 2'), 'a.s')).regions.length, 2);
});

test('a .Ltmp label only debug information names (clang -g) starts no block: code moves across it, the label keeps its place, verify accepts; a label code names still splits', () => {
  const text = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
    '  v_add_u32_e32 v1, v2, v3',
    '.Ltmp0:',
    '  .loc 0 4 7',
    '  s_add_i32 s0, s1, 1',
    '  v_add_u32_e32 v4, v5, v6',
    '.Ltmp1:',
    '  s_endpgm',
    '.Lfunc_end0:',
    '  .section .debug_loclists,"",@progbits',
    '  .uleb128 .Ltmp0-k',
    '  .uleb128 .Ltmp1-k', ''].join('\n');
  const l = loadText(text, 'g.s');
  assert.deepEqual([...debugOnlyLabels(l.program)].sort(), ['.Lfunc_end0', '.Ltmp0', '.Ltmp1']);
  const k = pickKernel(l);
  assert.equal(k.ctx.cfg.blocks.length, 1);
  assert.deepEqual(k.regions.map((r) => r.lines), [[4, 8]], 'one region across the label');
  const r = applyRounds(loadText(text, 'g.s'), parseCommandArgs(['move s_add_i32_0 before v_add_u32_e32_0']));
  assert.equal(r.failed, null);
  // the label stays between the first and the second instruction slot; the .loc goes with s_add_i32
  assert.deepEqual(r.text.split('\n').slice(3, 9), ['  .loc 0 4 7', '  s_add_i32 s0, s1, 1', '.Ltmp0:', '  v_add_u32_e32 v1, v2, v3', '  v_add_u32_e32 v4, v5, v6', '.Ltmp1:']);
  assert.equal(verifyLoaded(loadText(text, 'g.s'), loadText(r.text, 'o.s')).equivalent, true);
  // a data directive in a code section may be a table code jumps through: the label counts as named
  const table = text.replace('.Lfunc_end0:', '.Lfunc_end0:\n  .long .Ltmp0-k');
  assert.ok(!debugOnlyLabels(loadText(table, 't.s').program).has('.Ltmp0'));
  assert.ok(debugOnlyLabels(loadText(table.replace('  .long .Ltmp0-k', '  .section .debug_ranges\n  .long .Ltmp0-k'), 'd.s').program).has('.Ltmp0'));
  // named by a branch, by an instruction's operand, or by a symbol assignment: a block starts there
  for (const user of ['  s_branch .Ltmp0', '  s_add_u32 s2, s2, .Ltmp0-k', '  .set x, .Ltmp0-k']) {
    const t = text.replace('  s_endpgm', `${user}\n  s_endpgm`);
    const lu = loadText(t, 'u.s');
    assert.ok(!debugOnlyLabels(lu.program).has('.Ltmp0'), user);
    assert.ok(pickKernel(lu).ctx.cfg.blocks.some((b) => b.labels.includes('.Ltmp0')), user);
    assert.equal(verifyLoaded(lu, loadText(t.replace('  v_add_u32_e32 v1, v2, v3\n.Ltmp0:\n  .loc 0 4 7\n  s_add_i32 s0, s1, 1', '.Ltmp0:\n  .loc 0 4 7\n  s_add_i32 s0, s1, 1\n  v_add_u32_e32 v1, v2, v3'), 'o.s')).equivalent, false, user);
  }
});
