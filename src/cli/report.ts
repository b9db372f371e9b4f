import { reportFile } from '../report/index.js';
import { outputName, summaryStream, writeOutput } from '../io.js';
import { counted, singleOutputPath } from './files.js';

export interface ReportCliOptions {
  arch?: string;
  kernel?: string;
  after?: string;
  output: string;
}

/** `conductor report FILE [--after SCHEDULED] [--arch T] [--kernel K] -o OUT|DIR`: 0 written, 2 bad input (nothing written). */
export async function commandReport(file: string, opts: ReportCliOptions): Promise<number> {
  // -o DIR: DIR/<FILE's name without its extension>.html
  const out = await singleOutputPath(file, opts.output, (base) => `${base.replace(/\.[^.]*$/, '')}.html`);
  const { model, html } = await reportFile(file, { arch: opts.arch, kernel: opts.kernel, after: opts.after });
  await writeOutput(out, html);
  const kernels = model.after ? `${model.comparison!.kernel}, ${counted(model.comparison!.moves.length, 'move')}` : model.kernels.map((k) => k.name).join(', ');
  // as the other commands say what they wrote (on the standard error when the page is on the standard output)
  summaryStream([out]).write(`wrote ${outputName(out)} (${html.length} bytes; ${kernels})\n`);
  return 0;
}
