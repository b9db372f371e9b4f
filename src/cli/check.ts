import { loadInput } from '../input.js';
import { checkLoaded } from '../check/check.js';
import { formatFailureSarif, formatReportClang, formatReportJson, formatReportSarif, isSomePaths, type OutputFormat } from '../check/format.js';
import { changeText, fixLoaded, fixSummary, type FixResult } from '../check/fix.js';
import { pathsMode, type PathsMode } from '../waitcnt/index.js';
import { isStandardOutput, outputName, summaryStream, writeOutput } from '../io.js';
import { ConductorError } from '../errors.js';
import { VERSION } from '../version.js';
import { counted, inputsOr, failedFileJson, failureCell, failedInput, formatTable, outputPaths, parseShard, shardFiles, bomFirst, warnBom, worstExit } from './files.js';
import { colourDiagnostic } from './main.js';
import { tuneForOneAnalysis } from './v8-tuning.js';

export interface CheckCliOptions {
  arch?: string;
  json?: boolean;
  format?: string;
  fix?: boolean;
  output?: string;
  paths?: string;
  shard?: string;
}

interface Outcome {
  file: string; code: number; errors?: number; warnings?: number; report?: string; fixed?: string; fix?: FixJson; failure?: ConductorError;
}

type FixJson = ReturnType<typeof fixJson>;

function fixChanged(r: FixResult): boolean {
  return r.insertedNops + r.insertedWaits + r.strengthenedWaits + r.extendedNops > 0;
}

/** The warnings --fix leaves (waits short on some paths only: --paths all makes them errors, and fixes them). */
function leftText(r: FixResult): string {
  const some = r.waitcntWarnings.filter(isSomePaths).length;
  return some > 0 ? `; left ${counted(some, 'wait')} short only on some paths (warnings; --paths all fixes them)` : '';
}

/** What --fix did to one file, for --json. */
function fixJson(file: string, output: string, r: FixResult) {
  return {
    file, output: isStandardOutput(output) ? null : output, rounds: r.rounds,
    inserted: { s_nop: r.insertedNops, waitStates: r.insertedWaitStates, s_waitcnt: r.insertedWaits },
    strengthened: { s_waitcnt: r.strengthenedWaits }, lengthened: { s_nop: r.extendedNops },
    changes: r.changes.map((c) => ({ line: c.line, before: c.before, after: c.after })),
  };
}

/** One file, as `check` has always done it: the report (or the fix) and its exit code. */
async function checkOne(file: string, opts: CheckCliOptions, paths: PathsMode | undefined, format: OutputFormat, out: string | undefined, error?: string): Promise<Outcome> {
  if (error) throw new ConductorError(error);
  // Operand-legality errors are findings of check (exit 1, the rest of the file still checked); --fix refuses them.
  const loaded = await loadInput(file, { arch: opts.arch, operandErrors: opts.fix ? 'refuse' : 'report' });
  if (opts.fix) {
    warnBom(loaded.program);
    const r = fixLoaded(loaded, { arch: opts.arch, paths });
    await writeOutput(out!, bomFirst(loaded.program, r.text));
    const fix = fixJson(file, out!, r);
    const fixed = format === 'json'
      ? JSON.stringify(fix, null, 2)
      : r.changes.length === 0 && !fixChanged(r)
        ? `${file}: nothing to fix (no check error); wrote ${outputName(out!)} unchanged${leftText(r)}`
        : `${file}: fixed: ${fixSummary(r)}; wrote ${outputName(out!)}${leftText(r)}\n${r.changes.map((c) => `  ${changeText(c)}\n`).join('')}`.trimEnd();
    return { file, code: 0, errors: 0, fixed, fix };
  }
  const report = checkLoaded(loaded, { paths });
  const text = format === 'json' ? formatReportJson(report) : format === 'sarif' ? formatReportSarif(report, VERSION) : formatReportClang(report);
  return { file, code: report.errors > 0 ? 1 : 0, errors: report.errors, warnings: report.warnings, report: text };
}

/**
 * `conductor check FILE|DIR... [--arch T] [--json] [--format clang|json|sarif] [--paths every|all] [--fix -o OUT|OUTDIR/|-]
 * [--shard i/N]`. Exit 0 clean, 1 errors, 2 bad input: the worst over the files.
 */
export async function commandCheck(args: string[], opts: CheckCliOptions): Promise<number> {
  tuneForOneAnalysis();
  const format = (opts.json ? 'json' : opts.format ?? 'clang') as OutputFormat;
  if (!['clang', 'json', 'sarif'].includes(format)) throw new ConductorError(`unknown --format '${opts.format}' (clang, json or sarif)`);
  if (opts.fix && !opts.output) throw new ConductorError('--fix needs -o OUT (-o - for the standard output; the input changes only when OUT names it)');
  if (!opts.fix && opts.output) throw new ConductorError('-o is only used with --fix');
  if (opts.fix && format === 'sarif') throw new ConductorError('--fix reports what it changed as text or --json; SARIF is for findings (check the fixed file with --format sarif)');
  if (opts.fix && format === 'json' && opts.output !== undefined && isStandardOutput(opts.output)) {
    throw new ConductorError('--fix --json prints what was changed on the standard output: write the fixed file with -o FILE');
  }
  const paths = pathsMode(opts.paths);
  const all = await inputsOr(args, (f, e) => failedAlone(f, e, format));
  if (typeof all === 'number') return all;
  const several = all.length > 1 || args.length > 1;
  const shard = parseShard(opts.shard);
  const files = shardFiles(all, shard);
  const outs = await outputPaths(files, opts.output, several);
  if (!several) {
    let o: Outcome;
    try {
      o = await checkOne(files[0]!.path, opts, paths, format, outs.get(files[0]!.path));
    } catch (e) {
      return failedAlone(files[0]!.path, e, format);
    }
    (o.fixed && format !== 'json' ? summaryStream([opts.output]) : process.stdout).write((o.fixed ?? o.report!) + '\n');
    return o.code;
  }
  const outcomes: Outcome[] = [];
  for (const f of files) {
    try {
      const o = await checkOne(f.path, opts, paths, format, outs.get(f.path), f.error);
      outcomes.push(o);
      if (format === 'clang') process.stdout.write((o.fixed ?? o.report!) + '\n');
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      process.stderr.write(colourDiagnostic(e.format()) + '\n');
      outcomes.push({ file: f.path, code: 2, failure: e });
    }
  }
  const code = worstExit(outcomes.map((o) => o.code));
  if (format === 'json') {
    const files2 = outcomes.map((o) => (o.fix ? { ...o.fix, exit: o.code } : o.report ? { ...JSON.parse(o.report) as object, exit: o.code } : failedFileJson(o.file, o.failure!)));
    process.stdout.write(JSON.stringify({ files: files2, summary: summary(outcomes), exit: code }, null, 2) + '\n');
  } else if (format === 'sarif') {
    // one SARIF log with one run per file
    const logs = outcomes.filter((o) => o.report || o.failure)
      .map((o) => JSON.parse(o.report ?? failureSarif(o.file, o.failure!)) as { runs: unknown[] } & Record<string, unknown>);
    const merged = logs.length > 0 ? { ...logs[0]!, runs: logs.flatMap((l) => l.runs) } : { version: '2.1.0', runs: [] };
    process.stdout.write(JSON.stringify(merged, null, 2) + '\n');
  } else {
    const rows = outcomes.map((o) => [o.file, o.errors ?? '-', o.warnings ?? '-', o.failure ? failureCell(o.failure.message, 60) : `exit ${o.code}`]);
    const s = summary(outcomes);
    process.stdout.write(formatTable(['file', 'errors', 'warnings', 'result'], rows) + '\n' +
      `${counted(s.files, 'file')}${shard ? ` (shard ${shard.index}/${shard.count} of ${all.length})` : ''}: ${s.clean} clean, ${s.withErrors} with errors, ${s.failed} failed to load; ${counted(s.errors, 'error')}, ${counted(s.warnings, 'warning')}\n`);
  }
  return code;
}

/**
 * One file that could not be checked (or fixed): --json and --format json|sarif stay
 * machine-readable on bad input (the failed file's record, as every command's --json gives it,
 * or a SARIF log whose run failed), the error still on the standard error, exit 2. Other errors
 * are rethrown.
 */
function failedAlone(file: string, e: unknown, format: OutputFormat): number {
  if (format !== 'sarif' || !(e instanceof ConductorError)) return failedInput(file, e, format === 'json');
  process.stderr.write(colourDiagnostic(e.format()) + '\n');
  process.stdout.write(failureSarif(file, e) + '\n');
  return 2;
}

/** The SARIF log of a file that could not be checked. */
function failureSarif(file: string, e: ConductorError): string {
  return formatFailureSarif(file, e.message, e.loc ? { file: e.loc.file, line: e.loc.line, col: e.loc.col } : undefined, VERSION);
}

function summary(outcomes: Outcome[]): { files: number; clean: number; withErrors: number; failed: number; errors: number; warnings: number } {
  return {
    files: outcomes.length, clean: outcomes.filter((o) => o.code === 0).length, withErrors: outcomes.filter((o) => o.code === 1).length,
    failed: outcomes.filter((o) => o.code === 2).length, errors: outcomes.reduce((a, o) => a + (o.errors ?? 0), 0), warnings: outcomes.reduce((a, o) => a + (o.warnings ?? 0), 0),
  };
}
