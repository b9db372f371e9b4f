/**
 * Forms llvm-mc 22 accepts that hand-written kernels use (MIOpen's among them): the symbols the
 * AMDGPU parser predefines from the target, `.altmacro`, `.if(expr)` and `macro(args)` without a
 * blank, metadata blocks in macro bodies; and data directives llvm-mc refuses. The expected
 * instructions and messages below are llvm-mc's for the same text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram, type ParseOptions } from '../../../src/asm/parser.js';
import { printProgram } from '../../../src/asm/printer.js';
import type { Program } from '../../../src/asm/ast.js';

function parse(lines: string[], opts: ParseOptions = {}): Program {
  const text = lines.join('\n') + '\n';
  const p = parseProgram(text, 'f.s', opts);
  assert.equal(printProgram(p), text, 'printed as written');
  return p;
}
function insns(p: Program): string[] {
  return p.instructions.map((i) => i.text);
}
function errors(p: Program): string[] {
  return p.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.loc.line}:${d.loc.col}: ${d.message}`);
}

test('.amdgcn.gfx_generation_number/_minor/_stepping come from the target (--arch, else .amdgcn_target)', () => {
  const body = [
    '.if .amdgcn.gfx_generation_number == 9', '  s_mov_b32 s0, .amdgcn.gfx_generation_minor', '  s_mov_b32 s1, .amdgcn.gfx_generation_stepping',
    '.else', '  .error "not gfx9"', '.endif',
  ];
  const a = parse(body, { processor: 'gfx906' });
  assert.deepEqual(errors(a), []);
  assert.deepEqual(insns(a), ['s_mov_b32 s0, .amdgcn.gfx_generation_minor', 's_mov_b32 s1, .amdgcn.gfx_generation_stepping']);
  assert.deepEqual([a.symbols.get('.amdgcn.gfx_generation_minor'), a.symbols.get('.amdgcn.gfx_generation_stepping')], [0, 6]);
  const b = parse(body, { processor: 'gfx90a' });
  assert.deepEqual([b.symbols.get('.amdgcn.gfx_generation_number'), b.symbols.get('.amdgcn.gfx_generation_minor'), b.symbols.get('.amdgcn.gfx_generation_stepping')], [9, 0, 10]);
  const c = parse(['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', ...body]);
  assert.deepEqual(errors(c), []);
  assert.deepEqual([c.symbols.get('.amdgcn.gfx_generation_minor'), c.symbols.get('.amdgcn.gfx_generation_stepping')], [4, 2]);
  // without a target they are unknown: the condition cannot be evaluated
  assert.match(errors(parse(body))[0]!, /^1:1: cannot evaluate the condition of \.if/);
  // they are constants: llvm-mc refuses to redefine them
  assert.deepEqual(errors(parse(['.set .amdgcn.gfx_generation_number, 9'], { processor: 'gfx906' })),
    ["1:1: redefinition of '.amdgcn.gfx_generation_number' (llvm-mc defines it from the target)"]);
});

test('.amdgcn.next_free_vgpr/_sgpr count the VGPRs and SGPRs named so far, as a descriptor reads them', () => {
  // a hand-written kernel sizes its descriptor with the symbols llvm-mc keeps
  // (AMDGPUAsmParser::updateGprCountSymbols): v7 -> 8, s[20:21] -> 22; AGPRs, VCC, EXEC, M0 not counted
  const kernel = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  v_mov_b32 v7, s9', '  s_mov_b64 s[20:21], vcc', '  s_mov_b64 exec, s[4:5]', '  s_mov_b32 m0, 0', '  v_accvgpr_write_b32 a9, v1', '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_accum_offset 8',
    '  .amdhsa_next_free_vgpr .amdgcn.next_free_vgpr', '  .amdhsa_next_free_sgpr .amdgcn.next_free_sgpr', '.end_amdhsa_kernel',
  ];
  const p = parse(kernel);
  assert.deepEqual(p.diagnostics.map((d) => d.message), []);
  const d = p.kernels[0]!.descriptor!;
  assert.deepEqual([d.values['next_free_vgpr'], d.values['next_free_sgpr']], [8, 22]);
  // where it stands: a second kernel after a .set counts from the value set
  const two = parse([
    '  v_mov_b32 v7, s9', '.set a, .amdgcn.next_free_vgpr', '.set .amdgcn.next_free_vgpr, 0', '  v_mov_b32 v2, s3', '  s_mov_b32 s4, .amdgcn.next_free_vgpr',
  ], { processor: 'gfx90a' });
  assert.deepEqual(errors(two), []);
  assert.deepEqual([two.symbols.get('a'), two.symbols.get('.amdgcn.next_free_vgpr'), two.symbols.get('.amdgcn.next_free_sgpr')], [8, 3, 10]);
  assert.deepEqual(insns(two).slice(-1), ['s_mov_b32 s4, .amdgcn.next_free_vgpr']);
  assert.equal(two.instructions[2]!.operands[1]!.kind === 'imm' ? two.instructions[2]!.operands[1]!.value : undefined, 3);
  // operands are read left to right: the count an operand reads includes the registers before it
  const imm = (line: string) => {
    const o = parse(['  v_mov_b32 v3, 0', line], { processor: 'gfx942' }).instructions[1]!.operands.find((x) => x.kind === 'imm');
    return o?.kind === 'imm' ? o.value : undefined;
  };
  assert.equal(imm('  v_mov_b32 v9, .amdgcn.next_free_vgpr'), 10);
  assert.equal(imm('  v_add_u32 v1, .amdgcn.next_free_vgpr, v20'), 4);
});

test('.altmacro: %expr is its value, <text> a string, parameters are named without \\ and & joins', () => {
  const p = parse([
    '.altmacro',
    '.macro m n, vv',
    '  s_mov_b32 s0, n+1',
    '  s_mov_b32 s1, n&1',
    '  s_mov_b32 s2, vn',
    '  s_mov_b32 s3, \\vv&0',
    '.endm',
    '.set vn, 9',
    '.set c, 7',
    '  m 3, 5',
    '  m %c*2, <4>',
    '  m % (c - 8), <6>',
    '.irp q, 7',
    '  s_mov_b32 s4, q',
    '.endr',
    '.noaltmacro',
    '.macro k n',
    '  s_mov_b32 s5, n',
    '.endm',
    '  k 3',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(insns(p), [
    's_mov_b32 s0, 3+1', 's_mov_b32 s1, 31', 's_mov_b32 s2, vn', 's_mov_b32 s3, 50',
    's_mov_b32 s0, 14+1', 's_mov_b32 s1, 141', 's_mov_b32 s2, vn', 's_mov_b32 s3, 40',
    's_mov_b32 s0, -1+1', 's_mov_b32 s1, -11', 's_mov_b32 s2, vn', 's_mov_b32 s3, 60',
    's_mov_b32 s4, 7',
    // after .noaltmacro a parameter needs its backslash
    's_mov_b32 s5, n',
  ]);
});

test('.altmacro: %expr that is not a number where the call stands is refused, and the macro is not expanded', () => {
  const p = parse(['.altmacro', '.macro m n', '  s_mov_b32 s0, \\n', '.endm', '  m %undefined_sym']);
  assert.deepEqual(errors(p), ["5:3: expected absolute expression: the .altmacro argument '%undefined_sym' must be a number where the call stands"]);
  assert.deepEqual(insns(p), []);
});

test('.if(expr) and .elseif(expr) without a blank after the name', () => {
  const p = parse(['.set flag, 0', '.if(flag)', '  s_mov_b32 s0, 1', '.elseif(flag + 1)', '  s_mov_b32 s0, 2', '.else', '  s_mov_b32 s0, 3', '.endif']);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(insns(p), ['s_mov_b32 s0, 2']);
});

test('a macro called with its argument in parentheses: static_assert(1 == 1)', () => {
  const def = ['.macro static_assert fufufu', '  .if !\\fufufu', '    .error "static assert failed"', '  .endif', '.endm'];
  const ok = parse([...def, '  static_assert(1 == 1)', '  s_endpgm']);
  assert.deepEqual(errors(ok), []);
  assert.deepEqual(insns(ok), ['s_endpgm']);
  const bad = parse([...def, '  static_assert(1 == 0)', '  s_endpgm']);
  assert.deepEqual(errors(bad), ['6:3: static assert failed']);
});

test('an .amdgpu_metadata block in a macro body is metadata, not instructions', () => {
  const p = parse([
    '.macro METADATA sc',
    '.amdgpu_metadata',
    '---',
    'amdhsa.kernels:',
    '  - .name: k',
    '    .sgpr_count: \\sc',
    '...',
    '.end_amdgpu_metadata',
    '.endm',
    '  s_endpgm',
    'METADATA 8',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(insns(p), ['s_endpgm']);
  assert.deepEqual(p.statements.filter((s) => s.kind === 'directive' && s.expansion).map((s) => [s.name, s.loc.line]),
    [['.amdgpu_metadata', 11], ['.end_amdgpu_metadata', 11]]);
});

test('a data directive that subtracts a symbol defined nowhere is refused at its first operator (llvm-mc -filetype=obj)', () => {
  const p = parse([
    'k:',
    '  s_endpgm',
    '.Lend:',
    '.section .debug_info,"",@progbits',
    '    .quad .Ltmp1',
    '    .long .Ltmp2-.Ltmp1',
    '    .long .Lend-.Lundef, k - .Lend',
    '    .long 4+.Lend-.Lu7, x-y',
    '    .long (.Lend-.Lu8)+4',
    '1:  .long .Lend-k',
  ]);
  assert.deepEqual(errors(p), [
    "6:17: symbol '.Ltmp1' can not be undefined in a subtraction expression",
    "7:16: symbol '.Lundef' can not be undefined in a subtraction expression",
    "8:12: symbol '.Lu7' can not be undefined in a subtraction expression",
    "8:26: symbol 'y' can not be undefined in a subtraction expression",
    "9:23: symbol '.Lu8' can not be undefined in a subtraction expression",
  ]);
});

test('a .set naming symbols set later is evaluated where it is used, each name bound where the .set stands (llvm-mc 22)', () => {
  const p = parse([
    'gid = (w + wpw - 1) / wpw', // MIOpen conv1x1u_stride2.s: wpw is set further down
    'w = 28',
    'wpw = 4',
    'wpw = 16', // a new definition: gid keeps the first (7)
    '.if gid == 7', '  s_mov_b32 s0, gid', '.endif',
    'c = 1', 'd = c + 1', 'c = 5', // c had a value: d = 2
    '.if d == 2', '  s_mov_b32 s1, d', '.endif',
    'h = k + 1', 'h = h + 1', 'k = 5', // the second h names the first: 7
    '.rept h - 6', '  s_nop 0', '.endr',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(insns(p), ['s_mov_b32 s0, gid', 's_mov_b32 s1, d', 's_nop 0']);
  assert.deepEqual([p.symbols.get('gid'), p.symbols.get('d'), p.symbols.get('h'), p.symbols.get('wpw')], [7, 2, 7, 16]);
});

test('a condition naming a symbol whose value needs a later one is refused there; a self-referring first .set is cyclic', () => {
  const a = parse(['a = b + 1', '.if a == 6', '  s_nop 0', '.endif', 'b = 5', 's_endpgm']);
  assert.deepEqual(errors(a).map((e) => e.split(': ')[0]), ['2:1']);
  // llvm-mc: "cyclic dependency detected for symbol 'c'" when it writes the object (no other error)
  const b = parse(['c = c + 2', 's_endpgm']);
  assert.deepEqual(errors(b), ["1:1: cyclic dependency detected for symbol 'c'"]);
  const c = parse(['c = 1', 'c = c + 2', '.if c == 3', '  s_endpgm', '.endif']);
  assert.deepEqual(errors(c), []);
  assert.deepEqual(insns(c), ['s_endpgm']);
});

test('a kernel whose symbol and .amdhsa_kernel block a macro writes is a kernel with its descriptor (MIOpen Winograd v21)', () => {
  const p = parse([
    '.macro prolog name', '.text', '.globl \\name', '.p2align 8', '.type \\name,@function', '\\name:', '.endm',
    '.macro epilog name', '.rodata', '.p2align 6', '.amdhsa_kernel \\name',
    '  .amdhsa_next_free_vgpr 4', '  .amdhsa_next_free_sgpr 8', '.end_amdhsa_kernel', '.endm',
    '.macro wrap gen, post', '  prolog k_gfx\\gen\\()_\\post', '.endm',
    '.macro wrap_end gen, post', '  epilog k_gfx\\gen\\()_\\post', '.endm',
    'wrap 9, f2x3',
    '  v_mov_b32 v0, 0',
    '  s_endpgm',
    'wrap_end 9, f2x3',
  ], { processor: 'gfx908' });
  assert.deepEqual(errors(p), []);
  assert.deepEqual(p.kernels.map((k) => [k.name, k.kind, k.descriptor?.values.next_free_vgpr]), [['k_gfx9_f2x3', 'kernel', 4]]);
});

test('.altmacro: < opens a string only where an argument starts, not inside parentheses or after an operand', () => {
  // MIOpen's conv1x1u_bias_activ.s calls `static_assert (activ_mode <= MIOPEN_NEURON_ELU && ...)`
  // with .altmacro on (conv_common.inc): llvm-mc 22 reads one argument, the whole expression.
  const p = parse([
    '.altmacro',
    '.macro static_assert cond',
    '  .if !cond',
    '    .error "cond is false"',
    '  .endif',
    '.endm',
    '.macro m x, y',
    '  s_mov_b32 s0, x',
    '  s_mov_b32 s1, y',
    '.endm',
    '.set a, 1',
    '  static_assert (a <= 2 && a >= 0)',
    '  m (a <= 2), (a >= 0)',
    '  m 1 <= 2, 3 >= 1',
    '  m <4>, <5>',
    '  m <6> <7>',
  ]);
  assert.deepEqual(errors(p), []);
  // llvm-mc 22 on the same text: [(a <= 2)] [(a >= 0)], [1<=2] [3>=1], [4] [5], [6] [7]
  assert.deepEqual(insns(p), [
    's_mov_b32 s0, (a <= 2)', 's_mov_b32 s1, (a >= 0)',
    's_mov_b32 s0, 1<=2', 's_mov_b32 s1, 3>=1',
    's_mov_b32 s0, 4', 's_mov_b32 s1, 5',
    's_mov_b32 s0, 6', 's_mov_b32 s1, 7',
  ]);
});
