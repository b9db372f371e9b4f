/**
 * Where the wall time of one `schedule` run goes, read from its CONDUCTOR_MEMTRACE marks
 * (src/memtrace.ts: one line per mark on standard error, `memtrace t<thread> <ms> <label>: ...`).
 * For the bench: the search's phases are parallel (one strategy on this thread, the others on
 * the workers), and a phase ends with its slowest run, so the run's time splits into what comes
 * before the first strategy starts, each phase from its first start to its last end, and what
 * comes after (the candidates' emission); within a phase, how late the workers' runs started
 * (their thread's preparation) and how long this thread waited for them once its own run ended.
 */

export interface Mark { thread: number; ms: number; label: string }

/** A strategy run's thread and its start and end marks (ms). */
interface Run { thread: number; start: number; done?: number }

export interface PhaseTimes {
  /** Seconds from the first mark to the first strategy's start. */
  before: number;
  /** Of `before`: reading and loading the input, checking and fixing it, preparing the kernel and evaluator (this thread). */
  load?: number; fix?: number; prepare?: number;
  phases: {
    name: string;
    /** Seconds from the phase's first start to its last end. */
    seconds: number;
    /** The latest start of a run of the phase after its first start (s). */
    lateStart: number;
    /** How long this thread waited for the others once its own run of the phase was done (s). */
    waited: number;
  }[];
  /** Seconds from the last run's end to the last mark (the candidates brought back and emitted). */
  after: number;
  /** Seconds from the first mark to the last. */
  total: number;
}

const MARK = /^memtrace t(\d+) (\d+) ([^:]+):/;

export function parseMarks(stderr: string): Mark[] {
  const out: Mark[] = [];
  for (const line of stderr.split('\n')) {
    const m = MARK.exec(line);
    if (m) out.push({ thread: Number(m[1]), ms: Number(m[2]), label: m[3]!.trim() });
  }
  return out;
}

/**
 * The phases of the first program searched (the input, or its fixed text): phase 1 the runs whose
 * label does not start with 'anneal', phase 2 the anneal runs; a pipelined program's search
 * (labels 'pipelined ...') counts in `after`. Undefined when the marks hold no strategy run.
 */
export function schedulePhases(marks: readonly Mark[]): PhaseTimes | undefined {
  if (marks.length === 0) return undefined;
  const first = marks[0]!.ms;
  const last = marks[marks.length - 1]!.ms;
  const main = marks[0]!.thread;
  const runs = new Map<string, Run>();
  for (const m of marks) {
    const start = /^task start (\S+)$/.exec(m.label);
    if (start) { runs.set(start[1]!, { thread: m.thread, start: m.ms }); continue; }
    const done = /^task done (\S+)$/.exec(m.label);
    if (done) { const r = runs.get(done[1]!); if (r) r.done = m.ms; }
  }
  if (runs.size === 0) return undefined;
  const groups: [string, Run[]][] = [
    ['phase 1', [...runs].filter(([l]) => !l.startsWith('anneal')).map(([, r]) => r)],
    ['phase 2', [...runs].filter(([l]) => l.startsWith('anneal')).map(([, r]) => r)],
  ];
  const phases: PhaseTimes['phases'] = [];
  let searchStart = Infinity;
  let searchEnd = -Infinity;
  for (const [name, rs] of groups) {
    if (rs.length === 0) continue;
    const start = Math.min(...rs.map((r) => r.start));
    const end = Math.max(...rs.map((r) => r.done ?? r.start));
    const mine = rs.find((r) => r.thread === main);
    searchStart = Math.min(searchStart, start);
    searchEnd = Math.max(searchEnd, end);
    phases.push({
      name, seconds: (end - start) / 1000, lateStart: (Math.max(...rs.map((r) => r.start)) - start) / 1000,
      waited: mine?.done !== undefined ? (end - mine.done) / 1000 : 0,
    });
  }
  const at = (label: string): number | undefined => marks.find((m) => m.thread === main && m.label === label)?.ms;
  const loaded = at('loaded');
  const fixed = at('fixed');
  const evaluator = at('evaluator');
  const span = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b >= a ? (b - a) / 1000 : undefined);
  const out: PhaseTimes = { before: (searchStart - first) / 1000, phases, after: (last - searchEnd) / 1000, total: (last - first) / 1000 };
  const load = span(first, loaded);
  const fix = span(loaded, fixed);
  const prepare = span(fixed ?? loaded, evaluator);
  if (load !== undefined) out.load = load;
  if (fix !== undefined) out.fix = fix;
  if (prepare !== undefined) out.prepare = prepare;
  return out;
}

/** One line of PhaseTimes, in seconds. */
export function formatPhases(p: PhaseTimes): string {
  const s = (x: number) => x.toFixed(2);
  const parts = [p.load !== undefined ? `load ${s(p.load)}` : '', p.fix !== undefined ? `check and fix ${s(p.fix)}` : '', p.prepare !== undefined ? `kernel and evaluator ${s(p.prepare)}` : '']
    .filter((x) => x !== '');
  return `before the search ${s(p.before)} s${parts.length > 0 ? ` (${parts.join(', ')})` : ''}; ` +
    p.phases.map((x) => `${x.name} ${s(x.seconds)} s (the last run started ${s(x.lateStart)} s after the first; this thread waited ${s(x.waited)} s for the others)`).join('; ') +
    `; after the search ${s(p.after)} s (candidates brought back and emitted); ${s(p.total)} s in all`;
}
