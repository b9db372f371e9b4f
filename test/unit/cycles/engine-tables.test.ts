/**
 * The cycle engine's per-instruction tables (CycleEngine's constructor) against the branches
 * they replace: the MFMA latency slot a non-srcC reader of an MFMA result waits for, by the
 * reader's class, and heldUntil's bound of how long a result can hold a reader back, by the
 * producer's kind. Every instruction of the example kernel, and hand-written snippets covering
 * each producer kind (MFMA, VALU, SALU, memory) and each consumer class.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import { buildCycleModel, CONSUMER, MFMA_SLOT, modelDifference, PRODUCER, type CycleModel } from '../../../src/cycles/model.js';
import { CycleEngine, DEP } from '../../../src/cycles/engine.js';
import { example } from '../../repo.js';

/** The MFMA slot and dependence kind of a non-srcC read of an MFMA result by consumer i, as earliest() tested them per read. */
function readSlotRef(m: CycleModel, i: number): [number, number] {
  const cc = m.cc[i]!;
  if (cc === CONSUMER.mfma) return [MFMA_SLOT.srcAB, DEP.mfmaSrcAB];
  if (cc === CONSUMER.vmem || cc === CONSUMER.ds) return [MFMA_SLOT.mem, DEP.mfmaMem];
  return [MFMA_SLOT.valu, DEP.mfmaValu];
}

/** heldUntil as it was written per producer kind. */
function heldUntilRef(m: CycleModel, p: number, defT: number, readyAt: number): number {
  let r = readyAt;
  const pk = m.pk[p]!;
  if (pk === PRODUCER.mfma) {
    for (let s = 0; s < 5; s++) { const x = defT + m.mfmaLat[p * 5 + s]!; if (x > r) r = x; }
  } else if (pk === PRODUCER.valu) {
    const x = defT + Math.max(m.valuToMfma, m.sgprToSalu, m.sgprToVmem, m.sgprToValu, m.transToValu, m.dotLat, m.lat[p]! + m.afterWrite);
    if (x > r) r = x;
  } else if (pk === PRODUCER.salu) {
    const x = defT + m.lat[p]! + m.afterWrite;
    if (x > r) r = x;
  }
  return r;
}

interface Tables { mfmaReadSlot: Uint8Array; mfmaReadDep: Uint8Array; heldUntil(p: number, defT: number, readyAt: number): number }
const tablesOf = (e: CycleEngine): Tables => e as unknown as Tables;

function checkModel(m: CycleModel): { kinds: Set<number>; classes: Set<number> } {
  const e = tablesOf(new CycleEngine(m));
  const kinds = new Set<number>();
  const classes = new Set<number>();
  const times: [number, number][] = [[0, 0], [100, 0], [0, 5000], [37, 41], [1000, 1003], [12, 400]];
  for (let i = 0; i < m.pk.length; i++) {
    kinds.add(m.pk[i]!);
    classes.add(m.cc[i]!);
    assert.deepEqual([e.mfmaReadSlot[i], e.mfmaReadDep[i]], readSlotRef(m, i), `read slot of instruction ${i}`);
    for (const [defT, readyAt] of times) {
      assert.equal(e.heldUntil(i, defT, readyAt), heldUntilRef(m, i, defT, readyAt), `heldUntil of instruction ${i} at ${defT}/${readyAt}`);
    }
  }
  return { kinds, classes };
}

test('engine tables: every instruction of the example kernel', () => {
  const ctxs = kernelContextsFromText(readFileSync(example, 'utf8'), example, 'gfx942');
  assert.ok(ctxs.length > 0);
  const { kinds, classes } = checkModel(buildCycleModel(ctxs[0]!));
  for (const k of [PRODUCER.mfma, PRODUCER.valu, PRODUCER.salu, PRODUCER.mem]) assert.ok(kinds.has(k), `producer kind ${k} in the example`);
  for (const c of [CONSUMER.mfma, CONSUMER.valu, CONSUMER.ds, CONSUMER.scalar]) assert.ok(classes.has(c), `consumer class ${c} in the example`);
});

test('engine tables: snippets with every consumer class, on gfx908, gfx90a and gfx942', () => {
  const lines = [
    'v_mfma_f32_16x16x4f32 a[0:3], v0, v1, a[0:3]',
    'v_add_f32 v4, v5, v6',
    'v_exp_f32 v7, v4',
    'v_dot2_f32_f16 v8, v9, v10, v8',
    's_add_u32 s0, s1, s2',
    's_cmp_eq_u32 s0, 0',
    's_cbranch_scc1 0',
    'global_load_dword v11, v[12:13], off',
    'global_store_dword v[12:13], v4, off',
    'ds_read_b64 v[14:15], v16',
    'buffer_load_dword v17, v18, s[4:7], 0 offen',
    's_load_dword s8, s[10:11], 0x0',
    's_waitcnt vmcnt(0) lgkmcnt(0)',
    's_nop 1',
  ];
  for (const arch of ['gfx908', 'gfx90a', 'gfx942']) {
    const ctx = kernelContextsFromText(lines.join('\n'), 't.s', arch)[0]!;
    const { classes } = checkModel(buildCycleModel(ctx));
    for (const c of [CONSUMER.mfma, CONSUMER.valu, CONSUMER.vmem, CONSUMER.ds, CONSUMER.scalar, CONSUMER.branch]) assert.ok(classes.has(c), `${arch}: consumer class ${c}`);
    // longer latencies, so that a VALU's branch-after-write delay outgrows its forwarding penalties
    const slow = buildCycleModel(ctx);
    // and an MFMA whose longest slot is the first, not the last
    for (let i = 0; i < slow.lat.length; i++) { slow.lat[i]! += 50; slow.mfmaLat[i * 5]! += 90; }
    checkModel(slow);
  }
});

test('engine tables: a reader or writer of an MFMA result waits for the slot of its class', () => {
  const lines = [
    'v_mfma_f32_16x16x4f32 v[0:3], v4, v5, v[0:3]',
    'v_add_f32 v6, v0, v1', // VALU read: slot valu
    'ds_write_b32 v7, v0', // DS read: slot mem
    'global_store_dword v[8:9], v0, off', // VMEM read: slot mem
    'v_mfma_f32_16x16x4f32 v[10:13], v0, v5, v[10:13]', // MFMA srcA read: slot srcAB
    'v_mfma_f32_16x16x4f32 v[0:3], v4, v5, v[0:3]', // MFMA srcC read of the same shape: slot same
    'v_mov_b32 v1, 0', // VALU write over the result: slot valu
    'ds_read_b32 v2, v7', // DS write over the result: slot mem
  ];
  const ctx = kernelContextsFromText(lines.join('\n'), 't.s', 'gfx942')[0]!;
  const m = buildCycleModel(ctx);
  // distinct latencies per slot, so that the issue time tells which slot was waited for
  for (let s = 0; s < 5; s++) m.mfmaLat[s] = 1000 + 100 * s;
  const e = new CycleEngine(m);
  const expected: [number, number, number][] = [
    [1, MFMA_SLOT.valu, DEP.mfmaValu], [2, MFMA_SLOT.mem, DEP.mfmaMem], [3, MFMA_SLOT.mem, DEP.mfmaMem],
    [4, MFMA_SLOT.srcAB, DEP.mfmaSrcAB], [5, MFMA_SLOT.same, DEP.mfmaSame], [6, MFMA_SLOT.valu, DEP.mfmaValu], [7, MFMA_SLOT.mem, DEP.mfmaValu],
  ];
  for (const [c, slot, dep] of expected) {
    e.reset(1);
    const trace: NonNullable<Parameters<CycleEngine['runSingle']>[3]>['trace'] = [];
    e.runSingle(Int32Array.from([0, c]), 0, 2, { trace });
    const row = trace[1]!;
    assert.equal(row.issue, 1000 + 100 * slot, `${lines[c]}: issue`);
    assert.equal(row.whyB, dep, `${lines[c]}: dependence kind`);
  }
});

test('buildCycleModel: an instruction resolved as an earlier one gets the model that computing it gives', () => {
  // repeats of every class, a branch kind that differs (s_branch / s_cbranch of the same label), MFMAs
  const snippet = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
    'global_load_dwordx4 v[0:3], v[10:11], off', 'global_load_dwordx4 v[0:3], v[10:11], off', 's_waitcnt vmcnt(0)',
    'v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]', 'v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]',
    'v_add_f32 v4, v5, v6', 'v_add_f32 v4, v5, v6', 's_add_u32 s0, s1, s2', 's_add_u32 s0, s1, s2', 'ds_read_b128 v[20:23], v8',
    'ds_read_b128 v[20:23], v8', 's_nop 3', 's_nop 3', 'v_exp_f32 v7, v7', 'v_exp_f32 v7, v7', 's_cbranch_scc0 k', 's_cbranch_scc0 k', 's_endpgm',
  ].join('\n') + '\n';
  let copied = 0;
  let shared = 0;
  for (const [name, text] of [['example', readFileSync(example, 'utf8')], ['snippet', snippet]] as const) {
    for (const ctx of kernelContextsFromText(text, `${name}.s`)) {
      const a = buildCycleModel(ctx) as unknown as Record<string, unknown>;
      const b = buildCycleModel(ctx, undefined, { alike: false }) as unknown as Record<string, unknown>;
      // the register lists by instruction: alike instructions share one range of them
      const lists = new Set(['useStart', 'useEnd', 'useUnit', 'useRole', 'defStart', 'defEnd', 'defUnit']);
      for (const [key, v] of Object.entries(b)) {
        if (lists.has(key)) continue;
        if (ArrayBuffer.isView(v)) assert.deepEqual(a[key], v, `${name}: ${key}`);
        else if (typeof v === 'number') assert.equal(a[key], v, `${name}: ${key}`);
      }
      const ma = a as unknown as CycleModel;
      const mb = b as unknown as CycleModel;
      const of = (m: CycleModel, i: number) => ({
        uses: [...m.useUnit.subarray(m.useStart[i]!, m.useEnd[i]!)], roles: [...m.useRole.subarray(m.useStart[i]!, m.useEnd[i]!)],
        defs: [...m.defUnit.subarray(m.defStart[i]!, m.defEnd[i]!)],
      });
      for (let i = 0; i < mb.useStart.length; i++) assert.deepEqual(of(ma, i), of(mb, i), `${name}: the registers of position ${i}`);
      assert.ok(ma.useUnit.length <= mb.useUnit.length, `${name}: alike instructions share their lists`);
      shared += mb.useUnit.length - ma.useUnit.length;
      copied += ctx.insns.filter((ri, i) => ctx.insns.findIndex((x) => x.insn.text === ri.insn.text) < i).length;
    }
  }
  assert.ok(copied > 20, `${copied} instructions written as an earlier one`);
  assert.ok(shared > 20, `${shared} register reads kept once for instructions resolved alike`);
});

test('buildCycleModel from another model\'s rows: the model built from the text; modelDifference catches a wrong map', () => {
  const text = readFileSync(example, 'utf8');
  const [a] = kernelContextsFromText(text, 'example.s').filter((c) => c.insns.length > 0);
  const from = buildCycleModel(a!);
  // the same kernel with waits and nops inserted and two instructions swapped: each instruction
  // mapped to its copy in the original, the inserted ones to none
  const lines = text.split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l.trim()));
  const x = at(/^v_mfma/);
  const y = lines.findIndex((l, i) => i > x && /^v_mfma/.test(l.trim()));
  [lines[x], lines[y]] = [lines[y]!, lines[x]!];
  lines.splice(at(/^s_endpgm/), 0, '  s_nop 3', '  s_waitcnt vmcnt(0)');
  const [b] = kernelContextsFromText(lines.join('\n'), 'edited.s').filter((c) => c.insns.length > 0);
  const row = b!.insns.map((ri) => {
    if (/^s_(nop|waitcnt)/.test(ri.insn.text)) return -1;
    return a!.insns.findIndex((o) => o.insn.text === ri.insn.text && o.insn.loc.line === (ri.insn.loc.line === x + 1 ? y + 1 : ri.insn.loc.line === y + 1 ? x + 1 : ri.insn.loc.line));
  });
  assert.ok(row.filter((r) => r >= 0).length > b!.insns.length / 2);
  const seeded = buildCycleModel(b!, undefined, { from: { model: from, row } });
  assert.equal(modelDifference(seeded, buildCycleModel(b!)), undefined);
  assert.equal(modelDifference(buildCycleModel(b!), buildCycleModel(b!, undefined, { alike: false })), undefined);
  // a map that sends an instruction to another (the next one) is caught
  const k = row.findIndex((r, i) => r >= 0 && i + 1 < row.length && row[i + 1]! >= 0 && a!.insns[r]!.insn.base !== a!.insns[row[i + 1]!]!.insn.base);
  const wrong = row.slice();
  wrong[k] = row[k + 1]!;
  assert.notEqual(modelDifference(buildCycleModel(b!, undefined, { from: { model: from, row: wrong } }), buildCycleModel(b!)), undefined);
});
