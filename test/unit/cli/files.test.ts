/**
 * Directory arguments: which files a directory contributes to a batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandInputs } from '../../../src/cli/files.js';

test('a directory contributes its .s, .S, .asm and .amdgcn files (Triton cache layout), sorted, and nothing else', async () => {
  const d = mkdtempSync(join(tmpdir(), 'conductor-files-'));
  mkdirSync(join(d, 'HASH'));
  for (const f of ['HASH/matmul_kernel.amdgcn', 'HASH/matmul_kernel.json', 'HASH/matmul_kernel.llir', 'a.s', 'b.S', 'c.asm', 'notes.txt']) writeFileSync(join(d, f), 's_endpgm\n');
  const got = await expandInputs([d]);
  assert.deepEqual(got.map((f) => f.rel), ['HASH/matmul_kernel.amdgcn', 'a.s', 'b.S', 'c.asm']);
  // a directory without any: bad input naming the extensions looked for
  const empty = mkdtempSync(join(tmpdir(), 'conductor-files-'));
  writeFileSync(join(empty, 'k.json'), '{}');
  await assert.rejects(expandInputs([empty]), /holds no assembly files \(\*\.s, \*\.S, \*\.asm, \*\.amdgcn\)/);
});
