/**
 * One number for one thing: every command run on the bundled example kernel, and the numbers they
 * share compared: the three occupancies (descriptor, registers used, peak live) under the same
 * labels in text, JSON and the report; instructions, blocks, loops (header and back-edge lines)
 * and scheduling regions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ReportModel } from '../../../src/report/model.js';
import { example, run } from './harness.js';
const lines = readFileSync(example, 'utf8').split('\n');
const dir = mkdtempSync(join(tmpdir(), 'conductor-consistency-'));

function ok(...args: string[]): string {
  const r = run(...args);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
  return r.out;
}

function json<T = any>(...args: string[]): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  return JSON.parse(ok(...args)) as T;
}

function reportModel(file: string): ReportModel {
  const m = /<script type="application\/octet-stream" id="report-data">([A-Za-z0-9+/=]+)<\/script>/.exec(readFileSync(file, 'utf8'));
  assert.ok(m, 'the page holds the model');
  return JSON.parse(gunzipSync(Buffer.from(m[1]!, 'base64')).toString('utf8')) as ReportModel;
}

/** 1-based line of the first source line matching `re`. */
function lineOf(re: RegExp): number {
  const i = lines.findIndex((l) => re.test(l));
  assert.ok(i >= 0, String(re));
  return i + 1;
}

type Occ = { wavesPerSimd: number; limiter: string };
const pick = (o: Occ | undefined) => (o ? { wavesPerSimd: o.wavesPerSimd, limiter: o.limiter } : undefined);

test('every command names the file, the target and the kernel with the same keys', () => {
  // a file's record: file, arch, and its kernels as `kernels[]` each named by `name`
  const files = { analyze: json('analyze', example, '--json'), check: json('check', example, '--json'), simulate: json('simulate', example, '--json'), tag: json('tag', example, '--json') };
  for (const [cmd, r] of Object.entries(files)) {
    assert.equal(r.file, example, `${cmd}: file`);
    if (cmd !== 'tag') assert.equal(r.arch, 'gfx942', `${cmd}: arch`);
    const k = r.kernels[0];
    assert.equal(k.name, 'mfma_lds_gemm', `${cmd}: kernels[].name`);
    assert.equal(k.kernel, undefined, `${cmd}: no second key for the kernel's name`);
    assert.equal(r.target, undefined, `${cmd}: no second key for the target`);
    if ('arch' in k) assert.equal(k.arch, 'gfx942', `${cmd}: kernels[].arch`);
  }
  // a record about one kernel (schedule, apply): file, kernel, arch at the top
  for (const [cmd, r] of [['schedule', json('schedule', example, '--strategy', 'list', '--budget', '20', '--no-cache', '-o', join(dir, 'k.s'), '--json')], ['apply', json('apply', example, '--moves', 'done', '--json')]] as const) {
    assert.deepEqual([r.file, r.kernel, r.arch], [example, 'mfma_lds_gemm', 'gfx942'], cmd);
  }
});

test('every command gives the same occupancies, instructions, blocks, loops and regions for one kernel', () => {
  // the example's metadata gives workgroups of 64 (LDS binds all three occupancies at 4); at 256 work-items the three differ
  const wg = ['--workgroup-size', '256'];
  const analyze = json('analyze', example, ...wg, '--json').kernels[0];
  const check = json('check', example, ...wg, '--json').kernels[0];
  const simulate = json('simulate', example, ...wg, '--json').kernels[0];
  const tag = json('tag', example, ...wg, '--json').kernels[0];
  const reportFile = join(dir, 'r.html');
  ok('report', example, ...wg, '-o', reportFile);
  const report = reportModel(reportFile).kernels[0]!;
  const sched = join(dir, 's.s');
  const schedule = json('schedule', example, ...wg, '--strategy', 'list', '--budget', '60', '--no-cache', '--no-pipeline', '-o', sched, '--json'); // report --after shows reorderings
  const apply = json('apply', example, ...wg, '--moves', 'move v_mov_b32_e32_0 before s_load_dword_0', '--json');
  const verify = json('verify', example, sched, ...wg, '--json');
  const afterFile = join(dir, 'after.html');
  ok('report', example, ...wg, '--after', sched, '-o', afterFile);
  const after = reportModel(afterFile);

  // the three occupancies, one value each
  const occ = analyze.occupancy as Record<'descriptor' | 'registersUsed' | 'peakLive', Occ>;
  assert.deepEqual(Object.keys(occ).sort(), ['descriptor', 'peakLive', 'registersUsed']);
  assert.deepEqual(check.occupancy, occ);
  for (const kind of ['descriptor', 'registersUsed', 'peakLive'] as const) {
    assert.deepEqual(pick(report.resources.occupancy[kind]), occ[kind], `report ${kind}`);
    assert.deepEqual(pick(after.kernels[0]!.resources.occupancy[kind]), occ[kind], `report --after ${kind}`);
  }
  // the example's three differ: the test can tell them apart
  const meta = json('analyze', example, '--json').kernels[0].occupancy as Record<'descriptor' | 'registersUsed' | 'peakLive', Occ>;
  assert.deepEqual([meta.descriptor.wavesPerSimd, meta.registersUsed.wavesPerSimd, meta.peakLive.wavesPerSimd, meta.peakLive.limiter], [4, 4, 4, 'lds'], 'workgroups of 64');
  assert.equal(new Set([occ.descriptor.wavesPerSimd, occ.registersUsed.wavesPerSimd, occ.peakLive.wavesPerSimd]).size, 3);
  // the scheduler's occupancy metric is occupancy (peak live); descriptor and registers used beside it
  for (const [name, r] of [['schedule', schedule], ['apply', apply]] as const) {
    assert.equal(r.before.occupancy, occ.peakLive.wavesPerSimd, `${name}: occupancy metric = peak live`);
    assert.deepEqual(r.occupancy, { descriptor: occ.descriptor, registersUsed: occ.registersUsed }, name);
  }
  assert.equal(report.metrics.occupancy, occ.peakLive.wavesPerSimd);
  assert.equal(after.comparison!.deltas.find((d) => d.metric === 'occupancy')!.label, 'occupancy (peak live)');
  // simulate's several waves: what the hardware runs, the descriptor's occupancy
  assert.equal(simulate.multi.waves, occ.descriptor.wavesPerSimd);
  assert.equal(report.cycles.multi.waves, occ.descriptor.wavesPerSimd);

  // the same labels in every text output
  const d = `occupancy (descriptor) ${occ.descriptor.wavesPerSimd} waves/SIMD, limited by ${occ.descriptor.limiter}`;
  const u = `occupancy (registers used) ${occ.registersUsed.wavesPerSimd}, limited by ${occ.registersUsed.limiter}`;
  const p = `occupancy (peak live) ${occ.peakLive.wavesPerSimd}`;
  for (const args of [['analyze', example, ...wg], ['check', example, ...wg]]) {
    const out = run(...args).out;
    for (const s of [d, u, `${p}, limited by ${occ.peakLive.limiter}`]) assert.ok(out.includes(s), `${args[0]}: ${s}\n${out}`);
  }
  for (const out of [ok('schedule', example, ...wg, '--strategy', 'list', '--budget', '20', '--no-cache'), ok('apply', example, ...wg, '--moves', 'done')]) {
    for (const s of [d, u, `before: peak_vgpr`, p]) assert.ok(out.includes(s), `${s}\n${out}`);
    assert.doesNotMatch(out, /occupancy \d/, 'no unlabelled occupancy');
  }
  assert.ok(ok('simulate', example, ...wg, '--no-insns').includes(`${occ.descriptor.wavesPerSimd} waves on one SIMD, as occupancy (descriptor) allows (limited by ${occ.descriptor.limiter})`));

  // instructions and blocks
  assert.equal(check.instructions, analyze.instructions);
  assert.equal(report.instructions, analyze.instructions);
  assert.equal(tag.instructions, analyze.instructions);
  assert.equal(simulate.blocks.length, analyze.blocks);
  assert.equal(report.blocks.length, analyze.blocks);
  assert.equal(verify.kernels[0].instructions, tag.movable, 'verify compares the instructions tag calls movable');

  // loops: the header's first instruction (after its label) and the back edge's branch line
  const header = lineOf(/^\.LBB0_2:/) + 1;
  const backEdge = lineOf(/s_cbranch_scc1 \.LBB0_2/);
  assert.deepEqual(simulate.loops.map((l: { headerLine: number; latchLine: number }) => [l.headerLine, l.latchLine]), [[header, backEdge]]);
  assert.deepEqual(report.cycles.loops.map((l) => [l.headerLine, l.latchLine]), [[header, backEdge]]);
  assert.match(ok('simulate', example, ...wg, '--no-insns'), new RegExp(`loop at line ${header} \\(\\.LBB0_2, block \\d+, back edge at line ${backEdge};`));

  // regions: the report groups the moves by tag's regions (same numbers, lines and blocks)
  const c = after.comparison!;
  assert.ok(c.regions.length > 0);
  assert.equal(c.regions.reduce((n, g) => n + g.moves.length, 0), c.moves.length);
  for (const g of c.regions) {
    const t = tag.regions.find((r: { region: number }) => r.region === g.region);
    assert.ok(t, `region ${g.region} is one of tag's`);
    assert.deepEqual([g.lines, g.block, g.instructions], [t.lines, t.block, t.instructions.length], `region ${g.region}`);
  }
  assert.equal(c.changedRegions, c.regions.length);
  assert.match(ok('verify', example, ...wg, sched), new RegExp(`\\(1 kernel; ${tag.movable} movable instructions`));
});
