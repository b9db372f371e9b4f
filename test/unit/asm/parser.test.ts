import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram } from '../../../src/asm/parser.js';
import { printProgram } from '../../../src/asm/printer.js';
import { expansionNote } from '../../../src/asm/program.js';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import type { Instruction, RegOperand } from '../../../src/asm/ast.js';
import { AGPR_BASE, EXEC_LO, TTMP_BASE, VCC_LO, VGPR_BASE } from '../../../src/asm/registers.js';

const at = { file: 't.s', line: 1, col: 1 };
const noSyms = () => undefined;
function insn(text: string, syms: Record<string, number> = {}): Instruction {
  return parseInstructionText(text, at, (n) => syms[n]);
}
function reg(i: Instruction, k: number): RegOperand {
  const o = i.operands[k];
  assert.ok(o && o.kind === 'reg', `operand ${k} of '${i.text}' is a register`);
  return o as RegOperand;
}

test('round trip keeps every byte: comments, CRLF, block comments, metadata, no final newline', () => {
  const text = [
    '/* header', '   spans lines */ .text', '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:xnack-"',
    'k:  ; label comment', '  v_add_u32 v0, v1, v2 // trailing', '\ts_nop 0 /// triple', '.amdgpu_metadata', '---',
    'amdhsa.kernels: # yaml', '.end_amdgpu_metadata', '  s_endpgm',
  ].join('\r\n') + '\n  s_endpgm';
  const p = parseProgram(text, 'x.s');
  assert.equal(printProgram(p), text);
  assert.deepEqual(p.instructions.map((i) => i.mnemonic), ['v_add_u32', 's_nop', 's_endpgm', 's_endpgm']);
  assert.equal(p.declaredTarget?.name, 'gfx90a');
  assert.equal(p.declaredTarget?.features, 'xnack-');
  assert.equal(p.instructions[0]!.loc.line, 5);
  assert.equal(p.instructions[0]!.loc.col, 3);
  assert.equal(p.diagnostics.length, 0);
});

test('.set symbols are evaluated in file order, chained and redefined', () => {
  const text = [
    '.set vgprA, 24', '.set vgprB, vgprA+4', 'v_mov_b32 v[vgprB], v[vgprA+1]', '.set vgprA, 40', 'x = vgprA * 2',
    'v_mov_b32 v[vgprA:vgprA+1], v[x]',
  ].join('\n');
  const p = parseProgram(text, 'x.s');
  const [a, b] = p.instructions;
  assert.equal(reg(a!, 0).first, VGPR_BASE + 28);
  assert.equal(reg(a!, 1).first, VGPR_BASE + 25);
  assert.equal(reg(b!, 0).first, VGPR_BASE + 40);
  assert.equal(reg(b!, 0).count, 2);
  assert.equal(reg(b!, 1).first, VGPR_BASE + 80);
  assert.equal(p.symbols.get('vgprB'), 28);
});

test('macros: :req, defaults, \\arg, comma or blank separated calls, nested calls, keyword args', () => {
  const text = [
    '.macro ADD dst:req, a:req, b=1', '  v_add_u32 v[\\dst], v[\\a], \\b', '.endm',
    '.macro TWICE d s', '    ADD \\d \\s', '    ADD \\d, \\d, b=7', '.endm',
    'ADD 1, 2', 'TWICE 3 4', 'ADD 5 6 s9',
  ].join('\n');
  const p = parseProgram(text, 'm.s');
  assert.equal(printProgram(p), text);
  assert.deepEqual(p.instructions.map((i) => i.operands.map((o) => o.text).join(',')), [
    'v[1],v[2],1', 'v[3],v[4],1', 'v[3],v[3],7', 'v[5],v[6],s9',
  ]);
  // Expanded instructions are located at the invocation line.
  assert.deepEqual(p.instructions.map((i) => i.loc.line), [8, 9, 9, 10]);
  const s = p.statements.find((x) => x.insn === p.instructions[1]);
  assert.equal(s?.expansion?.macro, 'ADD');
  assert.equal(s?.expansion?.macroLoc.line, 2);
});

test('macro errors name the call line', () => {
  const p = parseProgram('.macro M a:req\n s_nop \\a\n.endm\nM\n', 'e.s');
  assert.equal(p.diagnostics[0]?.loc.line, 4);
  assert.match(p.diagnostics[0]!.message, /required parameter 'a'/);
});

test('registers: ranges, expressions, acc/a, ttmp, specials, lists', () => {
  const i = insn('v_mfma_f32_4x4x1f32 acc[0:3], v[2+1], a5, acc[4:7]');
  assert.equal(reg(i, 0).first, AGPR_BASE);
  assert.equal(reg(i, 0).count, 4);
  assert.equal(reg(i, 1).first, VGPR_BASE + 3);
  assert.equal(reg(i, 2).first, AGPR_BASE + 5);
  const j = insn('s_and_saveexec_b64 s[4:5], vcc');
  assert.equal(reg(j, 1).first, VCC_LO);
  assert.equal(reg(j, 1).count, 2);
  assert.equal(reg(insn('s_mov_b64 exec, ttmp[4:5]'), 0).first, EXEC_LO);
  assert.equal(reg(insn('s_mov_b64 exec, ttmp[4:5]'), 1).first, TTMP_BASE + 4);
  const l = insn('s_load_dwordx2 [s0, s1], s[2:3], 0x10');
  assert.equal(reg(l, 0).count, 2);
  assert.equal(l.operands[2]!.kind, 'imm');
});

test('operands without commas; greedy expressions; modifiers', () => {
  const a = insn('v_add_co_u32 v[4] vcc -1 v[5]');
  assert.deepEqual(a.operands.map((o) => o.kind), ['reg', 'reg', 'imm', 'reg']);
  const b = insn('s_mov_b32 s0, 4 -1');
  assert.equal(b.operands.length, 2);
  assert.equal((b.operands[1] as { value: number }).value, 3);
  const c = insn('buffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen offset:16 glc slc');
  assert.deepEqual(c.operands.map((o) => o.kind), ['reg', 'reg', 'reg', 'imm']);
  assert.deepEqual(c.modifiers.map((m) => m.name), ['offen', 'offset', 'glc', 'slc']);
  assert.equal(c.modifiers[1]!.num, 16);
  const d = insn('v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:0');
  assert.equal(d.suffix, 'dpp');
  assert.equal(d.base, 'v_mov_b32');
  assert.deepEqual(d.modifiers[0]!.list, [1, 0, 3, 2]);
  const e = insn('v_pk_fma_f16 v0, -v1, |v2|, -|v3| op_sel:[0,1,0] op_sel_hi:[1,1,1] clamp');
  assert.deepEqual(e.operands.map((o) => (o as RegOperand).mods), [undefined, { neg: true }, { abs: true }, { neg: true, abs: true }]);
  const f = insn('global_load_dword v1, v[2:3], off');
  assert.equal(f.operands[2]!.kind, 'off');
  const g = insn('v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3');
  assert.deepEqual(g.modifiers.map((m) => [m.name, m.num]), [['cbsz', 1], ['abid', 2], ['blgp', 3]]);
  const h = insn('v_cvt_f32_f16_sdwa v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1');
  assert.deepEqual((h.operands[1] as RegOperand).mods, { sext: true });
  assert.equal(h.modifiers[2]!.value, 'WORD_1');
  const k = insn('s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)');
  assert.equal(k.operands[1]!.kind, 'func');
  const m = insn('s_cbranch_scc1 .LBB0_2');
  assert.equal(m.operands[0]!.kind, 'expr');
  const n = insn('v_mov_b32 v0, src_shared_base');
  assert.equal(n.operands[1]!.kind, 'const');
  const q = insn('v_mov_b32 v0, 1.0');
  assert.deepEqual([q.operands[1]!.kind, (q.operands[1] as { float: boolean }).float], ['imm', true]);
  const r = insn('s_add_u32 s0, s0, sym@rel32@lo+4');
  assert.deepEqual((r.operands[2] as { symbols: string[] }).symbols, ['sym@rel32@lo']);
});

test('scc is the cache-policy modifier on vector memory instructions and the source src_scc elsewhere (as llvm-mc 22 reads them)', () => {
  for (const t of ['v_mov_b32 v0, scc', 's_mov_b32 s6, scc', 'v_add_f32 v0, scc, v1']) {
    const i = insn(t);
    assert.equal(i.modifiers.length, 0, t);
    const o = i.operands.find((x) => x.kind === 'const');
    assert.ok(o && o.kind === 'const' && o.name === 'src_scc', t);
  }
  for (const t of ['buffer_load_dword v1, off, s[0:3], 0 scc', 'buffer_load_dword v1, off, s[0:3], 0, scc', 'global_load_dword v1, v[2:3], off scc']) {
    assert.deepEqual(insn(t).modifiers.map((m) => m.name), ['scc'], t);
  }
});

test('a16 is AGPR 16 except on image instructions; symbolic format lists', () => {
  const a = insn('v_accvgpr_write_b32 a16, v0');
  assert.equal(reg(a, 0).first, AGPR_BASE + 16);
  assert.equal(a.modifiers.length, 0);
  const b = insn('image_load v[0:3], v[4:5], s[8:15] dmask:0xf a16');
  assert.deepEqual(b.modifiers.map((m) => m.name), ['dmask', 'a16']);
  const c = insn('buffer_store_dword v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]');
  assert.equal(c.modifiers[0]!.name, 'format');
  assert.equal(c.modifiers[0]!.list, undefined);
  assert.throws(() => insn('v_dot2_f32_f16 v0, v1, v2, v3 op_sel:[,0]'), /unknown token/);
  assert.throws(() => insn('v_dot2_f32_f16 v0, v1, v2, v3 op_sel:[0,2]'), /invalid op_sel value/);
  assert.throws(() => insn('v_dot2_f32_f16 v0, v1, v2, v3 op_sel:0'), /left square bracket/);
});

test('s_waitcnt in every spelling', () => {
  const w = (t: string) => insn(t).operands[0] as { vmcnt?: number; expcnt?: number; lgkmcnt?: number };
  assert.deepEqual([w('s_waitcnt 0').vmcnt, w('s_waitcnt 0').lgkmcnt, w('s_waitcnt 0').expcnt], [0, 0, 0]);
  const a = w('s_waitcnt vmcnt(3) lgkmcnt(0)');
  assert.deepEqual([a.vmcnt, a.lgkmcnt, a.expcnt], [3, 0, undefined]);
  const b = w('s_waitcnt lgkmcnt(1) & vmcnt(2)');
  assert.deepEqual([b.vmcnt, b.lgkmcnt], [2, 1]);
  const c = w('s_waitcnt vmcnt(4), expcnt(1)');
  assert.deepEqual([c.vmcnt, c.expcnt], [4, 1]);
  // 0xc07f: vmcnt 63 (bits 3:0 = 0xf, 15:14 = 3), expcnt 7, lgkmcnt 0
  const d = w('s_waitcnt 0xc07f');
  assert.deepEqual([d.vmcnt, d.expcnt, d.lgkmcnt], [63, 7, 0]);
  // llvm-mc 22 takes a counter written twice and encodes the last value (vmcnt(2): 0x0f72)
  assert.equal(w('s_waitcnt vmcnt(1) vmcnt(2)').vmcnt, 2);
  assert.throws(() => insn('s_waitcnt vmcnt(64)'), /too large value for vmcnt/);
  assert.throws(() => insn('s_waitcnt lgkmcnt(16)'), /too large value for lgkmcnt/);
  assert.throws(() => insn('s_waitcnt expcnt(8)'), /too large value for expcnt/);
  assert.equal(w('s_waitcnt lgkmcnt_sat(16)').lgkmcnt, 15);
});

test('syntax errors carry line and column', () => {
  const p = parseProgram('s_nop 0\n  v_add_u32 v0, v1, v[3:2]\n', 'bad.s');
  assert.equal(p.diagnostics.length, 1);
  assert.equal(p.diagnostics[0]!.loc.line, 2);
  assert.match(p.diagnostics[0]!.message, /invalid register range/);
  assert.throws(() => parseProgram('v_mov_b32 v0, v[undefined_sym]\n', 'u.s', { throwOnError: true }), (e: Error & { loc?: { line: number } }) => {
    assert.match(e.message, /undefined symbol 'undefined_sym'/);
    assert.equal(e.loc?.line, 1);
    return true;
  });
});

test('kernels, descriptors, raw .long words', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.type k,@function', 'k:', '  s_load_dword s0, s[0:1], 0',
    '  s_endpgm', '.Lfunc_end0:', '.type f,@function', 'f:', '  .long 0xbf810000', '  .long 0xbf810000',
    '.rodata', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 32', '  .amdhsa_next_free_sgpr 16', '  .amdhsa_accum_offset 8',
    '.end_amdhsa_kernel',
  ].join('\n');
  const p = parseProgram(text, 'k.s');
  assert.deepEqual(p.kernels.map((k) => [k.name, k.kind]), [['k', 'kernel'], ['f', 'function']]);
  assert.deepEqual(p.kernels[0]!.descriptor?.values, { next_free_vgpr: 32, next_free_sgpr: 16, accum_offset: 8 });
  assert.equal(p.rawWords, 2);
  void noSyms;
});

test('modifier values: an expression goes on across blanks around a binary operator, as llvm-mc reads it', () => {
  const off = (text: string, syms: Record<string, number> = {}) => insn(text, syms).modifiers.find((m) => m.name === 'offset');
  assert.equal(off('buffer_load_dword v1, v2, s[4:7], 0 offen offset:1 * k_s', { k_s: 64 })?.num, 64);
  assert.equal(off('buffer_load_dword v1, v2, s[4:7], 0 offen offset:4 + 4')?.num, 8);
  assert.equal(off('ds_read_b32 v1, v2 offset:4 * 2')?.num, 8);
  assert.equal(off('buffer_load_dword v1, v2, s[4:7], 0 offen offset: 0x400 * 1')?.num, 1024);
  assert.equal(off('ds_read_b32 v1, v2 offset:4+ 4')?.num, 8);
  // a word after a blank is the next item
  const i = insn('buffer_load_dword v1, v2, s[4:7], 0 offen offset:4 sc0');
  assert.deepEqual(i.modifiers.map((m) => [m.name, m.num]), [['offen', undefined], ['offset', 4], ['sc0', undefined]]);
});

test('dotted names: a macro called .name is expanded, `.name = expr` assigns, an unknown directive is an error (llvm-mc 22)', () => {
  const text = ['.macro .load_v1 addr', '  global_load_dword v1, v[\\addr:\\addr+1], off', '.endm', '  .load_v1 2',
    '.cnt = 0', '.rept 2', '  v_mov_b32 v[.cnt], 0', '  .cnt = .cnt + 1', '.endr', '  s_endpgm', ''].join('\n');
  const p = parseProgram(text, 'd.s');
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(p.instructions.map((x) => x.text), ['global_load_dword v1, v[2:2+1], off', 'v_mov_b32 v[.cnt], 0', 'v_mov_b32 v[.cnt], 0', 's_endpgm']);
  assert.equal(printProgram(p), text, 'printed as written');
  const bad = parseProgram('.foo 1\n.word 3\n.dc.l 4\n.cfi_startproc\ns_endpgm\n', 'u.s');
  assert.deepEqual(bad.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.loc.line, d.message.split(' (')[0]]), [[1, 'unknown directive .foo'], [2, 'unknown directive .word']]);
  // llvm-mc knows .amd_amdgpu_isa under the PAL triple: the error says what the file is (a new user's trial on llc's PAL output)
  const pal = parseProgram('s_endpgm\n.amd_amdgpu_isa "amdgcn-amd-amdpal--gfx942"\n', 'p.s');
  assert.match(pal.diagnostics.find((d) => d.severity === 'error')!.message, /^directive \.amd_amdgpu_isa names a PAL \(graphics\) target: Conductor reads HSA code objects/);
});

test('a symbol spelled like a register, with a relocation specifier, is the symbol (llc names a global v0 so; llvm-mc 22 assembles it)', () => {
  const p = parseProgram('s_getpc_b64 s[0:1]\ns_add_u32 s0, s0, v0@rel32@lo+4\ns_addc_u32 s1, s1, s1@rel32@hi+12\ns_endpgm\n', 'r.s');
  assert.deepEqual(p.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.deepEqual(p.instructions.slice(1, 3).map((x) => x.operands[2]!.kind), ['expr', 'expr']);
  assert.deepEqual(p.instructions[1]!.operands.slice(0, 2).map((o) => o.kind), ['reg', 'reg']);
});

test('an expansion note names a macro whose name begins with a dot as a macro, a .rept as a block', () => {
  const p = parseProgram(['.macro .fma2 d', '  v_fmac_f32 v\\d, v1, v2', '.endm', '.fma2 0', '.rept 2', '  v_mov_b32 v3, 0', '.endr', 's_endpgm', ''].join('\n'), 'm.s');
  const notes = p.instructions.map((x) => x.stmt).map((k) => expansionNote(p, k)?.message);
  assert.deepEqual(notes, ["expanded from this line of macro '.fma2'", 'expanded from this line of a .rept block', 'expanded from this line of a .rept block', undefined]);
});

test('.amdgcn_target: features after the processor only as :sramecc± then :xnack± (llvm-mc 22)', () => {
  const errs = (id: string) => parseProgram(`.amdgcn_target "${id}"\ns_endpgm\n`, 't.s').diagnostics.filter((d) => d.severity === 'error');
  for (const ok of ['amdgcn-amd-amdhsa--gfx908', 'amdgcn-amd-amdhsa--gfx908:sramecc+', 'amdgcn-amd-amdhsa--gfx942:xnack-', 'amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+']) {
    assert.deepEqual(errs(ok), [], ok);
  }
  for (const bad of ['amdgcn-amd-amdhsa--gfx908+sram-ecc', 'amdgcn-amd-amdhsa--gfx908:xnack-:sramecc+', 'amdgcn-amd-amdhsa--gfx942:xnack']) {
    const e = errs(bad);
    assert.equal(e.length, 1, bad);
    assert.match(e[0]!.message, /target id .* is not one llvm-mc takes/);
    assert.equal(e[0]!.loc.line, 1);
  }
});
