/**
 * The scheduling engine: regions and tags, dependency graphs, move commands with validation and
 * undo, metrics (fast `Evaluator.evaluate` and exact `programMetrics`), emission with
 * re-derived waits and nops, and rounds.
 *
 * A search strategy typically does:
 *   const k = pickKernel(loaded);                  // regions, tags, graphs
 *   const ev = new Evaluator(k);                    // caches per region
 *   const s = new ScheduleState(k);                 // identity schedule
 *   if (canMove(s, r, from, to)) moveTo(s, r, from, to);   // O(distance)
 *   const m = ev.evaluate(s);                       // incremental per region
 *   compareMetrics(m, best, objective) < 0 ...
 *   emitSchedule(s).text                            // exact program, checked clean
 */
export { ROLE, prepareKernel, prepareKernels, pickKernel, pinnedReason } from './kernel.js';
export type { ScheduleKernel, ScheduleOptions, Region } from './kernel.js';
export { buildGraph, dependent, explainDependency } from './deps.js';
export type { DepGraph, DepKind, DepExplanation } from './deps.js';
export { memAccessOf, conflictMems } from './memory.js';
export type { MemAccess } from './memory.js';
export { parseCommand, parseRounds, parseRoundsOrThrow, parseCommandArgs } from './commands.js';
export type { Command, ParsedRounds, CommandSyntaxError } from './commands.js';
export { ScheduleState, canMove, moveTo, swapAt, applyCommand, isFailure, explainPair } from './state.js';
export type { CommandFailure, FailKind, ResolvedMove, RegionSnapshot } from './state.js';
export { Evaluator, programMetrics, contextMetrics, compareMetrics, parseObjective, formatMetrics, metricLabel, worseningText, higherIsBetter, METRIC_NAMES, DEFAULT_OBJECTIVE } from './metrics.js';
export type { Metrics, MetricName, EvaluatorOptions, RegionEval } from './metrics.js';
export { emitSchedule } from './emit.js';
export { reorderedText } from './reorder.js';
export { alignToOriginal } from './align.js';
export { scheduleWaits, tidyWaits } from './rederive.js';
export type { Emitted, Rederived } from './emit.js';
export { moveWarnings } from './warnings.js';
export type { MoveWarning, Severity, WarningKind } from './warnings.js';
export { ScheduleSession, applyRounds } from './session.js';
export type { SessionOptions, RoundReport, RoundOutcome, ApplyResult } from './session.js';
export { kernelListing, formatListing } from './listing.js';
export type { KernelListing, RegionListing, TaggedInsn } from './listing.js';
export { movesFromState, replayMoves } from './replay.js';
