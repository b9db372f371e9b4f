/**
 * Rounds of move commands (the scheduling loop without the model): each round's commands are
 * validated and applied in order; the first invalid one aborts the round and undoes everything
 * applied in it. A complete round is measured (exactly, on the re-derived program, or with the
 * fast evaluator) and kept only when the objective is not worse than the best state so far;
 * otherwise it is reverted. `done` ends the run after its round.
 */
import type { Loaded } from '../load.js';
import { ConductorError } from '../errors.js';
import type { Command } from './commands.js';
import { pickKernel, type ScheduleKernel, type ScheduleOptions } from './kernel.js';
import { ScheduleState, applyCommand, isFailure, type CommandFailure, type RegionSnapshot } from './state.js';
import { compareMetrics, DEFAULT_OBJECTIVE, Evaluator, worseningText, type EvaluatorOptions, type MetricName, type Metrics } from './metrics.js';
import { emitSchedule, type Emitted } from './emit.js';
import { moveWarnings, type MoveWarning } from './warnings.js';

export interface SessionOptions extends ScheduleOptions, EvaluatorOptions {
  objective?: readonly MetricName[];
  /**
   * Measure rounds on the re-derived program (true, default: what will be written) or with the
   * fast evaluator (false).
   */
  exact?: boolean;
  /** Compute move warnings (default true). */
  warnings?: boolean;
}

export type RoundOutcome = 'accepted' | 'failed' | 'worse' | 'empty';

export interface RoundReport {
  round: number;
  /** Commands applied (kept only when the outcome is 'accepted'). */
  applied: string[];
  failed: CommandFailure | null;
  warnings: MoveWarning[];
  outcome: RoundOutcome;
  /** Why the round was reverted ('worse': the metric that got worse). */
  reason?: string;
  /** Metrics before and after the round (after = before when reverted). */
  before: Metrics;
  after: Metrics;
  /** The round ended the run ('done'). */
  done: boolean;
}

export class ScheduleSession {
  readonly k: ScheduleKernel;
  readonly evaluator: Evaluator;
  readonly objective: readonly MetricName[];
  readonly exact: boolean;
  readonly warnings: boolean;
  /** The current (= best) schedule. */
  readonly state: ScheduleState;
  /** Metrics of the current schedule. */
  metrics: Metrics;
  /** Metrics of the input as written. */
  readonly initial: Metrics;
  private emitted?: Emitted;
  readonly rounds: RoundReport[] = [];
  finished = false;

  constructor(k: ScheduleKernel, opts: SessionOptions = {}) {
    this.k = k;
    this.objective = opts.objective ?? DEFAULT_OBJECTIVE;
    this.exact = opts.exact ?? true;
    this.warnings = opts.warnings ?? true;
    this.evaluator = new Evaluator(k, opts);
    this.state = new ScheduleState(k);
    if (this.exact) {
      this.emitted = emitSchedule(this.state);
      this.metrics = this.emitted.metrics;
    } else {
      this.metrics = this.evaluator.evaluate(this.state);
    }
    this.initial = this.metrics;
  }

  /** Apply one round. */
  applyRound(commands: readonly Command[]): RoundReport {
    const n = this.rounds.length + 1;
    const before = this.metrics;
    const report: RoundReport = { round: n, applied: [], failed: null, warnings: [], outcome: 'empty', before, after: before, done: false };
    this.rounds.push(report);
    if (this.finished) { report.reason = 'after done'; return report; }
    const snaps = new Map<number, RegionSnapshot>();
    const s = this.state;
    let evalBefore = this.warnings ? this.evaluator.evaluate(s) : undefined;
    const undo = () => { for (const snap of snaps.values()) s.restore(snap); };
    for (const cmd of commands) {
      if (cmd.op === 'done') { report.done = true; this.finished = true; break; }
      const a = this.k.byTag.get(cmd.a);
      const r = a !== undefined ? this.k.regionOf[a]! : -1;
      if (r >= 0 && !snaps.has(r)) snaps.set(r, s.snapshot(r));
      const posBefore = r >= 0 ? s.pos[r]!.slice() : undefined;
      const res = applyCommand(s, cmd);
      if (isFailure(res)) {
        undo();
        report.failed = res;
        report.outcome = 'failed';
        report.reason = `${res.command}: ${res.reason}`;
        report.warnings = [];
        return report;
      }
      report.applied.push(cmd.text);
      if (res && this.warnings && posBefore) {
        const moved = res.op === 'swap' ? [res.a, res.b] : [res.a];
        const w = moveWarnings(this.k, s, res.region, moved, posBefore, cmd.text, this.evaluator, evalBefore);
        report.warnings.push(...w);
        evalBefore = this.evaluator.evaluate(s);
      }
    }
    if (report.applied.length === 0) return report;
    let after: Metrics;
    let emitted: Emitted | undefined;
    try {
      if (this.exact) { emitted = emitSchedule(s); after = emitted.metrics; } else after = this.evaluator.evaluate(s);
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      undo();
      report.outcome = 'failed';
      report.failed = { command: '(round)', kind: 'raw', reason: `the reordered program could not be completed: ${e.message}` };
      report.reason = report.failed.reason;
      return report;
    }
    const floor = this.initial.occupancy;
    if (compareMetrics(after, before, this.objective, floor) > 0) {
      undo();
      report.outcome = 'worse';
      report.reason = after.occupancy < floor
        ? `the occupancy would drop (${worseningText(after, before, this.objective, floor)})`
        : `the objective got worse (${worseningText(after, before, this.objective, floor)})`;
      return report;
    }
    report.outcome = 'accepted';
    report.after = after;
    this.metrics = after;
    if (emitted) this.emitted = emitted;
    return report;
  }

  /** The program of the current schedule (re-derived, checked clean). */
  emit(): Emitted {
    if (!this.emitted || this.emitted.changedRegions.join() !== this.state.changedRegions().join() || !this.exact) {
      this.emitted = emitSchedule(this.state);
    }
    return this.emitted;
  }
}

export interface ApplyResult {
  kernel: string;
  arch: string;
  rounds: RoundReport[];
  /** Commands of accepted rounds. */
  applied: string[];
  /** The first failed command (its round was undone), or null. */
  failed: (CommandFailure & { round: number }) | null;
  warnings: MoveWarning[];
  before: Metrics;
  after: Metrics;
  /** The best schedule's program. */
  text: string;
  changedRegions: number[];
  notes: string[];
}

/** Apply rounds of commands to a loaded file's kernel; the best schedule's program is returned. */
export function applyRounds(loaded: Loaded, rounds: readonly (readonly Command[])[], opts: SessionOptions & { kernel?: string } = {}): ApplyResult {
  const k = pickKernel(loaded, opts.kernel, opts);
  const sess = new ScheduleSession(k, opts);
  for (const r of rounds) {
    sess.applyRound(r);
    if (sess.finished) break;
  }
  const e = sess.emit();
  const failedRound = sess.rounds.find((r) => r.failed);
  return {
    kernel: k.name,
    arch: k.target.name,
    rounds: sess.rounds,
    applied: sess.rounds.filter((r) => r.outcome === 'accepted').flatMap((r) => r.applied),
    failed: failedRound ? { ...failedRound.failed!, round: failedRound.round } : null,
    warnings: sess.rounds.filter((r) => r.outcome === 'accepted').flatMap((r) => r.warnings),
    before: sess.initial,
    after: e.metrics,
    text: e.text,
    changedRegions: e.changedRegions,
    notes: e.notes,
  };
}
