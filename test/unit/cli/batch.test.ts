/**
 * Whole files and many files from the command line: `schedule` takes every kernel of a file by
 * default and changes only the kernels asked for; `schedule`, `check` and `analyze` take several
 * files and directories, print one summary, aggregate exit codes, give each file the result it
 * gets alone, split a batch with --shard, and write -o OUTDIR/ per file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example } from '../../repo.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-batch-'));
const cacheDir = join(dir, 'cache');

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, CONDUCTOR_CACHE_DIR: cacheDir } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** Two kernels in one file: `ka` misses an s_nop (an MFMA result read too early), `kb` has a load to hide. */
const TWO = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
  '.text',
  '.globl ka',
  '.p2align 8',
  '.type ka,@function',
  'ka:',
  '  v_mfma_f32_16x16x16_f16 v[4:7], v[8:9], v[10:11], v[4:7]',
  '  v_mfma_f32_16x16x16_f16 v[16:19], v[4:5], v[10:11], v[16:19]',
  '  s_endpgm',
  '.globl kb',
  '.p2align 8',
  '.type kb,@function',
  'kb:',
  '  v_mov_b32 v1, 1',
  '  v_mov_b32 v3, 3',
  '  v_add_u32 v6, v1, v3',
  '  global_load_dword v2, v[4:5], off',
  '  s_waitcnt vmcnt(0)',
  '  v_add_u32 v7, v2, v6',
  '  global_store_dword v[4:5], v7, off',
  '  s_endpgm',
  '',
].join('\n');

function kernelText(text: string, name: string): string {
  const start = text.indexOf(`${name}:`);
  const end = text.indexOf('s_endpgm', start);
  return text.slice(start, end);
}

test('schedule: every kernel of a file by default; --kernel changes that kernel only', () => {
  const f = join(dir, 'two.s');
  writeFileSync(f, TWO);
  const out = join(dir, 'two.out.s');
  let r = run('schedule', f, '--budget', '100', '--jobs', '1', '-o', out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /function ka \(gfx942\)/);
  assert.match(r.out, /function kb \(gfx942\)/);
  assert.match(r.out, /^file\s+kernel\s+target\s+est_cycles\s+after\s+change/m);
  assert.match(r.out, /1 file, 2 kernels/);
  assert.equal(run('check', out).code, 0, 'the output checks clean');
  // --kernel kb: ka stays byte for byte as written (its missing s_nop included)
  const outb = join(dir, 'two.kb.s');
  r = run('schedule', f, '--kernel', 'kb', '--budget', '100', '--jobs', '1', '-o', outb);
  assert.equal(r.code, 0, r.err);
  const written = readFileSync(outb, 'utf8');
  assert.equal(kernelText(written, 'ka'), kernelText(TWO, 'ka'));
  assert.match(r.out, /left as written \(not asked for\): ka/);
  assert.doesNotMatch(r.out, /(kernel|function) ka \(/);
  r = run('schedule', f, '--kernel', 'kc');
  assert.equal(r.code, 2);
  assert.match(r.err, /no kernel named 'kc'/);
  // the cache serves a rerun, kernel by kernel, with the same text
  const again = join(dir, 'two.again.s');
  const j = JSON.parse(run('schedule', f, '--budget', '100', '--jobs', '1', '-o', again, '--json').out);
  assert.deepEqual(j.files[0].kernels.map((k: { cached: boolean }) => k.cached), [true, true]);
  assert.equal(readFileSync(again, 'utf8'), readFileSync(out, 'utf8'));
});

test('schedule: several files and a directory, -o OUTDIR/, one summary, the same result as alone, --shard', () => {
  const d = join(dir, 'lib');
  mkdirSync(join(d, 'sub'), { recursive: true });
  writeFileSync(join(d, 'a.s'), TWO);
  writeFileSync(join(d, 'sub', 'b.s'), readFileSync(example, 'utf8'));
  const outDir = join(dir, 'out') + '/';
  const opts = ['--budget', '60', '--jobs', '1', '--no-cache'];
  const r = run('schedule', d, example, ...opts, '-o', outDir, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.files.map((f: { file: string }) => f.file), [join(d, 'a.s'), join(d, 'sub', 'b.s'), example]);
  assert.equal(j.summary.files, 3);
  assert.equal(j.summary.kernels, 4);
  assert.ok(existsSync(join(outDir, 'a.s')) && existsSync(join(outDir, 'sub', 'b.s')) && existsSync(join(outDir, 'mfma_lds_gemm.gfx942.s')));
  // each file as it is alone
  const alone = join(dir, 'alone.s');
  assert.equal(run('schedule', join(d, 'sub', 'b.s'), ...opts, '-o', alone).code, 0);
  assert.equal(readFileSync(join(outDir, 'sub', 'b.s'), 'utf8'), readFileSync(alone, 'utf8'));
  // shards: every file exactly once over 1/2 and 2/2
  const s1 = JSON.parse(run('schedule', d, example, ...opts, '--shard', '1/2', '--json').out);
  const s2 = JSON.parse(run('schedule', d, example, ...opts, '--shard', '2/2', '--json').out);
  const names = [...s1.files, ...s2.files].map((f: { file: string }) => f.file).sort();
  assert.deepEqual(names, j.files.map((f: { file: string }) => f.file).sort());
  assert.equal(s1.shard, '1/2');
  assert.equal(run('schedule', d, '--shard', '3/2').code, 2);
  // two inputs that would write the same output: bad input, nothing written
  const clash = join(dir, 'clash') + '/';
  writeFileSync(join(dir, 'a.s'), TWO);
  const r2 = run('schedule', join(d, 'a.s'), join(dir, 'a.s'), ...opts, '-o', clash);
  assert.equal(r2.code, 2);
  assert.match(r2.err, /would both be written/);
  assert.ok(!existsSync(clash));
});

test('check and analyze: several files, a summary table, the worst exit code', () => {
  const good = join(dir, 'good.s');
  const bad = join(dir, 'bad.s');
  writeFileSync(good, readFileSync(example, 'utf8'));
  writeFileSync(bad, TWO);
  let r = run('check', good);
  assert.equal(r.code, 0);
  r = run('check', good, bad);
  assert.equal(r.code, 1, 'an error in one file');
  assert.match(r.out, /^file\s+errors\s+warnings\s+result/m);
  assert.match(r.out, /2 files: 1 clean, 1 with errors, 0 failed to load/);
  r = run('check', good, bad, join(dir, 'missing.s'));
  assert.equal(r.code, 2, 'an unreadable file');
  assert.match(r.err, /cannot read '.*missing\.s'/);
  assert.match(r.out, /1 failed to load/);
  const j = JSON.parse(run('check', good, bad, '--json').out);
  assert.deepEqual(j.files.map((f: { exit: number }) => f.exit), [0, 1]);
  assert.equal(j.exit, 1);
  const sarif = JSON.parse(run('check', good, bad, '--format', 'sarif').out);
  assert.equal(sarif.runs.length, 2);
  const fixDir = join(dir, 'fixed') + '/';
  assert.equal(run('check', good, bad, '--fix', '-o', fixDir).code, 0);
  assert.equal(run('check', join(fixDir, 'bad.s')).code, 0);
  r = run('analyze', good, bad);
  assert.equal(r.code, 0);
  assert.match(r.out, /^file\s+kernel\s+target\s+instructions/m);
  assert.match(r.out, /2 files, 3 kernels, 0 failed to load/);
  const a = JSON.parse(run('analyze', good, bad, '--json').out);
  assert.equal(a.files.length, 2);
  r = run('analyze', good, join(dir, 'missing.s'));
  assert.equal(r.code, 2);
  // one of each: no plural; a long error cut at a word, and said to be cut
  assert.match(r.out, /2 files, 1 kernel, 1 failed to load/);
  assert.match(r.out, /read; check: 0 errors, 0 warnings/);
  const bin = join(dir, 'bin.s');
  writeFileSync(bin, 'ab\0cd');
  r = run('check', bin, good);
  assert.equal(r.code, 2);
  const row = r.out.split('\n').find((l) => l.startsWith(bin))!;
  assert.match(row, /exit 2: .*bin\.s: not a text file( \S+)* \.\.\.$/, row);
  assert.match(r.out, /2 files: 1 clean, 0 with errors, 1 failed to load; 0 errors, 0 warnings/);
});

test('a batch table\'s failed row: the error cut at a word, and only when it is too long', async () => {
  const { failureCell, counted } = await import('../../../src/cli/files.js');
  assert.equal(failureCell('k.s: the file is empty: nothing to read', 60), 'exit 2: k.s: the file is empty: nothing to read');
  const long = 'k.s: not a text file (a NUL byte at offset 2): conductor reads assembly text';
  const cell = failureCell(long, 50);
  assert.equal(cell, 'exit 2: k.s: not a text file (a NUL byte at offset 2) ...');
  assert.ok(cell.length - 'exit 2: '.length <= 50);
  assert.equal(counted(1, 'kernel'), '1 kernel');
  assert.equal(counted(0, 'kernel'), '0 kernels');
});
