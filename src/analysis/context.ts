import type { Instruction, KernelSymbol } from '../asm/ast.js';
import { StoredInstruction } from '../asm/store.js';
import { loadText, type Loaded } from '../load.js';
import { buildCfg } from './cfg.js';
import type { ResolvedInsn } from '../isa/types.js';
import type { KernelContext } from './types.js';
import { once } from './memo.js';

/**
 * The per-kernel contexts of a loaded program: CFG plus the resolved instruction of every CFG
 * instruction. Made once per Loaded (a new array each call, the same contexts), so that what is
 * kept per context (memo.ts) serves every step that reads the program.
 */
export function kernelContexts(l: Loaded): KernelContext[] {
  return once(l, 'kernelContexts', () => makeContexts(l)).slice();
}

function makeContexts(l: Loaded): KernelContext[] {
  const all = l.program.instructions;
  // an instruction of the program's store is found by its index; any other by its statement
  let byStmt: Map<number, ResolvedInsn> | undefined;
  const resolvedOf = (i: Instruction): ResolvedInsn => {
    if (i instanceof StoredInstruction && all[i.index] === i) return l.resolved[i.index]!;
    if (!byStmt) {
      byStmt = new Map();
      for (let k = 0; k < all.length; k++) byStmt.set(all[k]!.stmt, l.resolved[k]!);
    }
    return byStmt.get(i.stmt)!;
  };
  return l.program.kernels.map((kernel: KernelSymbol) => {
    const cfg = buildCfg(l.program, kernel);
    return {
      program: l.program, target: l.target, kernel, cfg,
      insns: cfg.insns.map(resolvedOf),
      xnack: l.xnack,
      ...(l.launch !== undefined ? { launch: l.launch } : {}),
    };
  });
}

/** The context of the kernel named `name` (undefined when the program has none). */
export function kernelContextNamed(l: Loaded, name: string): KernelContext | undefined {
  return kernelContexts(l).find((c) => c.kernel.name === name);
}

/** Parse, resolve and build contexts from text (tests and snippets). */
export function kernelContextsFromText(text: string, file: string, arch?: string): KernelContext[] {
  return kernelContexts(loadText(text, file, { arch }));
}
