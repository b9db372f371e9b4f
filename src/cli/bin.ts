#!/usr/bin/env node
import { main } from './main.js';

// A reader that stops early (`conductor schedule k.s -o out.s | head`) closes the pipe: the rest of
// the report is dropped and the command finishes as usual (its files written, its exit code). A
// command whose output is the standard output itself (-o -) still fails on it (io.ts writeOutput).
process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code !== 'EPIPE') throw e; });

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
  process.stderr.write(`conductor: internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 70;
});
