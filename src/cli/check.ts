import { loadInput } from '../input.js';
import { checkLoaded } from '../check/check.js';
import { formatReportClang, formatReportJson, formatReportSarif, type OutputFormat } from '../check/format.js';
import { changeText, fixLoaded, fixSummary } from '../check/fix.js';
import { pathsMode } from '../waitcnt/index.js';
import { outputName, summaryStream, writeOutput } from '../io.js';
import { ConductorError } from '../errors.js';
import { VERSION } from '../version.js';

export interface CheckCliOptions {
  arch?: string;
  json?: boolean;
  format?: string;
  fix?: boolean;
  output?: string;
  paths?: string;
}

/** `conductor check FILE [--arch T] [--json] [--format clang|json|sarif] [--paths every|all] [--fix -o OUT]`. Exit 0 clean, 1 errors. */
export async function commandCheck(file: string, opts: CheckCliOptions): Promise<number> {
  const format = (opts.json ? 'json' : opts.format ?? 'clang') as OutputFormat;
  if (!['clang', 'json', 'sarif'].includes(format)) throw new ConductorError(`unknown --format '${opts.format}' (clang, json or sarif)`);
  if (opts.fix && !opts.output) throw new ConductorError('--fix needs -o OUT (or -o - for the standard output; the input is never overwritten in place)');
  if (!opts.fix && opts.output) throw new ConductorError('-o is only used with --fix');
  const paths = pathsMode(opts.paths);
  // Operand-legality errors are findings of check (exit 1, the rest of the file still checked); --fix refuses them.
  const loaded = await loadInput(file, { arch: opts.arch, operandErrors: opts.fix ? 'refuse' : 'report' });
  if (opts.fix) {
    const r = fixLoaded(loaded, { arch: opts.arch, paths });
    await writeOutput(opts.output!, r.text);
    summaryStream([opts.output]).write(`${file}: fixed: ${fixSummary(r)}; wrote ${outputName(opts.output!)}\n${r.changes.map((c) => `  ${changeText(c)}\n`).join('')}`);
    return 0;
  }
  const report = checkLoaded(loaded, { paths });
  const text = format === 'json' ? formatReportJson(report) : format === 'sarif' ? formatReportSarif(report, VERSION) : formatReportClang(report);
  process.stdout.write(text + '\n');
  return report.errors > 0 ? 1 : 0;
}
