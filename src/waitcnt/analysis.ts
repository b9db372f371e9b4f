/**
 * Waitcnt analysis of one kernel: forward dataflow over the CFG to a fixed point (block entry
 * state = pessimistic join of the predecessors' exit states), then one reporting pass.
 *
 * Before every instruction the analysis works out what must be complete:
 *  - RAW: a register it reads that a pending VMEM / DS / FLAT / SMEM operation will write;
 *  - WAW: a register it writes that a pending operation will write, except a VMEM load over a
 *    pending VMEM load (VMEM writes VGPRs in issue order; SIInsertWaitcnts) and an LDS load over
 *    a pending LDS load (LDS returns in order; model.ts InsnEffects.inOrderClass);
 *  - WAR: a register it writes that a pending export / GDS operation still reads (expcnt);
 *  - LDS after LDS-DMA: a DS (or FLAT) instruction while an LDS-DMA may be writing LDS;
 *  - EXEC written while an export / GDS operation is pending: expcnt(0) (SIInsertWaitcnts);
 *  - s_barrier on targets without 'back-off-barrier' (gfx906, gfx908): everything (SIInsertWaitcnts);
 *  - a return (s_setpc_b64 that is not a long branch): everything (SIInsertWaitcnts);
 *  - the first instruction of a callable function: everything the caller may have left
 *    outstanding (SIInsertWaitcnts waits for all counters at function entry).
 * The weakest wait that satisfies it is applied (as if inserted right before the instruction),
 * so each missing wait is reported once, at the first instruction that needs it; the set of
 * such waits is exactly `minimalWaits`.
 *
 * Calls (s_swappc_b64 / s_call_b64): the call's own operands are checked like any read; after
 * the call every counter is taken as zero (the callee waits before it returns), except for a
 * call of a subroutine inside the kernel (model.ts, `callWaits`), which leaves the counters as
 * they are. s_endpgm needs
 * nothing: the wave may end with operations in flight (LLVM inserts no wait there on GFX9,
 * SIInsertWaitcnts; the project's CDNA4 scheduling notes say s_endpgm waits implicitly).
 *
 * Existing waits are judged with "shadows" (state.ts): a read (or overwrite) of a register whose
 * operation was completed by an existing wait is charged to the first wait on the path that
 * completed it, with the weakest value of that wait that still completes it; a wait's weakest
 * safe value is the smallest value charged to it. Weakening every wait to its weakest value at
 * once keeps every read covered: whether a wait completes an operation depends only on the
 * number of same-class operations issued between them, not on the other waits.
 *
 * Fences: waits that order memory for other waves or agents rather than for a register of this
 * wave are never reported as redundant or too strong, and are kept when dependency waits are
 * stripped for rescheduling:
 *  - 'barrier': followed (after other waits / s_nop) by s_barrier (release before the barrier;
 *    on gfx906/gfx908 also the wait the barrier requires);
 *  - 'cache': followed by a cache writeback / invalidate (buffer_wbl2, buffer_inv,
 *    buffer_wbinvl1*, s_dcache_*), or right after a writeback: the memory model's acquire/release
 *    sequences (their missing waits: SOURCES.release and .acquire);
 *  - 'return' / 'entry': the full waits around a callable function;
 *  - 'store': it completes a store, atomic without return or message that no
 *    register dependency needs it to complete, and a memory access, barrier, branch or message
 *    follows in its block before any s_endpgm (a release: e.g. LLVM's workgroup release fence
 *    becomes a bare lgkmcnt(0) after ds_write when no s_barrier is needed). A wait whose only
 *    effect is to let stores finish right before s_endpgm is not a fence: it is reported;
 *  - 'volatile': vmcnt(0) right after (only waits and nops between) a vector memory access
 *    written with glc, sc0 or sc1 that no register read needs: how LLVM completes a volatile
 *    access at system scope before anything else (SIMemoryLegalizer
 *    enableVolatileAndOrNonTemporal, then a wait; a new user's trial: "can be removed" after
 *    each volatile load of llc's output). A wait a read needs there stays a dependency wait.
 */
import type { Finding, KernelContext, Related } from '../analysis/types.js';
import { keep, kept, once } from '../analysis/memo.js';
import { M0, unitsToString } from '../asm/registers.js';
import { statementAt } from '../asm/program.js';
import { unitsAsWritten } from '../isa/names.js';
import { isClass, traitsOf } from '../isa/traits.js';
import {
  CLASS_COUNTER, CLASS_IN_ORDER, CLASS_NAMES, COHERENT_LOAD, COUNTER, COUNTER_CLASSES, COUNTER_NAMES, INSN_KIND, LDS_MEM, LDS_QUIET, NCLASSES, NO_WAIT, OP_CLASS, SOURCES, STORES, WRITEBACK, counterMax, kernelEffects, writtenCoherent, type InsnEffects,
} from './model.js';
import { CounterState, joinInto, meetInto, mergedShadows, sameCore, type Ent, type Shadow } from './state.js';
import { afterInsn, commonFacts, edgeConditions, factsKey, feasibleSuccessors, liveConditions, sameShape, widenFacts, type PathFact } from './paths.js';
import { lineAt } from '../asm/include.js';
import type { Loc } from '../asm/ast.js';

/** Path partitions kept apart per block before they are merged (paths.ts). */
const MAX_PARTITIONS = 16;

export type Counts = [vm: number, lgkm: number, exp: number];

/** Why an instruction needs a wait. */
export type NeedReason = 'raw' | 'waw' | 'war' | 'lds-dma' | 'exec' | 'barrier' | 'return' | 'entry' | 'release' | 'acquire';

export interface AnalysisOptions {
  /** Track shadows to judge existing waits (checkWaitcnt); not needed for minimalWaits. */
  judge?: boolean;
  /** s_waitcnt instructions to treat as absent (dependency waits stripped for rescheduling). */
  skip?: ReadonlySet<number>;
  /** Record, before every instruction, the bound on outstanding operations per counter (`pendAt`). */
  pendAt?: boolean;
  /**
   * How a result is waited for while other kinds of operation are pending on the same counter:
   *  - 'per-type' (default): its own type's order still holds (CDNA3 ISA §4.4: "Instructions of
   *    the same type are returned in the order they were issued"), so an LDS result with k later
   *    LDS operations needs lgkmcnt(k) even with SMEM pending;
   *  - 'force-zero': LLVM's rule (SIInsertWaitcnts): any mix of types on the counter forces 0.
   */
  mixed?: 'per-type' | 'force-zero';
  /**
   * Merge paths optimistically (state.ts meetInto), insert no wait, and report in `everyPath`
   * the waits the program as written needs on every path into an instruction. Not for anything
   * else: its insertions are not safe.
   */
  meet?: boolean;
  /**
   * Run every block once more from the fixed point for the report instead of reading the records
   * of each path class's latest run (the reference a test compares the records with).
   */
  rerun?: boolean;
  /**
   * Only these instructions' results are wanted: blocks from which none of them can be reached
   * are not analysed (their states cannot flow into them), and every result about an instruction
   * of such a block is absent. What is reported about the analysed blocks' instructions is what
   * the whole analysis reports (unless the whole analysis runs out of its step budget, the safety
   * net that merges every block's path classes).
   */
  only?: ReadonlySet<number>;
  /**
   * Instructions whose entry state is wanted (`states`): the counter state right before each,
   * before its own wait or any wait inserted there, joined over the path classes that reach it.
   */
  statesAt?: ReadonlySet<number>;
}

export type FenceKind = 'barrier' | 'cache' | 'return' | 'entry' | 'store' | 'volatile';

/** What the analysis found about one existing s_waitcnt. */
export interface WaitJudgement {
  insn: number;
  /** Values as written ([vm, lgkm, exp]; NO_WAIT = not waited on). */
  values: Counts;
  /** Per counter: something may be outstanding above the value (the wait can stall). */
  effect: [boolean, boolean, boolean];
  /** Per counter: the weakest value the reads after it need (NO_WAIT = none). */
  weakest: Counts;
  fence?: FenceKind;
  /** No path from the kernel entry reaches it (not judged). */
  unreachable: boolean;
  /**
   * fence: orders memory for others (never judged); needed: no weaker value is safe (or a
   * missing wait right after it will be merged into it); redundant: nothing it names can be
   * outstanding; too-strong: `weakest` is weaker on some counter (NO_WAIT everywhere: not
   * needed at all); unreachable: no path from the entry reaches it.
   */
  verdict: 'fence' | 'needed' | 'redundant' | 'too-strong' | 'unreachable';
}

/** One wait the analysis inserts (the weakest values), right before instruction `before`. */
export interface WaitInsertion {
  before: number;
  /** Values per counter; undefined = not waited on. */
  vmcnt?: number;
  lgkmcnt?: number;
  expcnt?: number;
}

interface NeedDetail {
  c: number;
  value: number;
  /** Same-class operations issued after the producer (when the value is a count). */
  younger?: number;
  reason: NeedReason;
  producer: number;
  units: number[];
  cls: number;
}

/** What a missing wait is for: the counter, and (when a register needs it) the producer's class and a unit. */
export interface MissingNeed {
  c: number;
  reason: NeedReason;
  producer: number;
  cls: number;
  units: readonly number[];
}

export interface WaitcntResult {
  /** 'waitcnt-missing' and 'waitcnt-fence' errors. */
  missing: Finding[];
  /** For each of `missing` (same order), what it needs. */
  missingNeeds: MissingNeed[];
  insertions: WaitInsertion[];
  judgements: WaitJudgement[];
  /**
   * With `pendAt`: for instruction i, entries 3i..3i+2 bound the operations that may be
   * outstanding on vmcnt, lgkmcnt, expcnt when it issues (after the waits right before it,
   * before any wait the analysis inserts); -1 for instructions after an s_endpgm in a block.
   */
  pendAt?: Int32Array;
  /** With `meet`: keys `3 * insn + counter` of the waits needed on every path into the instruction. */
  everyPath?: Set<number>;
  /** With `statesAt`: the state before each of those instructions that a path reaches. */
  states?: Map<number, CounterState>;
}

const INF = NO_WAIT;

/**
 * The waitcnt analysis of a kernel. Without `skip` or `only` the result is kept on the context
 * (analysis/memo.ts): checking a program, finding its fences and judging its waits read one
 * analysis; a run with `statesAt` keeps the same run without its states.
 */
export function analyzeWaitcnt(ctx: KernelContext, opts: AnalysisOptions = {}): WaitcntResult {
  if (opts.skip || opts.only) return new Analysis(ctx, kernelEffects(ctx), opts).run();
  if (opts.statesAt) {
    // the states are recorded beside the run and change nothing in it: the run without them is
    // kept too (the scheduler's Evaluator asks for states, emission for the same run's waits)
    const r = new Analysis(ctx, kernelEffects(ctx), opts).run();
    const { states: _states, ...plain } = r;
    keep(ctx, analysisKey(opts), plain);
    return r;
  }
  return once(ctx, analysisKey(opts), () => new Analysis(ctx, kernelEffects(ctx), opts).run());
}

/** The analysis `analyzeWaitcnt(ctx, opts)` keeps for `ctx`, when it was made (this computes nothing). */
export function keptAnalysis(ctx: KernelContext, opts: AnalysisOptions = {}): WaitcntResult | undefined {
  return kept<WaitcntResult>(ctx, analysisKey(opts));
}

function analysisKey(opts: AnalysisOptions): string {
  return `analyzeWaitcnt ${opts.judge ? 'judge' : ''} ${opts.mixed ?? 'per-type'} ${opts.pendAt ? 'pendAt' : ''} ${opts.meet ? 'meet' : ''} ${opts.rerun ? 'rerun' : ''}`;
}

/** What an s_waitcnt stands right in front of (other waits and nops between): where memory ordering is observed. */
export type FenceTarget = 'barrier' | 'cache' | 'return' | 'message' | 'call';

/** Where an s_waitcnt stands: in front of a fence target, and/or at the entry of a callable function. */
export interface WaitPosition {
  before?: FenceTarget;
  /** Only waits and nops before it in the entry block of a callable function. */
  entry: boolean;
  /**
   * After a cache writeback (buffer_wbl2), with only instructions that count nothing between: a
   * release's wait, which completes what the writeback follows (SOURCES.release).
   */
  afterWriteback?: true;
  /** vmcnt(0) right after a vector memory access written with glc, sc0 or sc1 (only waits and nops between): a volatile access's completion. */
  afterCoherent?: true;
}

/**
 * The position of every s_waitcnt of a kernel. The waitcnt analysis judges a wait before a
 * barrier, a cache operation or a return, or at a function's entry, as a fence (see the file
 * comment); the scheduler pins a wait before any fence target (src/schedule/kernel.ts).
 */
export function waitPositions(ctx: KernelContext, fx: InsnEffects[] = kernelEffects(ctx)): Map<number, WaitPosition> {
  const out = new Map<number, WaitPosition>();
  const callable = isCallable(ctx);
  const t = traitsOf(ctx.insns);
  const skipped = (k: number) => fx[k]!.kind === INSN_KIND.wait || fx[k]!.kind === INSN_KIND.nop;
  for (const b of ctx.cfg.blocks) {
    for (let i = b.start; i < b.end; i++) {
      if (fx[i]!.kind !== INSN_KIND.wait) continue;
      let j = i + 1;
      while (j < b.end && skipped(j)) j++;
      const pos: WaitPosition = { entry: false };
      if (j < b.end) {
        const f = fx[j]!;
        if (f.kind === INSN_KIND.barrier) pos.before = 'barrier';
        else if (f.cacheOp) pos.before = 'cache';
        else if (f.kind === INSN_KIND.return) pos.before = 'return';
        else if (isClass(t, j, 'message')) pos.before = 'message';
        else if (f.kind === INSN_KIND.call) pos.before = 'call';
      }
      if (callable && b.id === 0) {
        let k = b.start;
        while (k < i && skipped(k)) k++;
        pos.entry = k === i;
      }
      for (let k = i - 1; k >= b.start && fx[k]!.issues.length === 0; k--) if (fx[k]!.writeback) { pos.afterWriteback = true; break; }
      if (fx[i]!.wait![COUNTER.vm] === 0) {
        let k = i - 1;
        while (k >= b.start && skipped(k)) k--;
        if (k >= b.start && coherentVectorAccess(ctx, fx, k)) pos.afterCoherent = true;
      }
      out.set(i, pos);
    }
  }
  return out;
}

/** The fence a wait's position makes it for the analysis (see the file comment), if any. */
function positionalFence(p: WaitPosition | undefined): FenceKind | undefined {
  if (!p) return undefined;
  if (p.before === 'barrier' || p.before === 'cache' || p.before === 'return') return p.before;
  if (p.afterWriteback) return 'cache';
  return p.entry ? 'entry' : undefined;
}

/** Instruction k counts on vmcnt and is written with glc, sc0 or sc1 (a volatile or coherent access). */
function coherentVectorAccess(ctx: KernelContext, fx: readonly InsnEffects[], k: number): boolean {
  if (!fx[k]!.issues.some((x) => CLASS_COUNTER[x.cls] === COUNTER.vm)) return false;
  return writtenCoherent(ctx.insns[k]!);
}

/** A callable function (entered through its label by a call), as opposed to a kernel or a snippet. */
export function isCallable(ctx: KernelContext): boolean {
  // the code before the first function (`(top level)`) is not entered by a call, even when it
  // starts with a label of its own
  const first = statementAt(ctx.program, ctx.kernel.start);
  return ctx.kernel.kind === 'function' && first?.kind === 'label' && first.name === ctx.kernel.name;
}

/**
 * What one run of a block from a path class records for the report: the missing waits (in
 * order), the bounds before each existing wait, the store needs charged to each, and with
 * `pendAt` / `meet` the bounds and visits per instruction. A path class keeps the records of
 * its latest run: at the fixed point that run started from its final state, so the report
 * reads them instead of running every block once more.
 */
interface Rec {
  missing: { i: number; d: NeedDetail }[];
  pendBefore: Map<number, Counts>;
  storeNeed: Map<number, Counts>;
  /** With `pendAt`: triples (instruction, counter, bound). */
  pendAt: number[];
  /** With `meet`: the instructions the run reached. */
  visits: number[];
  /** With `statesAt`: the state before each of those instructions the run reached. */
  states?: Map<number, CounterState>;
  /** The existing waits the run reached with an LDS-DMA pending (LDS_MEM or LDS_QUIET). */
  dmaBefore: Set<number>;
}

/** A path class of a block's entry (paths.ts): the facts its paths share and their counter state. */
interface Part { facts: PathFact[]; st: CounterState; dirty: boolean; rec?: Rec }

/**
 * One run of the analysis over a kernel, in named steps: `transfer` (one instruction),
 * `runBlock`, `join` (a block's state into a successor's path classes), `collapse` (a block's
 * path classes into one), `solve` (the worklist to a fixed point), then `report` (a last pass
 * over the fixed point recording missing waits) and `judge` (the verdict on each existing wait).
 */
class Analysis {
  private readonly judgeWaits: boolean;
  private readonly skip?: ReadonlySet<number>;
  private readonly max: Counts;
  private readonly capC: readonly number[];
  private readonly capY: readonly number[];
  private readonly backOff: boolean;
  private readonly cfg: KernelContext['cfg'];
  private readonly nb: number;
  private readonly callable: boolean;
  private readonly forceZero: boolean;
  private readonly meet: boolean;
  private readonly rerun: boolean;
  /** With `only`: 1 for the blocks analysed (those from which one of the instructions can be reached). */
  private readonly relevant?: Uint8Array;
  private readonly combine: (dst: CounterState, src: CounterState, capY: readonly number[]) => boolean;

  // ---- report records ----
  /** The records of the block run under way. */
  private rec: Rec | undefined;
  private readonly missingAt = new Map<number, NeedDetail & { insn: number }>();
  /** Edges b -> s the fixed point followed (key b * nb + s): the paths the analysis considers. */
  private readonly followed = new Set<number>();
  private readonly insert = new Map<number, Counts>();
  private readonly demand = new Map<number, Counts>();
  private readonly pendBefore = new Map<number, Counts>();
  /** The existing waits some path reaches with an LDS-DMA pending (Rec.dmaBefore). */
  private readonly dmaBefore = new Set<number>();
  private readonly storeNeed = new Map<number, Counts>();
  private readonly unreachableBlock: Uint8Array;
  private readonly pendAt?: Int32Array;
  /** With `meet`: how many path classes reach each instruction, and how many of them need a wait per counter. */
  private readonly visits?: Int32Array;
  private readonly needs?: Int32Array;
  private readonly statesAt?: ReadonlySet<number>;
  private readonly states?: Map<number, CounterState>;

  // ---- per-instruction scratch ----
  private readonly needV: number[] = [INF, INF, INF];
  private readonly needD: (NeedDetail | undefined)[] = [undefined, undefined, undefined];
  /** The LDS-after-LDS-DMA needs, apart (a warning: SOURCES.ldsDma). */
  private readonly ldsV: number[] = [INF, INF, INF];
  private readonly ldsD: (NeedDetail | undefined)[] = [undefined, undefined, undefined];

  // ---- fixed point over path partitions (paths.ts) ----
  private readonly inParts: (Map<string, Part> | undefined)[];
  private readonly collapsed: Uint8Array;
  private readonly conds: ReturnType<typeof edgeConditions>;
  private readonly live: ReturnType<typeof liveConditions>;
  private readonly order: number[];
  private readonly rank: Int32Array;
  /** Loop headers: targets of an edge that does not go forward in reverse post-order. */
  private readonly header: Uint8Array;
  private budget: number;

  constructor(private readonly ctx: KernelContext, private readonly fx: InsnEffects[], opts: AnalysisOptions) {
    this.judgeWaits = !!opts.judge;
    this.skip = opts.skip;
    this.max = counterMax(ctx);
    this.capC = [this.max[0] + 1, this.max[1] + 1, this.max[2] + 1];
    this.capY = CLASS_COUNTER.map((c) => this.max[c]!);
    this.backOff = ctx.target.has('back-off-barrier');
    this.cfg = ctx.cfg;
    this.nb = this.cfg.blocks.length;
    this.callable = isCallable(ctx);
    this.forceZero = opts.mixed === 'force-zero';
    this.meet = !!opts.meet;
    this.rerun = !!opts.rerun;
    this.combine = this.meet ? meetInto : joinInto;
    this.unreachableBlock = new Uint8Array(this.nb);
    if (opts.pendAt) this.pendAt = new Int32Array(3 * fx.length).fill(-1);
    if (this.meet) { this.visits = new Int32Array(fx.length); this.needs = new Int32Array(3 * fx.length); }
    this.inParts = new Array(this.nb);
    this.collapsed = new Uint8Array(this.nb);
    this.conds = edgeConditions(ctx);
    this.live = liveConditions(ctx, this.conds);
    this.order = reversePostOrder(this.cfg.blocks.map((b) => b.succs), this.nb);
    this.rank = new Int32Array(this.nb);
    this.order.forEach((b, r) => { this.rank[b] = r; });
    this.header = new Uint8Array(this.nb);
    for (const blk of this.cfg.blocks) for (const q of blk.preds) if (this.rank[q]! >= this.rank[blk.id]!) this.header[blk.id] = 1;
    this.budget = 64 * this.nb + 4096;
    if (opts.only) this.relevant = ancestors(this.cfg, opts.only);
    if (opts.statesAt) { this.statesAt = opts.statesAt; this.states = new Map(); }
  }

  /** The whole analysis: the fixed point, the reporting pass, the judgement of existing waits. */
  run(): WaitcntResult {
    if (this.nb > 0) {
      const rel = this.relevant;
      if (!rel || rel[0]) {
        const entry = new CounterState(this.judgeWaits);
        if (this.callable) { entry.wild = 7; entry.pendC.set(this.capC); }
        this.inParts[0] = new Map([['', { facts: [], st: entry, dirty: true }]]);
        this.solve();
      }
      // blocks no path reaches: analyse them from an empty state, without judging their waits
      for (;;) {
        const b = this.order.find((x) => !this.inParts[x] && (!rel || rel[x] === 1));
        if (b === undefined) break;
        this.inParts[b] = new Map([['', { facts: [], st: new CounterState(this.judgeWaits), dirty: true }]]);
        this.unreachableBlock[b] = 1;
        this.solve();
      }
    }
    const reported = this.report();
    const judgements = this.judgeWaits ? this.judge() : [];
    const result: WaitcntResult = { get missing() { return reported.missing; }, missingNeeds: reported.missingNeeds, insertions: reported.insertions, judgements };
    if (this.pendAt) result.pendAt = this.pendAt;
    if (this.states) result.states = this.states;
    if (this.needs) {
      const every = new Set<number>();
      for (let k = 0; k < this.needs.length; k++) if (this.needs[k]! > 0 && this.needs[k] === this.visits![Math.floor(k / 3)]) every.add(k);
      result.everyPath = every;
    }
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // transfer

  /** More than one type of operation may be pending on counter c. */
  private mixedOn(st: CounterState, c: number): boolean {
    let n = 0;
    for (const k of COUNTER_CLASSES[c]!) if (st.pend[k]! > 0) n++;
    return n > 1;
  }

  private addDemand(w: number, c: number, need: number): void {
    if (w < 0) return;
    let d = this.demand.get(w);
    if (!d) { d = [INF, INF, INF]; this.demand.set(w, d); }
    if (need < d[c]!) d[c] = need;
  }

  /** The need of one pending entry, into needV/needD (or the given scratch: the LDS-DMA needs, ldsV/ldsD). */
  private consider(st: CounterState, unit: number, cls: number, e: Ent, reason: NeedReason, needV = this.needV, needD = this.needD): void {
    const c = CLASS_COUNTER[cls]!;
    const y = st.issued[cls]! - e.s;
    const v = CLASS_IN_ORDER[cls] && !(this.forceZero && this.mixedOn(st, c)) ? Math.min(y, this.max[c]! - 1) : 0;
    const cur = needD[c];
    if (v < needV[c]!) {
      needV[c] = v;
      needD[c] = { c, value: v, reason, producer: e.p, units: [unit], cls, younger: y };
    } else if (cur && v === needV[c] && cur.producer === e.p && cur.reason === reason) {
      cur.units.push(unit);
    }
  }

  /** The pending operations holding a pseudo unit, as needs of this instruction (WRITEBACK, COHERENT_LOAD). */
  private considerUnit(st: CounterState, unit: number, reason: NeedReason): void {
    const m = st.mask[unit]!;
    for (let k = 0; k < NCLASSES; k++) if ((m >> k) & 1) this.consider(st, unit, k, st.ent.get(unit * 16 + k)!, reason);
  }

  private needAll(st: CounterState, reason: NeedReason): void {
    for (let c = 0; c < 3; c++) {
      if (st.pendC[c]! > 0 || (st.wild >> c) & 1) {
        if (0 < this.needV[c]! || !this.needD[c]) {
          this.needV[c] = 0;
          this.needD[c] = { c, value: 0, reason, producer: -1, units: [], cls: -1 };
        }
      }
    }
  }

  /** Apply a wait of value n on counter c; w >= 0: an existing wait (charge shadows), -1: inserted. */
  private applyWait(st: CounterState, c: number, n: number, w: number): void {
    const sn = this.rec && w >= 0 ? this.rec.storeNeed.get(w) : undefined;
    const max = this.max;
    st.waitCounter(c, n, st.sh || sn ? (key, e, y) => {
      const k = key & 15;
      const need = CLASS_IN_ORDER[k] ? Math.min(y, max[c]! - 1) : 0;
      if (sn && key >>> 4 === STORES && need < sn[c]!) sn[c] = need;
      if (st.sh && w >= 0) {
        // undefined: the wait is charged no more than it was
        const out = mergedShadows(st.sh.get(key) ?? NO_SHADOWS, [{ w, need, p: e.p }]);
        if (out) st.setShadows(key, out);
      }
    } : undefined, this.meet);
  }

  /** inOrder: the class (or -1) whose pending writes of u the instruction may overwrite or merge into (InsnEffects.inOrderClass). */
  private chargeShadows(st: CounterState, u: number, write: boolean, inOrder: number): void {
    const m = st.shMask![u]!;
    if (m === 0) return;
    for (let k = 0; k < NCLASSES; k++) {
      if (((m >> k) & 1) === 0) continue;
      const c = CLASS_COUNTER[k]!;
      if (c === COUNTER.exp && !write) continue;
      if (k === inOrder) continue;
      for (const x of st.sh!.get(u * 16 + k)!) this.addDemand(x.w, c, x.need);
    }
  }

  private chargeAllShadows(st: CounterState): void {
    for (const [key, list] of st.sh!) for (const x of list) this.addDemand(x.w, CLASS_COUNTER[key & 15]!, x.need);
  }

  /** What instruction i needs before it issues, the waits applied, and what it issues. */
  private transfer(st: CounterState, i: number): void {
    const f = this.fx[i]!;
    const kind = f.kind;
    const needV = this.needV;
    const needD = this.needD;
    if (kind === INSN_KIND.wait) {
      if (this.skip?.has(i)) return;
      const v = f.wait!;
      const rec = this.rec;
      if (rec) {
        const pb = rec.pendBefore.get(i) ?? [0, 0, 0];
        for (let c = 0; c < 3; c++) pb[c] = Math.max(pb[c]!, (st.wild >> c) & 1 ? this.capC[c]! : st.pendC[c]!);
        rec.pendBefore.set(i, pb);
        if (!rec.storeNeed.has(i)) rec.storeNeed.set(i, [INF, INF, INF]);
        if (st.mask[LDS_MEM] !== 0 || st.mask[LDS_QUIET] !== 0) rec.dmaBefore.add(i);
      }
      for (let c = 0; c < 3; c++) if (v[c]! !== INF) this.applyWait(st, c, v[c]!, i);
      return;
    }
    const rec = this.rec;
    if (this.pendAt && rec) {
      for (let c = 0; c < 3; c++) rec.pendAt.push(i, c, (st.wild >> c) & 1 ? this.capC[c]! : st.pendC[c]!);
    }
    if (this.visits && rec) rec.visits.push(i);
    needV[0] = needV[1] = needV[2] = INF;
    needD[0] = needD[1] = needD[2] = undefined;
    if (st.wild && kind !== INSN_KIND.nop) this.needAll(st, 'entry');
    const mask = st.mask;
    const r = this.ctx.insns[i]!;
    const uses = r.uses;
    const defs = r.defs;
    // reads
    for (let x = 0; x < uses.length; x++) {
      const u = uses[x]!;
      const m = mask[u]!;
      if (m === 0) continue;
      for (let k = 0; k < NCLASSES; k++) {
        if (((m >> k) & 1) === 0 || CLASS_COUNTER[k] === COUNTER.exp) continue;
        if (k === OP_CLASS.vmem && f.d16Load && defs.includes(u)) continue;
        this.consider(st, u, k, st.ent.get(u * 16 + k)!, 'raw');
      }
    }
    // writes
    for (let x = 0; x < defs.length; x++) {
      const u = defs[x]!;
      const m = mask[u]!;
      if (m === 0) continue;
      for (let k = 0; k < NCLASSES; k++) {
        if (((m >> k) & 1) === 0) continue;
        if (k === f.inOrderClass) continue;
        this.consider(st, u, k, st.ent.get(u * 16 + k)!, CLASS_COUNTER[k] === COUNTER.exp ? 'war' : 'waw');
      }
    }
    // a release: what a cache writeback follows completes before a store that may publish; an acquire:
    // a pending coherent load completes before a cache invalidate (SOURCES.release, .acquire)
    if (f.releaseStore && mask[WRITEBACK] !== 0) this.considerUnit(st, WRITEBACK, 'release');
    if (f.cacheInvalidate && mask[COHERENT_LOAD] !== 0) this.considerUnit(st, COHERENT_LOAD, 'acquire');
    if (f.writeback) st.markYoungest(COUNTER.vm, WRITEBACK);
    const ldsDma = f.lds && mask[LDS_MEM] !== 0;
    if (ldsDma) {
      const ldsV = this.ldsV;
      const ldsD = this.ldsD;
      ldsV[0] = ldsV[1] = ldsV[2] = INF;
      ldsD[0] = ldsD[1] = ldsD[2] = undefined;
      for (let k = 0; k < NCLASSES; k++) if ((mask[LDS_MEM]! >> k) & 1) this.consider(st, LDS_MEM, k, st.ent.get(LDS_MEM * 16 + k)!, 'lds-dma', ldsV, ldsD);
    }
    if (f.writesExec && st.pendC[COUNTER.exp]! > 0 && (0 < needV[COUNTER.exp]! || !needD[COUNTER.exp])) {
      needV[COUNTER.exp] = 0;
      needD[COUNTER.exp] = { c: COUNTER.exp, value: 0, reason: 'exec', producer: -1, units: [], cls: -1 };
    }
    const fullWait = kind === INSN_KIND.return && this.callable;
    if (fullWait) this.needAll(st, 'return');
    // s_barrier without back-off: LLVM's policy wait (SOURCES.barrier) is reported, never
    // inserted (recordMissing), and the operations stay outstanding across the barrier, as they
    // do on the hardware
    if (kind === INSN_KIND.barrier && !this.backOff) this.needAll(st, 'barrier');

    // inserted waits (with `meet`, the program as written: nothing is inserted)
    for (let c = 0; c < 3; c++) {
      if (needV[c] === INF) continue;
      if (rec) rec.missing.push({ i, d: needD[c]! });
      if (!this.meet && needD[c]!.reason !== 'barrier') this.applyWait(st, c, needV[c]!, -1);
    }
    // LDS after LDS-DMA beyond what the waits above complete: reported (and inserted by the
    // scheduler's minimal waits) apart, as a warning; the DMA's LDS write counts as done from
    // here, and nothing else does: the fix does not add this wait, so the other operations stay
    // outstanding as in the program
    if (ldsDma) {
      for (let c = 0; c < 3; c++) {
        const v = this.ldsV[c]!;
        if (v === INF || v >= needV[c]!) continue;
        if (rec) rec.missing.push({ i, d: this.ldsD[c]! });
        if (!this.meet) st.moveUnit(LDS_MEM, c, LDS_QUIET);
      }
    }
    if (st.sh) {
      const shMask = st.shMask!;
      for (let x = 0; x < uses.length; x++) {
        const u = uses[x]!;
        if (shMask[u] !== 0) this.chargeShadows(st, u, false, f.d16Load && defs.includes(u) ? OP_CLASS.vmem : -1);
      }
      for (let x = 0; x < defs.length; x++) {
        const u = defs[x]!;
        if (shMask[u] !== 0) { this.chargeShadows(st, u, true, f.inOrderClass); st.dropShadowsOfUnit(u); }
      }
      if (f.lds) this.chargeShadows(st, LDS_MEM, false, -1);
      if (f.releaseStore) this.chargeShadows(st, WRITEBACK, false, -1);
      if (f.cacheInvalidate) this.chargeShadows(st, COHERENT_LOAD, false, -1);
      if (fullWait) this.chargeAllShadows(st);
    }
    if (kind === INSN_KIND.call && f.callWaits) { st.clearAll(); return; }
    const issues = f.issues;
    for (let x = 0; x < issues.length; x++) { const is = issues[x]!; st.issue(is.cls, is.inc, i, is.units, this.capC); }
  }

  private recordMissing(i: number, d: NeedDetail): void {
    if (this.needs && d.reason !== 'lds-dma') this.needs[3 * i + d.c]!++;
    if (d.reason !== 'barrier') this.recordInsertion(i, d);
    // one finding per instruction and counter: the strongest need over the path partitions (an
    // LDS-DMA need apart from the others: a warning beside a possible error)
    const key = d.reason === 'lds-dma' ? -1 - (i * 3 + d.c) : i * 3 + d.c;
    const old = this.missingAt.get(key);
    if (!old || d.value < old.value) this.missingAt.set(key, { ...d, units: [...d.units], insn: i });
  }

  private recordInsertion(i: number, d: NeedDetail): void {
    let ins = this.insert.get(i);
    if (!ins) { ins = [INF, INF, INF]; this.insert.set(i, ins); }
    if (d.value < ins[d.c]!) ins[d.c] = d.value;
  }

  private runBlock(b: number, part: Part): Part {
    const blk = this.cfg.blocks[b]!;
    const rec: Rec = { missing: [], pendBefore: new Map(), storeNeed: new Map(), pendAt: [], visits: [], dmaBefore: new Set() };
    const statesAt = this.statesAt;
    if (statesAt) rec.states = new Map();
    part.rec = rec;
    this.rec = rec;
    const st = part.st.clone();
    let facts = part.facts;
    for (let i = blk.start; i < blk.end; i++) {
      if (statesAt?.has(i)) rec.states!.set(i, st.clone());
      this.transfer(st, i);
      facts = afterInsn(facts, this.ctx.insns[i]!);
      if (this.fx[i]!.kind === INSN_KIND.end) break;
    }
    return { facts, st, dirty: false };
  }

  // ---------------------------------------------------------------------------------------------
  // join and collapse

  /**
   * The facts two path classes of block s share (at a loop header, with widening: a counter
   * stepped in the loop must not make a path class per iteration).
   */
  private mergeFacts(s: number, old: PathFact[], add: PathFact[]): PathFact[] {
    return this.header[s] ? widenFacts(old, commonFacts(old, add)) : commonFacts(old, add);
  }

  /**
   * Merge a path class into `part` (its state joined, its facts the shared ones); true when
   * `part` changed.
   */
  private absorb(part: Part, st: CounterState, common: PathFact[]): boolean {
    const grew = this.combine(part.st, st, this.capY);
    const changed = grew || factsKey(common) !== factsKey(part.facts);
    if (changed) { part.facts = common; part.dirty = true; }
    return changed;
  }

  /** Join `st` with `facts` into the entry of block s; true when it changed. */
  private join(s: number, facts: PathFact[], st: CounterState): boolean {
    let parts = this.inParts[s];
    if (!parts) { parts = new Map(); this.inParts[s] = parts; }
    if (this.collapsed[s]) {
      const only = parts.get('')!;
      return this.absorb(only, st, this.mergeFacts(s, only.facts, facts));
    }
    const key = factsKey(facts);
    const old = parts.get(key);
    if (old) {
      if (!this.combine(old.st, st, this.capY)) return false;
      old.dirty = true;
      return true;
    }
    // a path class whose state equals another's behaves the same from here (and at a loop header,
    // one whose facts differ only in ranges): merge them, keeping the facts they share
    for (const [k2, p] of parts) {
      if (!sameCore(p.st, st, this.capY) && !(this.header[s] && sameShape(p.facts, facts))) continue;
      const common = this.mergeFacts(s, p.facts, facts);
      if (!this.absorb(p, st, common)) return false;
      // its key follows its facts; two classes whose facts now agree become one
      parts.delete(k2);
      const nk = factsKey(common);
      const other = parts.get(nk);
      if (other) { this.combine(other.st, p.st, this.capY); other.facts = this.mergeFacts(s, other.facts, common); other.dirty = true; } else parts.set(nk, p);
      return true;
    }
    parts.set(key, { facts, st: st.clone(), dirty: true });
    if (parts.size > MAX_PARTITIONS) this.collapse(s);
    return true;
  }

  /** Merge the path classes of block s into one, keeping the facts they share. */
  private collapse(s: number): void {
    const parts = this.inParts[s]!;
    let merged: Part | undefined;
    for (const p of parts.values()) {
      if (!merged) merged = { facts: p.facts, st: p.st.clone(), dirty: true };
      else this.absorb(merged, p.st, commonFacts(merged.facts, p.facts));
    }
    parts.clear();
    parts.set('', { facts: merged?.facts ?? [], st: merged!.st, dirty: true });
    this.collapsed[s] = 1;
  }

  /** Merge every block's path classes (a safety net against pathological path counts). */
  private collapseAll(): void {
    for (let b = 0; b < this.nb; b++) if (this.inParts[b] && !this.collapsed[b]) this.collapse(b);
  }

  private liveFacts(s: number, facts: PathFact[]): PathFact[] {
    let keep = true;
    for (const f of facts) if (!this.live.get(f.key)![s]) { keep = false; break; }
    return keep ? facts : facts.filter((f) => this.live.get(f.key)![s]);
  }

  private successors(b: number, facts: PathFact[]): [number, PathFact[]][] {
    return feasibleSuccessors(this.conds[b], this.cfg.blocks[b]!.succs, facts, (s, f) => this.liveFacts(s, f));
  }

  // ---------------------------------------------------------------------------------------------
  // solve

  /** The worklist, ordered by reverse post-order rank, until no path class changes. */
  private solve(): void {
    const queued = new Uint8Array(this.nb);
    const heap: number[] = [];
    const push = (b: number) => { if (!queued[b]) { queued[b] = 1; heap.push(b); } };
    for (let b = 0; b < this.nb; b++) if (this.inParts[b]) push(b);
    while (heap.length) {
      // pick the smallest rank (small lists; linear scan is fine)
      let bi = 0;
      for (let j = 1; j < heap.length; j++) if (this.rank[heap[j]!]! < this.rank[heap[bi]!]!) bi = j;
      const b = heap[bi]!;
      heap[bi] = heap[heap.length - 1]!;
      heap.pop();
      queued[b] = 0;
      for (const part of [...this.inParts[b]!.values()]) {
        if (!part.dirty) continue;
        part.dirty = false;
        if (--this.budget === 0) { this.collapseAll(); for (let x = 0; x < this.nb; x++) if (this.inParts[x]) push(x); }
        const out = this.runBlock(b, part);
        for (const [s, facts] of this.successors(b, out.facts)) {
          if (this.relevant && !this.relevant[s]) continue;
          this.followed.add(b * this.nb + s);
          if (this.join(s, facts, out.st)) push(s);
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // report and judge

  /** The records of one block run, merged into the kernel's (in block order: ties keep the first). */
  private replay(rec: Rec): void {
    for (const [i, pb] of rec.pendBefore) {
      const g = this.pendBefore.get(i);
      if (!g) this.pendBefore.set(i, [pb[0], pb[1], pb[2]]);
      else for (let c = 0; c < 3; c++) g[c] = Math.max(g[c]!, pb[c]!);
    }
    for (const i of rec.dmaBefore) this.dmaBefore.add(i);
    for (const [i, sn] of rec.storeNeed) {
      const g = this.storeNeed.get(i);
      if (!g) this.storeNeed.set(i, [sn[0], sn[1], sn[2]]);
      else for (let c = 0; c < 3; c++) g[c] = Math.min(g[c]!, sn[c]!);
    }
    if (this.pendAt) {
      const pa = rec.pendAt;
      for (let k = 0; k < pa.length; k += 3) {
        const x = 3 * pa[k]! + pa[k + 1]!;
        this.pendAt[x] = Math.max(this.pendAt[x]!, pa[k + 2]!);
      }
    }
    if (this.visits) for (const i of rec.visits) this.visits[i]!++;
    if (rec.states) {
      for (const [i, st] of rec.states) {
        const g = this.states!.get(i);
        if (g) joinInto(g, st, this.capY); else this.states!.set(i, st.clone());
      }
    }
    for (const m of rec.missing) this.recordMissing(m.i, m.d);
  }

  /**
   * The fixed point's records, each missing wait and the insertions: every path class's latest
   * run started from its final state (a change to a class marks it for another run), so its
   * records are those of a pass over the fixed point.
   */
  private report(): Pick<WaitcntResult, 'missing' | 'missingNeeds' | 'insertions'> {
    for (let b = 0; b < this.nb; b++) {
      const parts = this.inParts[b];
      if (!parts) continue; // not analysed (AnalysisOptions.only)
      for (const part of parts.values()) {
        if (!part.rec || part.dirty || this.rerun) this.runBlock(b, part);
        this.replay(part.rec!);
      }
    }
    const found = [...this.missingAt.values()].sort((a, b) => a.insn - b.insn || a.c - b.c || +(a.reason === 'lds-dma') - +(b.reason === 'lds-dma'));
    // the findings (their messages walk the paths back to the governing waits) only when asked for
    let missing: Finding[] | undefined;
    const { ctx, fx, max, skip, followed } = this;
    const governing = (d: typeof found[number]) => governingWaits(ctx, fx, d.insn, d.c, d.producer, skip, followed);
    const findings = () => (missing ??= groupFences(found).map((ds) => ds.length > 1
      ? fenceFinding(ctx, fx, ds, max, ds.map(governing))
      : missingFinding(ctx, fx, ds[0]!.insn, ds[0]!, max, governing(ds[0]!))));
    const missingNeeds = found.map((d) => ({ c: d.c, reason: d.reason, producer: d.producer, cls: d.cls, units: d.units }));
    const insertions: WaitInsertion[] = [...this.insert.entries()].sort((a, b) => a[0] - b[0]).map(([before, v]) => {
      const w: WaitInsertion = { before };
      if (v[0] !== INF) w.vmcnt = v[0];
      if (v[1] !== INF) w.lgkmcnt = v[1];
      if (v[2] !== INF) w.expcnt = v[2];
      return w;
    });
    return { get missing() { return findings(); }, missingNeeds, insertions };
  }

  /** The verdict on every existing s_waitcnt (see the file comment). */
  private judge(): WaitJudgement[] {
    const { ctx, fx, cfg } = this;
    const judgements: WaitJudgement[] = [];
    const positions = waitPositions(ctx, fx);
    // waits right before an instruction that needs a stronger wait: the fix merges into them
    const merged = new Set<number>();
    for (const before of this.insert.keys()) {
      const b = cfg.blocks[cfg.blockOf[before]!]!;
      for (let j = before - 1; j >= b.start && (fx[j]!.kind === INSN_KIND.wait || fx[j]!.kind === INSN_KIND.nop); j--) if (fx[j]!.kind === INSN_KIND.wait) merged.add(j);
    }
    for (let i = 0; i < fx.length; i++) {
      const f = fx[i]!;
      if (f.kind !== INSN_KIND.wait || this.skip?.has(i)) continue;
      const values = [...f.wait!] as Counts;
      const unreachable = this.unreachableBlock[cfg.blockOf[i]!] === 1 || !this.pendBefore.has(i);
      const pb = this.pendBefore.get(i) ?? [INF, INF, INF];
      const effect: [boolean, boolean, boolean] = [0, 1, 2].map((c) => values[c] !== INF && pb[c]! > values[c]!) as [boolean, boolean, boolean];
      const d = this.demand.get(i) ?? [INF, INF, INF];
      const weakest: Counts = [0, 1, 2].map((c) => (effect[c] ? d[c]! : INF)) as Counts;
      // an LDS-DMA pending: the wait may order an LDS access after it, which LLVM decides from
      // the LDS addresses the assembly does not show (SOURCES.ldsDma): its vmcnt is not judged
      if (effect[COUNTER.vm] && this.dmaBefore.has(i)) weakest[COUNTER.vm] = Math.min(weakest[COUNTER.vm]!, values[COUNTER.vm]!);
      let fence = positionalFence(positions.get(i));
      if (!fence && !unreachable) {
        const sn = this.storeNeed.get(i)!;
        if ([0, 1, 2].some((c) => effect[c] && sn[c]! < weakest[c]!) && memoryFollows(ctx, fx, i)) fence = 'store';
      }
      let verdict: WaitJudgement['verdict'];
      if (unreachable) verdict = 'unreachable';
      else if (fence) verdict = 'fence';
      else if (merged.has(i)) verdict = 'needed';
      else if (!effect.some((e) => e)) verdict = 'redundant';
      else if ([0, 1, 2].some((c) => effect[c] && values[c]! < weakest[c]!)) verdict = 'too-strong';
      else verdict = 'needed';
      // a volatile access's completion that no register read needs: kept as written (a wait a
      // read needs is one the scheduler re-derives anyway)
      if ((verdict === 'redundant' || verdict === 'too-strong') && positions.get(i)?.afterCoherent) { verdict = 'fence'; fence = 'volatile'; }
      const j: WaitJudgement = { insn: i, values, effect, weakest, unreachable, verdict };
      if (fence) j.fence = fence;
      judgements.push(j);
    }
    return judgements;
  }
}

/** No shadows (a list never changed in place). */
const NO_SHADOWS: readonly Shadow[] = Object.freeze([]);

/** Something after wait `i` in its block can observe memory ordering before an s_endpgm. */
function memoryFollows(ctx: KernelContext, fx: InsnEffects[], i: number): boolean {
  const b = ctx.cfg.blocks[ctx.cfg.blockOf[i]!]!;
  for (let j = i + 1; j < b.end; j++) {
    const f = fx[j]!;
    if (f.kind === INSN_KIND.end) return false;
    if (f.ordersMemory) return true;
  }
  return !b.exits || b.succs.length > 0;
}

/** The blocks from which a block holding one of the instructions can be reached (those blocks included). */
function ancestors(cfg: KernelContext['cfg'], insns: ReadonlySet<number>): Uint8Array {
  const mark = new Uint8Array(cfg.blocks.length);
  const stack: number[] = [];
  for (const i of insns) {
    const b = cfg.blockOf[i]!;
    if (b >= 0 && !mark[b]) { mark[b] = 1; stack.push(b); }
  }
  while (stack.length) {
    for (const p of cfg.blocks[stack.pop()!]!.preds) if (!mark[p]) { mark[p] = 1; stack.push(p); }
  }
  return mark;
}

function reversePostOrder(succs: number[][], n: number): number[] {
  const seen = new Uint8Array(n);
  const post: number[] = [];
  const roots = n > 0 ? [0, ...Array.from({ length: n }, (_, i) => i).filter((i) => i !== 0)] : [];
  for (const r of roots) {
    if (seen[r]) continue;
    const stack: [number, number][] = [[r, 0]];
    seen[r] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const ss = succs[top[0]]!;
      if (top[1] < ss.length) {
        const s = ss[top[1]++]!;
        if (!seen[s]) { seen[s] = 1; stack.push([s, 0]); }
      } else {
        post.push(top[0]);
        stack.pop();
      }
    }
  }
  return post.reverse();
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

export function waitText(v: readonly number[]): string {
  const parts: string[] = [];
  for (let c = 0; c < 3; c++) if (v[c] !== undefined && v[c] !== INF) parts.push(`${COUNTER_NAMES[c]}(${v[c]})`);
  return parts.length ? `s_waitcnt ${parts.join(' ')}` : 'no wait';
}

/** The waits on one counter that govern an instruction along the paths into it (governingWaits). */
export interface GoverningWaits {
  /** The nearest s_waitcnt naming the counter on some path back from the instruction, by index. */
  waits: number[];
  /** Some path reaches the producer (or the kernel's entry, or a call that waits for everything) without one. */
  none: boolean;
  /** The operations on the counter issued between those waits (or the path's start) and the instruction, by index. */
  issued: number[];
}

/**
 * The s_waitcnt instructions that govern counter c at instruction i: walking back from i along
 * the edges the analysis followed (`followed`, keys b * nb + s; every edge when undefined), the
 * nearest wait that names c on each path (waits in `skip` count as absent; one that names c at
 * the counter's maximum counts: it is what the code says, though it waits for nothing). A path that meets
 * the producer, the kernel's entry or a call that waits for everything first has none.
 */
export function governingWaits(
  ctx: KernelContext, fx: readonly InsnEffects[], i: number, c: number, producer: number,
  skip?: ReadonlySet<number>, followed?: ReadonlySet<number>,
): GoverningWaits {
  const cfg = ctx.cfg;
  const nb = cfg.blocks.length;
  const waits = new Set<number>();
  const issued = new Set<number>();
  let none = false;
  const seen = new Uint8Array(nb);
  const stack: [block: number, from: number][] = [[cfg.blockOf[i]!, i - 1]];
  while (stack.length) {
    const [b, from] = stack.pop()!;
    const blk = cfg.blocks[b]!;
    let open = true;
    for (let j = from; j >= blk.start; j--) {
      const f = fx[j]!;
      if (j === producer || (f.kind === INSN_KIND.call && f.callWaits)) { none = true; open = false; break; }
      if (f.kind === INSN_KIND.wait && writtenValue(ctx, fx, j, c) !== undefined && !skip?.has(j)) { waits.add(j); open = false; break; }
      if (f.issues.some((x) => CLASS_COUNTER[x.cls] === c)) issued.add(j);
    }
    if (!open) continue;
    let preds = 0;
    for (const p of blk.preds) {
      if (followed && !followed.has(p * nb + b)) continue;
      preds++;
      if (seen[p]) continue;
      seen[p] = 1;
      stack.push([p, cfg.blocks[p]!.end - 1]);
    }
    if (preds === 0) none = true;
  }
  const byIndex = (a: number, b: number) => a - b;
  return { waits: [...waits].sort(byIndex), none, issued: [...issued].sort(byIndex) };
}

/**
 * The value an s_waitcnt writes for counter c, undefined when it does not name c. A value at the
 * counter's maximum is named (the user wrote it) though it waits for nothing.
 */
function writtenValue(ctx: KernelContext, fx: readonly InsnEffects[], j: number, c: number): number | undefined {
  const v = fx[j]!.wait![c]!;
  if (v !== INF) return v;
  const op = ctx.insns[j]!.insn.operands.find((o) => o.kind === 'waitcnt');
  return op?.kind === 'waitcnt' ? [op.vmcnt, op.lgkmcnt, op.expcnt][c] : undefined;
}

/** What a wait on counter c allows, as the message says it. */
function presentText(ctx: KernelContext, fx: readonly InsnEffects[], c: number, g: GoverningWaits, max: readonly number[], from: Loc): string {
  const cname = COUNTER_NAMES[c];
  if (g.waits.length === 0) return `no ${cname} wait`;
  const parts = g.waits.map((w) => {
    const n = writtenValue(ctx, fx, w, c)!;
    const at = `${cname}(${n}) at ${lineAt(ctx.insns[w]!.insn.loc, from)}`;
    return n >= max[c]! ? `${at} (waits for nothing)` : `${at} (allows ${n} outstanding)`;
  });
  if (g.none) parts.push(`no ${cname} wait`);
  if (parts.length === 1) return parts[0]!;
  return `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}, depending on the path`;
}

/** The operations on counter c in GoverningWaits.issued: 'N lgkmcnt operations issued (ds_read_b128 at line a .. ds_read_b128 at line b)'. */
function issuedText(ctx: KernelContext, c: number, g: GoverningWaits, from: Loc): string {
  const cname = COUNTER_NAMES[c]!;
  const n = g.issued.length;
  const at = (j: number) => `${ctx.insns[j]!.insn.mnemonic} at ${lineAt(ctx.insns[j]!.insn.loc, from)}`;
  return `${n} ${cname} operation${n === 1 ? '' : 's'} issued (${n === 1 ? at(g.issued[0]!) : `${at(g.issued[0]!)} .. ${at(g.issued[n - 1]!)}`})`;
}

/**
 * presentText, then the operations on the counter issued after those waits, when there are some:
 * a wait that allows as many as are needed was written before more were issued, and without them
 * the message read "needs lgkmcnt(4), present: lgkmcnt(4) ..." (a new user's trial).
 */
function presentAndIssuedText(ctx: KernelContext, fx: readonly InsnEffects[], c: number, g: GoverningWaits, max: readonly number[], from: Loc): string {
  const present = presentText(ctx, fx, c, g, max, from);
  if (g.waits.length === 0 || g.issued.length === 0) return present;
  return `${present}, then ${issuedText(ctx, c, g, from)} after ${g.waits.length === 1 ? 'it' : 'them'}`;
}

/**
 * What a fence finds on counter c: the operations in flight (GoverningWaits.issued) first, then
 * the waits before them. A fence needs the counter at zero, so the point is what was issued after
 * the last wait; led by the wait, the message read "needs vmcnt(0), present: vmcnt(0) ...".
 */
function fencePresentText(ctx: KernelContext, fx: readonly InsnEffects[], c: number, g: GoverningWaits, max: readonly number[], from: Loc): string {
  const cname = COUNTER_NAMES[c]!;
  const n = g.issued.length;
  if (n === 0) return presentText(ctx, fx, c, g, max, from);
  const ops = issuedText(ctx, c, g, from);
  if (g.waits.length === 0) return `${ops} and no ${cname} wait after ${n === 1 ? 'it' : 'them'}`;
  return `${ops} after the last ${cname} wait, ${presentText(ctx, fx, c, g, max, from)}`;
}

/** More younger operations of an in-order class than the counter holds (see SOURCES.saturation). */
export function saturated(d: { younger?: number; cls: number; c: number }, max: readonly number[]): boolean {
  return d.younger !== undefined && d.cls >= 0 && CLASS_IN_ORDER[d.cls]! && d.younger >= max[d.c]!;
}

const FENCES: ReadonlySet<NeedReason> = new Set<NeedReason>(['barrier', 'return', 'entry']);

/**
 * The missing waits in groups: a fence (barrier, return, function entry) that needs several
 * counters at zero is one missing wait, fixed by one s_waitcnt, so its counters (adjacent: sorted by
 * instruction, then counter) form one group; every other need is a group of its own.
 */
function groupFences<T extends { insn: number; reason: NeedReason; producer: number }>(found: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (const d of found) {
    const last = groups[groups.length - 1]?.[0];
    const fence = d.producer < 0 && FENCES.has(d.reason);
    if (fence && last && last.insn === d.insn && last.reason === d.reason && last.producer < 0) groups[groups.length - 1]!.push(d);
    else groups.push([d]);
  }
  return groups;
}

/** The message and source of a fence's missing wait on `counters` (one name or a list). */
function fenceText(ctx: KernelContext, i: number, reason: NeedReason, counters: string): { message: string; source: string } {
  const insn = ctx.insns[i]!.insn;
  switch (reason) {
    case 'barrier':
      return {
        message: `s_barrier with memory operations outstanding on ${counters}: ${ctx.target.name} has no back-off barrier, and LLVM waits for every counter before each s_barrier there so that a memory exception raised while the wave waits at the barrier can be taken; loads in flight across it are not at risk (AMD's ${ctx.target.name} kernels keep prefetch loads in flight across barriers), so a warning (an LDS write that other waves read after the barrier needs lgkmcnt(0) before it for its own sake: a workgroup release)`,
        source: SOURCES.barrier,
      };
    case 'return':
      return {
        message: `${insn.mnemonic} returns with memory operations outstanding on ${counters}: the caller assumes every counter is zero after the call`,
        source: SOURCES.ret,
      };
    default:
      return {
        message: `${insn.mnemonic} is the first instruction of function ${ctx.kernel.name}: the caller's memory operations may still be outstanding on ${counters}`,
        source: SOURCES.entry,
      };
  }
}

/** One finding for a fence missing waits on several counters (groupFences). */
function fenceFinding(ctx: KernelContext, fx: InsnEffects[], ds: readonly (NeedDetail & { insn: number })[], max: readonly number[],
  gs: readonly GoverningWaits[]): Finding {
  const i = ds[0]!.insn;
  const first = missingFinding(ctx, fx, i, ds[0]!, max, gs[0]!);
  const names = ds.map((d) => COUNTER_NAMES[d.c]!);
  const { message, source } = fenceText(ctx, i, ds[0]!.reason, `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);
  const needs = ds.map((d) => `${COUNTER_NAMES[d.c]}(${d.value})`).join(' ');
  const present = ds.map((d, k) => fencePresentText(ctx, fx, d.c, gs[k]!, max, ctx.insns[i]!.insn.loc)).join('; ');
  const fix = { kind: 'waitcnt' as const, before: i, ...Object.fromEntries(ds.map((d) => [COUNTER_NAMES[d.c]!, d.value])) };
  return { ...first, message: `${message}: needs ${needs}, present: ${present}`, source, fix };
}

/**
 * Why a VALU names registers its text does not: it runs in the VGPR indexing mode (it reads M0,
 * which only the mode makes a VALU read, and none of `regs` is a register an operand names), so an
 * operand reaches its register plus any index the code allows (src/isa/kernel-effects.ts).
 */
function throughIndex(ctx: KernelContext, i: number, regs: readonly number[]): string {
  const r = ctx.insns[i]!;
  if ((r.info.cls !== 'valu' && r.info.cls !== 'mfma') || !r.implicitUses.includes(M0)) return '';
  const named = new Set<number>();
  for (const o of r.insn.operands) if (o.kind === 'reg' && (o.file === 'v' || o.file === 'a')) for (let k = 0; k < o.count; k++) named.add(o.first + k);
  if (regs.some((u) => named.has(u))) return '';
  return ' (in the VGPR indexing mode: an operand reaches its register plus the index in M0, 0..255 where the code does not bound it; ' +
    'a `conductor: gpr-idx LO..HI` comment on the line that sets the index states its range)';
}

function missingFinding(ctx: KernelContext, fx: InsnEffects[], i: number, d: NeedDetail, max: readonly number[], g: GoverningWaits): Finding {
  const insn = ctx.insns[i]!.insn;
  const cname = COUNTER_NAMES[d.c];
  // the weakest wait on any path (no wait: the counter's maximum)
  const actual = g.none || g.waits.length === 0 ? max[d.c]! : Math.min(max[d.c]!, Math.max(...g.waits.map((w) => writtenValue(ctx, fx, w, d.c)!)));
  const related: Related[] = [];
  let message: string;
  let rule = 'waitcnt-missing';
  let source: string = SOURCES.missing;
  const regs = d.units.filter((u) => u < LDS_MEM);
  const regText = unitsAsWritten(ctx.insns[i], regs, unitsToString);
  if (d.producer >= 0) {
    const p = ctx.insns[d.producer]!.insn;
    related.push({ loc: p.loc, message: `${p.mnemonic} issued here`, insn: d.producer });
    const prod = `${p.mnemonic} (${lineAt(p.loc, insn.loc)})`;
    const order = CLASS_IN_ORDER[d.cls] ? '' : ` (${CLASS_NAMES[d.cls]} results return out of order: only ${cname}(0) is safe)`;
    const via = throughIndex(ctx, i, regs);
    switch (d.reason) {
      case 'raw': message = `${insn.mnemonic} reads ${regText}${via} loaded by ${prod}, which may still be in flight${order}`; break;
      case 'waw': message = `${insn.mnemonic} overwrites ${regText}${via} while ${prod} may still write it${order}`; break;
      case 'war': message = `${insn.mnemonic} overwrites ${regText} while ${prod} may still be reading it`; break;
      case 'lds-dma': message = `${insn.mnemonic} accesses LDS while ${prod} (LDS-DMA) may still be writing LDS`; source = SOURCES.ldsDma; break;
      case 'release':
        message = `${insn.mnemonic} writes memory while ${prod}, issued before a cache writeback (buffer_wbl2: a release), may still be in flight: what a release orders completes before the store that publishes it (LLVM waits vmcnt(0) right after buffer_wbl2)${order}`;
        source = SOURCES.release;
        break;
      case 'acquire':
        message = `${insn.mnemonic} invalidates the cache while ${prod}, a coherent load (an acquire's), may still be in flight: the load completes before the invalidate, or later loads may see data older than it synchronized with (LLVM waits vmcnt(0) right before the invalidate)${order}`;
        source = SOURCES.acquire;
        break;
      default: message = `${insn.mnemonic} needs ${prod} complete`;
    }
  } else {
    switch (d.reason) {
      case 'barrier':
      case 'return':
      case 'entry':
        rule = 'waitcnt-fence';
        ({ message, source } = fenceText(ctx, i, d.reason, cname));
        break;
      case 'exec':
        message = `${insn.mnemonic} writes EXEC while an export/GDS operation may still be reading its VGPRs`;
        source = SOURCES.exec;
        break;
      default:
        message = `${insn.mnemonic} needs a wait on ${cname}`;
    }
  }
  message += `: needs ${cname}(${d.value}), present: ${(rule === 'waitcnt-fence' ? fencePresentText : presentAndIssuedText)(ctx, fx, d.c, g, max, insn.loc)}`;
  if (d.reason === 'lds-dma') message += ' (only if the two LDS ranges overlap, which the assembly does not show: LLVM omits this wait when it can prove them disjoint)';
  const fix = { kind: 'waitcnt' as const, before: i, [cname]: d.value };
  if (saturated(d, max)) {
    // See SOURCES.saturation: complete if the counter never exceeds its maximum; a warning.
    message += ` (${d.younger} later ${CLASS_NAMES[d.cls]} operations count on ${cname}, more than its maximum ${max[d.c]}: ` +
      `the result is complete if issue holds while ${cname} is at its maximum, as AMD's Tensile kernels rely on; ` +
      `LLVM waits ${cname}(${max[d.c]! - 1}) where it counts them in straight-line code, but omits the wait when they are counted across a loop's back edge)`;
    return { rule, severity: 'warning', message, loc: insn.loc, insn: i, required: d.value, actual, related, fix, source: `${source}; ${SOURCES.saturation}` };
  }
  return { rule, severity: d.reason === 'barrier' || d.reason === 'lds-dma' ? 'warning' : 'error', message, loc: insn.loc, insn: i, required: d.value, actual, related, fix, source };
}

