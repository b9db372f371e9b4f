/**
 * The lexer on numbers and symbols, form by form, as llvm-mc 22 reads them (each value below is
 * what `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding` encodes for the line;
 * test/oracle/llvm-mc-corpus.test.ts compares the whole probe file with llvm-mc itself).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram } from '../../../src/asm/parser.js';
import { printProgram } from '../../../src/asm/printer.js';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import { stripComments, splitLines } from '../../../src/asm/source.js';
import { loadText } from '../../../src/load.js';
import { buildCfg } from '../../../src/analysis/cfg.js';
import type { ImmOperand, Instruction } from '../../../src/asm/ast.js';

const at = { file: 't.s', line: 1, col: 1 };
function insn(text: string, syms: Record<string, number> = {}): Instruction {
  return parseInstructionText(text, at, (n) => syms[n]);
}
function imm(text: string): ImmOperand {
  const i = insn(`s_mov_b32 s0, ${text}`);
  assert.equal(i.operands.length, 2, `'${text}' is one operand`);
  const o = i.operands[1]!;
  assert.equal(o.kind, 'imm', `'${text}' evaluates`);
  return o as ImmOperand;
}
function rejects(text: string, message: RegExp): void {
  assert.throws(() => insn(`s_mov_b32 s0, ${text}`), message, text);
}

test('integer suffixes U, L, UL, LL, ULL in any case are ignored, after every radix (Tensile: 0x40000001L)', () => {
  for (const sfx of ['', 'L', 'l', 'U', 'u', 'UL', 'ul', 'uL', 'LL', 'll', 'ULL', 'ull', 'Ull']) {
    assert.equal(imm(`0x40000001${sfx}`).value, 0x40000001, `0x40000001${sfx}`);
    assert.equal(imm(`100${sfx}`).value, 100, `100${sfx}`);
    assert.equal(imm(`0b1010${sfx}`).value, 10, `0b1010${sfx}`);
    assert.equal(imm(`0777${sfx}`).value, 511, `0777${sfx}`);
  }
  const t = insn('s_mov_b32 s68, 0x40000001L');
  assert.equal(t.operands.length, 2);
  assert.equal(t.operands[1]!.text, '0x40000001L');
  assert.equal(imm('10U+1').value, 11);
  // `LU` is not a suffix: L is skipped, U is a second operand (llvm-mc: invalid operand).
  assert.equal(insn('s_mov_b32 s0, 0x40000001LU').operands.length, 3);
});

test('radixes: hexadecimal, binary, octal with a leading 0, decimal; no 0o prefix and no h/o radix suffixes', () => {
  assert.equal(imm('0X1F').value, 31);
  assert.equal(imm('0B101').value, 5);
  assert.equal(imm('017').value, 15);
  assert.equal(imm('0').value, 0);
  assert.equal(imm('00').value, 0);
  assert.equal(imm('0xffffffff').value, 0xffffffff);
  // MASM-only forms are not numbers for LLVM's AMDGPU assembler: they leave a second operand.
  for (const t of ['0o17', '017o', '0ffh', '10h']) assert.equal(insn(`s_mov_b32 s0, ${t}`).operands.length, 3, t);
  rejects('089', /invalid octal number/);
  rejects('0x', /invalid hexadecimal number/);
  rejects('0b2', /invalid binary number/);
  rejects('100000000000000000000', /does not fit in 64 bits/);
  rejects('0x1ffffffffffffffffLL', /does not fit in 64 bits/);
});

test('character literals and their escapes; a quoted ; is a character, not a comment', () => {
  assert.equal(imm("'a'").value, 97);
  assert.equal(imm("'\\n'").value, 10);
  assert.equal(imm("'\\t'").value, 9);
  assert.equal(imm("'\\''").value, 39);
  assert.equal(imm("'\\\\'").value, 92);
  assert.equal(imm("'\\q'").value, 113);
  assert.equal(imm("1+'a'").value, 98);
  rejects("'ab'", /single quote way too long/);
  const [code] = stripComments(splitLines("s_mov_b32 s0, ';' ; comment"));
  assert.equal(code, "s_mov_b32 s0, ';'");
  const p = parseProgram("s_mov_b32 s0, ';'   // 59\ns_mov_b32 s1, '\"'\n", 'c.s');
  assert.deepEqual(p.diagnostics, []);
  assert.deepEqual(p.instructions.map((i) => (i.operands[1] as ImmOperand).value), [59, 34]);
});

test('floats: 1.5, 1., .5, 1e1, 2E-1, hexadecimal 0x1.8p1; a sign right after the digits is an error', () => {
  const f = (t: string) => { const o = insn(`v_mov_b32 v0, ${t}`).operands[1] as ImmOperand; assert.equal(o.float, true, t); return o.value; };
  assert.equal(f('1.5'), 1.5);
  assert.equal(f('1.'), 1);
  assert.equal(f('.5'), 0.5);
  assert.equal(f('1e1'), 10);
  assert.equal(f('1.e1'), 10);
  assert.equal(f('2E-1'), 0.2);
  assert.equal(f('0x1.8p1'), 3);
  assert.equal(f('0x10p-4'), 1);
  assert.throws(() => insn('v_mov_b32 v0, 1.5-2'), /invalid sign in float literal/);
  assert.throws(() => insn('v_mov_b32 v0, 0x1.8'), /expected exponent part 'p'/);
  // `.5foo` is an identifier, as in LLVM's lexer.
  assert.equal(insn('v_mov_b32 v0, .5foo').operands[1]!.kind, 'expr');
});

test('quoted symbol names: labels, .type / .globl / .size, branch targets, relocations, .set', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
    '.text',
    '.globl "hazard-lookahead-implicit-def"',
    '.type "hazard-lookahead-implicit-def",@function',
    '"hazard-lookahead-implicit-def":',
    '  s_cbranch_scc1 "lbl two"',
    '  s_nop 0',
    '"lbl two": s_getpc_b64 s[4:5]',
    '  s_add_u32 s4, s4, "my func"@rel32@lo+4',
    '  s_addc_u32 s5, s5, "my func"@rel32@hi+12',
    '  s_branch "lbl two"',
    '.Lfunc_end0:',
    '  .size "hazard-lookahead-implicit-def", .Lfunc_end0-"hazard-lookahead-implicit-def"',
    '.set "my sym", 5',
    '"other sym" = "my sym" + 1',
    '',
  ].join('\n');
  const p = parseProgram(text, 'q.s');
  assert.deepEqual(p.diagnostics, []);
  assert.equal(printProgram(p), text);
  assert.deepEqual(p.kernels.map((k) => [k.name, k.kind]), [['hazard-lookahead-implicit-def', 'function']]);
  const labels = p.statements.filter((s) => s.kind === 'label');
  assert.deepEqual(labels.map((s) => [s.text, s.name]), [
    ['"hazard-lookahead-implicit-def"', 'hazard-lookahead-implicit-def'], ['"lbl two"', 'lbl two'], ['.Lfunc_end0', '.Lfunc_end0'],
  ]);
  assert.equal(p.symbols.get('my sym'), 5);
  assert.equal(p.symbols.get('other sym'), 6);
  const add = p.instructions.find((i) => i.mnemonic === 's_add_u32')!;
  assert.deepEqual(add.operands[2], { kind: 'expr', text: '"my func"@rel32@lo+4', symbols: ['my func@rel32@lo'] });
  // The branches reach their quoted labels.
  const l = loadText(text, 'q.s');
  const cfg = buildCfg(l.program, l.program.kernels[0]!);
  const b0 = cfg.blocks[0]!;
  assert.deepEqual(b0.succs.map((s) => cfg.blocks[s]!.labels), [['lbl two'], []]);
  const two = cfg.blocks.findIndex((b) => b.labels.includes('lbl two'));
  assert.ok(cfg.blocks[cfg.blocks.length - 1]!.succs.includes(two), 's_branch "lbl two" loops back');
});

test('numeric local labels: 1: defined again and again, 1b and 1f name the nearest one', () => {
  const text = [
    'k:', '1:', '  s_add_u32 s0, s0, 1', '  s_cbranch_scc0 1b', '  s_branch 1f', '  s_nop 1', '1: s_cbranch_scc1 1b', '  s_endpgm', '',
  ].join('\n');
  const l = loadText(text, 'n.s', { arch: 'gfx90a' });
  assert.deepEqual(l.program.diagnostics, []);
  assert.equal(printProgram(l.program), text);
  const cfg = buildCfg(l.program, l.program.kernels.find((k) => k.name === '(top level)') ?? l.program.kernels[0]!);
  const blockOfLabel = (name: string) => cfg.blocks.findIndex((b) => b.labels.includes(name));
  const first = blockOfLabel('1#1');
  const second = blockOfLabel('1#2');
  assert.ok(first >= 0 && second > first, 'two distinct local labels');
  assert.ok(cfg.blocks[first]!.succs.includes(first), '1b loops back to the first 1:');
  assert.ok(cfg.blocks.some((b) => b.succs.includes(second) && b.id < second), '1f reaches the second 1:');
  assert.ok(cfg.blocks[second]!.succs.includes(second), 'the second 1b names the second 1:');
  const undefinedRefs = parseProgram('s_branch 2b\ns_branch 3f\n', 'u.s');
  assert.deepEqual(undefinedRefs.diagnostics.map((d) => [d.loc.line, d.message]), [
    [1, "directional label '2b' names no numeric label 2: before it"],
    [2, "directional label '3f' names no numeric label after it"],
  ]);
});

test('a label defined twice and a branch to a label the file does not define are errors, as llvm-mc says', () => {
  const p = parseProgram(['.L1:', '  v_mov_b32 v0, 0', '.L1:', '  s_cbranch_scc1 .L1', '  s_branch .Lnowhere', '  s_cbranch_scc0 other_fn', '  s_endpgm', ''].join('\n'), 'd.s');
  assert.deepEqual(p.diagnostics.map((d) => [d.loc.line, d.severity, d.message]), [
    [3, 'error', "symbol '.L1' is already defined"],
    [5, 'error', "undefined label '.Lnowhere'"],
    [6, 'error', "undefined label 'other_fn'"],
  ]);
  // labels defined after the branch, directional labels and labels of other functions are fine
  assert.deepEqual(parseProgram(['s_branch .Lend', '1: s_cbranch_scc0 1b', '.Lend:', 'f:', 's_branch k', 'k:', 's_endpgm', ''].join('\n'), 'ok.s').diagnostics, []);
});

test('lit(N): the immediate N, written as a 32-bit literal, where llvm-mc 22 takes it', () => {
  assert.deepEqual([imm('lit(1.5)').value, imm('lit(1.5)').float], [1.5, true]);
  assert.equal(imm('lit(0x12345678)').value, 0x12345678);
  assert.equal(imm('lit(-1)').value, -1);
  assert.equal(imm('lit (2+3)').value, 5);
  assert.equal(insn('v_mov_b32 v0, lit(1.5)').operands[1]!.text, 'lit(1.5)');
  const ok = loadText('v_add_f32 v0, lit(1.0), v1\nv_mov_b32 v0, lit(1.5)\ns_endpgm\n', 'l.s', { arch: 'gfx906' });
  assert.equal(ok.resolved.length, 3);
  for (const bad of ['v_mov_b32 v0, lit(lit(1))', 'v_mov_b32 v0, lit(v1)', 'v_mov_b32 v0, -lit(1.0)', 'v_mov_b32 v0, |lit(1.0)|', 'v_mov_b32 v0, lit()']) {
    assert.throws(() => insn(bad), /lit\(\)|unknown token|invalid operand|not a valid operand/, bad);
  }
  // a 64-bit operand or an SDWA source takes no lit()
  for (const bad of ['v_add_f64 v[0:1], lit(1.0), v[2:3]', 's_mov_b64 s[0:1], lit(1.0)', 'v_mov_b32_sdwa v0, lit(1)']) {
    assert.throws(() => loadText(`${bad}\ns_endpgm\n`, 'l.s', { arch: 'gfx942' }), /literal|invalid operand/, bad);
  }
});

test('integer expressions wrap at 64 bits and >> is a logical shift, as MCExpr evaluates them', async () => {
  const { evalExpr } = await import('../../../src/asm/expr.js');
  const none = () => undefined;
  // each value measured: llvm-mc 22 -mcpu=gfx906 -show-encoding on `m = EXPR` then `s_mov_b32 s0, m`
  assert.equal(evalExpr('((0xFFFFFFFFFFFF << 16) + 0xFFFF) >> 32', none), 0xffffffff); // encodes -1 (MIOpen conv1x1u's exec mask)
  assert.equal(evalExpr('(1 << 63) >> 62', none), 2);
  assert.equal(evalExpr('0x8000000000000000 * 2', none), 0);
  assert.equal(evalExpr('-16 >> 2', none), Number(0x3ffffffffffffffcn)); // refused by llvm-mc as an operand: no 32-bit literal
  assert.equal(evalExpr('-1 >> 1', none), Number(0x7fffffffffffffffn));
  assert.equal(evalExpr('7 >> 1', none), 3);
  assert.equal(evalExpr('(1 << 40) >> 3', none), 2 ** 37);
});
