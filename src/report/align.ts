/**
 * From a scheduled file back to a schedule: the ScheduleState of the original kernel whose region
 * orders are the ones the scheduled file has, and the move commands that lead there.
 *
 * The scheduled file must first pass `verify` (the same instructions per region, the same
 * producers, memory order, pinned instructions in place). Then both kernels are read as their
 * instructions without s_waitcnt and s_nop (those are re-derived by a schedule): pinned and kept
 * instructions sit at the same positions in both, and each scheduling region of the original
 * covers the same positions in the scheduled file, holding the same instructions in another order.
 * Instructions are matched inside a region by their canonical text (mnemonic, operands and
 * modifiers, spelling-independent); identical instructions are told apart by their occurrence.
 */
import type { Instruction } from '../asm/ast.js';
import { isWaitOrNop } from '../asm/program.js';
import type { Loaded } from '../load.js';
import { ConductorError } from '../errors.js';
import { kernelContextNamed } from '../analysis/context.js';
import type { KernelContext } from '../analysis/types.js';
import { ROLE, pickKernel, ScheduleState, movesFromState, replayMoves, type ScheduleKernel } from '../schedule/index.js';
import { keyOf, verifyLoaded, type VerifyOptions } from '../verify/verify.js';
import { counted } from '../text.js';

export interface Alignment {
  /** The original kernel prepared for scheduling. */
  k: ScheduleKernel;
  /** The scheduled kernel's context. */
  scheduled: KernelContext;
  /** The original kernel in the scheduled file's order. */
  state: ScheduleState;
  /** Commands that take the original order to the scheduled one (replayed and validated). */
  moves: string[];
  /** Regions whose order differs. */
  changedRegions: number[];
}

/** Canonical text of an instruction (verify's): the same for two spellings of the same instruction. */
export const instructionKey: (insn: Instruction) => string = keyOf;


/**
 * Align `scheduled` (a reordering of `original`) to the original kernel `kernel` (default: the
 * kernel `apply` would pick). Throws a ConductorError that says why when the scheduled file is
 * not a legal reordering of the original.
 */
export function alignScheduled(original: Loaded, scheduled: Loaded, kernel?: string, opts: VerifyOptions = {}): Alignment {
  const v = verifyLoaded(original, scheduled, opts);
  if (!v.equivalent) {
    const d = v.difference!;
    throw new ConductorError(`${scheduled.program.file} is not a legal reordering of ${original.program.file}: ${d.message} [${d.kind}]`);
  }
  const k = pickKernel(original, kernel, opts.disambiguate !== undefined ? { disambiguate: opts.disambiguate } : {});
  const piped = v.kernels.find((x) => x.name === k.name)?.pipelinedLoops ?? 0;
  if (piped > 0) {
    throw new ConductorError(`${scheduled.program.file}: kernel '${k.name}' has ${counted(piped, 'loop')} pipelined (proven equivalent by verify); --after shows reorderings only (schedule --no-pipeline writes one; 'conductor report' of the scheduled file alone shows it)`);
  }
  const sctx = kernelContextNamed(scheduled, k.name);
  if (!sctx) throw new ConductorError(`${scheduled.program.file} has no kernel '${k.name}'`);

  // Both kernels without waits and nops.
  const origSeq: number[] = [];
  for (let i = 0; i < k.n; i++) if (!isWaitOrNop(k.insns[i]!.insn)) origSeq.push(i);
  const schedSeq: number[] = [];
  for (let j = 0; j < sctx.insns.length; j++) if (!isWaitOrNop(sctx.insns[j]!.insn)) schedSeq.push(j);
  if (origSeq.length !== schedSeq.length) {
    throw new ConductorError(`${scheduled.program.file}: kernel '${k.name}' has ${counted(schedSeq.length, 'instruction')} besides waits and nops, the original ${origSeq.length}`);
  }
  const schedKey = (p: number) => instructionKey(sctx.insns[schedSeq[p]!]!.insn);
  const mismatch = (p: number, what: string): ConductorError => {
    const a = k.insns[origSeq[p]!]!.insn;
    const b = sctx.insns[schedSeq[p]!]!.insn;
    return new ConductorError(`${scheduled.program.file}:${b.loc.line}: '${b.text.trim()}' does not line up with the original's line ${a.loc.line} '${a.text.trim()}': ${what}`);
  };

  const state = new ScheduleState(k);
  let p = 0;
  while (p < origSeq.length) {
    const i = origSeq[p]!;
    const r = k.regionOf[i]!;
    if (k.role[i] !== ROLE.movable || r < 0) {
      if (instructionKey(k.insns[i]!.insn) !== schedKey(p)) throw mismatch(p, 'an instruction the schedule may not move');
      p++;
      continue;
    }
    const rg = k.regions[r]!;
    const m = rg.nodes.length;
    // The region's movable instructions are contiguous once waits and nops are left out.
    for (let q = 0; q < m; q++) {
      if (origSeq[p + q] !== rg.nodes[q]) throw mismatch(p + q, `region ${r} is not contiguous in the original`);
    }
    // Occurrence lists per key, in the original order.
    const slots = new Map<string, number[]>();
    for (let q = m - 1; q >= 0; q--) {
      const key = instructionKey(k.insns[rg.nodes[q]!]!.insn);
      let list = slots.get(key);
      if (!list) { list = []; slots.set(key, list); }
      list.push(q);
    }
    const order = new Int32Array(m);
    for (let q = 0; q < m; q++) {
      const list = slots.get(schedKey(p + q));
      const node = list?.pop();
      if (node === undefined) throw mismatch(p + q, `not an instruction of region ${r} (lines ${rg.lines[0]}-${rg.lines[1]})`);
      order[q] = node;
    }
    state.setOrder(r, order);
    p += m;
  }
  const moves = movesFromState(state);
  const replay = replayMoves(k, moves);
  if ('failure' in replay) {
    const f = replay.failure;
    throw new ConductorError(`the schedule of ${scheduled.program.file} passes verify but the scheduler refuses move ${replay.index + 1} '${f.command}': ${f.reason}`);
  }
  return { k, scheduled: sctx, state, moves, changedRegions: state.changedRegions() };
}
