/**
 * A region's cycles (runWaves: one wave alone, and the co-resident waves) simulated again in
 * time proportional to the change: the single-wave run keeps a journal (CycleEngine
 * runJournaled / rewind / runConverging), so that a new sequence resumes from the checkpoint
 * before the first position where it differs from the last one run, instead of from the start,
 * and, when it has the last one's length, stops where its state meets the last run's past the
 * change (the rest of the last run stands). The run belongs to one owner at a
 * time (a region); a sequence of another owner starts from scratch.
 */
import { CycleEngine } from './engine.js';
import type { CycleModel } from './model.js';
import { coResident, type WaveCycles } from './kernel-time.js';

export class ResumableCycles {
  private readonly engine: CycleEngine;
  private owner = -1;
  private seq = new Int32Array(256);
  private len = 0;
  /** Positions the last run simulated (from its first change to the end). */
  stepped = 0;

  constructor(m: CycleModel) {
    this.engine = new CycleEngine(m);
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
        let last = n - 1;
        while (last >= from && this.seq[last] === seq[last]) last--;
        for (let p = from; p <= last; p++) this.seq[p] = seq[p]!;
        this.stepped = this.engine.runConverging(seq, from, last);
        const one = this.engine.drained(0);
        return { one, all: coResident(this.engine, seq, waves, one) };
      }
      // back to the journal's last state at or before the first change
      from = this.engine.rewind(from);
    } else {
      this.engine.startJournal();
      this.owner = owner;
    }
    if (this.seq.length < n) { const b = new Int32Array(n * 2); b.set(this.seq.subarray(0, from)); this.seq = b; }
    for (let p = from; p < n; p++) this.seq[p] = seq[p]!;
    this.len = n;
    this.stepped = n - from;
    this.engine.runJournaled(seq, from, n);
    const one = this.engine.drained(0);
    return { one, all: coResident(this.engine, seq, waves, one) };
  }

  /** Forget the run (the next sequence starts from scratch). */
  clear(): void { this.owner = -1; this.len = 0; }
}
