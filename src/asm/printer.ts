import type { Program, SourceLine } from './ast.js';
import { ParsedProgram } from './program.js';
import { joinLines } from './source.js';

/**
 * Print a program. Untouched lines are printed byte-identical to the input; `edits` replaces
 * whole source lines (by 0-based index) with new text (which may hold several lines).
 */
export function printProgram(program: Program, edits?: ReadonlyMap<number, string>): string {
  if (!edits || edits.size === 0) {
    // The text parsed, unless its lines were built (and may have been edited since).
    if (program instanceof ParsedProgram && !program.linesBuilt) return program.source;
    return joinLines(program.lines);
  }
  const out: SourceLine[] = program.lines.map((l, i) => {
    const e = edits.get(i);
    return e === undefined ? l : { text: e, eol: l.eol };
  });
  return joinLines(out);
}
