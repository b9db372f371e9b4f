/**
 * The V8 thread pool a command runs with. The published command's shebang starts node with
 * `--v8-pool-size=1`: one background thread for concurrent compilation and GC help, instead of
 * node's four, suits a command whose hot code runs on one thread (largest corpus kernel, 2-core
 * machine, interleaved pairs against the default: `analyze --json` 0.93x the wall time and 103 MiB
 * peak RSS against 110; `schedule` on one thread 0.93x and 443 against 462 MiB). A `schedule` on
 * several threads wants node's default: with `--jobs 2` the one thread made it 1.03x the wall
 * time, 1.06x the CPU time and 603 MiB against 566. The pool is fixed at start, so such a run
 * starts node again without the option (rerunArgs).
 */
import { availableParallelism } from 'node:os';

export const ONE_THREAD = '--v8-pool-size=1';

const COMMANDS: ReadonlySet<string> = new Set(['emit', 'analyze', 'check', 'simulate', 'tag', 'apply', 'schedule', 'verify', 'agent', 'report']);

/** The threads a schedule's search runs on: `--jobs N` (or `--jobs=N`), else the default (run.ts defaultJobs). */
function scheduleJobs(args: readonly string[], from: number, cores: number): number {
  let jobs: number | undefined;
  for (let k = from; k < args.length; k++) {
    const a = args[k]!;
    if (a === '--jobs') jobs = Number(args[k + 1]);
    else if (a.startsWith('--jobs=')) jobs = Number(a.slice('--jobs='.length));
  }
  return jobs !== undefined && Number.isFinite(jobs) ? jobs : Math.max(1, Math.min(4, cores - 1));
}

/**
 * The node options to run the command again with when it was started with one V8 background
 * thread and is a `schedule` on more than one thread; undefined otherwise (run it here).
 */
export function rerunArgs(args: readonly string[], execArgv: readonly string[], cores = availableParallelism()): string[] | undefined {
  if (!execArgv.includes(ONE_THREAD)) return undefined;
  const cmd = args.findIndex((a) => COMMANDS.has(a));
  if (cmd < 0 || args[cmd] !== 'schedule' || scheduleJobs(args, cmd + 1, cores) <= 1) return undefined;
  return execArgv.filter((a) => a !== ONE_THREAD);
}
