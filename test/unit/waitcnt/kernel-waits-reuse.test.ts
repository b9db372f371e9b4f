/**
 * kernelWaits runs a block again in a later pass only when one of its predecessors' exit states
 * changed since its last run. Against the plain iteration that runs every block in every pass
 * (rerunAll) it gives the same inserted waits and the same kept states, in the same order, on
 * kernels with loops, branches and joins, with and without waits refused, forced or stripped;
 * it runs fewer blocks; and its check (`check`, CONDUCTOR_CHECK_FAST=1) throws FastPathMismatch
 * when the reuse is wrong: here an `accept` that answers differently the second time it is asked
 * (a block not run again is never asked again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { counterMax, flatEffects, kernelWaits, kernelWaitsDifference, type CounterScores } from '../../../src/waitcnt/estimate.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { LOOP } from '../schedule/helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** Two nested loops, a branch around a block and a join, loads in flight across every edge. */
const NESTED = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
  '  s_load_dwordx2 s[2:3], s[0:1], 0x0',
  '  s_mov_b32 s8, 4',
  '  global_load_dwordx4 v[0:3], v[40:41], off',
  '  s_add_u32 s5, s2, 1',
  'outer:',
  '  s_mov_b32 s9, 8',
  '  ds_read_b64 v[8:9], v42',
  'inner:',
  '  global_load_dwordx4 v[4:7], v[40:41], off offset:16',
  '  v_add_u32 v40, 64, v40',
  '  v_add_f32 v10, v8, v9',
  '  ds_read_b64 v[8:9], v42 offset:8',
  '  s_sub_u32 s9, s9, 1',
  '  s_cmp_lg_u32 s9, 0',
  '  s_cbranch_scc1 inner',
  '  s_cmp_eq_u32 s8, 2',
  '  s_cbranch_scc1 skip',
  '  v_add_f32 v11, v0, v4',
  '  global_store_dword v[40:41], v11, off',
  '  s_add_u32 s4, s2, 1',
  'skip:',
  '  v_add_f32 v12, v5, v1',
  '  s_sub_u32 s8, s8, 1',
  '  s_cmp_lg_u32 s8, 0',
  '  s_cbranch_scc1 outer',
  '  s_waitcnt vmcnt(0)',
  '  s_endpgm', '',
].join('\n');

const KERNELS: readonly [string, string][] = [['example.s', example], ['loop.s', LOOP], ['nested.s', NESTED]];

function contextOf(name: string, text: string) {
  return kernelContexts(loadText(text, name)).find((c) => c.insns.length > 0)!;
}

test('kernelWaits running only the blocks whose entry changed equals the pass that runs every block, and runs fewer', () => {
  let fewer = 0;
  let compared = 0;
  for (const [name, text] of KERNELS) {
    const ctx = contextOf(name, text);
    const f = flatEffects(ctx);
    const max = counterMax(ctx.target);
    const all = Array.from({ length: f.n }, (_, i) => i);
    const waits = all.filter((i) => f.special[i] === 1);
    const skip = new Uint8Array(f.n);
    for (const i of waits) skip[i] = 1;
    const forced = new Map(all.filter((i) => i % 7 === 3).map((i) => [i, { vm: 1, lgkm: -1, exp: -1 }] as const));
    const variants: Parameters<typeof kernelWaits>[3][] = [
      { at: all, after: all },
      { at: all, after: all, skip },
      { after: all, accept: () => false },
      { at: all, skip, accept: (i) => i % 2 === 0 },
      { after: all, accept: () => false, forced },
      { at: all, after: all, skip, forced },
    ];
    for (const opts of variants) {
      const reused = kernelWaits(ctx.cfg, f, max, { ...opts, check: false });
      const whole = kernelWaits(ctx.cfg, f, max, { ...opts, rerunAll: true });
      assert.equal(kernelWaitsDifference(reused, whole), undefined, name);
      assert.ok(reused.blockRuns <= whole.blockRuns);
      if (reused.blockRuns < whole.blockRuns) fewer++;
      // the check runs both and agrees
      kernelWaits(ctx.cfg, f, max, { ...opts, check: true });
      compared++;
    }
    assert.ok(ctx.cfg.blocks.length > 1, `${name}: one block only`);
  }
  assert.equal(compared, 18);
  assert.ok(fewer >= 12, `only ${fewer} of ${compared} passes ran fewer blocks`);
});

test('kernelWaits passes in a row that share their blocks\' exit states (spare) equal passes with states of their own', () => {
  for (const [name, text] of KERNELS) {
    const ctx = contextOf(name, text);
    const f = flatEffects(ctx);
    const max = counterMax(ctx.target);
    const all = Array.from({ length: f.n }, (_, i) => i);
    const forced = new Map(all.filter((i) => i % 5 === 2).map((i) => [i, { vm: 0, lgkm: -1, exp: -1 }] as const));
    // the states one pass leaves hold its scores: the next pass, with other waits, must not read them
    const variants: Parameters<typeof kernelWaits>[3][] = [{ at: all, after: all, forced }, { at: all, after: all }, { after: all, accept: () => false }];
    const spare: CounterScores[] = [];
    for (const opts of variants) {
      const shared = kernelWaits(ctx.cfg, f, max, { ...opts, check: false, spare });
      const own = kernelWaits(ctx.cfg, f, max, { ...opts, check: false });
      assert.equal(kernelWaitsDifference(shared, own), undefined, name);
      // every block runs in the first round and keeps an exit state, taken from the list and given back
      assert.equal(spare.length, ctx.cfg.blocks.length, `${name}: the pass gave back its exit states`);
    }
  }
});

test('kernelWaitsDifference tells apart results that differ in a wait, a kept state or the order the states are kept in', () => {
  const ctx = contextOf('nested.s', NESTED);
  const f = flatEffects(ctx);
  const max = counterMax(ctx.target);
  const all = Array.from({ length: f.n }, (_, i) => i);
  const a = kernelWaits(ctx.cfg, f, max, { at: all, after: all });
  const fresh = () => kernelWaits(ctx.cfg, f, max, { at: all, after: all });
  assert.equal(kernelWaitsDifference(a, fresh()), undefined);
  const b = fresh();
  const [i0, w0] = [...b.inserted][0]!;
  b.inserted.set(i0, { ...w0, vm: w0.vm + 1 });
  assert.match(kernelWaitsDifference(a, b)!, /inserted waits/);
  const c = fresh();
  const pending = [...c.after].find(([, st]) => st.at.length > 0)!;
  pending[1].val[0]!++;
  assert.match(kernelWaitsDifference(a, c)!, /state after/);
  const d = fresh();
  const reordered = new Map([...d.before].reverse());
  assert.match(kernelWaitsDifference(a, { ...d, before: reordered })!, /another order/);
});

test('kernelWaits\' check throws FastPathMismatch when a block not run again would have answered otherwise (a planted fault: an accept that changes its mind)', () => {
  let planted = 0;
  for (const [name, text] of KERNELS) {
    const ctx = contextOf(name, text);
    const f = flatEffects(ctx);
    const max = counterMax(ctx.target);
    const changing = () => {
      const asked = new Set<number>();
      // refuses each instruction's wait the first time it is asked for, accepts it later
      return (i: number) => { if (asked.has(i)) return true; asked.add(i); return false; };
    };
    const skip = new Uint8Array(f.n);
    for (let i = 0; i < f.n; i++) if (f.special[i] === 1) skip[i] = 1;
    // unchecked, the reuse keeps the first answer where the plain iteration asks again (in the
    // blocks whose entry does not change after their first run)
    const reused = kernelWaits(ctx.cfg, f, max, { skip, accept: changing(), check: false });
    const whole = kernelWaits(ctx.cfg, f, max, { skip, accept: changing(), rerunAll: true });
    if (kernelWaitsDifference(reused, whole) === undefined) continue;
    planted++;
    assert.throws(() => kernelWaits(ctx.cfg, f, max, { skip, accept: changing(), check: true }), FastPathMismatch, name);
  }
  assert.ok(planted >= 2, `the planted fault showed on ${planted} kernels only`);
});
