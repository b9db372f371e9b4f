/**
 * `report`: a self-contained HTML view of a kernel and its schedule. model.ts builds the typed
 * JSON model, html.ts the page around it (client.ts draws it in the browser), align.ts turns a
 * scheduled file into the moves that lead to it.
 */
import { loadInput } from '../input.js';
import { buildReportModel, type ReportModel } from './model.js';
import { renderReportHtml } from './html.js';

export * from './model.js';
export { alignScheduled, instructionKey } from './align.js';
export type { Alignment } from './align.js';
export { renderReportHtml, loadReportAssets, encodeModel } from './html.js';
export type { ReportAssets } from './html.js';

export interface ReportFileOptions {
  arch?: string;
  kernel?: string;
  /** Path of the scheduled version of the file. */
  after?: string;
}

/** Load FILE (and the scheduled file), build the model and the page. Throws ConductorError on bad input. */
export async function reportFile(file: string, opts: ReportFileOptions = {}): Promise<{ model: ReportModel; html: string }> {
  const loaded = await loadInput(file, { arch: opts.arch });
  const after = opts.after !== undefined ? await loadInput(opts.after, { arch: opts.arch ?? loaded.target.name }) : undefined;
  const model = buildReportModel(loaded, { kernel: opts.kernel, after });
  return { model, html: renderReportHtml(model) };
}
