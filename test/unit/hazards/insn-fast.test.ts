/**
 * The hazard checker's view of an instruction (hazardInsn) read from the instruction store's
 * views (operand ranges shared per operand record, constants and dst_sel/op_sel looked up only
 * when the store holds them) against the same view built from plain Instruction objects
 * (parseInstructionText + resolveInstruction), field by field, on every target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProgram } from '../../../src/asm/parser.js';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import { resolveInstruction, resolveProgram } from '../../../src/isa/resolve.js';
import { buildTraits, traitsOf } from '../../../src/isa/traits.js';
import { TARGETS } from '../../../src/targets/index.js';
import { HAZARD_INSN_FIELDS, hazardInsn, hazardInsns, type HazardInsn, type OpRange } from '../../../src/hazards/context.js';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import { firstAlike, operandsOnce } from '../../../src/isa/resolved-store.js';
import type { ResolvedInsn } from '../../../src/isa/types.js';
import { root } from '../../repo.js';

const read = (p: string) => readFileSync(join(root, p), 'utf8');

/** Instructions with constants, SDWA dst_sel, VOP3 op_sel and FP8 byte selects, beside plain ones. */
const SNIPPET = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
  'v_cndmask_b32 v0, v1, v2, src_vccz', 'v_add_f32 v3, src_execz, v4', 'v_mov_b32_sdwa v5, v6 dst_sel:WORD_1 src0_sel:DWORD',
  'v_mov_b32_sdwa v5, v6 dst_sel:DWORD src0_sel:WORD_0', 'v_add_f16 v7, v8, v9 op_sel:[0,0,1]', 'v_add_f16 v7, v8, v9 op_sel:[1,0,0]',
  'v_cvt_sr_fp8_f32 v10, v11, v12 op_sel:[0,0,1,1]', 'v_cvt_sr_fp8_f32 v10, v11, v12', 'v_pk_add_f16 v13, v14, v15 op_sel:[1,0]',
  's_nop 7', 's_nop 0', 'buffer_store_dwordx4 v[20:23], v24, s[0:3], s4 offen', 'v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]',
  's_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s0', 'v_readlane_b32 s5, v1, s6', 'v_cmpx_eq_u32 vcc, v1, v2', 's_endpgm',
].join('\n') + '\n';

const SOURCES: [string, string][] = [
  ['snippet.s', SNIPPET],
  ...['examples/mfma_lds_gemm.gfx942.s', 'test/oracle/probes/legality.s', 'test/oracle/probes/literals.s'].map((p): [string, string] => [p, read(p)]),
];

/** The fields of a HazardInsn other than the objects it was built from. */
function fields(h: HazardInsn): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of HAZARD_INSN_FIELDS) out[k] = h[k];
  return out;
}

test('hazardInsn over the store equals hazardInsn over plain instructions, on every target', () => {
  let compared = 0;
  let consts = 0;
  let dstSel = 0;
  for (const [src, text] of SOURCES) {
    const p = parseProgram(text, src);
    for (const arch of ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'] as const) {
      const target = TARGETS[arch];
      const rp = resolveProgram(p, target);
      // the instructions both ways resolve (the others are not checked by hazard rules)
      const idx: number[] = [];
      const plain: ResolvedInsn[] = [];
      for (let i = 0; i < p.instructions.length; i++) {
        if (rp.insns[i]!.unknown) continue;
        const insn = p.instructions[i]!;
        try {
          plain.push(resolveInstruction(parseInstructionText(insn.text, insn.loc, (n) => p.symbols.get(n), insn.stmt), target));
          idx.push(i);
        } catch { /* refused by the exact path too */ }
      }
      const stored = idx.map((i) => rp.insns[i]!);
      const ts = buildTraits(stored);
      const tp = buildTraits(plain);
      for (let k = 0; k < idx.length; k++) {
        const a = hazardInsn(stored[k]!, target, ts, k);
        const b = hazardInsn(plain[k]!, target, tp, k);
        assert.deepEqual(fields(a), fields(b), `${arch} ${src}: ${stored[k]!.insn.text}`);
        compared++;
        if (a.consts.length > 0) consts++;
        if (a.dstSel) dstSel++;
      }
    }
  }
  assert.ok(compared > 1000, `${compared} instructions compared`);
  assert.ok(consts > 0 && dstSel > 0, `constants ${consts}, shifted destinations ${dstSel}`);
});

test("a kernel's operand range lists are kept once each, equal to each instruction's own", () => {
  for (const [src, text] of [SOURCES[1]!]) {
    for (const ctx of kernelContextsFromText(text, src, 'gfx942')) {
      const kept = hazardInsns(ctx);
      const traits = traitsOf(ctx.insns);
      const byContent = new Map<string, readonly OpRange[]>();
      let shared = 0;
      for (let i = 0; i < ctx.insns.length; i++) {
        const ri = ctx.insns[i]!;
        // records are read without a list left on the stored view
        assert.deepEqual(operandsOnce(ri), ri.operands);
        const own = hazardInsn(ri, ctx.target, traits, i).ops;
        assert.deepEqual(kept[i]!.ops, own, `${src}: ${ri.insn.text}`);
        const key = JSON.stringify(own);
        const first = byContent.get(key);
        if (first === undefined) byContent.set(key, kept[i]!.ops);
        else { assert.equal(kept[i]!.ops, first, `${src}: ${ri.insn.text} has its own copy of a kept list`); shared++; }
      }
      assert.ok(shared > 0, `${src}: no list shared`);
    }
  }
});

test('an instruction resolved as an earlier one was has the facts hazardInsn computes for it (copied from the earlier one)', () => {
  // the same instruction in and out of the indexing mode (the kernel's effects change its uses)
  const indexing = [
    'v_mov_b32 v1, v2', 'v_mov_b32 v1, v2', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 'v_mov_b32 v1, v2', 's_set_gpr_idx_off',
    'v_mov_b32 v1, v2', 's_nop 3', 's_nop 3', 's_nop 1', 'v_add_f32 v3, src_execz, v4', 'v_add_f32 v3, src_execz, v4', 's_endpgm',
  ].join('\n') + '\n';
  let copied = 0;
  for (const [src, text] of [...SOURCES, ['indexing.s', indexing] as [string, string]]) {
    for (const arch of ['gfx908', 'gfx90a', 'gfx942', 'gfx950'] as const) {
      let ctxs;
      try { ctxs = kernelContextsFromText(text, src, arch); } catch { continue; }
      for (const ctx of ctxs) {
        const kept = hazardInsns(ctx);
        const traits = traitsOf(ctx.insns);
        for (let i = 0; i < ctx.insns.length; i++) {
          const ri = ctx.insns[i]!;
          assert.equal(kept[i]!.ri, ri);
          assert.deepEqual(fields(kept[i]!), fields(hazardInsn(ri, ctx.target, traits, i)), `${arch} ${src}: ${ri.insn.text}`);
          if (firstAlike(ri) >= 0) copied++;
        }
      }
    }
  }
  assert.ok(copied > 50, `${copied} facts copied`);
  // in the indexing mode the same text reads more registers: not copied
  const ctx = kernelContextsFromText(indexing, 'indexing.s', 'gfx90a')[0]!;
  assert.deepEqual(ctx.insns.slice(0, 6).map(firstAlike), [-1, 0, -1, -1, -1, 0]);
  assert.ok(ctx.insns[3]!.uses.length > ctx.insns[0]!.uses.length);
});
