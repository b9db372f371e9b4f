/**
 * The wait estimate the Evaluator counts with places the waits the waitcnt analysis places, on
 * the original order of every region: one counter model at two speeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel, prepareKernels } from '../../../src/schedule/kernel.js';
import { analyzeWaitcnt } from '../../../src/waitcnt/index.js';
import { counterMax, flatEffects, kernelWaits, type ScoreSnapshot } from '../../../src/waitcnt/estimate.js';
import { Evaluator } from '../../../src/schedule/metrics.js';
import { root } from '../../repo.js';
import { LOOP } from './helpers.js';
import { estimateDifferences } from './wait-estimate.js';

const kernel = (lines: string[]) => pickKernel(loadText(['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', ...lines].join('\n') + '\n', 'k.s'));

/** The waits the analysis inserts into the region holding `line` once its own waits are set aside, as "line:vm/lgkm/exp". */
function analysisWaits(lines: string[], line: number): string[] {
  const k = kernel(lines);
  const r = k.regions.find((rg) => rg.lines[0] <= line && line <= rg.lines[1])!;
  const own = Array.from(r.stripped).filter((i) => k.insns[i]!.insn.base === 's_waitcnt');
  return analyzeWaitcnt(k.ctx, { skip: new Set(own) }).insertions.filter((w) => k.regionOf[w.before] === r.id)
    .map((w) => `${k.insns[w.before]!.insn.loc.line}:${w.vmcnt ?? -1}/${w.lgkmcnt ?? -1}/${w.expcnt ?? -1}`);
}

// each snippet holds one rule the estimate shares with the analysis (lines count from 4: target, .text, label)
const RULES: [string, string[], number, string[]][] = [
  ['a d16 VMEM load merges into a pending VMEM load of its register without a wait', [
    '  buffer_load_short_d16 v2, v3, s[0:3], 0 offen',
    '  buffer_load_short_d16_hi v2, v4, s[0:3], 0 offen',
    '  v_mov_b32 v6, 1',
    '  s_waitcnt vmcnt(0)',
    '  v_add_f32 v5, v2, v2',
    '  s_endpgm',
  ], 8, ['8:0/-1/-1']],
  ['more younger operations than the counter holds: the counter maximum minus one', [
    ...Array.from({ length: 17 }, (_, j) => `  ds_read_b32 v${j + 1}, v0 offset:${4 * j}`),
    '  s_waitcnt lgkmcnt(0)',
    '  v_add_f32 v20, v1, v1',
    '  v_add_f32 v21, v17, v17',
    '  s_endpgm',
  ], 22, ['22:-1/14/-1', '23:-1/0/-1']],
  ['an LDS access waits for a pending LDS-DMA', [
    '  buffer_load_dword v1, s[0:3], 0 offen lds',
    '  v_mov_b32 v6, 1',
    '  s_waitcnt vmcnt(0)',
    '  ds_read_b32 v2, v0',
    '  s_waitcnt lgkmcnt(0)',
    '  v_add_f32 v5, v2, v2',
    '  s_endpgm',
  ], 7, ['7:0/-1/-1', '9:-1/0/-1']],
  ['a region entered only on paths where the loads were skipped (correlated branches)', [
    '  s_cmp_eq_u32 s8, 1',
    '  s_cbranch_scc1 skip',
    '  buffer_load_dword v1, v3, s[0:3], 0 offen',
    'skip:',
    '  s_cmp_eq_u32 s8, 1',
    '  s_cbranch_scc1 tail',
    '  s_waitcnt vmcnt(0)',
    '  ds_write_b32 v4, v1',
    '  s_branch end',
    'tail:',
    '  v_mov_b32 v1, 0',
    '  v_add_f32 v2, v1, v1',
    'end:',
    '  s_endpgm',
  ], 14, []],
];

for (const [what, lines, line, waits] of RULES) {
  test(`wait estimate = waitcnt analysis: ${what}`, () => {
    assert.deepEqual(analysisWaits(lines, line), waits);
    assert.deepEqual(estimateDifferences(kernel(lines)), []);
  });
}

test('the correlated-branch region: a pass that follows every edge would see the load pending', () => {
  const k = kernel(RULES[3]![1]);
  const r = k.regions.find((rg) => rg.lines[0] <= 14 && 14 <= rg.lines[1])!;
  const kw = kernelWaits(k.ctx.cfg, flatEffects(k.ctx), counterMax(k.target), { at: [r.first] });
  const st = kw.before.get(r.first)!;
  assert.ok(Array.from(st.pendingPerClass(counterMax(k.target))).some((n) => n > 0));
  // the Evaluator starts the region from the analysis' entry: nothing pending
  const ev = new Evaluator(k, { nops: false });
  const entry = (ev as unknown as { waitEntry(r: number): ScoreSnapshot }).waitEntry(r.id);
  assert.deepEqual(Array.from(entry.pendingPerClass(counterMax(k.target))).filter((n) => n > 0), []);
});

test('wait estimate = waitcnt analysis on every region of the example and of a loop', () => {
  const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');
  for (const [text, name] of [[example, 'example.s'], [LOOP, 'loop.s']] as const) {
    for (const k of prepareKernels(loadText(text, name))) assert.deepEqual(estimateDifferences(k), [], `${name} ${k.name}`);
  }
});
