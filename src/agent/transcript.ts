/**
 * The run's log: one JSON object per line (JSONL). Records: `start` (options, never the key),
 * `request` (the messages added since the agent's previous request), `http` (every attempt's
 * status and time, retries included), `response` (message, tool calls, usage, cost), `tool_call`,
 * `tool_result`, `nudge`, `best` (a new best state with its move list), `checkpoint`,
 * `cache_hit`, `error` and `final` (the best move list, metrics, totals). Every line is scrubbed of
 * the key before it is written, as a second guard.
 *
 * `movesFromTranscript` reads a transcript back: the final move list (or the last best one of an
 * interrupted run), which `conductor apply --moves-file` replays.
 */
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConductorError } from '../errors.js';
import { scrub } from './provider.js';

export interface TranscriptRecord {
  type: string;
  [field: string]: unknown;
}

export class Transcript {
  readonly records: TranscriptRecord[] = [];
  private readonly t0 = Date.now();
  private started = false;

  constructor(readonly file?: string, private readonly secret = '') {}

  write(rec: TranscriptRecord): void {
    const full = { ...rec, ms: Date.now() - this.t0 };
    const line = scrub(JSON.stringify(full), this.secret);
    this.records.push(JSON.parse(line) as TranscriptRecord);
    if (!this.file) return;
    try {
      if (!this.started) { writeFileSync(this.file, line + '\n', 'utf8'); this.started = true; } else appendFileSync(this.file, line + '\n', 'utf8');
    } catch (e) {
      throw new ConductorError(`cannot write the transcript '${this.file}': ${(e as Error).message}`);
    }
  }

  /** Delete the file (a run that never reached the model leaves nothing behind). */
  remove(): void {
    if (this.file && this.started) rmSync(this.file, { force: true });
    this.started = false;
  }
}

/** Whether a text is a JSONL transcript (its first non-blank line is a JSON object with a type). */
export function isTranscript(text: string): boolean {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '');
  if (!first || !first.trim().startsWith('{')) return false;
  try {
    const o = JSON.parse(first) as unknown;
    return typeof o === 'object' && o !== null && typeof (o as Record<string, unknown>)['type'] === 'string';
  } catch {
    return false;
  }
}

/**
 * The move list a transcript ends with: its `final` record's moves, else the last `best` record's
 * (an interrupted run). ConductorError when there is neither or a line is not JSON.
 */
export function movesFromTranscript(text: string, file = 'transcript'): { moves: string[]; from: 'final' | 'best'; kernel?: string; region?: number } {
  let final: TranscriptRecord | undefined;
  let best: TranscriptRecord | undefined;
  let start: TranscriptRecord | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === '') continue;
    let rec: TranscriptRecord;
    try {
      rec = JSON.parse(l) as TranscriptRecord;
    } catch (e) {
      throw new ConductorError(`${file}:${i + 1}: not a JSON line (${(e as Error).message})`);
    }
    if (rec.type === 'final') final = rec;
    else if (rec.type === 'best') best = rec;
    else if (rec.type === 'start' && !start) start = rec;
  }
  const rec = final ?? best;
  if (!rec) throw new ConductorError(`${file}: the transcript holds no final or best move list`);
  const moves = rec['moves'];
  if (!Array.isArray(moves) || moves.some((m) => typeof m !== 'string')) throw new ConductorError(`${file}: the ${rec.type} record has no move list`);
  return {
    moves: moves as string[], from: final ? 'final' : 'best',
    kernel: typeof start?.['kernel'] === 'string' ? start['kernel'] as string : undefined,
    region: typeof start?.['region'] === 'number' ? start['region'] as number : undefined,
  };
}
