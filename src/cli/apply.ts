import { loadInput } from '../input.js';
import { fixedOccupancies } from './occupancy.js';
import { checkOutputs, outputName, readTextFile, summaryStream, writeOutput } from '../io.js';
import { failedInput, singleOutputPath, bomFirst, warnBom } from './files.js';

import { ConductorError } from '../errors.js';
import { parseCommandArgs, parseRoundsOrThrow } from '../schedule/commands.js';
import { applyRounds, type ApplyResult } from '../schedule/session.js';
import { formatMetrics, parseObjective } from '../schedule/metrics.js';
import { isTranscript, movesFromTranscript } from '../agent/transcript.js';
import { PIPELINED_MOVES } from '../schedule/replay.js';
import { parseCommand, type Command } from '../schedule/commands.js';
import { counted } from '../text.js';

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
  const output = opts.output !== undefined ? await singleOutputPath(file, opts.output) : undefined;
  const objective = opts.objective !== undefined ? parseObjective(opts.objective) : undefined;
  // on bad input, --json gives the failed file's record: the move list's or FILE's
  let at = opts.movesFile ?? file;
  try {
    return await applyFile(file, opts, output, objective, (f) => { at = f; });
  } catch (e) {
    return failedInput(at, e, opts.json);
  }
}

/** apply on FILE: `reading` names each file as its turn comes (the move list, then FILE). */
async function applyFile(file: string, opts: ApplyCliOptions, output: string | undefined, objective: ReturnType<typeof parseObjective> | undefined,
  reading: (file: string) => void): Promise<number> {
  let kernel = opts.kernel;
  let rounds: Command[][];
  let pipelined = false;
  if (opts.moves !== undefined) rounds = parseCommandArgs(opts.moves);
  else {
    const text = await readTextFile(opts.movesFile!, 'move commands or an agent transcript');
    const picked = pickSection(text, opts.movesFile!, kernel);
    kernel = picked.kernel;
    const m = movesFileRounds(picked.text, opts.movesFile!);
    rounds = m.rounds;
    // a transcript's moves are of the kernel its start record names
    if (m.kernel !== undefined) {
      if (kernel !== undefined && kernel !== m.kernel) throw new ConductorError(`${opts.movesFile} is a transcript of kernel ${m.kernel}; --kernel names ${kernel}`);
      kernel = m.kernel;
    }
    pipelined = PIPELINED_MOVES.test(picked.text);
  }
  reading(file);
  const loaded = await loadInput(file, { arch: opts.arch });
  if (output !== undefined) warnBom(loaded.program);
  const r = applyRounds(loaded, rounds, { kernel, objective, exact: !opts.fast, disambiguate: opts.perLane ? 'per-lane' : true });
  const skipped = afterDone(rounds);
  if (r.failed && pipelined) {
    r.notes.push(`${opts.movesFile}: these moves are of the program schedule wrote with its loops pipelined, not of ${file} (its first line says so): ` +
      'they replay on that program only; schedule --no-pipeline --save-moves gives moves that replay on the input');
  }
  if (skipped) r.notes.push(`'done' (${where(skipped.done.line, opts)}) ends the run: ${skipped.count} later command${skipped.count === 1 ? ' was' : 's were'} not applied`);
  const write = output !== undefined && !r.failed;
  if (write) await writeOutput(output, bomFirst(loaded.program, r.text));
  const occupancy = fixedOccupancies(loaded, r.kernel);
  if (opts.json) {
    process.stdout.write(JSON.stringify({
      file, kernel: r.kernel, arch: r.arch, applied: r.applied, failed: r.failed, warnings: r.warnings,
      before: r.before, after: r.after, occupancy: occupancy?.json, rounds: r.rounds, changedRegions: r.changedRegions, notes: r.notes,
      output: write ? output : null,
    }, null, 2) + '\n');
  } else {
    summaryStream([output]).write(formatApply(file, r, output, occupancy?.text, (line) => where(line, opts)) + '\n');
  }
  return r.failed ? 1 : 0;
}

/** Where the command of `line` was given: `moves.txt:3` or `--moves argument 3`. */
function where(line: number | undefined, opts: ApplyCliOptions): string {
  return opts.movesFile !== undefined ? `${opts.movesFile}:${line}` : `--moves argument ${line}`;
}

/** The first `done` and how many commands follow it (in its round and later ones), or undefined. */
export function afterDone(rounds: readonly (readonly Command[])[]): { done: Command; count: number } | undefined {
  let done: Command | undefined;
  let count = 0;
  for (const r of rounds) for (const c of r) {
    if (done) count++;
    else if (c.op === 'done') done = c;
  }
  return done && count > 0 ? { done, count } : undefined;
}

/**
 * The part of a moves file for one kernel. `schedule --save-moves` writes a `# kernel K` line before
 * each kernel's commands when the file has several kernels; the other kernels' lines are blanked
 * (line numbers stay those of the file). Without --kernel, the one section with commands is taken;
 * several are an error asking for --kernel. A file without sections is returned whole.
 */
export function pickSection(text: string, file: string, kernel: string | undefined): { text: string; kernel: string | undefined } {
  const lines = text.split(/\r?\n/);
  const owner: (string | undefined)[] = [];
  const withCommands = new Set<string>();
  const sections: string[] = [];
  let cur: string | undefined;
  for (const line of lines) {
    const m = /^#\s*kernel\s+(\S+)\s*$/.exec(line.trim());
    if (m) { cur = m[1]!; sections.push(cur); owner.push(undefined); continue; }
    owner.push(cur);
    const code = line.replace(/#.*/, '').trim();
    if (cur !== undefined && code !== '') withCommands.add(cur);
  }
  if (sections.length === 0) return { text, kernel };
  let pick = kernel;
  if (pick === undefined) {
    const busy = sections.filter((k) => withCommands.has(k));
    if (busy.length > 1) throw new ConductorError(`${file} has commands for kernels ${busy.join(', ')}: pick one with --kernel`);
    pick = busy[0] ?? sections[0]!;
  } else if (!sections.includes(pick)) {
    throw new ConductorError(`${file} has no '# kernel ${pick}' section (it has ${sections.join(', ')})`);
  }
  return { text: lines.map((l, i) => (owner[i] === pick ? l : '')).join('\n'), kernel: pick };
}

/**
 * The rounds of a moves file: one command per line, or an agent transcript (JSONL), detected by
 * its first line, whose final best move list is replayed as one round, on the kernel its start
 * record names (`kernel`).
 */
export function movesFileRounds(text: string, file: string): { rounds: Command[][]; kernel?: string } {
  if (!isTranscript(text)) return { rounds: parseRoundsOrThrow(text, file) };
  const t = movesFromTranscript(text, file);
  const round: Command[] = [];
  for (const m of t.moves) {
    const c = parseCommand(m);
    if (typeof c === 'string') throw new ConductorError(`${file}: the transcript's ${t.from} move list holds a malformed command: ${c}`);
    round.push(c);
  }
  return { rounds: round.length > 0 ? [round] : [], ...(t.kernel !== undefined ? { kernel: t.kernel } : {}) };
}

export function formatApply(file: string, r: ApplyResult, output?: string, occupancy?: string,
  at: (line: number) => string = (line) => `line ${line}`): string {
  const out: string[] = [`${file}: kernel ${r.kernel} (${r.arch})`];
  for (const rd of r.rounds) {
    const head = `round ${rd.round}: `;
    switch (rd.outcome) {
      case 'accepted': out.push(`${head}applied ${counted(rd.applied.length, 'command')}`); break;
      case 'failed': out.push(`${head}failed, undone${rd.failed ? '' : `: ${rd.reason}`}`); break;
      case 'worse': out.push(`${head}reverted: ${rd.reason}`); break;
      case 'empty': out.push(`${head}no commands${rd.reason ? ` (${rd.reason})` : ''}`); break;
    }
    for (const c of rd.applied) out.push(`  ${rd.outcome === 'accepted' ? 'applied' : 'undone '}: ${c}`);
    if (rd.failed) out.push(`  failed : ${rd.failed.command}${rd.failed.line ? ` (${at(rd.failed.line)})` : ''}: ${rd.failed.reason}`);
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
