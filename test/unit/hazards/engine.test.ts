/**
 * The hazard engine: wait-state counting (s_nop N = N+1 up to the counted maximum, every other
 * instruction 1, labels 0), the backward walk across branches and loop back-edges (worst = the
 * smallest distance), the search bound (the true W, not LLVM's 19), findings and the minimal
 * padding.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { context, findings } from './harness.js';
import { computeNops, checkHazards, checkWithPadding, ALL_RULES, generationOf } from '../../../src/hazards/index.js';
import { getTarget } from '../../../src/targets/index.js';

const CMPX = 'v_cmpx_eq_u32 vcc, v0, v1';
const RL = 'v_readlane_b32 s0, v1, s4';

function only(arch: string, asm: string, rule: string) {
  const fs = findings(arch, asm).filter((f) => f.rule === rule);
  return fs;
}

describe('hazard engine: counting', () => {
  it('every instruction counts 1, s_nop N counts N+1', () => {
    const a = only('gfx942', `${CMPX}\ns_nop 1\n${RL}`, 'valu-exec-write-rwlane');
    assert.equal(a.length, 1);
    assert.equal(a[0]!.required, 4);
    assert.equal(a[0]!.actual, 2);
    const b = only('gfx942', `${CMPX}\ns_mov_b32 s6, 0\ns_waitcnt vmcnt(0)\n${RL}`, 'valu-exec-write-rwlane');
    assert.equal(b[0]!.actual, 2);
    assert.equal(only('gfx942', `${CMPX}\ns_nop 3\n${RL}`, "valu-exec-write-rwlane").length, 0);
  });

  it('labels and directives count 0', () => {
    const a = only('gfx942', `${CMPX}\ns_nop 0\n.L1:\n.p2align 2\n${RL}`, 'valu-exec-write-rwlane');
    assert.equal(a[0]!.actual, 1);
  });

  it('s_nop is credited up to maxNopImmCounted (15), by the low four bits of its immediate: s_nop 20 counts 5, with a warning', () => {
    const t = getTarget('gfx950')!;
    assert.equal(t.maxNopImmCounted.value, 15);
    // 16-pass XDL on gfx950 needs 20 before a SrcA/SrcB read
    const mfma = 'v_mfma_f32_32x32x4_2b_f16 v[0:31], v[32:33], v[34:35], v[0:31]';
    const use = 'v_mfma_f32_32x32x4_2b_f16 v[36:67], v[0:1], v[34:35], v[36:67]';
    const a = only('gfx950', `${mfma}\ns_nop 20\n${use}`, 'mfma-xdl-write-mfma-srcab');
    assert.equal(a[0]!.required, 20);
    assert.equal(a[0]!.actual, 5);
    assert.equal(only('gfx950', `${mfma}\ns_nop 15\n${use}`, 'mfma-xdl-write-mfma-srcab')[0]!.actual, 16);
    // s_nop 16 is one wait state (SIMM16[3:0] = 0): an MFMA result read one instruction later is an error
    const acc = only('gfx90a', 'v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]\ns_nop 16\nv_accvgpr_read_b32 v4, a0', 'mfma-xdl-write-valu-read');
    assert.equal(acc.length, 1);
    assert.equal(acc[0]!.actual, 1);
    const w = only('gfx90a', 's_nop 16\ns_nop 15\ns_nop 31', 'nop-immediate');
    assert.deepEqual(w.map((f) => [f.severity, f.actual, f.message.split(':')[0]]), [['warning', 1, 's_nop 16 gives 1 wait state, not 17'], ['warning', 16, 's_nop 31 gives 16 wait states, not 32']]);
    assert.match(w[0]!.message, /^s_nop 16 gives 1 wait state, not 17: .*low four bits/);
  });

  it('uses the true W beyond LLVM\'s search limit of 19 (gfx950, 16-pass XDL: 20)', () => {
    const mfma = 'v_mfma_f32_32x32x4_2b_f16 v[0:31], v[32:33], v[34:35], v[0:31]';
    const use = 'v_mfma_f32_32x32x4_2b_f16 v[36:67], v[0:1], v[34:35], v[36:67]';
    const a = only('gfx950', `${mfma}\ns_nop 15\ns_nop 2\n${use}`, 'mfma-xdl-write-mfma-srcab');
    assert.equal(a.length, 1);
    assert.equal(a[0]!.actual, 19);
    assert.equal(only('gfx950', `${mfma}\ns_nop 15\ns_nop 3\n${use}`, 'mfma-xdl-write-mfma-srcab').length, 0);
  });
});

describe('hazard engine: CFG walk', () => {
  it('follows a branch into the taken path and the fall-through; a join takes the smallest distance', () => {
    // bb0 -> (bb1 | bb2); bb1 has 2 instructions, bb2 (the join) none before the consumer
    const asm = `${CMPX}
s_cbranch_scc1 .Ljoin
s_mov_b32 s6, 0
s_mov_b32 s7, 0
.Ljoin:
${RL}`;
    const a = only('gfx942', asm, 'valu-exec-write-rwlane');
    assert.equal(a.length, 1);
    assert.equal(a[0]!.actual, 1, 'the taken branch is the shorter path (the branch itself counts 1)');
    assert.equal(a[0]!.related[0]!.loc.line, a[0]!.loc.line - 5);
  });

  it('follows a loop back-edge: the consumer at the loop top sees the producer at the loop bottom', () => {
    const asm = `.Lloop:
${RL}
s_add_u32 s8, s8, 1
${CMPX}
s_cbranch_scc1 .Lloop`;
    const a = only('gfx942', asm, 'valu-exec-write-rwlane');
    assert.equal(a.length, 1);
    assert.equal(a[0]!.actual, 1, 's_cbranch_scc1 counts 1');
  });

  it('a producer only in a block that cannot reach the consumer is not seen', () => {
    const asm = `s_branch .Lc
${CMPX}
.Lc:
${RL}`;
    // the v_cmpx is unreachable dead code after s_branch, but it is its own block with no successor edge into .Lc
    // except the fall-through: s_branch ends bb0, the v_cmpx block falls through into .Lc
    const a = only('gfx942', asm, 'valu-exec-write-rwlane');
    assert.equal(a.length, 1, 'the fall-through from the v_cmpx block is an edge');
    assert.equal(a[0]!.actual, 0);
  });

  it('the kernel entry ends the walk', () => {
    assert.equal(only('gfx942', RL, 'valu-exec-write-rwlane').length, 0);
  });

  it('a distance equal to W is enough', () => {
    assert.equal(only('gfx942', `${CMPX}\ns_nop 3\n${RL}`, 'valu-exec-write-rwlane').length, 0);
  });

  // An SGEMM MFMA writes a[0:31]; a load overwrites a[28:31] where s_cbranch_execz lands
  // (LLVM 22's rewrite-vgpr-mfma-to-agpr-phi test, gfx942): 17 wait states on that edge, 18 needed.
  const MFMA = 'v_mfma_f32_32x32x1_2b_f32 a[0:31], v1, v2, a[0:31]';
  const LOAD = 'global_load_dwordx4 a[28:31], v0, s[0:1] offset:112';
  const WAW = 'mfma-sgemm-write-vgpr-overwrite';
  const execz = (between: string, consumer = LOAD) => `${MFMA}
s_cbranch_execz .Lzero
s_branch .Ljoin
.Lzero:
s_nop 15
${between}
${consumer}
.Ljoin:`;

  it('an edge taken only with EXEC = 0 does not reach a consumer that acts on its lanes only', () => {
    assert.deepEqual(only('gfx942', execz(''), WAW), [], 'the s_cbranch_execz branch: the load writes no lane');
    // the fall-through of s_cbranch_execnz is taken only with EXEC = 0 too
    const nz = `${MFMA}
s_cbranch_execnz .Ljoin
s_nop 15
${LOAD}
.Ljoin:`;
    assert.deepEqual(only('gfx942', nz, WAW), []);
  });

  it('the EXEC = 0 edge still counts where EXEC is written first, where it is also the fall-through, and for a consumer that is not lane-masked', () => {
    const restored = only('gfx942', execz('s_mov_b64 exec, -1').replace('s_nop 15', 's_nop 13'), WAW);
    assert.equal(restored.length, 1, 'EXEC written between the branch and the consumer');
    assert.equal(restored[0]!.actual, 16, 's_cbranch_execz, s_nop 13, s_mov_b64');
    // the branch lands on its own fall-through: that edge is taken with lanes enabled too
    const fall = only('gfx942', `${MFMA}
s_cbranch_execz .Lnext
.Lnext:
s_nop 15
${LOAD}`, WAW);
    assert.equal(fall.length, 1);
    assert.equal(fall[0]!.actual, 17);
    // v_readfirstlane reads lane 0 whatever EXEC holds (SIInstrInfo::hasUnwantedEffectsWhenEXECEmpty)
    const rfl = only('gfx942', execz('', 'v_readfirstlane_b32 s4, v28').replace('a[0:31], v1, v2, a[0:31]', 'v[0:31], v1, v2, v[0:31]'), 'mfma-sgemm-write-valu-read');
    assert.equal(rfl.length, 1, 'v_readfirstlane reads lane 0 even with EXEC = 0');
    // an MFMA consumer keeps the edge (the ISA text does not settle MFMA under EXEC = 0)
    const mf = only('gfx942', execz('', 'v_mfma_f32_32x32x1_2b_f32 a[32:63], a28, v2, a[32:63]'), 'mfma-sgemm-write-mfma-srcab');
    assert.equal(mf.length, 1);
  });
});

describe('hazard engine: findings and padding', () => {
  it('a finding names both instructions, W required vs present, the fix and the source', () => {
    const [f] = findings('gfx942', `v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]\ns_nop 2\nv_add_f32 v8, v5, v5`);
    assert.ok(f);
    assert.equal(f.rule, 'mfma-xdl-write-valu-read');
    assert.equal(f.severity, 'error');
    assert.match(f.message, /^v_add_f32 reads v5 written by v_mfma_f32_16x16x16_f16 at line \d+ \(XDL, 4 passes\): 7 wait states required on gfx942, 3 present$/);
    assert.equal(f.required, 7);
    assert.equal(f.actual, 3);
    assert.deepEqual(f.fix, { kind: 'nop', before: 2, waitStates: 4 });
    assert.equal(f.related[0]!.insn, 0);
    assert.match(f.source!, /^LLVM GCNHazardRecognizer::checkMAIVALUHazards .*AMD CDNA3 ISA Table 37 Case 106/);
  });

  it('padding before an earlier consumer lengthens later distances (minimal total)', () => {
    const ctx = context('gfx942', `${CMPX}\n${RL}\nv_readlane_b32 s1, v1, s5`);
    assert.equal(checkHazards(ctx).length, 2, 'both readlanes are too close');
    const plan = computeNops(ctx);
    assert.equal(plan.total, 4);
    assert.deepEqual(plan.sites.map((s) => [s.insn, s.waitStates]), [[1, 4]]);
  });

  it('after padding, the kernel checks clean', () => {
    const ctx = context('gfx90a', `v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
v_accvgpr_read_b32 v4, a3
v_mfma_f32_32x32x8f16 a[16:31], v[4:5], v[2:3], a[16:31]
global_store_dword v[6:7], v4, off`);
    const plan = computeNops(ctx);
    assert.deepEqual(checkWithPadding(ctx, plan.pads).map((f) => f.message), []);
    assert.ok(plan.total > 0);
  });

  it('generations come from features, not names', () => {
    assert.deepEqual(['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'].map((t) => generationOf(getTarget(t)!)),
      ['gcn5', 'cdna1', 'cdna2', 'cdna3', 'cdna4']);
  });

  it('every rule has an id, a source and sourced facts', () => {
    const ids = new Set<string>();
    for (const r of ALL_RULES) {
      assert.match(r.id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(!ids.has(r.id), `duplicate id ${r.id}`);
      ids.add(r.id);
      assert.ok(r.source.length > 10, r.id);
      assert.ok(r.facts.length > 0, r.id);
      for (const f of r.facts) assert.match(f.source, /LLVM \w|AMD (CDNA3|CDNA4|MI200) ISA|^oracle \(LLVM 22/, `${r.id}: ${f.what}`);
    }
  });
});
