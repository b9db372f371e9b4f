/**
 * A region's cycles (runWaves: one wave alone, and the co-resident waves) simulated again in
 * time proportional to the change: the single-wave run keeps a journal (CycleEngine
 * runJournaled / rewind / runConverging), so that a new sequence resumes from the checkpoint
 * before the first position where it differs from the last one run, instead of from the start,
 * and, when it has the last one's length, stops where its state meets the last run's past the
 * change (the rest of the last run stands, shifted in time when the state met it shifted). The co-resident waves' bound (coResident: the
 * busiest pipe's occupancy and the issue-port slots of the sequence) is kept as running sums,
 * changed by the positions that changed, when the model's occupancies are whole numbers (then
 * the sums do not depend on the order they are added in). The run belongs to one owner at a
 * time (a region); a sequence of another owner starts from scratch.
 */
import { CycleEngine } from './engine.js';
import { FLAG, NPIPES, type CycleModel } from './model.js';
import { coResident, type WaveCycles } from './kernel-time.js';

/**
 * A same-length run whose last change lies at most this many positions before the end runs the
 * rest plainly (back to the checkpoint, then to the end) instead of runConverging: so short a
 * tail costs less to simulate than runConverging's bookkeeping (its journal kept and taken over,
 * its units tracked, states compared at each checkpoint). Measured with ±20-position moves on the
 * largest Tensile kernel: on its 197-instruction region 27,600-30,000 evaluations/s always
 * converging, 31,000-36,000 with a tail of 64-128 run plainly, 23,000-27,000 always plain; on its
 * 2,237-instruction region about the same with 96 as always converging, and half as fast always plain.
 */
const PLAIN_TAIL = 96;

export class ResumableCycles {
  private readonly engine: CycleEngine;
  private owner = -1;
  private seq = new Int32Array(256);
  private len = 0;
  /** Positions the last run simulated (from its first change to the end). */
  stepped = 0;
  /** Running sums of the sequence's pipe occupancies and issue-port slots (kept when `sums`). */
  private readonly sums: boolean;
  private readonly pipes = new Float64Array(NPIPES);
  private port = 0;
  /**
   * Whether `pipes` and `port` are the sums of the owner's sequence. Only a run of more than one
   * wave reads them: runs of one wave (a kernel at one wave per SIMD, as the largest Tensile
   * kernels) leave them, and the next run of more waves counts its sequence whole.
   */
  private counted = false;

  /** Same-length runs that ran their tail plainly (PLAIN_TAIL), for tests. */
  plainRuns = 0;
  private readonly plainTail: number;

  /** `plainTail`: PLAIN_TAIL unless given (-1: every same-length run converges, as tests of runConverging want). */
  constructor(m: CycleModel, opts: { plainTail?: number } = {}) {
    this.plainTail = opts.plainTail ?? PLAIN_TAIL;
    this.engine = new CycleEngine(m);
    this.sums = this.engine.wholeOccupancies;
  }

  /** runWaves(engine, seq, waves) (no branch taken but those the flags say) for the sequence of `owner`. */
  run(owner: number, seq: ArrayLike<number>, waves: number): WaveCycles {
    const n = seq.length;
    let from = 0;
    if (owner === this.owner) {
      const same = Math.min(this.len, n);
      while (from < same && this.seq[from] === seq[from]) from++;
      if (n === this.len) {
        // the same length: resumed at the change, and stopped where the state meets the last run's
        // (or, with a short tail after the change, run to the end: PLAIN_TAIL)
        let last = n - 1;
        while (last >= from && this.seq[last] === seq[last]) last--;
        this.recount(waves, seq, from, last + 1);
        for (let p = from; p <= last; p++) this.seq[p] = seq[p]!;
        if (n - 1 - last <= this.plainTail) {
          const at = this.engine.rewind(from);
          this.engine.runJournaled(seq, at, n);
          this.stepped = n - at;
          this.plainRuns++;
        } else this.stepped = this.engine.runConverging(seq, from, last);
        return this.result(seq, waves);
      }
      // the old positions from the first change on leave the sums, the new ones come in
      this.recount(waves, seq, from, this.len, n);
      // back to the journal's last state at or before the first change
      from = this.engine.rewind(from);
    } else {
      this.engine.startJournal();
      this.owner = owner;
      this.counted = false;
    }
    if (this.seq.length < n) { const b = new Int32Array(n * 2); b.set(this.seq.subarray(0, from)); this.seq = b; }
    for (let p = from; p < n; p++) this.seq[p] = seq[p]!;
    this.len = n;
    this.stepped = n - from;
    this.engine.runJournaled(seq, from, n);
    return this.result(seq, waves);
  }

  /**
   * The running sums as `seq` changes the owner's sequence from position `from` on (the old one's
   * positions up to `oldEnd` leave, the new one's up to `newEnd` come in), when they are counted
   * and this run of `waves` reads them; else they are left to be counted whole when read.
   */
  private recount(waves: number, seq: ArrayLike<number>, from: number, oldEnd: number, newEnd = oldEnd): void {
    if (!this.counted || waves <= 1) { this.counted = false; return; }
    this.count(-1, this.seq, from, oldEnd);
    this.count(1, seq, from, newEnd);
  }

  /** The running sums counted whole for `seq` (the owner's sequence) when they are not counted. */
  private countWhole(seq: ArrayLike<number>, n: number): void {
    if (this.counted) return;
    this.pipes.fill(0);
    this.port = 0;
    this.count(1, seq, 0, n);
    this.counted = true;
  }

  /** Add (sign 1) or take away (-1) positions [a, b) of `seq` to the running sums. */
  private count(sign: number, seq: ArrayLike<number>, a: number, b: number): void {
    if (!this.sums) return;
    const m = this.engine.m;
    const pipes = this.pipes;
    let port = 0;
    for (let p = a; p < b; p++) {
      const i = seq[p]!;
      pipes[m.pipeA[i]!] += sign * m.occA[i]!;
      pipes[m.pipeB[i]!] += sign * m.occB[i]!;
      if ((m.flags[i]! & FLAG.free) === 0) port++;
    }
    this.port += sign * port;
  }

  /** The run's cycles: one wave's, and coResident's (from the running sums when kept). */
  private result(seq: ArrayLike<number>, waves: number): WaveCycles {
    const one = this.engine.drained(0);
    if (!this.sums) return { one, all: coResident(this.engine, seq, waves, one) };
    if (waves <= 1) return { one, all: one };
    this.countWhole(seq, seq.length);
    return { one, all: Math.max(one, waves * this.busiestPipe(), waves * this.port) };
  }

  private busiestPipe(): number {
    let pipe = 0;
    for (let p = 1; p < NPIPES; p++) if (this.pipes[p]! > pipe) pipe = this.pipes[p]!;
    return pipe;
  }

  /** For tests: the running sums of the last sequence run (undefined when not kept): its busiest pipe's occupancy and its issue-port slots. */
  runningSums(): { pipe: number; port: number } | undefined {
    if (!this.sums) return undefined;
    this.countWhole(this.seq, this.len);
    return { pipe: this.busiestPipe(), port: this.port };
  }

  /** Runs that stopped where their state met the last run's shifted in time (CycleEngine.shiftedStops). */
  get shiftedStops(): number { return this.engine.shiftedStops; }

  /** Forget the run (the next sequence starts from scratch). */
  clear(): void { this.owner = -1; this.len = 0; }
}
