/**
 * s_nop for the scheduler, through the hazard checker's own engine (src/hazards): the minimal
 * padding of a kernel (used when the check machinery does not run the hazard rules itself) and
 * a fast estimate of the s_nop a region needs in a given order (for `evaluate`): the region's
 * instructions in that order between a window of the instructions before and after it in the
 * original program, as one straight-line block, padded by the engine.
 *
 * The engine is loaded dynamically: when it is missing or broken the scheduler still works and
 * says so (`hazardEngine()` is undefined; emission then keeps the original s_nop in front of the
 * instruction that followed them and reports it).
 */
import type { KernelContext } from '../analysis/types.js';
import type { Cfg } from '../analysis/cfg.js';
import type { ResolvedInsn } from '../isa/types.js';

interface NopPlanLike { pads: Int32Array; total: number; sites: { insn: number; waitStates: number }[] }

interface EngineModule {
  computeNops?: (ctx: KernelContext) => NopPlanLike;
  computeNopsIn?: (h: unknown, rules: readonly unknown[]) => NopPlanLike;
  activeRules?: (h: unknown) => { noNopFix?: boolean }[];
}
interface ContextModule {
  HazardContext?: new (ctx: KernelContext, facts?: unknown[]) => unknown;
  computeFacts?: (ri: ResolvedInsn, target: KernelContext['target']) => unknown;
}

let engine: EngineModule | undefined;
let context: ContextModule | undefined;
let loadError = '';
try {
  engine = (await import('../hazards/engine.js')) as unknown as EngineModule;
  context = (await import('../hazards/context.js')) as unknown as ContextModule;
  if (typeof engine.computeNops !== 'function') { loadError = 'src/hazards/engine.js exports no computeNops'; engine = undefined; }
} catch (e) {
  loadError = (e as Error).message;
  engine = undefined;
  context = undefined;
}

/** The hazard engine's minimal padding, or undefined when the engine is not available. */
export function hazardEngine(): { computeNops: (ctx: KernelContext) => NopPlanLike } | undefined {
  return engine?.computeNops ? { computeNops: engine.computeNops } : undefined;
}

export function hazardEngineError(): string { return loadError; }

/** s_nop instructions needed for `waitStates` wait states in chunks of maxImm + 1. */
export function nopInstructions(waitStates: number, maxImm: number): number {
  return waitStates <= 0 ? 0 : Math.ceil(waitStates / (maxImm + 1));
}

/** Per kernel: the facts of every instruction (computed once) and the rules that apply. */
export interface WindowNopModel {
  /** s_nop instructions needed inside `seq` and in the `after` window (kernel indexes). */
  nops(before: ArrayLike<number>, seq: ArrayLike<number>, after: ArrayLike<number>): number;
}

/** A window model for one kernel, or undefined when the engine lacks what it needs. */
export function windowNopModel(ctx: KernelContext): WindowNopModel | undefined {
  if (!engine?.computeNopsIn || !engine.activeRules || !context?.HazardContext || !context.computeFacts) return undefined;
  const computeNopsIn = engine.computeNopsIn;
  const HC = context.HazardContext;
  let facts: unknown[];
  let rules: readonly unknown[];
  try {
    facts = ctx.insns.map((ri) => context!.computeFacts!(ri, ctx.target));
    rules = engine.activeRules(new HC(ctx, facts)).filter((r) => !r.noNopFix);
  } catch {
    return undefined;
  }
  const maxImm = ctx.target.maxNopImm.value;
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
      const h = new HC(mini, idx.map((i) => facts[i]));
      const plan = computeNopsIn(h, rules);
      let count = 0;
      for (const s of plan.sites) if (s.insn >= from) count += nopInstructions(s.waitStates, maxImm);
      return count;
    },
  };
}
