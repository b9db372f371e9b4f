/** A position in a source file. Lines and columns are 1-based, as compilers print them. */
export interface Loc {
  file: string;
  line: number;
  col: number;
}

/** Locations in reading order: by file name (a program with `.include`d files), then line and column. */
export function compareLocs(a: Loc, b: Loc): number {
  return (a.file === b.file ? 0 : a.file < b.file ? -1 : 1) || a.line - b.line || a.col - b.col;
}

/**
 * A note beside an error or a finding, at its own place when it has one. `kind: 'expansion'`:
 * it names the macro or repeat body line the problem's instruction came from (asm/program.ts
 * expansionNote).
 */
export interface Note { message: string; loc?: Loc; kind?: 'expansion' }

/** clang-style: `file:line:col: note: message`. */
export function noteLine(n: Note): string {
  return n.loc ? `${formatLoc(n.loc)}: note: ${n.message}` : `note: ${n.message}`;
}

/**
 * An error in the user's input (exit code 2): bad assembly, an unknown target, a missing file.
 * It names the place (file:line:col) when there is one and prints like clang.
 */
export class ConductorError extends Error {
  constructor(message: string, public readonly loc?: Loc, public readonly notes: Note[] = []) {
    super(message);
    this.name = 'ConductorError';
  }

  /** clang-style: `file:line:col: error: message`. */
  format(): string {
    const head = this.loc ? `${formatLoc(this.loc)}: error: ${this.message}` : `error: ${this.message}`;
    return [head, ...this.notes.map(noteLine)].join('\n');
  }
}

const MAX_SHOWN_ERRORS = 20;

/** Several input errors at once (all parse errors of a file); the first is the message. */
export class InputErrors extends ConductorError {
  constructor(public readonly errors: { message: string; loc?: Loc; notes?: Note[] }[]) {
    super(errors[0]?.message ?? 'invalid input', errors[0]?.loc);
  }

  override format(): string {
    const shown = this.errors.slice(0, MAX_SHOWN_ERRORS);
    const lines = shown.flatMap((e) => [e.loc ? `${formatLoc(e.loc)}: error: ${e.message}` : `error: ${e.message}`, ...(e.notes ?? []).map(noteLine)]);
    if (this.errors.length > shown.length) lines.push(`... and ${this.errors.length - shown.length} more`);
    if (this.errors.length > 1) lines.push(`${this.errors.length} errors`);
    return lines.join('\n');
  }
}

export function formatLoc(loc: Loc): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

/** A cached or incremental result that differs from the same thing computed from scratch. */
export class FastPathMismatch extends Error {
  override name = 'FastPathMismatch';
}

/** Whether the environment asks for the fast paths to be checked (CONDUCTOR_CHECK_FAST=1). */
export function checkFastFromEnv(): boolean {
  return process.env['CONDUCTOR_CHECK_FAST'] === '1';
}
