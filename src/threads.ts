/** The default thread count of a search, in a module of its own: the command's start (src/cli/main.ts rerunArgs) reads it without loading the search. */
import * as os from 'node:os';

/**
 * Threads a search runs on when the caller does not say (--jobs): one less than the machine's
 * parallelism, at most 4 (a phase runs at most two strategies at once by default), at least 1. A
 * worker thread loads and prepares its own copy of the kernel and runs its strategy on code V8
 * has not yet compiled in it, and V8's own threads (garbage collection, compilation) need a core
 * too: on two cores, one thread scheduled each kernel measured in 0.76-0.94x the wall time of two,
 * with 0.67-0.81x the CPU time and 0.75-0.81x the peak memory, and the same output (README, "Speed").
 */
export function defaultJobs(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}
