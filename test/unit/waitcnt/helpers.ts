/** Shared helpers of the waitcnt unit tests (snippets without a kernel label: a top-level region). */
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { Finding, KernelContext } from '../../../src/analysis/types.js';
import { checkWaitcnt } from '../../../src/waitcnt/index.js';

export function ctxOf(lines: string[], arch = 'gfx942'): KernelContext {
  const ctxs = kernelContextsFromText(lines.join('\n') + '\n', 'snippet.s', arch);
  return ctxs[ctxs.length - 1]!;
}

export function check(lines: string[], arch = 'gfx942'): Finding[] {
  return checkWaitcnt(ctxOf(lines, arch));
}

/** Compact view of findings: "line rule counter=value" (errors), "line rule" (others). */
export function summary(fs: Finding[]): string[] {
  return fs.map((f) => {
    if (f.fix?.kind === 'waitcnt') {
      const { kind: _k, before: _b, ...vals } = f.fix;
      return `${f.loc.line} ${f.rule} ${Object.entries(vals).map(([k, v]) => `${k}=${v}`).join(' ')}`;
    }
    if (f.fix?.kind === 'set-waitcnt') {
      const { kind: _k, insn: _i, ...vals } = f.fix;
      return `${f.loc.line} ${f.rule} -> ${Object.entries(vals).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}`;
    }
    return `${f.loc.line} ${f.rule}${f.fix?.kind === 'remove' ? ' (remove)' : ''}`;
  });
}

export const errors = (fs: Finding[]) => fs.filter((f) => f.severity === 'error');

/** A missing wait as "severity line [notes after the producer's: line: message; ...]" (the paths it falls short on). */
export function pathShape(f: Finding): string {
  return `${f.severity} ${f.loc.line} [${f.related.slice(1).map((r) => `${r.loc.line}: ${r.message}`).join('; ')}]`;
}
