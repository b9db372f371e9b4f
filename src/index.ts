/** Conductor's library: every command is a typed function a program can call. */
export { parseProgram, kernelInstructions } from './asm/parser.js';
export { parseInstructionText } from './asm/instruction.js';
export { printProgram } from './asm/printer.js';
export type * from './asm/ast.js';
export { loadFile, loadText, chooseTarget } from './load.js';
export type { Loaded, LoadOptions } from './load.js';
export { resolveProgram, resolveInstruction } from './isa/resolve.js';
export type * from './isa/types.js';
export * from './isa/registers.js';
export { getTarget, resolveTarget, parseTargetId, TARGETS, TARGET_NAMES } from './targets/index.js';
export type { Target, TargetName, Feature } from './targets/index.js';
export { buildCfg } from './analysis/cfg.js';
export type { Cfg, BasicBlock } from './analysis/cfg.js';
export { computeLiveness, computePressure } from './analysis/liveness.js';
export { analyzeLoaded, formatAnalysis } from './analysis/analyze.js';
export type { FileAnalysis, KernelAnalysis } from './analysis/analyze.js';
export { ConductorError, InputErrors } from './errors.js';
