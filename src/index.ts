/** Conductor's library: every command is a typed function a program can call. */
export { parseProgram, kernelInstructions } from './asm/parser.js';
export { parseInstructionText } from './asm/instruction.js';
export { printProgram } from './asm/printer.js';
export type * from './asm/ast.js';
export { loadFile, loadText, chooseTarget } from './load.js';
export type { Loaded, LoadOptions } from './load.js';
export { resolveProgram, resolveInstruction } from './isa/resolve.js';
export type { ResolvedProgram } from './isa/resolve.js';
export {
  InsnStore, OPCODES, MODIFIER_NAMES, OP_REG, OP_IMM, OP_EXPR, OP_OFF, OP_CONST, OP_WAITCNT, OP_FUNC,
  FILE_V, FILE_S, FILE_A, FILE_TTMP, FILE_SPECIAL, OPF_NEG, OPF_ABS, OPF_SEXT, OPF_FLOAT, MF_VALUE, MF_NUM, MF_LIST,
} from './asm/store.js';
export { ParsedProgram } from './asm/program.js';
export { ResolvedStore, UnitPool, ROLES, ACC_DEF, ACC_USE, RS_UNKNOWN } from './isa/resolved-store.js';
export type * from './isa/types.js';
export * from './asm/registers.js';
export { getTarget, resolveTarget, parseTargetId, TARGETS, TARGET_NAMES } from './targets/index.js';
export type { Target, TargetName, Feature } from './targets/index.js';
export { buildCfg } from './analysis/cfg.js';
export type { Cfg, BasicBlock } from './analysis/cfg.js';
export { computeLiveness, computePressure } from './analysis/liveness.js';
export { analyzeLoaded, formatAnalysis } from './check/analyze.js';
export type { FileAnalysis, KernelAnalysis } from './check/analyze.js';
export { ConductorError, InputErrors } from './errors.js';
export { checkLoaded, checkContexts } from './check/check.js';
export type { CheckReport, KernelCheck } from './check/check.js';
export { kernelContexts, kernelContextsFromText } from './analysis/context.js';
export type { Finding, Fix, KernelContext, Severity } from './analysis/types.js';
export { fixLoaded } from './check/fix.js';
export { formatReportClang, formatReportJson, formatReportSarif } from './check/format.js';
export { DEFAULT_CHECKERS, type Checker } from './check/checkers.js';
export { checkHazards, computeNops, ALL_RULES } from './hazards/index.js';
export { checkWaitcnt, minimalWaits, rederiveWaits } from './waitcnt/index.js';
export { estimateCycles, lowerBound, simulateKernel, formatKernelReport, defaultCycleParams, applyLatencyFile } from './cycles/index.js';
export type { EstimateOptions, KernelCycleReport, SimulateOptions, CycleParams } from './cycles/index.js';
export { computeOccupancy, declaredResources } from './analysis/occupancy.js';
export * from './agent/index.js';
export { reportFile, buildReportModel, kernelView, renderReportHtml, alignScheduled, occupancyBreakpoints, metricDeltas } from './report/index.js';
export type { ReportModel, KernelView, ReportOptions, ReportFileOptions, Comparison, MetricDelta, Alignment } from './report/index.js';
