/**
 * Register pressure kept incrementally (live units per file counted as units enter and leave
 * the live set) against the plain definition recounted at every instruction: max(live before,
 * live after + written), per instruction, per block and per kernel, on the example kernel and
 * on snippets with dead definitions, tuples, AGPRs, SGPRs and special registers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import { computeLiveness, computePressure, type PressurePoint } from '../../../src/analysis/liveness.js';
import { AGPR_BASE, FLAT_SCRATCH_LO, VGPR_BASE } from '../../../src/asm/registers.js';
import { example } from '../../repo.js';


function count(set: Iterable<number>): PressurePoint {
  const p = { vgpr: 0, agpr: 0, sgpr: 0 };
  for (const u of set) {
    if (u >= AGPR_BASE) { if (u < 1024) p.agpr++; } else if (u >= VGPR_BASE) p.vgpr++; else if (u < FLAT_SCRATCH_LO) p.sgpr++;
  }
  return p;
}

const SNIPPET = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
  's_load_dwordx4 s[0:3], s[4:5], 0x0', 'v_mov_b32 v9, 0', 'v_mov_b32 v9, 1', 'v_add_u32 v1, v9, v2',
  'v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]', 'v_accvgpr_read_b32 v5, a3', 's_mov_b64 exec, -1', 's_mov_b32 m0, s7',
  'v_cmp_eq_u32 vcc, v1, v5', 's_cbranch_vccz .Lskip', 'global_load_dwordx4 v[10:13], v[20:21], off', 's_waitcnt vmcnt(0)',
  'v_add_f32 v14, v10, v13', '.Lskip:', 'v_add_f32 v15, v14, v1', 'buffer_store_dword v15, v16, s[0:3], 0 offen', 's_endpgm',
].join('\n') + '\n';

test('incremental pressure equals the pressure recounted at every instruction', () => {
  const texts: [string, string][] = [['example.s', readFileSync(example, 'utf8')], ['snippet.s', SNIPPET]];
  let points = 0;
  for (const [name, text] of texts) {
    for (const ctx of kernelContextsFromText(text, name)) {
      const live = computeLiveness(ctx.cfg, ctx.insns);
      const got = computePressure(ctx.cfg, ctx.insns, live);
      for (const b of ctx.cfg.blocks) {
        const cur = new Set<number>();
        const out = live.liveOut[b.id]!;
        for (let u = 0; u < out.length * 32; u++) if ((out[u >>> 5]! >>> (u & 31)) & 1) cur.add(u);
        for (let i = b.end - 1; i >= b.start; i--) {
          const r = ctx.insns[i]!;
          const pa = count(new Set([...cur, ...r.defs]));
          for (const u of r.defs) cur.delete(u);
          for (const u of r.uses) cur.add(u);
          const pb = count(cur);
          assert.deepEqual(got.points[i], { vgpr: Math.max(pa.vgpr, pb.vgpr), agpr: Math.max(pa.agpr, pb.agpr), sgpr: Math.max(pa.sgpr, pb.sgpr) }, `${name}:${ctx.cfg.insns[i]!.loc.line}`);
          points++;
        }
      }
    }
  }
  assert.ok(points > 100, `${points} instructions compared`);
});
