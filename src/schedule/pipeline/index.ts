/**
 * Software pipelining by one stage across a loop's back edge (plan.ts: which loops and how;
 * transform.ts: the program text). `schedule` tries it as one more candidate, judged by the
 * objective like any other schedule; `verify` proves the result in its own code.
 */
export { planPipelines, loopCounter, boundEncodable } from './plan.js';
export type { PipelinePlan, PipelineRefusal, LoopCounter, Rename, TwoStage } from './plan.js';
export { pipelineProgram, pipelineTwoStage } from './transform.js';
export type { PipelinedLoop, PipelinedProgram } from './transform.js';
