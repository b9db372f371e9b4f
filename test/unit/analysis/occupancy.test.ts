/**
 * Occupancy cases computed by hand from the references:
 *  - CLRX "GCN ISA Instruction Timings", occupancy table (GCN: waves / max VGPRs: 10/24, 9/28,
 *    8/32, 7/36, 6/40, 5/48, 4/64, 3/84, 2/128, 1/256), for gfx906;
 *  - a 512-entry pool with granule 8 (<=64 -> 8, 65-72 -> 7, 73-80 -> 6, 81-96 -> 5,
 *    97-128 -> 4, 129-168 -> 3, 169-256 -> 2) as the AMD MI200 ISA guide describes the unified
 *    file (allocated in groups of 8), for gfx90a+;
 *  - 800 SGPRs per SIMD (ROCm GPU hardware specifications: 12.5 KiB SGPR file per CU), granule 16
 *    (AMD MI200 ISA);
 *  - LDS per CU: 64 KiB (ROCm GPU hardware specifications; AMD MI200 ISA, blocks of 512 bytes),
 *    160 KiB on gfx950 (AMD CDNA4 ISA) with 1280-byte granules (targets/gfx950.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TARGETS } from '../../../src/targets/index.js';
import { computeOccupancy, declaredResources, DEFAULT_WAVES_PER_WORKGROUP, formatOccupancies, ldsAssumption } from '../../../src/analysis/occupancy.js';
import type { OccupancyInput } from '../../../src/analysis/occupancy.js';
import { ScheduleState } from '../../../src/schedule/state.js';
import { spawnSync } from 'node:child_process';
import { bin, example } from '../../repo.js';

const { gfx906, gfx908, gfx90a, gfx942, gfx950 } = TARGETS;
const base: OccupancyInput = { vgprs: 4, agprs: 0, sgprs: 10, ldsBytes: 0 };
const occ = (t: typeof gfx906, o: Partial<OccupancyInput>) => computeOccupancy(t, { ...base, ...o });

test('gfx906 VGPR rows of the GCN occupancy table', () => {
  const rows: [number, number][] = [
    [24, 10], [25, 9], [28, 9], [29, 8], [32, 8], [33, 7], [36, 7], [37, 6], [40, 6], [41, 5], [48, 5],
    [49, 4], [64, 4], [65, 3], [84, 3], [85, 2], [128, 2], [129, 1], [256, 1],
  ];
  for (const [v, waves] of rows) {
    const r = occ(gfx906, { vgprs: v });
    assert.equal(r.wavesPerSimd, waves, `gfx906 ${v} VGPRs`);
    assert.equal(r.limiter, waves === 10 ? 'waves' : 'vgpr', `gfx906 ${v} VGPRs limiter`);
  }
  assert.equal(occ(gfx906, { vgprs: 28 }).allocated.vgprs, 28);
  assert.equal(occ(gfx906, { vgprs: 25 }).allocated.vgprs, 28, 'granule 4');
});

test('one register over a breakpoint drops a wave', () => {
  assert.equal(occ(gfx906, { vgprs: 64 }).wavesPerSimd, 4);
  assert.equal(occ(gfx906, { vgprs: 65 }).wavesPerSimd, 3);
  assert.equal(occ(gfx90a, { vgprs: 128 }).wavesPerSimd, 4);
  assert.equal(occ(gfx90a, { vgprs: 129 }).wavesPerSimd, 3);
  assert.equal(occ(gfx90a, { vgprs: 64 }).wavesPerSimd, 8);
  assert.equal(occ(gfx90a, { vgprs: 65 }).wavesPerSimd, 7);
});

test('gfx90a+ unified file: CDNA4 table rows (512 entries, granule 8, 8 wave slots)', () => {
  const rows: [number, number][] = [
    [64, 8], [65, 7], [72, 7], [73, 6], [80, 6], [81, 5], [96, 5], [97, 4], [128, 4], [129, 3], [168, 3], [169, 2], [256, 2],
  ];
  for (const t of [gfx90a, gfx942, gfx950]) {
    for (const [v, waves] of rows) {
      const r = occ(t, { vgprs: v });
      assert.equal(r.wavesPerSimd, waves, `${t.name} ${v} VGPRs`);
      assert.equal(r.limiter, waves === 8 ? 'waves' : 'vgpr');
      assert.equal(r.byResource.agpr, undefined, 'no separate AGPR limit on a unified file');
    }
  }
  // 128 VGPRs + 0 AGPRs -> 128 of 512 -> 4 waves (row 97-128).
  const r = occ(gfx90a, { vgprs: 128, agprs: 0 });
  assert.deepEqual([r.wavesPerSimd, r.limiter, r.allocated.vgprs], [4, 'vgpr', 128]);
});

test('gfx90a+: AGPRs follow align(VGPRs, 4) in the same file', () => {
  // 10 VGPRs -> 12, + 100 AGPRs = 112 -> 512/112 = 4 waves.
  const r = occ(gfx90a, { vgprs: 10, agprs: 100 });
  assert.equal(r.allocated.vgprs, 112);
  assert.equal(r.wavesPerSimd, 4);
  assert.equal(r.limiter, 'vgpr');
  // 61 VGPRs -> 64, + 4 AGPRs = 68 -> 72 allocated -> 7 waves; 60 + 4 = 64 -> 8.
  assert.equal(occ(gfx942, { vgprs: 61, agprs: 4 }).wavesPerSimd, 7);
  assert.equal(occ(gfx942, { vgprs: 60, agprs: 4 }).wavesPerSimd, 8);
  // 128 + 129 = 257 -> 264 allocated -> 1 wave.
  assert.equal(occ(gfx950, { vgprs: 128, agprs: 129 }).wavesPerSimd, 1);
  assert.equal(occ(gfx950, { vgprs: 256, agprs: 256 }).wavesPerSimd, 1);
});

test('gfx908: separate 256-entry ArchVGPR and AccVGPR files, the larger limits', () => {
  const a = occ(gfx908, { vgprs: 10, agprs: 100 });
  assert.deepEqual([a.wavesPerSimd, a.limiter, a.byResource.vgpr, a.byResource.agpr], [2, 'agpr', 10, 2]);
  const v = occ(gfx908, { vgprs: 100, agprs: 10 });
  assert.deepEqual([v.wavesPerSimd, v.limiter], [2, 'vgpr']);
  assert.equal(occ(gfx908, { vgprs: 64, agprs: 64 }).wavesPerSimd, 4);
  assert.equal(occ(gfx908, { vgprs: 64, agprs: 65 }).wavesPerSimd, 3);
  assert.equal(occ(gfx908, { vgprs: 24, agprs: 0 }).wavesPerSimd, 10);
});

test('gfx906 vs gfx90a: same kernel, different files', () => {
  // 100 VGPRs: gfx906 256/100 -> 2; gfx90a 512/104 -> 4.
  assert.equal(occ(gfx906, { vgprs: 100 }).wavesPerSimd, 2);
  assert.equal(occ(gfx90a, { vgprs: 100 }).wavesPerSimd, 4);
  // 20 VGPRs: both hit their wave-slot ceiling, 10 vs 8.
  assert.deepEqual([occ(gfx906, { vgprs: 20 }).wavesPerSimd, occ(gfx906, { vgprs: 20 }).limiter], [10, 'waves']);
  assert.deepEqual([occ(gfx90a, { vgprs: 20 }).wavesPerSimd, occ(gfx90a, { vgprs: 20 }).limiter], [8, 'waves']);
  assert.throws(() => occ(gfx906, { agprs: 4 }), /no AGPRs/);
});

test('SGPRs: 800 per SIMD, granule 16, plus the reserved extras', () => {
  // 74 + 6 (FLAT_SCRATCH default) = 80 -> 10 waves; 75 + 6 = 81 -> 96 -> 8 waves.
  assert.deepEqual([occ(gfx906, { sgprs: 74 }).wavesPerSimd, occ(gfx906, { sgprs: 74 }).limiter], [10, 'waves']);
  const r = occ(gfx906, { sgprs: 75 });
  assert.deepEqual([r.wavesPerSimd, r.limiter, r.allocated.sgprs], [8, 'sgpr', 96]);
  // No extras: 80 -> 10, 81 -> 8.
  assert.equal(occ(gfx906, { sgprs: 80, extraSgprs: 0 }).wavesPerSimd, 10);
  assert.equal(occ(gfx906, { sgprs: 81, extraSgprs: 0 }).wavesPerSimd, 8);
  // gfx90a: 90 + 6 = 96 -> 8 (= the slot limit, so 'waves'); 91 + 6 = 97 -> 112 -> 7.
  assert.equal(occ(gfx90a, { sgprs: 90 }).limiter, 'waves');
  assert.deepEqual([occ(gfx90a, { sgprs: 91 }).wavesPerSimd, occ(gfx90a, { sgprs: 91 }).limiter], [7, 'sgpr']);
  assert.equal(occ(gfx950, { sgprs: 102 }).wavesPerSimd, 7);
});

test('LDS: workgroups per CU, default 4 waves per workgroup', () => {
  // gfx90a: 64 KiB / 16 KiB = 4 workgroups x 4 waves / 4 SIMDs = 4.
  const r = occ(gfx90a, { ldsBytes: 16384 });
  assert.deepEqual([r.wavesPerSimd, r.limiter, r.byResource.lds], [4, 'lds', 4]);
  assert.equal(r.assumedWavesPerWorkgroup, true);
  assert.equal(r.wavesPerWorkgroup, DEFAULT_WAVES_PER_WORKGROUP);
  assert.ok(r.notes.some((n) => n.includes('assumed 4 waves per workgroup (256 work-items)')));
  // One byte more: 16896 allocated (512-byte blocks) -> 3 workgroups -> 3.
  const r2 = occ(gfx90a, { ldsBytes: 16385 });
  assert.deepEqual([r2.wavesPerSimd, r2.allocated.ldsBytes], [3, 16896]);
  // 64 KiB: one workgroup -> 1 wave per SIMD on gfx90a, 2 on gfx950 (160 KiB).
  assert.equal(occ(gfx90a, { ldsBytes: 65536 }).wavesPerSimd, 1);
  assert.equal(occ(gfx950, { ldsBytes: 65536 }).wavesPerSimd, 2);
  // gfx950: 32000 bytes = 25 blocks of 1280 -> 163840 / 32000 = 5 workgroups -> 5.
  assert.deepEqual([occ(gfx950, { ldsBytes: 32000 }).wavesPerSimd, occ(gfx950, { ldsBytes: 32000 }).limiter], [5, 'lds']);
  // 32 KiB rounds up to 26 blocks (33280 bytes) -> 4 workgroups -> 4 (LLVM, ignoring the granule, says 5).
  const r5 = occ(gfx950, { ldsBytes: 32768 });
  assert.deepEqual([r5.wavesPerSimd, r5.allocated.ldsBytes], [4, 33280]);
  // gfx950: 16385 -> 16640 (1280-byte granules) -> 9 workgroups -> 9 waves, capped by the 8 slots.
  const r3 = occ(gfx950, { ldsBytes: 16385 });
  assert.deepEqual([r3.wavesPerSimd, r3.limiter, r3.allocated.ldsBytes], [8, 'waves', 16640]);
  // Too much LDS: the kernel cannot be launched.
  const r4 = occ(gfx906, { ldsBytes: 65537 });
  assert.deepEqual([r4.wavesPerSimd, r4.limiter], [0, 'lds']);
  assert.equal(occ(gfx950, { ldsBytes: 163840 }).wavesPerSimd, 1);
});

test('LDS with explicit workgroup sizes', () => {
  // 1-wave workgroups, 8 KiB: 8 workgroups = 8 waves per CU -> 2 per SIMD.
  assert.equal(occ(gfx906, { ldsBytes: 8192, wavesPerWorkgroup: 1 }).wavesPerSimd, 2);
  // 3 workgroups of 1 wave on 4 SIMDs: at least one wave resides -> 1.
  assert.equal(occ(gfx906, { ldsBytes: 16385, wavesPerWorkgroup: 1 }).wavesPerSimd, 1);
  // 16-wave workgroups (1024 work-items) and 40000 bytes: 1 workgroup -> 16 waves / 4 SIMDs = 4.
  assert.equal(occ(gfx906, { ldsBytes: 40000, wavesPerWorkgroup: 16 }).wavesPerSimd, 4);
  assert.equal(occ(gfx906, { ldsBytes: 40000, wavesPerWorkgroup: 16 }).assumedWavesPerWorkgroup, false);
});

test('whole workgroups: 16-wave workgroups on 10 and 8 slots', () => {
  // gfx906: 40 slots per CU hold 2 workgroups of 16 -> 8 waves per SIMD.
  const r = occ(gfx906, { wavesPerWorkgroup: 16 });
  assert.deepEqual([r.wavesPerSimd, r.limiter, r.byResource.waves], [8, 'waves', 8]);
  // gfx90a: 32 slots -> 2 workgroups -> 8.
  assert.equal(occ(gfx90a, { wavesPerWorkgroup: 16 }).wavesPerSimd, 8);
  // gfx906, 48 VGPRs (5 waves/SIMD = 20 per CU): one 16-wave workgroup -> 4.
  assert.deepEqual([occ(gfx906, { vgprs: 48, wavesPerWorkgroup: 16 }).wavesPerSimd, occ(gfx906, { vgprs: 48, wavesPerWorkgroup: 16 }).limiter], [4, 'vgpr']);
  // gfx906, 84 VGPRs (3 waves/SIMD = 12 per CU): a 16-wave workgroup does not fit.
  const r2 = occ(gfx906, { vgprs: 84, wavesPerWorkgroup: 16 });
  assert.deepEqual([r2.wavesPerSimd, r2.limiter], [0, 'vgpr']);
  assert.ok(r2.notes.some((n) => n.includes('cannot be launched')));
  assert.throws(() => occ(gfx906, { wavesPerWorkgroup: 0 }), RangeError);
  assert.ok(occ(gfx906, { wavesPerWorkgroup: 17 }).notes.some((n) => n.includes('exceeds the limit of 16')));
});

test('bad counts are errors', () => {
  assert.throws(() => occ(gfx906, { vgprs: -1 }), RangeError);
  assert.throws(() => occ(gfx906, { sgprs: 1.5 }), RangeError);
});

test('declaredResources: gfx90a descriptor with AGPRs after accum_offset', () => {
  // The kernel llc 22 wrote for 10 VGPRs + 4 AGPRs + 20 SGPRs: TotalNumSgprs 24 (xnack any).
  const d = declaredResources({
    '.amdhsa_next_free_vgpr': 16, '.amdhsa_next_free_sgpr': 20, '.amdhsa_accum_offset': 12,
    '.amdhsa_group_segment_fixed_size': 1000, '.amdhsa_reserve_vcc': 0, '.amdhsa_reserve_flat_scratch': 0,
  }, gfx90a);
  assert.deepEqual({ ...d, notes: [] }, { vgprs: 12, agprs: 4, sgprs: 20, extraSgprs: 4, ldsBytes: 1000, accumOffset: 12, notes: [] });
  assert.equal(d.sgprs + d.extraSgprs, 24);
  const r = computeOccupancy(gfx90a, d);
  assert.equal(r.allocated.vgprs, 16);
  assert.equal(r.wavesPerSimd, 8);
  // With xnack- nothing is reserved.
  assert.equal(declaredResources({ next_free_vgpr: 16, next_free_sgpr: 20, accum_offset: 12, reserve_vcc: 0, reserve_flat_scratch: 0 }, gfx90a, { xnack: false }).extraSgprs, 0);
});

test('declaredResources: defaults per target', () => {
  // Nothing said: FLAT_SCRATCH reserved -> 6.
  assert.equal(declaredResources({ next_free_vgpr: 30, next_free_sgpr: 30 }, gfx906).extraSgprs, 6);
  // xnack-, no flat scratch: VCC alone -> 2.
  assert.equal(declaredResources({ next_free_sgpr: 30, reserve_flat_scratch: 0 }, gfx906, { xnack: false }).extraSgprs, 2);
  // xnack any, no flat scratch, no VCC: XNACK_MASK -> 4.
  assert.equal(declaredResources({ next_free_sgpr: 30, reserve_flat_scratch: 0, reserve_vcc: 0 }, gfx908).extraSgprs, 4);
  // Architected flat scratch: always 6, and saying 0 is noted.
  const a = declaredResources({ next_free_vgpr: 8, next_free_sgpr: 8, accum_offset: 8, reserve_flat_scratch: 0, reserve_vcc: 0 }, gfx942, { xnack: false });
  assert.equal(a.extraSgprs, 6);
  assert.ok(a.notes.some((n) => n.includes('architected flat scratch')));
  // next_free_vgpr not above accum_offset: no AGPRs.
  const b = declaredResources({ next_free_vgpr: 8, accum_offset: 8 }, gfx950);
  assert.deepEqual([b.vgprs, b.agprs], [8, 0]);
  // gfx908: max(VGPR, AGPR), noted.
  const c = declaredResources({ next_free_vgpr: 100 }, gfx908);
  assert.deepEqual([c.vgprs, c.agprs], [100, 0]);
  assert.ok(c.notes.some((n) => n.includes('max(VGPRs, AGPRs)')));
  // Missing accum_offset on gfx90a: noted.
  assert.ok(declaredResources({ next_free_vgpr: 8 }, gfx90a).notes.some((n) => n.includes('accum_offset missing')));
  assert.ok(declaredResources({ next_free_vgpr: 300, accum_offset: 6 }, gfx90a).notes.some((n) => n.includes('steps of 4')));
  assert.ok(declaredResources({ next_free_vgpr: 257 }, gfx906).notes.some((n) => n.includes('exceeds 256')));
});

test('a kernel that accesses LDS but declares none (LDS sized at launch, as Triton gives it) is noted: its occupancy may be too high', async () => {
  const { loadText } = await import('../../../src/load.js');
  const { kernelContexts } = await import('../../../src/analysis/context.js');
  const { kernelResources } = await import('../../../src/analysis/resources.js');
  const kernel = (body: string[], lds: number) => ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    ...body.map((l) => `  ${l}`), '  s_endpgm', '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8',
    '  .amdhsa_accum_offset 8', `  .amdhsa_group_segment_fixed_size ${lds}`, '.end_amdhsa_kernel', ''].join('\n');
  const notes = (text: string) => kernelResources(kernelContexts(loadText(text, 'l.s'))[0]!).resources.notes.filter((n) => n.includes('accesses LDS'));
  assert.equal(notes(kernel(['ds_read_b32 v1, v0', 's_waitcnt lgkmcnt(0)'], 0)).length, 1);
  assert.match(notes(kernel(['ds_write_b32 v0, v1'], 0))[0]!, /declares none \(\.amdhsa_group_segment_fixed_size 0\): LDS sized at launch .* is not counted/);
  assert.equal(notes(kernel(['ds_read_b32 v1, v0', 's_waitcnt lgkmcnt(0)'], 4096)).length, 0, 'declared');
  assert.equal(notes(kernel(['ds_bpermute_b32 v1, v0, v2', 's_waitcnt lgkmcnt(0)'], 0)).length, 0, 'a lane exchange accesses no LDS memory');
  assert.equal(notes(kernel(['v_mov_b32 v1, v0'], 0)).length, 0, 'no LDS access');
});

test('the code-object metadata gives the workgroup size: .reqd_workgroup_size exactly, a .max_flat_workgroup_size below 256 as a bound; --workgroup-size overrides', async () => {
  const { loadText } = await import('../../../src/load.js');
  const { kernelContexts } = await import('../../../src/analysis/context.js');
  const { kernelResources } = await import('../../../src/analysis/resources.js');
  const { readLaunchBounds } = await import('../../../src/asm/metadata.js');
  // 32 KiB of LDS per workgroup: 2 workgroups per CU. Of 64 work-items (1 wave): 1 wave per SIMD; of 256 (4 waves): 2.
  const kernel = (meta: string[]) => ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  v_mov_b32 v1, 0', '  ds_write_b32 v0, v1', '  s_endpgm', '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 2',
    '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 4', '  .amdhsa_group_segment_fixed_size 32768', '.end_amdhsa_kernel',
    '.amdgpu_metadata', '---', 'amdhsa.version: [ 1, 2 ]', 'amdhsa.kernels:', '  - .args:', '      - .name: out', '        .offset: 0',
    '    .name: k', '    .symbol: k.kd', ...meta, '...', '.end_amdgpu_metadata', ''].join('\n');
  const occOf = (meta: string[], workgroupSize?: number) => {
    const o = kernelResources(kernelContexts(loadText(kernel(meta), 'm.s', workgroupSize ? { launch: { workgroupSize } } : {}))[0]!).resources.occupancy.registersUsed;
    return [o.wavesPerSimd, o.wavesPerWorkgroup, o.assumedWavesPerWorkgroup];
  };
  assert.deepEqual(occOf([]), [2, 4, true], 'no size in the metadata: 256 assumed');
  assert.deepEqual(occOf(['    .reqd_workgroup_size: [64, 1, 1]']), [1, 1, false], 'flow list');
  assert.deepEqual(occOf(['    .reqd_workgroup_size:', '      - 64', '      - 1', '      - 1']), [1, 1, false], 'block list, as LLVM writes it');
  assert.deepEqual(occOf(['    .max_flat_workgroup_size: 64']), [1, 1, false], 'no launch exceeds 64');
  assert.deepEqual(occOf(['    .max_flat_workgroup_size: 1024']), [2, 4, true], '1024 is only a bound');
  assert.deepEqual(occOf(['    .reqd_workgroup_size: [ 16, 16, 1 ]']), [2, 4, false], '16x16 = 256 work-items');
  assert.deepEqual(occOf(['    .reqd_workgroup_size: [64, 1, 1]'], 256), [2, 4, false], '--workgroup-size overrides the metadata');
  // where the size of an LDS limit comes from
  const notes = (meta: string[], workgroupSize?: number) =>
    kernelResources(kernelContexts(loadText(kernel(meta), 'm.s', workgroupSize ? { launch: { workgroupSize } } : {}))[0]!).resources.notes;
  assert.deepEqual(notes(['    .reqd_workgroup_size: [64, 1, 1]']), ["LDS is counted per workgroup of 64 work-items (the metadata's .reqd_workgroup_size); --workgroup-size N gives another"]);
  assert.match(notes(['    .max_flat_workgroup_size: 128']).join(), /per workgroup of 128 work-items \(the metadata's \.max_flat_workgroup_size, the largest launch\)/);
  assert.deepEqual(notes(['    .reqd_workgroup_size: [64, 1, 1]'], 64), [], 'the user gave it');
  // the SGPRs the descriptor reserves (VCC, FLAT_SCRATCH, XNACK_MASK) beside next_free_sgpr: occupancy counts both
  const { formatReportClang } = await import('../../../src/check/format.js');
  const { checkLoaded } = await import('../../../src/check/check.js');
  assert.match(formatReportClang(checkLoaded(loadText(kernel([]), 'm.s'))), /declared 2 VGPR, 0 AGPR, 8 SGPR \(\+6 reserved\), 32768 B LDS/);
  assert.equal(kernelResources(kernelContexts(loadText(kernel([]), 'm.s'))[0]!).resources.declared!.reservedSgpr, 6);
  const noVcc = kernel([]).replace('gfx942', 'gfx90a').replace('  .amdhsa_accum_offset 4', '  .amdhsa_accum_offset 4\n  .amdhsa_reserve_vcc 0\n  .amdhsa_reserve_flat_scratch 0\n  .amdhsa_reserve_xnack_mask 0');
  assert.equal(kernelResources(kernelContexts(loadText(noVcc, 'm.s'))[0]!).resources.declared!.reservedSgpr, undefined, 'none reserved: not printed');
  // entries by .name (or .symbol without .kd); an argument's .name is not the kernel's; other keys and lists are skipped
  const b = readLaunchBounds(['amdhsa.kernels:', '  - .args:', '      - .name: x', '        .size: 8', '    .language_version:', '      - 2', '      - 0',
    '    .max_flat_workgroup_size: 128', '    .name: first', '  - .symbol: second.kd', '    .reqd_workgroup_size:', '    - 32', '    - 2', '    - 1',
    'amdhsa.version:', '  - 1', '  - 2']);
  assert.deepEqual([...b], [['first', { maxFlatWorkgroupSize: 128 }], ['second', { reqdWorkgroupSize: [32, 2, 1] }]]);
  assert.equal(readLaunchBounds(['amdhsa.kernels:', '  - .name: k', '    .reqd_workgroup_size: [64, 1]']).size, 0, 'not 3 sizes: not read');
});

test('--lds and --workgroup-size: the launch\'s LDS counts with the declared LDS, its workgroup size in every occupancy, the metrics and a worker task\'s kernel', async () => {
  const { loadText, setLaunch } = await import('../../../src/load.js');
  const { kernelContexts } = await import('../../../src/analysis/context.js');
  const { kernelResources } = await import('../../../src/analysis/resources.js');
  const { contextMetrics } = await import('../../../src/schedule/metrics.js');
  const { preparedFor } = await import('../../../src/schedule/search/task.js');
  const { formatReportClang } = await import('../../../src/check/format.js');
  const { checkLoaded } = await import('../../../src/check/check.js');
  const text = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  ds_read_b32 v1, v0', '  s_waitcnt lgkmcnt(0)', '  v_add_f32 v1, v1, v1', '  ds_write_b32 v0, v1', '  s_endpgm', '.rodata', '.p2align 6', '.amdhsa_kernel k',
    '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 8', '  .amdhsa_group_segment_fixed_size 4096', '.end_amdhsa_kernel', ''].join('\n');
  const res = (launch?: { lds?: number; workgroupSize?: number }) => kernelResources(kernelContexts(loadText(text, 'l.s', launch ? { launch } : {}))[0]!).resources;
  // 4096 declared: 16 workgroups of 4 waves fit the CU's 64 KiB, 8 waves per SIMD (the wave slots)
  assert.equal(res().occupancy.descriptor!.wavesPerSimd, 8);
  assert.equal(res().ldsAtLaunch, undefined);
  // + 28672 at launch = 32 KiB per workgroup: 2 workgroups of 4 waves on 4 SIMDs, 2 waves per SIMD
  const r = res({ lds: 28672 });
  assert.equal(r.ldsAtLaunch, 28672);
  assert.equal(r.declared!.lds, 4096, 'the descriptor says what it says');
  for (const o of [r.occupancy.descriptor!, r.occupancy.registersUsed, r.occupancy.peakLive]) assert.deepEqual([o.wavesPerSimd, o.limiter], [2, 'lds']);
  assert.equal(contextMetrics(kernelContexts(loadText(text, 'l.s', { launch: { lds: 28672 } }))[0]!).occupancy, 2);
  // workgroups of 1024 work-items (16 waves): the same 2 workgroups hold 8 waves per SIMD
  const big = res({ lds: 28672, workgroupSize: 1024 });
  for (const o of [big.occupancy.descriptor!, big.occupancy.registersUsed, big.occupancy.peakLive]) {
    assert.equal(o.wavesPerSimd, 8);
    assert.equal(o.wavesPerWorkgroup, 16);
    assert.equal(o.assumedWavesPerWorkgroup, false);
  }
  assert.equal(contextMetrics(kernelContexts(loadText(text, 'l.s', { launch: { lds: 28672, workgroupSize: 1024 } }))[0]!).occupancy, 8);
  // 96 work-items: 2 waves (wave64)
  assert.equal(res({ workgroupSize: 96 }).occupancy.descriptor!.wavesPerWorkgroup, 2);
  // the command's launch is every load's default in this thread; a worker task carries it
  setLaunch({ lds: 28672 });
  try {
    const l = loadText(text, 'l.s');
    assert.deepEqual(l.launch, { lds: 28672 });
    assert.match(formatReportClang(checkLoaded(l)), /declared 8 VGPR, 0 AGPR, 8 SGPR \(\+6 reserved\), 4096 B LDS \(\+ 28672 B at launch, --lds\)/);
  } finally {
    setLaunch(undefined);
  }
  const task = { text, file: 'l.s', kernel: 'k', disambiguate: false };
  assert.deepEqual(preparedFor({ ...task, launch: { lds: 28672 } }).k.ctx.launch, { lds: 28672 });
  assert.equal(preparedFor({ ...task, launch: { lds: 28672 } }).ev.ldsBytes, 32768);
  assert.equal(preparedFor({ ...task, launch: { lds: 28672, workgroupSize: 1024 } }).ev.evaluate(new ScheduleState(preparedFor({ ...task, launch: { lds: 28672, workgroupSize: 1024 } }).k)).occupancy, 8);
  assert.equal(preparedFor(task).ev.ldsBytes, 4096, 'a task without it is prepared apart');
});

test('LDS beyond what a workgroup may allocate: an error at the descriptor (the kernel cannot launch); --lds beyond every target\'s: bad input', async () => {
  const { loadText } = await import('../../../src/load.js');
  const { checkLoaded } = await import('../../../src/check/check.js');
  const text = (arch: string, lds: number) => [`.amdgcn_target "amdgcn-amd-amdhsa--${arch}"`, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    '  ds_read_b32 v1, v0', '  s_waitcnt lgkmcnt(0)', '  s_endpgm', '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8',
    ...(arch === 'gfx908' ? [] : ['  .amdhsa_accum_offset 8']), `  .amdhsa_group_segment_fixed_size ${lds}`, '.end_amdhsa_kernel', ''].join('\n');
  const sizeErrors = (arch: string, lds: number, launch?: { lds: number }) =>
    checkLoaded(loadText(text(arch, lds), 'l.s', launch ? { launch } : {})).findings.filter((f) => f.rule === 'lds-size');
  // 64 KiB on gfx908 and gfx942, 160 KiB on gfx950 (the targets' maxLdsPerWorkgroup)
  assert.deepEqual(sizeErrors('gfx908', 65536), []);
  const over = sizeErrors('gfx908', 70000);
  assert.equal(over.length, 1);
  assert.equal(over[0]!.severity, 'error');
  assert.equal(over[0]!.loc.line, 12, 'at the descriptor');
  assert.equal(over[0]!.message, "kernel 'k' cannot launch: its workgroup's 70000 B of LDS (.amdhsa_group_segment_fixed_size) exceed the 65536 B a workgroup may allocate on gfx908");
  assert.deepEqual(sizeErrors('gfx950', 70000), []);
  assert.equal(sizeErrors('gfx950', 163841).length, 1);
  // what the launch adds counts
  assert.match(sizeErrors('gfx942', 8192, { lds: 65536 })[0]!.message, /its workgroup's 73728 B of LDS \(8192 B declared \+ 65536 B at launch, --lds\) exceed the 65536 B/);
  const r = spawnSync(process.execPath, [bin, '--lds', '163841', 'analyze', example], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--lds takes at most 163840 bytes \(what a workgroup may allocate on gfx950, the most of any target\), got 163841/);
});

test('an LDS limit under an assumed workgroup size says so; a given size or another limiter says nothing', () => {
  // rocBLAS trsv_device<64,16> (clang-22, gfx908): 41480 bytes of LDS, 49 VGPRs, launched in workgroups of 1024
  const trsv = { vgprs: 49, agprs: 0, sgprs: 100, ldsBytes: 41480 };
  const assumed = computeOccupancy(gfx908, trsv);
  assert.equal(assumed.wavesPerSimd, 1);
  assert.equal(assumed.limiter, 'lds');
  const note = ldsAssumption({ descriptor: assumed });
  assert.match(note!, /workgroup size unknown: assumed 4 waves per workgroup \(256 work-items\); --workgroup-size N/);
  assert.match(formatOccupancies({ descriptor: assumed }, note), /^occupancy \(descriptor\) 1 wave\/SIMD, limited by lds \(lds limit with the workgroup size unknown/);
  const given = computeOccupancy(gfx908, { ...trsv, wavesPerWorkgroup: 16 });
  assert.equal(given.wavesPerSimd, 4);
  assert.equal(ldsAssumption({ descriptor: given }), undefined);
  assert.equal(ldsAssumption({ descriptor: computeOccupancy(gfx908, { ...trsv, ldsBytes: 0 }) }), undefined);
});
