/**
 * s_nop for the scheduler, through the hazard checker's own engine (src/hazards): a fast estimate
 * of the s_nop a region needs in a given order (for `evaluate`): the region's instructions in
 * that order between a window of the instructions before and after it in the original program,
 * as one straight-line block, padded by the engine with the rules that apply to the kernel.
 */
import type { KernelContext } from '../analysis/types.js';
import type { Cfg } from '../analysis/cfg.js';
import { activeRules, computeNopsIn } from '../hazards/engine.js';
import { HazardContext, hazardInsns } from '../hazards/context.js';

/** s_nop instructions needed for `waitStates` wait states in chunks of maxImm + 1. */
export function nopInstructions(waitStates: number, maxImm: number): number {
  return waitStates <= 0 ? 0 : Math.ceil(waitStates / (maxImm + 1));
}

/** Per kernel: the facts of every instruction (computed once) and the rules that apply. */
export interface WindowNopModel {
  /** s_nop instructions needed inside `seq` and in the `after` window (kernel indexes). */
  nops(before: ArrayLike<number>, seq: ArrayLike<number>, after: ArrayLike<number>): number;
}

/** The window model of one kernel. */
export function windowNopModel(ctx: KernelContext): WindowNopModel {
  const facts = hazardInsns(ctx);
  const rules = activeRules(new HazardContext(ctx, facts)).filter((r) => !r.noNopFix);
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
      const h = new HazardContext(mini, idx.map((i) => facts[i]!));
      const plan = computeNopsIn(h, rules);
      let count = 0;
      for (const s of plan.sites) if (s.insn >= from) count += nopInstructions(s.waitStates, maxImm);
      return count;
    },
  };
}
