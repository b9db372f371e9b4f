/**
 * The instruction store and its fast paths against the exact ones: comment removal as offsets
 * (scanLines) against stripComments, the program parser's store against parseInstructionText
 * on each instruction's own text, and resolveProgram's store against resolveInstruction on
 * plain Instruction objects; the object views (Program, Statement, Instruction, ResolvedInsn)
 * and the store API read the same numbers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProgram } from '../../../src/asm/parser.js';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import { printProgram } from '../../../src/asm/printer.js';
import { scanLines, splitLines, stripComments } from '../../../src/asm/source.js';
import { OPCODES, OP_REG, forEachRegister, namesSymbol, operandText } from '../../../src/asm/store.js';
import { resolveInstruction, resolveProgram } from '../../../src/isa/resolve.js';
import { ACC_DEF, ACC_USE, OperandReader, ROLES } from '../../../src/isa/resolved-store.js';
import { TARGETS } from '../../../src/targets/index.js';
import type { LegalityIssue } from '../../../src/isa/legality.js';
import type { ResolvedInsn } from '../../../src/isa/types.js';
import { ConductorError } from '../../../src/errors.js';
import { evalExpr } from '../../../src/asm/expr.js';
import { root } from '../../repo.js';

const read = (p: string) => readFileSync(join(root, p), 'utf8');
const SOURCES = ['examples/mfma_lds_gemm.gfx942.s', 'test/oracle/probes/legality.s', 'test/oracle/probes/literals.s'];

test('scanLines gives the code stripComments gives, as offsets, on every comment form', () => {
  const texts = [
    ...SOURCES.map(read),
    [
      'v_mov_b32 v0, 1 ; c', 'v_mov_b32 v0, 2 // c ; d', '  # 12 "file"', '.ascii "a;b//c" ; real', "s_mov_b32 s0, ';'  ; x",
      "s_mov_b32 s0, '/' / 2 // y", 'v_add_u32 v0, 8 / 2, v1', '/* a */ v_nop /* b */ s_nop 0 /* open', 'still */ s_nop 1',
      '/* whole */', 'v_nop /* tail */', 's_nop 0 /* x */ // y', 'a: b: s_nop 2\r', '\t\ts_endpgm   \t', '"q;x": s_nop 0',
      's_nop 0 /', "s_mov_b32 s0, '\\''", 'x # not a comment', '',
    ].join('\r\n') + 's_nop 3',
    '/* open\nnever closed\n',
  ];
  for (const text of texts) {
    const scan = scanLines(text);
    const lines = splitLines(text);
    const code = stripComments(lines);
    assert.equal(scan.n, lines.length);
    for (let k = 0; k < scan.n; k++) {
      const got = scan.override.get(k) ?? text.slice(scan.start[k], scan.end[k]);
      assert.equal(got, code[k], `line ${k + 1}: ${JSON.stringify(lines[k]!.text)}`);
    }
  }
});

test('every stored instruction reads as parseInstructionText reads its text', () => {
  for (const src of SOURCES) {
    const p = parseProgram(read(src), src);
    const s = p.store;
    assert.equal(p.instructions.length, s.n);
    for (let i = 0; i < s.n; i++) {
      const insn = p.instructions[i]!;
      const plain = parseInstructionText(insn.text, insn.loc, (n) => p.symbols.get(n), insn.stmt);
      assert.equal(insn.mnemonic, plain.mnemonic);
      assert.equal(insn.base, plain.base);
      assert.equal(insn.suffix, plain.suffix);
      assert.deepEqual(insn.operands, plain.operands, `${src}:${insn.loc.line} ${insn.text}`);
      assert.deepEqual(insn.modifiers, plain.modifiers, `${src}:${insn.loc.line} ${insn.text}`);
      assert.deepEqual(insn.loc, plain.loc);
      assert.equal(OPCODES.mnemonic[s.opcode[i]!], insn.mnemonic);
      // the statement view reads the same instruction
      const st = p.statements[insn.stmt]!;
      assert.equal(st.kind, 'instruction');
      assert.equal(st.insn, insn);
      assert.equal(st.text, insn.text);
      assert.equal(st.lineIndex, insn.loc.line - 1);
      // registers as numbers
      for (let k = s.opBegin[i]!, o = 0; k < s.opBegin[i + 1]!; k++, o++) {
        const op = insn.operands[o]!;
        assert.equal(s.oKind[k] === OP_REG, op.kind === 'reg');
        if (op.kind === 'reg') assert.deepEqual([s.oFirst[k], s.oCount[k], s.oIndex[k]], [op.first, op.count, op.index]);
      }
    }
    assert.equal(printProgram(p), read(src), 'printed byte-identical');
    assert.deepEqual(p.lines, splitLines(read(src)));
  }
});

/** What resolveInstruction says of an instruction: the resolution or the error, and the legality issues. */
function exact(insn: Parameters<typeof resolveInstruction>[0], arch: keyof typeof TARGETS): { r?: ResolvedInsn; error?: string; issues: LegalityIssue[] } {
  const issues: LegalityIssue[] = [];
  try {
    return { r: resolveInstruction(insn, TARGETS[arch], issues), issues };
  } catch (e) {
    if (!(e instanceof ConductorError)) throw e;
    return { error: e.message, issues };
  }
}

test('resolveProgram over the store equals resolveInstruction on plain objects, on every target', () => {
  for (const src of SOURCES) {
    const p = parseProgram(read(src), src);
    for (const arch of ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'] as const) {
      const rp = resolveProgram(p, TARGETS[arch]);
      const rs = rp.store;
      const errors = new Map<number, string[]>();
      for (const d of rp.diagnostics) errors.set(d.loc.line, [...(errors.get(d.loc.line) ?? []), d.message]);
      for (let i = 0; i < p.instructions.length; i++) {
        const insn = p.instructions[i]!;
        const plain = parseInstructionText(insn.text, insn.loc, (n) => p.symbols.get(n), insn.stmt);
        const e = exact(plain, arch);
        const viaView = exact(insn, arch);
        assert.deepEqual(viaView.error, e.error);
        assert.deepEqual(viaView.issues, e.issues);
        const got = rp.insns[i]!;
        const where = `${arch} ${src}:${insn.loc.line} ${insn.text}`;
        if (e.error !== undefined) {
          assert.equal(got.unknown, true, where);
          assert.ok(errors.get(insn.loc.line)?.includes(e.error), where);
          continue;
        }
        for (const f of e.issues) assert.ok(errors.get(insn.loc.line)?.includes(f.message), `${where}: ${f.message}`);
        const r = e.r!;
        assert.equal(got.unknown, undefined, where);
        assert.equal(got.info, r.info, where);
        for (const key of ['defs', 'uses', 'explicitDefs', 'explicitUses', 'implicitDefs', 'implicitUses'] as const) {
          assert.deepEqual(got[key], r[key], `${where}: ${key}`);
        }
        assert.deepEqual(got.operands, r.operands, where);
        assert.deepEqual(viaView.r!.operands, r.operands, where);
        // the store API reads the same lists
        const pool = rs.pool;
        const list = (entry: number) => Array.from(pool.units.subarray(pool.off[entry]!, pool.off[entry]! + pool.len[entry]!));
        assert.deepEqual(list(rs.defs[i]!), [...r.defs], where);
        assert.deepEqual(list(rs.uses[i]!), [...r.uses], where);
        for (let k = p.store.opBegin[i]!, o = 0; k < p.store.opBegin[i + 1]!; k++, o++) {
          const rec = r.operands[o]!;
          assert.equal(ROLES[rs.oRole[k]!], rec.role, where);
          assert.equal((rs.oAccess[k]! & ACC_DEF) !== 0, rec.def, where);
          assert.equal((rs.oAccess[k]! & ACC_USE) !== 0, rec.use, where);
          assert.deepEqual(list(rs.oUnits[k]!), [...rec.units], where);
        }
        assert.equal(rs.info(i), r.info);
        // the operand reader (the cycle model's) reads the store as it reads the records
        assert.deepEqual(readOperands(fromStore, got), readOperands(fromRecords, r), where);
      }
    }
  }
});

test('instructions written alike resolve as each resolved on its own (the resolver copies the first one\'s resolution)', () => {
  // repeats: the same text with a symbol redefined between (a value that becomes a literal),
  // the same text with an issue each time, modifiers in another order, DPP and waits (not copied)
  const snippet = [
    '.set A, 5', 's_mov_b32 s0, A', '.set A, 70000', 's_mov_b32 s0, A', 's_mov_b32 s0, A',
    'v_add_u32 v0, 0x12345, s1', 'v_add_u32 v0, 0x12345, s1', 'v_add_u32 v0, 64, s1', 'v_add_u32 v0, 64, s1',
    'buffer_load_dword v1, v[2:3], s[4:7], 0 offen idxen', 'buffer_load_dword v1, v[2:3], s[4:7], 0 offen idxen',
    'buffer_load_dword v1, v[2:3], s[4:7], 0 idxen offen', 'buffer_load_dword v1, v[2:3], s[4:7], 0 idxen offen',
    'buffer_load_dword v1, v2, s[4:7], 0 offen offset:16', 'buffer_load_dword v1, v2, s[4:7], 0 offen offset:16',
    'buffer_load_dword v1, v2, s[4:7], 0 offen offset:8192', 'buffer_load_dword v1, v2, s[4:7], 0 offen offset:8192',
    'v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf', 'v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0',
    'v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf', 's_waitcnt vmcnt(0)', 's_waitcnt vmcnt(0)',
    'v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]', 'v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]',
    'v_mfma_f32_16x16x16f16 v[4:7], v[0:1], v[2:3], v[4:7]', 'v_mfma_f32_16x16x16f16 v[4:7], v[0:1], v[2:3], v[4:7]',
    'v_mov_b32 v300, v1', 'v_mov_b32 v300, v1', 'v_mov_b32 v3, v1', 'v_mov_b32 v3, v1', 's_endpgm',
  ].join('\n') + '\n';
  const texts = [...SOURCES.map((src) => ({ src, text: read(src) })), { src: 'alike.s', text: snippet }];
  let copies = 0;
  for (const { src, text } of texts) {
    const p = parseProgram(text, src);
    const distinct = new Set(p.instructions.map((x) => x.text)).size;
    copies += p.instructions.length - distinct;
    for (const arch of ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'] as const) {
      const a = resolveProgram(p, TARGETS[arch]);
      const b = resolveProgram(p, TARGETS[arch], { alike: false });
      const where = `${arch} ${src}`;
      assert.deepEqual(a.diagnostics, b.diagnostics, where);
      const x = a.store, y = b.store;
      for (const key of ['infoId', 'flags', 'defs', 'uses', 'explicitDefs', 'explicitUses', 'implicitDefs', 'implicitUses', 'oRole', 'oAccess', 'oUnits'] as const) {
        assert.deepEqual(x[key], y[key], `${where}: ${key}`);
      }
      assert.deepEqual(x.infos, y.infos, where);
      assert.deepEqual([x.pool.units, x.pool.off, x.pool.len], [y.pool.units, y.pool.off, y.pool.len], where);
      for (let i = 0; i < x.n; i++) assert.deepEqual(a.insns[i]!.unknown, b.insns[i]!.unknown, `${where}: ${p.instructions[i]!.text}`);
    }
  }
  assert.ok(copies > 20, `the sources repeat instructions (${copies} repeats)`);
});

test('instructions written as earlier ones copy their rows: the same store as scanning each', () => {
  // the same text: after a symbol it reads is set again, in a macro expansion, with a label or a
  // comment before it, with expressions, lists and s_waitcnt counters (scanned each time), failing
  const snippet = [
    '.set vgprA, 4', '.set off, 16', 'v_mov_b32 v[vgprA], v[vgprA+1]', 'v_mov_b32 v[vgprA], v[vgprA+1]', 'v_add_u32 v1, v2, v3',
    '.set vgprA, 8', 'v_mov_b32 v[vgprA], v[vgprA+1]', 'lbl: v_add_u32 v1, v2, v3', 'v_add_u32 v1, v2, v3 // note',
    '\tv_add_u32   v1,v2,  v3', 'v_add_u32 v1, v2, v3', 'buffer_load_dword v1, v2, s[4:7], 0 offen offset:off',
    'buffer_load_dword v1, v2, s[4:7], 0 offen offset:off', '.set off, 32', 'buffer_load_dword v1, v2, s[4:7], 0 offen offset:off',
    'buffer_load_dword v1, v2, s[4:7], 0 offen offset:16', 'buffer_load_dword v1, v2, s[4:7], 0 offen offset:16',
    's_waitcnt vmcnt(0)', 's_waitcnt vmcnt(0)', 'v_add_f16 v7, v8, v9 op_sel:[0,0,1]', 'v_add_f16 v7, v8, v9 op_sel:[0,0,1]',
    '1:', 's_cbranch_scc0 1b', 's_cbranch_scc0 1b', 'v_mov_b32 v3x5, 0', 'v_mov_b32 v3x5, 0',
    '.macro twice r', '  v_add_u32 v\\r, v2, v3', '  v_add_u32 v1, v2, v3', '.endm', 'twice 1', 'twice 4', 'twice 1',
    '.rept 3', 'v_mul_f32 v0, v1, v2', '.endr', 'v_mul_f32 v0, v1, v2', 's_mov_b32 s0, vcc_lo', 's_mov_b32 s0, vcc_lo',
    '.set vcc_lo, 5', 's_mov_b32 s0, vcc_lo', 's_endpgm',
  ].join('\n') + '\n';
  let copies = 0;
  for (const { src, text } of [...SOURCES.map((src) => ({ src, text: read(src) })), { src: 'written.s', text: snippet }]) {
    const a = parseProgram(text, src);
    const b = parseProgram(text, src, { scanEach: true });
    const x = a.store, y = b.store;
    assert.equal(x.n, y.n, src);
    assert.deepEqual(a.diagnostics, b.diagnostics, src);
    assert.deepEqual(a.statements.map((st) => [st.kind, st.text, st.loc]), b.statements.map((st) => [st.kind, st.text, st.loc]), src);
    const cut = <T extends { subarray(a: number, b: number): T }>(arr: T, n: number) => arr.subarray(0, n);
    for (const key of ['opcode', 'textId', 'tStart', 'tEnd', 'line', 'col', 'stmt'] as const) assert.deepEqual(cut(x[key], x.n), cut(y[key], y.n), `${src}: ${key}`);
    for (const key of ['opBegin', 'modBegin'] as const) assert.deepEqual(cut(x[key], x.n + 1), cut(y[key], y.n + 1), `${src}: ${key}`);
    for (const key of ['oKind', 'oFile', 'oFlags', 'oFirst', 'oCount', 'oIndex', 'oStart', 'oEnd', 'oValue', 'oAux'] as const) assert.deepEqual(cut(x[key], x.nOps), cut(y[key], y.nOps), `${src}: ${key}`);
    for (const key of ['mName', 'mFlags', 'mStart', 'mVStart', 'mEnd', 'mNum', 'mAux'] as const) assert.deepEqual(cut(x[key], x.nMods), cut(y[key], y.nMods), `${src}: ${key}`);
    assert.deepEqual(x.aux, y.aux, src);
    assert.deepEqual(x.texts, y.texts, src);
    assert.deepEqual(a.instructions.map((i) => i.text), b.instructions.map((i) => i.text), src);
    copies += x.n - new Set(a.instructions.map((i) => i.text)).size;
  }
  assert.ok(copies > 20, `${copies} instructions written as an earlier one`);
});

const fromStore = new OperandReader();
const fromRecords = new OperandReader();

/** What an OperandReader reads of an instruction, per operand. */
function readOperands(reader: OperandReader, ri: ResolvedInsn): { acc: number; role: string; units: number[] }[] {
  reader.read(ri);
  return Array.from({ length: reader.n }, (_, k) => ({
    acc: reader.acc[k]!, role: ROLES[reader.role[k]!]!,
    units: Array.from({ length: reader.end[k]! - reader.start[k]! }, (_, q) => reader.units[reader.start[k]! + q]!),
  }));
}

test('the scanner\'s shortcuts (plain registers, decimal immediates, sym+N register indexes) read as the expression reader does', () => {
  const syms: Record<string, number> = { x: 10, vgprValuC: 4, half: 1.5, big: 2 ** 40 };
  const lookup = (n: string) => syms[n];
  const at = { file: 't.s', line: 1, col: 1 };
  const value = (t: string) => {
    try { return { v: evalExpr(t, lookup) }; } catch { return { v: undefined }; }
  };
  // immediates: the operand is what evalExpr reads of its text (or the expression it continues into)
  for (const imm of ['5', '-5', '0', '-0', '17', '123456789012345', '1234567890123456', '16U', '5L', '1.5', '2e3', '0x10', '017']) {
    const insn = parseInstructionText(`s_mov_b32 s0, ${imm}`, at, lookup);
    const o = insn.operands[1]!;
    assert.equal(o.kind, 'imm', imm);
    assert.ok(Object.is((o as { value: number }).value, value(imm).v), `${imm}: ${(o as { value: number }).value}`);
    assert.equal(o.text, imm);
  }
  // an operator after blanks continues the expression
  for (const [t, v] of [['4 -1', 3], ['4 - 1', 3], ['4 *2', 8], ['-4 + x', 6], ['2 << 1', 4]] as const) {
    const insn = parseInstructionText(`s_mov_b32 s0, ${t}`, at, lookup);
    assert.equal((insn.operands[1] as { value: number }).value, v, t);
    assert.equal(insn.operands.length, 2, t);
  }
  assert.deepEqual(parseInstructionText('v_add_co_u32 v[4] vcc -1 v[5]', at, lookup).operands.map((o) => o.text), ['v[4]', 'vcc', '-1', 'v[5]']);
  assert.throws(() => parseInstructionText('s_mov_b32 s0, 08', at, lookup), /invalid octal number/);
  // register indexes
  for (const idx of ['x', 'x+1', 'x + 1', 'x-3', 'x - 3', 'vgprValuC+68', 'x+01', 'x+0', '(x)+1', 'x*2', '1+x', 'x+4+3', 'x + 4 - 3 + 2', 'x+4*3', 'x++4']) {
    const insn = parseInstructionText(`v_mov_b32 v[${idx}], v1`, at, lookup);
    const o = insn.operands[0] as { first: number; index: number };
    assert.equal(o.index, value(idx).v, idx);
  }
  assert.throws(() => parseInstructionText('v_mov_b32 v[half+1], v1', at, lookup), /invalid register index 2.5/);
  assert.throws(() => parseInstructionText('v_mov_b32 v[x+4-], v1', at, lookup), /invalid register index 'x\+4-'/);
  assert.throws(() => parseInstructionText('v_mov_b32 v[x-11], v1', at, lookup), /invalid register index -1/);
  assert.throws(() => parseInstructionText('v_mov_b32 v[nope+1], v1', at, lookup), /undefined symbol 'nope' in register index/);
  assert.throws(() => parseInstructionText('v_mov_b32 v[big], v1', at, lookup), /register index out of range/);
  // plain registers and modifier numbers
  const m = parseInstructionText('buffer_load_dword v7, v8, s[4:7], 0 offen offset:16', at, lookup);
  assert.deepEqual(m.operands.map((o) => o.kind === 'reg' ? [o.file, o.index, o.count] : o.kind), [['v', 7, 1], ['v', 8, 1], ['s', 4, 4], 'imm']);
  assert.deepEqual(m.modifiers.map((x) => [x.name, x.num]), [['offen', undefined], ['offset', 16]]);
  assert.equal(parseInstructionText('s_waitcnt vmcnt(0) lgkmcnt(3)', at, lookup).operands[0]!.text, 'vmcnt(0) lgkmcnt(3)');
  assert.equal((parseInstructionText('s_waitcnt vmcnt(x)', at, lookup).operands[0] as { vmcnt: number }).vmcnt, 10);
});

test('namesSymbol reads from the store whether an operand is an expression naming a symbol', () => {
  const snippet = [
    '.text', 'k:', '.set N, 4', '  s_getpc_b64 s[0:1]', '  s_add_u32 s0, s0, k@rel32@lo+4', '  s_addc_u32 s1, s1, k@rel32@hi+12',
    '  s_mov_b32 s2, N', '  s_mov_b32 s3, 4+4', '  v_mov_b32 v0, 1.0', '  s_waitcnt lgkmcnt(0)', '  s_endpgm', '',
  ].join('\n');
  const texts: [string, string][] = [...SOURCES.map((f): [string, string] => [f, read(f)]), ['snippet.s', snippet]];
  let named = 0;
  let seen = 0;
  for (const [name, text] of texts) {
    const p = parseProgram(text, name);
    // the store's answer first, with no operand object built yet
    const got = p.instructions.map((x) => namesSymbol(x));
    p.instructions.forEach((insn, x) => {
      const want = insn.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0);
      const plain = parseInstructionText(insn.text, insn.loc, (n) => p.symbols.get(n), insn.stmt);
      assert.equal(got[x], want, `${name}:${insn.loc.line} ${insn.text}`);
      assert.equal(namesSymbol(plain), plain.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0), `${name}:${insn.loc.line} ${insn.text} (object form)`);
      if (want) named++;
      seen++;
    });
  }
  assert.ok(named >= 2 && seen > named, `${named} of ${seen} instructions name a symbol`);
});

test('forEachRegister reads from the store the register operands the operand objects hold', () => {
  let seen = 0;
  for (const src of SOURCES) {
    const p = parseProgram(read(src), src);
    for (const insn of p.instructions) {
      const plain = parseInstructionText(insn.text, insn.loc, (n) => p.symbols.get(n), insn.stmt);
      const want = insn.operands.flatMap((o) => (o.kind === 'reg' ? [[o.file, o.first, o.count, o.index, o.text]] : []));
      for (const x of [insn, plain]) {
        const got: unknown[] = [];
        forEachRegister(x, (file, first, count, index, at) => got.push([file, first, count, index, operandText(x, at)]));
        assert.deepEqual(got, want, `${src}:${insn.loc.line} ${insn.text}`);
      }
      seen += want.length;
    }
  }
  assert.ok(seen > 500, `${seen} register operands`);
});
