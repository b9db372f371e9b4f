/** What `schedule` and `apply` print about occupancy beside their metrics. */
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { kernelResources } from '../analysis/resources.js';
import { occupancyJson } from '../check/format.js';
import { formatOccupancies } from '../analysis/occupancy.js';

/**
 * occupancy (descriptor) and (registers used) of a kernel: a reordering changes neither (it
 * renames no register), so `schedule` and `apply` print them once beside the metrics, whose
 * `occupancy` is occupancy (peak live).
 */
export function fixedOccupancies(l: Loaded, kernel: string): { text: string; json: ReturnType<typeof occupancyJson> } | undefined {
  const ctx = kernelContexts(l).find((c) => c.kernel.name === kernel);
  if (!ctx) return undefined;
  const { descriptor, registersUsed } = kernelResources(ctx).resources.occupancy;
  const o = { descriptor, registersUsed };
  return { text: `${formatOccupancies(o)} (a reordering changes neither)`, json: occupancyJson(o) };
}
