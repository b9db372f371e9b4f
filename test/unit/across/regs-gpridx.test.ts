/**
 * VGPR indexing mode: between s_set_gpr_idx_on and s_set_gpr_idx_off the operands the mode bits
 * select reach the registers the index (M0[7:0]) may select, and the instruction reads M0.
 * Resolution, liveness, the dependency graph, waitcnt and verify agree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText, type Loaded } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { kernelResources } from '../../../src/analysis/resources.js';
import { checkWaitcnt } from '../../../src/waitcnt/index.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { tryMove } from './regs-helpers.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { unitsToString } from '../../../src/asm/registers.js';
import { resolveInstruction } from '../../../src/isa/resolve.js';
import { U } from '../isa/helpers.js';

/** Kernel `k` on `arch` with .amdhsa_next_free_vgpr `nfv` (gfx90a+: accum_offset = nfv). */
function kernel(body: string[], arch = 'gfx908', nfv = 24): string {
  return [
    `.amdgcn_target "amdgcn-amd-amdhsa--${arch}"`, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    ...body.map((l) => (l.endsWith(':') ? l : `  ${l}`)), '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k', `  .amdhsa_next_free_vgpr ${nfv}`, '  .amdhsa_next_free_sgpr 16',
    ...(arch === 'gfx908' || arch === 'gfx906' ? [] : [`  .amdhsa_accum_offset ${nfv}`]), '.end_amdhsa_kernel', '',
  ].join('\n');
}

const load = (body: string[], arch?: string, nfv?: number, name = 'k.s'): Loaded => loadText(kernel(body, arch, nfv), name);

function du(l: Loaded, text: string, nth = 0): { defs: string; uses: string } {
  const r = l.resolved.filter((x) => x.insn.text === text)[nth];
  assert.ok(r, `'${text}' found`);
  const s = (a: readonly number[]) => unitsToString([...a].sort((x, y) => x - y));
  return { defs: s(r.defs), uses: s(r.uses) };
}

const spec = (defs: string, uses: string) => ({ defs: unitsToString(U(defs)), uses: unitsToString(U(uses)) });

test('LLVM\'s pattern: the index masked with s_and_b32 / s_bfe_u32 bounds the range exactly', () => {
  for (const arch of ['gfx906', 'gfx908', 'gfx90a', 'gfx942']) {
    const l = load([
      's_and_b32 s0, s0, 15',
      's_set_gpr_idx_on s0, gpr_idx(SRC0)',
      'v_mov_b32_e32 v19, v0',
      's_set_gpr_idx_off',
      's_and_b32 s1, s7, 15',
      's_set_gpr_idx_on s1, gpr_idx(DST)',
      'v_mov_b32_e32 v0, v19',
      's_set_gpr_idx_off',
      's_bfe_u32 s4, s7, 0x40004',
      's_set_gpr_idx_on s4, gpr_idx(SRC0)',
      'v_mov_b32_e32 v0, v0',
      's_set_gpr_idx_off',
      'v_mov_b32_e32 v20, v0',
    ], arch);
    // as LLVM's MIR lists them (V_MOV_B32_indirect_read / _write with the vector as implicit operands)
    assert.deepEqual(du(l, 'v_mov_b32_e32 v19, v0'), spec('v19', 'v[0:15] m0 exec'), arch);
    assert.deepEqual(du(l, 'v_mov_b32_e32 v0, v19'), spec('v[0:15]', 'v[0:15] v19 m0 exec'), arch);
    assert.deepEqual(du(l, 'v_mov_b32_e32 v0, v0'), spec('v0', 'v[0:15] m0 exec'), arch);
    // after s_set_gpr_idx_off: the instruction as written
    assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v0 exec'), arch);
    // the mode instructions themselves
    assert.deepEqual(du(l, 's_set_gpr_idx_on s0, gpr_idx(SRC0)'), spec('m0 mode', 's0 m0 mode'), arch);
    assert.deepEqual(du(l, 's_set_gpr_idx_off'), spec('mode', 'mode'), arch);
  }
});

test('an unknown index reaches the rest of the kernel\'s registers (and v0, read past the end)', () => {
  const l = load(['s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)', 'v_mov_b32_e32 v20, v5', 's_set_gpr_idx_off']);
  // next_free_vgpr 24: v5..v23 read (and v0 when the index runs past v23); v20..v23 may be written, the rest kept
  assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v5'), spec('v[20:23]', 'v0 v[5:23] m0 exec'));
  // without a descriptor: up to the highest VGPR the code names
  const s = loadText('s_set_gpr_idx_on s2, gpr_idx(SRC0)\nv_mov_b32_e32 v9, v2\ns_set_gpr_idx_off\nv_mov_b32 v30, 0\n', 's.s', { arch: 'gfx942' });
  assert.deepEqual(du(s, 'v_mov_b32_e32 v9, v2'), spec('v9', 'v0 v[2:30] m0 exec'));
});

test('an exact index reaches one register: a write there is a plain write', () => {
  const l = load(['s_mov_b32 s2, 3', 's_set_gpr_idx_on s2, gpr_idx(SRC0)', 'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off',
    's_set_gpr_idx_on s2, gpr_idx(DST)', 'v_mov_b32_e32 v0, v20', 's_set_gpr_idx_off']);
  assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v3 m0 exec'));
  assert.deepEqual(du(l, 'v_mov_b32_e32 v0, v20'), spec('v3', 'v20 m0 exec'));
});

test('only the operands the mode bits select are indexed; SGPRs and constants never', () => {
  const l = load(['s_and_b32 s0, s0, 3', 's_set_gpr_idx_on s0, gpr_idx(SRC1)',
    'v_add_f32_e32 v20, v1, v8', 'v_add_f32_e32 v21, s3, v8', 'v_mov_b32_e32 v22, v1', 's_set_gpr_idx_off']);
  assert.deepEqual(du(l, 'v_add_f32_e32 v20, v1, v8'), spec('v20', 'v1 v[8:11] m0 exec mode'));
  assert.deepEqual(du(l, 'v_add_f32_e32 v21, s3, v8'), spec('v21', 's3 v[8:11] m0 exec mode'));
  // v_mov_b32 has no src1: nothing indexed, M0 not read
  assert.deepEqual(du(l, 'v_mov_b32_e32 v22, v1'), spec('v22', 'v1 exec'));
});

test('s_set_gpr_idx_mode / s_set_gpr_idx_idx change the mode bits / the index', () => {
  const l = load(['s_and_b32 s0, s0, 1', 's_mov_b32 s1, 4', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 'v_mov_b32_e32 v20, v0',
    's_set_gpr_idx_mode gpr_idx(DST)', 'v_mov_b32_e32 v10, v21', 's_set_gpr_idx_idx s1', 'v_mov_b32_e32 v11, v21', 's_set_gpr_idx_off']);
  assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v[0:1] m0 exec'));
  assert.deepEqual(du(l, 'v_mov_b32_e32 v10, v21'), spec('v[10:11]', 'v[10:11] v21 m0 exec'));
  assert.deepEqual(du(l, 'v_mov_b32_e32 v11, v21'), spec('v15', 'v21 m0 exec'));
});

test('s_setreg of MODE.gpr_idx_en (bit 27) turns the mode on or off; other MODE fields do not', () => {
  const on = load(['s_mov_b32 m0, 0x1002', 's_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 1', 'v_mov_b32_e32 v20, v0',
    's_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 0', 'v_mov_b32_e32 v21, v0']);
  assert.deepEqual(du(on, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v2 m0 exec'), 'M0 = 0x1002: index 2, mode SRC0');
  assert.deepEqual(du(on, 'v_mov_b32_e32 v21, v0'), spec('v21', 'v0 exec'));
  // an unknown value may set the bit: index and mode bits unknown
  const maybe = load(['s_setreg_b32 hwreg(HW_REG_MODE), s4', 'v_mov_b32_e32 v20, v0']);
  assert.deepEqual(du(maybe, 'v_mov_b32_e32 v20, v0'), spec('v[20:23]', 'v[0:23] m0 exec'));
  const round = load(['s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s4', 'v_mov_b32_e32 v20, v0']);
  assert.deepEqual(du(round, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v0 exec'));
});

test('the mode across a branch: on at a label that a branch reaches while it is on; index unknown there', () => {
  const l = load(['s_and_b32 s0, s0, 1', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 's_cbranch_scc0 .LBB0_2',
    'v_mov_b32_e32 v20, v0', '.LBB0_2:', 'v_mov_b32_e32 v21, v1', 's_set_gpr_idx_off', 's_branch .LBB0_3', '.LBB0_3:',
    'v_mov_b32_e32 v22, v1']);
  assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v[0:1] m0 exec'));
  // index and mode bits unknown at the label: every operand indexed
  assert.deepEqual(du(l, 'v_mov_b32_e32 v21, v1'), spec('v[21:23]', 'v[0:23] m0 exec'));
  assert.deepEqual(du(l, 'v_mov_b32_e32 v22, v1'), spec('v22', 'v1 exec'));
  // a loop: the back edge is taken with the mode off; the mode stays off at the loop head
  const loop = load(['.LBB0_1:', 'v_mov_b32_e32 v21, v1', 's_and_b32 s0, s0, 1', 's_set_gpr_idx_on s0, gpr_idx(SRC0)',
    'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off', 's_cbranch_scc0 .LBB0_1']);
  assert.deepEqual(du(loop, 'v_mov_b32_e32 v21, v1'), spec('v21', 'v1 exec'));
});

test('a loop counter as the index: its values at the loop top bound the range (LLVM -O1 GEMM, gfx942)', () => {
  // s2 = 0, 1, ..., 15 at .Ltop: the loop goes on while the new value is not 16
  const loop = (cmp: string, branch: string, init = 's_mov_b32 s2, 0', step = 's_add_i32 s2, s2, 1') => load([
    'global_load_dwordx4 v[20:23], v[0:1], off', init, '.Ltop:', 's_set_gpr_idx_on s2, gpr_idx(SRC0)', 'v_mov_b32_e32 v19, v2', 's_set_gpr_idx_off',
    step, cmp, 'global_store_dword v[0:1], v19, off', `${branch} .Ltop`, 's_waitcnt vmcnt(0)', 'global_store_dwordx4 v[0:1], v[20:23], off',
  ], 'gfx942', 24);
  const read = (l: Loaded) => du(l, 'v_mov_b32_e32 v19, v2').uses;
  assert.equal(read(loop('s_cmp_eq_u32 s2, 16', 's_cbranch_scc0')), spec('', 'v[2:17] m0 exec').uses);
  assert.equal(checkWaitcnt(kernelContexts(loop('s_cmp_eq_u32 s2, 16', 's_cbranch_scc0'))[0]!).length, 0, 'v[20:23] is not read: no wait missing');
  assert.equal(read(loop('s_cmp_lg_u32 s2, 16', 's_cbranch_scc1')), spec('', 'v[2:17] m0 exec').uses);
  assert.equal(read(loop('s_cmp_lt_u32 s2, 8', 's_cbranch_scc1')), spec('', 'v[2:9] m0 exec').uses);
  assert.equal(read(loop('s_cmp_ge_u32 s2, 8', 's_cbranch_scc0')), spec('', 'v[2:9] m0 exec').uses);
  assert.equal(read(loop('s_cmp_le_i32 s2, 8', 's_cbranch_scc1')), spec('', 'v[2:10] m0 exec').uses);
  assert.equal(read(loop('s_cmp_eq_u32 s2, 16', 's_cbranch_scc0', 's_mov_b32 s2, 4', 's_add_i32 s2, s2, 4')), spec('', 'v[6:14] m0 exec').uses);
  // not a bounded counter: the whole rest of the registers (v0 read past the end)
  const whole = spec('', 'v0 v[2:23] m0 exec').uses;
  assert.equal(read(loop('s_cmp_eq_u32 s2, 15', 's_cbranch_scc0', 's_mov_b32 s2, 0', 's_add_i32 s2, s2, 2')), whole, 'steps of 2 from 0 never equal 15');
  assert.equal(read(loop('s_cmp_lt_u32 s2, 16', 's_cbranch_scc0')), whole, 'goes on while the value is at least 16: wraps');
  assert.equal(read(loop('s_cmp_eq_u32 s2, 16', 's_cbranch_scc0', 's_mov_b32 s2, s5')), whole, 'unknown start');
  assert.equal(read(loop('s_cmp_eq_u32 s2, 300', 's_cbranch_scc0')), whole, 'beyond one byte');
  assert.equal(read(loop('s_cmp_lt_u32 s2, -1', 's_cbranch_scc1')), whole, 'below 2^32 - 1: an unsigned compare reads -1 so');
  assert.equal(read(loop('s_cmp_lt_i32 s2, -1', 's_cbranch_scc1')), spec('', 'v2 m0 exec').uses, 'signed: the loop runs once, at 0');
  assert.equal(read(loop('s_cmp_eq_u32 s2, 16', 's_cbranch_scc0', 's_mov_b32 s2, 0\n  s_swappc_b64 s[30:31], s[4:5]')), whole, 'a call between the start and the loop');
  assert.equal(read(loop('s_cmp_eq_u32 s3, 16', 's_cbranch_scc0')), whole, 'the compare is of another register');
  // the loop top reached by another branch too: its value there is unknown
  const entered = load(['s_mov_b32 s2, 0', 's_cbranch_scc1 .Ltop', 's_mov_b32 s2, 0', '.Ltop:', 's_set_gpr_idx_on s2, gpr_idx(SRC0)', 'v_mov_b32_e32 v19, v2',
    's_set_gpr_idx_off', 's_add_i32 s2, s2, 1', 's_cmp_eq_u32 s2, 16', 's_cbranch_scc0 .Ltop'], 'gfx942', 24);
  assert.equal(read(entered), whole);
  // written twice in the loop
  const twice = load(['s_mov_b32 s2, 0', '.Ltop:', 's_set_gpr_idx_on s2, gpr_idx(SRC0)', 'v_mov_b32_e32 v19, v2', 's_set_gpr_idx_off',
    's_add_i32 s2, s2, 1', 's_lshl_b32 s2, s2, 1', 's_cmp_eq_u32 s2, 16', 's_cbranch_scc0 .Ltop'], 'gfx942', 24);
  assert.equal(read(twice), whole);
});

test('a `conductor: gpr-idx` comment states the range; a malformed one is a warning', () => {
  const l = load(['s_set_gpr_idx_on s2, gpr_idx(SRC0) // conductor: gpr-idx 0..7', 'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off',
    's_set_gpr_idx_on s2, gpr_idx(SRC0) ; conductor: gpr-idx 5', 'v_mov_b32_e32 v21, v8', 's_set_gpr_idx_off']);
  assert.deepEqual(du(l, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v[0:7] m0 exec'));
  assert.deepEqual(du(l, 'v_mov_b32_e32 v21, v8'), spec('v21', 'v13 m0 exec'));
  const bad = load(['s_set_gpr_idx_on s2, gpr_idx(SRC0) // conductor: gpr-idx 9..2', 'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off']);
  assert.equal(bad.warnings.length, 1);
  assert.match(bad.warnings[0]!.message, /ignored 'conductor: gpr-idx 9\.\.2': write the index range as LO\.\.HI/);
  assert.equal(bad.warnings[0]!.loc.line, 7);
  assert.deepEqual(du(bad, 'v_mov_b32_e32 v20, v0'), spec('v20', 'v[0:23] m0 exec'));
});

const REGION = ['s_and_b32 s0, s0, 15', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 'v_mov_b32_e32 v20, v0', 'v_mov_b32_e32 v5, 1',
  'v_mov_b32_e32 v17, 1', 's_set_gpr_idx_off', 'global_store_dword v[22:23], v20, off'];

test('liveness, the dependency graph and verify see the whole range', () => {
  const l = load(REGION);
  // v0..v15 are live into the indexed read: 16 + v22, v23 at its peak
  const { resources } = kernelResources(kernelContexts(l)[0]!);
  assert.ok(resources.peak.vgpr.value >= 18, `peak ${resources.peak.vgpr.value}`);
  assert.equal(resources.used.vgpr, 24, 'the range stays within the kernel\'s registers');
  // v5 is in the range the read may select, v17 is not
  const refused = tryMove(pickKernel(l), 'swap v_mov_b32_e32_0 v_mov_b32_e32_1');
  assert.ok(refused);
  assert.match(refused.reason, /v_mov_b32_e32_0 reads v5 which v_mov_b32_e32_1 writes/);
  assert.equal(tryMove(pickKernel(l), 'move v_mov_b32_e32_2 before v_mov_b32_e32_0'), undefined);
  // verify agrees, on its own reading of the mode
  const swap = (a: number, b: number) => { const x = [...REGION]; [x[a], x[b]] = [x[b]!, x[a]!]; return x; };
  const bad = verifyLoaded(l, load(swap(2, 3), undefined, undefined, 'b.s'));
  assert.equal(bad.equivalent, false);
  assert.match(bad.difference!.message, /'v_mov_b32_e32 v20, v0' \(k\.s:9\) reads v5 from the value from before the region in the original but from 'v_mov_b32_e32 v5, 1'/);
  const hoisted = [...REGION.slice(0, 2), REGION[4]!, REGION[2]!, REGION[3]!, ...REGION.slice(5)];
  assert.equal(verifyLoaded(l, load(hoisted, undefined, undefined, 'b.s')).equivalent, true);
  // verify reads the mode itself: instructions resolved one by one (no index ranges) are still told apart
  const raw = (x: Loaded): Loaded => ({ ...x, resolved: x.program.instructions.map((i) => resolveInstruction(i, x.target)) });
  assert.equal(verifyLoaded(raw(l), raw(load(swap(2, 3), undefined, undefined, 'b.s')), { skipCheck: true }).equivalent, false);
  assert.equal(verifyLoaded(raw(l), raw(load(hoisted, undefined, undefined, 'b.s')), { skipCheck: true }).equivalent, true);
});

test('waitcnt: a load into a register the index may select must return first', () => {
  const body = (mask: number) => ['global_load_dword v7, v[22:23], off', `s_and_b32 s0, s0, ${mask}`, 's_set_gpr_idx_on s0, gpr_idx(SRC0)',
    'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off', 's_waitcnt vmcnt(0)', 'global_store_dword v[22:23], v20, off'];
  const errs = (mask: number) => checkWaitcnt(kernelContexts(load(body(mask)))[0]!).filter((f) => f.severity === 'error');
  assert.deepEqual(errs(15).map((f) => `${f.loc.line} ${f.rule}`), ['10 waitcnt-missing']);
  // the message says why a line naming v0 reads v7
  assert.match(errs(15)[0]!.message, /^v_mov_b32_e32 reads v7 \(in the VGPR indexing mode: an operand reaches its register plus the index in M0, .*`conductor: gpr-idx LO\.\.HI`.*\) loaded by global_load_dword/);
  assert.deepEqual(errs(3), []);
  // a register the line names is read as usual: no such words
  const named = ['global_load_dword v0, v[22:23], off', 's_and_b32 s0, s0, 15', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 'v_mov_b32_e32 v20, v0', 's_set_gpr_idx_off'];
  const m = checkWaitcnt(kernelContexts(load(named))[0]!).filter((f) => f.rule === 'waitcnt-missing');
  assert.equal(m.length, 1);
  assert.doesNotMatch(m[0]!.message, /indexing mode/);
});

test('every instruction that sets the mode or the index is pinned, as verify pins it', () => {
  const k = pickKernel(load(['s_mov_b32 s1, 2', 's_set_gpr_idx_on s0, gpr_idx(SRC0)', 's_set_gpr_idx_idx s1', 's_set_gpr_idx_mode 2',
    'v_add_f32_e32 v20, v1, v0', 's_set_gpr_idx_off']));
  for (const tag of ['s_set_gpr_idx_on_0', 's_set_gpr_idx_idx_0', 's_set_gpr_idx_mode_0', 's_set_gpr_idx_off_0']) {
    const r = tryMove(k, `move ${tag} before s_mov_b32_0`);
    assert.ok(r, tag);
    assert.match(r.reason, /pinned|mode instruction/, tag);
  }
});
