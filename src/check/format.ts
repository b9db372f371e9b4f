/**
 * One formatter for findings: clang-style text, JSON, and SARIF 2.1.0 show the same values.
 */
import type { CheckReport } from './check.js';
import type { Finding } from '../analysis/types.js';
import { formatLoc } from '../errors.js';
import { ExpansionRepeats, inExpansions } from '../asm/program.js';
import { formatOccupancies, ldsAssumption, OCCUPANCY_KINDS, type OccupancyKind } from '../analysis/occupancy.js';
import { declaredRegistersText, declaredSgprText, ldsText } from '../analysis/resources.js';
import { lineRef } from '../asm/include.js';
import { counted } from '../text.js';

export type OutputFormat = 'clang' | 'json' | 'sarif';

/** A missing wait that is a warning because it falls short on some paths only (waitcnt PathsMode 'every'). */
export function isSomePaths(f: Finding): boolean {
  return f.somePaths === true && f.severity === 'warning';
}

export function formatFindingClang(f: Finding): string {
  const lines = [`${formatLoc(f.loc)}: ${f.severity}: ${f.message} [${f.rule}]`];
  for (const r of f.related) lines.push(`${formatLoc(r.loc)}: note: ${r.message}`);
  return lines.join('\n');
}

/**
 * Warnings of one rule a file's text shows in full; past them one note counts the rest (the
 * summary line counts every warning, and JSON / SARIF list every finding). A pattern a code base
 * repeats (an inline-asm macro expanded in every tile) then reads as a few examples and a count,
 * not a page per kernel. Errors, and waits short only on some paths (each a place to look at),
 * are always shown.
 */
export const WARNINGS_SHOWN_PER_RULE = 3;

export function formatReportClang(r: CheckReport, opts: { summary?: boolean } = {}): string {
  const out: string[] = [];
  for (const n of r.notes) out.push(`${r.file}: note: ${n}`);
  const shown = new Map<string, number>();
  const folded = new Map<string, number>();
  // the same finding at the same call and body line of a macro or repeat block (each repetition
  // of a `.rept`): shown once, its expansion note counting them (the summary counts each)
  const repeats = new ExpansionRepeats<number>();
  for (const f of r.findings) {
    const text = formatFindingClang(f);
    const fromExpansion = f.related[f.related.length - 1]?.kind === 'expansion';
    if (fromExpansion && repeats.again(text, (at, n) => { out[at] = inExpansions(text, n); })) continue;
    if (f.severity === 'warning' && !isSomePaths(f)) {
      const n = shown.get(f.rule) ?? 0;
      if (n >= WARNINGS_SHOWN_PER_RULE) { folded.set(f.rule, (folded.get(f.rule) ?? 0) + 1); continue; }
      shown.set(f.rule, n + 1);
    }
    if (fromExpansion) repeats.keep(text, out.length);
    out.push(text);
  }
  for (const [rule, n] of folded) {
    out.push(`${r.file}: note: ${counted(n, 'more warning')} [${rule}] like the ${WARNINGS_SHOWN_PER_RULE} above (--format json lists every finding)`);
  }
  if (opts.summary !== false) {
    for (const k of r.kernels) {
      const res = k.resources;
      const peak = `peak live VGPR ${res.peak.vgpr.value}${peakPlace(res.peak.vgpr)}, AGPR ${res.peak.agpr.value}${peakPlace(res.peak.agpr)}, SGPR ${res.peak.sgpr.value}${peakPlace(res.peak.sgpr)}`;
      const used = usedText(res.used);
      const d = res.declared;
      const decl = !d ? 'no descriptor'
        : `declared ${declaredRegistersText(d)}, ${declaredSgprText(d)}, ${ldsText(d.lds, res.ldsAtLaunch, 'B')}`;
      out.push(`${r.file}:${k.line}: ${k.kind} ${k.name}: ${counted(k.instructions, 'instruction')}; ${peak}; ${used}; ${decl}`);
      out.push(`  ${formatOccupancies(res.occupancy, ldsAssumption(res.occupancy))}`);
    }
    const some = r.findings.filter(isSomePaths).length;
    const paths = some > 0 ? ` (${some} of them a wait short only on some paths: --paths all makes ${some === 1 ? 'it an error' : 'them errors'}, and --fix fixes it then)` : '';
    out.push(`${counted(r.errors, 'error')}, ${counted(r.warnings, 'warning')}${paths}`);
  }
  return out.join('\n');
}

/** The registers of one file a kernel uses, `n` of them from 0: `v0..v7`, `a0`, `no SGPRs`. */
export function usedRange(prefix: string, n: number, none: string): string {
  if (n <= 0) return `no ${none}`;
  return n === 1 ? `${prefix}0` : `${prefix}0..${prefix}${n - 1}`;
}

/** Where a peak is: ` (line 12)`, ` (defs.inc:40)` in an included file, or nothing. */
export function peakPlace(p: { line?: number; file?: string }): string {
  return p.line === undefined ? '' : ` (${lineRef({ line: p.line, file: p.file })})`;
}

/** `used v0..v65, s0..s9`, `used v0, a0, no SGPRs` (AGPRs only when some are used). */
export function usedText(u: { vgpr: number; agpr: number; sgpr: number }): string {
  return `used ${usedRange('v', u.vgpr, 'VGPRs')}${u.agpr ? `, ${usedRange('a', u.agpr, 'AGPRs')}` : ''}, ${usedRange('s', u.sgpr, 'SGPRs')}`;
}

/** The occupancies as JSON: `{descriptor?, registersUsed?, peakLive?}`, each `{wavesPerSimd, limiter}`. */
export function occupancyJson(o: Partial<Record<OccupancyKind, { wavesPerSimd: number; limiter: string }>>): Partial<Record<OccupancyKind, { wavesPerSimd: number; limiter: string }>> {
  const out: Partial<Record<OccupancyKind, { wavesPerSimd: number; limiter: string }>> = {};
  for (const kind of OCCUPANCY_KINDS) {
    const x = o[kind];
    if (x) out[kind] = { wavesPerSimd: x.wavesPerSimd, limiter: x.limiter };
  }
  return out;
}

export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: Finding['severity'];
  rule: string;
  message: string;
  required?: number;
  actual?: number;
  related: { line: number; column: number; message: string }[];
  source?: string;
}

export function toJsonDiagnostic(f: Finding): JsonDiagnostic {
  return {
    file: f.loc.file, line: f.loc.line, column: f.loc.col, severity: f.severity, rule: f.rule, message: f.message,
    required: f.required, actual: f.actual,
    related: f.related.map((r) => ({ line: r.loc.line, column: r.loc.col, message: r.message })),
    source: f.source,
  };
}

export function formatReportJson(r: CheckReport): string {
  return JSON.stringify({
    file: r.file, arch: r.arch, notes: r.notes,
    diagnostics: r.findings.map(toJsonDiagnostic),
    kernels: r.kernels.map((k) => ({
      name: k.name, kind: k.kind, line: k.line, instructions: k.instructions,
      pressure: { vgpr: k.resources.peak.vgpr, agpr: k.resources.peak.agpr, sgpr: k.resources.peak.sgpr },
      used: k.resources.used,
      declared: k.resources.declared,
      occupancy: occupancyJson(k.resources.occupancy),
    })),
    errors: r.errors, warnings: r.warnings,
  }, null, 2);
}

/**
 * A SARIF 2.1.0 log for a file that could not be checked (bad input): one run with no results
 * whose invocation failed, the reason as an error notification at its place when it has one, so a
 * code-scanning upload sees the failure instead of an empty or missing log.
 */
export function formatFailureSarif(file: string, message: string, loc: { file: string; line: number; col: number } | undefined, version: string): string {
  return JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'conductor', version, rules: [] } },
      artifacts: [{ location: { uri: file } }],
      invocations: [{
        executionSuccessful: false,
        toolExecutionNotifications: [{
          level: 'error', message: { text: message },
          ...(loc ? { locations: [{ physicalLocation: { artifactLocation: { uri: loc.file }, region: { startLine: loc.line, startColumn: loc.col } } }] } : {}),
        }],
      }],
      results: [],
    }],
  }, null, 2);
}

/** SARIF 2.1.0 for code-scanning tools. */
export function formatReportSarif(r: CheckReport, version: string): string {
  const ruleIds = [...new Set(r.findings.map((f) => f.rule))].sort();
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]));
  const sourceOf = new Map(r.findings.filter((f) => f.source).map((f) => [f.rule, f.source!]));
  const level = (s: Finding['severity']) => (s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note');
  const loc = (file: string, line: number, col: number) => ({
    physicalLocation: { artifactLocation: { uri: file }, region: { startLine: line, startColumn: col } },
  });
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: {
        driver: {
          name: 'conductor', version,
          rules: ruleIds.map((id) => ({
            id, shortDescription: { text: id }, ...(sourceOf.has(id) ? { fullDescription: { text: `Source: ${sourceOf.get(id)}` } } : {}),
          })),
        },
      },
      results: r.findings.map((f) => ({
        ruleId: f.rule, ruleIndex: ruleIndex.get(f.rule), level: level(f.severity), message: { text: f.message },
        locations: [loc(f.loc.file, f.loc.line, f.loc.col)],
        relatedLocations: f.related.map((x, i) => ({ id: i, message: { text: x.message }, ...loc(x.loc.file, x.loc.line, x.loc.col) })),
        ...(f.required !== undefined ? { properties: { required: f.required, actual: f.actual } } : {}),
      })),
    }],
  };
  return JSON.stringify(sarif, null, 2);
}
