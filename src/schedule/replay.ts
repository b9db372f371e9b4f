/**
 * Move lists that reproduce a schedule: for each changed region, `move X before Y` commands that
 * take the original order to the state's order. Built front to back: at each position the
 * instruction the schedule puts there is moved before the one the original order has there.
 * Every command is legal on the way: the instruction moved passes only instructions that come
 * after it in the schedule, and a legal schedule orders every dependency, so none of them is one
 * it depends on. Replaying the list through `applyCommand` validates it again.
 */
import { applyCommand, isFailure, ScheduleState, type CommandFailure } from './state.js';
import { parseCommand } from './commands.js';
import type { ScheduleKernel } from './kernel.js';

/**
 * The line `schedule --save-moves` writes before the moves of a kernel whose loops it pipelined:
 * those moves replay on the pipelined program, not on the input (`apply` finds the line by
 * PIPELINED_MOVES and says so when they fail).
 */
export function pipelinedMovesHeader(loops: readonly { line: number }[]): string {
  return `# from the program with the loops at lines ${loops.map((l) => l.line).join(', ')} pipelined, not from the input (schedule --no-pipeline gives moves that replay on the input)`;
}

/** pipelinedMovesHeader's line, as found in a moves file. */
export const PIPELINED_MOVES = /^#\s*from the program with the loops at lines .* pipelined/m;

/** Commands (text) that take the original order of `s.k` to `s`'s order, region by region. */
export function movesFromState(s: ScheduleState): string[] {
  const k = s.k;
  const out: string[] = [];
  for (const r of s.changedRegions()) {
    const rg = k.regions[r]!;
    const want = s.order[r]!;
    const cur = Array.from({ length: want.length }, (_, i) => i);
    for (let p = 0; p < want.length; p++) {
      if (cur[p] === want[p]) continue;
      const q = cur.indexOf(want[p]!, p + 1);
      out.push(`move ${k.tags[rg.nodes[want[p]!]!]} before ${k.tags[rg.nodes[cur[p]!]!]}`);
      cur.splice(q, 1);
      cur.splice(p, 0, want[p]!);
    }
  }
  return out;
}

/**
 * Replay commands (text) on a fresh state of `k`, validating each; the state reached, or the
 * first failure (with the index of the failing command).
 */
export function replayMoves(k: ScheduleKernel, moves: readonly string[]): { state: ScheduleState } | { failure: CommandFailure; index: number } {
  const s = new ScheduleState(k);
  for (let x = 0; x < moves.length; x++) {
    const cmd = parseCommand(moves[x]!);
    if (typeof cmd === 'string') return { failure: { command: moves[x]!, kind: 'syntax', reason: cmd }, index: x };
    const res = applyCommand(s, cmd);
    if (isFailure(res)) return { failure: res, index: x };
  }
  return { state: s };
}
