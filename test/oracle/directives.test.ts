/**
 * Directives as llvm-mc 22 knows them (src/asm/parser.ts KNOWN_DIRECTIVES): every name on the
 * list is a directive llvm-mc knows for amdgcn-amd-amdhsa (a one-line file with it alone gives
 * no "unknown directive"), and names it does not know are errors of ours at the line llvm-mc
 * names. The block directives the parser reads itself and the code object v2 ones it keeps
 * (.amdhsa_kernel, .amdgpu_hsa_kernel, .amd_kernel_code_t and the .end_ ones) are left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KNOWN_DIRECTIVES, parseProgram } from '../../src/asm/parser.js';
import { runLlvmMc } from './llvm.js';

const KEPT = new Set(['.amdhsa_kernel', '.end_amdhsa_kernel', '.amdgpu_hsa_kernel', '.amd_kernel_code_t', '.end_amd_kernel_code_t', '.end_amdgpu_metadata', '.end_amdgpu_pal_metadata']);
const UNKNOWN = ['.foo', '.word', '.hword', '.dword', '.amdgcn.next_free_vgpr', '.v_clear_acc_c'];
/** Directives llvm-mc only takes for one when an argument follows. */
const ARGS: Record<string, string> = { '.amdhsa_code_object_version': ' 5' };
const dir = mkdtempSync(join(tmpdir(), 'conductor-directives-'));

async function unknownToMc(name: string, i: number): Promise<number | undefined> {
  const path = join(dir, `d${i}.s`);
  writeFileSync(path, `s_nop 0\n${name}${ARGS[name] ?? ''}\n`);
  const mc = await runLlvmMc(path, 'gfx942', ['-filetype=null']);
  return mc.errors.find((e) => /unknown directive/.test(e.message))?.line;
}

test('every directive on the list is one llvm-mc 22 knows', async () => {
  const wrong: string[] = [];
  let i = 0;
  for (const name of KNOWN_DIRECTIVES) {
    if (KEPT.has(name)) continue;
    if ((await unknownToMc(name, i++)) !== undefined) wrong.push(name);
  }
  console.log(`  ${i} directives probed`);
  assert.deepEqual(wrong, [], 'llvm-mc calls these unknown');
});

test('a directive llvm-mc does not know is an error of ours at its line', async () => {
  let i = 1000;
  for (const name of UNKNOWN) {
    const line = await unknownToMc(name, i++);
    assert.equal(line, 2, `llvm-mc: ${name} is unknown at line 2`);
    const ours = parseProgram(`s_nop 0\n${name}\n`, 'u.s').diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(ours.map((d) => d.loc.line), [2], name);
    assert.match(ours[0]!.message, /^unknown directive/);
  }
});
