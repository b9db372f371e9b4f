/**
 * The HTML report in a real browser: Debian's chromium (/usr/bin/chromium, installed by .ci/run)
 * driven by playwright-core. A missing browser fails the suite; nothing is skipped.
 *
 *  - a Tensile kernel with findings: no console error, the diagnostics list, the timeline and the
 *    pressure chart hold as many items as the model says, clicking a diagnostic brings its line
 *    into view; screenshot artifacts/report.png;
 *  - the example kernel against a schedule of it (--after): both kernels, the moves grouped by
 *    region, the deltas; screenshot artifacts/report-after.png; a schedule with many moves: the
 *    groups start closed and one opened lists its moves;
 *  - in every panel the pressure chart's line labels lie inside the chart and overlap no other
 *    (bounding boxes), and the declared limits are labelled;
 *  - the largest Tensile kernel: generation time, page size, and the page opens in under 3 s.
 * Corpus files that llvm-mc rejects (one is rejected on purpose) are left out, as in tensile.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadFile, loadText, type Loaded } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import { kernelTime } from '../../src/cycles/kernel-time.js';
import { pickKernel, replayMoves, emitSchedule } from '../../src/schedule/index.js';
import { reportFile, buildReportModel, type KernelView, type ReportModel } from '../../src/report/index.js';
import { TIMELINE_PAGE } from '../../src/report/client.js';
import { acceptedTensileKernels, repoRoot } from './llvm.js';
import { randomSchedule } from '../unit/schedule/helpers.js';
import { mulberry32 } from '../../src/schedule/search/rng.js';

const CHROMIUM = '/usr/bin/chromium';
const OPEN_BUDGET_MS = 3000;
const root = repoRoot();
const artifacts = join(root, 'artifacts');
const work = mkdtempSync(join(tmpdir(), 'conductor-report-browser-'));
const bin = join(root, 'dist', 'src', 'cli', 'bin.js');
let browser: Browser;

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the report's browser tests need Debian's chromium (apt-get install -y chromium; .ci/run installs it)`);
  }
  mkdirSync(artifacts, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM });
});

after(async () => {
  await browser?.close();
});

/** Corpus files llvm-mc accepts (acceptedTensileKernels), smallest first. */
async function acceptedTensile(): Promise<string[]> {
  return (await acceptedTensileKernels()).map((k) => k.path).sort((a, b) => statSync(a).size - statSync(b).size);
}

interface Opened { page: Page; ms: number; errors: string[]; marks: string }

/** Open a report and wait until it is drawn; the time from navigation to drawn, and every console error. */
async function open(file: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push(`network request: ${r.url()}`); });
  const t0 = performance.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  const ms = performance.now() - t0;
  // the page's own marks, from navigation start: model decoded, listing, timeline, all drawn
  const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((m) => `${m.name.replace('report:', '')} ${m.startTime.toFixed(0)}`).join(', '));
  return { page, ms, errors, marks };
}

/** A number as the page prints it (client.ts fmt). */
const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

function reachedIn(k: KernelView, r: { start: number; end: number }): number {
  let n = 0;
  for (let i = r.start; i < r.end; i++) if (k.code.issue[i]! >= 0) n++;
  return n;
}

function reachedInBlock(k: KernelView, block: number): number {
  return reachedIn(k, k.blocks[block]!);
}

/** The timeline of a panel shows rows [start, end): one bar per reached row, in order, a page at a time. */
async function checkTimeline(page: Page, k: KernelView, side: string, shown: string, r: { start: number; end: number }): Promise<void> {
  const sec = page.locator(`section.kernel[data-side="${side}"]`);
  assert.equal(await sec.locator('select.tl-block').inputValue(), shown);
  const items = await sec.locator('svg.timeline g.tl-item').count();
  assert.equal(items, Math.min(TIMELINE_PAGE, reachedIn(k, r)));
  assert.ok(items > 0);
  assert.equal(await sec.locator('svg.timeline').getAttribute('data-items'), String(items));
  const ids = await sec.locator('svg.timeline g.tl-item').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-i'))));
  assert.ok(ids.every((i, n) => i >= r.start && i < r.end && (n === 0 || i > ids[n - 1]!)));
}

/** What every kernel panel must show, counted in the DOM against the model. */
async function checkPanel(page: Page, k: KernelView, side: string): Promise<void> {
  const sec = page.locator(`section.kernel[data-side="${side}"]`);
  assert.equal(await sec.count(), 1);
  // diagnostics: one item per finding, in the model's order
  const lines = await sec.locator('ol.diagnostics > li.diag').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-line'))));
  assert.deepEqual(lines, k.diagnostics.map((d) => d.line));
  // timeline: the busiest block first, one item per reached instruction of it, a page at a time;
  // every block with code and every scheduling region (as tag numbers them) can be chosen
  await checkTimeline(page, k, side, `b${k.timelineBlock}`, k.blocks[k.timelineBlock]!);
  assert.deepEqual(await sec.locator('select.tl-block optgroup').evaluateAll((els) => els.map((e) => [e.getAttribute('label'), e.children.length])),
    [['basic blocks', k.blocks.filter((b) => b.end > b.start).length], ...(k.regions.length ? [['scheduling regions', k.regions.length]] : [])]);
  assert.ok(k.regions.length > 0, 'the kernel has scheduling regions');
  // pressure: one point per instruction, one series per register file of the target
  const files = (['vgpr', 'agpr', 'sgpr'] as const).filter((f) => k.resources.fileMax[f] > 0);
  const chart = sec.locator('div.pressure');
  assert.equal(await chart.getAttribute('data-points'), String(k.instructions));
  assert.equal(await chart.locator('canvas').count(), 1);
  const legend = await chart.locator('.u-legend .u-series').evaluateAll((els) => els.map((e) => e.querySelector('.u-label')?.textContent?.trim()));
  assert.deepEqual(legend, ['instruction', ...files.map((f) => f.toUpperCase())]);
  const declared = await sec.locator('ul.pressure-lines li.declared').count();
  assert.equal(declared, files.filter((f) => (k.resources.declared?.[f] ?? 0) > 0).length);
  assert.ok(await sec.locator('ul.pressure-lines li.breakpoint').count() >= 1);
  await checkChartLabels(page, k, side);
  // the listing is virtualized: far fewer rows in the DOM than instructions in big kernels
  const rows = await sec.locator('.code .row').count();
  assert.ok(rows > 0 && rows <= Math.min(k.instructions + k.blocks.length, 200), `${rows} rows in the DOM`);
}

/** The chart's line labels: inside the plot, no two overlapping, every declared limit labelled. */
async function checkChartLabels(page: Page, k: KernelView, side: string): Promise<void> {
  const over = page.locator(`section.kernel[data-side="${side}"] div.pressure .u-over`);
  const { plot, boxes } = await over.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return {
      plot: { left: r.left, top: r.top, right: r.right, bottom: r.bottom },
      boxes: [...e.querySelectorAll('.ref-label')].map((l) => {
        const b = l.getBoundingClientRect();
        return { text: l.textContent ?? '', left: b.left, top: b.top, right: b.right, bottom: b.bottom, visible: b.width > 0 && b.height > 0 };
      }),
    };
  });
  assert.ok(boxes.length > 0, 'labels drawn');
  for (const b of boxes) {
    assert.ok(b.visible, `${b.text} is visible`);
    assert.ok(b.left >= plot.left - 0.5 && b.right <= plot.right + 0.5 && b.top >= plot.top - 0.5 && b.bottom <= plot.bottom + 0.5, `${b.text} lies inside the chart`);
  }
  for (let x = 0; x < boxes.length; x++) {
    for (let y = x + 1; y < boxes.length; y++) {
      const a = boxes[x]!;
      const b = boxes[y]!;
      const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
      assert.ok(!overlap, `labels '${a.text}' and '${b.text}' overlap`);
    }
  }
  for (const f of ['vgpr', 'agpr', 'sgpr'] as const) {
    const d = k.resources.declared?.[f] ?? 0;
    if (d > 0 && k.resources.fileMax[f] > 0) assert.ok(boxes.some((b) => b.text === `${f.toUpperCase()} declared ${d}`), `${f} declared ${d} is labelled`);
  }
}

/** Click the diagnostic furthest down the code: its row must be marked and in view. */
async function clickDiagnostic(page: Page, k: KernelView, side: string): Promise<number> {
  const sec = page.locator(`section.kernel[data-side="${side}"]`);
  const n = k.diagnostics.reduce((best, d, i) => (d.insn >= 0 && (best < 0 || d.line > k.diagnostics[best]!.line) ? i : best), -1);
  assert.ok(n >= 0, 'a diagnostic on an instruction');
  const d = k.diagnostics[n]!;
  const row = sec.locator(`.code .row[data-i="${d.insn}"]`);
  if (d.insn > 150) assert.equal(await row.count(), 0, 'the row is not drawn before the click');
  await sec.locator(`li.diag[data-n="${n}"]`).click();
  await row.waitFor();
  assert.equal(await row.getAttribute('data-line'), String(d.line));
  assert.match((await row.getAttribute('class'))!, /\btarget\b/);
  const inView = await row.evaluate((e) => {
    const r = e.getBoundingClientRect();
    const s = e.closest('.code')!.getBoundingClientRect();
    return r.top >= s.top && r.bottom <= s.bottom && r.top >= 0 && r.bottom <= window.innerHeight;
  });
  assert.ok(inView, `line ${d.line} is in view after the click`);
  return d.line;
}

test('report of a Tensile kernel in chromium: items counted, a click on a diagnostic shows its line', async () => {
  let chosen: { file: string; model: ReportModel; html: string } | undefined;
  for (const f of await acceptedTensile()) {
    if ((await loadFile(f)).program.instructions.length === 0) continue; // code as raw .long words
    const { model, html } = await reportFile(f);
    const k = model.kernels[0];
    if (k && k.instructions > 300 && k.diagnostics.filter((d) => d.insn > 150).length >= 1) { chosen = { file: f, model, html }; break; }
  }
  assert.ok(chosen, 'a Tensile kernel with findings');
  const out = join(work, 'tensile.html');
  writeFileSync(out, chosen.html);
  const k = chosen.model.kernels[0]!;
  const { page, ms, errors } = await open(out);
  console.log(`  ${chosen.file.split('/').pop()}: ${k.instructions} instructions, ${k.diagnostics.length} diagnostics, ${chosen.html.length} bytes, opened in ${ms.toFixed(0)} ms`);
  assert.equal(await page.locator('section.kernel').count(), chosen.model.kernels.length);
  await checkPanel(page, k, 'only');
  // the regions are tag's; the largest one chosen in the list draws its rows
  const sk = pickKernel(await loadFile(chosen.file), k.name);
  assert.deepEqual(k.regions.map((r) => [r.id, r.block, r.lines, r.instructions]), sk.regions.map((r) => [r.id, r.block, r.lines, r.nodes.length]));
  const big = k.regions.reduce((a, b) => (reachedIn(k, b) > reachedIn(k, a) ? b : a));
  await page.locator('select.tl-block').selectOption(`r${big.id}`);
  await checkTimeline(page, k, 'only', `r${big.id}`, big);
  await page.locator('select.tl-block').selectOption(`b${k.timelineBlock}`);
  const line = await clickDiagnostic(page, k, 'only');
  // a timeline bar leads to its row as well
  const bar = page.locator('svg.timeline g.tl-item').nth(3);
  const i = Number(await bar.getAttribute('data-i'));
  await bar.locator('rect.tl-issue').click({ force: true });
  await page.locator(`.code .row.target[data-i="${i}"]`).waitFor();
  assert.notEqual(String(k.code.line[i]), String(line));
  // paging the timeline when the block has more than a page
  if (reachedInBlock(k, k.timelineBlock) > TIMELINE_PAGE) {
    await page.locator('button.tl-next').click();
    assert.equal(await page.locator('svg.timeline g.tl-item').count(), Math.min(TIMELINE_PAGE, reachedInBlock(k, k.timelineBlock) - TIMELINE_PAGE));
  }
  await page.screenshot({ path: join(artifacts, 'report.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

/**
 * The loop table of a comparison: one row per loop, the cells as the model has them, and the
 * model's figures those of the cycle model (kernelTime of both kernels, the bound of the scheduled one).
 */
async function checkLoops(page: Page, model: ReportModel, original: Loaded, scheduled: Loaded): Promise<void> {
  const c = model.comparison!;
  const name = c.kernel;
  const ctxA = kernelContexts(original).find((x) => x.kernel.name === name)!;
  const ctxB = kernelContexts(scheduled).find((x) => x.kernel.name === name)!;
  const a = kernelTime(ctxA);
  const b = kernelTime(ctxB, { bounds: true });
  assert.ok(c.loops.length > 0, 'the kernel has a loop');
  assert.equal(c.waves, a.waves);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  assert.deepEqual(c.loops.map((l) => [l.line, l.trip, l.before, l.after, l.beforeOne, l.afterOne, l.bound, l.limiter]),
    b.loops.map((l, x) => [a.loops[x]!.loop.line, l.loop.trip, r2(a.loops[x]!.perIteration), r2(l.perIteration), r2(a.loops[x]!.perIterationOne), r2(l.perIterationOne), r2(l.bound!.bound), l.bound!.limiter]));
  const cells = await page.locator('table.loops tbody tr').evaluateAll((els) => els.map((e) => [...e.children].map((x) => x.textContent ?? '')));
  assert.deepEqual(cells.map((r) => [r[0], r[3], r[4], r[6], r[7], r[9], r[11]]),
    c.loops.map((l) => [`line ${l.line}`, fmt(l.before), fmt(l.after), fmt(l.beforeOne), fmt(l.afterOne), fmt(l.bound), l.limiter]));
  assert.match(await page.locator('table.loops thead').textContent() ?? '', new RegExp(`${c.waves} waves? per SIMD`));
  // a loop's line leads to its header in the code (before)
  await page.locator('table.loops a.goto-loop').first().click();
  const row = page.locator(`section.kernel[data-side="before"] .code .row.target`);
  await row.waitFor();
  assert.equal(await row.getAttribute('data-line'), String(c.loops[0]!.line));
}

/** A region's "timeline" link shows that region in both timelines; the region's cycles are the model's. */
async function checkRegionLink(page: Page, model: ReportModel): Promise<void> {
  const c = model.comparison!;
  const g = c.regions.find((x) => x.region >= 0)!;
  const before = model.kernels[0]!.regions[g.region]!;
  const after = model.after!.regions[g.region]!;
  assert.deepEqual(g.cycles, [before.cycles, after.cycles]);
  assert.equal(after.instructions, before.instructions);
  await page.locator(`details.region-moves[data-region="${g.region}"] a.show-region`).click();
  await checkTimeline(page, model.kernels[0]!, 'before', `r${g.region}`, before);
  await checkTimeline(page, model.after!, 'after', `r${g.region}`, after);
}

test('report --after in chromium: both kernels side by side, the moves and the metric deltas', async () => {
  const example = join(root, 'examples', 'mfma_lds_gemm.gfx942.s');
  const loaded = await loadFile(example);
  const k = pickKernel(loaded);
  const moves = ['move v_mov_b32_e32_0 before s_load_dword_0', 'move v_mov_b32_e32_33 before v_mov_b32_e32_1', 'move v_add_u32_e32_0 before v_lshlrev_b64_0'];
  const st = replayMoves(k, moves);
  assert.ok('state' in st);
  const sched = join(work, 'sched.s');
  writeFileSync(sched, emitSchedule(st.state).text);
  const out = join(work, 'after.html');
  const r = spawnSync(process.execPath, [bin, 'report', example, '--after', sched, '-o', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const model = buildReportModel(loaded, { after: loadText(readFileSync(sched, 'utf8'), sched) });
  const { page, errors } = await open(out);
  // few moves: every region's group is open, in the model's order
  assert.deepEqual(await page.locator('details.region-moves').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-region')), (e as HTMLDetailsElement).open])),
    model.comparison!.regions.map((g) => [g.region, true]));
  assert.deepEqual(await page.locator('ol.moves > li').allTextContents(), model.comparison!.regions.flatMap((g) => g.moves));
  assert.deepEqual([...await page.locator('ol.moves > li').allTextContents()].sort(), [...moves].sort());
  const deltas = await page.locator('table.deltas tbody tr').evaluateAll((els) => els.map((e) => [e.querySelector('th')!.textContent, e.className]));
  assert.deepEqual(deltas, model.comparison!.deltas.map((d) => [d.label, d.better === null ? 'same' : d.better ? 'better' : 'worse']));
  assert.ok(deltas.some(([label]) => label === 'occupancy (peak live)'));
  await checkPanel(page, model.kernels[0]!, 'before');
  await checkPanel(page, model.after!, 'after');
  await checkLoops(page, model, loaded, loadText(readFileSync(sched, 'utf8'), sched));
  await checkRegionLink(page, model);
  // the moved instructions are marked on both sides (all three are near the top, in view)
  assert.equal(await page.locator('section.kernel[data-side="before"] .row.moved').count(), 3);
  assert.equal(await page.locator('section.kernel[data-side="after"] .row.moved').count(), 3);
  assert.equal(await page.locator('section.kernel[data-side="after"] .row[data-i="0"] .tx').textContent(), 'v_mov_b32_e32 v35, 0');
  await page.screenshot({ path: join(artifacts, 'report-after.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('report --after with many moves: one closed group per region, a group lists its moves when opened', async () => {
  const example = join(root, 'examples', 'mfma_lds_gemm.gfx942.s');
  const sched = join(work, 'many.s');
  // a random legal reordering with many moves (a schedule run keeps only the moves that gain time)
  const k = pickKernel(await loadFile(example));
  writeFileSync(sched, emitSchedule(randomSchedule(k, mulberry32(5), 300)).text);
  const out = join(work, 'many.html');
  const r = spawnSync(process.execPath, [bin, 'report', example, '--after', sched, '-o', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const model = buildReportModel(await loadFile(example), { after: loadText(readFileSync(sched, 'utf8'), sched) });
  const c = model.comparison!;
  assert.ok(c.moves.length > 40 && c.regions.length > 1, `${c.moves.length} moves in ${c.regions.length} regions`);
  const { page, errors } = await open(out);
  assert.match(await page.locator('section.comparison p').first().textContent() ?? '', new RegExp(`${c.moves.length} moves in ${c.regions.length} regions`));
  const groups = page.locator('details.region-moves');
  assert.equal(await groups.count(), c.regions.length);
  assert.equal(await page.locator('details.region-moves[open]').count(), 0);
  assert.equal(await page.locator('ol.moves > li').count(), 0, 'no move drawn while every group is closed');
  const g = c.regions.reduce((a, b) => (b.moves.length > a.moves.length ? b : a));
  const d = page.locator(`details.region-moves[data-region="${g.region}"]`);
  assert.match(await d.locator('summary').textContent() ?? '', new RegExp(`^region ${g.region}: lines ${g.lines[0]}-${g.lines[1]} \\(block ${g.block}.*: ${g.moves.length} moves \\(${fmt(g.cycles[0])} → ${fmt(g.cycles[1])} cycles in the walk, .*\\) timeline$`));
  await d.locator('summary').click();
  // the list is drawn on the group's toggle event, which the browser dispatches after the click
  await d.locator('ol.moves > li').first().waitFor();
  assert.deepEqual(await d.locator('ol.moves > li').allTextContents(), g.moves);
  await page.locator('button.moves-open-all').click();
  await page.waitForFunction((n) => document.querySelectorAll('ol.moves > li').length === n, c.moves.length);
  assert.equal(await page.locator('ol.moves > li').count(), c.moves.length);
  assert.deepEqual(errors, []);
  await page.close();
});

test('report of the largest Tensile kernel opens in under 3 s', async () => {
  const files = await acceptedTensile();
  const largest = files[files.length - 1]!;
  const out = join(work, 'largest.html');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, 'report', largest, '-o', out], { encoding: 'utf8' });
  const genMs = performance.now() - t0;
  assert.equal(r.status, 0, r.stderr);
  const size = statSync(out).size;
  const { model } = await reportFile(largest);
  const k = model.kernels[0]!;
  const { page, ms, errors, marks } = await open(out);
  console.log(`  largest: ${largest.split('/').pop()} (${statSync(largest).size} bytes, ${k.instructions} instructions): ` +
    `report ${size} bytes (${(size / 1024).toFixed(0)} KiB), generated in ${(genMs / 1000).toFixed(2)} s, opened in ${ms.toFixed(0)} ms (budget ${OPEN_BUDGET_MS} ms; page marks in ms: ${marks})`);
  assert.ok(k.instructions > 40_000);
  assert.ok(ms < OPEN_BUDGET_MS, `opened in ${ms.toFixed(0)} ms`);
  await checkPanel(page, k, 'only');
  await clickDiagnostic(page, k, 'only');
  assert.deepEqual(errors, []);
  await page.close();
});
