/** What check and check --fix say about waits short on some paths only, and when nothing needed fixing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-fixmsg-'));
const file = (name: string, lines: string[]) => { const p = join(dir, name); writeFileSync(p, lines.join('\n') + '\n'); return p; };
const head = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:'];
// the load's value reaches the add without a wait when the branch is taken
const SOME = file('some.s', [...head, '  global_load_dword v1, v[2:3], off', '  s_cmp_eq_u32 s0, 0', '  s_cbranch_scc1 .Lskip',
  '  s_waitcnt vmcnt(0)', '.Lskip:', '  v_add_u32 v4, v1, v1', '  s_endpgm']);

test('a wait short on some paths: the summary says so and how to make it an error; --fix says it left it', () => {
  const c = run('check', SOME);
  assert.equal(c.code, 0);
  assert.match(c.out, /0 errors, 1 warning \(1 of them a wait short only on some paths: --paths all makes it an error, and --fix fixes it then\)/);
  const out = join(dir, 'some.fixed.s');
  const f = run('check', SOME, '--fix', '-o', out);
  assert.equal(f.code, 0, f.err);
  assert.match(f.out, /nothing to fix \(no check error\); wrote .*some\.fixed\.s unchanged; left 1 wait short only on some paths \(warnings; --paths all fixes them\)/);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(SOME, 'utf8'));
  const all = run('check', SOME, '--fix', '-o', out, '--paths', 'all');
  assert.match(all.out, /fixed: .*inserted 1 s_waitcnt/);
});

test('a wait that is needed as written but redundant once a missing wait is inserted says so', () => {
  const red = file('red.s', [...head, '  global_load_dword v5, v[2:3], off', '  global_load_dword v6, v[2:3], off offset:4',
    '  s_waitcnt vmcnt(1)', '  v_add_u32 v7, v5, v6', '  s_waitcnt vmcnt(0)', '  global_store_dword v[2:3], v6, off', '  s_endpgm']);
  const c = run('check', red);
  assert.equal(c.code, 1);
  assert.match(c.out, /red\.s:8:\d+: warning: s_waitcnt vmcnt\(0\) waits for nothing: .* once the missing waits reported for this kernel are inserted \(as --fix does\)/);
});

test('a redundant wait beside warnings only: no "as --fix does" (--fix inserts nothing); a path warning\'s wait is named as counted', () => {
  // LDS-DMA warning only: its wait is not counted, the redundant wait is redundant as written
  const dma = file('dma.s', [...head, '  s_mov_b32 m0, 0x1000', '  s_nop 0', '  buffer_load_dword v1, s[4:7], 0 offen lds', '  ds_read_b32 v4, v2',
    '  s_waitcnt lgkmcnt(0)', '  s_waitcnt lgkmcnt(0)', '  v_add_u32 v5, v4, v4', '  s_endpgm']);
  const c = run('check', dma);
  assert.match(c.out, /LDS-DMA/);
  assert.match(c.out, /waits for nothing: no memory operation counted by lgkmcnt can be outstanding here \[waitcnt-redundant\]/);
  // a wait short on some paths only (a warning): the judgement counts its wait as present, and says so
  const some = file('some2.s', [...head, '  global_load_dword v1, v[2:3], off', '  s_cmp_eq_u32 s0, 0', '  s_cbranch_scc1 .Lskip',
    '  s_waitcnt vmcnt(0)', '.Lskip:', '  v_add_u32 v4, v1, v1', '  s_waitcnt vmcnt(0)', '  v_add_u32 v5, v1, v1', '  s_endpgm']);
  const s = run('check', some);
  assert.doesNotMatch(s.out, /as --fix does/);
  assert.match(s.out, /counting the waits the waitcnt-missing warnings of this kernel name as present/);
});

test('a problem at an instruction a macro wrote is reported at the call, with a note at the body line it came from', () => {
  const lines = [...head,
    '.macro LOADADD d',
    '  global_load_dword v\\d, v[2:3], off',
    '  v_add_u32 v5, v\\d, v\\d',
    '.endm',
    '.macro ATOMIC',
    '  s_buffer_atomic_add s4, s[8:11] offset:0 glc',
    '.endm',
    '  LOADADD 1',
    '  s_endpgm'];
  // a missing wait inside the expansion: the error at the call (line 11), the note at the add (line 6)
  const k = file('macro.s', lines);
  const r = run('check', k);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out + r.err, /macro\.s:11:\d+: error: v_add_u32 reads v1 [^\n]*\[waitcnt-missing\]\n(?:[^\n]*note: global_load_dword issued here\n)?[^\n]*macro\.s:6:3: note: expanded from this line of macro 'LOADADD'\n/);
  // an operand error in a macro's line: the input is refused (check --fix) with the same note
  const bad = file('macro-bad.s', [...lines.slice(0, -1), '  ATOMIC', '  s_endpgm']);
  const f = run('check', '--fix', '-o', join(dir, 'macro-fixed.s'), bad);
  assert.equal(f.code, 2);
  assert.match(f.err, /macro-bad\.s:12:\d+: error: [^\n]*s_buffer_atomic_add[^\n]*\[operand-address\]\n[^\n]*macro-bad\.s:9:3: note: expanded from this line of macro 'ATOMIC'/);
  // the same problem in every repetition of a .rept: once, at the .rept line, counted in the note at the body line
  const rept = file('rept.s', ['.text', 'k:', '  .rept 4', '    v_mfma_f32_16x16x16_bf16 a[0:3], v[0:1], v[2:3], a[0:3]', '    v_bogus v1', '  .endr', '  s_endpgm']);
  const x = run('check', '--arch', 'gfx90a', rept);
  assert.equal(x.code, 2);
  assert.equal((x.err.match(/error:/g) ?? []).length, 2, x.err);
  assert.match(x.err, /rept\.s:3:3: error: 'v_mfma_f32_16x16x16_bf16' is not available on gfx90a [^\n]*\n[^\n]*rept\.s:4:5: note: expanded from this line of a \.rept block \(the same in 4 expansions\)\n/);
  assert.match(x.err, /rept\.s:3:3: error: unknown instruction 'v_bogus'\n[^\n]*rept\.s:5:5: note: expanded from this line of a \.rept block \(the same in 4 expansions\)\n2 errors/);
  // a check finding in each repetition: shown once, counted in the note; the summary and JSON count each
  const loads = file('rept-wait.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', '  .rept 3', '    global_load_dword v1, v[2:3], off',
    '    v_add_u32 v5, v1, v1', '  .endr', '  s_endpgm']);
  const w = run('check', loads);
  assert.equal(w.code, 1);
  assert.equal((w.out.match(/error:/g) ?? []).length, 1, w.out);
  assert.match(w.out, /rept-wait\.s:6:5: note: expanded from this line of a \.rept block \(the same in 3 expansions\)\n[\s\S]*3 errors, 0 warnings/);
  assert.equal(JSON.parse(run('check', loads, '--json').out).diagnostics.length, 3);
});
