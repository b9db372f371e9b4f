/**
 * How every command with -o writes: `-o -` is the standard output (the summary then goes to the
 * standard error), a path that is not a regular file (device, FIFO, /dev/stdout) is written to and
 * never replaced, a symlink is written through (its target replaced atomically, the link kept),
 * a regular file keeps its mode and owner, missing directories are created, and nothing is written
 * when a command fails.
 * CI runs as root, where permission checks do not protect /dev: these tests create their own
 * device node with mknod (root only) rather than touch /dev/null.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example, run, SMALL_KERNEL } from './harness.js';

const exampleText = readFileSync(example, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'conductor-out-'));
const isRoot = process.getuid?.() === 0;

/** A fresh directory for one test. */
function subdir(name: string): string {
  const p = join(dir, name);
  mkdirSync(p);
  return p;
}

const small = join(dir, 'small.s');
writeFileSync(small, SMALL_KERNEL);

test('-o - prints the output on the standard output and the summary on the standard error, for every command with -o', () => {
  let r = run('emit', example, '-o', '-');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, exampleText);
  assert.equal(r.err, 'wrote the standard output\n');
  assert.equal(existsSync(join(process.cwd(), '-')), false, 'no file named -');

  const hz = join(dir, 'hz.s');
  writeFileSync(hz, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nv_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]\nv_add_f32 v30, v0, v1\ns_endpgm\n');
  r = run('check', hz, '--fix', '-o', '-');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /s_nop \d+\n\s*v_add_f32 v30, v0, v1/);
  assert.match(r.err, /fixed: inserted \d+ s_nop .*wrote the standard output/);

  r = run('apply', small, '--moves', 'swap v_mov_b32_0 v_mov_b32_1', '-o', '-');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /v_mov_b32 v2, 2\n {2}v_mov_b32 v1, 1\n/);
  assert.match(r.err, /round 1: applied 1 command/);

  r = run('schedule', small, '--strategy', 'list', '--budget', '20', '--no-cache', '-o', '-');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^\.amdgcn_target/);
  assert.match(r.err, /result: .*\n[^]*wrote the standard output/);

  r = run('report', small, '-o', '-');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^<!doctype html>/i);
  assert.match(r.err, /^wrote the standard output \(\d+ bytes; \(top level\)\)\n$/);
});

test('emit and report say what they wrote as the other commands do: \'wrote FILE\' on the standard output', () => {
  const out = join(dir, 'said.s');
  let r = run('emit', small, '-o', out);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `wrote ${out}\n`);
  const page = join(dir, 'said.html');
  r = run('report', small, '-o', page);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`^wrote ${page.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(\\d+ bytes; \\(top level\\)\\)\\n$`));
  assert.equal(r.err, '');
});

test('-o - beside --json, or two outputs on the standard output: usage error before any work, exit 2', () => {
  for (const args of [
    ['apply', small, '--moves', 'done', '-o', '-', '--json'],
    ['schedule', small, '--budget', '5', '--no-cache', '-o', '-', '--json'],
    ['schedule', small, '--budget', '5', '--no-cache', '-o', '-', '--save-moves', '-'],
  ]) {
    const r = run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, /standard output/);
    assert.equal(r.out, '');
  }
});

test('-o /dev/stdout writes the standard output and leaves the /dev/stdout link alone', () => {
  const before = lstatSync('/dev/stdout');
  const r = run('emit', example, '-o', '/dev/stdout');
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, exampleText);
  const after = lstatSync('/dev/stdout');
  assert.equal(after.isSymbolicLink(), before.isSymbolicLink());
  assert.equal(after.ino, before.ino);
});

test('a FIFO is written to, not replaced', async () => {
  const fifo = join(dir, 'pipe');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const got = join(dir, 'pipe.out');
  const reader = spawn('sh', ['-c', `cat '${fifo}' > '${got}'`]);
  const r = run('emit', example, '-o', fifo);
  await once(reader, 'exit');
  assert.equal(r.code, 0, r.err);
  assert.equal(readFileSync(got, 'utf8'), exampleText);
  assert.ok(statSync(fifo).isFIFO(), 'still a FIFO');
});

test('a character device is written to, not replaced', { skip: isRoot ? false : 'needs root to mknod a device (CI runs as root)' }, () => {
  const dev = join(dir, 'null-device');
  assert.equal(spawnSync('mknod', [dev, 'c', '1', '3']).status, 0, 'mknod');
  const r = run('emit', example, '-o', dev);
  assert.equal(r.code, 0, r.err);
  const st = statSync(dev);
  assert.ok(st.isCharacterDevice(), 'still a character device');
  assert.equal(st.rdev, statSync('/dev/null').rdev);
});

test('a symlink is written through: the target is replaced with its mode (and owner) kept, the link stays', () => {
  const sub = subdir('links');
  const target = join(sub, 'target.s');
  writeFileSync(target, 'old\n');
  chmodSync(target, 0o640);
  if (isRoot) chownSync(target, 1234, 2345);
  const link = join(sub, 'link.s');
  symlinkSync('target.s', link);
  const chain = join(sub, 'chain.s');
  symlinkSync('link.s', chain);
  let r = run('emit', example, '-o', chain);
  assert.equal(r.code, 0, r.err);
  assert.ok(lstatSync(chain).isSymbolicLink() && lstatSync(link).isSymbolicLink(), 'links kept');
  assert.equal(readlinkSync(link), 'target.s');
  assert.equal(readFileSync(target, 'utf8'), exampleText);
  const st = statSync(target);
  assert.equal(st.mode & 0o777, 0o640, 'mode kept');
  if (isRoot) assert.deepEqual([st.uid, st.gid], [1234, 2345], 'owner kept');
  // a dangling link: its target is created
  const dangling = join(sub, 'dangling.s');
  symlinkSync('created.s', dangling);
  r = run('emit', example, '-o', dangling);
  assert.equal(r.code, 0, r.err);
  assert.ok(lstatSync(dangling).isSymbolicLink());
  assert.equal(readFileSync(join(sub, 'created.s'), 'utf8'), exampleText);
});

test('a regular file is replaced atomically with its mode kept; no temporary file is left', () => {
  const sub = subdir('regular');
  const f = join(sub, 'out.s');
  writeFileSync(f, 'old\n');
  chmodSync(f, 0o600);
  const ino = statSync(f).ino;
  const r = run('emit', example, '-o', f);
  assert.equal(r.code, 0, r.err);
  assert.equal(readFileSync(f, 'utf8'), exampleText);
  assert.equal(statSync(f).mode & 0o777, 0o600);
  assert.notEqual(statSync(f).ino, ino, 'replaced by rename, not rewritten in place');
  assert.deepEqual(readdirSync(sub), ['out.s']);
});

test('nothing is written when a command fails: bad input, a failed apply round, an output that cannot be written', () => {
  const sub = subdir('fail');
  const keep = join(sub, 'keep.s');
  writeFileSync(keep, 'keep\n');
  const bad = join(sub, 'bad.s');
  writeFileSync(bad, 'v_mov_b32 v0, v[3:1]\n');
  for (const args of [['emit', bad, '-o', keep], ['check', bad, '--arch', 'gfx90a', '--fix', '-o', keep], ['report', bad, '--arch', 'gfx90a', '-o', keep]]) {
    const r = run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(readFileSync(keep, 'utf8'), 'keep\n');
  }
  // apply: the second round fails -> exit 1, nothing written, the report says so
  const moves = join(sub, 'm.txt');
  writeFileSync(moves, 'swap v_mov_b32_0 v_mov_b32_1\n---\nswap v_add_u32_0 v_mov_b32_0\n');
  let r = run('apply', small, '--moves-file', moves, '-o', keep);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /round 2: failed, undone/);
  assert.match(r.out, /nothing written to .*keep\.s: round 2 failed/);
  assert.equal(readFileSync(keep, 'utf8'), 'keep\n');
  r = run('apply', small, '--moves-file', moves, '-o', keep, '--json');
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.out).output, null);
  // schedule with two outputs, the second not writable (under a file): neither is written, and
  // the directories created for the first are removed again
  const out = join(sub, 'new', 'deeper', 'sched.s');
  r = run('schedule', small, '--strategy', 'list', '--budget', '20', '--no-cache', '-o', out, '--save-moves', join(keep, 'm.txt'));
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.err, /cannot write '.*keep\.s\/m\.txt': a component of the path is not a directory/);
  assert.equal(existsSync(out), false);
  assert.deepEqual(readdirSync(sub).sort(), ['bad.s', 'keep.s', 'm.txt']);
});

test('-o into a directory that does not exist: every command creates it (as mkdir -p), as --save-moves does', () => {
  const sub = subdir('missing-dirs');
  const hz = join(sub, 'hz.s');
  writeFileSync(hz, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nv_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]\nv_add_f32 v30, v0, v1\ns_endpgm\n');
  const cases: [string, string[]][] = [
    ['emit', ['emit', small]],
    ['check', ['check', hz, '--fix']],
    ['apply', ['apply', small, '--moves', 'swap v_mov_b32_0 v_mov_b32_1']],
    ['schedule', ['schedule', small, '--strategy', 'list', '--budget', '20', '--no-cache', '--save-moves', join(sub, 'schedule', 'moves', 'm.txt')]],
    ['report', ['report', small]],
  ];
  for (const [name, args] of cases) {
    const out = join(sub, name, 'a', 'b', 'out.txt');
    const r = run(...args, '-o', out);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.ok(statSync(out).isFile(), `${name} wrote ${out}`);
    assert.deepEqual(readdirSync(join(sub, name, 'a', 'b')), ['out.txt'], `${name}: no temporary file left`);
  }
  assert.ok(statSync(join(sub, 'schedule', 'moves', 'm.txt')).isFile());
  // a path under a regular file, or one that names a directory, is refused and creates nothing
  let r = run('emit', small, '-o', join(hz, 'x', 'out.s'));
  assert.equal(r.code, 2);
  assert.match(r.err, /^error: cannot write '.*hz\.s\/x\/out\.s': a component of the path is not a directory\n$/);
  r = run('schedule', small, '--strategy', 'list', '--budget', '20', '--no-cache', '--save-moves', join(sub, 'none') + '/');
  assert.equal(r.code, 2);
  assert.match(r.err, /cannot write '.*none\/': names a directory/);
  assert.equal(existsSync(join(sub, 'none')), false);
});

test('-o DIR with one input: every command writes DIR/<the input\'s name> (report: <name>.html), as with several; the input itself is refused', () => {
  const sub = subdir('one-into-dir');
  const hz = join(sub, 'hz.s');
  writeFileSync(hz, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nv_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[22:23], v[0:15]\nv_add_f32 v30, v0, v1\ns_endpgm\n');
  const cases: [string, string[], string][] = [
    ['emit', ['emit', small], 'small.s'],
    ['check', ['check', hz, '--fix'], 'hz.s'],
    ['apply', ['apply', small, '--moves', 'swap v_mov_b32_0 v_mov_b32_1'], 'small.s'],
    ['schedule', ['schedule', small, '--strategy', 'list', '--budget', '20', '--no-cache'], 'small.s'],
    ['report', ['report', small], 'small.html'],
  ];
  for (const [name, args, written] of cases) {
    // an existing directory, and a new one named with a trailing /
    for (const out of [subdir(`one-into-dir/${name}-existing`), join(sub, `${name}-new`) + '/']) {
      const r = run(...args, '-o', out);
      assert.equal(r.code, 0, `${name} -o ${out}: ${r.err}`);
      assert.deepEqual(readdirSync(out), [written], `${name} -o ${out}`);
      if (name !== 'emit') assert.ok((r.out + r.err).includes(join(out, written)), `${name} names the file it wrote: ${r.out}${r.err}`);
    }
  }
  assert.equal(readFileSync(join(sub, 'emit-existing', 'small.s'), 'utf8'), SMALL_KERNEL);
  assert.match(readFileSync(join(sub, 'report-new', 'small.html'), 'utf8'), /^<!doctype html>/i);
  // --json names the file written
  const j = run('apply', small, '--moves', 'done', '-o', join(sub, 'apply-existing'), '--json');
  assert.equal(JSON.parse(j.out).output, join(sub, 'apply-existing', 'small.s'));
  // the directory that holds the input: the output would be the input itself, refused before any work
  for (const args of [['emit', hz], ['check', hz, '--fix'], ['apply', hz, '--moves', 'done'], ['schedule', hz, '--budget', '5', '--no-cache']]) {
    const r = run(...args, '-o', sub);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, /hz\.s is the input itself: write to another directory/);
  }
  assert.match(readFileSync(hz, 'utf8'), /^\.amdgcn_target/);
});

test('a reader that closes the pipe early: the report is cut short, the command finishes (its file written, exit 0); -o - fails on it (exit 2)', async () => {
  const d = subdir('epipe');
  const out = join(d, 'out.s');
  // the pipe closed before the command writes (as `| head -1` does once it has its line)
  const closedEarly = async (...args: string[]) => {
    const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    p.stdout.destroy();
    const [code] = await once(p, 'close') as [number];
    return { code, err };
  };
  const r = await closedEarly('schedule', example, '--budget', '20', '-o', out);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /Unhandled|EPIPE/);
  assert.ok(existsSync(out));
  // the output itself on the standard output: a write that fails is a failure, named
  const big = join(d, 'big.s');
  writeFileSync(big, exampleText + '\n'.repeat(1 << 20));
  const e = await closedEarly('emit', big, '-o', '-');
  assert.equal(e.code, 2, e.err);
  assert.match(e.err, /cannot write to the standard output: write EPIPE/);
});
