/**
 * The command line as a user meets it: exit codes (0 clean, 1 findings, 2 bad input),
 * clang-style errors naming file:line:col, nothing written when a command fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');
const bin = join(root, 'dist', 'src', 'cli', 'bin.js');
const example = join(root, 'examples', 'mfma_lds_gemm.gfx942.s');
const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-'));

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

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
  assert.equal(typeof j.kernels[0].occupancy.wavesPerSimd, 'number');
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

test('usage errors: exit 2', () => {
  assert.equal(run('analyze').code, 2);
  assert.equal(run('frobnicate').code, 2);
  assert.equal(run('check', example, '--fix').code, 2);
  assert.equal(run('check', example, '--format', 'xml').code, 2);
});
