/**
 * `check`: every kernel of a loaded file through every checker (hazards, waitcnt, resources).
 * Checkers are plain functions of a KernelContext returning Findings, passed in by the caller
 * (DEFAULT_CHECKERS unless it says otherwise). A checker that throws stops the check with an
 * error naming it: a check that silently skipped a checker would report a kernel clean.
 */
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { kernelResources, type KernelResources } from '../analysis/resources.js';
import type { Finding, KernelContext } from '../analysis/types.js';
import type { Instruction } from '../asm/ast.js';
import { expansionNote } from '../asm/program.js';
import { DEFAULT_CHECKERS, type Checker } from './checkers.js';
import type { PathsMode } from '../waitcnt/index.js';
import { compareLocs, ConductorError, type Loc } from '../errors.js';
import { firstRawWords } from '../analysis/rawwords.js';
import { counted } from '../text.js';

export interface KernelCheck {
  name: string;
  kind: 'kernel' | 'function';
  line: number;
  instructions: number;
  resources: KernelResources;
  findings: Finding[];
}

export interface CheckReport {
  file: string;
  arch: string;
  notes: string[];
  kernels: KernelCheck[];
  /** All findings of all kernels plus warnings from parsing, sorted by line. */
  findings: Finding[];
  errors: number;
  warnings: number;
}

export interface CheckOptions {
  /** The checkers to run (default DEFAULT_CHECKERS). */
  checkers?: readonly Checker[];
  /** Only these checkers (by name); default all. */
  only?: string[];
  /** Which missing waits are errors (waitcnt PathsMode; default 'every'). */
  paths?: PathsMode;
}

export function checkContexts(contexts: KernelContext[], opts: CheckOptions = {}): KernelCheck[] {
  const all = opts.checkers ?? DEFAULT_CHECKERS;
  const checkers = opts.only ? all.filter((c) => opts.only!.includes(c.name)) : all;
  return contexts.map((ctx) => {
    const { resources, findings } = kernelResources(ctx);
    const raw = rawJumpFinding(ctx);
    if (raw) findings.push(raw);
    const words = rawWordsFinding(ctx);
    if (words) findings.push(words);
    for (const c of checkers) findings.push(...runChecker(c, ctx, opts));
    for (const f of findings) noteExpansion(ctx, f);
    findings.sort(byLocation);
    return {
      name: ctx.kernel.name, kind: ctx.kernel.kind, line: ctx.kernel.loc.line, instructions: ctx.insns.length,
      resources, findings,
    };
  });
}

/**
 * The findings of the named checkers (DEFAULT_CHECKERS by name) on one kernel, in checkContexts'
 * order, without the resources and the expansion notes checkContexts adds: for a caller that
 * knows only those checkers can find something new (fix.ts and schedule/emit.ts CheckScope).
 */
export function checkerFindings(ctx: KernelContext, names: readonly string[], opts: CheckOptions = {}): Finding[] {
  const out: Finding[] = [];
  for (const c of opts.checkers ?? DEFAULT_CHECKERS) if (names.includes(c.name)) out.push(...runChecker(c, ctx, opts));
  return out.sort(byLocation);
}

/** A finding at an instruction a macro or repeat block wrote: a note names the body line (expansionNote). */
function noteExpansion(ctx: KernelContext, f: Finding): void {
  const insn = ctx.insns[f.insn]?.insn;
  const note = insn && expansionNote(ctx.program, insn.stmt);
  if (note) f.related.push(note);
}

/**
 * A kernel that jumps by raw offset (Cfg.rawJumps): a warning at its first such jump. The checks
 * do not follow those jumps, and schedule, apply and --fix leave the kernel as written
 * (rawJumpRefusal): any s_nop or s_waitcnt added, removed or moved would move their targets.
 */
function rawJumpFinding(ctx: KernelContext): Finding | undefined {
  const j = firstRawJump(ctx);
  if (!j) return undefined;
  return {
    rule: 'raw-offset-jump', severity: 'warning', loc: j.insn.loc, insn: j.index, related: [],
    message: `${j.text} jumps by a raw offset, not to a label (${j.count} in ${ctx.kernel.name}): ` +
      'the checks do not follow it (nor claim a wait redundant or too strong here), and schedule, apply and check --fix leave this kernel as written, since any change of its code moves the targets',
    source: 'the branch encodes its target as a word offset from the next instruction (AMD GCN/CDNA ISA, SOPP branches; s_setpc_b64 of an s_getpc_b64 value)',
  };
}

/** The refusal to change a kernel that jumps by raw offset (Cfg.rawJumps), or undefined. */
export function rawJumpRefusal(ctx: KernelContext, action: string): ConductorError | undefined {
  return refusal(ctx, action, rawJumpReason(ctx));
}

/** `cannot <action> <kernel>: <reason>` at the reason's place, when there is a reason. */
export function refusal(ctx: KernelContext, action: string, r: { reason: string; loc: Loc } | undefined): ConductorError | undefined {
  return r && new ConductorError(`cannot ${action} ${ctx.kernel.name}: ${r.reason}`, r.loc);
}

/** Why a kernel that jumps by raw offset is left as written, and where, or undefined. */
export function rawJumpReason(ctx: KernelContext): { reason: string; loc: Loc } | undefined {
  const j = firstRawJump(ctx);
  if (!j) return undefined;
  return { reason: `'${j.text}' jumps by a raw offset, not to a label (${j.count}); any s_nop or s_waitcnt added, removed or moved would move its target`, loc: j.insn.loc };
}

/** A kernel's first raw-offset jump, its text, and how many it has ("3 such jumps"). */
function firstRawJump(ctx: KernelContext): { index: number; insn: Instruction; text: string; count: string } | undefined {
  const raw = ctx.cfg.rawJumps;
  if (raw.length === 0) return undefined;
  const insn = ctx.insns[raw[0]!]!.insn;
  return { index: raw[0]!, insn, text: insn.text.trim(), count: counted(raw.length, 'such jump') };
}

/**
 * A kernel with data words among its instructions: a warning at the first. What they encode is
 * not read (its registers, counters and hazards), and schedule and apply leave the kernel as
 * written (rawWordsRefusal): a wait they move or re-derive could be one the words need.
 */
function rawWordsFinding(ctx: KernelContext): Finding | undefined {
  const w = firstRawWords(ctx.program, ctx.cfg.insns);
  if (!w) return undefined;
  return {
    rule: 'raw-code-words', severity: 'warning', loc: w.loc, insn: -1, related: [],
    message: `'${w.text}' puts data words among the instructions of ${ctx.kernel.name} (${w.count}; instructions encoded by hand?): ` +
      'Conductor does not decode them: the registers, memory counters and hazards of what they encode are not checked (a wait before them may look redundant), ' +
      'and schedule and apply leave this kernel as written, since a wait moved across them could be one they need',
    source: 'llvm-mc emits data directives as written; only the hardware decodes them as instructions',
  };
}

/** The refusal to reorder a kernel with data words among its instructions, or undefined. */
export function rawWordsRefusal(ctx: KernelContext, action: string): ConductorError | undefined {
  return refusal(ctx, action, rawWordsReason(ctx));
}

/** Why a kernel with data words among its instructions is left as written, and where, or undefined. */
export function rawWordsReason(ctx: KernelContext): { reason: string; loc: Loc } | undefined {
  const w = firstRawWords(ctx.program, ctx.cfg.insns);
  if (!w) return undefined;
  return { reason: `'${w.text}' puts data words among its instructions (${w.count}), which Conductor does not decode; a wait moved or re-derived across them could be one they need`, loc: w.loc };
}

function runChecker(c: Checker, ctx: KernelContext, opts: CheckOptions): Finding[] {
  try {
    return c.run(ctx, opts);
  } catch (e) {
    if (e instanceof ConductorError) throw e;
    throw new Error(`checker '${c.name}' failed on ${ctx.kernel.kind} ${ctx.kernel.name} of ${ctx.program.file}: ${(e as Error).message}`, { cause: e });
  }
}

export function checkLoaded(l: Loaded, opts: CheckOptions = {}): CheckReport {
  const kernels = checkContexts(kernelContexts(l), opts);
  const findings: Finding[] = kernels.flatMap((k) => k.findings);
  // Warnings of parsing and resolving, and the operand-legality errors of a program loaded to report them.
  for (const w of [...l.warnings, ...l.operandErrors]) {
    findings.push({ rule: w.rule ?? 'parse', severity: w.severity, message: w.message, loc: w.loc, insn: -1, related: w.related ?? [], source: w.source });
  }
  findings.sort(byLocation);
  const notes: string[] = [];
  if (l.targetNote) notes.push(l.targetNote);
  for (const k of kernels) for (const n of k.resources.notes) notes.push(`${k.name}: ${n}`);
  if (l.program.instructions.length === 0 && l.program.rawWords > 0) {
    notes.push(`no decodable instructions: the code is ${l.program.rawWords} raw data words (.long); nothing to check`);
  }
  return {
    file: l.program.file, arch: l.target.name, notes, kernels, findings,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
  };
}

export function byLocation(a: Finding, b: Finding): number {
  return compareLocs(a.loc, b.loc) || a.rule.localeCompare(b.rule);
}
