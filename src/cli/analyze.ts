import { loadInput } from '../input.js';
import { analyzeLoaded, formatAnalysis, type FileAnalysis } from '../check/analyze.js';
import { ConductorError } from '../errors.js';
import { counted, inputsOr, failedFileJson, failureCell, failedInput, formatTable, parseShard, shardFiles, worstExit } from './files.js';
import { colourDiagnostic } from './main.js';
import { tuneForOneAnalysis } from './v8-tuning.js';

/** `conductor analyze FILE|DIR... [--arch T] [--json] [--shard i/N]`: exit 0, or 2 when a file is bad input. */
export async function commandAnalyze(args: string[], opts: { arch?: string; json?: boolean; shard?: string }): Promise<number> {
  tuneForOneAnalysis();
  const shard = parseShard(opts.shard);
  const all = await inputsOr(args, (f, e) => failedInput(f, e, opts.json));
  if (typeof all === 'number') return all;
  const files = shardFiles(all, shard);
  if (all.length === 1 && args.length === 1 && files.length === 1) {
    let a: FileAnalysis;
    try {
      a = analyzeLoaded(await loadInput(files[0]!.path, { arch: opts.arch }));
    } catch (e) {
      return failedInput(files[0]!.path, e, opts.json);
    }
    process.stdout.write((opts.json ? JSON.stringify(a, null, 2) : formatAnalysis(a)) + '\n');
    return 0;
  }
  const results: { file: string; analysis?: FileAnalysis; error?: ConductorError; exit: number }[] = [];
  for (const f of files) {
    try {
      if (f.error) throw new ConductorError(f.error);
      const a = analyzeLoaded(await loadInput(f.path, { arch: opts.arch }));
      results.push({ file: f.path, analysis: a, exit: 0 });
      if (!opts.json) process.stdout.write(formatAnalysis(a) + '\n');
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      process.stderr.write(colourDiagnostic(e.format()) + '\n');
      results.push({ file: f.path, error: e, exit: 2 });
    }
  }
  const code = worstExit(results.map((r) => r.exit));
  if (opts.json) {
    process.stdout.write(JSON.stringify({ files: results.map((r) => r.analysis ? { ...r.analysis, exit: 0 } : failedFileJson(r.file, r.error!)), exit: code }, null, 2) + '\n');
    return code;
  }
  const rows: (string | number)[][] = [];
  for (const r of results) {
    if (!r.analysis) { rows.push([r.file, '-', '-', '-', '-', '-', '-', failureCell(r.error!.message, 50)]); continue; }
    for (const k of r.analysis.kernels) rows.push([r.file, k.name, k.arch, k.instructions, k.s_waitcnt, k.occupancy.descriptor?.wavesPerSimd ?? '-', k.occupancy.registersUsed?.wavesPerSimd ?? '-',
      `read; check: ${counted(k.diagnostics.errors, 'error')}, ${counted(k.diagnostics.warnings, 'warning')}`]);
  }
  process.stdout.write(formatTable(['file', 'kernel', 'target', 'instructions', 's_waitcnt', 'occupancy (descriptor)', 'occupancy (registers used)', 'result'], rows) + '\n' +
    `${counted(results.length, 'file')}${shard ? ` (shard ${shard.index}/${shard.count} of ${all.length})` : ''}, ${counted(results.filter((r) => r.analysis).reduce((a, r) => a + r.analysis!.kernels.length, 0), 'kernel')}, ${results.filter((r) => !r.analysis).length} failed to load\n`);
  return code;
}
