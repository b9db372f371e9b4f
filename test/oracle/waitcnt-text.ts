/**
 * Text helpers for the waitcnt oracle tests: delete s_waitcnt lines, insert s_waitcnt lines
 * before instructions, and map instructions between a program and its edited copy. (The real
 * fixer belongs to the `check` command; these helpers only serve the tests, on LLVM's output,
 * which has one statement per line and no macros.)
 */
import type { Instruction, Program } from '../../src/asm/ast.js';
import type { KernelContext } from '../../src/analysis/types.js';
import type { WaitInsertion } from '../../src/waitcnt/index.js';

/** Text of a program with the lines of the given instructions deleted. */
export function deleteInstructionLines(p: Program, insns: Iterable<Instruction>): string {
  const drop = new Set<number>();
  for (const i of insns) {
    const line = p.lines[i.loc.line - 1];
    if (!line || !line.text.trim().startsWith(i.mnemonic)) throw new Error(`${p.file}:${i.loc.line}: '${i.mnemonic}' is not alone on its line`);
    drop.add(i.loc.line - 1);
  }
  return p.lines.filter((_, k) => !drop.has(k)).map((l) => l.text + l.eol).join('');
}

export function waitLine(w: WaitInsertion): string {
  const parts: string[] = [];
  if (w.vmcnt !== undefined) parts.push(`vmcnt(${w.vmcnt})`);
  if (w.expcnt !== undefined) parts.push(`expcnt(${w.expcnt})`);
  if (w.lgkmcnt !== undefined) parts.push(`lgkmcnt(${w.lgkmcnt})`);
  return `\ts_waitcnt ${parts.join(' ')}`;
}

/** Text of a program with `s_waitcnt` lines inserted before instructions (per kernel context). */
export function insertWaitLines(p: Program, inserts: { ctx: KernelContext; waits: WaitInsertion[] }[]): string {
  const before = new Map<number, string[]>();
  for (const { ctx, waits } of inserts) {
    for (const w of waits) {
      const line = ctx.insns[w.before]!.insn.loc.line - 1;
      const l = before.get(line) ?? [];
      l.push(waitLine(w));
      before.set(line, l);
    }
  }
  let out = '';
  p.lines.forEach((l, k) => {
    for (const x of before.get(k) ?? []) out += x + '\n';
    out += l.text + l.eol;
  });
  return out;
}

/** Ordinal of every instruction of a program (its position in program.instructions). */
export function ordinals(p: Program): Map<Instruction, number> {
  const m = new Map<Instruction, number>();
  p.instructions.forEach((i, k) => m.set(i, k));
  return m;
}

/**
 * Map from the ordinals of `edited` (a copy of `orig` with only the instructions in `removed`
 * deleted) to the ordinals of `orig`.
 */
export function editedToOriginal(orig: Program, removed: ReadonlySet<Instruction>): number[] {
  const out: number[] = [];
  orig.instructions.forEach((i, k) => { if (!removed.has(i)) out.push(k); });
  return out;
}
