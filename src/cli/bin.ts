#!/usr/bin/env -S node --v8-pool-size=1
// The shebang's --v8-pool-size=1 (a node option, read only at start): V8's background threads
// (concurrent compilation and GC helpers; node starts 4 by default, whatever the machine) each keep
// their own working memory. One is enough for a command's few hundred milliseconds of hot code:
// measured on the largest corpus kernel on a 2-core machine (farm-bench, interleaved pairs against
// the default), `analyze --json` 0.93x the wall time and 103 MiB peak RSS against 110, `schedule`
// 0.93x the wall time and 443 MiB against 462, same outputs. `node dist/bin/conductor.js` skips
// the shebang and runs with node's default.
import { main } from './main.js';

// A reader that stops early (`conductor schedule k.s -o out.s | head`) closes the pipe: the rest of
// the report is dropped and the command finishes as usual (its files written, its exit code). A
// command whose output is the standard output itself (-o -) still fails on it (io.ts writeOutput).
process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code !== 'EPIPE') throw e; });

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
  process.stderr.write(`conductor: internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 70;
});
