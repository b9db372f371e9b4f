/**
 * The waitcnt report read from each path class's latest run (the records kept at the fixed
 * point) against the reference that runs every block once more from the fixed point
 * (AnalysisOptions.rerun): missing waits, insertions, judgements, bounds per instruction and
 * the waits needed on every path, identical on the example kernel and on generated kernels with
 * loops, branches on SGPR counters, loads of every counter and waits of every strength.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { analyzeWaitcnt, type AnalysisOptions } from '../../../src/waitcnt/analysis.js';
import { example } from '../../repo.js';


/** A small deterministic generator (xorshift32). */
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x % n;
  };
}

/** A kernel of straight code, forward branches and loops on SGPR counters, with loads, reads and waits. */
function generated(seed: number): string {
  const r = rng(seed);
  const lines = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', 's_mov_b32 s12, 0'];
  let label = 0;
  const open: string[] = [];
  for (let k = 0; k < 60; k++) {
    const v = 2 * r(12);
    switch (r(14)) {
      case 0: case 1: lines.push(`buffer_load_dwordx2 v[${v}:${v + 1}], v40, s[0:3], 0 offen`); break;
      case 2: lines.push(`ds_read_b64 v[${v}:${v + 1}], v41`); break;
      case 3: { const q = 20 + 2 * r(4); lines.push(`s_load_dwordx2 s[${q}:${q + 1}], s[4:5], 0x0`); break; }
      case 4: case 5: lines.push(`v_add_f32 v${30 + r(4)}, v${v}, v${v + 1}`); break;
      case 6: lines.push(`s_add_u32 s${30 + r(2)}, s${20 + 2 * r(4)}, 1`); break;
      case 7: lines.push(`s_waitcnt vmcnt(${r(4)})`); break;
      case 8: lines.push(`s_waitcnt lgkmcnt(${r(2)})`); break;
      case 9: lines.push(`buffer_store_dword v${v}, v40, s[0:3], 0 offen`); break;
      case 10: {
        const l = `.L${label++}`;
        lines.push(`s_cmp_le_u32 s12, ${r(4)}`, `s_cbranch_scc1 ${l}`);
        open.push(l);
        break;
      }
      case 11: if (open.length) lines.push(`${open.pop()!}:`); break;
      case 12: {
        const l = `.L${label++}`;
        lines.push(`${l}:`, `ds_write_b32 v41, v${v}`, `buffer_load_dword v${v}, v40, s[0:3], 0 offen`, 's_add_u32 s12, s12, 1', `s_cmp_lt_u32 s12, ${1 + r(6)}`, `s_cbranch_scc1 ${l}`);
        break;
      }
      default: lines.push(`v_mov_b32 v${v}, v${30 + r(4)}`);
    }
  }
  while (open.length) lines.push(`${open.pop()!}:`);
  lines.push('s_waitcnt vmcnt(0) lgkmcnt(0)', 's_endpgm');
  return lines.join('\n') + '\n';
}

function same(ctx: KernelContext, opts: AnalysisOptions, where: string): void {
  const a = analyzeWaitcnt(ctx, opts);
  const b = analyzeWaitcnt(ctx, { ...opts, rerun: true });
  assert.deepEqual(a.missing, b.missing, `${where}: missing`);
  assert.deepEqual(a.missingNeeds, b.missingNeeds, `${where}: needs`);
  assert.deepEqual(a.insertions, b.insertions, `${where}: insertions`);
  assert.deepEqual(a.judgements, b.judgements, `${where}: judgements`);
  assert.deepEqual(a.pendAt, b.pendAt, `${where}: pendAt`);
  assert.deepEqual(a.everyPath, b.everyPath, `${where}: everyPath`);
}

test('the report from the records of the latest runs equals one more pass over the fixed point', () => {
  const texts: [string, string][] = [['example', readFileSync(example, 'utf8')]];
  for (let seed = 1; seed <= 40; seed++) texts.push([`generated ${seed}`, generated(seed)]);
  let missing = 0;
  let judged = 0;
  for (const [name, text] of texts) {
    for (const ctx of kernelContextsFromText(text, `${name}.s`)) {
      for (const opts of [{ judge: true }, { judge: true, pendAt: true }, { meet: true }, { judge: true, mixed: 'force-zero' as const }]) {
        same(ctx, opts, `${name} ${JSON.stringify(opts)}`);
      }
      const r = analyzeWaitcnt(ctx, { judge: true });
      missing += r.missingNeeds.length;
      judged += r.judgements.filter((j) => j.verdict !== 'needed').length;
    }
  }
  assert.ok(missing > 20 && judged > 20, `missing waits ${missing}, waits judged other than needed ${judged}`);
});

test('the analysis restricted to the blocks that reach some instructions reports at them what the whole analysis reports', () => {
  let compared = 0;
  let every = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(1000 + seed);
    for (const ctx of kernelContextsFromText(generated(seed), `generated-${seed}.s`)) {
      for (const base of [{ meet: true }, { judge: true }]) {
        const full = analyzeWaitcnt(ctx, base);
        const want = new Set<number>();
        for (let k = 0; k < 4; k++) want.add(r(ctx.insns.length));
        const part = analyzeWaitcnt(ctx, { ...base, only: want });
        for (const i of want) {
          for (let c = 0; c < 3; c++) {
            assert.equal(part.everyPath?.has(3 * i + c), full.everyPath?.has(3 * i + c), `seed ${seed} insn ${i} counter ${c}`);
            if (full.everyPath?.has(3 * i + c)) every++;
          }
          const at = (x: typeof full) => x.missingNeeds.filter((_, k) => x.missing[k]!.insn === i);
          assert.deepEqual(at(part), at(full), `seed ${seed} insn ${i}: missing waits`);
          assert.deepEqual(part.insertions.filter((w) => w.before === i), full.insertions.filter((w) => w.before === i), `seed ${seed} insn ${i}: insertions`);
          compared++;
        }
      }
    }
  }
  assert.ok(compared > 200 && every > 10, `${compared} instructions compared, ${every} waits needed on every path`);
});
