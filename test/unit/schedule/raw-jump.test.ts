/**
 * Kernels that jump by raw offset (`s_branch 1755`, as MIOpen's kernels written from a
 * disassembly): a check warning; schedule, apply and check --fix refuse to change them (a file's
 * other kernels are scheduled); verify requires their layout unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { fixLoaded } from '../../../src/check/fix.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { applyRounds } from '../../../src/schedule/session.js';
import { parseCommandArgs } from '../../../src/schedule/commands.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { kernel, LAYOUT_OPTS as opts, PLAIN, text } from './helpers.js';
import { ConductorError } from '../../../src/errors.js';

// scc1: skip the two s_nop and the first v_mov (3 words)
const RAW = ['s_cmp_eq_u32 s0, 0', 's_cbranch_scc1 3', 's_nop 0', 's_nop 0', 'v_mov_b32 v1, 1', 'v_mov_b32 v2, 2', 'v_add_f32 v3, v1, v2'];

test('check warns at the first raw-offset jump; a jump to a label is not one', () => {
  const r = checkLoaded(loadText(text(kernel('k', RAW)), 'r.s'));
  const w = r.findings.filter((f) => f.rule === 'raw-offset-jump');
  assert.equal(w.length, 1);
  assert.equal(w[0]!.severity, 'warning');
  assert.match(w[0]!.message, /^s_cbranch_scc1 3 jumps by a raw offset, not to a label/);
  const labelled = text(kernel('k', ['s_cmp_eq_u32 s0, 0', 's_cbranch_scc1 .L1', 'v_mov_b32 v1, 1', '.L1:', 'v_mov_b32 v2, 2']));
  assert.equal(checkLoaded(loadText(labelled, 'l.s')).findings.filter((f) => f.rule === 'raw-offset-jump').length, 0);
});

test('apply and schedule refuse such a kernel; a file\'s other kernels are scheduled, with a note; alone, the file is written as it is', async () => {
  const one = text(kernel('k', RAW));
  assert.throws(() => applyRounds(loadText(one, 'r.s'), parseCommandArgs(['swap v_mov_b32_0 v_mov_b32_1'])), (e: unknown) => e instanceof ConductorError && /cannot schedule k: 's_cbranch_scc1 3' jumps by a raw offset/.test(e.message));
  // named: refused; the file's only kernel, not named: the file as it is, with the note (nothing to reorder)
  await assert.rejects(scheduleFile(loadText(one, 'r.s'), one, { ...opts, kernel: 'k' }), /cannot schedule k: 's_cbranch_scc1 3' jumps by a raw offset/);
  // (a function: a clean one waits for its caller's memory operations first)
  const clean = text(kernel('k', ['s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', ...RAW]));
  const alone = await scheduleFile(loadText(clean, 'r.s'), clean, opts);
  assert.deepEqual([alone.kernels.length, alone.text], [0, clean]);
  assert.ok(alone.notes.some((n) => /^kernel k not scheduled: 's_cbranch_scc1 3' jumps by a raw offset/.test(n)), alone.notes.join('\n'));
  // ... unless it has check errors, which no schedule may leave: refused
  const hazard = text(kernel('k', ['s_cmp_eq_u32 s0, 0', 's_cbranch_scc1 2', 'global_load_dword v1, v[2:3], off', 'v_add_u32 v4, v1, v1']));
  await assert.rejects(scheduleFile(loadText(hazard, 'h.s'), hazard, opts), /cannot schedule k: 's_cbranch_scc1 2' jumps by a raw offset/);
  const two = text(kernel('k', RAW), kernel('p', PLAIN));
  const r = await scheduleFile(loadText(two, 'two.s'), two, opts);
  assert.deepEqual(r.kernels.map((x) => x.kernel), ['p']);
  assert.ok(r.notes.some((n) => /^kernel k not scheduled: 's_cbranch_scc1 3' jumps by a raw offset/.test(n)), r.notes.join('\n'));
  assert.deepEqual(r.text.split('\n').slice(0, 14), two.split('\n').slice(0, 14), 'kernel k as written');
});

test('check --fix refuses to insert into such a kernel; verify requires its layout unchanged', () => {
  const hazard = text(kernel('k', ['s_cmp_eq_u32 s0, 0', 's_cbranch_scc1 2', 'global_load_dword v1, v[2:3], off', 'v_add_u32 v4, v1, v1']));
  assert.throws(() => fixLoaded(loadText(hazard, 'h.s')), (e: unknown) => e instanceof ConductorError && /cannot fix k: 's_cbranch_scc1 2' jumps by a raw offset/.test(e.message));
  const one = text(kernel('k', RAW));
  assert.equal(verifyLoaded(loadText(one, 'a.s'), loadText(one, 'b.s')).equivalent, true);
  // the two s_nop dropped (nothing else changes): the jump now lands past the add
  const v = verifyLoaded(loadText(one, 'a.s'), loadText(one.replace('  s_nop 0\n  s_nop 0\n', ''), 'b.s'));
  assert.equal(v.equivalent, false);
  assert.equal(v.difference?.kind, 'raw-jump-layout');
});

test('an s_setpc_b64 of an s_getpc_b64 value moved by a number is a raw jump; one of another pair is not', () => {
  const pc = (to: string) => text(kernel('k', ['s_getpc_b64 s[4:5]', 's_add_u32 s4, s4, 0x10', 's_addc_u32 s5, s5, 0', `s_setpc_b64 ${to}`, 'v_mov_b32 v1, 1']));
  const rule = (t: string) => checkLoaded(loadText(t, 'p.s')).findings.filter((f) => f.rule === 'raw-offset-jump').length;
  assert.equal(rule(pc('s[4:5]')), 1);
  assert.equal(rule(pc('s[30:31]')), 0);
});

test('a kernel with a raw-offset jump or s_call_b64 by offset: no wait is claimed redundant (the jump may bring more outstanding)', () => {
  // (MIOpen Winograd v30) 's_cbranch_scc1 2' skips the call; on that path lgkmcnt(1) waits for the first ds_read
  const body = ['s_cmp_eq_u32 s0, 0', 'ds_read_b32 v1, v0', 's_cbranch_scc1 2', 's_call_b64 s[36:37], 20', 's_nop 0',
    'ds_read_b32 v2, v0', 's_waitcnt lgkmcnt(1)', 'v_mov_b32 v3, v1', 's_waitcnt lgkmcnt(0)', 'v_mov_b32 v4, v2'];
  const r = checkLoaded(loadText(text(kernel('k', body)), 'c.s'));
  assert.deepEqual(r.findings.filter((f) => /^waitcnt-(redundant|too-strong)$/.test(f.rule)).map((f) => `${f.loc.line} ${f.rule}`), []);
  assert.equal(r.findings.filter((f) => f.rule === 'raw-offset-jump').length, 1);
  // the same code with labels: the jump is followed, and the call's convention clears the counters
  const labelled = ['s_cmp_eq_u32 s0, 0', 'ds_read_b32 v1, v0', 's_cbranch_scc1 .Lskip', 's_call_b64 s[36:37], ext', '.Lskip:',
    'ds_read_b32 v2, v0', 's_waitcnt lgkmcnt(1)', 'v_mov_b32 v3, v1', 's_waitcnt lgkmcnt(0)', 'v_mov_b32 v4, v2'];
  const l = checkLoaded(loadText(text(kernel('k', labelled)), 'l.s'));
  assert.equal(l.findings.filter((f) => f.rule === 'raw-offset-jump').length, 0);
});
