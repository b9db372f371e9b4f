/**
 * The hazard checker (s_nop wait states): rules in ./rules, the engine in ./engine.ts.
 * Sources: LLVM's GCNHazardRecognizer (each rule names its check) and the ISA wait-state tables
 * (CDNA3 ISA §4.5 Table 11 and §7.5 Table 37, MI200 ISA §4.5 Table 9, CDNA4 ISA §4.5 Table 11 and
 * §7.6 Table 38).
 */
export { checkHazards, computeNops, activeRules, checkContext, computeNopsIn, checkWithPadding } from './engine.js';
export type { HazardOptions, NopPlan } from './engine.js';
export { ALL_RULES, ruleById } from './rules/index.js';
export { HazardContext, hazardInsns } from './context.js';
export type { HazardInsn } from './context.js';
export type { HazardRule, Need, WaitStateFact, Generation } from './types.js';
export { generationOf, waitOf, maxWaitOf } from './types.js';
