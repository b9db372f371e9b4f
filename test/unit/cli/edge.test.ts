/**
 * The command line's edge cases a hostile or careless input hits: an interrupt while an output is
 * being written leaves no temporary file behind, a binary move list is refused in one line
 * instead of being echoed back byte for byte, a read-only output is refused, check's JSON and
 * SARIF stay valid documents when the input is bad, and a byte order mark is kept first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example, run } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-edge-'));

/**
 * Run `emit BIG -o OUT` and interrupt it while its temporary file exists: the child is stopped the
 * moment the file appears, sent SIGINT and resumed. Returns whether the file was caught and how
 * the child ended.
 */
async function interruptWhileStaging(input: string, outDir: string): Promise<{ caught: boolean; signal: NodeJS.Signals | null; code: number | null }> {
  const child = spawn(process.execPath, [bin, 'emit', input, '-o', join(outDir, 'out.s')], { stdio: 'ignore' });
  let caught = false;
  const watcher = watch(outDir, (_event, name) => {
    if (caught || !name?.endsWith('.tmp') || child.exitCode !== null) return;
    child.kill('SIGSTOP');
    // stopped: only a temporary file still there is an interrupt while staging (a late event may
    // come after the rename, on a busy machine); else the child goes on and the try is not counted
    if (existsSync(join(outDir, name))) {
      caught = true;
      child.kill('SIGINT');
    }
    child.kill('SIGCONT');
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  watcher.close();
  return { caught, signal, code };
}

test('Ctrl-C while an output is staged removes the temporary file and ends the process as SIGINT does', async () => {
  // 30 MB of comments: a write long enough to interrupt, parsed in a fraction of a second
  const big = join(dir, 'big.s');
  const comment = ` ; ${'c'.repeat(10000)}\n`;
  writeFileSync(big, `.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n  v_mov_b32 v1, 1\n${comment.repeat(3000)}  s_endpgm\n`);
  let caught = 0;
  for (let attempt = 0; attempt < 6 && caught < 2; attempt++) {
    const out = join(dir, `int${attempt}`);
    mkdirSync(out);
    const r = await interruptWhileStaging(big, out);
    if (!r.caught) { rmSync(out, { recursive: true, force: true }); continue; } // finished before the watcher saw the file: try again
    caught++;
    assert.equal(r.signal, 'SIGINT', `ended by the interrupt (exit ${r.code})`);
    assert.deepEqual(readdirSync(out), [], 'neither the output nor its temporary file is left');
  }
  assert.ok(caught > 0, 'the temporary file was seen at least once');
});

test('a binary or non-UTF-8 --moves-file is refused in one line (exit 2), its bytes not echoed back', () => {
  const bin0 = join(dir, 'moves.bin');
  writeFileSync(bin0, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x1b, 0x5b, 0x32, 0x4a, 0x0a, 0x6d, 0x6f, 0x76, 0x65, 0x0a]));
  let r = run('apply', example, '--moves-file', bin0, '-o', join(dir, 'never.s'));
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.err, /^error: .*moves\.bin: not a text file \(a NUL byte at offset 7\); expected move commands or an agent transcript\n$/);
  assert.equal(r.out, '');
  const latin1 = join(dir, 'moves.latin1');
  writeFileSync(latin1, Buffer.from('swap v_mov_b32_e32_0 v_mov_b32_e32_1 ; caf\xe9\n', 'latin1'));
  r = run('apply', example, '--moves-file', latin1);
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.err, /moves\.latin1: not a text file \(not valid UTF-8\)/);
  assert.equal(r.err.trim().split('\n').length, 1, r.err);
  // an empty move list is still a list (no commands): not refused
  const empty = join(dir, 'moves.empty');
  writeFileSync(empty, '');
  r = run('apply', example, '--moves-file', empty);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(readdirSync(dir).includes('never.s'), false);
});

/** Whether the user 'nobody' (65534) can read the command (a checkout in a private directory hides it). */
function nobodyCanRun(): boolean {
  const probe = `require('node:fs').accessSync(${JSON.stringify(bin)}, require('node:fs').constants.R_OK)`;
  return spawnSync(process.execPath, ['-e', probe], { uid: 65534, gid: 65534, stdio: 'ignore' }).status === 0;
}

test('a read-only output file is refused (exit 2) and left as it was; root, who may write it, replaces it', (t) => {
  const sub = join(dir, 'ro');
  mkdirSync(sub);
  const ro = join(sub, 'ro.s');
  writeFileSync(ro, 'keep\n');
  chmodSync(ro, 0o444);
  const isRoot = process.getuid?.() === 0;
  if (isRoot && !nobodyCanRun()) {
    // root may write any file; the refusal needs another user, who cannot read this checkout
    t.diagnostic(`the refusal is not run: user 'nobody' cannot read ${bin}`);
    assert.equal(run('emit', example, '-o', ro).code, 0, 'root replaces it');
    assert.notEqual(readFileSync(ro, 'utf8'), 'keep\n');
    return;
  }
  // as root, run the command as 'nobody' (65534) in a directory it owns: the rename alone would succeed
  if (isRoot) {
    chmodSync(dir, 0o755); // mkdtemp's 0700 would hide the file from 'nobody' altogether
    chownSync(sub, 65534, 65534);
    chownSync(ro, 65534, 65534);
  }
  const r = spawnSync(process.execPath, [bin, 'emit', example, '-o', ro], { encoding: 'utf8', ...(isRoot ? { uid: 65534, gid: 65534 } : {}) });
  assert.equal(r.status, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /^error: cannot write '.*ro\.s': permission denied \(the file is read-only\)\n$/);
  assert.equal(readFileSync(ro, 'utf8'), 'keep\n');
  assert.deepEqual(readdirSync(sub), ['ro.s']);
  if (isRoot) assert.equal(run('emit', example, '-o', ro).code, 0, 'root replaces it');
});

test('check --json / --format json|sarif on bad input: still one valid document on stdout, exit 2, the error on stderr', () => {
  const bad = join(dir, 'typo.s');
  writeFileSync(bad, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\nk:\n  s_laod_dword s0, s[0:1], 0x0\n  s_endpgm\n');
  for (const fmt of [['--json'], ['--format', 'json']]) {
    const r = run('check', bad, ...fmt);
    assert.equal(r.code, 2);
    assert.deepEqual(JSON.parse(r.out), { file: bad, error: "unknown instruction 's_laod_dword'", loc: { line: 4, col: 3 }, exit: 2, kernels: [] });
    assert.match(r.err, /typo\.s:4:3: error: unknown instruction/);
  }
  const missing = join(dir, 'missing.s');
  let r = run('check', missing, '--json');
  assert.equal(r.code, 2);
  assert.equal(JSON.parse(r.out).error, `cannot read '${missing}': no such file or directory`);
  r = run('check', bad, '--format', 'sarif');
  assert.equal(r.code, 2);
  const run0 = JSON.parse(r.out).runs[0];
  assert.deepEqual(run0.results, []);
  assert.equal(run0.invocations[0].executionSuccessful, false);
  assert.equal(run0.invocations[0].toolExecutionNotifications[0].message.text, "unknown instruction 's_laod_dword'");
  assert.deepEqual(run0.invocations[0].toolExecutionNotifications[0].locations[0].physicalLocation.region, { startLine: 4, startColumn: 3 });
  // a batch: the failed file is a run too (it was left out)
  r = run('check', example, bad, '--format', 'sarif');
  assert.equal(r.code, 2);
  const runs = JSON.parse(r.out).runs;
  assert.equal(runs.length, 2);
  assert.equal(runs[1].invocations[0].executionSuccessful, false);
  // the clang format keeps stdout empty
  assert.equal(run('check', bad).out, '');
});

test('an operand of the wrong kind, width or range is named at its own column, as llvm-mc names it; in a macro expansion, at the call', () => {
  const f = join(dir, 'operands.s');
  writeFileSync(f, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n\tv_mov_b32_e32 v3x5, 0\n  v_mov_b32 v0, a[0:1]\n  v_mov_b32 v1, s[200:201]\n  s_endpgm\n');
  const r = run('check', f);
  assert.equal(r.code, 2);
  // llvm-mc 22: 3:16 and 4:17 'invalid operand for instruction' (the tab counts one column)
  assert.match(r.err, /operands\.s:3:16: error: invalid operand for instruction: 'v_mov_b32_e32' does not take 'v3x5'/);
  assert.match(r.err, /operands\.s:4:17: error: invalid operand for instruction: src0 of 'v_mov_b32' is 1 register wide/);
  const m = join(dir, 'macro-operand.s');
  writeFileSync(m, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n.macro mv r\n  v_mov_b32 \\r, 0\n.endm\n  mv v3x5\n  s_endpgm\n');
  const e = run('check', m);
  assert.equal(e.code, 2);
  assert.match(e.err, /macro-operand\.s:6:3: error: invalid operand/);
});

test('a UTF-8 byte order mark: kept first in every output (emit byte-identical), warned about, not counted as a column', () => {
  // llvm-mc 22 and clang 22 -c refuse a .s file that starts with a mark ('1:1: error: invalid character
  // in input', then the first statement is lost; exit 1), while clang -c on a .S file accepts it (its
  // preprocessor skips the mark). So the bytes are kept (the output is the input where nothing
  // changed; a .S file stays valid) and a .s file gets a warning: a finding of check, a line on the
  // standard error of the commands that write the program back.
  const BOM = '\ufeff';
  const snippet = join(dir, 'bom.s');
  const text = `${BOM}  v_mov_b32 v1, 1\n  v_mov_b32 v2, 2\n  v_add_u32 v3, v1, v2\n  global_load_dword v4, v[0:1], off\n  v_add_u32 v5, v4, v4\n  s_endpgm\n`;
  writeFileSync(snippet, text);
  const warning = /bom\.s:1:1: warning: the file starts with a UTF-8 byte order mark, which llvm-mc and clang refuse in a \.s file/;
  const out = (name: string) => join(dir, name);
  // emit: byte for byte
  let r = run('emit', snippet, '-o', out('bom-emit.s'));
  assert.equal(r.code, 0, r.err);
  assert.ok(readFileSync(out('bom-emit.s')).equals(readFileSync(snippet)), 'emit keeps every byte');
  assert.match(r.err, warning);
  // check: a warning finding at 1:1, exit 0
  r = run('check', snippet, '--arch', 'gfx90a');
  assert.match(r.out, /bom\.s:1:1: warning: the file starts with a UTF-8 byte order mark.*\[bom\]/);
  // check --fix (a wait inserted), apply (the first line moved), schedule: the mark first, once
  const marks = (s: string) => s.split(BOM).length - 1;
  for (const [name, args] of [
    ['fix', ['check', snippet, '--arch', 'gfx90a', '--fix']],
    ['apply', ['apply', snippet, '--arch', 'gfx90a', '--objective', 'peak_vgpr', '--moves', 'swap v_mov_b32_0 v_mov_b32_1']],
    ['schedule', ['schedule', snippet, '--arch', 'gfx90a', '--strategy', 'list', '--budget', '20', '--no-cache']],
  ] as const) {
    r = run(...args, '-o', out(`bom-${name}.s`));
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    assert.match(r.err, warning, name);
    const written = readFileSync(out(`bom-${name}.s`), 'utf8');
    assert.ok(written.startsWith(BOM), `${name}: the mark first`);
    assert.equal(marks(written), 1, `${name}: one mark`);
  }
  assert.match(readFileSync(out('bom-fix.s'), 'utf8'), /s_waitcnt vmcnt\(0\)\n {2}v_add_u32 v5, v4, v4/);
  assert.match(readFileSync(out('bom-apply.s'), 'utf8'), new RegExp(`^${BOM} {2}v_mov_b32 v2, 2\n {2}v_mov_b32 v1, 1\n`));
  // a column on the first line is counted from the character after the mark, as an editor shows it
  const typo = join(dir, 'bom-typo.s');
  writeFileSync(typo, `${BOM}s_laod_dword s0, s[0:1], 0x0\n`);
  r = run('check', typo, '--arch', 'gfx90a');
  assert.equal(r.code, 2);
  assert.match(r.err, /bom-typo\.s:1:1: error: unknown instruction 's_laod_dword'/);
  // a .S file: clang accepts the mark, no warning; still kept
  const upper = join(dir, 'bom-upper.S');
  writeFileSync(upper, text);
  r = run('emit', upper, '-o', out('bom-upper-out.S'));
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
  assert.ok(readFileSync(out('bom-upper-out.S')).equals(readFileSync(upper)));
  assert.doesNotMatch(run('check', upper, '--arch', 'gfx90a').out, /byte order mark/);
});

test('counts in messages agree in number: one region, one error, one instruction', () => {
  // one region of two movable instructions, one error (a function's entry wait), a one-instruction block
  const one = join(dir, 'one.s');
  writeFileSync(one, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n.globl k\n.type k,@function\nk:\n  v_mov_b32 v1, 0\n  v_mov_b32 v2, 1\n  s_cbranch_scc1 .Lend\n.Lend:\n  s_endpgm\n');
  const tag = run('tag', one, '--region', '3');
  assert.equal(tag.code, 2);
  assert.match(tag.err, /kernel k has 1 region \(0\.\.0\); no region 3/);
  assert.match(run('analyze', one).out, /check: 1 error, 0 warnings/);
  assert.match(run('simulate', one).out, /-- block 1 \(line 10\): 1 instruction, /);
  // and in the plural
  assert.match(run('simulate', one).out, /-- block 0 \(line 6\): 3 instructions, /);
});
