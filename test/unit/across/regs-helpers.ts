/** Shared helpers of the regs-* unit tests (not a test file itself). */
import assert from 'node:assert/strict';
import type { ScheduleKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, applyCommand, isFailure, type CommandFailure } from '../../../src/schedule/state.js';
import { parseCommand } from '../../../src/schedule/commands.js';

/** Apply one move command to a fresh schedule of `k`: the failure, or undefined when it applied. */
export function tryMove(k: ScheduleKernel, text: string): CommandFailure | undefined {
  const c = parseCommand(text);
  assert.ok(typeof c !== 'string', c as string);
  const r = applyCommand(new ScheduleState(k), c);
  return isFailure(r) ? r : undefined;
}
