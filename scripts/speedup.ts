/**
 * `node dist/scripts/speedup.js [--objective LIST] [--budget N] [--seconds S] [--only REGEX]`:
 * schedules every MFMA kernel of the corpus and prints, per kernel, our estimate and llvm-mca's
 * cycles of the hottest loop before and after, with the geometric mean and the direction
 * agreement (test/oracle/speedup.ts). A measurement, not a test.
 */
import { parseObjective } from '../src/schedule/metrics.js';
import { formatSpeed, speedCorpus, speedRun } from '../test/oracle/speedup.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const objective = arg('--objective');
const only = arg('--only');
const t0 = Date.now();
const rows = await speedRun(await speedCorpus(), {
  objective: objective ? parseObjective(objective) : undefined,
  budget: arg('--budget') ? Number(arg('--budget')) : undefined,
  seconds: arg('--seconds') ? Number(arg('--seconds')) : undefined,
  filter: only ? new RegExp(only) : undefined,
  onRow: (r) => process.stderr.write(`  ${r.file} ${r.kernel.slice(0, 30)}: ${r.before.est_cycles} -> ${r.after.est_cycles} (${r.strategy}, ${r.seconds.toFixed(1)} s)\n`),
});
console.log(formatSpeed(rows));
console.log(`${((Date.now() - t0) / 1000).toFixed(0)} s`);
