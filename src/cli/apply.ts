import { loadInput } from '../input.js';
import { fixedOccupancies } from './occupancy.js';
import { checkOutputs, outputName, readInput, summaryStream, writeOutput } from '../io.js';

import { ConductorError } from '../errors.js';
import { parseCommandArgs, parseRoundsOrThrow } from '../schedule/commands.js';
import { applyRounds, type ApplyResult } from '../schedule/session.js';
import { formatMetrics, parseObjective } from '../schedule/metrics.js';
import { isTranscript, movesFromTranscript } from '../agent/transcript.js';
import { parseCommand, type Command } from '../schedule/commands.js';

export interface ApplyCliOptions {
  moves?: string[];
  movesFile?: string;
  kernel?: string;
  arch?: string;
  output?: string;
  json?: boolean;
  objective?: string;
  fast?: boolean;
  perLane?: boolean;
}

/**
 * `conductor apply FILE (--moves "CMD" ... | --moves-file F) [--kernel K] [-o OUT] [--json]`.
 * Exit 0 when every round applied, 1 when a round failed (it was undone), 2 for bad input.
 * With -o the best schedule reached is written (re-derived and checked clean) when every round
 * applied; when a round failed nothing is written (the result would lack commands the user asked
 * for): the report says which command failed and why.
 */
export async function commandApply(file: string, opts: ApplyCliOptions): Promise<number> {
  if ((opts.moves === undefined) === (opts.movesFile === undefined)) {
    throw new ConductorError('give the commands with --moves "CMD" ... or --moves-file F (one of them)');
  }
  checkOutputs(opts.json, [opts.output]);
  const objective = opts.objective !== undefined ? parseObjective(opts.objective) : undefined;
  const rounds = opts.moves !== undefined ? parseCommandArgs(opts.moves) : movesFileRounds(await readInput(opts.movesFile!), opts.movesFile!);
  const loaded = await loadInput(file, { arch: opts.arch });
  const r = applyRounds(loaded, rounds, { kernel: opts.kernel, objective, exact: !opts.fast, disambiguate: opts.perLane ? 'per-lane' : true });
  const write = opts.output !== undefined && !r.failed;
  if (write) await writeOutput(opts.output!, r.text);
  const occupancy = fixedOccupancies(loaded, r.kernel);
  if (opts.json) {
    process.stdout.write(JSON.stringify({
      file, kernel: r.kernel, arch: r.arch, applied: r.applied, failed: r.failed, warnings: r.warnings,
      before: r.before, after: r.after, occupancy: occupancy?.json, rounds: r.rounds, changedRegions: r.changedRegions, notes: r.notes,
      output: write ? opts.output : null,
    }, null, 2) + '\n');
  } else {
    summaryStream([opts.output]).write(formatApply(file, r, opts.output, occupancy?.text) + '\n');
  }
  return r.failed ? 1 : 0;
}

/**
 * The rounds of a moves file: one command per line, or an agent transcript (JSONL), detected by
 * its first line, whose final best move list is replayed as one round.
 */
export function movesFileRounds(text: string, file: string): Command[][] {
  if (!isTranscript(text)) return parseRoundsOrThrow(text, file);
  const t = movesFromTranscript(text, file);
  const round: Command[] = [];
  for (const m of t.moves) {
    const c = parseCommand(m);
    if (typeof c === 'string') throw new ConductorError(`${file}: the transcript's ${t.from} move list holds a malformed command: ${c}`);
    round.push(c);
  }
  return round.length > 0 ? [round] : [];
}

export function formatApply(file: string, r: ApplyResult, output?: string, occupancy?: string): string {
  const out: string[] = [`${file}: kernel ${r.kernel} (${r.arch})`];
  for (const rd of r.rounds) {
    const head = `round ${rd.round}: `;
    switch (rd.outcome) {
      case 'accepted': out.push(`${head}applied ${rd.applied.length} command${rd.applied.length === 1 ? '' : 's'}`); break;
      case 'failed': out.push(`${head}failed, undone: ${rd.reason}`); break;
      case 'worse': out.push(`${head}reverted: ${rd.reason}`); break;
      case 'empty': out.push(`${head}no commands${rd.reason ? ` (${rd.reason})` : ''}`); break;
    }
    for (const c of rd.applied) out.push(`  ${rd.outcome === 'accepted' ? 'applied' : 'undone '}: ${c}`);
    if (rd.failed) out.push(`  failed : ${rd.failed.command}${rd.failed.line ? ` (line ${rd.failed.line})` : ''}: ${rd.failed.reason}`);
    if (rd.outcome === 'accepted') for (const w of rd.warnings) out.push(`  ${w.severity}: ${w.command}: ${w.message}`);
    if (rd.done) out.push('  done');
  }
  out.push(`before: ${formatMetrics(r.before)}`);
  out.push(`after:  ${formatMetrics(r.after)}`);
  if (occupancy) out.push(occupancy);
  for (const n of r.notes) out.push(`note: ${n}`);
  if (output && r.failed) out.push(`nothing written to ${outputName(output)}: round ${r.failed.round} failed (drop or fix its command to write the rest)`);
  else if (output) out.push(`wrote ${outputName(output)}`);
  return out.join('\n');
}
