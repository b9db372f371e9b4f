/**
 * Oracle test: the waitcnt analysis against LLVM 22's own output for the project's kernels
 * (kernels/*.cl compiled by clang-22 for gfx906, gfx908, gfx90a, gfx942, gfx950).
 *
 * (a) LLVM's assembly has no 'waitcnt-missing' / 'waitcnt-fence' error (exceptions, with both
 *     sources and the reason, in waitcnt-exceptions.json).
 * (b) With every s_waitcnt deleted, each LLVM wait that guarded a real dependency (a wait the
 *     analysis charges a later read to, or the full wait before s_barrier on targets without
 *     back-off barrier, or the waits around a return / function entry) has one of our errors at
 *     an instruction it covers (from the instruction it precedes up to LLVM's next wait in the
 *     block). Prints the recall.
 * (c) With the dependency waits deleted (fences kept), minimalWaits on the stripped kernel
 *     gives waits that, written back as `s_waitcnt` lines, leave no waitcnt error, assemble
 *     with llvm-mc, and are no more conservative than LLVM's at >= 95% of the places.
 *     Definition: at every place where we insert a wait, for every counter we wait on, our
 *     value is >= LLVM's value there, where LLVM's value at an instruction is the number of
 *     operations its own program may still have outstanding on that counter when the
 *     instruction issues (so its s_waitcnt right before the instruction if it has one, else what
 *     its earlier waits and the operations issued since allow). A place where LLVM waits and we
 *     do not is never counted against us. Prints the figure per target.
 *
 * Needs LLVM 22 (/usr/lib/llvm-22/bin or $LLVM_BIN): fails, never skips, when it is missing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildKernels, KERNEL_TARGETS, type KernelBuild } from '../../scripts/build-kernels.js';
import { loadText, type Loaded } from '../../src/load.js';
import { kernelContexts } from '../../src/analysis/context.js';
import type { Finding, KernelContext } from '../../src/analysis/types.js';
import type { Instruction } from '../../src/asm/ast.js';
import {
  analyzeWaitcnt, checkWaitcnt, dependencyWaits, minimalWaits, rederiveWaits, NO_WAIT, type WaitInsertion,
} from '../../src/waitcnt/index.js';
import { runLlvmMc } from './llvm.js';
import { deleteInstructionLines, editedToOriginal, insertWaitLines, ordinals } from './waitcnt-text.js';

interface Exceptions {
  loadFailures: { kernel: string; target: string; reason: string }[];
  missing: { kernel: string; target: string; line: number; rule: string; reason: string }[];
}
const exceptions = JSON.parse(readFileSync(new URL('../../../test/oracle/waitcnt-exceptions.json', import.meta.url), 'utf8')) as Exceptions;

const MIN_NOT_MORE_CONSERVATIVE = 0.95;
const errorRules = new Set(['waitcnt-missing', 'waitcnt-fence']);
const isError = (f: Finding) => errorRules.has(f.rule);

let builds: KernelBuild[] = [];
let tmp = '';
before(async () => {
  builds = await buildKernels();
  tmp = mkdtempSync(join(tmpdir(), 'conductor-waitcnt-'));
});
after(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

function tryLoad(text: string, file: string): Loaded | Error {
  try { return loadText(text, file); } catch (e) { return e as Error; }
}

function loadExpected(b: KernelBuild): { l: Loaded; text: string } | undefined {
  const text = readFileSync(b.s, 'utf8');
  const l = tryLoad(text, b.s);
  const allowed = exceptions.loadFailures.find((x) => x.kernel === b.name && x.target === b.target);
  if (l instanceof Error) {
    assert.ok(allowed, `${b.s} does not load: ${l.message}`);
    return undefined;
  }
  if (allowed) console.log(`  stale exception: ${b.name}.${b.target} loads now (${allowed.reason})`);
  return { l, text };
}

/**
 * The instructions an LLVM wait at `i` covers: from the next instruction up to (not including)
 * the next s_waitcnt or the end of its block. Our error may sit later than LLVM's wait: LLVM
 * waits before a register COPY's first move when a later move of the same COPY needs it (its
 * tuple copies carry the whole tuple as implicit operands; defuse-exceptions.json).
 */
function coveredRange(ctx: KernelContext, i: number): [number, number] {
  const b = ctx.cfg.blocks[ctx.cfg.blockOf[i]!]!;
  let j = i + 1;
  while (j < b.end && ctx.insns[j]!.info.cls === 'waitcnt') j++;
  let k = j;
  while (k < b.end && ctx.insns[k]!.info.cls !== 'waitcnt') k++;
  return [j, k];
}

const fmt = (x: number) => `${(100 * x).toFixed(1)}%`;

for (const target of KERNEL_TARGETS) {
  describe(`waitcnt vs LLVM 22 on ${target}`, () => {
    const mine = () => builds.filter((b) => b.target === target);

    it('(a) LLVM output has no waitcnt-missing / waitcnt-fence error', () => {
      assert.ok(mine().length >= 35, `kernels for ${target}: ${mine().length}`);
      const unexpected: string[] = [];
      let kernels = 0; let insns = 0; let redundant = 0; let strong = 0; let waits = 0;
      const seen = new Set<string>();
      for (const b of mine()) {
        const e = loadExpected(b);
        if (!e) continue;
        for (const ctx of kernelContexts(e.l)) {
          kernels++;
          insns += ctx.insns.length;
          for (const f of checkWaitcnt(ctx)) {
            if (f.rule === 'waitcnt-redundant') redundant++;
            if (f.rule === 'waitcnt-too-strong') strong++;
            if (!isError(f)) continue;
            const ex = exceptions.missing.find((x) => x.kernel === b.name && x.target === target && x.line === f.loc.line && x.rule === f.rule);
            if (ex) { seen.add(`${b.name}.${target}:${f.loc.line}`); continue; }
            unexpected.push(`${b.s}:${f.loc.line}: ${f.rule}: ${f.message}`);
          }
          waits += ctx.insns.filter((r) => r.info.cls === 'waitcnt').length;
        }
      }
      for (const x of exceptions.missing.filter((x) => x.target === target)) {
        if (!seen.has(`${x.kernel}.${target}:${x.line}`)) console.log(`  stale exception: ${x.kernel}.${target}:${x.line} (${x.reason})`);
      }
      console.log(`  ${target}: ${kernels} kernels, ${insns} instructions, ${waits} s_waitcnt in LLVM's output: `
        + `${unexpected.length} unexpected errors, ${redundant} redundant, ${strong} too strong`);
      assert.deepEqual(unexpected, [], 'waitcnt errors in LLVM output');
    });

    it('(b) every LLVM dependency wait matches one of our errors once all waits are deleted', () => {
      let total = 0; let matched = 0; let someOnly = 0;
      const misses: string[] = [];
      for (const b of mine()) {
        const e = loadExpected(b);
        if (!e) continue;
        const ords = ordinals(e.l.program);
        const waits = e.l.program.instructions.filter((i) => i.base === 's_waitcnt');
        const stripped = loadText(deleteInstructionLines(e.l.program, waits), b.s);
        const back = editedToOriginal(e.l.program, new Set(waits));
        const ordS = ordinals(stripped.program);
        // ordinals (in the original) of the instructions our check reports an error before
        const flagged = new Set<number>();
        const flaggedEvery = new Set<number>();
        for (const ctx of kernelContexts(stripped)) {
          for (const f of checkWaitcnt(ctx)) {
            if (!isError(f)) continue;
            flagged.add(back[ordS.get(ctx.insns[f.insn]!.insn)!]!);
            if (f.severity === 'error') flaggedEvery.add(back[ordS.get(ctx.insns[f.insn]!.insn)!]!);
          }
        }
        for (const ctx of kernelContexts(e.l)) {
          const backOff = ctx.target.has('back-off-barrier');
          for (const j of analyzeWaitcnt(ctx, { judge: true }).judgements) {
            const guards = j.verdict !== 'fence'
              ? [0, 1, 2].some((c) => j.effect[c] && j.weakest[c] !== NO_WAIT)
              : j.effect.some((x) => x) && (j.fence === 'return' || j.fence === 'entry' || (j.fence === 'barrier' && !backOff));
            if (!guards) continue;
            total++;
            const [from, to] = coveredRange(ctx, j.insn);
            let hit = false;
            let every = false;
            for (let g = from; g < to && !hit; g++) hit = flagged.has(ords.get(ctx.insns[g]!.insn)!);
            for (let g = from; g < to && !every; g++) every = flaggedEvery.has(ords.get(ctx.insns[g]!.insn)!);
            if (hit && !every) someOnly++;
            if (hit) matched++;
            else misses.push(`${b.s}:${ctx.insns[j.insn]!.insn.loc.line}: ${ctx.insns[j.insn]!.insn.text}`);
          }
        }
      }
      console.log(`  ${target}: recall ${matched}/${total} = ${fmt(total ? matched / total : 1)} of LLVM's dependency waits `
        + `(${someOnly} of them by a warning: short on some paths only)`);
      for (const m of misses.slice(0, 20)) console.log(`    unmatched: ${m}`);
      assert.ok(total > 0);
      assert.deepEqual(misses, [], 'LLVM waits without a matching error');
    });

    it('(c) minimal waits on the stripped kernels: no error, assembles, no more conservative than LLVM at >= 95%', async () => {
      let places = 0; let fine = 0; let ours = 0; let llvmDeps = 0; let files = 0;
      let samePos = 0; let samePosOk = 0; let identical = 0;
      const problems: string[] = [];
      const worse: string[] = [];
      const differ: string[] = [];
      for (const b of mine()) {
        const e = loadExpected(b);
        if (!e) continue;
        files++;
        const ctxs = kernelContexts(e.l);
        const dep = new Set<Instruction>();
        const pend = new Map<Instruction, number[]>();
        const rederived = new Map<Instruction, WaitInsertion>();
        for (const ctx of ctxs) {
          for (const i of dependencyWaits(ctx)) dep.add(ctx.insns[i]!.insn);
          const r = analyzeWaitcnt(ctx, { pendAt: true });
          ctx.insns.forEach((x, i) => pend.set(x.insn, [r.pendAt![3 * i]!, r.pendAt![3 * i + 1]!, r.pendAt![3 * i + 2]!]));
          for (const w of rederiveWaits(ctx)) rederived.set(ctx.insns[w.before]!.insn, w);
        }
        llvmDeps += dep.size;
        // LLVM's dependency waits by the instruction they precede (consecutive waits: min per counter)
        const llvmWaitBefore = new Map<Instruction, number[]>();
        for (const ctx of ctxs) {
          const fxw = ctx.insns;
          for (let i = 0; i < fxw.length; i++) {
            if (!dep.has(fxw[i]!.insn)) continue;
            let j = i + 1;
            while (j < fxw.length && (fxw[j]!.info.cls === 'waitcnt' || fxw[j]!.info.cls === 'nop')) j++;
            if (j >= fxw.length) continue;
            const op = fxw[i]!.insn.operands.find((o) => o.kind === 'waitcnt');
            const vals = op && op.kind === 'waitcnt' ? [op.vmcnt, op.lgkmcnt, op.expcnt] : [0, 0, 0];
            const cur = llvmWaitBefore.get(fxw[j]!.insn) ?? [NO_WAIT, NO_WAIT, NO_WAIT];
            llvmWaitBefore.set(fxw[j]!.insn, cur.map((x, c) => Math.min(x, vals[c] ?? NO_WAIT)));
          }
        }
        const strippedText = deleteInstructionLines(e.l.program, dep);
        const stripped = loadText(strippedText, b.s);
        const back = editedToOriginal(e.l.program, dep);
        const ordS = ordinals(stripped.program);
        const sctx = kernelContexts(stripped);
        const inserts: { ctx: KernelContext; waits: WaitInsertion[] }[] = [];
        for (const ctx of sctx) {
          const waits = minimalWaits(ctx);
          inserts.push({ ctx, waits });
          for (const w of waits) {
            ours++;
            const orig = e.l.program.instructions[back[ordS.get(ctx.insns[w.before]!.insn)!]!]!;
            // the same answer as rederiveWaits on the unstripped kernel
            const rw = rederived.get(orig);
            if (!rw || rw.vmcnt !== w.vmcnt || rw.lgkmcnt !== w.lgkmcnt || rw.expcnt !== w.expcnt) {
              problems.push(`${b.s}:${orig.loc.line}: minimalWaits on the stripped kernel ${JSON.stringify(w)} differs from rederiveWaits ${JSON.stringify(rw)}`);
            }
            const p = pend.get(orig)!;
            places++;
            // LLVM's own dependency wait right before the same instruction, if any
            const lw = llvmWaitBefore.get(orig);
            if (lw) {
              samePos++;
              const ours = [w.vmcnt ?? NO_WAIT, w.lgkmcnt ?? NO_WAIT, w.expcnt ?? NO_WAIT];
              if (ours.every((v, c) => v >= lw[c]!)) samePosOk++;
              if (ours.every((v, c) => v === lw[c])) identical++;
              else differ.push(`${b.s}:${orig.loc.line}: ours ${JSON.stringify(w)} vs LLVM [${lw.map((v) => (v === NO_WAIT ? '-' : v)).join(', ')}] before ${orig.text}`);
            } else differ.push(`${b.s}:${orig.loc.line}: ours ${JSON.stringify(w)}, LLVM has no wait right before ${orig.text}`);
            const vals = [w.vmcnt, w.lgkmcnt, w.expcnt];
            if (vals.every((v, c) => v === undefined || v >= p[c]!)) fine++;
            else worse.push(`${b.s}:${orig.loc.line}: ours ${JSON.stringify(w)} vs LLVM outstanding [vm ${p[0]}, lgkm ${p[1]}, exp ${p[2]}] before ${orig.text}`);
          }
        }
        if ([...rederived.keys()].length !== inserts.reduce((n, x) => n + x.waits.length, 0)) {
          problems.push(`${b.s}: rederiveWaits gives ${rederived.size} waits, minimalWaits on the stripped text ${inserts.reduce((n, x) => n + x.waits.length, 0)}`);
        }
        const fixedText = insertWaitLines(stripped.program, inserts);
        const fixed = tryLoad(fixedText, b.s);
        if (fixed instanceof Error) { problems.push(`${b.s}: the fixed text does not load: ${fixed.message}`); continue; }
        for (const ctx of kernelContexts(fixed)) {
          for (const f of checkWaitcnt(ctx)) if (isError(f)) problems.push(`${b.s} (fixed):${f.loc.line}: ${f.rule}: ${f.message}`);
        }
        const out = join(tmp, `${b.name}.${b.target}.fixed.s`);
        writeFileSync(out, fixedText);
        const mc = await runLlvmMc(out, b.target);
        if (!mc.ok) problems.push(`${out}: llvm-mc rejects it: ${mc.stderr.split('\n').slice(0, 3).join(' | ')}`);
      }
      const ratio = places ? fine / places : 1;
      console.log(`  ${target}: ${files} files; LLVM ${llvmDeps} dependency waits, ours ${ours}; `
        + `no more conservative than LLVM at ${fine}/${places} = ${fmt(ratio)} of our waits; `
        + `where LLVM waits before the same instruction (${samePos}): every counter >= LLVM's at ${samePosOk}, identical at ${identical}`);
      for (const w of worse.slice(0, 15)) console.log(`    more conservative: ${w}`);
      for (const w of differ.slice(0, 10)) console.log(`    differs: ${w}`);
      assert.deepEqual(problems, []);
      assert.ok(ratio >= MIN_NOT_MORE_CONSERVATIVE, `${fmt(ratio)} < ${fmt(MIN_NOT_MORE_CONSERVATIVE)}`);
    });
  });
}
