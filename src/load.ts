/**
 * The front of every command: read a file, parse it, pick its target, resolve every
 * instruction against the target. Input that cannot be read (a syntax error, an unknown
 * mnemonic or target, a register the target does not have) becomes an InputErrors listing
 * every problem with file:line:col (exit code 2), so no command works on a partial program.
 * Operand-legality errors (operands llvm-mc refuses to combine; the instruction is readable)
 * refuse the program the same way, unless the caller asks to report them (`check`).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { Diagnostic, Program } from './asm/ast.js';
import type { IncludeReader } from './asm/include.js';
import { parseProgram, type ParseOptions } from './asm/parser.js';
import { parseDifference, ParsedProgram, type LineReuse } from './asm/program.js';
import { readSource } from './io.js';
import { checkFastFromEnv, compareLocs, ConductorError, FastPathMismatch, InputErrors } from './errors.js';
import { parseTargetId, resolveTarget, TARGET_NAMES, type Target } from './targets/index.js';
import { isOperandLegality, resolveProgram } from './isa/resolve.js';
import { resolutionDifference, type ResolvedStore } from './isa/resolved-store.js';
import type { ResolvedInsn } from './isa/types.js';

export interface Loaded {
  program: Program;
  target: Target;
  /** How the target was chosen, for messages. */
  targetSource: string;
  /** Notes about the target (aliases such as gfx900 checked as gfx906). */
  targetNote?: string;
  /** XNACK as the target id says (--arch's, else the file's .amdgcn_target): true (+), false (-), undefined (any). */
  xnack?: boolean;
  /** Resolved instructions, parallel to program.instructions. */
  resolved: ResolvedInsn[];
  /**
   * The same resolution as numbers (isa/resolved-store.ts; its `insns` is the program's
   * instruction store): what a check can read without the objects. A Loaded made by hand (a
   * copy with other `resolved`) must not keep it.
   */
  resolvedStore?: ResolvedStore;
  /** What the launch gives every kernel beyond the file (--lds, --workgroup-size). */
  launch?: Launch;
  /** Warnings from parsing and resolving (errors throw). */
  warnings: Diagnostic[];
  /**
   * Operand-legality errors (rule `operand-*`): instructions llvm-mc would refuse, whose
   * registers and effects are known. Empty unless loaded with `operandErrors: 'report'`.
   */
  operandErrors: Diagnostic[];
}

export interface LoadOptions {
  arch?: string;
  /** Display name for the file in messages (defaults to the path). */
  displayName?: string;
  /**
   * Operand-legality errors: 'refuse' (default) fails the load like any bad input; 'report'
   * keeps them in `operandErrors` and loads the program.
   */
  operandErrors?: 'refuse' | 'report';
  /** Where the text was read from, for `.include` (defaults to the file name). */
  path?: string;
  /** Directories to look in for `.include`d files after the current one (llvm-mc's -I). */
  includeDirs?: readonly string[];
  /** The launch (Loaded.launch); default: the command's (setLaunch). */
  launch?: Launch;
  /** Rows of an earlier parse the parser may copy (ParseOptions.reuse: a text made from that one's by waits and nops, or by lines moved within regions). */
  reuse?: LineReuse;
  /**
   * With `reuse`: the resolution of the program `reuse` was made from, whose rows' resolutions the
   * rows copied from them take (isa/resolve.ts ResolveReuse).
   */
  reuseResolution?: ResolvedStore;
  /** With `reuse`, parse (and resolve) the text again from scratch and throw FastPathMismatch when the two differ (default: CONDUCTOR_CHECK_FAST=1). */
  checkFast?: boolean;
}

/**
 * How `.include "name"` finds its file: as llvm-mc does (SourceMgr::OpenIncludeFile), the name
 * as given (from the current directory), then in each -I directory; then, beyond llvm-mc, in
 * the including file's directory (where a kernel's own .inc files usually are).
 */
export function includeReader(dirs: readonly string[] = []): IncludeReader {
  return (name, includer) => {
    const candidates = isAbsolute(name) ? [name] : [name, ...dirs.map((d) => join(d, name)), join(dirname(includer), name)];
    for (const c of candidates) {
      let bytes: Buffer;
      try {
        if (!statSync(c).isFile()) continue;
        bytes = readFileSync(c);
      } catch {
        continue;
      }
      let text: string;
      try {
        if (bytes.indexOf(0) >= 0) throw new Error('NUL');
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        throw new ConductorError(`${c}: the file .include '${name}' names is not a text file (not valid UTF-8, or a NUL byte)`);
      }
      return { path: c, id: resolve(c), text };
    }
    return undefined;
  };
}

let commandIncludeDirs: readonly string[] = [];

/** The -I directories of the command line: every load looks in them unless its options name others. */
export function setIncludeDirs(dirs: readonly string[]): void {
  commandIncludeDirs = [...dirs];
}

/**
 * What a kernel's launch gives it that its file does not say: `lds`, LDS bytes per workgroup
 * allocated beyond the descriptor's (dynamic shared memory: Triton's `shared`, HIP's extern
 * __shared__ sized at launch; --lds), and `workgroupSize`, the work-items per workgroup
 * (--workgroup-size; else 256 is assumed, analysis/occupancy.ts). Both count in occupancy.
 */
export interface Launch { lds?: number; workgroupSize?: number }

let commandLaunch: Launch | undefined;

/**
 * The command's launch (--lds, --workgroup-size), for every program this thread loads. A worker
 * thread is given it in its task (Loaded.launch).
 */
export function setLaunch(launch: Launch | undefined): void {
  commandLaunch = launch && (launch.lds !== undefined || launch.workgroupSize !== undefined) ? { ...launch } : undefined;
}

/** The parser's options for a text loaded as `file`: its includes and the processor --arch names. */
function parseOptions(file: string, opts: LoadOptions): ParseOptions {
  const path = opts.path ?? file;
  const processor = opts.arch !== undefined ? /^(gfx[0-9a-z]+)/i.exec(opts.arch)?.[1] : undefined;
  return { include: { path, id: resolve(path), read: includeReader(opts.includeDirs ?? commandIncludeDirs) }, processor, ...(opts.reuse ? { reuse: opts.reuse } : {}) };
}

/**
 * The text a loaded program was parsed from: the file's text, or with `.include`d files spliced
 * in (asm/include.ts). Commands that edit and write the program work on this text.
 */
export function loadedText(l: Loaded, text: string): string {
  return l.program instanceof ParsedProgram ? l.program.source : text;
}

export async function loadFile(file: string, opts: LoadOptions = {}): Promise<Loaded> {
  const text = await readSource(file);
  return loadText(text, opts.displayName ?? file, { ...opts, path: opts.path ?? file });
}

/** Pick the target: --arch wins, else the file's .amdgcn_target. */
export function chooseTarget(program: Program, arch?: string): { target: Target; source: string; note?: string; xnack?: boolean } {
  if (arch !== undefined) {
    const r = resolveTarget(arch);
    if (!r) throw new ConductorError(`unknown target '${arch}' (known: ${TARGET_NAMES.join(', ')})`);
    const d = program.declaredTarget;
    const declared = d ? resolveTarget(d.name)?.target.name ?? d.name : undefined;
    const over = d && declared !== r.target.name
      ? `--arch ${r.target.name} overrides the file's .amdgcn_target ${d.name} (line ${d.loc.line})` : undefined;
    // a feature --arch does not name is the file's (gfx942 over gfx942:xnack- keeps xnack-)
    const fileXnack = d ? parseTargetId(d.name + (d.features ? `:${d.features}` : ''))?.features.xnack : undefined;
    return { target: r.target, source: '--arch', note: [over, r.note].filter(Boolean).join('; ') || undefined, xnack: r.id.features.xnack ?? fileXnack };
  }
  const d = program.declaredTarget;
  if (!d) {
    throw new ConductorError(`${program.file}: no target: the file has no .amdgcn_target directive; pass --arch (${TARGET_NAMES.join(', ')})`);
  }
  const r = resolveTarget(d.name + (d.features ? `:${d.features}` : '')) ?? resolveTarget(d.name);
  if (!r) throw new ConductorError(`target '${d.name}' is not supported (supported: ${TARGET_NAMES.join(', ')}); pass --arch to check it as one of them`, d.loc);
  return { target: r.target, source: '.amdgcn_target', note: r.note, xnack: r.id.features.xnack };
}

export function loadText(text: string, file: string, opts: LoadOptions = {}): Loaded {
  const program = parseProgram(text, file, parseOptions(file, opts));
  if (opts.reuse && (opts.checkFast ?? checkFastFromEnv())) {
    const again = parseProgram(text, file, parseOptions(file, { ...opts, reuse: undefined }));
    const d = parseDifference(program, again);
    if (d !== undefined) throw new FastPathMismatch(`fast path check: ${file} parsed copying the rows of the lines an edit left differs from it parsed again: ${d}`);
  }
  const parseErrors = program.diagnostics.filter((d) => d.severity === 'error');
  const { target, source, note, xnack } = chooseTarget(program, opts.arch);
  const from = program instanceof ParsedProgram ? program.reusedFrom : undefined;
  const rs = opts.reuseResolution;
  const r = resolveProgram(program, target, from && rs && rs.insns === opts.reuse?.store ? { reuse: { rs, from } } : {});
  if (from && rs && (opts.checkFast ?? checkFastFromEnv())) {
    const d = resolutionDifference(r.store, resolveProgram(program, target).store);
    if (d !== undefined) throw new FastPathMismatch(`fast path check: ${file} resolved copying the resolutions of the rows its parse copied differs from it resolved afresh: ${d}`);
  }
  const report = opts.operandErrors === 'report';
  const operandErrors = r.diagnostics.filter((d) => d.severity === 'error' && isOperandLegality(d));
  const unreadable = [...parseErrors, ...r.diagnostics.filter((d) => d.severity === 'error' && !isOperandLegality(d))];
  if (unreadable.length > 0 || (operandErrors.length > 0 && !report)) {
    // Refused: every problem is listed, the operand errors with their rule.
    const errors = [...unreadable, ...operandErrors];
    errors.sort((a, b) => compareLocs(a.loc, b.loc));
    throw new InputErrors(errors.map((e) => ({ message: isOperandLegality(e) ? `${e.message} [${e.rule}]` : e.message, loc: e.loc, ...(e.related ? { notes: e.related } : {}) })));
  }
  const warnings = [...program.diagnostics, ...r.diagnostics].filter((d) => d.severity !== 'error');
  const launch = opts.launch ?? commandLaunch;
  return {
    program, target, targetSource: source, targetNote: note, xnack, resolved: r.insns, resolvedStore: r.store, warnings,
    operandErrors: report ? operandErrors : [], ...(launch !== undefined ? { launch } : {}),
  };
}

/** Parse only (emit): syntax errors are fatal, the target is not needed. */
export async function loadSyntax(file: string, opts: LoadOptions = {}): Promise<Program> {
  const text = await readSource(file);
  const program = parseProgram(text, file, parseOptions(file, { ...opts, path: opts.path ?? file }));
  const errors = program.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new InputErrors(errors.map((e) => ({ message: e.message, loc: e.loc })));
  return program;
}
