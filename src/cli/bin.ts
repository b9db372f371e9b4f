#!/usr/bin/env node
import { main } from './main.js';

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
  process.stderr.write(`conductor: internal error: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exitCode = 70;
});
