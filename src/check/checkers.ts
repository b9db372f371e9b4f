/** The registry of checkers run by `check` (resources are always computed). */
import type { Finding, KernelContext } from './types.js';

export interface Checker {
  name: string;
  description: string;
  run(ctx: KernelContext): Finding[];
}

export const CHECKERS: Checker[] = [];
