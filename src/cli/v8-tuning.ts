/**
 * V8 settings for the commands' processes: set after start, they apply to what follows and to
 * this process only (its worker threads too). Measured on the largest corpus kernel (README,
 * "Speed"); outputs are the same with and without them.
 */
import { setFlagsFromString } from 'node:v8';

/** For a process that analyses or checks files once and exits (analyze, check). */
export function tuneForOneAnalysis(): void {
  keepYoungGenerationSmall();
  inlineLess();
}

/**
 * For schedule: less inlining lowers its cpu time too (0.92x on the largest kernel with the
 * default budget, and on the example with 6,000 evaluations per run); a young generation kept
 * small changes nothing there.
 */
export function tuneForSchedule(): void {
  inlineLess();
}

/**
 * The analysis allocates many short-lived objects and keeps few: V8's young generation, left to
 * grow (by default it doubles after each scavenge that finds it busy), only adds pages that are
 * touched once. Keeping it at its starting size lowers the peak resident memory of one analysis by
 * about a sixth, at no cost in time. V8 reads the growth factor each time it resizes, so setting it
 * here, after start, takes effect; it affects this process only.
 */
function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * One analysis runs each hot function for a few hundred milliseconds: V8's optimizing compiler,
 * which inlines callees into a function up to 920 bytes of their bytecode by default, spends
 * more time and memory compiling than the inlined code saves. Half the budget or less (300)
 * lowers the process's cpu time by about a sixth and its peak resident memory by about 3 MiB on
 * the largest kernels (the compiler's working memory on its threads), with the same output. A
 * limit set after start applies to the compilations that follow; it affects this process only.
 */
function inlineLess(): void {
  setFlagsFromString('--max-inlined-bytecode-size-cumulative=300');
}
