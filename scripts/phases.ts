/**
 * Where the wall time of one `schedule` run goes, read from its CONDUCTOR_MEMTRACE marks
 * (src/memtrace.ts: one line per mark on standard error, `memtrace t<thread> <ms> <label>: ...`).
 * For the bench: the runs of a search's phase share this thread and the workers' (with one job
 * every run is this thread's, one after the other), and a phase ends with its last run, so the
 * run's time splits into what comes before the first strategy starts, each phase from its first
 * start to its last end, and what comes after (the candidates' emission); within a phase, how
 * late the workers' runs started (their thread's preparation) and how long this thread waited for
 * them once its own runs ended.
 */

export interface Mark { thread: number; ms: number; label: string }

/** A strategy run's thread and its start and end marks (ms). */
interface Run { thread: number; start: number; done?: number }

export interface PhaseTimes {
  /** Seconds from the first mark to the first strategy's start. */
  before: number;
  /** Of `before`: reading and loading the input, checking and fixing it, preparing the kernel and evaluator (this thread, up to the first run's start). */
  load?: number; fix?: number; prepare?: number;
  phases: {
    name: string;
    /** Seconds from the phase's first start to its last end. */
    seconds: number;
    /** The latest start of a worker thread's run of the phase after the phase's first start (s; 0 without one). */
    lateStart: number;
    /** How long this thread waited for the workers once its own runs of the phase were done (s). */
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
    // with one job every run is this thread's, one after the other: no worker starts late, nothing is waited for
    const mine = rs.filter((r) => r.thread === main);
    const theirs = rs.filter((r) => r.thread !== main);
    const mineDone = mine.every((r) => r.done !== undefined) && mine.length > 0 ? Math.max(...mine.map((r) => r.done!)) : undefined;
    searchStart = Math.min(searchStart, start);
    searchEnd = Math.max(searchEnd, end);
    phases.push({
      name, seconds: (end - start) / 1000, lateStart: theirs.length > 0 ? (Math.max(...theirs.map((r) => r.start)) - start) / 1000 : 0,
      waited: mineDone !== undefined ? (end - mineDone) / 1000 : 0,
    });
  }
  const at = (label: string): number | undefined => marks.find((m) => m.thread === main && m.label === label)?.ms;
  const loaded = at('loaded');
  const fixed = at('fixed');
  const evaluator = at('evaluator');
  // the parts of `before`: this thread's steps up to the first run's start (a warm worker's run
  // can start while this thread still makes its evaluator: the rest of that step is in phase 1)
  const span = (a: number | undefined, b: number | undefined) => {
    const end = b === undefined ? undefined : Math.min(b, searchStart);
    return a !== undefined && end !== undefined && end >= a ? (end - a) / 1000 : undefined;
  };
  const out: PhaseTimes = { before: (searchStart - first) / 1000, phases, after: (last - searchEnd) / 1000, total: (last - first) / 1000 };
  const load = span(first, loaded);
  const fix = span(loaded, fixed);
  const prepare = span(fixed ?? loaded, evaluator);
  if (load !== undefined) out.load = load;
  if (fix !== undefined) out.fix = fix;
  if (prepare !== undefined) out.prepare = prepare;
  return out;
}

/**
 * The search's time in a `schedule` run: its strategy runs (`runs`: the JSON report's label and
 * seconds of each, the search itself without what follows it) grouped by phase (anneal runs in
 * phase 2) and by the thread that ran them (their 'task start' marks; a run without one counts as
 * a thread of its own): a thread's runs of a phase one after the other, the phase as long as its
 * busiest thread. With two jobs a phase is its slowest run; with one, the sum of its runs.
 */
export function searchSeconds(runs: readonly { label: string; seconds: number }[], marks: readonly Mark[]): number {
  const threadOf = new Map<string, number>();
  for (const m of marks) {
    const start = /^task start (\S+)$/.exec(m.label);
    if (start && !threadOf.has(start[1]!)) threadOf.set(start[1]!, m.thread);
  }
  let total = 0;
  for (const anneal of [false, true]) {
    const busy = new Map<number | string, number>();
    for (const r of runs) {
      if (r.label.startsWith('anneal') !== anneal) continue;
      const t = threadOf.get(r.label) ?? r.label;
      busy.set(t, (busy.get(t) ?? 0) + r.seconds);
    }
    total += Math.max(0, ...busy.values());
  }
  return total;
}

/** One line of PhaseTimes, in seconds. */
export function formatPhases(p: PhaseTimes): string {
  const s = (x: number) => x.toFixed(2);
  const parts = [p.load !== undefined ? `load ${s(p.load)}` : '', p.fix !== undefined ? `check and fix ${s(p.fix)}` : '', p.prepare !== undefined ? `kernel and evaluator ${s(p.prepare)}` : '']
    .filter((x) => x !== '');
  return `before the search ${s(p.before)} s${parts.length > 0 ? ` (${parts.join(', ')})` : ''}; ` +
    p.phases.map((x) => `${x.name} ${s(x.seconds)} s (the workers' last run started ${s(x.lateStart)} s after the first; this thread waited ${s(x.waited)} s for them)`).join('; ') +
    `; after the search ${s(p.after)} s (candidates brought back and emitted); ${s(p.total)} s in all`;
}
