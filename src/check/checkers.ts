/** The registry of checkers run by `check` (resources are always computed). */
import type { Finding, KernelContext } from '../analysis/types.js';
import { checkHazards } from '../hazards/index.js';
import { checkWaitcnt, type PathsMode } from '../waitcnt/index.js';

export interface Checker {
  name: string;
  description: string;
  run(ctx: KernelContext, opts?: { paths?: PathsMode }): Finding[];
}

export const CHECKERS: Checker[] = [
  { name: 'hazards', description: 'missing s_nop wait states (software hazard rules per target)', run: (ctx) => checkHazards(ctx) },
  { name: 'waitcnt', description: 'registers read before their memory operation returned; redundant and too-strong waits', run: (ctx, o) => checkWaitcnt(ctx, o?.paths ? { paths: o.paths } : {}) },
];
