/**
 * The command line's edge cases a hostile or careless input hits: an interrupt while an output is
 * being written leaves no temporary file behind, and a binary move list is refused in one line
 * instead of being echoed back byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, watch, writeFileSync } from 'node:fs';
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
    caught = true;
    child.kill('SIGSTOP');
    child.kill('SIGINT');
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
    if (!r.caught) continue; // finished before the watcher saw the file: try again
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
