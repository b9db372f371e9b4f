/**
 * What every checker produces: findings (values, printed by one formatter as clang-style text,
 * JSON or SARIF) with an optional machine-applicable fix.
 */
import type { KernelSymbol, Loc } from '../asm/ast.js';
import type { Cfg } from './cfg.js';
import type { ResolvedInsn } from '../isa/types.js';
import type { Target } from '../isa/target.js';
import type { Program } from '../asm/ast.js';
import type { Launch } from '../load.js';
import type { Note } from '../errors.js';

export type Severity = 'error' | 'warning' | 'note';

/** A note of a finding (a Note with its place; `kind` as Note's). */
export interface Related extends Note {
  loc: Loc;
  /** Index into KernelContext.insns of the related instruction (the producer), if any. */
  insn?: number;
}

/**
 * A fix, in terms of the kernel's instruction indexes (KernelContext.insns).
 * - nop: at least `waitStates` wait states are needed right before instruction `before`
 *   (the fixer merges with an s_nop already there and splits into s_nop chunks).
 * - waitcnt: insert (or merge into the s_waitcnt right before) a wait with these counter values.
 * - set-waitcnt: replace the counters of the existing s_waitcnt `insn` (weaken a too-strong wait).
 * - remove: delete instruction `insn` (a redundant wait).
 */
export type Fix =
  | { kind: 'nop'; before: number; waitStates: number }
  | { kind: 'waitcnt'; before: number; vmcnt?: number; expcnt?: number; lgkmcnt?: number }
  | { kind: 'set-waitcnt'; insn: number; vmcnt?: number; expcnt?: number; lgkmcnt?: number }
  | { kind: 'remove'; insn: number };

export interface Finding {
  /** Rule id, e.g. `mfma-xdl-write-valu-read`, `waitcnt-missing`, `waitcnt-redundant`. */
  rule: string;
  severity: Severity;
  message: string;
  /** The consumer: the instruction that must wait (or the wait itself for waitcnt warnings). */
  loc: Loc;
  /** Index into KernelContext.insns of that instruction. */
  insn: number;
  /** Wait states (hazards) or counter value (waitcnt) the rule demands. */
  required?: number;
  /** What is present. */
  actual?: number;
  related: Related[];
  fix?: Fix;
  /** Reference the rule comes from (file and section), for --format json/sarif and the docs. */
  source?: string;
  /** A missing wait that falls short only on some paths into the instruction (a warning unless --paths all). */
  somePaths?: true;
}

/** Everything a checker needs about one kernel. */
export interface KernelContext {
  program: Program;
  target: Target;
  kernel: KernelSymbol;
  cfg: Cfg;
  /** Resolved instruction for each cfg.insns index. */
  insns: ResolvedInsn[];
  /** XNACK setting from the target id: true (+), false (-), undefined (any). */
  xnack?: boolean;
  /** What the launch gives the kernel beyond its file (load.ts Launch: --lds, --workgroup-size). */
  launch?: Launch;
}
