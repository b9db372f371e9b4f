/** The cycle model: single-wave and multi-wave estimates, lower bounds, the simulate report. */
export { estimateCycles, lowerBound, cycleEngineFor } from './estimate.js';
export type { EstimateOptions, LowerBound } from './estimate.js';
export { buildCycleModel } from './model.js';
export type { CycleModel } from './model.js';
export { CycleEngine } from './engine.js';
export type { TraceRow, RunOptions } from './engine.js';
export { simulateKernel, simulateLoop, kernelWalk, findLoops, formatKernelReport, formatParams } from './simulate.js';
export type { KernelCycleReport, InsnRow, BlockReport, LoopReport, BoundReport, SimulateOptions } from './simulate.js';
export { defaultCycleParams, applyLatencyFile, allParamKeys, paramDoc, LatencyFileError } from '../targets/latency.js';
export type { CycleParams, ParamKey } from '../targets/latency.js';
