/**
 * The checkers `check` runs by default (resources are always computed). A caller that wants
 * others passes its own list (CheckOptions.checkers); nothing here is meant to be changed.
 */
import type { Finding, KernelContext } from '../analysis/types.js';
import { checkHazards } from '../hazards/index.js';
import { checkWaitcnt, type PathsMode } from '../waitcnt/index.js';

export interface Checker {
  name: string;
  description: string;
  run(ctx: KernelContext, opts?: { paths?: PathsMode }): Finding[];
}

export const DEFAULT_CHECKERS: readonly Checker[] = Object.freeze([
  { name: 'hazards', description: 'missing s_nop wait states (software hazard rules per target)', run: (ctx: KernelContext) => checkHazards(ctx) },
  { name: 'waitcnt', description: 'registers read before their memory operation returned; redundant and too-strong waits', run: (ctx: KernelContext, o?: { paths?: PathsMode }) => checkWaitcnt(ctx, o?.paths ? { paths: o.paths } : {}) },
]);
