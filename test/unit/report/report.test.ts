/**
 * The report's data (no browser): the model agrees with check, the cycle model and liveness row
 * by row; occupancy breakpoints are where waves per SIMD really change; a scheduled file is turned
 * back into the moves that produce it; the page is self-contained and carries the model; the
 * command writes nothing on bad input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadFile, loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { checkContexts } from '../../../src/check/check.js';
import { kernelResources } from '../../../src/analysis/resources.js';
import { simulateKernel } from '../../../src/cycles/simulate.js';
import { kernelWaves, loopChanges } from '../../../src/cycles/kernel-time.js';
import { computeOccupancy } from '../../../src/analysis/occupancy.js';
import { ConductorError } from '../../../src/errors.js';
import { pickKernel, ScheduleState, emitSchedule, replayMoves, programMetrics } from '../../../src/schedule/index.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { randomSchedule } from '../schedule/helpers.js';
import {
  alignScheduled, buildReportModel, busiestBlock, metricDeltas, renderReportHtml, DIAG, LINE_KIND, REG_FILES, type ReportModel,
} from '../../../src/report/index.js';
import { bin, example } from '../../repo.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-report-'));

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** The model a page carries. */
function modelOfPage(html: string): ReportModel {
  const m = /<script type="application\/octet-stream" id="report-data">([A-Za-z0-9+/=]+)<\/script>/.exec(html);
  assert.ok(m, 'the page holds the encoded model');
  return JSON.parse(gunzipSync(Buffer.from(m[1]!, 'base64')).toString('utf8')) as ReportModel;
}

const HAZARDS = [
  'v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]',
  'v_add_f32 v8, v4, v4',
  'global_load_dword v9, v[10:11], off',
  'v_add_f32 v12, v9, v9',
  's_nop 0',
  's_waitcnt vmcnt(0)',
  's_endpgm',
].join('\n') + '\n';


test('model of the example: every column row by row from simulate, liveness and the cycle model', async () => {
  const loaded = await loadFile(example);
  const model = buildReportModel(loaded);
  assert.equal(model.kernels.length, 1);
  const k = model.kernels[0]!;
  const ctx = kernelContexts(loaded)[0]!;
  assert.equal(k.name, ctx.kernel.name);
  assert.equal(k.instructions, ctx.insns.length);
  for (const [name, col] of Object.entries(k.code)) assert.equal((col as unknown[]).length, k.instructions, `column ${name}`);
  const sim = simulateKernel(ctx);
  const { resources } = kernelResources(ctx);
  for (let i = 0; i < k.instructions; i++) {
    const row = sim.rows[i]!;
    assert.equal(k.code.line[i], ctx.insns[i]!.insn.loc.line);
    assert.equal(k.code.issue[i], Math.round(row.issue * 100) / 100);
    assert.equal(k.code.stall[i], Math.round(row.stall * 100) / 100);
    assert.equal(k.reasons[k.code.reason[i]!], row.reason);
    assert.ok(k.code.wait[i]! <= k.code.stall[i]! && k.code.wait[i]! >= 0);
    for (const f of REG_FILES) assert.equal(k.code[f][i], resources.pressure.points[i]![f]);
    const base = ctx.insns[i]!.insn.base;
    assert.equal(k.code.kind[i], base === 's_waitcnt' ? LINE_KIND.wait : base === 's_nop' ? LINE_KIND.nop : 0);
  }
  assert.ok(k.code.stall.some((s) => s > 0), 'the example stalls somewhere');
  assert.ok(k.code.latency.every((l) => l >= 0));
  assert.equal(k.resources.peak.vgpr.value, resources.peak.vgpr.value);
  assert.equal(k.resources.occupancy.registersUsed.wavesPerSimd, resources.occupancy.registersUsed.wavesPerSimd);
  assert.equal(k.resources.declared?.vgpr, resources.declared?.vgpr);
  assert.deepEqual(k.metrics, programMetrics(loaded, k.name));
  assert.equal(k.cycles.single, sim.single.cycles);
  // blocks cover the code in order; the timeline starts at the busiest one
  assert.equal(k.blocks[0]!.start, 0);
  assert.equal(k.blocks[k.blocks.length - 1]!.end, k.instructions);
  const tb = k.blocks[k.timelineBlock]!;
  assert.ok(k.blocks.every((b) => b.end <= b.start || b.walkCycles <= tb.walkCycles));
  assert.equal(busiestBlock(k.blocks), k.timelineBlock);
  // the scheduling regions, as tag numbers them, each inside its block; its cycles span its rows in the walk
  const sk = pickKernel(loaded);
  assert.deepEqual(k.regions.map((r) => [r.id, r.block, r.lines, r.instructions]), sk.regions.map((r) => [r.id, r.block, r.lines, r.nodes.length]));
  for (const r of k.regions) {
    const b = k.blocks[r.block]!;
    assert.ok(b.start <= r.start && r.end <= b.end && r.start < r.end);
    const rows = Array.from({ length: r.end - r.start }, (_, j) => r.start + j).filter((i) => k.code.issue[i]! >= 0);
    const span = Math.max(...rows.map((i) => k.code.issue[i]! + k.code.cost[i]!)) - Math.min(...rows.map((i) => k.code.issue[i]! - k.code.wait[i]!));
    assert.equal(r.cycles, Math.round(span * 100) / 100);
  }
});

test('occupancy breakpoints: waves per SIMD change exactly one register above each', async () => {
  for (const file of [example]) {
    const loaded = await loadFile(file);
    const k = buildReportModel(loaded).kernels[0]!;
    const ctx = kernelContexts(loaded)[0]!;
    const used = k.resources.used;
    const wavesAt = (f: 'vgpr' | 'agpr' | 'sgpr', x: number): number => {
      const o = computeOccupancy(ctx.target, {
        vgprs: f === 'vgpr' ? x : used.vgpr, agprs: f === 'agpr' ? x : used.agpr, sgprs: f === 'sgpr' ? x : used.sgpr, ldsBytes: 0,
      });
      return f === 'sgpr' ? o.byResource.sgpr : f === 'agpr' ? (o.byResource.agpr ?? o.byResource.vgpr) : o.byResource.vgpr;
    };
    for (const f of REG_FILES) {
      const bps = k.resources.breakpoints[f];
      assert.ok(bps.length >= 2, `${f}: several steps on gfx942 (${JSON.stringify(bps)})`);
      let prevWaves = Infinity;
      for (const b of bps) {
        assert.equal(wavesAt(f, b.regs), b.waves, `${f} at ${b.regs}`);
        if (b.regs < k.resources.fileMax[f]) assert.ok(wavesAt(f, b.regs + 1) < b.waves, `${f}: fewer waves at ${b.regs + 1}`);
        assert.ok(b.waves < prevWaves, 'waves fall as registers grow');
        prevWaves = b.waves;
      }
    }
    // gfx942, no AGPRs used: the first step of the VGPR staircase is 8 waves up to 64 VGPRs (512 / 8)
    assert.deepEqual(k.resources.breakpoints.vgpr.slice(0, 1), [{ regs: 64, waves: 8 }]);
  }
});

test('findings: listed with their rows; hazards mark consumer and producer; errors mark the row', () => {
  const loaded = loadText(HAZARDS, 'h.s', { arch: 'gfx942' });
  const k = buildReportModel(loaded).kernels[0]!;
  const findings = checkContexts(kernelContexts(loaded))[0]!.findings;
  assert.equal(k.diagnostics.length, findings.length);
  const hz = k.diagnostics.find((d) => d.rule === 'mfma-xdl-write-valu-read');
  assert.ok(hz, JSON.stringify(k.diagnostics));
  assert.equal(hz.hazard, true);
  assert.equal(hz.line, 2);
  assert.equal(hz.insn, 1);
  assert.equal(k.code.diag[1], DIAG.error);
  assert.equal(k.code.hazard[1], 1);
  assert.equal(k.code.hazard[0], 1, 'the producer is marked too');
  assert.deepEqual(hz.related.map((r) => r.line), [1]);
  const wait = k.diagnostics.find((d) => d.rule === 'waitcnt-missing');
  assert.ok(wait);
  assert.equal(wait.hazard, false);
  assert.equal(k.code.hazard[3], 0, 'a missing wait is not a hazard');
  assert.equal(k.code.diag[3], DIAG.error);
  assert.equal(k.counts.errors, 2);
  assert.equal(k.code.kind[4], LINE_KIND.nop);
  assert.equal(k.code.kind[5], LINE_KIND.wait);
});

test('alignScheduled: 30 random legal schedules of the example come back as the same orders', async () => {
  const loaded = await loadFile(example);
  const k = pickKernel(loaded);
  const rand = mulberry32(11);
  let checked = 0;
  for (let t = 0; t < 30; t++) {
    const s = randomSchedule(k, rand, 25);
    if (s.changedRegions().length === 0) continue;
    const text = emitSchedule(s).text;
    const a = alignScheduled(loaded, loadText(text, `sched${t}.s`));
    assert.deepEqual(a.changedRegions, s.changedRegions());
    for (const r of s.changedRegions()) assert.deepEqual(Array.from(a.state.order[r]!), Array.from(s.order[r]!), `region ${r}`);
    const back = replayMoves(k, a.moves);
    assert.ok('state' in back);
    for (let r = 0; r < k.regions.length; r++) assert.deepEqual(Array.from(back.state.order[r]!), Array.from(s.order[r]!));
    checked++;
  }
  assert.ok(checked >= 20, `${checked} schedules changed something`);
});

test('alignScheduled: the same file gives no moves; a file that is not a reordering is refused', async () => {
  const text = readFileSync(example, 'utf8');
  const loaded = loadText(text, 'a.s');
  assert.deepEqual(alignScheduled(loaded, loadText(text, 'b.s')).moves, []);
  // swap two dependent lines: v_lshlrev_b32 v36 reads v2 that the v_xor before it writes
  const lines = text.split('\n');
  const a = lines.findIndex((l) => /^\s*v_xor_b32_e32 v2, 32, v0/.test(l));
  const b = lines.findIndex((l) => /^\s*v_lshlrev_b32_e32 v36, 3, v2/.test(l));
  assert.ok(a >= 0 && b > a);
  const bad = lines.slice();
  bad[a] = lines[b]!;
  bad[b] = lines[a]!;
  assert.throws(() => alignScheduled(loaded, loadText(bad.join('\n'), 'bad.s')),
    (e: unknown) => e instanceof ConductorError && /bad\.s is not a legal reordering of a\.s/.test(e.message) && /v2|v36/.test(e.message));
  // a changed operand is not a reordering either
  const changed = text.replace(/v_mov_b32_e32 v35, 0/, 'v_mov_b32_e32 v35, 1');
  assert.throws(() => alignScheduled(loaded, loadText(changed, 'c.s')), /not a legal reordering/);
});

test('with a scheduled file: both kernels, the moves, the moved rows and the metric deltas', async () => {
  const loaded = await loadFile(example);
  const k = pickKernel(loaded);
  const s = new ScheduleState(k);
  const moves = ['move v_mov_b32_e32_0 before s_load_dword_0', 'move v_add_u32_e32_0 before v_lshlrev_b64_0'];
  const st = replayMoves(k, moves);
  assert.ok('state' in st);
  s.copyFrom(st.state);
  const sched = loadText(emitSchedule(s).text, 'sched.s');
  const model = buildReportModel(loaded, { after: sched });
  assert.ok(model.after && model.comparison);
  assert.deepEqual(model.comparison.moves, moves);
  assert.equal(model.comparison.changedRegions, 2);
  // grouped by the region of the instruction each moves, with tag's numbers, lines and blocks
  const r0 = k.regionOf[k.byTag.get('v_mov_b32_e32_0')!]!;
  const r1 = k.regionOf[k.byTag.get('v_add_u32_e32_0')!]!;
  assert.ok(r0 < r1);
  assert.deepEqual(model.comparison.regions, [r0, r1].map((r, x) => ({
    region: r, block: k.regions[r]!.block, labels: r === r1 ? ['.LBB0_2'] : [], lines: k.regions[r]!.lines,
    instructions: k.regions[r]!.nodes.length, cycles: [model.kernels[0]!.regions[r]!.cycles, model.after!.regions[r]!.cycles], moves: [moves[x]!],
  })));
  // the regions of both views: tag's, each the same instructions in the scheduled order
  const before0 = model.kernels[0]!;
  assert.deepEqual(before0.regions.map((r) => [r.id, r.block, r.lines, r.instructions, r.start, r.end]),
    k.regions.map((r) => [r.id, r.block, r.lines, r.nodes.length, r.nodes[0], r.nodes[r.nodes.length - 1]! + 1]));
  const movable = (v: typeof before0, r: { start: number; end: number }) =>
    v.code.text.slice(r.start, r.end).filter((_, j) => v.code.kind[r.start + j] === 0).sort();
  for (const r of k.regions) assert.deepEqual(movable(model.after, model.after.regions[r.id]!), movable(before0, before0.regions[r.id]!));
  assert.ok(before0.regions.every((r) => r.cycles > 0));
  // every loop before and after, as schedule reports them, at the kernel's waves
  const sctx = kernelContexts(sched).find((c) => c.kernel.name === k.name)!;
  assert.deepEqual(model.comparison.loops, loopChanges(k.ctx, sctx, undefined));
  assert.equal(model.comparison.waves, kernelWaves(k.ctx).waves);
  assert.deepEqual(model.comparison.loops.map((l) => [l.line, l.instructions, l.trip, l.tripFrom]), [[55, 54, 64, 'default']]);
  assert.equal(model.after.file, 'sched.s');
  const before = model.kernels[0]!;
  assert.equal(before.code.moved!.reduce((x, y) => x + y, 0), 2);
  assert.equal(model.after.code.moved!.reduce((x, y) => x + y, 0), 2);
  const movedAfter = model.after.code.text.filter((_, i) => model.after!.code.moved![i]);
  assert.deepEqual(movedAfter.sort(), ['v_add_u32_e32 v40, 64, v34', 'v_mov_b32_e32 v35, 0']);
  // the first row of the scheduled kernel is the moved v_mov
  assert.equal(model.after.code.text[0], 'v_mov_b32_e32 v35, 0');
  const mb = programMetrics(loaded, k.name);
  const ma = programMetrics(sched, k.name);
  assert.deepEqual(model.comparison.deltas, metricDeltas(mb, ma));
  for (const d of model.comparison.deltas) assert.equal(d.delta, ma[d.metric] - mb[d.metric]);
});

test('metricDeltas: lower is better except occupancy', () => {
  const base = { peak_vgpr: 10, peak_agpr: 0, peak_sgpr: 8, s_waitcnt: 3, s_nop: 1, total_instructions: 20, occupancy: 4, est_cycles: 100 };
  const d = metricDeltas(base, { ...base, peak_vgpr: 8, occupancy: 5, est_cycles: 120 });
  const by = new Map(d.map((x) => [x.metric, x]));
  assert.deepEqual([by.get('peak_vgpr')!.delta, by.get('peak_vgpr')!.better], [-2, true]);
  assert.deepEqual([by.get('occupancy')!.delta, by.get('occupancy')!.better], [1, true]);
  assert.deepEqual([by.get('est_cycles')!.delta, by.get('est_cycles')!.better], [20, false]);
  assert.equal(by.get('s_nop')!.better, null);
});

test('the page: self-contained (no external resource), carries the model, scripts cannot be cut short', async () => {
  const model = buildReportModel(await loadFile(example));
  const html = renderReportHtml(model);
  assert.deepEqual(modelOfPage(html), JSON.parse(JSON.stringify(model)));
  assert.doesNotMatch(html, /<(script|link|img|iframe)[^>]+(src|href)="(?!data:)/i, 'no resource is fetched');
  assert.doesNotMatch(html, /(src|href)=["']?https?:/i);
  assert.match(html, /uPlot/, 'uPlot is inlined');
  const scripts = html.match(/<script\b/g)!.length;
  assert.equal(scripts, html.match(/<\/script>/g)!.length, 'every script closes once');
  assert.equal(scripts, 3);
});

test('conductor report: writes the page; --kernel, --after and bad input (exit 2, nothing written)', () => {
  const out = join(dir, 'r.html');
  let r = run('report', example, '-o', out);
  assert.equal(r.code, 0, r.err);
  const model = modelOfPage(readFileSync(out, 'utf8'));
  assert.equal(model.kernels[0]!.name, 'mfma_lds_gemm');
  assert.match(r.out, /^wrote .*r\.html \(\d+ bytes; mfma_lds_gemm\)$/m);

  const two = join(dir, 'two.s');
  writeFileSync(two, '.text\n.type first,@function\n.type second,@function\nfirst:\n  v_mov_b32 v0, 1\n  s_endpgm\nsecond:\n  v_mov_b32 v1, 2\n  v_mov_b32 v2, 3\n  s_endpgm\n');
  r = run('report', two, '--arch', 'gfx90a', '--kernel', 'second', '-o', join(dir, 'two.html'));
  assert.equal(r.code, 0, r.err);
  const m2 = modelOfPage(readFileSync(join(dir, 'two.html'), 'utf8'));
  assert.deepEqual(m2.kernels.map((k) => [k.name, k.instructions]), [['second', 3]]);
  r = run('report', two, '--arch', 'gfx90a', '--kernel', 'third', '-o', join(dir, 'none.html'));
  assert.equal(r.code, 2);
  assert.match(r.err, /no kernel named 'third'/);
  assert.ok(!existsSync(join(dir, 'none.html')));

  const sched = join(dir, 'sched.s');
  r = run('apply', example, '--objective', 'conductor', '--moves', 'move v_mov_b32_e32_0 before s_load_dword_0', '-o', sched);
  assert.equal(r.code, 0, r.err);
  r = run('report', example, '--after', sched, '-o', join(dir, 'cmp.html'));
  assert.equal(r.code, 0, r.err);
  const m3 = modelOfPage(readFileSync(join(dir, 'cmp.html'), 'utf8'));
  assert.deepEqual(m3.comparison?.moves, ['move v_mov_b32_e32_0 before s_load_dword_0']);

  const text = readFileSync(example, 'utf8');
  const notReorder = join(dir, 'other.s');
  writeFileSync(notReorder, text.replace(/v_mov_b32_e32 v35, 0/, 'v_mov_b32_e32 v35, 7'));
  const bad = join(dir, 'bad.html');
  r = run('report', example, '--after', notReorder, '-o', bad);
  assert.equal(r.code, 2);
  assert.match(r.err, /error: .*other\.s is not a legal reordering/);
  assert.ok(!existsSync(bad), 'nothing written');
  r = run('report', join(dir, 'missing.s'), '-o', bad);
  assert.equal(r.code, 2);
  assert.ok(!existsSync(bad));
});
