/**
 * A text edited by lines of s_waitcnt and s_nop only (check/edit.ts carriedEdit) is parsed copying
 * the earlier parse's rows for the lines the edit left (asm/program.ts LineOrigins, lineReuse;
 * ParseOptions.reuse): the parse equals the text parsed from scratch (parseDifference) on kernels
 * with macros, repeat blocks, symbols, numeric labels, labels beside instructions, conditional
 * blocks, CRLF line ends and block comments; most instructions are copied; a reuse that does not
 * fit the text (a planted fault) is caught by the check loadText makes with checkFast. The copied
 * rows' resolutions are copied from the earlier program's (isa/resolve.ts ResolveReuse) and equal
 * the program resolved afresh, but where a kernel's VGPR indexing mode changed resolutions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { parseProgram, parseReuse } from '../../../src/asm/parser.js';
import { resolveProgram, resolveReuse } from '../../../src/isa/resolve.js';
import { resolutionDifference } from '../../../src/isa/resolved-store.js';
import { LineOrigins, lineReuse, parseDifference, ParsedProgram } from '../../../src/asm/program.js';
import { addInsert, applyStatementEdits, carriedEdit, emptyEdits, type StatementEdits } from '../../../src/check/edit.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** A kernel with what the parser keeps state for: symbols, macros, repeat blocks, numeric labels, conditionals, comments. */
const FEATURES = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
  '.set vgprA, 4',
  '.set n, 3',
  '.macro ADD2 d, a',
  '  v_add_f32 v[\\d], v[\\a], v[\\d]',
  '  v_add_f32 v[\\d], v[\\a], v[\\d]',
  '.endm',
  '.text',
  '.globl k',
  '.p2align 8',
  '.type k,@function',
  'k:',
  '  s_load_dwordx2 s[0:1], s[0:1], 0x0',
  '  v_mov_b32 v[vgprA], 0',
  '  s_waitcnt lgkmcnt(0)',
  '  global_load_dword v1, v0, s[0:1]\r',
  '  /* a block',
  '     comment */ v_mov_b32 v2, 1',
  '1: v_add_f32 v3, v1, v2 // a label beside it',
  '  s_waitcnt vmcnt(0)',
  '  ADD2 5, 1',
  '.rept n',
  '  v_mul_f32 v6, v6, v6',
  '.endr',
  '.if n > 2',
  '  v_mov_b32 v7, v[vgprA]',
  '.else',
  '  v_mov_b32 v7, 0',
  '.endif',
  '.set vgprA, 8',
  '  v_mov_b32 v9, v[vgprA]',
  '  s_cbranch_scc1 1b',
  '  global_store_dword v0, v3, s[0:1]',
  '  s_endpgm',
  '.Lend:',
  '.size k, .Lend-k',
  '',
].join('\n');

/** Random carried edits: s_waitcnt / s_nop lines inserted before instructions, s_waitcnt and s_nop statements replaced or removed. */
function randomEdits(program: ParsedProgram, seed: number): StatementEdits {
  const rand = mulberry32(seed);
  const e = emptyEdits();
  program.forEachStoredStatement(() => {}, (i, k) => {
    const base = program.store.base(i);
    const r = rand();
    if ((base === 's_waitcnt' || base === 's_nop') && r < 0.3) e.remove.add(k);
    else if ((base === 's_waitcnt' || base === 's_nop') && r < 0.6) e.replace.set(k, base === 's_nop' ? 's_nop 2' : 's_waitcnt vmcnt(0) lgkmcnt(0)');
    else if (r < 0.15) addInsert(e, k, r < 0.07 ? 's_nop 1' : 's_waitcnt lgkmcnt(0)');
  });
  return e;
}

function reparsed(program: ParsedProgram, e: StatementEdits): { text: string; reused: ParsedProgram; again: ParsedProgram; copied: number } {
  const origins = new LineOrigins();
  const text = applyStatementEdits(program, e, origins);
  const reuse = lineReuse(program, origins);
  assert.ok(reuse);
  assert.equal(origins.lines, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
  const before = parseReuse.rows;
  const reused = parseProgram(text, program.file, { reuse });
  return { text, reused, again: parseProgram(text, program.file), copied: parseReuse.rows - before };
}

test('a text edited by waits and nops parses copying the rows of the lines the edit left, as it parses from scratch', () => {
  for (const [name, text] of [['example.s', example], ['features.s', FEATURES]] as const) {
    const p = parseProgram(text, name);
    assert.equal(p.diagnostics.filter((d) => d.severity === 'error').length, 0, name);
    for (let seed = 1; seed <= 12; seed++) {
      const e = randomEdits(p, seed);
      if (!carriedEdit(p, e)) continue;
      const r = reparsed(p, e);
      assert.equal(parseDifference(r.reused, r.again), undefined, `${name} seed ${seed}`);
      // the instructions read from the file's own lines, but the ones the edit wrote and those beside a label, are copied
      assert.ok(r.copied >= (name === 'example.s' ? r.again.store.n * 0.6 : 1), `${name} seed ${seed}: ${r.copied} of ${r.again.store.n} copied`);
    }
  }
});

test('an edit that leaves every line copies every instruction read from the file, in order', () => {
  const p = parseProgram(example, 'example.s');
  const r = reparsed(p, emptyEdits());
  assert.equal(r.text, example);
  assert.equal(parseDifference(r.reused, r.again), undefined);
  assert.equal(r.copied, p.store.n - [...Array(p.store.n).keys()].filter((i) => p.store.hasAux(i)).length);
});

test('what a parse copies: an instruction alone on a line of the file, without details in aux', () => {
  const p = parseProgram(FEATURES, 'features.s');
  const r = reparsed(p, emptyEdits());
  const reuse = lineReuse(p, (() => { const o = new LineOrigins(); applyStatementEdits(p, emptyEdits(), o); return o; })())!;
  const offered = [...reuse.row].filter((x) => x >= 0).map((x) => p.store.text(x));
  // not offered: s_waitcnt and the branch (details in aux), the macro's and the repeat block's
  // instructions (their own texts), the instruction after a block comment (its line's text is
  // blanked) and the one in the .else branch not taken (no row)
  assert.deepEqual(offered, [
    's_load_dwordx2 s[0:1], s[0:1], 0x0', 'v_mov_b32 v[vgprA], 0', 'global_load_dword v1, v0, s[0:1]', 'v_add_f32 v3, v1, v2',
    'v_mov_b32 v7, v[vgprA]', 'v_mov_b32 v9, v[vgprA]', 'global_store_dword v0, v3, s[0:1]', 's_endpgm',
  ]);
  // offered but scanned: the one beside a label (its line is read as the label first)
  assert.equal(r.copied, offered.length - 1);
  assert.equal(parseDifference(r.reused, r.again), undefined);
});

test('a reuse that does not fit the text is caught by the check loadText makes (checkFast)', () => {
  const l = loadText(example, 'example.s');
  const p = l.program as ParsedProgram;
  const origins = new LineOrigins();
  const text = applyStatementEdits(p, emptyEdits(), origins);
  const reuse = lineReuse(p, origins)!;
  // an instruction rewritten in place with the same length: the reuse still offers the old row for its line
  const one = /\bv(\d)\b/;
  const i = [...Array(p.store.n).keys()].find((x) => !p.store.hasAux(x) && one.test(p.store.text(x)))!;
  assert.ok(i !== undefined);
  const at = p.store.tStart[i]!;
  const planted = text.slice(0, at) + p.store.text(i).replace(one, (_m, d: string) => `v${(Number(d) + 1) % 10}`) + text.slice(p.store.tEnd[i]!);
  assert.equal(planted.length, text.length);
  assert.throws(() => loadText(planted, 'example.s', { reuse, checkFast: true }), FastPathMismatch);
  // unchecked, the fault goes through (which is why emission parses with reuse only after carriedEdit)
  const wrong = loadText(planted, 'example.s', { reuse, checkFast: false });
  assert.notEqual(parseDifference(wrong.program as ParsedProgram, parseProgram(planted, 'example.s')), undefined);
});

test('the rows a parse copied take their resolutions from the earlier program, as the program resolves afresh', () => {
  for (const [name, text] of [['example.s', example], ['features.s', FEATURES]] as const) {
    const a = loadText(text, name);
    const p = a.program as ParsedProgram;
    for (let seed = 1; seed <= 6; seed++) {
      const e = randomEdits(p, seed);
      if (!carriedEdit(p, e)) continue;
      const origins = new LineOrigins();
      const edited = applyStatementEdits(p, e, origins);
      const before = resolveReuse.rows;
      // checkFast: parsed and resolved again from scratch, and compared
      const b = loadText(edited, name, { reuse: lineReuse(p, origins), reuseResolution: a.resolvedStore, checkFast: true });
      assert.ok(resolveReuse.rows - before >= (name === 'example.s' ? b.program.instructions.length * 0.6 : 1), `${name} seed ${seed}`);
      assert.equal(resolutionDifference(b.resolvedStore!, loadText(edited, name).resolvedStore!), undefined);
    }
  }
  // a wrong map of the rows (each instruction to the one before it) differs from the program resolved afresh
  const a = loadText(example, 'example.s');
  const p = a.program as ParsedProgram;
  const origins = new LineOrigins();
  const reparsed = parseProgram(applyStatementEdits(p, emptyEdits(), origins), 'example.s', { reuse: lineReuse(p, origins) });
  const shifted = reparsed.reusedFrom!.map((j) => (j > 0 ? j - 1 : j));
  const wrong = resolveProgram(reparsed, a.target, { reuse: { rs: a.resolvedStore!, from: shifted } });
  assert.notEqual(resolutionDifference(wrong.store, resolveProgram(reparsed, a.target).store), undefined);
});

test('nothing is copied from a resolution a VGPR indexing mode changed', () => {
  const text = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:', '  s_set_gpr_idx_on s2, gpr_idx(SRC0)', '  v_mov_b32 v0, v1',
    '  s_set_gpr_idx_off', '  v_add_f32 v2, v0, v0', '  s_endpgm', ''].join('\n');
  const a = loadText(text, 'idx.s');
  assert.equal(a.resolvedStore!.indexed, true);
  const p = a.program as ParsedProgram;
  const origins = new LineOrigins();
  const edited = applyStatementEdits(p, emptyEdits(), origins);
  const before = resolveReuse.rows;
  loadText(edited, 'idx.s', { reuse: lineReuse(p, origins), reuseResolution: a.resolvedStore, checkFast: true });
  assert.equal(resolveReuse.rows, before);
});
