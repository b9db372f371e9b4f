/**
 * A kernel whose code is spread over `.include`d files, from the command line: `-I DIR`, errors
 * at the `.include` line, and `schedule -o` writing one flattened file that `verify` proves
 * equivalent to the input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './harness.js';

const KERNEL = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
  '.include "ops.inc"',
  '.text',
  'k:',
  '  v_mov_b32 v1, 1',
  '  v_mov_b32 v2, 2',
  '  addv 3, 1, 2',
  '  ds_write_b32 v0, v3',
  '  s_waitcnt lgkmcnt(0)',
  '  s_barrier',
  '  v_mov_b32 v4, 4',
  '  s_endpgm',
  '',
].join('\n');
const OPS = ['.macro addv d, a, b', '  v_add_u32 v\\d, v\\a, v\\b', '.endm', ''].join('\n');

test('-I names where .include files are; without it the load fails at the .include line; schedule -o writes one flattened file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    mkdirSync(join(dir, 'inc'));
    const k = join(dir, 'k.s');
    writeFileSync(k, KERNEL);
    writeFileSync(join(dir, 'inc', 'ops.inc'), OPS);
    const missing = run('check', k);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /k\.s:2:10: error: Could not find include file 'ops\.inc'/);
    const ok = run('-I', join(dir, 'inc'), 'check', k);
    assert.equal(ok.code, 0, ok.err);
    const out = join(dir, 'out.s');
    const s = run('-I', join(dir, 'inc'), 'schedule', k, '--budget', '200', '--jobs', '1', '--no-cache', '-o', out);
    assert.equal(s.code, 0, s.err);
    const written = readFileSync(out, 'utf8');
    assert.match(written, /^\/\/ \.include "ops\.inc"$/m, 'the directive stays as a comment');
    assert.match(written, /^ {2}v_add_u32 v\\d, v\\a, v\\b$/m, 'the included lines follow it');
    assert.doesNotMatch(written, /^\s*\.include/m);
    // the output reads without the include directory, and is the input's equivalent
    assert.equal(run('check', out).code, 0);
    const v = run('-I', join(dir, 'inc'), 'verify', k, out);
    assert.equal(v.code, 0, v.out + v.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
