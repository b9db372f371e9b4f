import { loadInput } from '../input.js';
import { analyzeLoaded, formatAnalysis } from '../analysis/analyze.js';

/** `conductor analyze FILE [--arch T] [--json]`. */
export async function commandAnalyze(file: string, opts: { arch?: string; json?: boolean }): Promise<number> {
  const loaded = await loadInput(file, { arch: opts.arch });
  const a = analyzeLoaded(loaded);
  process.stdout.write((opts.json ? JSON.stringify(a, null, 2) : formatAnalysis(a)) + '\n');
  return 0;
}
