#!/usr/bin/env -S node --v8-pool-size=1
// The shebang's --v8-pool-size=1 (a node option, read only at start): one V8 background thread
// instead of node's four (main.ts rerunArgs: what it saves, and why a schedule on several threads runs
// again without it). `node dist/bin/conductor.js` skips the shebang and runs with node's default.
import { spawn } from 'node:child_process';
import { main, rerunArgs } from './main.js';

// A reader that stops early (`conductor schedule k.s -o out.s | head`) closes the pipe: the rest of
// the report is dropped and the command finishes as usual (its files written, its exit code). A
// command whose output is the standard output itself (-o -) still fails on it (io.ts writeOutput).
process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code !== 'EPIPE') throw e; });

const args = process.argv.slice(2);
const again = rerunArgs(args, process.execArgv);
if (again) rerun(again, args);
else {
  main(args).then((code) => { process.exitCode = code; }, (e: unknown) => {
    process.stderr.write(`conductor: internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exitCode = 70;
  });
}

/** The command in a node started with `nodeArgs`, this process waiting for it and ending as it ends. */
function rerun(nodeArgs: string[], argv: string[]): void {
  const child = spawn(process.execPath, [...nodeArgs, process.argv[1]!, ...argv], { stdio: 'inherit' });
  // a terminal's Ctrl-C reaches both processes; a signal sent to this one alone is passed on
  const pass = (sig: NodeJS.Signals) => () => { if (sig !== 'SIGINT') child.kill(sig); };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const handlers = signals.map((sig) => { const h = pass(sig); process.on(sig, h); return [sig, h] as const; });
  child.on('error', (e) => { process.stderr.write(`conductor: internal error: ${e.message}\n`); process.exitCode = 70; });
  child.on('exit', (code, signal) => {
    for (const [sig, h] of handlers) process.off(sig, h);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 70;
  });
}
