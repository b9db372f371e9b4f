/**
 * The hazard checker (s_nop wait states): rules in ./rules, the engine in ./engine.ts.
 * hazards-and-waitcnt-facts.md §1-§3 and the ISA tables in shared/reference are the sources.
 */
export { checkHazards, computeNops, minimalPadding, activeRules, checkContext, computeNopsIn, checkWithPadding } from './engine.js';
export type { HazardOptions, NopPlan } from './engine.js';
export { ALL_RULES, ruleById } from './rules/index.js';
export { HazardContext, computeFacts } from './context.js';
export type { InsnFacts } from './context.js';
export type { HazardRule, Need, WaitStateFact, Generation } from './types.js';
export { generationOf, waitOf, maxWaitOf } from './types.js';
