import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TARGETS, TARGET_NAMES, getTarget, resolveTarget, parseTargetId, FEATURE_PROBES, ALL_FEATURES,
} from '../../../src/targets/index.js';
import type { Feature, Target } from '../../../src/targets/index.js';
import { defaultCycleParams } from '../../../src/targets/latency.js';
import { root } from '../../repo.js';

const { gfx906, gfx908, gfx90a, gfx942, gfx950 } = TARGETS;

/** Every { value, source } in a target has a non-empty source. */
function sourcedPaths(o: unknown, path: string, out: string[]): void {
  if (o === null || typeof o !== 'object' || o instanceof Set) return;
  const rec = o as Record<string, unknown>;
  if ('value' in rec && 'source' in rec) {
    if (typeof rec.source !== 'string' || rec.source.trim().length < 10) out.push(path);
    return;
  }
  for (const [k, v] of Object.entries(rec)) sourcedPaths(v, `${path}.${k}`, out);
}

test('five targets, named after their keys', () => {
  assert.deepEqual(Object.keys(TARGETS).sort(), [...TARGET_NAMES].sort());
  for (const n of TARGET_NAMES) assert.equal(TARGETS[n].name, n);
});

test('every number of every target carries a source', () => {
  for (const t of Object.values(TARGETS)) {
    const bad: string[] = [];
    sourcedPaths(t, t.name, bad);
    assert.deepEqual(bad, [], `${t.name}: facts without a source`);
    for (const f of ALL_FEATURES) {
      assert.ok((t.featureSources[f] ?? '').includes('oracle (LLVM 22.1.8)'), `${t.name} ${f}: no probe source`);
    }
  }
});

test('every feature has exactly one kind of probe', () => {
  for (const [f, p] of Object.entries(FEATURE_PROBES)) {
    assert.ok((p.asm !== undefined) !== (p.llc !== undefined), f);
    if (p.asm) assert.ok(p.asm.length >= 1, f);
  }
});

test('feature sets: the facts the hazard rules rely on (LLVM AMDGPU.td / GCNSubtarget.h)', () => {
  const has = (t: Target, f: Feature) => t.has(f);
  const row = (f: Feature) => [gfx906, gfx908, gfx90a, gfx942, gfx950].map((t) => has(t, f));
  assert.deepEqual(row('mai'), [false, true, true, true, true]);
  assert.deepEqual(row('gfx90a-insts'), [false, false, true, true, true]);
  assert.deepEqual(row('gfx940-insts'), [false, false, false, true, true]);
  assert.deepEqual(row('gfx950-insts'), [false, false, false, false, true]);
  assert.deepEqual(row('back-off-barrier'), [false, false, true, true, true]);
  assert.deepEqual(row('xf32-insts'), [false, false, false, true, false]);
  assert.deepEqual(row('fp8-insts'), [false, false, false, true, true]);
  // v_mad_mix is gfx900's; every one of the five has v_fma_mix (llvm-mc probe).
  assert.deepEqual(row('mad-mix'), [false, false, false, false, false]);
  assert.deepEqual(row('fma-mix'), [true, true, true, true, true]);
  assert.deepEqual(row('atomic-fadd'), [false, true, true, true, true]);
  assert.deepEqual(row('atomic-fadd-rtn'), [false, false, true, true, true]);
  assert.deepEqual(row('gds'), [true, true, false, false, false]);
  assert.deepEqual(row('architected-flat-scratch'), [false, false, false, true, true]);
  assert.deepEqual(row('dot3-insts'), [false, true, true, true, true]);
  assert.deepEqual(row('dot12-insts'), [false, false, false, false, true]);
});

test('register files: gfx906/gfx908 separate 256-entry files, gfx90a+ unified 512', () => {
  assert.equal(gfx906.registers.unifiedVgprFile.value, false);
  assert.equal(gfx906.registers.maxAgprs.value, 0);
  assert.equal(gfx908.registers.unifiedVgprFile.value, false);
  assert.equal(gfx908.registers.agprsPerSimd.value, 256);
  for (const t of [gfx90a, gfx942, gfx950]) {
    assert.equal(t.registers.unifiedVgprFile.value, true, t.name);
    assert.equal(t.registers.vgprsPerSimd.value, 512, t.name);
    assert.equal(t.registers.vgprAllocGranule.value, 8, t.name);
    assert.equal(t.registers.accumOffsetGranule?.value, 4, t.name);
    assert.equal(t.registers.maxNextFreeVgpr.value, 512, t.name);
    assert.equal(t.occupancy.maxWavesPerSimd.value, 8, t.name);
    assert.equal(t.descriptor.accumOffsetRequired.value, true, t.name);
  }
  for (const t of [gfx906, gfx908]) {
    assert.equal(t.registers.vgprsPerSimd.value, 256, t.name);
    assert.equal(t.registers.vgprAllocGranule.value, 4, t.name);
    assert.equal(t.occupancy.maxWavesPerSimd.value, 10, t.name);
    assert.equal(t.descriptor.accumOffsetRequired.value, false, t.name);
  }
  for (const t of Object.values(TARGETS)) {
    assert.equal(t.registers.maxVgprs.value, 256);
    assert.equal(t.registers.maxSgprs.value, 102);
    assert.equal(t.registers.sgprsPerSimd.value, 800);
    assert.equal(t.registers.sgprAllocGranule.value, 16);
    assert.deepEqual(t.registers.extraSgprs.value, { vcc: 2, xnack: 4, flatScratch: 6 });
  }
});

test('LDS: 64 KiB per CU, 160 KiB on gfx950 (AMD CDNA4 ISA)', () => {
  for (const t of [gfx906, gfx908, gfx90a, gfx942]) {
    assert.equal(t.occupancy.ldsBytesPerCu.value, 65536, t.name);
    assert.equal(t.occupancy.ldsAllocGranule.value, 512, t.name);
  }
  assert.equal(gfx950.occupancy.ldsBytesPerCu.value, 163840);
  assert.equal(gfx950.occupancy.maxLdsPerWorkgroup.value, 163840);
  assert.equal(gfx950.occupancy.ldsAllocGranule.value, 1280);
});

test('counters and s_nop (LLVM AMDGPUBaseInfo.cpp waitcnt widths, SIInstrInfo::getNumWaitStates)', () => {
  for (const t of Object.values(TARGETS)) {
    assert.equal(t.counters.vmcnt.value, 63);
    assert.equal(t.counters.expcnt.value, 7);
    assert.equal(t.counters.lgkmcnt.value, 15);
    // 15 where the target's own ISA text says S_NOP repeats up to 16 times (CDNA3: gfx942), else the MI200 text's 8
    assert.equal(t.maxNopImm.value, t.name === 'gfx942' ? 15 : 7, t.name);
    assert.match(t.maxNopImm.source, t.name === 'gfx942' ? /CDNA3 ISA §12/ : /MI200 ISA §4\.4/);
    assert.ok(t.maxNopImm.note && t.maxNopImm.note.includes('disagree'), 'the s_nop disagreement is noted');
    assert.equal(t.maxNopImmCounted.value, 15);
  }
});

test('parseTargetId: plain names, feature suffixes, .amdgcn_target spellings', () => {
  assert.deepEqual(parseTargetId('gfx90a'), { name: 'gfx90a', features: {} });
  assert.deepEqual(parseTargetId('amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-'), { name: 'gfx90a', features: { sramecc: true, xnack: false } });
  assert.deepEqual(parseTargetId('"amdgcn-amd-amdhsa--gfx942:xnack+"'), { name: 'gfx942', features: { xnack: true } });
  assert.deepEqual(parseTargetId('gfx906:xnack-:sramecc-'), { name: 'gfx906', features: { xnack: false, sramecc: false } });
  assert.deepEqual(parseTargetId('  GFX950 '), { name: 'gfx950', features: {} });
  assert.equal(parseTargetId('gfx90a:tgsplit+'), undefined);
  assert.equal(parseTargetId('gfx90a:xnack+:xnack-'), undefined);
  assert.equal(parseTargetId('gfx90a:xnack'), undefined);
  assert.equal(parseTargetId('x86_64-pc-linux-gnu-gfx90a'), undefined);
  assert.equal(parseTargetId('sm_90'), undefined);
  assert.equal(parseTargetId(''), undefined);
});

test('getTarget accepts ids and aliases', () => {
  assert.equal(getTarget('gfx908'), gfx908);
  assert.equal(getTarget('amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-'), gfx90a);
  assert.equal(getTarget('amdgcn-amd-amdhsa--gfx950'), gfx950);
  assert.equal(getTarget('gfx900'), gfx906);
  assert.equal(getTarget('amdgcn-amd-amdhsa--gfx900:xnack-'), gfx906);
  assert.equal(getTarget('gfx940'), gfx942);
  assert.equal(getTarget('gfx941:xnack+'), gfx942);
  assert.equal(getTarget('gfx1100'), undefined);
  assert.equal(getTarget('gfx90c'), undefined);
  assert.equal(getTarget('nonsense'), undefined);
});

test('resolveTarget says why an alias was used', () => {
  const r900 = resolveTarget('gfx900')!;
  assert.equal(r900.target, gfx906);
  assert.match(r900.note!, /gfx900/);
  const r940 = resolveTarget('amdgcn-amd-amdhsa--gfx940:sramecc+')!;
  assert.equal(r940.target, gfx942);
  assert.deepEqual(r940.id.features, { sramecc: true });
  assert.match(r940.note!, /removed/);
  assert.equal(resolveTarget('gfx942')!.note, undefined);
});

test('targets are immutable data', () => {
  assert.ok(Object.isFrozen(gfx90a));
  assert.throws(() => { (gfx90a as { name: string }).name = 'x'; });
});

test('sources are public documents or files the package ships: no reference file a user does not have', async () => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const unshipped = /hazards-and-waitcnt-facts|mi200-isa-facts|cdna3-isa-waitcnt|cdna4-scheduling-guide|gfx906-wiki|gcn-instruction-timings|shared\/reference|\.\.\/shared/;
  const bad: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts')) readFileSync(p, 'utf8').split('\n').forEach((l, i) => { if (unshipped.test(l)) bad.push(`${p.slice(root.length + 1)}:${i + 1}: ${l.trim()}`); });
    }
  };
  walk(join(root, 'src'));
  assert.deepEqual(bad, []);
  // what --list-params prints: every parameter's source
  for (const t of Object.values(TARGETS)) {
    for (const [k, v] of Object.entries(defaultCycleParams(t).values)) assert.doesNotMatch(`${v.source} ${v.note ?? ''}`, unshipped, `${t.name} ${k}`);
  }
});
