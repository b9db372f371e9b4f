/**
 * The HTML page: one self-contained file (no network access needed to open it). The page holds
 * the report model gzip-compressed and base64-encoded, the charting library uPlot (read from
 * node_modules when the report is generated and inlined; it is not part of this repository),
 * the style sheet and the page script (client.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { ConductorError } from '../errors.js';
import { CLIENT_SCRIPT } from './client.js';
import type { ReportModel } from './model.js';

export interface ReportAssets {
  /** uPlot's browser build (uPlot.iife.min.js). */
  uplotJs: string;
  /** uPlot's style sheet (uPlot.min.css). */
  uplotCss: string;
}

let assetsCache: ReportAssets | undefined;

/** uPlot's files from the installed `uplot` package. */
export function loadReportAssets(): ReportAssets {
  if (assetsCache) return assetsCache;
  const require = createRequire(import.meta.url);
  try {
    assetsCache = {
      uplotJs: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
      uplotCss: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    };
  } catch (e) {
    throw new ConductorError(`the report needs the 'uplot' package (npm ci): ${(e as Error).message}`);
  }
  return assetsCache;
}

const STYLE = `
:root { --fg: #1c1f24; --dim: #6b7280; --line: #e5e7eb; --err: #b91c1c; --warn: #b45309; --note: #2563eb; --wait: #eef2ff; --nop: #f5f5f4; }
* { box-sizing: border-box; }
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; padding: 12px 16px 40px; }
header h1 { font-size: 16px; margin: 0 0 8px; overflow-wrap: anywhere; }
p, .facts { overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 18px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 4px; word-break: break-all; }
h3 { font-size: 13px; margin: 14px 0 4px; }
.dim { color: var(--dim); font-weight: normal; }
table { border-collapse: collapse; }
th, td { padding: 2px 8px; text-align: right; border-bottom: 1px solid var(--line); }
th:first-child { text-align: left; }
.summary { display: flex; gap: 24px; flex-wrap: wrap; align-items: flex-start; }
.facts .k { color: var(--dim); display: inline-block; min-width: 190px; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.side-by-side .col { min-width: 0; overflow: hidden; }
details.more summary { cursor: pointer; color: var(--dim); }
.diag-box { max-height: 180px; overflow: auto; border: 1px solid var(--line); }
ol.diagnostics { margin: 0; padding: 0 0 0 36px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
li.diag { cursor: pointer; padding: 1px 4px; }
li.diag:hover { background: #f3f4f6; }
li.diag.nolink { cursor: default; }
li.diag .sev { font-weight: 600; }
li.sev-error .sev { color: var(--err); } li.sev-warning .sev { color: var(--warn); } li.sev-note .sev { color: var(--note); }
li.diag .rule, .related { color: var(--dim); }
.code-head, .row { display: flex; white-space: pre; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.code-head { color: var(--dim); border-bottom: 1px solid var(--line); }
.code { height: 440px; overflow: auto; border: 1px solid var(--line); position: relative; }
.spacer { position: relative; }
.rows { position: absolute; left: 0; right: 0; top: 0; }
.row { height: 18px; line-height: 18px; }
.row > span, .code-head > span { overflow: hidden; text-overflow: ellipsis; flex: none; padding: 0 4px; }
.ln { width: 64px; text-align: right; color: var(--dim); }
.is { width: 64px; text-align: right; }
.st { width: 48px; text-align: right; }
.rg { width: 84px; text-align: right; color: var(--dim); }
.tx { width: 420px; }
.rs { flex: 1 1 auto !important; color: var(--dim); min-width: 120px; }
.row.label { color: #7c3aed; font-weight: 600; }
.row.wait { background: var(--wait); }
.row.nop { background: var(--nop); }
.row.stall .st { color: var(--warn); font-weight: 600; }
.row.stall-hi .st { color: var(--err); font-weight: 700; }
.row.hazard .tx { text-decoration: underline wavy var(--err); }
.row.d-error .ln { background: #fecaca; color: var(--err); }
.row.d-warning .ln { background: #fde68a; color: var(--warn); }
.row.d-note .ln { background: #dbeafe; }
.row.moved .tx { background: #dcfce7; }
.row.target { outline: 2px solid #2563eb; outline-offset: -2px; background: #dbeafe; }
.tl-bar { display: flex; gap: 6px; align-items: center; }
.tl-block { max-width: 520px; }
.tl-legend { font-size: 11px; color: var(--dim); margin: 4px 0; }
.sw { display: inline-block; width: 14px; height: 8px; margin: 0 3px 0 10px; }
.sw.wait, .tl-wait { background: #ef4444; fill: #ef4444; }
.sw.issue, .tl-issue { background: #1d4ed8; fill: #1d4ed8; }
.sw.lat, .tl-lat { background: #93c5fd; fill: #93c5fd; opacity: .8; }
.tl-scroll { max-height: 380px; overflow: auto; border: 1px solid var(--line); }
svg.timeline { display: block; font: 9px sans-serif; }
svg.timeline .axis line { stroke: #f0f0f0; }
svg.timeline .axis text { fill: var(--dim); text-anchor: middle; }
svg.timeline .tl-line { fill: var(--dim); }
svg.timeline g.tl-item { cursor: pointer; }
svg.timeline g.tl-item.wait .tl-issue { fill: #7c3aed; }
svg.timeline g.tl-item:hover rect { stroke: #111; stroke-width: .5; }
.ref-labels { position: absolute; left: 0; top: 0; right: 0; bottom: 0; pointer-events: none; overflow: hidden; }
.ref-label { position: absolute; font: 10px/12px sans-serif; white-space: nowrap; background: rgba(255, 255, 255, .85); padding: 0 2px; }
ul.pressure-lines { list-style: none; padding: 0; margin: 4px 0; font-size: 11px; display: flex; flex-wrap: wrap; gap: 4px 14px; }
.cmp { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
table.deltas tr.better td:last-child { color: #15803d; font-weight: 600; }
table.deltas tr.worse td:last-child { color: var(--err); font-weight: 600; }
table.loops { margin: 2px 0 4px; }
table.loops thead th { text-align: center; font-weight: 600; }
table.loops tr.better td.chg { color: #15803d; font-weight: 600; }
table.loops tr.worse td.chg { color: var(--err); font-weight: 600; }
table.loops td.chg1.better { color: #15803d; }
table.loops td.chg1.worse { color: var(--err); }
table.loops td.binds { text-align: left; }
details.region-moves summary .cycles { margin-left: 4px; }
details.region-moves summary a.show-region { font-size: 11px; margin-left: 4px; }
.moves-box { flex: 1; min-width: 300px; }
ol.moves { max-height: 220px; overflow: auto; margin: 2px 0 6px; border: 1px solid var(--line); padding-left: 44px; font-size: 12px; }
details.region-moves summary { cursor: pointer; font-size: 12px; padding: 2px 0; }
.region-moves-box h3 button { font-size: 11px; margin-left: 6px; }
pre.fatal { color: var(--err); }
`;

/** `</script` and `<!--` would end or confuse a script element. */
function scriptSafe(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** The report model, gzip-compressed and base64-encoded, as the page holds it. */
export function encodeModel(model: ReportModel): string {
  return gzipSync(JSON.stringify(model), { level: 9 }).toString('base64');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

/** The whole page for `model`. */
export function renderReportHtml(model: ReportModel, assets: ReportAssets = loadReportAssets()): string {
  const title = `${model.tool} report: ${model.file}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${assets.uplotCss}</style>`,
    `<style>${STYLE}</style>`,
    '</head><body>',
    `<header><h1 id="title">${escapeHtml(title)}</h1></header>`,
    '<main id="app"></main>',
    `<script type="application/octet-stream" id="report-data">${encodeModel(model)}</script>`,
    `<script>${scriptSafe(assets.uplotJs)}</script>`,
    `<script>${scriptSafe(CLIENT_SCRIPT)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
