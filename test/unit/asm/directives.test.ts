/**
 * Conditional assembly (.if family) and repeat blocks (.rept / .irp / .irpc): expanded for
 * analysis as llvm-mc 22 expands them (the expected sequences below are llvm-mc's output for the
 * same text), printed as written, and written out expanded when an edit touches an expansion.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram } from '../../../src/asm/parser.js';
import { printProgram } from '../../../src/asm/printer.js';
import { loadText } from '../../../src/load.js';
import { addInsert, applyStatementEdits, emptyEdits } from '../../../src/check/edit.js';
import { fixLoaded } from '../../../src/check/fix.js';
import { checkLoaded } from '../../../src/check/check.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, applyCommand, isFailure } from '../../../src/schedule/state.js';
import { parseCommand } from '../../../src/schedule/commands.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import type { Program } from '../../../src/asm/ast.js';

/** The instructions of the expanded program, as written after substitution. */
function expanded(p: Program): string[] {
  return p.instructions.map((i) => i.text);
}
function parse(lines: string[]): Program {
  const text = lines.join('\n') + '\n';
  const p = parseProgram(text, 'd.s');
  assert.equal(printProgram(p), text, 'printed as written');
  return p;
}
function errors(p: Program): [number, string][] {
  return p.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.loc.line, d.message]);
}

test('.if / .elseif / .else / .endif on .set values; the inactive branches are not read at all', () => {
  const p = parse([
    '.set A, 3',
    '.if A == 3', 's_mov_b32 s1, 1', '.elseif A == 4', 's_mov_b32 s1, 2', '.else', 'this is not assembly (', '.endif',
    '.if A > 5', 's_mov_b32 s2, 1', '.elseif A > 2', 's_mov_b32 s2, 2', '.elseif A > 1', 's_mov_b32 s2, 3', '.else', 's_mov_b32 s2, 4', '.endif',
    '.if 0', 's_mov_b32 s3, 1', '.else', 's_mov_b32 s3, 2', '.endif',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), ['s_mov_b32 s1, 1', 's_mov_b32 s2, 2', 's_mov_b32 s3, 2']);
  // The directives around active code are statements (code does not move across them); skipped lines have none.
  assert.deepEqual(p.statements.filter((s) => s.kind === 'directive' && s.name!.startsWith('.if')).map((s) => s.loc.line), [2, 9, 18]);
  assert.equal(p.statements.some((s) => s.loc.line === 7), false);
});

test('nested conditionals: an inner .if of an inactive branch stays inactive whatever its condition', () => {
  const p = parse([
    '.if 0', '.if 1', 's_mov_b32 s10, 99', '.else', 's_mov_b32 s10, 98', '.endif', '.else', 's_mov_b32 s10, 1',
    '.if 1', '.if 0', 's_nop 7', '.else', 's_mov_b32 s10, 2', '.endif', '.endif', '.endif',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), ['s_mov_b32 s10, 1', 's_mov_b32 s10, 2']);
});

test('.ifdef / .ifndef / .ifnotdef: .set symbols and labels defined before, not labels defined after', () => {
  const p = parse([
    '.set A, 3', '.set L, lab2 - lab',
    '.ifdef A', 's_mov_b32 s2, 1', '.endif',
    '.ifdef B', 's_mov_b32 s2, 2', '.endif',
    '.ifndef B', 's_mov_b32 s2, 3', '.endif',
    '.ifnotdef B', 's_mov_b32 s2, 4', '.endif',
    '.ifdef lab', 's_mov_b32 s2, 5', '.endif',
    'lab:',
    '.ifdef lab', 's_mov_b32 s2, 6', '.endif',
    '.ifdef L', 's_mov_b32 s2, 7', '.endif',
    '.ifdef "lab"', 's_mov_b32 s2, 8', '.endif',
    'lab2:',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), ['s_mov_b32 s2, 1', 's_mov_b32 s2, 3', 's_mov_b32 s2, 4', 's_mov_b32 s2, 6', 's_mov_b32 s2, 7', 's_mov_b32 s2, 8']);
});

test('.ifeq / .ifne / .ifgt / .ifge / .iflt / .ifle, .ifb / .ifnb, .ifc / .ifnc, .ifeqs / .ifnes', () => {
  const p = parse([
    '.set A, 3',
    '.ifeq A-3', 's_mov_b32 s11, 1', '.endif', '.ifne A-3', 's_nop 1', '.endif',
    '.ifgt A', 's_mov_b32 s11, 2', '.endif', '.ifge -1', 's_nop 2', '.endif', '.iflt -1', 's_mov_b32 s11, 3', '.endif',
    '.ifle 0', 's_mov_b32 s11, 4', '.endif',
    '.ifb', 's_mov_b32 s11, 5', '.endif', '.ifnb x', 's_mov_b32 s11, 6', '.endif', '.ifb x', 's_nop 3', '.endif',
    '.ifc a, a', 's_mov_b32 s11, 7', '.endif', '.ifnc a,b', 's_mov_b32 s11, 8', '.endif', '.ifc a,b', 's_nop 4', '.endif',
    '.ifeqs "a", "a"', 's_mov_b32 s11, 9', '.endif', '.ifnes "a", "b"', 's_mov_b32 s11, 10', '.endif',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((v) => `s_mov_b32 s11, ${v}`));
});

test('conditional errors: unmatched .endif / .else, an unclosed .if, a condition that does not evaluate', () => {
  assert.deepEqual(errors(parseProgram('.endif\n', 'e.s')), [[1, '.endif without a matching .if']]);
  assert.deepEqual(errors(parseProgram('.else\n', 'e.s')), [[1, '.else without a matching .if (or after .else)']]);
  assert.deepEqual(errors(parseProgram('.if 1\n.else\n.else\n.endif\n', 'e.s')), [[3, '.else without a matching .if (or after .else)']]);
  assert.deepEqual(errors(parseProgram('.if 1\n.if 0\n.endif\ns_nop 0\n', 'e.s')).map((e) => e[0]), [1]);
  const p = parseProgram('.if later > 1\ns_nop 0\n.endif\n.set later, 2\n', 'e.s');
  assert.match(errors(p)[0]![1], /cannot evaluate the condition of \.if 'later > 1'/);
  // a condition in error reads none of its branches (not the .else: the error is no 'false')
  const q = parseProgram('.if nosuch == 1\ns_nop 1\n.elseif 1\ns_nop 2\n.else\ns_nop 3\n.endif\ns_nop 4\n', 'e.s');
  assert.deepEqual(q.instructions.map((i) => i.text), ['s_nop 4']);
  assert.equal(errors(q).length, 1);
  // a macro recursing in the .else of a condition on a symbol the file does not set (MIOpen's
  // gray_walker with k_per_wave from the build): one error per call, not 2^depth expansions
  const walker = ['.macro walk A, B', '.if \\B == 1', 'v_xor_b32 v0, \\A, v0', '.else', 'walk \\A, \\B/2', 'walk \\B/2, \\B/2', '.endif', '.endm', 'walk 0, k_per_wave', 'walk 0, 4', 's_endpgm'];
  const w = parseProgram(walker.join('\n') + '\n', 'e.s');
  assert.deepEqual(errors(w).map((e) => e[0]), [9]);
  assert.deepEqual(w.instructions.map((i) => i.text), ['v_xor_b32 v0, 0, v0', 'v_xor_b32 v0, 4/2/2, v0', 'v_xor_b32 v0, 4/2, v0', 'v_xor_b32 v0, 4/2/2, v0', 's_endpgm']);
});

test('.rept N (and .rep): the body N times, \\+ the iteration; .rept 0 reads no body; nested blocks', () => {
  const p = parse([
    '.rept 3', 's_mov_b32 s3, \\+', '.endr',
    '.rep 2', 's_nop 0', '.endr',
    '.rept 0', 'garbage \\x', '.endr',
    '.rept 2', '.rept 2', 's_mov_b32 s21, \\+', '.endr', '.endr',
  ]);
  assert.deepEqual(errors(p), []);
  // Substitution is textual and outside-in: the outer \+ is replaced before the inner block runs (llvm-mc: 0 0 1 1).
  assert.deepEqual(expanded(p), ['s_mov_b32 s3, 0', 's_mov_b32 s3, 1', 's_mov_b32 s3, 2', 's_nop 0', 's_nop 0',
    's_mov_b32 s21, 0', 's_mov_b32 s21, 0', 's_mov_b32 s21, 1', 's_mov_b32 s21, 1']);
  const first = p.statements.find((s) => s.kind === 'instruction')!;
  assert.equal(first.loc.line, 1, 'located at the .rept line');
  assert.equal(first.expansion?.macro, '.rept');
  assert.equal(first.expansion?.macroLoc.line, 2, 'and remembers its body line');
  const header = p.statements.find((s) => s.kind === 'macroCall')!;
  assert.deepEqual([header.text, header.lineIndex, header.blockEnd], ['.rept 3', 0, 2]);
});

test('.irp and .irpc: values separated by commas or blanks, \\sym, \\+ and \\@ (the macro count)', () => {
  const p = parse([
    '.macro M', 's_nop 0', '.endm', 'M', 'M',
    '.irp r, 4, 5 6', 's_mov_b32 s\\r, \\r', '.endr',
    '.irpc c, 789', 's_mov_b32 s\\c, \\+', '.endr',
    '.irp x, 1, 2', 's_mov_b32 s16, \\@', '.endr',
    '.irp x,', 's_nop 1', '.endr',
    '.irp v, "a b"', '.ifc \\v, a b', 's_mov_b32 s17, 1', '.endif', '.endr',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), ['s_nop 0', 's_nop 0', 's_mov_b32 s4, 4', 's_mov_b32 s5, 5', 's_mov_b32 s6, 6',
    's_mov_b32 s7, 0', 's_mov_b32 s8, 1', 's_mov_b32 s9, 2', 's_mov_b32 s16, 2', 's_mov_b32 s16, 2', 's_mov_b32 s17, 1']);
});

test('repeat errors: a bad header reads no body (its .endr is unmatched), an unclosed block, a negative count', () => {
  assert.deepEqual(errors(parseProgram('.rept -1\n.endr\n', 'e.s')), [[1, '.rept count is negative (-1)'], [2, "unmatched '.endr' directive: no .rept, .irp or .irpc is open"]]);
  assert.deepEqual(errors(parseProgram('.irp x\ns_nop 0\n.endr\n', 'e.s')).map((e) => e[0]), [1, 3]);
  assert.deepEqual(errors(parseProgram('.rept 2\ns_nop 0\n', 'e.s')), [[1, '.rept is not closed by .endr']]);
  // a file cut inside a block: a branch to a label the unread rest defines is not an error of its
  // own (llvm-mc names only the block); with the block closed the label is undefined
  assert.deepEqual(errors(parseProgram('s_branch .Lend\n.rept 4\ns_nop 0\n.Lend:\ns_endpgm\n', 'e.s')), [[2, '.rept is not closed by .endr']]);
  assert.deepEqual(errors(parseProgram('s_branch .Lend\n.macro m\n.Lend:\n', 'e.s')), [[2, '.macro m is not closed by .endm']]);
  assert.deepEqual(errors(parseProgram('s_branch .Lend\n.rept 4\ns_nop 0\n.endr\n', 'e.s')), [[1, "undefined label '.Lend'"]]);
  assert.deepEqual(errors(parseProgram('.irpc x, a b\n.endr\n', 'e.s')).map((e) => e[0]), [1, 2]);
  // \@ is not replaced in a .rept body: the instruction does not parse (llvm-mc: unknown token in expression).
  assert.match(errors(parseProgram('.rept 1\ns_mov_b32 s0, \\@\n.endr\n', 'e.s'))[0]![1], /in an expansion of \.rept, line 2/);
});

test('macros: conditionals and repeat blocks inside the body, \\+ counts the calls of each macro', () => {
  const p = parse([
    '.macro M a', '.if \\a > 1', 's_mov_b32 s14, \\a', '.else', 's_nop \\a', '.endif', '.rept \\a', 's_mov_b32 s15, \\+', '.endr', '.endm',
    'M 1', 'M 2',
    '.macro N', 's_mov_b32 s18, \\+', '.endm', 'N', 'N',
  ]);
  assert.deepEqual(errors(p), []);
  // The macro's \+ (its call count) is replaced in the whole body before the inner .rept runs (llvm-mc: 1 1).
  assert.deepEqual(expanded(p), ['s_nop 1', 's_mov_b32 s15, 0', 's_mov_b32 s14, 2', 's_mov_b32 s15, 1', 's_mov_b32 s15, 1',
    's_mov_b32 s18, 0', 's_mov_b32 s18, 1']);
  assert.ok(p.statements.filter((s) => s.expansion).every((s) => s.loc.line === 11 || s.loc.line === 12 || s.loc.line === 16 || s.loc.line === 17));
  assert.equal(p.statements.some((s) => s.kind === 'directive' && s.expansion && s.name === '.if'), false,
    'conditionals inside expansions are resolved, not statements');
  // An unbalanced .if inside a body is an error of that expansion.
  assert.match(errors(parseProgram('.macro U\n.if 1\n.endm\nU\n', 'e.s'))[0]![1], /not closed by \.endif in this expansion of 'U'/);
});

test('macro arguments split as LLVM splits them: blanks around an operator join, quotes are removed', () => {
  const p = parse([
    '.macro S a b', 's_mov_b32 s\\a, \\b', '.endm',
    'S 1 2+3', 'S 1 2 + 3', 'S 1 2+ 3', 'S 1, "4"', 'S 1 (2 + 3)',
    '.macro T a b=7 c', 's_mov_b32 s\\a, \\b', '.endm', 'T 2,,9',
  ]);
  assert.deepEqual(errors(p), []);
  assert.deepEqual(expanded(p), ['s_mov_b32 s1, 2+3', 's_mov_b32 s1, 2+3', 's_mov_b32 s1, 2+3', 's_mov_b32 s1, 4', 's_mov_b32 s1, (2 + 3)',
    's_mov_b32 s2, 7']);
});

test('.exitm leaves the innermost expansion (all remaining iterations of a repeat block); .purgem; .error, .err and .warning', () => {
  const p = parseProgram([
    '.macro M a', 's_mov_b32 s1, \\a', '.if \\a > 1', '.exitm', '.endif', 's_mov_b32 s2, \\a', '.endm', 'M 1', 'M 2',
    '.rept 3', 's_mov_b32 s3, \\+', '.if \\+ == 1', '.exitm', '.endif', '.endr',
    '.purgem M', '.macro M a', 's_mov_b32 s4, \\a', '.endm', 'M 5',
    '.if 0', '.error "never"', '.endif', '.warning "careful"', '.error "boom"', '.err', '.exitm', '',
  ].join('\n'), 'x.s');
  // llvm-mc 22 on the same text: these instructions, a warning at line 24 and errors at lines 25 and 26.
  assert.deepEqual(expanded(p), ['s_mov_b32 s1, 1', 's_mov_b32 s2, 1', 's_mov_b32 s1, 2', 's_mov_b32 s3, 0', 's_mov_b32 s3, 1', 's_mov_b32 s4, 5']);
  assert.deepEqual(p.diagnostics.map((d) => [d.loc.line, d.severity, d.message]), [
    [24, 'warning', 'careful'], [25, 'error', 'boom'], [26, 'error', '.err encountered'], [27, 'error', '.exitm outside a macro or repeat block'],
  ]);
  assert.match(errors(parseProgram('.purgem Q\n', 'x.s'))[0]![1], /macro 'Q' is not defined/);
});

const HEAD = '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n.text\n';

test('edits: an edit inside a repeat block writes the expansion in place of the whole block', () => {
  const text = HEAD + 'k:\n  .rept 2\n  v_mov_b32 v1, 0\n  v_add_u32 v2, v1, v1\n  .endr\n  s_endpgm\n';
  const p = parseProgram(text, 'r.s');
  const e = emptyEdits();
  const second = p.statements.filter((s) => s.insn?.mnemonic === 'v_add_u32')[1]!;
  addInsert(e, p.statements.indexOf(second), 's_nop 0');
  const out = applyStatementEdits(p, e);
  assert.equal(out, HEAD + 'k:\n  // expanded from: .rept 2\n  v_mov_b32 v1, 0\n  v_add_u32 v2, v1, v1\n  v_mov_b32 v1, 0\n  s_nop 0\n  v_add_u32 v2, v1, v1\n  s_endpgm\n');
  assert.deepEqual(expanded(parseProgram(out, 'r2.s')), ['v_mov_b32 v1, 0', 'v_add_u32 v2, v1, v1', 'v_mov_b32 v1, 0', 's_nop 0', 'v_add_u32 v2, v1, v1', 's_endpgm']);
});

test('edits: an inserted label goes at column 0, an instruction inserted before a column-0 label is indented', () => {
  // the pipeliner's peel: `.Lpeel:` before the indented instruction after the loop, or the peel's
  // instructions before the column-0 label that follows the loop (aiter topk_softmax, clang-22 gfx942)
  const text = HEAD + 'k:\n.LBB0_1:\n\tv_add_u32 v2, v1, v1\n\ts_cbranch_scc1 .LBB0_1\n\tv_mov_b32 v1, 0\n.LBB0_2:\n\ts_endpgm\n';
  const p = parseProgram(text, 'l.s');
  const e = emptyEdits();
  const mov = p.statements.findIndex((st) => st.insn?.mnemonic === 'v_mov_b32');
  const l2 = p.statements.findIndex((st) => st.kind === 'label' && st.name === '.LBB0_2');
  addInsert(e, mov, '.Lpeel0:');
  addInsert(e, l2, '.Lpeel1:');
  addInsert(e, l2, 'v_add_u32 v2, v1, v1');
  const out = applyStatementEdits(p, e);
  assert.equal(out, HEAD + 'k:\n.LBB0_1:\n\tv_add_u32 v2, v1, v1\n\ts_cbranch_scc1 .LBB0_1\n.Lpeel0:\n\tv_mov_b32 v1, 0\n.Lpeel1:\n\tv_add_u32 v2, v1, v1\n.LBB0_2:\n\ts_endpgm\n');
});

test('check --fix writing out macro calls that make \\@ labels: every label once, with the numbering of the input', () => {
  const text = HEAD + [
    '.macro ld s',
    '  global_load_dword v1, v[2:3], off',
    '  v_add_u32 v4, v1, v1',
    '  s_cmp_lt_u32 s[\\s], 4',
    '  s_cbranch_scc1 L_ld_\\@',
    '  s_add_u32 s[\\s], s[\\s], 1',
    'L_ld_\\@:',
    '.endm',
    'k:',
    '  ld 8',
    '  ld 9',
    '  s_endpgm',
    '',
  ].join('\n');
  const l = loadText(text, 'at.s');
  assert.ok(checkLoaded(l).errors > 0);
  const fixed = fixLoaded(l);
  const l2 = loadText(fixed.text, 'at2.s');
  assert.equal(checkLoaded(l2).errors, 0);
  assert.deepEqual(l2.program.statements.filter((x) => x.kind === 'label').map((x) => x.name), ['k', 'L_ld_0', 'L_ld_1']);
  assert.equal((fixed.text.match(/\n {2}conductor_macro_count\n/g) ?? []).length, 1, 'the first call is counted for the second');
  // calls written out with no later call that reads the count: nothing added
  const alone = text.replace('  ld 9\n', '');
  assert.doesNotMatch(fixLoaded(loadText(alone, 'at3.s')).text, /conductor_macro_count/);
  // a later .irp block reads the count only when its body has \\@
  const irp = (body: string) => alone.replace('  s_endpgm', `  .irp r, 10, 11\n  ${body}\n  .endr\n  s_endpgm`);
  assert.doesNotMatch(fixLoaded(loadText(irp('v_mov_b32 v\\r, 0'), 'at4.s')).text, /conductor_macro_count/);
  const counted = fixLoaded(loadText(irp('v_mov_b32 v\\r, \\@'), 'at5.s')).text;
  assert.match(counted, /\n {2}conductor_macro_count\n {2}\.purgem conductor_macro_count\n {2}\.irp r, 10, 11\n/);
  assert.deepEqual(loadText(counted, 'at6.s').program.instructions.filter((x) => x.mnemonic === 'v_mov_b32').map((x) => x.text), ['v_mov_b32 v10, 1', 'v_mov_b32 v11, 1']);
});

test('check --fix and schedule on repeat blocks and conditionals: the output re-reads to what was analysed', () => {
  // A wait missing inside a .rept body: the fixed file has the block written out with the wait.
  const text = HEAD + 'k:\n  .rept 2\n  global_load_dword v1, v[2:3], off\n  v_add_u32 v4, v1, v1\n  .endr\n  .if 0\n  v_add_u32 v4, v1, v9\n  .endif\n  s_endpgm\n';
  const l = loadText(text, 'f.s');
  assert.ok(checkLoaded(l).errors > 0);
  const fixed = fixLoaded(l);
  const l2 = loadText(fixed.text, 'f2.s');
  assert.equal(checkLoaded(l2).errors, 0);
  assert.match(fixed.text, /\/\/ expanded from: \.rept 2\n/);
  assert.doesNotMatch(fixed.text, /\.endr/);
  assert.match(fixed.text, / {2}\.if 0\n {2}v_add_u32 v4, v1, v9\n {2}\.endif\n/, 'the inactive branch is kept as written');
  // A move inside the block: the schedule writes the block out and verifies against the original.
  const t2 = HEAD + 'k:\n  .rept 2\n  v_mov_b32 v1, 1\n  v_mov_b32 v2, 2\n  .endr\n  s_endpgm\n';
  const l3 = loadText(t2, 's.s');
  const s = new ScheduleState(pickKernel(l3));
  const c = parseCommand('swap v_mov_b32_0 v_mov_b32_1');
  assert.ok(typeof c !== 'string');
  assert.ok(!isFailure(applyCommand(s, c)));
  const em = emitSchedule(s);
  assert.equal(em.text, HEAD + 'k:\n  // expanded from: .rept 2\n  v_mov_b32 v2, 2\n  v_mov_b32 v1, 1\n  v_mov_b32 v1, 1\n  v_mov_b32 v2, 2\n  s_endpgm\n');
  const v = verifyLoaded(l3, loadText(em.text, 's2.s'));
  assert.equal(v.equivalent, true, v.difference?.message);
});

test("LLVM's resource expressions: max, or, alignto, totalnumvgprs per register file; descriptor values naming symbols set later", () => {
  const kernel = (target: string) => [
    `.amdgcn_target "amdgcn-amd-amdhsa--${target}"`, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  v_mov_b32 v72, 0', '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k',
    '  .amdhsa_next_free_vgpr max(totalnumvgprs(k.num_agpr, k.num_vgpr), 1, 0)',
    '  .amdhsa_next_free_sgpr max(k.numbered_sgpr+6, 1, 0)-6',
    ...(target === 'gfx908' ? [] : ['  .amdhsa_accum_offset (((((alignto(max(1, k.num_vgpr), 4)/4)-1)&~65536)&63)+1)*4']),
    '.end_amdhsa_kernel',
    '.set k.num_vgpr, max(45, amdgpu.max_num_vgpr)', '.set k.num_agpr, max(16, amdgpu.max_num_agpr)',
    '.set k.numbered_sgpr, max(56, amdgpu.max_num_sgpr)', '.set k.flags, or(1, 4, 8)',
    '.set amdgpu.max_num_vgpr, 73', '.set amdgpu.max_num_agpr, 16', '.set amdgpu.max_num_sgpr, 35',
  ].join('\n') + '\n';
  // gfx942: one file, AGPRs after alignto(73, 4) = 76
  const p = parseProgram(kernel('gfx942'), 'k.s');
  assert.deepEqual(p.diagnostics, []);
  assert.deepEqual(p.kernels.find((k) => k.name === 'k')!.descriptor!.values, { next_free_vgpr: 92, next_free_sgpr: 56, accum_offset: 76 });
  // gfx908: separate files, max(73, 16)
  assert.deepEqual(parseProgram(kernel('gfx908'), 'k.s').kernels.find((k) => k.name === 'k')!.descriptor!.values, { next_free_vgpr: 73, next_free_sgpr: 56 });
  // the descriptor covers v72: no descriptor error
  assert.equal(checkLoaded(loadText(kernel('gfx942'), 'k.s')).findings.filter((f) => f.rule === 'descriptor-registers').length, 0);
  // a value that never evaluates is unknown (left out, with a warning), never 0
  const bad = parseProgram(kernel('gfx942').replace('max(45, amdgpu.max_num_vgpr)', 'max(45, nowhere)'), 'k.s');
  assert.equal(bad.kernels.find((k) => k.name === 'k')!.descriptor!.values['next_free_vgpr'], undefined);
  assert.match(bad.diagnostics.map((d) => d.message).join('\n'), /cannot evaluate \.amdhsa_next_free_vgpr value .*: the descriptor leaves it unknown/);
});

test("extrasgprs(vcc, flat_scratch, xnack): the SGPRs a GFX9 kernel reserves past its numbered ones (llc's descriptors; a new user's trial: read as 0)", () => {
  const sgprs = (target: string | undefined, args: string) => parseProgram([
    ...(target ? [`.amdgcn_target "amdgcn-amd-amdhsa--${target}"`] : []), '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:', '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 1', `  .amdhsa_next_free_sgpr 10+extrasgprs(${args})`,
    ...(target && target !== 'gfx906' && target !== 'gfx908' ? ['  .amdhsa_accum_offset 4'] : []), '.end_amdhsa_kernel', '',
  ].join('\n'), 'x.s').kernels.find((k) => k.name === 'k')!.descriptor!.values['next_free_sgpr'];
  // before gfx940: VCC 2, XNACK 4, flat scratch 6 (the largest that applies)
  assert.deepEqual(['0, 0, 0', '1, 0, 0', '1, 0, 1', '1, 1, 1'].map((a) => sgprs('gfx90a', a)), [10, 12, 14, 16]);
  assert.equal(sgprs('gfx906', '1, 0, 0'), 12);
  // gfx940 and later set flat scratch up in hardware: always 6
  assert.deepEqual([sgprs('gfx942', '0, 0, 0'), sgprs('gfx950', '1, 0, 0')], [16, 16]);
  // no target: only what every target agrees on
  assert.deepEqual([sgprs(undefined, '0, 1, 0'), sgprs(undefined, '1, 0, 0')], [16, undefined]);
});

test('an .amdhsa_kernel block written by a macro is the kernel\'s descriptor (MIOpen\'s Winograd epilogues), its lines standing at the call', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx906"',
    '.macro EPILOG kernel_name, vgprs',
    '.rodata', '.p2align 6',
    '.amdhsa_kernel \\kernel_name',
    '  .amdhsa_next_free_vgpr \\vgprs',
    '  .amdhsa_next_free_sgpr 8',
    '.end_amdhsa_kernel',
    '.endm',
    '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  v_mov_b32 v11, 0',
    '  s_endpgm',
    'EPILOG k, 12', '',
  ].join('\n');
  const l = loadText(text, 'e.s');
  const k = l.program.kernels.find((x) => x.name === 'k')!;
  assert.equal(k.descriptor?.values.next_free_vgpr, 12);
  assert.equal(k.descriptor?.loc.line, 17, 'at the call');
  assert.equal(checkLoaded(l).errors, 0);
  // v12 beyond the descriptor's 12 (allocated 12 on gfx906: granule 4) is the descriptor's error
  assert.ok(checkLoaded(loadText(text.replace('v_mov_b32 v11, 0', 'v_mov_b32 v12, 0'), 'f.s')).findings.some((f) => f.rule === 'descriptor-registers'));
});
