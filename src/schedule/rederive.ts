/**
 * The waits of a scheduled program, second step of emission (emit.ts): which of the waitcnt
 * analysis' minimal waits a schedule keeps, the waits that close each changed region
 * (scheduleWaits, on the scheduler's wait model), and the tidying that leaves the waits minimal
 * and merged (tidyWaits).
 */
import type { Loaded } from '../load.js';
import type { KernelContext } from '../analysis/types.js';
import { kernelContextNamed } from '../analysis/context.js';
import { waitcntText } from '../check/fix.js';
import { addInsert, emptyEdits, indentOf } from '../check/edit.js';
import { ConductorError } from '../errors.js';
import { ROLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { counterMax, kernelWaits, flatEffects, type CounterScores } from '../waitcnt/estimate.js';
import { traitsOf } from '../isa/traits.js';
import { closingWait, originalClosings } from './closing.js';
import { checkWaitcnt, minimalWaits } from '../waitcnt/index.js';
import { alignToOriginal } from './align.js';
import { once } from '../analysis/memo.js';
import { statementAt } from '../asm/program.js';

/** Counter values of a wait (-1 = the counter is not waited on). */
export type WaitCounts = { vm: number; lgkm: number; exp: number };

export type StatementEdits = ReturnType<typeof emptyEdits>;

function contextOf(l: Loaded, name: string): KernelContext {
  const c = kernelContextNamed(l, name);
  if (!c) throw new ConductorError(`internal: kernel '${name}' disappeared from the scheduled program`);
  return c;
}

/**
 * The waits to insert into the scheduled kernel `ctx` (its changed regions without waits): the
 * waitcnt analysis' minimal waits (src/waitcnt), except a wait the original program does without
 * at an instruction outside the changed regions (the analysis is pessimistic on paths that
 * cannot run), plus the waits that make each changed region end with no more memory operations
 * pending than the original region left (scheduleWaits), which makes leaving those out sound.
 */
export function rederivedWaits(s: ScheduleState, ctx: KernelContext, checkFast?: boolean): StatementEdits | undefined {
  const k = s.k;
  const toOrig = alignToOriginal(s, ctx);
  const changed = new Set(s.changedRegions());
  const orig = originalAnalysisWaits(k);
  const theirs = new Map<number, WaitCounts>();
  for (const w of minimalWaits(ctx)) {
    const v = { vm: w.vmcnt ?? -1, lgkm: w.lgkmcnt ?? -1, exp: w.expcnt ?? -1 };
    const i = toOrig[w.before]!;
    const inChanged = i >= 0 && k.role[i] === ROLE.movable && changed.has(k.regionOf[i]!);
    if (!inChanged && i >= 0 && !stronger(v, orig.get(i))) continue;
    theirs.set(w.before, v);
  }
  const { waits, closing } = scheduleWaits(s, ctx, theirs, checkFast);
  if (waits.size === 0) return undefined;
  // a wait that only closes a region goes at the region's end: when the region falls into a
  // block other paths reach too (a loop header), not at that block's top, where it would run
  // on every one of them (every iteration of the loop)
  const { cfg } = ctx;
  const atRegionEnd = new Set<number>();
  for (const j of closing) {
    if (theirs.has(j) || j <= 0) continue;
    const b = cfg.blockOf[j]!;
    const prev = cfg.blockOf[j - 1]!;
    if (b === prev || cfg.blocks[b]!.preds.length < 2 || !cfg.blocks[prev]!.succs.includes(b) || cfg.control[j - 1] !== 'none') continue;
    atRegionEnd.add(j);
  }
  return waitInsertions(ctx, waits, atRegionEnd);
}

const WAIT_BASE = 's_waitcnt';

/** The next instruction after i in its block that is neither s_waitcnt nor s_nop (-1 at the block's end). */
function nextNonWait(ctx: KernelContext, i: number): number {
  const b = ctx.cfg.blocks[ctx.cfg.blockOf[i]!]!;
  for (let j = i + 1; j < b.end; j++) { const base = ctx.insns[j]!.insn.base; if (base !== WAIT_BASE && base !== 's_nop') return j; }
  return -1;
}

/** The input's waits that wait for nothing, counted by the instruction they stand before (kept on its context). */
function redundantOfInput(k: ScheduleKernel): Map<number, number> {
  return once(k.ctx, 'redundantWaitsBefore', () => {
    const m = new Map<number, number>();
    for (const f of checkWaitcnt(k.ctx)) {
      if (f.rule !== 'waitcnt-redundant' || f.insn < 0) continue;
      const at = nextNonWait(k.ctx, f.insn);
      m.set(at, (m.get(at) ?? 0) + 1);
    }
    return m;
  });
}

/** Waits written right before each instruction of the input (by the instruction). */
function waitsBefore(ctx: KernelContext): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < ctx.insns.length; i++) {
    if (ctx.insns[i]!.insn.base !== WAIT_BASE) continue;
    const at = nextNonWait(ctx, i);
    m.set(at, (m.get(at) ?? 0) + 1);
  }
  return m;
}

/** waitsBefore of the input kernel (kept on its context). */
function inputWaitsBefore(k: ScheduleKernel): Map<number, number> {
  return once(k.ctx, 'waitsBefore', () => waitsBefore(k.ctx));
}

/**
 * The edits that make the scheduled kernel's waits minimal and merged: every s_waitcnt the waitcnt
 * analysis judges to wait for nothing is removed unless the input had such a wait before the same
 * instruction (what the input does is its own business), and a run of waits with nothing between
 * them, longer than the input's run before the same instruction, becomes one wait (the smallest
 * count per counter: the same effect). Removing a wait that waits for nothing changes no state,
 * so no other wait's need changes. `scheduled`: the scheduled kernel's context in `loaded`, when
 * the caller has it.
 */
export function tidyWaits(s: ScheduleState, loaded: Loaded, scheduled?: KernelContext): { plan: ReturnType<typeof emptyEdits>; edits: number } {
  const k = s.k;
  const ctx = scheduled ?? contextOf(loaded, k.name);
  const plan = emptyEdits();
  let edits = 0;
  const toOrig = alignToOriginal(s, ctx);
  const origOf = (j: number) => (j < 0 ? -1 : toOrig[j]!);
  const allowed = new Map(redundantOfInput(k));
  const removed = new Set<number>();
  for (const f of checkWaitcnt(ctx)) {
    if (f.rule !== 'waitcnt-redundant' || f.insn < 0) continue;
    const at = origOf(nextNonWait(ctx, f.insn));
    const n = allowed.get(at) ?? 0;
    if (n > 0) { allowed.set(at, n - 1); continue; }
    plan.remove.add(ctx.cfg.insns[f.insn]!.stmt);
    removed.add(f.insn);
    edits++;
  }
  // runs of waits before one instruction
  const inputRuns = inputWaitsBefore(k);
  for (let i = 0; i < ctx.insns.length; i++) {
    if (ctx.insns[i]!.insn.base !== WAIT_BASE || removed.has(i)) continue;
    if (i > 0 && ctx.insns[i - 1]!.insn.base === WAIT_BASE && ctx.cfg.blockOf[i - 1] === ctx.cfg.blockOf[i]) continue; // not the first of its run
    const run: number[] = [];
    let j = i;
    for (; j < ctx.insns.length && ctx.insns[j]!.insn.base === WAIT_BASE && ctx.cfg.blockOf[j] === ctx.cfg.blockOf[i]; j++) if (!removed.has(j)) run.push(j);
    const at = j < ctx.insns.length && ctx.cfg.blockOf[j] === ctx.cfg.blockOf[i] ? origOf(j) : -1;
    if (run.length < 2 || run.length <= (inputRuns.get(at) ?? 0)) continue;
    const v = { vmcnt: NONE, lgkmcnt: NONE, expcnt: NONE };
    for (const w of run) {
      const op = ctx.insns[w]!.insn.operands[0];
      if (!op || op.kind !== 'waitcnt') { v.vmcnt = v.lgkmcnt = v.expcnt = 0; continue; }
      if (op.vmcnt !== undefined) v.vmcnt = Math.min(v.vmcnt, op.vmcnt);
      if (op.lgkmcnt !== undefined) v.lgkmcnt = Math.min(v.lgkmcnt, op.lgkmcnt);
      if (op.expcnt !== undefined) v.expcnt = Math.min(v.expcnt, op.expcnt);
    }
    plan.replace.set(ctx.cfg.insns[run[0]!]!.stmt, waitcntText({
      vmcnt: v.vmcnt === NONE ? undefined : v.vmcnt, lgkmcnt: v.lgkmcnt === NONE ? undefined : v.lgkmcnt, expcnt: v.expcnt === NONE ? undefined : v.expcnt,
    }));
    for (const w of run.slice(1)) plan.remove.add(ctx.cfg.insns[w]!.stmt);
    edits += run.length - 1;
  }
  return { plan, edits };
}

const NONE = 1 << 20;

function stronger(a: { vm: number; lgkm: number; exp: number }, b?: { vm: number; lgkm: number; exp: number }): boolean {
  if (!b) return true;
  const st = (x: number, y: number) => x >= 0 && (y < 0 || x < y);
  return st(a.vm, b.vm) || st(a.lgkm, b.lgkm) || st(a.exp, b.exp);
}

/**
 * Statement edits inserting the waits `ins` (before kernel instruction j, counter values, -1 =
 * none); for j in `afterPrevious`, right after instruction j - 1 instead (before the labels of
 * j's block).
 */
export function waitInsertions(ctx: KernelContext, ins: Map<number, { vm: number; lgkm: number; exp: number }>,
  afterPrevious: ReadonlySet<number> = new Set()): StatementEdits {
  const e = emptyEdits();
  const program = ctx.program;
  // a statement's view only where a wait goes after the previous instruction (not the whole list)
  const indent = (stmt: number) => indentOf(program.lineIndex.line(statementAt(program, stmt)!.lineIndex));
  for (const [j, w] of ins) {
    const text = waitcntText({
      vmcnt: w.vm >= 0 ? w.vm : undefined, lgkmcnt: w.lgkm >= 0 ? w.lgkm : undefined, expcnt: w.exp >= 0 ? w.exp : undefined,
    });
    if (!afterPrevious.has(j)) { addInsert(e, ctx.cfg.insns[j]!.stmt, text); continue; }
    // before the statement after instruction j - 1 (a label's line, written with the label's indent)
    const prev = ctx.cfg.insns[j - 1]!.stmt;
    const want = indent(prev);
    const has = indent(prev + 1);
    addInsert(e, prev + 1, (want.startsWith(has) ? want.slice(has.length) : '') + text);
  }
  return e;
}

/** The waits the waitcnt analysis would add to the original kernel (what it does without; kept on its context). */
function originalAnalysisWaits(k: ScheduleKernel): Map<number, WaitCounts> {
  return once(k.ctx, 'analysisWaitsBefore', () => {
    const m = new Map<number, WaitCounts>();
    for (const w of minimalWaits(k.ctx)) m.set(w.before, { vm: w.vmcnt ?? -1, lgkm: w.lgkmcnt ?? -1, exp: w.expcnt ?? -1 });
    return m;
  });
}

/**
 * Rounds of closing waits: each round's waits can only lower the pending counts the next round
 * sees, so the rounds settle within a few (one per region a wait can influence in turn).
 */
const CLOSING_ROUNDS = 4;

/**
 * The waits of the changed regions of a schedule for the scheduled kernel `ctx` (its waits and
 * nops of changed regions removed): the waitcnt analysis' choice `given`, plus the waits the
 * scheduler's model (waitcnt/estimate.ts) finds to close each changed region. Outside the changed regions
 * the program's own waits are trusted (the analysis is pessimistic on paths that cannot run, so
 * it would ask for waits the program rightly does without). That is sound because each changed
 * region is made to end with no more memory operations pending than the original region left
 * (per counter, the operations still pending are among those the original left pending;
 * otherwise a wait closes the region). `closing` gives the instructions those closing waits
 * stand before (the one after each region they close). `checkFast`: kernelWaits' check (default:
 * CONDUCTOR_CHECK_FAST=1).
 */
export function scheduleWaits(s: ScheduleState, ctx: KernelContext,
  given: ReadonlyMap<number, { vm: number; lgkm: number; exp: number }>, checkFast?: boolean): { waits: Map<number, { vm: number; lgkm: number; exp: number }>; closing: Set<number> } {
  const k = s.k;
  const toOrig = alignToOriginal(s, ctx);
  const newOf = new Int32Array(k.n).fill(-1);
  for (let j = 0; j < toOrig.length; j++) if (toOrig[j]! >= 0) newOf[toOrig[j]!] = j;
  const changed = s.changedRegions();
  const lastNew: number[] = [];
  for (const r of changed) {
    const rg = k.regions[r]!;
    lastNew.push(newOf[rg.nodes[s.order[r]![rg.nodes.length - 1]!]!]!);
  }
  const f = flatEffects(ctx);
  const max = counterMax(ctx.target);
  const closings = originalClosings(k);
  const traits = traitsOf(k.insns);
  const w = new Int32Array(3);
  // the model adds none of its own waits but the ones that close the regions
  const accept = () => false;
  const withGiven = (extra: Map<number, { vm: number; lgkm: number; exp: number }>) => {
    const all = new Map(given);
    for (const [j, w] of extra) {
      const o = all.get(j);
      const mn = (a: number, b: number) => (a < 0 ? b : b < 0 ? a : Math.min(a, b));
      all.set(j, o ? { vm: mn(o.vm, w.vm), lgkm: mn(o.lgkm, w.lgkm), exp: mn(o.exp, w.exp) } : w);
    }
    return all;
  };
  let forced = new Map<number, { vm: number; lgkm: number; exp: number }>();
  // the rounds' passes share their blocks' exit states (kernelWaits spare)
  const spare: CounterScores[] = [];
  let kw = kernelWaits(ctx.cfg, f, max, { accept, after: lastNew, forced: withGiven(forced), check: checkFast, spare });
  for (let iter = 0; ; iter++) {
    const next = new Map<number, { vm: number; lgkm: number; exp: number }>();
    changed.forEach((r, x) => {
      const rg = k.regions[r]!;
      const jl = lastNew[x]!;
      const st = kw.after.get(jl);
      if (!st || jl + 1 >= ctx.insns.length) return;
      const o = s.order[r]!;
      const seq = new Int32Array(o.length);
      for (let q = 0; q < o.length; q++) seq[q] = rg.nodes[o[q]!]!;
      if (closingWait(traits, closings[r]!, seq, st.pendingPerClass(max), w)) next.set(jl + 1, { vm: w[0]!, lgkm: w[1]!, exp: w[2]! });
    });
    const same = next.size === forced.size && [...next].every(([j, w]) => { const o = forced.get(j); return o && o.vm === w.vm && o.lgkm === w.lgkm && o.exp === w.exp; });
    if (same) break;
    if (iter === CLOSING_ROUNDS) {
      throw new Error(`internal: the waits that close the changed regions of ${k.name} did not settle in ${CLOSING_ROUNDS} rounds`);
    }
    forced = next;
    kw = kernelWaits(ctx.cfg, f, max, { accept, after: lastNew, forced: withGiven(forced), check: checkFast, spare });
  }
  return { waits: kw.inserted, closing: new Set(forced.keys()) };
}
