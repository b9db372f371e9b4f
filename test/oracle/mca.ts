/**
 * llvm-mca 22 as a peer judge of speed (see the oracle design notes, "Judging a schedule with
 * llvm-mca"): the hottest loop of a kernel is the largest body between a label and a backward
 * s_cbranch_* / s_branch to it; its instructions, without s_nop, s_waitcnt, s_barrier, s_setprio
 * and the branches, are given to `llvm-mca -iterations=50`, and its Total Cycles are read.
 *
 * Instruction text for llvm-mca: registers by number (the .set symbols of Tensile files are
 * gone), immediates by value, modifiers by value. llvm-mca 22 aborts on
 * buffer_load_{ubyte,sbyte,short}_d16[_hi]: those are given to it as the non-d16 load of the same
 * width (same pipe and latency in its model). A few blocks make it hang: every run has a timeout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Instruction, Modifier, Operand } from '../../src/asm/ast.js';
import type { KernelContext } from '../../src/analysis/types.js';
import { rangeName } from '../../src/asm/registers.js';
import { kernelLoops } from '../../src/cycles/kernel-time.js';
import { llvmTool } from './llvm.js';

function opText(o: Operand): string {
  let t: string;
  switch (o.kind) {
    case 'reg': t = rangeName(o.first, o.count); break;
    case 'imm': t = /^-?(0x[0-9a-f]+|\d+(\.\d*)?(e[-+]?\d+)?)$/i.test(o.text.trim()) ? o.text.trim() : String(o.value); break;
    default: return o.text;
  }
  const m = o.mods;
  if (m?.sext) t = `sext(${t})`;
  if (m?.abs) t = `|${t}|`;
  if (m?.neg) t = `-${t}`;
  return t;
}

function modText(m: Modifier): string {
  if (m.value === undefined) return m.name;
  if (m.list) return `${m.name}:[${m.list.join(',')}]`;
  if (m.num !== undefined) return `${m.name}:${m.num}`;
  return m.text;
}

const D16_CRASH = /^buffer_load_(ubyte|sbyte|short)_d16(_hi)?$/;
/** buffer_load_*_d16 instructions rewritten so far (printed by the tests). */
export const mcaRewrites = { d16: 0 };

/** One instruction as llvm-mca reads it (registers by number, values instead of symbols). */
export function mcaText(insn: Instruction): string {
  let mn = insn.mnemonic;
  const m = D16_CRASH.exec(mn);
  if (m) { mn = `buffer_load_${m[1] === 'short' ? 'ushort' : m[1]}`; mcaRewrites.d16++; }
  return [mn, insn.operands.map(opText).join(', '), insn.modifiers.map(modText).join(' ')].filter((x) => x).join(' ');
}

export interface McaRun { ok: boolean; out: string; why: string }

/** llvm-mca on a file, killed after `timeout` ms. */
export function runMca(target: string, file: string, timeout: number, args: string[] = ['-iterations=1']): Promise<McaRun> {
  return new Promise((res) => {
    execFile(llvmTool('llvm-mca'), ['-mtriple=amdgcn-amd-amdhsa', `-mcpu=${target}`, ...args,
      '--instruction-info=false', '--resource-pressure=false', file],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout, killSignal: 'SIGKILL' },
    (err, stdout, stderr) => {
      if (!err) { res({ ok: true, out: stdout, why: '' }); return; }
      const why = err.killed || err.signal === 'SIGKILL' ? `timed out after ${timeout / 1000} s`
        : err.signal ? `killed by ${err.signal}` : /Aborted|Stack dump|PLEASE submit/.test(stderr) ? 'crashed'
          : `exit ${err.code}: ${stderr.split('\n').find((l) => /error/.test(l)) ?? stderr.slice(0, 200)}`;
      res({ ok: false, out: stdout, why });
    });
  });
}

/** A loop: header block, latch block (its last instruction branches back to the header). */
export interface HotLoop { header: number; latch: number; instructions: number; line: number }

/**
 * Loops of a kernel, largest body first: a block ending in s_cbranch_* / s_branch to a block at
 * or before it that can reach the branch again (kernelLoops: a backward jump its target cannot
 * reach again is a jump to shared code, such as Tensile's branch back to its epilogue, not a
 * loop). The body is every block from the header to the latch in layout order.
 */
export function loopsBySize(ctx: KernelContext): HotLoop[] {
  const { cfg } = ctx;
  return kernelLoops(ctx)
    .filter((l) => { const k = cfg.control[cfg.blocks[l.latch]!.end - 1]; return k === 'jump' || k === 'cjump'; })
    .map((l) => ({ header: l.header, latch: l.latch, instructions: l.end - l.start, line: l.line }))
    .sort((a, b) => b.instructions - a.instructions || a.header - b.header);
}

/** The hottest loop of a kernel (the largest), or undefined when it has none. */
export function hottestLoop(ctx: KernelContext): HotLoop | undefined {
  return loopsBySize(ctx)[0];
}

const LEFT_OUT = /^(s_nop|s_waitcnt|s_barrier|s_setprio)$/;

/** The loop body as llvm-mca lines: no s_nop, s_waitcnt, s_barrier, s_setprio or branches. */
export function loopBodyText(ctx: KernelContext, loop: Pick<HotLoop, 'header' | 'latch'>): string[] {
  const { cfg } = ctx;
  const lines: string[] = [];
  const start = cfg.blocks[loop.header]!.start;
  const end = cfg.blocks[loop.latch]!.end;
  for (let i = start; i < end; i++) {
    const insn = cfg.insns[i]!;
    if (LEFT_OUT.test(insn.base) || cfg.control[i] !== 'none' || insn.base.startsWith('s_cbranch') || insn.base === 's_branch') continue;
    lines.push(mcaText(insn));
  }
  return lines;
}

export const MCA_ITERATIONS = 50;

let tmp: string | undefined;
let seq = 0;

/**
 * Total Cycles of `-iterations=50` on the given lines, or the reason llvm-mca gave none.
 */
export async function mcaCycles(target: string, lines: readonly string[], timeout = 30_000): Promise<{ cycles?: number; why?: string }> {
  if (lines.length === 0) return { why: 'empty loop body' };
  tmp ??= mkdtempSync(join(tmpdir(), 'conductor-mca-loop-'));
  const file = join(tmp, `loop${seq++}.s`);
  writeFileSync(file, lines.join('\n') + '\n');
  const r = await runMca(target, file, timeout, [`-iterations=${MCA_ITERATIONS}`]);
  rmSync(file, { force: true });
  if (!r.ok) return { why: r.why };
  const m = /Total Cycles:\s+(\d+)/.exec(r.out);
  return m ? { cycles: Number(m[1]) } : { why: 'no Total Cycles in the output' };
}

/** Run async jobs with at most `limit` at once. */
export async function pool<T>(items: readonly T[], limit: number, fn: (x: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => { while (next < items.length) { const k = next++; await fn(items[k]!, k); } };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Geometric mean (NaN for an empty list). */
export function geomean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}
