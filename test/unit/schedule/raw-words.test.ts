/**
 * Data words among a kernel's instructions (an LDS-DMA load written as two .long words, the way
 * kernels written for assemblers without the `lds` form do): a check warning and no wait claimed
 * redundant; schedule and apply refuse to reorder the kernel (a file's other kernels are
 * scheduled); verify requires its layout unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { applyRounds } from '../../../src/schedule/session.js';
import { parseCommandArgs } from '../../../src/schedule/commands.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { kernel, LAYOUT_OPTS as opts, PLAIN, text } from './helpers.js';
import { ConductorError } from '../../../src/errors.js';

// buffer_load_dword v6, s[16:19], 0 offen lds, as llvm-mc encodes it: it reads the s_load's SRD
// and writes the LDS the two ds_read read, so the lgkmcnt(0) before it is needed
const WORDS = [
  's_load_dwordx4 s[16:19], s[0:1], 0', 'v_lshlrev_b32 v3, 2, v0', 'ds_read_b32 v4, v3', 'ds_read_b32 v5, v3 offset:1024',
  's_waitcnt lgkmcnt(0)', 'v_add_u32 v6, 64, v3', 's_mov_b32 m0, 0', 's_nop 0', '.long 0xE0511000', '.long 0x80040006',
  'v_add_f32 v4, v4, v5', 'v_mov_b32 v7, v4',
];

test('check warns at the first data word among the instructions and claims no wait redundant there', () => {
  const r = checkLoaded(loadText(text(kernel('k', WORDS)), 'w.s'));
  const w = r.findings.filter((f) => f.rule === 'raw-code-words');
  assert.equal(w.length, 1);
  assert.equal(w[0]!.severity, 'warning');
  assert.equal(w[0]!.loc.line, 15);
  assert.match(w[0]!.message, /^'\.long 0xE0511000' puts data words among the instructions of k \(2 data directives; instructions encoded by hand\?\): Conductor does not decode them/);
  assert.deepEqual(r.findings.filter((f) => /^waitcnt-(redundant|too-strong)$/.test(f.rule)).map((f) => `${f.loc.line} ${f.rule}`), []);
  // the same words in a data section (a table between two parts of the code) are not code
  const table = text(kernel('k', ['v_mov_b32 v1, 1', '.data', '.long 7', '.text', 'v_mov_b32 v2, 2']));
  assert.equal(checkLoaded(loadText(table, 't.s')).findings.filter((f) => f.rule === 'raw-code-words').length, 0);
});

test('apply and schedule refuse such a kernel; a file\'s other kernels are scheduled, with a note; alone, the file is written as it is', async () => {
  const one = text(kernel('k', WORDS));
  assert.throws(() => applyRounds(loadText(one, 'w.s'), parseCommandArgs(['swap v_add_f32_0 v_mov_b32_0'])),
    (e: unknown) => e instanceof ConductorError && /cannot schedule k: '\.long 0xE0511000' puts data words among its instructions/.test(e.message));
  await assert.rejects(scheduleFile(loadText(one, 'w.s'), one, { ...opts, kernel: 'k' }), /cannot schedule k: '\.long 0xE0511000' puts data words/);
  // the file's only kernel, not named: the file as it is, with the note
  // (a function: a clean one waits for its caller's memory operations first)
  const clean = text(kernel('k', ['s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', ...WORDS]));
  const alone = await scheduleFile(loadText(clean, 'w.s'), clean, opts);
  assert.deepEqual([alone.kernels.length, alone.text], [0, clean]);
  assert.ok(alone.notes.some((n) => /^kernel k not scheduled: '\.long 0xE0511000' puts data words/.test(n)), alone.notes.join('\n'));
  const two = text(kernel('k', WORDS), kernel('p', PLAIN));
  const r = await scheduleFile(loadText(two, 'two.s'), two, opts);
  assert.deepEqual(r.kernels.map((x) => x.kernel), ['p']);
  assert.ok(r.notes.some((n) => /^kernel k not scheduled: '\.long 0xE0511000' puts data words/.test(n)), r.notes.join('\n'));
  assert.deepEqual(r.text.split('\n').slice(0, 19), two.split('\n').slice(0, 19), 'kernel k as written');
});

test('verify requires the layout of such a kernel unchanged: a wait moved past the words is a difference', () => {
  const one = text(kernel('k', WORDS));
  assert.equal(verifyLoaded(loadText(one, 'a.s'), loadText(one, 'b.s')).equivalent, true);
  // what the scheduler wrote before: the lgkmcnt(0) after the words (the SRD and the LDS read unwaited)
  const moved = one.replace('  s_waitcnt lgkmcnt(0)\n', '').replace('  .long 0x80040006\n', '  .long 0x80040006\n  s_waitcnt lgkmcnt(0)\n');
  const v = verifyLoaded(loadText(one, 'a.s'), loadText(moved, 'b.s'));
  assert.equal(v.equivalent, false);
  assert.equal(v.difference?.kind, 'raw-words-layout');
  assert.match(v.difference!.message, /data words among its instructions \('\.long 0xE0511000' at line 15\)/);
});
