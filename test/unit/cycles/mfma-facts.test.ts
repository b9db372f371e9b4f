/**
 * The cycle model's MFMA dependency wait states (src/targets/latency.ts, `mfma.<kind>.<consumer>.<passes>`)
 * are the hazard checker's (src/hazards/rules/mfma.ts and mai908.ts): for every target, every
 * MFMA kind and pass count an MFMA of that target has, and every consumer the cycle model tells
 * apart, the two give the same number. The cycle model sits beside the hazard checker (neither
 * imports the other), so this test is what keeps the two tables one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allInsns } from '../../../src/isa/catalogue.js';
import { mfmaKindOn, mfmaPasses, parseMfma } from '../../../src/isa/mfma.js';
import { generationOf, type Target } from '../../../src/isa/target.js';
import { TARGETS } from '../../../src/targets/index.js';
import { defaultCycleParams, mfmaParamKey, MFMA_CONSUMERS, type MfmaConsumer, type MfmaTableKind } from '../../../src/targets/latency.js';
import { waitOf, type WaitStateFact } from '../../../src/hazards/types.js';
import * as M from '../../../src/hazards/rules/mfma.js';
import { MAI908_FACTS } from '../../../src/hazards/rules/mai908.js';

/** Kind (as the cycle model's table names it) and pass count of every MFMA available on the target. */
function mfmaShapes(t: Target): { kind: MfmaTableKind; dgemm4: boolean; passes: number; name: string }[] {
  const out = new Map<string, { kind: MfmaTableKind; dgemm4: boolean; passes: number; name: string }>();
  for (const d of allInsns()) {
    if (d.cls !== 'mfma' || d.never) continue;
    if (!d.requires.every((f) => t.has(f)) || d.removedBy.some((f) => t.has(f))) continue;
    const shape = parseMfma(d.name);
    if (!shape) continue;
    const kind = mfmaKindOn(shape, t);
    const table: MfmaTableKind = kind === 'sgemm' ? 'sgemm' : kind === 'dgemm' ? 'dgemm' : 'xdl';
    const passes = mfmaPasses(shape, t).passes;
    const dgemm4 = kind === 'dgemm' && d.mfma?.m === 4;
    out.set(`${table}/${passes}/${dgemm4}`, { kind: table, dgemm4, passes, name: d.name });
  }
  return [...out.values()];
}

/** The hazard fact that governs a producer of this kind for each consumer the cycle model tells apart. */
function hazardFact(t: Target, kind: MfmaTableKind, dgemm4: boolean, c: MfmaConsumer): WaitStateFact | 0 {
  if (generationOf(t) === 'cdna1') {
    // gfx908: an identical tuple is a chain (no hazard); VALU and memory consumers read the AGPRs
    // through v_accvgpr_read
    return { srcCSame: 0 as const, srcC: MAI908_FACTS.mfmaSrcC, srcAB: MAI908_FACTS.mfmaSrcAB, valu: MAI908_FACTS.mfmaAccRead, mem: MAI908_FACTS.mfmaAccRead }[c];
  }
  // gfx90a has no SGEMM class: every non-DGEMM MFMA is XDL
  const k = kind === 'sgemm' && !t.has('gfx940-insts') ? 'xdl' : kind;
  if (k === 'xdl') return { srcCSame: M.X_SRCC_SAME, srcC: M.X_SRCC_X, srcAB: M.X_SRCAB, valu: M.X_VALU_READ, mem: M.X_MEM_READ }[c];
  if (k === 'sgemm') return { srcCSame: M.S_SRCC_SAME, srcC: M.S_SRCC_SD, srcAB: M.S_SRCAB, valu: M.S_VALU_READ, mem: M.S_MEM_READ }[c];
  if (dgemm4) return { srcCSame: M.D4_SRCC_SAME, srcC: M.D4_SRCC_NONXDL, srcAB: M.D4_SRCAB, valu: M.D4_VALU_READ, mem: M.D4_MEM_READ }[c];
  return { srcCSame: M.D_SRCC_SAME, srcC: M.D16_SRCC_NONXDL, srcAB: M.D16_SRCAB, valu: M.D16_VALU_READ, mem: M.D16_MEM_READ }[c];
}

for (const t of Object.values(TARGETS)) {
  test(`${t.name}: the cycle model's MFMA wait states are the hazard facts`, () => {
    const params = defaultCycleParams(t);
    const shapes = mfmaShapes(t);
    if (!t.has('mai')) {
      assert.equal(shapes.length, 0);
      for (const [key, v] of Object.entries(params.values)) if (/^mfma\.(xdl|sgemm|dgemm)\./.test(key)) assert.equal(v.value, 0, key);
      return;
    }
    assert.ok(shapes.length > 0);
    for (const s of shapes) {
      for (const c of MFMA_CONSUMERS) {
        const fact = hazardFact(t, s.kind, s.dgemm4, c);
        const want = fact === 0 ? 0 : waitOf(fact, generationOf(t), s.passes);
        const got = params.values[mfmaParamKey(s.kind, c, s.passes)].value;
        assert.equal(got, want, `${t.name} ${s.name} (${s.kind}, ${s.passes} passes) -> ${c}`);
      }
    }
  });
}
