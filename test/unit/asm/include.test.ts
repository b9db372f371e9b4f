/**
 * `.include "file"`: the file's lines read in place of the directive (as llvm-mc 22 reads them),
 * locations in the file that holds the line, errors at the `.include` line for a file that cannot
 * be read or a cycle, and printing that writes one flattened text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProgram } from '../../../src/asm/parser.js';
import { printProgram } from '../../../src/asm/printer.js';
import { flattenIncludes } from '../../../src/asm/include.js';
import { loadFile } from '../../../src/load.js';
import { InputErrors } from '../../../src/errors.js';
import type { Program } from '../../../src/asm/ast.js';

/** Parse `main` with the in-memory files `files` (by name) as what `.include` reads. */
function parseWith(main: string, files: Record<string, string>): Program {
  return parseProgram(main, 'main.s', {
    include: { path: 'main.s', id: 'main.s', read: (name) => (Object.hasOwn(files, name) ? { path: name, id: name, text: files[name]! } : undefined) },
  });
}
function where(p: Program): string[] {
  return p.instructions.map((i) => `${i.loc.file}:${i.loc.line}:${i.loc.col} ${i.text}`);
}
function errors(p: Program): string[] {
  return p.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.loc.file}:${d.loc.line}:${d.loc.col}: ${d.message}`);
}

const MAIN = [
  '.include "defs.inc"',
  'k:',
  '  s_mov_b32 s0, VALUE',
  '  addv 1',
  '  s_endpgm',
  '',
].join('\n');
const DEFS = [
  '.set VALUE, 7',
  '.macro addv n',
  '  v_add_u32 v\\n, v\\n, v\\n',
  '.endm',
  '.include "more.inc"',
].join('\n'); // no newline at the end
const MORE = '  s_nop 1\n';

test('the included lines are read in place of .include, and located in their own file', () => {
  const p = parseWith(MAIN, { 'defs.inc': DEFS, 'more.inc': MORE });
  assert.deepEqual(errors(p), []);
  assert.deepEqual(where(p), [
    'more.inc:1:3 s_nop 1',
    'main.s:3:3 s_mov_b32 s0, VALUE',
    // a macro defined in an included file is located at its call
    'main.s:4:3 v_add_u32 v1, v1, v1',
    'main.s:5:3 s_endpgm',
  ]);
  assert.equal(p.symbols.get('VALUE'), 7);
  // the statement of the included instruction indexes the printed (flattened) text
  const st = p.statements[p.instructions[0]!.stmt]!;
  assert.equal(p.lines[st.lineIndex]!.text, '  s_nop 1');
});

test('printing writes one flattened text: each .include a comment, the file\'s lines after it', () => {
  const p = parseWith(MAIN, { 'defs.inc': DEFS, 'more.inc': MORE });
  const out = printProgram(p);
  assert.equal(out, [
    '// .include "defs.inc"',
    '.set VALUE, 7',
    '.macro addv n',
    '  v_add_u32 v\\n, v\\n, v\\n',
    '.endm',
    '// .include "more.inc"',
    '  s_nop 1',
    'k:',
    '  s_mov_b32 s0, VALUE',
    '  addv 1',
    '  s_endpgm',
    '',
  ].join('\n'));
  // and the flattened text reads as the same program without any file
  const again = parseProgram(out, 'flat.s');
  assert.deepEqual(again.instructions.map((i) => i.text), p.instructions.map((i) => i.text));
  assert.deepEqual(again.diagnostics, []);
});

test('a text without .include is parsed as it is (no copy, no map)', () => {
  assert.equal(flattenIncludes('s_nop 0\n', 'a.s', 'a.s', 'a.s', () => { throw new Error('not called'); }), undefined);
  const text = 'k:\n  s_nop 0 // .include "x" in a comment\n';
  const p = parseWith(text, {});
  assert.equal(printProgram(p), text);
  assert.deepEqual(errors(p), []);
});

test('an error inside an included file names that file, its line and the include chain', () => {
  const p = parseWith(MAIN, { 'defs.inc': DEFS, 'more.inc': '  s_nop 1\n  .error "stop here"\n' });
  assert.deepEqual(errors(p), [
    'more.inc:2:3: stop here (included from defs.inc:5 <- main.s:1)',
  ]);
});

test('a file that cannot be found is an error at its .include line (llvm-mc\'s words); in a branch left out it is not read', () => {
  const p = parseWith('  s_nop 0\n.include "missing.inc"\n  s_endpgm\n', {});
  assert.deepEqual(errors(p), ["main.s:2:10: Could not find include file 'missing.inc'"]);
  const q = parseWith('.if 0\n.include "missing.inc"\n.endif\n  s_endpgm\n', {});
  assert.deepEqual(errors(q), []);
});

test('an include cycle is an error at the .include line that closes it', () => {
  const p = parseWith('.include "a.inc"\n  s_endpgm\n', { 'a.inc': '  s_nop 0\n.include "b.inc"\n', 'b.inc': '.include "a.inc"\n' });
  assert.deepEqual(errors(p), ["b.inc:1:10: include cycle: 'a.inc' is a.inc, which is being included already (included from a.inc:2 <- main.s:1)"]);
  const self = parseWith('.include "main.s"\n  s_endpgm\n', { 'main.s': '.include "main.s"\n' });
  assert.equal(errors(self).length, 1);
  assert.match(errors(self)[0]!, /^main\.s:1:10: include cycle/);
});

test('files are found from the current directory, then -I directories, then the including file\'s directory; a missing one refuses the load', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-include-'));
  const cwd = process.cwd();
  try {
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'inc'));
    mkdirSync(join(dir, 'run'));
    writeFileSync(join(dir, 'src', 'k.s'), '.include "a.inc"\n.include "b.inc"\nk:\n  s_mov_b32 s0, A + B\n  s_endpgm\n');
    writeFileSync(join(dir, 'src', 'a.inc'), '.set A, 1\n');
    writeFileSync(join(dir, 'src', 'b.inc'), '.set B, 10\n');
    writeFileSync(join(dir, 'inc', 'b.inc'), '.set B, 20\n');
    writeFileSync(join(dir, 'run', 'b.inc'), '.set B, 30\n');
    const value = async (includeDirs?: string[]) => {
      const l = await loadFile(join(dir, 'src', 'k.s'), { arch: 'gfx906', includeDirs });
      return l.program.symbols.get('A')! + l.program.symbols.get('B')!;
    };
    process.chdir(join(dir, 'run'));
    assert.equal(await value(), 31, 'the current directory first (llvm-mc)');
    process.chdir(dir);
    assert.equal(await value([join(dir, 'inc')]), 21, 'then -I');
    assert.equal(await value(), 11, 'then beside the including file');
    rmSync(join(dir, 'src', 'b.inc'));
    await assert.rejects(value(), (e: unknown) => e instanceof InputErrors && /k\.s:2:10: error: Could not find include file 'b\.inc'/.test(e.format()));
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});
