/**
 * One register file where the hardware has one: on gfx90a, gfx942 and gfx950 a_k is
 * v(accum_offset+k), for every analysis (units, descriptor check, liveness and pressure, hazards,
 * waitcnt, the dependency graph, verify, occupancy); on gfx908 (separate AccVGPR file) and
 * gfx906 nothing aliases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText, type Loaded } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { kernelResources } from '../../../src/analysis/resources.js';
import { checkLoaded } from '../../../src/check/check.js';
import { checkHazards } from '../../../src/hazards/index.js';
import { checkWaitcnt } from '../../../src/waitcnt/index.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { tryMove } from './regs-helpers.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { resolveInstruction } from '../../../src/isa/resolve.js';
import { kernelLayout } from '../../../src/isa/layout.js';
import { AGPR_BASE, VGPR_BASE } from '../../../src/asm/registers.js';
import { analyzeLoaded } from '../../../src/check/analyze.js';

const UNIFIED = ['gfx90a', 'gfx942', 'gfx950'] as const;

/** A kernel `k` with a descriptor (nextFreeVgpr, accumOffset; accumOffset omitted on gfx908). */
function kernel(arch: string, body: string[], nextFreeVgpr: number, accumOffset?: number): string {
  return [
    `.amdgcn_target "amdgcn-amd-amdhsa--${arch}"`, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    ...body.map((l) => `  ${l}`), '  s_endpgm',
    '.rodata', '.p2align 6', '.amdhsa_kernel k', `  .amdhsa_next_free_vgpr ${nextFreeVgpr}`, '  .amdhsa_next_free_sgpr 8',
    ...(accumOffset !== undefined ? [`  .amdhsa_accum_offset ${accumOffset}`] : []), '.end_amdhsa_kernel', '',
  ].join('\n');
}

/** The repro: a0 written, v128 written, a0 read. */
const REPRO = ['v_accvgpr_write_b32 a0, v1', 'v_mov_b32_e32 v128, 5', 'v_accvgpr_read_b32 v2, a0', 'global_store_dword v[4:5], v2, off'];

const load = (text: string, name = 'k.s'): Loaded => loadText(text, name);
const repro = (arch: string, accum: number | undefined = arch === 'gfx908' ? undefined : 128) => kernel(arch, REPRO, 132, accum);

function unitsOf(l: Loaded, text: string): { defs: readonly number[]; uses: readonly number[] } {
  const r = l.resolved.find((x) => x.insn.text === text);
  assert.ok(r, `instruction '${text}' found`);
  return r;
}

test('units: v(accum_offset+k) is the unit of a_k on gfx90a, gfx942 and gfx950, not on gfx908', () => {
  for (const arch of UNIFIED) {
    const l = load(repro(arch));
    assert.deepEqual(unitsOf(l, 'v_mov_b32_e32 v128, 5').defs, [AGPR_BASE], arch);
    assert.ok(unitsOf(l, 'v_accvgpr_read_b32 v2, a0').uses.includes(AGPR_BASE), arch);
    // below accum_offset a VGPR is a VGPR
    const low = load(kernel(arch, ['v_mov_b32 v127, v126', 'v_accvgpr_write_b32 a1, v127'], 132, 128));
    assert.deepEqual(unitsOf(low, 'v_mov_b32 v127, v126').defs, [VGPR_BASE + 127]);
    // a tuple straddling accum_offset: its parts below and above
    const straddle = load(kernel(arch, ['global_load_dwordx4 v[126:129], v[4:5], off', 'v_accvgpr_read_b32 v0, a1'], 132, 128));
    assert.deepEqual([...unitsOf(straddle, 'global_load_dwordx4 v[126:129], v[4:5], off').defs],
      [VGPR_BASE + 126, VGPR_BASE + 127, AGPR_BASE, AGPR_BASE + 1]);
  }
  const l = load(repro('gfx908'));
  assert.deepEqual(unitsOf(l, 'v_mov_b32_e32 v128, 5').defs, [VGPR_BASE + 128]);
});

test('units: without a descriptor the AGPRs follow the highest VGPR named, rounded up to 4 (nothing aliases), and a note says so', () => {
  const text = ['v_mov_b32 v130, v1', 'v_accvgpr_write_b32 a0, v130', 'v_accvgpr_read_b32 v2, a0'].join('\n') + '\n';
  const l = loadText(text, 's.s', { arch: 'gfx90a' });
  const layout = kernelLayout(l.program, l.program.kernels[0]!, l.target);
  assert.equal(layout.accumOffset, 132);
  assert.equal(layout.accumFrom, 'assumed');
  assert.deepEqual(unitsOf(l, 'v_mov_b32 v130, v1').defs, [VGPR_BASE + 130]);
  const report = checkLoaded(l);
  assert.ok(report.notes.some((n) => /accum_offset 132 assumed \(a0 is v132/.test(n)), report.notes.join('\n'));
  assert.equal(report.errors, 0);
  // no AGPRs: nothing to say
  assert.deepEqual(checkLoaded(loadText('v_mov_b32 v1, v2\n', 's.s', { arch: 'gfx942' })).notes, []);
  // a descriptor without .amdhsa_accum_offset is bad input on gfx90a+, as llvm-mc 22 says
  assert.throws(() => load(kernel('gfx90a', ['v_accvgpr_write_b32 a0, v9'], 16)), /\.amdhsa_accum_offset directive is required/);
  // an offset the target does not take is bad input, as llvm-mc 22 says
  assert.throws(() => loadText(kernel('gfx90a', ['v_mov_b32 v1, v2', 'v_accvgpr_write_b32 a0, v1'], 8, 0), 'z.s'), /accum_offset should be in range \[4\.\.256\] in increments of 4/);
});

test('descriptor check: AGPR space reused as VGPRs is covered by next_free_vgpr; a descriptor that is too small names the first instruction beyond it', () => {
  // AMD's gfx90a kernels: accumulators a0..a3, then v[128:131] as ordinary VGPRs; 132 registers in all.
  const amd = ['v_accvgpr_write_b32 a0, v1', 'v_accvgpr_write_b32 a3, v1', 'v_accvgpr_read_b32 v2, a3',
    'v_mov_b32 v128, v2', 'v_mov_b32 v131, v2', 'global_store_dwordx4 v[4:5], v[128:131], off'];
  for (const arch of UNIFIED) {
    const r = checkLoaded(load(kernel(arch, amd, 132, 128)));
    assert.deepEqual(r.findings.filter((f) => f.rule === 'descriptor-registers').map((f) => f.message), [], arch);
  }
  const small = checkLoaded(load(kernel('gfx90a', amd, 130, 128)));
  const f = small.findings.filter((x) => x.rule === 'descriptor-registers');
  assert.equal(f.length, 1);
  // the highest register, named as written, and the first instruction beyond the descriptor
  assert.match(f[0]!.message, /the highest register used is a3 \(v131 with accum_offset 128\), but \.amdhsa_next_free_vgpr is 130 \(the first use beyond it: a3 at line 8 \('v_accvgpr_write_b32 a3, v1'\)\)/);
  assert.equal(f[0]!.related[0]!.loc.line, 8);
  // v131 lies within the 136 VGPRs that 130 gives in groups of 8: the code runs, a warning
  assert.equal(f[0]!.severity, 'warning');
  assert.match(f[0]!.message, /gfx90a allocates VGPRs in groups of 8, so the wave gets 136 and the code runs/);
  const beyond = checkLoaded(load(kernel('gfx90a', amd, 128, 124))).findings.filter((x) => x.rule === 'descriptor-registers');
  assert.deepEqual(beyond.map((x) => x.severity), ['error'], 'v131 beyond the 128 that 128 gives');
  // gfx906 in groups of 4: v58 with next_free_vgpr 58 is within the 60 allocated, v60 is not
  assert.deepEqual(checkLoaded(load(kernel('gfx906', ['v_mov_b32 v58, 0'], 58))).findings.filter((x) => x.rule === 'descriptor-registers').map((x) => x.severity), ['warning']);
  assert.deepEqual(checkLoaded(load(kernel('gfx906', ['v_mov_b32 v60, 0'], 58))).findings.filter((x) => x.rule === 'descriptor-registers').map((x) => x.severity), ['error']);
  // a VGPR beyond the descriptor
  const v = checkLoaded(load(kernel('gfx942', ['v_mov_b32 v40, 0'], 32, 32))).findings.filter((x) => x.rule === 'descriptor-registers');
  assert.match(v[0]!.message, /the highest register used is v40, but \.amdhsa_next_free_vgpr is 32 \(the first use beyond it: v40 at line 7/);
  assert.equal(v[0]!.severity, 'error');
  const sg = checkLoaded(load(kernel('gfx942', ['s_mov_b32 s9, 0', 's_mov_b64 s[40:41], 0'], 32, 32))).findings.filter((x) => x.rule === 'descriptor-registers');
  assert.equal(sg.length, 1);
  assert.match(sg[0]!.message, /the highest register used is s41, but \.amdhsa_next_free_sgpr is 8 \(the first use beyond it: s9 at line 7/);
  // gfx908: next_free_vgpr is max(VGPRs, AGPRs); separate files
  assert.equal(checkLoaded(load(kernel('gfx908', amd, 132))).findings.filter((x) => x.rule === 'descriptor-registers').length, 0);
  const a908 = checkLoaded(load(kernel('gfx908', ['v_accvgpr_write_b32 a40, v1'], 32))).findings.filter((x) => x.rule === 'descriptor-registers');
  assert.match(a908[0]!.message, /the highest register used is a40, but \.amdhsa_next_free_vgpr is 32 \(on gfx908 it counts max\(VGPRs, AGPRs\)\)/);
});

test('liveness, pressure and occupancy count the unified file once', () => {
  // a0 dies at its read; v128 (the same register) is live afterwards: one AGPR-space register at most
  const body = ['v_accvgpr_write_b32 a0, v1', 'v_accvgpr_read_b32 v2, a0', 'v_mov_b32 v128, v2', 'global_store_dword v[4:5], v128, off'];
  for (const arch of UNIFIED) {
    const [c] = kernelContexts(load(kernel(arch, body, 132, 128)));
    const { resources } = kernelResources(c!);
    assert.equal(resources.peak.agpr.value, 1, arch);
    assert.equal(resources.used.agpr, 1, `${arch}: a0 and v128 are one register`);
    // the code pins the AGPRs at v128: the allocation it needs is 128 + 1, not align(6, 4) + 1
    assert.equal(resources.occupancy.registersUsed.allocated.vgprs, 136, arch);
    assert.equal(resources.occupancy.registersUsed.wavesPerSimd, resources.occupancy.descriptor!.wavesPerSimd, arch);
  }
  // gfx908: two files; v128 is a VGPR
  const [c908] = kernelContexts(load(kernel('gfx908', body, 132)));
  const r908 = kernelResources(c908!).resources;
  assert.equal(r908.used.vgpr, 129);
  assert.equal(r908.used.agpr, 1);
  const a = analyzeLoaded(load(kernel('gfx90a', body, 132, 128))).kernels[0]!;
  assert.deepEqual(a.used, { vgpr: 6, agpr: 1, sgpr: 0 });
});

test('hazards: a VALU write of v128 then an MFMA reading a0 is a dependency on gfx90a (not when a0 is another register)', () => {
  const body = ['v_mov_b32_e32 v128, 5', 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]'];
  const fs = checkHazards(kernelContexts(load(kernel('gfx90a', body, 136, 128)))[0]!);
  const hit = fs.filter((f) => f.rule === 'valu-write-mfma-read');
  assert.equal(hit.length, 1, fs.map((f) => f.message).join('\n'));
  assert.equal(hit[0]!.required, 2);
  assert.equal(hit[0]!.related[0]!.loc.line, 7);
  for (const [arch, accum] of [['gfx90a', 132], ['gfx908', undefined]] as const) {
    const other = checkHazards(kernelContexts(load(kernel(arch, body, 136, accum)))[0]!);
    assert.deepEqual(other.filter((f) => f.rule === 'valu-write-mfma-read').map((f) => f.message), [], `${arch} accum ${accum}`);
  }
});

test('waitcnt: a load into v128 must return before a0 is read', () => {
  const body = ['global_load_dword v128, v[4:5], off', 'v_accvgpr_read_b32 v2, a0', 'global_store_dword v[4:5], v2, off'];
  const fs = checkWaitcnt(kernelContexts(load(kernel('gfx942', body, 132, 128)))[0]!).filter((f) => f.severity === 'error');
  assert.equal(fs.length, 1);
  assert.equal(fs[0]!.rule, 'waitcnt-missing');
  assert.equal(fs[0]!.loc.line, 8);
  assert.match(fs[0]!.message, /v_accvgpr_read_b32 reads a0 loaded by global_load_dword \(line 7\)/);
  // named as the reader writes it
  const v = checkWaitcnt(kernelContexts(load(kernel('gfx942', ['global_load_dword a0, v[4:5], off', 'v_mov_b32 v2, v128'], 132, 128)))[0]!);
  assert.match(v.find((f) => f.severity === 'error')!.message, /v_mov_b32 reads v128 loaded by global_load_dword/);
  assert.equal(checkWaitcnt(kernelContexts(load(kernel('gfx942', body, 136, 132)))[0]!).filter((f) => f.severity === 'error').length, 0);
  assert.equal(checkWaitcnt(kernelContexts(load(kernel('gfx908', body, 132)))[0]!).filter((f) => f.severity === 'error').length, 0);
});

test('dependency graph: swapping the v128 write and the a0 read is refused, naming the register as each writes it', () => {
  for (const arch of UNIFIED) {
    const r = tryMove(pickKernel(load(repro(arch))), 'swap v_mov_b32_e32_0 v_accvgpr_read_b32_0');
    assert.ok(r, `${arch}: the swap must be refused`);
    assert.match(r.reason, /v_mov_b32_e32_0 writes v128 which v_accvgpr_read_b32_0 reads as a0/);
  }
  assert.equal(tryMove(pickKernel(load(repro('gfx908'))), 'swap v_mov_b32_e32_0 v_accvgpr_read_b32_0'), undefined, 'gfx908: separate files, the swap is legal');
});

/** The repro with the v128 write and the a0 read exchanged. */
const swapped = (arch: string, accum?: number) => kernel(arch, [REPRO[0]!, REPRO[2]!, REPRO[1]!, REPRO[3]!], 132, accum);

test('verify: the reordered file is rejected on a unified file, accepted on gfx908', () => {
  for (const arch of UNIFIED) {
    const v = verifyLoaded(load(repro(arch), 'a.s'), load(swapped(arch, 128), 'b.s'));
    assert.equal(v.equivalent, false, arch);
    assert.equal(v.difference!.kind, 'reaching-definition');
    assert.match(v.difference!.message, /'v_accvgpr_read_b32 v2, a0' \(a\.s:9\) reads v128 \(a0 with accum_offset 128\)/);
  }
  assert.equal(verifyLoaded(load(repro('gfx908'), 'a.s'), load(swapped('gfx908'), 'b.s')).equivalent, true);
});

test('verify folds the unified file on its own: it rejects the swap even when the instructions were resolved one by one', () => {
  // resolveInstruction alone knows no kernel, so v128 keeps its VGPR unit: verify must not rely on it.
  const raw = (text: string, name: string): Loaded => {
    const l = loadText(text, name);
    return { ...l, resolved: l.program.instructions.map((i) => resolveInstruction(i, l.target)) };
  };
  const a = raw(repro('gfx90a'), 'a.s');
  assert.deepEqual(a.resolved[1]!.defs, [VGPR_BASE + 128], 'the per-instruction resolution is unfolded');
  const v = verifyLoaded(a, raw(swapped('gfx90a', 128), 'b.s'), { skipCheck: true });
  assert.equal(v.equivalent, false);
  assert.equal(v.difference!.kind, 'reaching-definition');
});

test('hazard messages name registers as the consumer writes them', () => {
  // the MFMA writes a[0:3]; the VALU reads them as v[128:129]
  const body = ['v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]', 'v_add_f32_e32 v5, v128, v1'];
  const fs = checkHazards(kernelContexts(load(kernel('gfx90a', body, 136, 128)))[0]!);
  const hit = fs.filter((f) => f.loc.line === 8);
  assert.equal(hit.length, 1, fs.map((f) => f.message).join('\n'));
  assert.match(hit[0]!.message, /v_add_f32_e32 reads v128 written by v_mfma_f32_4x4x1f32/);
});

test('hazards: a DPP read of a VGPR above accum_offset is still a VGPR read', () => {
  const body = ['v_mov_b32_e32 v128, 1', 'v_mov_b32_dpp v1, v128 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf'];
  const fs = checkHazards(kernelContexts(load(kernel('gfx90a', body, 132, 128)))[0]!).filter((f) => f.rule === 'vgpr-write-dpp-read');
  assert.equal(fs.length, 1);
  assert.match(fs[0]!.message, /reads v128 written by v_mov_b32_e32/);
});
