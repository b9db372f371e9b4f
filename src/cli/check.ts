import { loadFile } from '../load.js';
import { checkLoaded } from '../check/check.js';
import { formatReportClang, formatReportJson, formatReportSarif, type OutputFormat } from '../check/format.js';
import { fixLoaded } from '../check/fix.js';
import { writeOutputAtomic } from '../io.js';
import { ConductorError } from '../errors.js';
import { VERSION } from '../version.js';

export interface CheckCliOptions {
  arch?: string;
  json?: boolean;
  format?: string;
  fix?: boolean;
  output?: string;
}

/** `conductor check FILE [--arch T] [--json] [--format clang|json|sarif] [--fix -o OUT]`. Exit 0 clean, 1 errors. */
export async function commandCheck(file: string, opts: CheckCliOptions): Promise<number> {
  const format = (opts.json ? 'json' : opts.format ?? 'clang') as OutputFormat;
  if (!['clang', 'json', 'sarif'].includes(format)) throw new ConductorError(`unknown --format '${opts.format}' (clang, json or sarif)`);
  if (opts.fix && !opts.output) throw new ConductorError('--fix needs -o OUT (the input is never overwritten in place)');
  if (!opts.fix && opts.output) throw new ConductorError('-o is only used with --fix');
  // Operand-legality errors are findings of check (exit 1, the rest of the file still checked); --fix refuses them.
  const loaded = await loadFile(file, { arch: opts.arch, operandErrors: opts.fix ? 'refuse' : 'report' });
  if (opts.fix) {
    const r = fixLoaded(loaded, { arch: opts.arch });
    await writeOutputAtomic(opts.output!, r.text);
    process.stdout.write(`${file}: fixed: inserted ${r.insertedNops} s_nop (${r.insertedWaitStates} wait states) and ${r.insertedWaits} s_waitcnt in ${r.rounds} round${r.rounds === 1 ? '' : 's'}; wrote ${opts.output}\n`);
    return 0;
  }
  const report = checkLoaded(loaded);
  const text = format === 'json' ? formatReportJson(report) : format === 'sarif' ? formatReportSarif(report, VERSION) : formatReportClang(report);
  process.stdout.write(text + '\n');
  return report.errors > 0 ? 1 : 0;
}
