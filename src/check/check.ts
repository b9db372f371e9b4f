/**
 * `check`: every kernel of a loaded file through every checker (hazards, waitcnt, resources).
 * Checkers are plain functions of a KernelContext returning Findings; the registry is the one
 * place that lists them.
 */
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { kernelResources, type KernelResources } from '../analysis/resources.js';
import type { Finding, KernelContext } from '../analysis/types.js';
import { CHECKERS } from './checkers.js';
import type { PathsMode } from '../waitcnt/index.js';

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
  /** Only these checkers (by name); default all. */
  only?: string[];
  /** Which missing waits are errors (waitcnt PathsMode; default 'every'). */
  paths?: PathsMode;
}

export function checkContexts(contexts: KernelContext[], opts: CheckOptions = {}): KernelCheck[] {
  const checkers = opts.only ? CHECKERS.filter((c) => opts.only!.includes(c.name)) : CHECKERS;
  return contexts.map((ctx) => {
    const { resources, findings } = kernelResources(ctx);
    for (const c of checkers) findings.push(...c.run(ctx, opts));
    findings.sort(byLocation);
    return {
      name: ctx.kernel.name, kind: ctx.kernel.kind, line: ctx.kernel.loc.line, instructions: ctx.insns.length,
      resources, findings,
    };
  });
}

export function checkLoaded(l: Loaded, opts: CheckOptions = {}): CheckReport {
  const kernels = checkContexts(kernelContexts(l), opts);
  const findings: Finding[] = kernels.flatMap((k) => k.findings);
  // Warnings of parsing and resolving, and the operand-legality errors of a program loaded to report them.
  for (const w of [...l.warnings, ...l.operandErrors]) {
    findings.push({ rule: w.rule ?? 'parse', severity: w.severity, message: w.message, loc: w.loc, insn: -1, related: [], source: w.source });
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
  return a.loc.line - b.loc.line || a.loc.col - b.loc.col || a.rule.localeCompare(b.rule);
}
