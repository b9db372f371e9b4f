/** What `schedule` and `apply` print about occupancy beside their metrics. */
import type { Loaded } from '../load.js';
import { kernelContextNamed, kernelContexts } from '../analysis/context.js';
import type { KernelContext } from '../analysis/types.js';
import { kernelResources } from '../analysis/resources.js';
import { occupancyJson } from '../check/format.js';
import { formatOccupancies, ldsAssumption } from '../analysis/occupancy.js';
import { ownString } from '../asm/intern.js';

/**
 * occupancy (descriptor) and (registers used) of a kernel: a reordering changes neither (it
 * renames no register), so `schedule` and `apply` print them once beside the metrics, whose
 * `occupancy` is occupancy (peak live).
 */
export function fixedOccupancies(l: Loaded, kernel: string): FixedOccupancies | undefined {
  const ctx = kernelContextNamed(l, kernel);
  return ctx ? occupanciesOf(ctx) : undefined;
}

export interface FixedOccupancies { text: string; json: ReturnType<typeof occupancyJson> }

/**
 * fixedOccupancies of every kernel of `l`, by name: what `schedule` prints beside a kernel's
 * result, taken before the run so that the input's Loaded need not be kept through it.
 */
export function inputOccupancies(l: Loaded): Map<string, FixedOccupancies> {
  const out = new Map<string, FixedOccupancies>();
  // keyed by names that share no memory with the input's text, which the map outlives
  for (const ctx of kernelContexts(l)) if (!out.has(ctx.kernel.name)) out.set(ownString(ctx.kernel.name), occupanciesOf(ctx));
  return out;
}

function occupanciesOf(ctx: KernelContext): FixedOccupancies {
  const { descriptor, registersUsed } = kernelResources(ctx).resources.occupancy;
  const o = { descriptor, registersUsed };
  const assumed = ldsAssumption(o);
  return { text: `${formatOccupancies(o)} (a reordering changes neither${assumed !== undefined ? `; ${assumed}` : ''})`, json: occupancyJson(o) };
}
