/**
 * Oracle: the single-wave cycle estimate (estimateCycles, src/cycles) against llvm-mca 22 on
 * every basic block of at least 10 instructions of the project's clang kernels (all five
 * targets) and of the Tensile corpus (../shared/corpus/tensile). Both sides see one block at a
 * time from an idle wave (llvm-mca: -iterations=1, one code region per block, many regions per
 * process). The two models count in different units (llvm-mca's AMDGPU model counts issue slots,
 * ours cycles), so blocks are compared by rank: the Spearman correlation per target is printed
 * with the 10 blocks whose ratio departs most from their target's median ratio.
 *
 * The test asserts that every block was compared (or that llvm-mca itself failed on it, which
 * is counted and printed) and that each correlation is a number; it sets no threshold.
 *
 * llvm-mca 22 quirks handled here (each is printed when it occurs):
 * - it aborts on buffer_load_{ubyte,sbyte,short}_d16[_hi] (MUBUF d16 loads): those are given to
 *   it as the non-d16 load of the same width (same pipe and latency in its model);
 * - it never returns on a few blocks: every process runs under a timeout, a batch that fails is
 *   retried block by block, and a block that still fails is counted as an llvm-mca failure.
 *
 * Needs LLVM 22 and the corpus: fails, never skips, when either is missing.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildKernels, type KernelBuild } from '../../scripts/build-kernels.js';
import { corpusDir, llvmTool, readManifest } from './llvm.js';
import { mcaRewrites, mcaText, pool, runMca } from './mca.js';
import { loadText } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import type { KernelContext } from '../../src/analysis/types.js';
import { estimateCycles } from '../../src/cycles/estimate.js';

const MIN_BLOCK = 10;
/** Regions per llvm-mca process, and instructions per process. */
const BATCH_REGIONS = 40;
const BATCH_INSNS = 12_000;
const BATCH_TIMEOUT_MS = 20_000;
const SINGLE_TIMEOUT_MS = 8_000;
const PARALLEL = 2;

interface Block {
  source: string;
  target: string;
  kernel: string;
  block: number;
  line: number;
  insns: number;
  ours: number;
  text: string[];
  mca?: number;
  mcaError?: string;
  /** The block holds an s_barrier (llvm-mca: 500 slots). */
  barrier: boolean;
}

// -------------------------------------------------------------------------------------------------

function collect(ctxs: KernelContext[], source: string, out: Block[]): void {
  for (const ctx of ctxs) {
    for (const b of ctx.cfg.blocks) {
      const n = b.end - b.start;
      if (n < MIN_BLOCK) continue;
      const text: string[] = [];
      for (let i = b.start; i < b.end; i++) text.push(mcaText(ctx.cfg.insns[i]!));
      out.push({
        source, target: ctx.target.name, kernel: ctx.kernel.name, block: b.id, line: b.loc.line, insns: n,
        ours: estimateCycles(ctx, { start: b.start, end: b.end }), text, barrier: text.some((l) => l.startsWith('s_barrier')),
      });
    }
  }
}

/** Total Cycles of each region, by region name. */
function parseRegions(out: string): Map<string, number> {
  const r = new Map<string, number>();
  const re = /\[\d+\] Code Region - (\S+)[\s\S]*?Total Cycles:\s+(\d+)/g;
  for (const m of out.matchAll(re)) r.set(m[1]!, Number(m[2]));
  return r;
}

let tmp = '';
let fileSeq = 0;

async function mcaBatch(ids: number[], all: Block[], timeout: number): Promise<boolean> {
  const target = all[ids[0]!]!.target;
  const lines: string[] = [];
  for (const id of ids) {
    lines.push(`# LLVM-MCA-BEGIN r${id}`, ...all[id]!.text, '# LLVM-MCA-END');
  }
  const file = join(tmp, `batch${fileSeq++}.s`);
  writeFileSync(file, lines.join('\n') + '\n');
  const r = await runMca(target, file, timeout);
  rmSync(file, { force: true });
  if (!r.ok) {
    if (ids.length === 1) all[ids[0]!]!.mcaError = r.why;
    return false;
  }
  const got = parseRegions(r.out);
  let complete = true;
  for (const id of ids) {
    const v = got.get(`r${id}`);
    if (v === undefined) { complete = false; if (ids.length === 1) all[id]!.mcaError = 'no Total Cycles in the output'; } else all[id]!.mca = v;
  }
  return complete;
}

/** Spearman rank correlation (average ranks for ties). */
export function spearman(xs: number[], ys: number[]): number {
  const rank = (v: number[]) => {
    const idx = v.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
    const r = new Array<number>(v.length);
    for (let i = 0; i < idx.length;) {
      let j = i;
      while (j + 1 < idx.length && idx[j + 1]![0] === idx[i]![0]) j++;
      for (let k = i; k <= j; k++) r[idx[k]![1]] = (i + j) / 2 + 1;
      i = j + 1;
    }
    return r;
  };
  const a = rank(xs);
  const b = rank(ys);
  const n = a.length;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let sab = 0; let saa = 0; let sbb = 0;
  for (let i = 0; i < n; i++) { const da = a[i]! - ma; const db = b[i]! - mb; sab += da * db; saa += da * da; sbb += db * db; }
  return saa === 0 || sbb === 0 ? NaN : sab / Math.sqrt(saa * sbb);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
}

// -------------------------------------------------------------------------------------------------

const blocks: Block[] = [];
let expectedBlocks = 0;
const excluded: string[] = [];
/** Files conductor itself could not load (a bug elsewhere: reported, and the count test fails). */
const loadFailures: string[] = [];
let builds: KernelBuild[] = [];
let tensileFiles: string[] = [];
let largest: { ctx: KernelContext; start: number; end: number; file: string } | undefined;

before(async () => {
  llvmTool('llvm-mca'); // throws when LLVM 22 is missing
  const dir = join(corpusDir(), 'tensile'); // throws when the corpus is missing
  builds = await buildKernels();
  tmp = mkdtempSync(join(tmpdir(), 'conductor-mca-'));
  const manifest = new Map(readManifest(readFileSync(join(dir, 'MANIFEST.tsv'), 'utf8')).map((r) => [r['file']!, r]));
  tensileFiles = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();
  const load = (path: string, arch?: string) => {
    try {
      return loadText(readFileSync(path, 'utf8'), path, { arch });
    } catch (e) {
      loadFailures.push(`${path}: ${(e as Error).message}`);
      return undefined;
    }
  };
  for (const b of builds) {
    const loaded = load(b.s, b.target);
    if (!loaded) continue;
    const ctxs = kernelContexts(loaded);
    collect(ctxs, `${b.name}.${b.target}.s`, blocks);
    expectedBlocks += countBlocks(ctxs);
  }
  let biggest = 0;
  for (const f of tensileFiles) {
    const path = join(dir, f);
    if (manifest.get(f)?.['assembles'] === 'no') { excluded.push(`${f}: llvm-mc 22 rejects it (MANIFEST.tsv), so neither side can run it`); continue; }
    const loaded = load(path);
    if (!loaded) continue;
    const ctxs = kernelContexts(loaded);
    collect(ctxs, f, blocks);
    expectedBlocks += countBlocks(ctxs);
    const n = loaded.resolved.length;
    if (n > biggest) {
      biggest = n;
      const ctx = ctxs.reduce((a, c) => (c.insns.length > a.insns.length ? c : a));
      const b = ctx.cfg.blocks.reduce((a, x) => (x.end - x.start > a.end - a.start ? x : a));
      largest = { ctx, start: b.start, end: b.end, file: f };
    }
  }
  // batches per source file (one target per file)
  const bySource = new Map<string, number[]>();
  blocks.forEach((b, i) => { const l = bySource.get(b.source) ?? []; l.push(i); bySource.set(b.source, l); });
  const batches: number[][] = [];
  for (const ids of bySource.values()) {
    let cur: number[] = [];
    let insns = 0;
    for (const id of ids) {
      if (cur.length > 0 && (cur.length >= BATCH_REGIONS || insns + blocks[id]!.insns > BATCH_INSNS)) { batches.push(cur); cur = []; insns = 0; }
      cur.push(id); insns += blocks[id]!.insns;
    }
    if (cur.length > 0) batches.push(cur);
  }
  const t0 = performance.now();
  const retry: number[] = [];
  await pool(batches, PARALLEL, async (ids) => {
    const ok = await mcaBatch(ids, blocks, BATCH_TIMEOUT_MS);
    if (!ok) for (const id of ids) if (blocks[id]!.mca === undefined) retry.push(id);
  });
  await pool(retry, PARALLEL, async (id) => { await mcaBatch([id], blocks, SINGLE_TIMEOUT_MS); });
  console.log(`  llvm-mca: ${batches.length} processes for ${blocks.length} blocks, ${retry.length} blocks retried alone; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

function countBlocks(ctxs: KernelContext[]): number {
  let n = 0;
  for (const c of ctxs) for (const b of c.cfg.blocks) if (b.end - b.start >= MIN_BLOCK) n++;
  return n;
}

test('every block of >= 10 instructions of the clang kernels and the Tensile corpus was compared', () => {
  assert.ok(builds.length >= 100, `only ${builds.length} kernel builds`);
  assert.ok(tensileFiles.length >= 8, `only ${tensileFiles.length} Tensile files`);
  const compared = blocks.filter((b) => b.mca !== undefined);
  const failed = blocks.filter((b) => b.mca === undefined);
  assert.equal(blocks.length, expectedBlocks);
  assert.equal(compared.length + failed.length, expectedBlocks);
  const fromTensile = blocks.filter((b) => tensileFiles.includes(b.source)).length;
  console.log(`  blocks >= ${MIN_BLOCK} instructions: ${expectedBlocks} (${expectedBlocks - fromTensile} from ${builds.length} clang kernel builds, ${fromTensile} from Tensile); compared ${compared.length}; llvm-mca failed on ${failed.length}`);
  for (const e of excluded) console.log(`  excluded: ${e}`);
  if (mcaRewrites.d16 > 0) console.log(`  ${mcaRewrites.d16} buffer_load_*_d16 instructions given to llvm-mca as the non-d16 load (llvm-mca 22 aborts on them)`);
  for (const b of failed) console.log(`  llvm-mca failed: ${b.source} block ${b.block} (line ${b.line}, ${b.insns} instructions): ${b.mcaError}`);
  assert.deepEqual(loadFailures, [], `conductor could not load ${loadFailures.length} file(s); their blocks are missing from the comparison`);
  assert.ok(compared.length > 0);
  // the comparison covers the corpus: llvm-mca's own failures stay a small minority
  assert.ok(failed.length <= Math.max(5, compared.length * 0.05), `llvm-mca failed on ${failed.length} of ${expectedBlocks} blocks`);
});

test('Spearman rank correlation per target, and the 10 largest disagreements', () => {
  const byTarget = new Map<string, Block[]>();
  for (const b of blocks) if (b.mca !== undefined && b.mca > 0) { const l = byTarget.get(b.target) ?? []; l.push(b); byTarget.set(b.target, l); }
  const scale = new Map<string, number>();
  const rows: string[] = [];
  for (const [t, list] of [...byTarget].sort()) {
    const rho = spearman(list.map((b) => b.ours), list.map((b) => b.mca!));
    const med = median(list.map((b) => b.ours / b.mca!));
    scale.set(t, med);
    rows.push(`  ${t}: ${list.length} blocks, Spearman ${rho.toFixed(3)}, median ratio ours/llvm-mca ${med.toFixed(2)} cycles per llvm-mca cycle`);
    assert.equal(typeof rho, 'number');
    assert.ok(Number.isFinite(rho), `${t}: correlation is not a number`);
  }
  const all = [...byTarget.values()].flat();
  const rhoAll = spearman(all.map((b) => b.ours / scale.get(b.target)!), all.map((b) => b.mca!));
  console.log(rows.join('\n'));
  console.log(`  all targets (ours scaled by each target's median ratio): ${all.length} blocks, Spearman ${rhoAll.toFixed(3)}`);
  const dev = (b: Block) => Math.abs(Math.log(b.ours / b.mca! / scale.get(b.target)!));
  const show = (b: Block) => {
    const rel = b.ours / b.mca! / scale.get(b.target)!;
    return `    ${b.source.slice(0, 60)} (${b.target}) block ${b.block} line ${b.line}, ${b.insns} insns${b.barrier ? ', s_barrier' : ''}: ` +
      `ours ${b.ours} cycles, llvm-mca ${b.mca} (x${rel.toFixed(2)} of the median ratio)`;
  };
  console.log('  the 10 largest disagreements (ours / llvm-mca relative to the target median):');
  for (const b of [...all].sort((a, b) => dev(b) - dev(a)).slice(0, 10)) console.log(show(b));
  // llvm-mca gives s_barrier 500 slots (a placeholder): the largest disagreements beside those
  console.log('  the 3 largest per target among blocks without s_barrier:');
  for (const [, list] of [...byTarget].sort()) {
    for (const b of list.filter((x) => !x.barrier).sort((a, b) => dev(b) - dev(a)).slice(0, 3)) console.log(show(b));
  }
  assert.ok(byTarget.size >= 5, `targets compared: ${[...byTarget.keys()].join(', ')}`);
});

test('speed of estimateCycles on the largest block of the largest Tensile kernel', () => {
  assert.ok(largest, 'no Tensile kernel');
  const { ctx, start, end, file } = largest!;
  const order = Int32Array.from({ length: end - start }, (_, k) => start + k);
  const first = estimateCycles(ctx, { order });
  for (let k = 0; k < 20; k++) estimateCycles(ctx, { order }); // warm-up (optimising compiler)
  const runs = 200;
  let t0 = performance.now();
  for (let k = 0; k < runs; k++) estimateCycles(ctx, { order });
  const us = ((performance.now() - t0) * 1000) / runs;
  // a permutation (reversed within the block): same cost per call
  const rev = order.slice().reverse();
  t0 = performance.now();
  for (let k = 0; k < runs; k++) estimateCycles(ctx, { order: rev });
  const usRev = ((performance.now() - t0) * 1000) / runs;
  console.log(`  ${basename(file).slice(0, 60)}…: ${ctx.insns.length} instructions, largest block ${end - start} instructions, ${first} cycles; ` +
    `estimateCycles ${us.toFixed(0)} µs per call (${((us * 1000) / (end - start)).toFixed(1)} ns per instruction), reversed order ${usRev.toFixed(0)} µs`);
  assert.ok(Number.isFinite(us));
});
