/**
 * Operand legality as findings: `check` reports an instruction llvm-mc refuses as an error with
 * its rule id (exit 1) and still checks the rest of the file; text that cannot be read stays
 * exit 2; `check --fix`, `schedule`, `apply` and `agent` refuse a program with such errors and
 * list every problem. A warning (llvm-mc takes it, LLVM never generates it) refuses nothing.
 * Also the resources line of `check` for files that use no register of a kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { checkLoaded } from '../../../src/check/check.js';
import { InputErrors } from '../../../src/errors.js';
import { VGPR_BASE } from '../../../src/asm/registers.js';
import { usedRange } from '../../../src/check/format.js';
import { LEGALITY_RULES } from '../../../src/isa/legality.js';
import { bin } from '../../repo.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-legality-'));

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, CONDUCTOR_CACHE_DIR: join(dir, 'cache') } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function write(name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

const HEAD = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:'];
/** Line 4: a constant-bus violation; line 6: a load read without its wait (a finding of the waitcnt checker). */
const ILLEGAL = [...HEAD,
  '  v_add_f32_e64 v0, s1, s2',
  '  global_load_dword v1, v[2:3], off',
  '  v_add_u32 v4, v1, v1',
  '  s_endpgm',
];

test('check: an illegal operand is an error with its rule (exit 1); the rest of the file is still checked', () => {
  const f = write('illegal.s', ILLEGAL);
  const r = run('check', f);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /illegal\.s:4:3: error: invalid operand \(violates constant bus restrictions\): 'v_add_f32_e64' reads 2 scalar values.* \[operand-constant-bus\]/);
  assert.match(r.out, /illegal\.s:6:\d+: error: .*v1.*\[waitcnt-/, 'the waitcnt checker still ran');
  const j = JSON.parse(run('check', f, '--format', 'json').out);
  const d = j.diagnostics.find((x: { rule: string }) => x.rule === 'operand-constant-bus');
  assert.equal(d.line, 4);
  assert.equal(d.severity, 'error');
  assert.match(d.source, /AMDGPUAsmParser: validateConstantBusLimitations/);
  assert.ok(j.errors >= 2);
});

test('check: only unreadable text stays exit 2, and every problem is listed', () => {
  const f = write('mixed.s', [...HEAD, '  v_add_f32_e64 v0, s1, s2', '  v_add_u33 v0, v1, v2', '  s_endpgm']);
  const r = run('check', f);
  assert.equal(r.code, 2);
  assert.match(r.err, /mixed\.s:4:3: error: .*constant bus.*\[operand-constant-bus\]/);
  assert.match(r.err, /mixed\.s:5:3: error: unknown instruction 'v_add_u33'/);
});

test('check --fix, schedule, apply and agent refuse a program with an illegal operand (exit 2, nothing written)', () => {
  const f = write('illegal2.s', ILLEGAL);
  const out = join(dir, 'out.s');
  for (const args of [
    ['check', f, '--fix', '-o', out],
    ['schedule', f, '--strategy', 'list', '--budget', '10', '-o', out],
    ['apply', f, '--moves', 'done', '-o', out],
    ['agent', f, '--model', 'm', '--base-url', 'http://127.0.0.1:9', '--api-key-env', 'CONDUCTOR_NO_SUCH_KEY', '-o', out],
  ]) {
    const r = run(...args);
    assert.equal(r.code, 2, `${args[0]}: ${r.err}`);
    assert.match(r.err, /illegal2\.s:4:3: error: .*\[operand-constant-bus\]/, args[0]);
    assert.equal(existsSync(out), false, `${args[0]} wrote nothing`);
  }
});

test('a warning refuses nothing: a gfx950 f8f6f4 MFMA whose SrcC partly overlaps its result (llvm-mc 22 takes it)', () => {
  const f = write('overlap.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx950"', '.text', 'k:',
    '  v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[2:17], v32, v33', '  s_endpgm']);
  const r = run('check', f);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /overlap\.s:4:3: warning: source 2 operand must not partially overlap with dst.*llvm-mc accepts it.*\[operand-mfma-overlap\]/);
  const out = join(dir, 'overlap.out.s');
  assert.equal(run('apply', f, '--moves', 'done', '-o', out).code, 0);
  assert.ok(existsSync(out));
});

test('library: loadText refuses by default; operandErrors "report" loads and resolves the instruction', () => {
  const text = ILLEGAL.join('\n') + '\n';
  assert.throws(() => loadText(text, 'l.s'), (e: unknown) => e instanceof InputErrors && /\[operand-constant-bus\]/.test(e.errors[0]!.message));
  const l = loadText(text, 'l.s', { operandErrors: 'report' });
  assert.deepEqual(l.operandErrors.map((d) => [d.loc.line, d.rule, d.severity]), [[4, 'operand-constant-bus', 'error']]);
  const add = l.resolved[0]!;
  assert.equal(add.unknown, undefined, 'the instruction resolved');
  assert.deepEqual(add.defs, [VGPR_BASE]);
  assert.deepEqual([...add.uses].sort((a, b) => a - b).slice(0, 2), [1, 2], 'reads s1 and s2');
  const report = checkLoaded(l);
  assert.ok(report.findings.some((x) => x.rule === 'operand-constant-bus' && x.severity === 'error' && x.loc.line === 4));
});

test('every legality rule is a finding with its rule id (each measured against llvm-mc 22)', () => {
  const seen = new Set<string>();
  const cases: [string, string, string][] = [
    ['gfx90a', 'v_lshlrev_b64 v[1:2], 1, v[4:5]', 'operand-alignment'],
    ['gfx906', 's_load_dwordx2 s[1:2], s[4:5], 0x0', 'operand-alignment'],
    ['gfx942', 'global_load_dword v0, v[2:3], off glc', 'operand-cache-policy'],
    ['gfx90a', 'global_load_dword v0, v[2:3], off sc0', 'operand-cache-policy'],
    ['gfx906', 'buffer_load_dword v0, off, s[4:7], 0 scc', 'operand-cache-policy'],
    ['gfx906', 'global_load_dword v0, v[2:3], off offset:4096', 'operand-offset'],
    ['gfx906', 's_load_dword s0, s[2:3], 0x100000', 'operand-offset'],
    ['gfx906', 's_buffer_load_dword s0, s[4:7], -1', 'operand-offset'],
    ['gfx906', 's_add_u32 s0, 0x1234, 0x1235', 'operand-scalar-literals'],
    ['gfx906', 's_mov_b32 s0, 0x100000000', 'operand-literal-range'],
    ['gfx906', 'v_fma_f32 v0, v1, v2, 0x1234', 'operand-vop3-literal'],
    ['gfx906', 'v_fma_f32 v0, exec_lo, s1, v2', 'operand-constant-bus'],
    ['gfx906', 'v_add_f32_e64 v0, src_shared_base, s1', 'operand-constant-bus'],
    ['gfx906', 'v_div_scale_f32 v0, vcc, |v1|, v2, v3', 'operand-modifier'],
    ['gfx90a', 'v_pk_add_f16 v0, -v1, v2', 'operand-modifier'],
    ['gfx908', 'v_accvgpr_write_b32 a0, s1', 'operand-accvgpr-write'],
    ['gfx908', 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0', 'operand-mfma-inline-srcc'],
    ['gfx908', 'v_mfma_f32_4x4x1f32 v[0:3], v0, v1, v[0:3]', 'operand-mfma'],
    ['gfx90a', 'v_mfma_f32_32x32x8f16 a[0:15], v[16:17], v[18:19], a[2:17]', 'operand-mfma-overlap'],
    ['gfx906', 'buffer_load_dword v0, v[2:3], s[4:7], 0 offen idxen', 'operand-address'],
    ['gfx90a', 'v_add_f32_e64 v0, lds_direct, v1', 'operand-register'],
    ['gfx90a', 's_getreg_b32 s1, hwreg(HW_REG_XCC_ID)', 'operand-hwreg'],
    ['gfx942', 's_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 9)', 'operand-sendmsg'],
    ['gfx942', 'ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,0,1,2,4)', 'operand-swizzle'],
    ['gfx942', 'v_mov_b32_dpp v0, v1 row_shl:16', 'operand-dpp'],
    ['gfx942', 's_branch 0x10000', 'operand-simm16'],
  ];
  for (const [arch, insn, rule] of cases) {
    const l = loadText(`${insn}\n`, 'r.s', { arch, operandErrors: 'report' });
    assert.deepEqual(l.operandErrors.map((d) => d.rule), [rule], `${arch}: ${insn}`);
    seen.add(rule);
  }
  assert.deepEqual([...seen].sort(), Object.keys(LEGALITY_RULES).sort(), 'a case for every rule');
  // The other side of each boundary is legal.
  for (const [arch, insn] of [
    ['gfx90a', 'v_lshlrev_b64 v[2:3], 1, v[4:5]'], ['gfx90a', 'global_load_dword v0, v[2:3], off glc'],
    ['gfx942', 'global_load_dword v0, v[2:3], off sc0'], ['gfx90a', 'buffer_load_dword v0, off, s[4:7], 0 scc'],
    ['gfx942', 's_load_dword s0, s[2:3], 0x0 glc'], ['gfx906', 's_load_dword s0, s[2:3], -0x100000'],
    ['gfx906', 's_add_u32 s0, 0x1234, 0x1234'], ['gfx906', 's_mov_b64 s[0:1], 0xffffffff80000000'],
    ['gfx906', 'v_add_f64 v[0:1], 0x3ff00000, v[2:3]'], ['gfx906', 'v_add_f32_e64 v0, exec_lo, exec_lo'],
    ['gfx906', 'v_add_f32_e64 v0, lds_direct, s1'], ['gfx906', 'v_div_scale_f32 v0, vcc, -v1, v2, v3'],
    ['gfx90a', 'v_mfma_f32_16x16x16f16 v[0:3], v[6:7], v[8:9], v[2:5]'], ['gfx906', 'buffer_load_dword v0, v[2:3], s[4:7], 0 idxen offen'],
  ]) {
    const l = loadText(`${insn}\n`, 'r.s', { arch, operandErrors: 'report' });
    assert.deepEqual(l.operandErrors, [], `${arch}: ${insn}`);
  }
});

test('64-bit literals: an f64 pattern is inline on a 64-bit operand only, and an integer beyond 2^53 is never rounded into one (llvm-mc 22)', () => {
  const errs = (arch: string, insn: string) => loadText(`${insn}\n`, 'r.s', { arch, operandErrors: 'report' }).operandErrors.map((d) => d.rule);
  // 2.0 and 1.0 as f64 bit patterns: inline on 64-bit operands (llvm-mc encodes 2.0 / 1.0)
  assert.deepEqual(errs('gfx942', 's_mov_b64 s[0:1], 0x4000000000000000'), []);
  assert.deepEqual(errs('gfx942', 'v_add_f64 v[0:1], v[2:3], 0x3ff0000000000000'), []);
  assert.deepEqual(errs('gfx942', 's_mov_b64 s[0:1], (1 << 62)'), []);
  // not on a 32-bit operand
  assert.deepEqual(errs('gfx942', 's_mov_b32 s0, 0x4000000000000000'), ['operand-literal-range']);
  assert.deepEqual(errs('gfx90a', 'v_mov_b32 v0, 0x3ff0000000000000'), ['operand-literal-range']);
  // 0x3ffffffffffffffc and 0x4000000000000001 are the double 2^62 (0x4000000000000000) once read
  // into a number: the operand is marked inexact and is neither inline nor a 32-bit literal
  assert.deepEqual(errs('gfx942', 's_mov_b64 s[0:1], 0x3ffffffffffffffc'), ['operand-literal-range']);
  assert.deepEqual(errs('gfx906', 's_mov_b32 s0, 0x4000000000000001'), ['operand-literal-range']);
  assert.ok(errs('gfx942', 'v_add_f64 v[0:1], v[2:3], 0x4000000000000001').includes('operand-literal-range'));
  // an exact 64-bit value wraps as LLVM reads it: -1
  assert.deepEqual(errs('gfx942', 's_mov_b64 s[0:1], 0xffffffffffffffff'), []);
});

test('the resources line: empty and one-register ranges read sensibly', () => {
  assert.equal(usedRange('v', 129, 'VGPRs'), 'v0..v128');
  assert.equal(usedRange('a', 1, 'AGPRs'), 'a0');
  assert.equal(usedRange('s', 0, 'SGPRs'), 'no SGPRs');
  const f = write('nosgpr.s', ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:', '  v_mov_b32 v0, 1', '  v_accvgpr_write_b32 a0, v0', '  s_endpgm']);
  const r = run('check', f);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /used v0, a0, no SGPRs;/);
});

test('v_fma_mix* take the neg and abs source modifiers other VOP3P instructions do not (llvm-mc 22; clang-22 gfx906 code of ggml mmq)', () => {
  const errs = (arch: string, insn: string) => loadText(`${insn}\n`, 'r.s', { arch, operandErrors: 'report' }).operandErrors.map((d) => d.rule);
  assert.deepEqual(errs('gfx906', 'v_fma_mix_f32 v97, v97, v4, -v110 op_sel_hi:[0,1,0]'), []);
  assert.deepEqual(errs('gfx90a', 'v_fma_mix_f32 v0, |v1|, -v2, v3'), []);
  assert.deepEqual(errs('gfx942', 'v_fma_mixlo_f16 v0, -v1, v2, v3'), []);
  assert.deepEqual(errs('gfx906', 'v_pk_fma_f16 v0, -v1, v2, v3'), ['operand-modifier']);
});
