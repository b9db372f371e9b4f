/**
 * The assembler forms of test/oracle/probes/llvm-forms/ (`.include`, the predefined
 * `.amdgcn.gfx_generation_*` symbols, `.altmacro`, `.if(expr)`, `macro(args)`, metadata in a
 * macro body, undefined subtracted symbols in data), read by llvm-mc 22 and by Conductor:
 * - a probe llvm-mc accepts, Conductor accepts, and the instructions Conductor reads (after its
 *   expansion of macros, repeats and conditionals, with its symbol values) assemble to the same
 *   bytes as the probe;
 * - a probe llvm-mc refuses, Conductor refuses at the same lines (and, for the data directives,
 *   at the same columns with the same words).
 * A probe's first line names the processors to read it for (`// mcpu: gfx906 gfx90a`).
 * llvm-mc finds the probes' included files with -I (the folder); Conductor finds them beside
 * the including file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFile } from '../../src/load.js';
import { InputErrors } from '../../src/errors.js';
import { llvmTool, repoRoot, runLlvmMc } from './llvm.js';

const dir = join(repoRoot(), 'test', 'oracle', 'probes', 'llvm-forms');
const work = mkdtempSync(join(tmpdir(), 'conductor-llvm-forms-'));

/** The encodings llvm-mc prints for a file's instructions, in order. */
function encodings(file: string, mcpu: string): string[] {
  const out = execFileSync(llvmTool('llvm-mc'), ['-triple=amdgcn-amd-amdhsa', `-mcpu=${mcpu}`, '-show-encoding', '-I', dir, file], { encoding: 'utf8' });
  return [...out.matchAll(/; encoding: (\[[^\]]*\])/g)].map((m) => m[1]!);
}

const probes = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();

test('the probes are there', () => {
  assert.ok(probes.length >= 10, `${probes.length} probes in ${dir}`);
});

for (const name of probes) {
  const file = join(dir, name);
  const mcpus = /^\/\/ mcpu: (.*)$/m.exec(readFileSync(file, 'utf8'))![1]!.trim().split(/\s+/);
  for (const mcpu of mcpus) {
    test(`${name} for ${mcpu}: Conductor reads it as llvm-mc does`, async () => {
      const mc = await runLlvmMc(file, mcpu, ['-filetype=obj', '-o', '/dev/null', '-I', dir]);
      assert.ok(!mc.crashed, mc.stderr);
      let ours: { line: number; col: number; message: string }[] = [];
      let loaded: Awaited<ReturnType<typeof loadFile>> | undefined;
      try {
        loaded = await loadFile(file, { arch: mcpu });
      } catch (e) {
        if (!(e instanceof InputErrors)) throw e;
        ours = e.errors.map((x) => ({ line: x.loc!.line, col: x.loc!.col, message: x.message }));
      }
      if (!mc.ok) {
        assert.ok(mc.errors.length > 0, `llvm-mc refuses ${name} without a located error: ${mc.stderr}`);
        assert.deepEqual(ours.map((x) => x.line), mc.errors.map((x) => x.line), `the lines llvm-mc refuses: ${mc.stderr}`);
        for (const [k, x] of mc.errors.entries()) {
          if (!/can not be undefined in a subtraction expression/.test(x.message)) continue;
          assert.equal(ours[k]!.col, x.col, `column of '${x.message}'`);
          assert.equal(ours[k]!.message, x.message);
        }
        return;
      }
      assert.deepEqual(ours, [], `llvm-mc accepts ${name}`);
      // the instructions as Conductor reads them, with its symbols, assemble to the probe's bytes
      const p = loaded!.program;
      // the register counts .amdgcn.next_free_vgpr/_sgpr change along the file: an operand naming
      // one is written as the value Conductor read there
      const counted = (s: string) => s.startsWith('.amdgcn.next_free_');
      const sets = [...p.symbols].filter(([s]) => !s.startsWith('.amdgcn.gfx_generation_') && !counted(s)).map(([s, v]) => `.set ${s}, ${v}`);
      const text = (i: (typeof p.instructions)[number]) => i.operands.reduce((t, o) =>
        o.kind === 'imm' && counted(o.text) ? t.replace(o.text, String(o.value)) : t, i.text);
      const flat = join(work, `${name}.${mcpu}.s`);
      writeFileSync(flat, [...sets, ...p.instructions.map(text), ''].join('\n'));
      const want = encodings(file, mcpu);
      assert.ok(want.length > 0);
      assert.deepEqual(encodings(flat, mcpu), want);
    });
  }
}
