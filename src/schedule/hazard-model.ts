/**
 * s_nop for the scheduler, through the hazard checker's own engine (src/hazards): a fast estimate
 * of the s_nop a region needs in a given order (for `evaluate`): the region's instructions in
 * that order between a window of the instructions before and after it in the original program,
 * as one straight-line block, padded by the engine with the rules that apply to the kernel.
 */
import type { KernelContext } from '../analysis/types.js';
import type { Cfg } from '../analysis/cfg.js';
import type { Instruction } from '../asm/ast.js';
import type { ResolvedInsn } from '../isa/types.js';
import type { HazardRule } from '../hazards/types.js';
import { activeRules, computeNopsIn } from '../hazards/engine.js';
import { HazardContext, hazardInsns, type HazardInsn, type Visit } from '../hazards/context.js';

/** s_nop instructions needed for `waitStates` wait states in chunks of maxImm + 1. */
export function nopInstructions(waitStates: number, maxImm: number): number {
  return waitStates <= 0 ? 0 : Math.ceil(waitStates / (maxImm + 1));
}

/** Per kernel: the facts of every instruction (computed once) and the rules that apply. */
export interface WindowNopModel {
  /** s_nop instructions needed inside `seq` and in the `after` window (kernel indexes). */
  nops(before: ArrayLike<number>, seq: ArrayLike<number>, after: ArrayLike<number>): number;
  /** A window of n instructions padded again in time proportional to its change (see NopWindow). */
  window(n: number): NopWindow;
}

/** The window model of one kernel. */
export function windowNopModel(ctx: KernelContext): WindowNopModel {
  const facts = hazardInsns(ctx);
  const rules = activeRules(new HazardContext(ctx, facts)).filter((r) => !r.noNopFix);
  const maxImm = ctx.target.maxNopImm.value;
  const inert = rules.map(() => new Uint8Array(ctx.insns.length));
  return {
    nops(before, seq, after) {
      const idx: number[] = [];
      for (let p = 0; p < before.length; p++) idx.push(before[p]!);
      const from = idx.length;
      for (let p = 0; p < seq.length; p++) idx.push(seq[p]!);
      for (let p = 0; p < after.length; p++) idx.push(after[p]!);
      const n = idx.length;
      const insns = idx.map((i) => ctx.insns[i]!);
      const cfg: Cfg = {
        kernel: ctx.kernel,
        insns: insns.map((r) => r.insn),
        blocks: [{ id: 0, start: 0, end: n, labels: [], succs: [], preds: [], exits: true, loc: ctx.kernel.loc }],
        blockOf: new Int32Array(n),
        control: insns.map(() => 'none'),
        longBranches: [],
        danglingLabels: [],
      };
      const mini: KernelContext = { ...ctx, cfg, insns };
      const h = new HazardContext(mini, idx.map((i) => facts[i]!));
      const plan = computeNopsIn(h, rules);
      let count = 0;
      for (const s of plan.sites) if (s.insn >= from) count += nopInstructions(s.waitStates, maxImm);
      return count;
    },
    window(n) {
      return new NopWindow(ctx, facts, rules, inert, maxImm, n);
    },
  };
}

const NONE: readonly number[] = Object.freeze([]);

/** A hazard context over a window whose instructions change in place, recording how far back each consumer's walks reach. */
class WindowContext extends HazardContext {
  /** Lowest position a walk visited since it was last set. */
  reach = 0;
  /** Questions asked about other instructions (walks, producer lists): a rule that asks none judged the consumer alone. */
  asked = 0;

  /** Per producer key asked about: its predicate and how many instructions of the window match it (kept as the window changes, see replace). */
  private readonly matches = new Map<string, { pred: (f: HazardInsn) => boolean; count: number }>();
  private readonly matchList: { pred: (f: HazardInsn) => boolean; count: number }[] = [];

  /**
   * HazardContext.producers, answered without walking when no instruction of the window matches
   * the key (the walk would find none); the positions that walk would have visited count as
   * read all the same.
   */
  override producers(consumer: number, key: string, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    this.asked++;
    let m = this.matches.get(key);
    if (m === undefined) {
      let count = 0;
      const f = this.f;
      for (let j = 0; j < f.length; j++) if (pred(f[j]!)) count++;
      m = { pred, count };
      this.matches.set(key, m);
      this.matchList.push(m);
    }
    if (m.count === 0) {
      const lo = Math.max(0, consumer - limit);
      if (limit > 0 && lo < consumer && lo < this.reach) this.reach = lo;
      return NONE;
    }
    return super.producers(consumer, key, limit, pred);
  }

  /**
   * HazardContext.collect on one block without predecessors: straight back from the consumer,
   * each instruction met once (so at its smallest distance), without a visitor closure.
   */
  protected override collect(consumer: number, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    this.asked++;
    if (limit <= 0) return NONE;
    let list: number[] | undefined;
    const f = this.f;
    const pad = this.pad;
    let d = pad[consumer]!;
    for (let j = consumer - 1; j >= 0; j--) {
      if (d >= limit) break;
      if (j < this.reach) this.reach = j;
      const x = f[j]!;
      if (pred(x)) { if (list === undefined) list = [j, d]; else list.push(j, d); }
      d += x.ws + pad[j]!;
    }
    return list ?? NONE;
  }

  /** Position p's instruction changes from `was` to `now`: the match counts follow. */
  replace(was: HazardInsn, now: HazardInsn): void {
    const list = this.matchList;
    for (let x = 0; x < list.length; x++) {
      const m = list[x]!;
      m.count += (m.pred(now) ? 1 : 0) - (m.pred(was) ? 1 : 0);
    }
  }

  /** HazardContext.walk on one block without predecessors: straight back from the consumer. */
  override walk(consumer: number, limit: number, visit: Visit): void {
    this.asked++;
    if (limit <= 0) return;
    const f = this.f;
    const pad = this.pad;
    let d = pad[consumer]!;
    for (let j = consumer - 1; j >= 0; j--) {
      if (d >= limit) break;
      if (j < this.reach) this.reach = j;
      if (visit(j, d) === true) break;
      d += f[j]!.ws + pad[j]!;
    }
  }
}

/**
 * The padding of a straight-line window of n instructions (`nops(before, seq, after)` as one
 * sequence), kept with the last content padded so that a new content is padded from its first
 * changed position only, and past its last changed position only as far as the padding can
 * differ. The engine pads consumers in order, each looking only backwards: consumer i's padding
 * depends on the instructions and padding at the positions its rules read, from the lowest
 * position its walks visit (its reach; the soft clause rule, which reads the clause before a
 * memory instruction directly, reaches back over the memory instructions before it) to i. A
 * consumer after the change whose reach lies after the change and after every position whose
 * padding changed keeps its padding without running the rules.
 */
export class NopWindow {
  private readonly idx: Int32Array;
  private readonly insns: ResolvedInsn[];
  private readonly f: HazardInsn[];
  private readonly h: WindowContext;
  /** Per position: the lowest position consumer p's rules read in the last padding. */
  private readonly reach: Int32Array;
  private readonly clauses: boolean;
  private readonly clauseRule: number;
  private ran = false;
  /** Consumers whose rules ran in the last call (for the bench and tests). */
  checked = 0;

  /**
   * @param inert per rule, per kernel instruction: 1 when the rule, checking that instruction as
   * a consumer, asked nothing about other instructions and found nothing (so it never will:
   * its answer depends on the consumer alone), 2 when it did ask, 0 not yet known. The soft
   * clause rule reads the instructions before a memory consumer directly and is never inert.
   */
  constructor(private readonly ctx: KernelContext, private readonly facts: readonly HazardInsn[], private readonly rules: readonly HazardRule[],
    private readonly inert: readonly Uint8Array[], private readonly maxImm: number, readonly n: number) {
    this.idx = new Int32Array(n).fill(-1);
    this.insns = new Array<ResolvedInsn>(n).fill(ctx.insns[0]!);
    this.f = new Array<HazardInsn>(n).fill(facts[0]!);
    this.reach = new Int32Array(n);
    const cfg: Cfg = {
      kernel: ctx.kernel,
      insns: this.insns.map((r) => r.insn),
      blocks: [{ id: 0, start: 0, end: n, labels: [], succs: [], preds: [], exits: true, loc: ctx.kernel.loc }],
      blockOf: new Int32Array(n),
      control: new Array<string>(n).fill('none') as Cfg['control'],
      longBranches: [],
      danglingLabels: [],
    };
    this.h = new WindowContext({ ...ctx, cfg, insns: this.insns }, this.f, { walkOnly: true });
    this.clauseRule = rules.findIndex((r) => r.id === 'xnack-soft-clause');
    this.clauses = this.clauseRule >= 0;
  }

  /** s_nop instructions the padding of `content` (n kernel indexes) places at positions `from` and later. */
  nops(content: ArrayLike<number>, from: number): number {
    const n = this.n;
    const h = this.h;
    const pad = h.pad;
    let first = 0;
    let last = n - 1;
    if (this.ran) {
      while (first < n && this.idx[first] === content[first]) first++;
      if (first === n) { this.checked = 0; return this.count(from); }
      while (last > first && this.idx[last] === content[last]) last--;
    }
    this.ran = true;
    const cfgInsns = h.ctx.cfg.insns as Instruction[];
    for (let p = first; p <= last; p++) {
      const i = content[p]!;
      this.idx[p] = i;
      this.insns[p] = this.ctx.insns[i]!;
      h.replace(this.f[p]!, this.facts[i]!);
      this.f[p] = this.facts[i]!;
      cfgInsns[p] = this.insns[p]!.insn;
    }
    h.resetContent();
    this.checked = 0;
    let padChanged = -1;
    for (let p = first; p < n; p++) {
      if (p > last && this.reach[p]! > last && this.reach[p]! > padChanged) continue;
      const old = pad[p]!;
      pad[p] = 0;
      h.reach = p;
      const need = this.shortfall(content[p]!, p);
      this.checked++;
      let reach = h.reach;
      if (this.clauses && (this.f[p]!.smem || this.f[p]!.vmem)) {
        let k = p - 1;
        while (k > 0 && (this.f[k]!.smem || this.f[k]!.vmem)) k--;
        if (k < reach) reach = Math.max(0, k);
      }
      this.reach[p] = reach;
      if (need > 0) { pad[p] = need; h.invalidate(); }
      if (pad[p] !== old) padChanged = p;
    }
    return this.count(from);
  }

  /** The engine's step (engine.ts shortfall) for consumer p, instruction i, skipping the rules inert for i. */
  private shortfall(i: number, p: number): number {
    const h = this.h;
    const rules = this.rules;
    let need = 0;
    for (let x = 0; x < rules.length; x++) {
      const known = this.inert[x]!;
      const state = known[i]!;
      if (state === 1) continue;
      const asked = h.asked;
      const needs = rules[x]!.check(h, p);
      const found = needs !== undefined && needs.length > 0;
      if (state === 0) known[i] = !found && h.asked === asked && !(this.clauses && x === this.clauseRule) ? 1 : 2;
      if (!found) continue;
      for (const y of needs) { const s = y.required - y.distance; if (s > need) need = s; }
    }
    return need;
  }

  private count(from: number): number {
    const pad = this.h.pad;
    let c = 0;
    for (let p = from; p < this.n; p++) c += nopInstructions(pad[p]!, this.maxImm);
    return c;
  }
}
