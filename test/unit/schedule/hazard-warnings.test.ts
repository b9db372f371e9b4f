/**
 * A schedule's output satisfies every hazard rule, the ones check reports as warnings too (LLVM
 * pads them), while 'before' measures the input as written: a note says so (a new user's trial:
 * s_nop 4 after v_cmpx in MIOpen's loops, with nothing said).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { scheduleFile } from '../../../src/schedule/search/run.js';
import { kernel, LAYOUT_OPTS as opts, text } from './helpers.js';

// v_cmpx then a VMEM load right after: valu-exec-write-vmem-read, a warning; independent VALU
// work after the load's reader, which a schedule moves up to hide the load
const BODY = [
  's_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)',
  'v_cmpx_le_u32_e32 vcc, 1, v62',
  'global_load_dword v1, v[2:3], off',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v4, v1, v1',
  ...Array.from({ length: 12 }, (_, k) => `v_mul_f32 v${10 + k}, v${30 + k}, v${30 + k}`),
  'global_store_dword v[2:3], v4, off',
];

test('the input\'s hazard warnings: the output satisfies them, and the note says before measures the input without', async () => {
  const src = text(kernel('k', BODY));
  const warned = checkLoaded(loadText(src, 'w.s')).findings.filter((f) => f.rule === 'valu-exec-write-vmem-read');
  assert.deepEqual(warned.map((f) => f.severity), ['warning']);
  const r = await scheduleFile(loadText(src, 'w.s'), src, opts);
  const k = r.kernels[0]!;
  assert.notEqual(k.strategy, 'input', 'a schedule was taken');
  assert.ok(k.notes.some((n) => /^the input has 1 hazard warning \(valu-exec-write-vmem-read x1\): the output satisfies them too .* 'before' measures the input as written$/.test(n)), k.notes.join('\n'));
  assert.deepEqual(checkLoaded(loadText(r.text, 'out.s')).findings.filter((f) => f.rule === 'valu-exec-write-vmem-read'), []);
});
