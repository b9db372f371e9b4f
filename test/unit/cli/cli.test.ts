/**
 * The command line as a user meets it: exit codes (0 clean, 1 findings, 2 bad input),
 * clang-style errors naming file:line:col, nothing written when a command fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { example, run } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-'));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('analyze the bundled example: exit 0, kernel summary', () => {
  const r = run('analyze', example);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kernel mfma_lds_gemm \(gfx942\)/);
  assert.match(r.out, /mfma: xdl \d+/);
  const j = JSON.parse(run('analyze', example, '--json').out);
  assert.equal(j.kernels[0].name, 'mfma_lds_gemm');
  assert.ok(j.kernels[0].instructions > 100);
  assert.ok(j.kernels[0].counts.mfma > 0);
  assert.equal(typeof j.kernels[0].declared.vgpr, 'number');
  for (const kind of ['descriptor', 'registersUsed', 'peakLive']) assert.equal(typeof j.kernels[0].occupancy[kind].wavesPerSimd, 'number', kind);
  assert.equal(typeof j.kernels[0].pressure.vgpr, 'number');
  assert.deepEqual(Object.keys(j.kernels[0].diagnostics).sort(), ['errors', 'warnings']);
});

test('emit prints byte-identical output', () => {
  const out = join(dir, 'emit.s');
  const r = run('emit', example, '-o', out);
  assert.equal(r.code, 0, r.err);
  assert.equal(readFileSync(out, 'utf8'), readFileSync(example, 'utf8'));
});

const badInputs: [string, string, RegExp][] = [
  ['unknown mnemonic', 's_nop 0\n  v_add_u33 v0, v1, v2\n', /bad\.s:2:3: error: .*v_add_u33/],
  ['wrong operand count', 'v_add_u32 v0, v1\n', /bad\.s:1:1: error: .*operand/],
  ['register out of range', 'v_mov_b32 v0, s[200:201]\n', /bad\.s:1:\d+: error: .*(range|invalid)/],
  ['instruction not on the target', 'v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]\n', /bad\.s:1:1: error: .*not available on gfx906/],
  ['syntax error', 's_nop 0\n\nv_mov_b32 v0, v[3:1]\n', /bad\.s:3:\d+: error: invalid register range/],
];
for (const [what, text, re] of badInputs) {
  test(`bad input (${what}): exit 2, file:line:col error, nothing written`, () => {
    const f = write('bad.s', text);
    const out = join(dir, `out-${what.replace(/ /g, '-')}.s`);
    for (const args of [['analyze', f, '--arch', 'gfx906'], ['check', f, '--arch', 'gfx906'], ['check', f, '--arch', 'gfx906', '--fix', '-o', out]]) {
      const r = run(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, re);
      assert.equal(existsSync(out), false, 'nothing written');
    }
  });
}

test('missing file: exit 2 with the file named', () => {
  const r = run('analyze', join(dir, 'nope.s'));
  assert.equal(r.code, 2);
  assert.match(r.err, /cannot read '.*nope\.s': no such file/);
});

test('no target: exit 2 asking for --arch', () => {
  const r = run('analyze', write('notarget.s', 's_nop 0\n'));
  assert.equal(r.code, 2);
  assert.match(r.err, /no \.amdgcn_target.*--arch/);
});

test('usage errors: exit 2, the error and one line on where usage is (not the whole usage)', () => {
  assert.equal(run('analyze').code, 2);
  assert.equal(run('frobnicate').code, 2);
  assert.equal(run('check', example, '--fix').code, 2);
  assert.equal(run('check', example, '--format', 'xml').code, 2);
  for (const args of [['frobnicate'], ['check', example, '--frob'], ['analyze']]) {
    const r = run(...args);
    assert.equal(r.code, 2);
    assert.match(r.err, /^error: .*\n\(conductor --help lists the commands; conductor COMMAND --help gives a command's options\)\n$/);
  }
  // an unreadable option file is one line too (not Node's own error text)
  const r = run('simulate', example, '--latency-file', join(dir, 'no-such-latency.json'));
  assert.equal(r.code, 2);
  assert.match(r.err, /^error: cannot read '.*no-such-latency\.json': no such file or directory\n$/);
});

test('no silent oddity: empty, blank, binary and code-less files are bad input with the reason, for every command', () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ['empty.s', '', /empty\.s: the file is empty: nothing to read/],
    ['blank.s', '  \n\t\n', /blank\.s: the file is empty \(only blanks\)/],
    ['binary.s', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00]), /binary\.s: not a text file \(a NUL byte at offset 6\)/],
    ['latin1.s', Buffer.from('s_nop 0 ; caf\xe9\n', 'latin1'), /latin1\.s: not a text file \(not valid UTF-8\)/],
    ['nokernel.s', '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n; nothing here\n', /nokernel\.s: no kernel: the file has no instructions \(a kernel is the code after a label that an \.amdhsa_kernel descriptor or \.type NAME,@function names/],
    ['rawwords.s', '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nk:\n  .long 0xbf810000\n', /rawwords\.s: no instructions: the code is 1 raw data words \(\.long\)/],
  ];
  for (const [name, text, re] of cases) {
    const f = join(dir, name);
    writeFileSync(f, text);
    const out = join(dir, `never-${name}`);
    const all = [['analyze', f], ['check', f], ['tag', f], ['simulate', f], ['schedule', f, '-o', out], ['apply', f, '--moves', 'done', '-o', out], ['verify', f, f], ['report', f, '-o', out]];
    // every command on an empty file and on one without code; two commands for the others (one reader serves all)
    for (const args of name === 'empty.s' || name === 'nokernel.s' ? all : [all[0]!, all[4]!]) {
      const r = run(...args);
      assert.equal(r.code, 2, `${args[0]} ${name}: ${r.out}${r.err}`);
      assert.match(r.err, re, `${args[0]} ${name}`);
      assert.equal(r.out, '', `${args[0]} ${name} prints nothing on the standard output`);
      assert.equal(existsSync(out), false);
    }
  }
});

test('impossible options: --waves beyond the SIMD\'s wave slots (8 on gfx90a+, 10 on gfx906/908) is bad input', () => {
  const k = (arch: string) => write(`w-${arch}.s`, `.amdgcn_target "amdgcn-amd-amdhsa--${arch}"\n.text\nv_add_f32 v0, v1, v2\ns_endpgm\n`);
  for (const [arch, max] of [['gfx906', 10], ['gfx908', 10], ['gfx90a', 8], ['gfx942', 8], ['gfx950', 8]] as const) {
    const f = k(arch);
    assert.equal(run('simulate', f, '--waves', String(max)).code, 0, `${arch}: ${max} waves fit`);
    const r = run('simulate', f, '--waves', String(max + 1));
    assert.equal(r.code, 2, arch);
    assert.match(r.err, new RegExp(`--waves ${max + 1}: a ${arch} SIMD holds 1 to ${max} waves`));
  }
  const r = run('simulate', example, '--waves', '0');
  assert.equal(r.code, 2);
  assert.match(r.err, /--waves 0: a gfx942 SIMD holds 1 to 8 waves/);
});

test('schedule counts what it says: errors of the kernel scheduled, and an output fixed but not reordered is not "the input unchanged"', () => {
  const two = write('two.s', [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text',
    '.type a,@function', 'a:', '  v_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]', '  v_add_f32 v30, v0, v1', '  s_endpgm',
    '.type b,@function', 'b:', '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', '  v_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]', '  v_add_f32 v30, v0, v1',
    '  v_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]', '  v_add_f32 v31, v0, v1', '  s_setpc_b64 s[30:31]', '',
  ].join('\n'));
  const c = run('check', two);
  assert.equal(c.code, 1);
  assert.match(c.out, /^4 errors/m);
  const r = run('schedule', two, '--kernel', 'b', '--strategy', 'list', '--budget', '10', '--no-cache');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /note: kernel b has 2 check errors \(the file 4\)/);
  assert.doesNotMatch(r.out, /returned unchanged/);
  assert.match(r.out, /result: the input order, with check --fix's fixes \(nothing beat it\)[^]*the output is the input with its check errors fixed, in its original order/);
  assert.match(r.out, /^change: no change \(from the input with check --fix's fixes\)$/m);
  // the summary of several files says so too, and --json carries it
  const many = run('schedule', two, two, '--kernel', 'b', '--strategy', 'list', '--budget', '10', '--no-cache');
  assert.match(many.out, /b +gfx942 .* fixed only$/m);
  const j = run('schedule', two, '--kernel', 'b', '--strategy', 'list', '--budget', '10', '--no-cache', '--json');
  assert.equal(JSON.parse(j.out).fixedInput, true);
});

test('--help of apply, schedule and agent gives the default objective the commands use', async () => {
  const { DEFAULT_OBJECTIVE } = await import('../../../src/schedule/metrics.js');
  for (const cmd of ['apply', 'schedule', 'agent']) {
    const r = run(cmd, '--help');
    assert.equal(r.code, 0, r.err);
    const m = /--objective <list>[^]*?\(default\s+([a-z_,\s]+)\)/.exec(r.out);
    assert.ok(m, `${cmd} --help names a default objective`);
    assert.equal(m[1]!.replace(/\s+/g, ''), DEFAULT_OBJECTIVE.join(','), cmd);
  }
});

test('simulate says whose cycles per iteration each loop figure is: all waves at the occupancy (est_cycles), or one wave', () => {
  const r = run('simulate', example, '--no-insns');
  assert.equal(r.code, 0, r.err);
  const m = /as it runs \(est_cycles[^)]*\): \d+ cycles for (\d+) waves per SIMD .*; loops line \d+ x\d+ \([a-z ]+\) at [\d.]+ per iteration of the (\d+) waves$/m.exec(r.out);
  assert.ok(m, r.out);
  assert.equal(m[1], m[2]);
  assert.match(r.out, /^ {2}loop at line \d+ \([^)]*\): one wave: [\d.]+ cycles per iteration in steady state/m);
});
