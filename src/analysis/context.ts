import type { KernelSymbol } from '../asm/ast.js';
import { loadText, type Loaded } from '../load.js';
import { buildCfg } from './cfg.js';
import type { ResolvedInsn } from '../isa/types.js';
import type { KernelContext } from './types.js';
import { parseTargetId } from '../targets/index.js';

/** Build the per-kernel context: CFG plus the resolved instruction of every CFG instruction. */
export function kernelContexts(l: Loaded): KernelContext[] {
  const byStmt = new Map<number, ResolvedInsn>();
  l.program.instructions.forEach((insn, k) => byStmt.set(insn.stmt, l.resolved[k]!));
  const d = l.program.declaredTarget;
  const id = d ? parseTargetId(d.name + (d.features ? `:${d.features}` : '')) : undefined;
  return l.program.kernels.map((kernel: KernelSymbol) => {
    const cfg = buildCfg(l.program, kernel);
    return {
      program: l.program, target: l.target, kernel, cfg,
      insns: cfg.insns.map((i) => byStmt.get(i.stmt)!),
      xnack: id?.features.xnack,
    };
  });
}

/** Parse, resolve and build contexts from text (tests and snippets). */
export function kernelContextsFromText(text: string, file: string, arch?: string): KernelContext[] {
  return kernelContexts(loadText(text, file, { arch }));
}
