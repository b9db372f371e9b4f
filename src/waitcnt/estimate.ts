/**
 * The scheduler's fast s_waitcnt estimate: which waits a straight-line sequence needs, fast
 * enough to run on every candidate schedule of a region, and a whole-kernel pass (forward
 * dataflow over the CFG to a fixed point) that gives the pending memory operations at region
 * exits for emission's closing waits.
 *
 * It runs the waitcnt analysis' counter model (model.ts kernelEffects: the operation classes,
 * increments and register units of src/targets/counters.ts, LLVM SIInsertWaitcnts for GFX9)
 * with the analysis' rules, over flat arrays:
 *   - per operation class a score window: every operation gets the next score of its class;
 *     a register written by a pending load carries its operation's score;
 *   - a use or a def of a VGPR/AGPR/SGPR written by a pending load waits (RAW, WAW), except a
 *     VMEM load overwriting a pending VMEM load's destination, a d16 VMEM load merging into
 *     one (VGPRs are written in order), and an LDS load overwriting a pending LDS load's; a def
 *     of a VGPR still read by a pending export/GDS operation waits on expcnt, and so does a
 *     write of EXEC while one is pending (for 0);
 *   - an LDS access after LDS-DMA waits on vmcnt (the DMA's LDS write);
 *   - an in-order class covers a result with `cnt(younger operations of its class)`, at most
 *     the counter's maximum minus one (an operation with more younger ones than the counter
 *     holds, SOURCES.saturation in model.ts); an out-of-order class (scalar memory, FLAT)
 *     needs a wait for 0;
 *   - a call that follows the calling convention leaves nothing pending; a call of a
 *     subroutine inside the kernel leaves the counters as they are.
 * On a straight line it places the waits the analysis places (the weakest, right before the
 * first instruction that needs each). What it does not have is the analysis' path classes:
 * a region's entry state comes from the analysis (scoresOf), and kernelWaits, which follows
 * every edge of the CFG, is pessimistic where the analysis excludes paths.
 */
import type { KernelContext } from '../analysis/types.js';
import { once } from '../analysis/memo.js';
import type { Cfg } from '../analysis/cfg.js';
import type { Target } from '../isa/target.js';
import { INSN_KIND, LDS_MEM, NO_WAIT, kernelEffects } from './model.js';
import type { CounterState } from './state.js';
import { CLASS_COUNTER, CLASS_IN_ORDER, COUNTER, NCLASSES, OP_CLASS } from '../targets/counters.js';
import { checkFastFromEnv, FastPathMismatch } from '../errors.js';

/**
 * Register units the model keeps scores for: the real ones and LDS_MEM ("LDS written by a
 * pending LDS-DMA", model.ts). The analysis' other pseudo units are left out: STORES, which no
 * instruction reads (it serves the analysis' judgement of fences only), and WRITEBACK and
 * COHERENT_LOAD, whose waits (a release's, an acquire's) are fence waits the scheduler keeps.
 */
const NU = LDS_MEM + 1;

/**
 * Per-instruction facts the model needs, as flat arrays: the waitcnt model's effects
 * (model.ts kernelEffects: the same operation classes, increments and units) laid out for a
 * straight-line run.
 */
export interface FlatEffects {
  n: number;
  /** 1: s_waitcnt (apply `waitVm/Lgkm/Exp`), 2: a call that waits for everything (every counter is zero afterwards). */
  special: Uint8Array;
  waitVm: Int16Array;
  waitLgkm: Int16Array;
  waitExp: Int16Array;
  /** InsnEffects.inOrderClass: the class whose pending writes the instruction may overwrite without a wait (-1: none). */
  inOrder: Int8Array;
  /** VMEM d16 load: reads its destination (keeps the other half) without waiting for a pending VMEM load of it. */
  d16Load: Uint8Array;
  /** LDS access (ds_* touching LDS, flat may too): waits for pending LDS-DMA. */
  ldsAccess: Uint8Array;
  /** Writes EXEC: waits expcnt(0) while an export / GDS operation is pending. */
  writesExec: Uint8Array;
  useOff: Int32Array; useUnits: Int32Array;
  defOff: Int32Array; defUnits: Int32Array;
  /** The counter increments instruction i issues: issues issOff[i]..issOff[i+1], each a class, an increment and units unitOff[x]..unitOff[x+1]. */
  issOff: Int32Array; issCls: Uint8Array; issInc: Uint8Array;
  unitOff: Int32Array; issUnits: Int32Array;
}

export interface CounterMax { vm: number; lgkm: number; exp: number }

export function counterMax(t: Target): CounterMax {
  return { vm: t.counters.vmcnt.value, lgkm: t.counters.lgkmcnt.value, exp: t.counters.expcnt.value };
}

/** The kernel's waitcnt effects (model.ts kernelEffects) as flat arrays, kept on the context (analysis/memo.ts). */
export function flatEffects(ctx: KernelContext): FlatEffects {
  return once(ctx, 'flatEffects', () => computeFlatEffects(ctx));
}

function computeFlatEffects(ctx: KernelContext): FlatEffects {
  const insns = ctx.insns;
  const fx = kernelEffects(ctx);
  const n = insns.length;
  const special = new Uint8Array(n);
  const waitVm = new Int16Array(n).fill(-1);
  const waitLgkm = new Int16Array(n).fill(-1);
  const waitExp = new Int16Array(n).fill(-1);
  const inOrder = new Int8Array(n).fill(-1);
  const d16Load = new Uint8Array(n);
  const ldsAccess = new Uint8Array(n);
  const writesExec = new Uint8Array(n);
  // the register lists, sized first and written by index (a pass over the whole kernel that runs
  // once per program: mostly before V8 has optimized it, where every push is a call)
  let nu = 0;
  let nd = 0;
  for (let i = 0; i < n; i++) { nu += insns[i]!.uses.length; nd += insns[i]!.defs.length; }
  const useUnits = new Int32Array(nu); const useOff = new Int32Array(n + 1);
  const defUnits = new Int32Array(nd); const defOff = new Int32Array(n + 1);
  const issOff = new Int32Array(n + 1);
  const cls: number[] = []; const inc: number[] = []; const unitOff: number[] = []; const units: number[] = [];
  const value = (v: number) => (v === NO_WAIT ? -1 : v);
  nu = 0;
  nd = 0;
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    const e = fx[i]!;
    useOff[i] = nu; defOff[i] = nd; issOff[i] = cls.length;
    const ru = r.uses;
    for (let x = 0; x < ru.length; x++) useUnits[nu++] = ru[x]!;
    const rd = r.defs;
    for (let x = 0; x < rd.length; x++) defUnits[nd++] = rd[x]!;
    if (e.kind === INSN_KIND.wait) {
      special[i] = 1;
      waitVm[i] = value(e.wait![0]); waitLgkm[i] = value(e.wait![1]); waitExp[i] = value(e.wait![2]);
      continue;
    }
    if (e.kind === INSN_KIND.call && e.callWaits) special[i] = 2;
    inOrder[i] = e.inOrderClass; d16Load[i] = +e.d16Load; ldsAccess[i] = +e.lds; writesExec[i] = +e.writesExec;
    const issues = e.issues;
    for (let x = 0; x < issues.length; x++) {
      const is = issues[x]!;
      cls.push(is.cls); inc.push(is.inc); unitOff.push(units.length);
      const iu = is.units;
      // the pseudo units past LDS_MEM (STORES, WRITEBACK, COHERENT_LOAD) serve the analysis' fences and memory-model rules only
      for (let q = 0; q < iu.length; q++) if (iu[q]! < NU) units.push(iu[q]!);
    }
  }
  useOff[n] = nu; defOff[n] = nd; issOff[n] = cls.length;
  unitOff.push(units.length);
  return {
    n, special, waitVm, waitLgkm, waitExp, inOrder, d16Load, ldsAccess, writesExec,
    useOff, useUnits, defOff, defUnits,
    issOff, issCls: Uint8Array.from(cls), issInc: Uint8Array.from(inc), unitOff: Int32Array.from(unitOff), issUnits: Int32Array.from(units),
  };
}

/**
 * One score window per operation class. `cnt(k)` completes, in an in-order class, every
 * operation with k or more younger operations of the class (if one were outstanding, all
 * younger ones of its class would be too: more than k); in an out-of-order class, everything
 * when k is 0. CDNA3 ISA §4.4 ("instructions of the same type are returned in the order they
 * were issued").
 */
const NW = NCLASSES;
const COUNTER_OF = CLASS_COUNTER;
const IN_ORDER = CLASS_IN_ORDER;

/** The width (largest count) of counter c (COUNTER.vm / lgkm / exp). */
function widthOf(max: CounterMax, c: number): number {
  return c === COUNTER.vm ? max.vm : c === COUNTER.lgkm ? max.lgkm : max.exp;
}

/**
 * Operations pending per class of the window bounds `ub`/`lb`, into `out`: at most the
 * counter's width, as the counter cannot count more (issue holds at its maximum).
 */
function pendingInto(ub: Int32Array, lb: Int32Array, max: CounterMax, out: Int32Array): Int32Array {
  for (let w = 0; w < NW; w++) out[w] = Math.min(ub[w]! - lb[w]!, widthOf(max, COUNTER_OF[w]!));
  return out;
}

/** Pending memory operations: one score window per operation class. */
export class CounterScores {
  readonly ub = new Int32Array(NW);
  readonly lb = new Int32Array(NW);
  /** score[w * NU + u]: score in window w of the operation that writes (expcnt classes: reads) unit u. */
  readonly score = new Int32Array(NW * NU);

  clone(): CounterScores {
    const s = new CounterScores();
    s.copy(this);
    return s;
  }

  copy(o: CounterScores): void {
    this.ub.set(o.ub); this.lb.set(o.lb); this.score.set(o.score);
  }

  /** Make `s` this state (ScoreSource). */
  writeTo(s: CounterScores): void { s.copy(this); }

  /**
   * The two states behave alike from here on: the same operations pending per class (at most
   * the counter's width: more are alike, see pendingPerClass) and every unit's younger count
   * the same, counts of at least width - 1 alike (they need the same wait, needBefore, and any
   * wait completes them alike).
   */
  equals(o: CounterScores, max: CounterMax): boolean {
    return this.equalsAt(o, max, EVERY_SCORE);
  }

  /** Operations pending per class (window), into `out` (a new array when not given): pendingInto. */
  pendingPerClass(max: CounterMax, out = new Int32Array(NW)): Int32Array {
    return pendingInto(this.ub, this.lb, max, out);
  }

  /** Younger operations of window w than `score` while pending, -1 when not pending. */
  age(w: number, score: number): number {
    return score > this.lb[w]! ? this.ub[w]! - score : -1;
  }

  /** Pessimistic merge (CFG join): pending in either, with the smaller age. */
  merge(o: CounterScores): void {
    this.mergeAt(o, EVERY_SCORE);
  }

  reset(): void {
    for (let w = 0; w < NW; w++) this.lb[w] = this.ub[w]!;
  }

  /**
   * merge, reading and writing only the scores at `at` (indexes into `score`): exact when every
   * other score is 0 in both states (as with the indexes of scoreIndexes and of both states'
   * nonzero scores; a score of 0 is pending in neither, so merge writes 0 there).
   */
  mergeAt(o: CounterScores, at: Int32Array): void {
    for (let x = 0; x < at.length; x++) {
      const i = at[x]!;
      const w = (i / NU) | 0;
      const a1 = this.age(w, this.score[i]!);
      const a2 = o.age(w, o.score[i]!);
      const a = a1 < 0 ? a2 : a2 < 0 ? a1 : Math.min(a1, a2);
      this.score[i] = a < 0 ? 0 : Math.max(this.ub[w]!, o.ub[w]!) - a;
    }
    for (let w = 0; w < NW; w++) {
      const ub = Math.max(this.ub[w]!, o.ub[w]!);
      const pend = Math.max(this.ub[w]! - this.lb[w]!, o.ub[w]! - o.lb[w]!);
      this.ub[w] = ub;
      this.lb[w] = ub - pend;
    }
  }

  /** equals, comparing only the scores at `at` (every other score 0 in both states, as mergeAt). */
  equalsAt(o: CounterScores, max: CounterMax, at: Int32Array): boolean {
    for (let w = 0; w < NW; w++) {
      const m = widthOf(max, COUNTER_OF[w]!);
      if (Math.min(this.ub[w]! - this.lb[w]!, m) !== Math.min(o.ub[w]! - o.lb[w]!, m)) return false;
    }
    for (let x = 0; x < at.length; x++) {
      const i = at[x]!;
      const w = (i / NU) | 0;
      const cap = widthOf(max, COUNTER_OF[w]!) - 1;
      if (Math.min(this.age(w, this.score[i]!), cap) !== Math.min(o.age(w, o.score[i]!), cap)) return false;
    }
    return true;
  }

  /** copy, of the scores at `at` alone: exact when both states' scores are 0 everywhere else. */
  copyAt(o: CounterScores, at: Int32Array): void {
    this.ub.set(o.ub); this.lb.set(o.lb);
    for (let x = 0; x < at.length; x++) { const i = at[x]!; this.score[i] = o.score[i]!; }
  }

  /** Indexes of the nonzero scores. */
  nonzero(): Int32Array {
    const out: number[] = [];
    for (let i = 0; i < this.score.length; i++) if (this.score[i] !== 0) out.push(i);
    return Int32Array.from(out);
  }
}

/**
 * The indexes into CounterScores.score that an instruction of `f` can write (issue: its class's
 * window, each unit it stamps), each once: outside them a state's scores stay what they were.
 */
export function scoreIndexes(f: FlatEffects): Int32Array {
  const seen = new Uint8Array(NW * NU);
  const out: number[] = [];
  for (let x = 0; x < f.issCls.length; x++) {
    const base = f.issCls[x]! * NU;
    for (let p = f.unitOff[x]!; p < f.unitOff[x + 1]!; p++) {
      const i = base + f.issUnits[p]!;
      if (seen[i] === 0) { seen[i] = 1; out.push(i); }
    }
  }
  return Int32Array.from(out);
}

/** Size of CounterScores.score. */
export const SCORE_SIZE = NW * NU;

/** Every index of CounterScores.score: merge and equals are mergeAt and equalsAt over the whole state. */
export const EVERY_SCORE = Int32Array.from({ length: SCORE_SIZE }, (_, i) => i);

/** A counter state to start from: a CounterScores, or a ScoreSnapshot of one. */
export interface ScoreSource {
  /** Make `s` this state, as the model sees it. */
  writeTo(s: CounterScores): void;
}

/**
 * A CounterScores kept for later at the size of what it holds pending: its window bounds and the
 * scores above their window's lower bound (a few dozen, where the whole state is 37 KB). The
 * other scores are written back as 0: a score at or below its window's lower bound makes no
 * instruction wait and counts in no join or comparison (`age` -1), and stays so, as lower bounds
 * only rise, until an operation stamps the unit anew; so the state written back is the kept one
 * as the model sees it. The Evaluator keeps one per region entry, the whole-kernel pass one per
 * instruction asked about.
 */
export class ScoreSnapshot implements ScoreSource {
  readonly ub: Int32Array;
  readonly lb: Int32Array;
  /** Indexes into CounterScores.score of the pending scores, and their values. */
  readonly at: Int32Array;
  readonly val: Int32Array;

  constructor(s: CounterScores) {
    this.ub = s.ub.slice();
    this.lb = s.lb.slice();
    let n = 0;
    for (let w = 0; w < NW; w++) {
      if (s.ub[w]! === s.lb[w]!) continue;
      const lb = s.lb[w]!;
      for (let x = w * NU; x < (w + 1) * NU; x++) if (s.score[x]! > lb) n++;
    }
    this.at = new Int32Array(n);
    this.val = new Int32Array(n);
    n = 0;
    for (let w = 0; w < NW; w++) {
      if (s.ub[w]! === s.lb[w]!) continue;
      const lb = s.lb[w]!;
      for (let x = w * NU; x < (w + 1) * NU; x++) if (s.score[x]! > lb) { this.at[n] = x; this.val[n++] = s.score[x]!; }
    }
  }

  writeTo(s: CounterScores): void {
    s.ub.set(this.ub);
    s.lb.set(this.lb);
    s.score.fill(0);
    for (let x = 0; x < this.at.length; x++) s.score[this.at[x]!] = this.val[x]!;
  }

  /** The state as a new CounterScores. */
  state(): CounterScores {
    const s = new CounterScores();
    this.writeTo(s);
    return s;
  }

  /** Operations pending per class (window), into `out` (a new array when not given), as CounterScores.pendingPerClass. */
  pendingPerClass(max: CounterMax, out = new Int32Array(NW)): Int32Array {
    return pendingInto(this.ub, this.lb, max, out);
  }
}

/**
 * The model's state for a state of the waitcnt analysis (state.ts, e.g. a region's entry as the
 * analysis found it, its path classes joined): per class the operations pending, per unit the
 * younger operations of its class. The analysis bounds what is pending by the counter's width
 * plus one but keeps an operation with more younger ones pending (SOURCES.saturation in
 * model.ts): here the window holds them all.
 */
/** What scoresOf reads of an analysis state (kept without the rest, which is mostly per-unit masks, where only that is needed). */
export type EntryCounts = Pick<CounterState, 'issued' | 'pend' | 'wild' | 'ent'>;

export function scoresOf(st: EntryCounts, max: CounterMax): CounterScores {
  const s = new CounterScores();
  const pend = new Int32Array(NW);
  for (let w = 0; w < NW; w++) pend[w] = (st.wild >> COUNTER_OF[w]!) & 1 ? widthOf(max, COUNTER_OF[w]!) : st.pend[w]!;
  st.ent.forEach((e, key) => {
    const w = key & 15;
    if (IN_ORDER[w]) pend[w] = Math.max(pend[w]!, st.issued[w]! - e.s + 1);
  });
  let top = 1;
  for (let w = 0; w < NW; w++) top = Math.max(top, pend[w]! + 1);
  for (let w = 0; w < NW; w++) { s.ub[w] = top; s.lb[w] = top - pend[w]!; }
  st.ent.forEach((e, key) => {
    const u = key >>> 4;
    const w = key & 15;
    if (u >= NU || pend[w] === 0) return;
    s.score[w * NU + u] = top - (IN_ORDER[w] ? st.issued[w]! - e.s : 0);
  });
  return s;
}

/** No wait on a counter (needBefore). */
export const NONE = 1 << 30;

/**
 * The wait instruction `i` needs in state `s` (written into `need` per counter, NONE = no wait
 * on that counter). Returns true when any counter must be waited on.
 */
export function needBefore(f: FlatEffects, s: CounterScores, i: number, need: Int32Array, max: CounterMax): boolean {
  need[0] = NONE; need[1] = NONE; need[2] = NONE;
  const ub = s.ub;
  const lb = s.lb;
  // the windows with something pending: only their scores can make an instruction wait
  const pend = PENDING;
  let np = 0;
  for (let w = 0; w < NW; w++) if (ub[w]! > lb[w]!) pend[np++] = w;
  if (np === 0) return false;
  const sc = s.score;
  let any = false;
  // an operation with more younger ones of its class than the counter holds: width - 1
  // (SOURCES.saturation in model.ts; LLVM SIInsertWaitcnts::determineWait)
  SATURATED[COUNTER.vm] = max.vm - 1; SATURATED[COUNTER.lgkm] = max.lgkm - 1; SATURATED[COUNTER.exp] = max.exp - 1;
  // uses, then defs: a use or a def of a unit written by a pending operation waits for it;
  // expcnt only for overwriting a register an export still reads; VMEM and LDS write registers
  // in order (a VMEM load may overwrite, and a d16 VMEM load merge into, a pending VMEM load's
  // result; an LDS load may overwrite a pending LDS load's)
  const u0 = f.useOff[i]!; const u1 = f.useOff[i + 1]!;
  const d0 = f.defOff[i]!; const d1 = f.defOff[i + 1]!;
  const inOrder = f.inOrder[i]!;
  const d16 = f.d16Load[i] === 1;
  const useUnits = f.useUnits;
  const defUnits = f.defUnits;
  for (let p = u0; p < d1 - d0 + u1; p++) {
    const isDef = p >= u1;
    const u = isDef ? defUnits[p - u1 + d0]! : useUnits[p]!;
    for (let x = 0; x < np; x++) {
      const w = pend[x]!;
      const v = sc[w * NU + u]!;
      if (v <= lb[w]!) continue;
      const c = COUNTER_OF[w]!;
      if (c === COUNTER.exp && !isDef) continue;
      if (isDef ? w === inOrder : w === OP_CLASS.vmem && d16 && isDefOf(f, i, u)) continue;
      const k = IN_ORDER[w] ? Math.min(ub[w]! - v, SATURATED[c]!) : 0;
      if (k < need[c]!) { need[c] = k; any = true; }
    }
  }
  if (f.ldsAccess[i]) {
    for (let x = 0; x < np; x++) {
      const w = pend[x]!;
      const v = sc[w * NU + LDS_MEM]!;
      if (v <= lb[w]!) continue;
      const c = COUNTER_OF[w]!;
      const k = IN_ORDER[w] ? Math.min(ub[w]! - v, SATURATED[c]!) : 0;
      if (k < need[c]!) { need[c] = k; any = true; }
    }
  }
  // EXEC written while an export / GDS operation is pending: expcnt(0) (SIInsertWaitcnts)
  if (f.writesExec[i] && need[COUNTER.exp]! > 0) {
    for (let x = 0; x < np; x++) if (COUNTER_OF[pend[x]!] === COUNTER.exp) { need[COUNTER.exp] = 0; any = true; break; }
  }
  return any;
}

/** Unit u is among instruction i's defs. */
function isDefOf(f: FlatEffects, i: number, u: number): boolean {
  for (let p = f.defOff[i]!; p < f.defOff[i + 1]!; p++) if (f.defUnits[p] === u) return true;
  return false;
}

/** Scratch of needBefore: the windows with operations pending, the wait per counter that completes any operation. */
const PENDING = new Int32Array(NW);
const SATURATED = new Int32Array(3);

/** Apply a wait (NONE / negative = counter not waited on). */
export function applyWait(s: CounterScores, vm: number, lgkm: number, exp: number): void {
  for (let w = 0; w < NW; w++) {
    const c = COUNTER_OF[w]!;
    const k = c === COUNTER.vm ? vm : c === COUNTER.lgkm ? lgkm : exp;
    if (k < 0 || k >= NONE) continue;
    if (IN_ORDER[w]) s.lb[w] = Math.max(s.lb[w]!, s.ub[w]! - k);
    else if (k === 0) s.lb[w] = s.ub[w]!;
  }
}

/** Issue `inc` operations of class w: the score of the last. Older ones stay pending until a wait completes them. */
function bump(s: CounterScores, w: number, inc: number): number {
  return (s.ub[w]! += inc);
}

/**
 * Score writes recorded so that a state can be taken back to an earlier position of a sequence
 * (ScoreLog.undo): the index written and the value it had.
 */
export class ScoreLog {
  index = new Int32Array(256);
  old = new Int32Array(256);
  length = 0;

  push(at: number, value: number): void {
    if (this.length === this.index.length) {
      const grow = (a: Int32Array) => { const b = new Int32Array(a.length * 2); b.set(a); return b; };
      this.index = grow(this.index);
      this.old = grow(this.old);
    }
    this.index[this.length] = at;
    this.old[this.length++] = value;
  }

  /** Undo the writes recorded after the first `keep` (latest first). */
  undo(s: CounterScores, keep: number): void {
    const sc = s.score;
    for (let x = this.length - 1; x >= keep; x--) sc[this.index[x]!] = this.old[x]!;
    this.length = keep;
  }
}

/** Issue instruction i's operations (score writes recorded in `log` when given). */
export function issue(f: FlatEffects, s: CounterScores, i: number, log?: ScoreLog): void {
  const sp = f.special[i]!;
  if (sp === 1) { applyWait(s, f.waitVm[i]!, f.waitLgkm[i]!, f.waitExp[i]!); return; }
  if (sp === 2) { s.reset(); return; }
  const x1 = f.issOff[i + 1]!;
  for (let x = f.issOff[i]!; x < x1; x++) {
    const w = f.issCls[x]!;
    const v = bump(s, w, f.issInc[x]!);
    const base = w * NU;
    for (let p = f.unitOff[x]!; p < f.unitOff[x + 1]!; p++) writeScore(s, base + f.issUnits[p]!, v, log);
  }
}

/** One score write (recorded in `log` when given). */
function writeScore(s: CounterScores, at: number, v: number, log: ScoreLog | undefined): void {
  if (log) log.push(at, s.score[at]!);
  s.score[at] = v;
}

/**
 * Waits a sequence needs from a starting state (which is updated). Returns the number of
 * waits; `out`, when given, receives (position in seq, vm, lgkm, exp) for each (-1 = none).
 */
export function sequenceWaits(f: FlatEffects, s: CounterScores, seq: ArrayLike<number>, max: CounterMax, need: Int32Array,
  out?: { at: number; vm: number; lgkm: number; exp: number }[]): number {
  let waits = 0;
  for (let p = 0; p < seq.length; p++) {
    const i = seq[p]!;
    if (f.special[i] !== 1 && needBefore(f, s, i, need, max)) {
      waits++;
      applyWait(s, need[0]!, need[1]!, need[2]!);
      if (out) out.push({ at: p, vm: need[0]! >= NONE ? -1 : need[0]!, lgkm: need[1]! >= NONE ? -1 : need[1]!, exp: need[2]! >= NONE ? -1 : need[2]! });
    }
    issue(f, s, i);
  }
  return waits;
}

/**
 * Marks whether score `at` now differs from the last run's value there (`differs`), returning the
 * change in the count of differing scores.
 */
function restate(sc: Int32Array, lastValue: Int32Array, differs: Uint8Array, at: number): number {
  const d = sc[at] !== lastValue[at] ? 1 : 0;
  const change = d - differs[at]!;
  differs[at] = d;
  return change;
}

/** Scratch of IncrementalWaits.park: the indexes of the nonzero scores. */
const PARK_SCRATCH = new Int32Array(NW * NU);

/**
 * Scratch of IncrementalWaits.run (one run at a time per thread): the scores written since the
 * run's start by either run (`seen` stamped with the run's epoch, listed in `touched`), the last
 * run's value of each, and whether this run's value differs from it (`differs`, valid where
 * `seen` is this epoch).
 */
const RUN_SCRATCH = {
  seen: new Int32Array(NW * NU), touched: new Int32Array(NW * NU), lastValue: new Int32Array(NW * NU), differs: new Uint8Array(NW * NU), epoch: 0,
};

/**
 * sequenceWaits of one sequence kept up to date as the sequence changes, in time proportional
 * to the change: the state after the last sequence run and a log of its score writes, so that a
 * new sequence resumes from the first position where it differs (the state is taken back there:
 * score writes undone, window bounds restored) instead of from the start. Per position it keeps
 * the wait found there, and the running count.
 */
export class IncrementalWaits {
  /** Positions of the sequence. */
  readonly m: number;
  /** The sequence last run (valid when `ran`). */
  readonly seq: Int32Array;
  /** Per position: the wait found before it (counter values, -1 = that counter not waited on), `has` 1 when there is one. */
  readonly vm: Int16Array;
  readonly lgkm: Int16Array;
  readonly exp: Int16Array;
  readonly has: Uint8Array;
  /** waits[p]: waits before position p. */
  readonly waits: Int32Array;
  private ran = false;
  /**
   * Operations pending per class at the end of the last sequence run (a run that stops early
   * meets the last run's state, so its end is the last run's end).
   */
  readonly endPending = new Int32Array(NW);
  /** Positions the last run went through (from its first change to the end). */
  stepped = 0;
  /** Runs that stopped where some score still differed from the last run's, pending in neither (for tests). */
  settledStops = 0;
  /** The state (see `cur`); while parked, a fresh one is made or lent on the next run. */
  private state: CounterScores;
  /**
   * While parked (park): the state's window bounds (ub, then lb) and its nonzero scores (index,
   * value), the dense state itself given up for another run to use.
   */
  private parkedState: Int32Array | undefined;
  /** Per position p (and m, the end): the window bounds (ub, then lb) of the state before p. */
  private readonly bounds: Int32Array;
  private readonly logAt: Int32Array;
  private readonly log = new ScoreLog();
  /** The state is the one before position `cur` of `seq` (m once a run went to the end: a run that stops early takes over the rest of the last one). */
  private cur = 0;
  /**
   * The last run's score writes from the position a new run starts at (index, value written).
   * Those of position p begin at logAt[p] - oldKeep: a run writes logAt[p] only once it has read
   * the last run's writes at p (and adoptOld reads them before it writes logAt from p on).
   */
  private oldIdx = new Int32Array(64);
  private oldVal = new Int32Array(64);
  private oldKeep = 0;
  /** The last run's waits before the position after the one being run. */
  private oldWaits = 0;

  /** @param state the dense state to run in (default a new one; its scores must all be 0) */
  constructor(private readonly f: FlatEffects, private readonly entry: ScoreSource, private readonly max: CounterMax, m: number,
    state?: CounterScores) {
    this.m = m;
    this.state = state ?? new CounterScores();
    this.seq = new Int32Array(m);
    this.vm = new Int16Array(m); this.lgkm = new Int16Array(m); this.exp = new Int16Array(m);
    this.has = new Uint8Array(m);
    this.waits = new Int32Array(m + 1);
    this.bounds = new Int32Array((m + 1) * 2 * NW);
    this.logAt = new Int32Array(m + 1);
  }

  /**
   * Run `seq` (length m) from the entry state; returns the number of waits (sequenceWaits' count).
   * The state is kept at position `cur` of the last sequence (its log covers the positions
   * before). A new sequence starts from its first changed position (or `cur`, if earlier) and,
   * past its last changed position, stops as soon as its state equals the last run's state at the
   * same position as the wait model sees it (CounterScores.equals): window bounds equal, and every
   * score either run wrote since the start equal or pending in neither run (at or below its
   * window's lower bound in both: such a score never makes an instruction wait again, as lower
   * bounds only rise, until an operation stamps the unit anew, the same one in both runs). From
   * there on both runs do the same, so the last run's waits stand. The scores that differ are
   * counted as they are written, so the test costs nothing while none differs; when some do,
   * they are looked at only where the bounds are equal, the one found pending first.
   * `changedFrom` and `changedLast`, when given: the caller knows that `seq` differs from the
   * sequence last run only in positions [changedFrom, changedLast] (none when changedFrom >
   * changedLast), which then need not be looked for.
   */
  run(seq: ArrayLike<number>, need: Int32Array, changedFrom = -1, changedLast = -1): number {
    if (this.parkedState !== undefined) this.unpark(new CounterScores());
    const m = this.m;
    const st = this.state;
    let from = 0;
    let last = m - 1;
    let oldCur = 0;
    if (this.ran) {
      if (changedFrom >= 0) { from = changedFrom > changedLast ? m : changedFrom; last = changedLast; } else {
        while (from < m && this.seq[from] === seq[from]) from++;
        if (from < m) while (last > from && this.seq[last] === seq[last]) last--;
      }
      if (from === m) { this.stepped = 0; return this.waits[m]!; }
      oldCur = this.cur;
      if (from > oldCur) from = oldCur;
      // back to the state before position `from`, keeping what the last run wrote there and after
      const keep = this.logAt[from]!;
      const oldEntries = this.log.length - keep;
      if (this.oldIdx.length < oldEntries) { this.oldIdx = new Int32Array(oldEntries * 2); this.oldVal = new Int32Array(oldEntries * 2); }
      const sc = st.score;
      for (let x = this.log.length - 1; x >= keep; x--) {
        const at = this.log.index[x]!;
        this.oldIdx[x - keep] = at;
        this.oldVal[x - keep] = sc[at]!;
        sc[at] = this.log.old[x]!;
      }
      this.log.length = keep;
      this.oldKeep = keep;
      const b = from * 2 * NW;
      for (let w = 0; w < NW; w++) { st.ub[w] = this.bounds[b + w]!; st.lb[w] = this.bounds[b + NW + w]!; }
    } else {
      this.entry.writeTo(st);
      this.log.length = 0;
      this.ran = true;
    }
    // the scores either run wrote since `from`, with the last run's value at the current position,
    // and how many of them differ from it in this run
    const { seen, touched, lastValue, differs } = RUN_SCRATCH;
    const epoch = ++RUN_SCRATCH.epoch;
    let differ = 0;
    let nt = 0;
    // a differing score found pending at the last test (looked at first: it is likely to still be)
    let blocker = -1;
    const f = this.f;
    const sc = st.score;
    const lb = st.lb;
    for (let p = from; p < m; p++) {
      if (p > last && p <= oldCur && p > from) {
        // the same state as the last run's here?
        const b = p * 2 * NW;
        let same = true;
        for (let w = 0; w < NW && same; w++) same = st.ub[w] === this.bounds[b + w] && lb[w] === this.bounds[b + NW + w];
        if (same && differ !== 0) {
          // the bounds are the last run's: a differing score pending in neither run changes nothing
          if (blocker >= 0 && differs[blocker] === 1) {
            const l = lb[(blocker / NU) | 0]!;
            if (sc[blocker]! > l || lastValue[blocker]! > l) same = false;
          }
          for (let x = 0; x < nt && same; x++) {
            const at = touched[x]!;
            if (differs[at] === 0) continue;
            const l = lb[(at / NU) | 0]!;
            if (sc[at]! > l || lastValue[at]! > l) { same = false; blocker = at; }
          }
        }
        if (same) {
          if (differ !== 0) this.settledStops++;
          const delta = this.waits[p]! - this.oldWaits;
          if (delta !== 0) for (let q = p + 1; q <= m; q++) this.waits[q]! += delta;
          this.adoptOld(p, oldCur);
          this.stepped = p - from;
          return this.waits[m]!;
        }
      }
      // the last run's writes at p
      if (p < oldCur) {
        const x1 = this.logAt[p + 1]! - this.oldKeep;
        for (let x = this.logAt[p]! - this.oldKeep; x < x1; x++) {
          const at = this.oldIdx[x]!;
          if (seen[at] !== epoch) { seen[at] = epoch; differs[at] = 0; touched[nt++] = at; }
          lastValue[at] = this.oldVal[x]!;
          differ += restate(sc, lastValue, differs, at);
        }
      }
      const i = seq[p]!;
      this.seq[p] = i;
      this.saveBounds(p);
      const logged = this.log.length;
      this.logAt[p] = logged;
      let n = this.waits[p]!;
      if (f.special[i] !== 1 && needBefore(f, st, i, need, this.max)) {
        n++;
        applyWait(st, need[0]!, need[1]!, need[2]!);
        this.has[p] = 1;
        this.vm[p] = need[0]! >= NONE ? -1 : need[0]!;
        this.lgkm[p] = need[1]! >= NONE ? -1 : need[1]!;
        this.exp[p] = need[2]! >= NONE ? -1 : need[2]!;
      } else this.has[p] = 0;
      this.oldWaits = this.waits[p + 1]!;
      this.waits[p + 1] = n;
      issue(f, st, i, this.log);
      // this run's writes at p: a score the last run had not written since `from` had the value it had before
      for (let x = logged; x < this.log.length; x++) {
        const at = this.log.index[x]!;
        if (seen[at] !== epoch) { seen[at] = epoch; differs[at] = 0; lastValue[at] = this.log.old[x]!; touched[nt++] = at; }
        differ += restate(sc, lastValue, differs, at);
      }
    }
    this.logAt[m] = this.log.length;
    this.saveBounds(m);
    this.cur = m;
    this.stepped = m - from;
    st.pendingPerClass(this.max, this.endPending);
    return this.waits[m]!;
  }

  /** Whether the state is parked (park), to be unparked before the next run or made anew by it. */
  get parked(): boolean { return this.parkedState !== undefined; }

  /**
   * Keep the state at the size of what it holds, its window bounds and nonzero scores (a few
   * dozen numbers, where the dense state is 37 KB), and give up the dense state, its scores
   * set back to 0, for another run to use (the `state` of unpark or of the constructor). Every
   * score comes back as it was on unpark: nothing is lost.
   */
  park(): CounterScores {
    if (this.parkedState !== undefined) throw new Error('internal: IncrementalWaits parked twice');
    const st = this.state;
    const sc = st.score;
    const at = PARK_SCRATCH;
    let n = 0;
    for (let x = 0; x < sc.length; x++) if (sc[x] !== 0) at[n++] = x;
    const kept = new Int32Array(2 * NW + 2 * n);
    kept.set(st.ub, 0);
    kept.set(st.lb, NW);
    for (let y = 0; y < n; y++) { const x = at[y]!; kept[2 * NW + 2 * y] = x; kept[2 * NW + 2 * y + 1] = sc[x]!; sc[x] = 0; }
    this.parkedState = kept;
    return st;
  }

  /** Take the dense state `s` (its scores all 0, as park gives it up) and write the parked state back into it. */
  unpark(s: CounterScores): void {
    const kept = this.parkedState;
    if (kept === undefined) throw new Error('internal: IncrementalWaits unparked while not parked');
    const sc = s.score;
    for (let y = 2 * NW; y < kept.length; y += 2) sc[kept[y]!] = kept[y + 1]!;
    s.ub.set(kept.subarray(0, NW));
    s.lb.set(kept.subarray(NW, 2 * NW));
    this.state = s;
    this.parkedState = undefined;
  }

  /** Keep the window bounds of the state before position p (p = m: after the last). */
  private saveBounds(p: number): void {
    const st = this.state;
    const b = p * 2 * NW;
    for (let w = 0; w < NW; w++) { this.bounds[b + w] = st.ub[w]!; this.bounds[b + NW + w] = st.lb[w]!; }
  }

  /**
   * The state before position p is the last run's as the model sees it: take over the last
   * run's score writes from p to where that run ended (oldCur), logged as this run's, so that
   * the state is kept at oldCur as before. From p on both runs issue the same operations with
   * the same window bounds, so each write sets the value it set in the last run; a score
   * neither run writes after p keeps this run's value (equal to the last run's, or pending in
   * neither).
   */
  private adoptOld(p: number, oldCur: number): void {
    const sc = this.state.score;
    const x0 = this.logAt[p]! - this.oldKeep;
    const x1 = this.logAt[oldCur]! - this.oldKeep;
    const base = this.log.length;
    for (let x = x0; x < x1; x++) { const at = this.oldIdx[x]!; this.log.push(at, sc[at]!); sc[at] = this.oldVal[x]!; }
    // (logAt[q] - oldKeep is the last run's writes at q, read before logAt[q] is written)
    for (let q = p; q <= oldCur; q++) this.logAt[q] = base + (this.logAt[q]! - this.oldKeep) - x0;
    const b = oldCur * 2 * NW;
    for (let w = 0; w < NW; w++) { this.state.ub[w] = this.bounds[b + w]!; this.state.lb[w] = this.bounds[b + NW + w]!; }
    this.cur = oldCur;
  }
}

export interface KernelWaits {
  /** State right before each instruction the caller asked about (`at`). */
  before: Map<number, ScoreSnapshot>;
  /** State right after each instruction the caller asked about (`after`). */
  after: Map<number, ScoreSnapshot>;
  /** Waits to insert before instruction i (counter values, -1 = not waited on). */
  inserted: Map<number, { vm: number; lgkm: number; exp: number }>;
  /** Blocks run, over all passes (for the bench and tests). */
  blockRuns: number;
}

/**
 * Passes over the CFG before the pass gives up (and throws: an answer short of the fixed point
 * would understate what is pending at loop heads). A pass that changes something raises a
 * pending count or strengthens an inserted wait; around a loop that issues an operation and
 * never waits, the pending count of its window grows by one per pass until the counter's width
 * makes more alike (CounterScores.equals; 64 passes for vmcnt on GFX9), so the bound is twice
 * the counters' widths together.
 */
function maxPasses(max: CounterMax): number {
  return 2 * (max.vm + max.lgkm + max.exp + NW) + 4;
}

/**
 * The whole-kernel pass: forward over the CFG to a fixed point, applying the waits present and
 * inserting the missing ones (strengthened only, so the iteration ends). `skip` marks waits to
 * ignore (stripped). `at` lists instructions whose entry state the caller wants.
 *
 * A block is run again in a later pass only when its entry state can differ from its last run:
 * when the exit state of one of its predecessors changed since (each exit carries a version that
 * every change raises). A block's run is a function of its entry state (its predecessors' exits,
 * joined in their order) and of the waits inserted in the block, which only its own runs change
 * and which a run from the same entry leaves as they are (it finds the same needs, already
 * applied); so a block not run again would produce the same state, the same snapshots and the
 * same inserted waits, and its exit, which only its own runs write and which equals that state,
 * would not change. `accept` must answer from its arguments alone. `rerunAll` runs every block
 * in every pass (the plain round-robin iteration); with `check` (default: CONDUCTOR_CHECK_FAST=1)
 * the pass is run both ways and FastPathMismatch is thrown when they differ.
 */
export function kernelWaits(cfg: Cfg, f: FlatEffects, max: CounterMax,
  opts: {
    skip?: Uint8Array; at?: readonly number[]; after?: readonly number[];
    /** Decide whether a missing wait is inserted (default: always); a refused one is not applied either. */
    accept?: (i: number, w: { vm: number; lgkm: number; exp: number }) => boolean;
    /** Waits inserted whatever the state (before instruction i). */
    forced?: ReadonlyMap<number, { vm: number; lgkm: number; exp: number }>;
    /** Run every block in every pass (the iteration the reuse of unchanged blocks is checked against). */
    rerunAll?: boolean;
    /** Also run every block in every pass and compare (default: CONDUCTOR_CHECK_FAST=1). */
    check?: boolean;
    /**
     * States the pass may take for its blocks' exits, and gets back with its own when done: a
     * caller running passes in a row (scheduleWaits' rounds) hands the same list to each and
     * drops it after the last. A CounterScores holds a score per register unit and class (37 KB),
     * which V8 makes in 20-60 us (its memory counts as external, which brings on collections);
     * one pass keeps one per block.
     */
    spare?: CounterScores[];
  } = {}): KernelWaits {
  const out = wholeKernelPass(cfg, f, max, opts, opts.rerunAll ?? false);
  if (!opts.rerunAll && (opts.check ?? checkFastFromEnv())) {
    const whole = wholeKernelPass(cfg, f, max, opts, true);
    const why = kernelWaitsDifference(out, whole);
    if (why) throw new FastPathMismatch(`fast path check: the whole-kernel wait pass that runs only blocks whose entry changed differs from the pass that runs every block: ${why}`);
  }
  return out;
}

/** Where two results of kernelWaits differ (undefined: they do not; `blockRuns` aside). */
export function kernelWaitsDifference(a: KernelWaits, b: KernelWaits): string | undefined {
  const ins = (m: KernelWaits['inserted']) => [...m].map(([i, w]) => `${i}:${w.vm},${w.lgkm},${w.exp}`).join(' ');
  if (ins(a.inserted) !== ins(b.inserted)) return `inserted waits ${ins(a.inserted)} vs ${ins(b.inserted)}`;
  for (const key of ['before', 'after'] as const) {
    const x = a[key];
    const y = b[key];
    if (x.size !== y.size) return `${x.size} vs ${y.size} states ${key}`;
    const ky = [...y.keys()];
    let n = 0;
    for (const [i, sx] of x) {
      if (ky[n++] !== i) return `the states ${key} are kept in another order at instruction ${i}`;
      const sy = y.get(i)!;
      if (!sameInts(sx.ub, sy.ub) || !sameInts(sx.lb, sy.lb) || !sameInts(sx.at, sy.at) || !sameInts(sx.val, sy.val)) return `the state ${key} instruction ${i}`;
    }
  }
  return undefined;
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let x = 0; x < a.length; x++) if (a[x] !== b[x]) return false;
  return true;
}

function wholeKernelPass(cfg: Cfg, f: FlatEffects, max: CounterMax,
  opts: Parameters<typeof kernelWaits>[3] & object, rerunAll: boolean): KernelWaits {
  const nb = cfg.blocks.length;
  const exit: (CounterScores | undefined)[] = new Array(nb);
  // exit[b]'s version (raised whenever it changes; 0: not computed yet), and per block the
  // versions of its predecessors' exits when it last ran (null: it has not run)
  const version = new Uint32Array(nb);
  let clock = 0;
  const ranWith: (Uint32Array | null)[] = new Array(nb).fill(null);
  const inserted = new Map<number, { vm: number; lgkm: number; exp: number }>();
  const want = new Set(opts.at ?? []);
  const wantAfter = new Set(opts.after ?? []);
  const before = new Map<number, ScoreSnapshot>();
  const after = new Map<number, ScoreSnapshot>();
  if (opts.forced) for (const [i, w] of opts.forced) inserted.set(i, { ...w });
  const need = new Int32Array(3);
  const s = new CounterScores();
  const passes = maxPasses(max);
  let blockRuns = 0;
  for (let iter = 0; ; iter++) {
    if (iter === passes) throw new Error(`internal: the scheduler's wait model did not reach a fixed point in ${passes} passes over the CFG`);
    let changed = false;
    for (const b of cfg.blocks) {
      const preds = b.preds;
      let last = ranWith[b.id]!;
      if (last !== null && !rerunAll) {
        let same = true;
        for (let x = 0; x < preds.length; x++) if (version[preds[x]!] !== last[x]) { same = false; break; }
        if (same) continue;
      }
      if (last === null) last = ranWith[b.id] = new Uint32Array(preds.length);
      for (let x = 0; x < preds.length; x++) last[x] = version[preds[x]!]!;
      blockRuns++;
      let started = false;
      for (const p of preds) {
        const e = exit[p];
        if (!e) continue;
        if (!started) { s.copy(e); started = true; } else s.merge(e);
      }
      if (!started) { s.copy(EMPTY_STATE); }
      for (let i = b.start; i < b.end; i++) {
        if (want.has(i)) before.set(i, new ScoreSnapshot(s));
        if (f.special[i] === 1 && opts.skip?.[i]) continue;
        if (f.special[i] !== 1 && needBefore(f, s, i, need, max)) {
          const cur = inserted.get(i);
          const vm = need[0]! >= NONE ? -1 : need[0]!;
          const lgkm = need[1]! >= NONE ? -1 : need[1]!;
          const exp = need[2]! >= NONE ? -1 : need[2]!;
          if (opts.accept && !opts.accept(i, { vm, lgkm, exp })) {
            // not accepted: trust the program here (a forced wait stays as it is)
          } else if (!cur) { inserted.set(i, { vm, lgkm, exp }); changed = true; } else {
            const m = (a: number, b2: number) => (a < 0 ? b2 : b2 < 0 ? a : Math.min(a, b2));
            const nv = { vm: m(cur.vm, vm), lgkm: m(cur.lgkm, lgkm), exp: m(cur.exp, exp) };
            if (nv.vm !== cur.vm || nv.lgkm !== cur.lgkm || nv.exp !== cur.exp) { inserted.set(i, nv); changed = true; }
          }
        }
        const ins = inserted.get(i);
        if (ins) applyWait(s, ins.vm, ins.lgkm, ins.exp);
        issue(f, s, i);
        if (wantAfter.has(i)) after.set(i, new ScoreSnapshot(s));
      }
      const old = exit[b.id];
      if (!old) { exit[b.id] = takeScores(s, opts.spare); version[b.id] = ++clock; changed = true; } else if (!old.equals(s, max)) { old.copy(s); version[b.id] = ++clock; changed = true; }
    }
    if (!changed) break;
  }
  // the exits end with the pass (what it returns are snapshots)
  if (opts.spare) for (const e of exit) if (e) opts.spare.push(e);
  return { before, after, inserted, blockRuns };
}

/** A copy of `s`, in a state of `spare` when it has one. */
function takeScores(s: CounterScores, spare: CounterScores[] | undefined): CounterScores {
  const o = spare?.pop();
  if (!o) return s.clone();
  o.copy(s);
  return o;
}

const EMPTY_STATE = new CounterScores();
