import type { Loc } from './asm/ast.js';

/**
 * An error in the user's input (exit code 2): bad assembly, an unknown target, a missing file.
 * It names the place (file:line:col) when there is one and prints like clang.
 */
export class ConductorError extends Error {
  constructor(message: string, public readonly loc?: Loc, public readonly notes: { message: string; loc?: Loc }[] = []) {
    super(message);
    this.name = 'ConductorError';
  }

  /** clang-style: `file:line:col: error: message`. */
  format(): string {
    const head = this.loc ? `${this.loc.file}:${this.loc.line}:${this.loc.col}: error: ${this.message}` : `error: ${this.message}`;
    const notes = this.notes.map((n) => (n.loc ? `${n.loc.file}:${n.loc.line}:${n.loc.col}: note: ${n.message}` : `note: ${n.message}`));
    return [head, ...notes].join('\n');
  }
}

export function formatLoc(loc: Loc): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}
