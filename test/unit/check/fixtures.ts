/**
 * Assembly fixtures with inline expectations (as LLVM's lit tests and Mesa's `//!` lines write
 * them): a .s file under test/fixtures/ is checked as `conductor check` checks it, and its
 * comments say which findings each line must get, no more and no fewer.
 *
 *   ; target: gfx90a gfx942          the targets to check the file for (one run each), when the
 *                                    file has no .amdgcn_target; with one, it is the only target
 *   v_fma_f64 ...  ; expect: dgemm-fma64 required=2 actual=0
 *   s_waitcnt ...  ; expect: warning waitcnt-redundant
 *   v_add_f32 ...  ; expect: error waitcnt-missing vmcnt=0, note waitcnt-too-strong
 *   v_readlane ... ; expect: valu-sgpr-write-lane-select
 *                  ; expect(gfx942): valu-sgpr-write-valu-read
 *   v_mov_b32 ...  ; expect-none
 *
 * An expectation is a comma-separated list of findings at its line: an optional severity
 * (error, warning or note; error when omitted), the rule tag, then optional key=value pairs
 * compared with the finding's field (`required`, `actual`) or else its fix's (`vmcnt`,
 * `waitStates`, ...). `expect(gfx942)` holds on that target only. On a line of its own, an
 * expectation is about the nearest line of code above it (a line holds one comment).
 * `expect-none` says the line gets nothing (every line not named gets nothing anyway; it marks
 * the good cases). A file needs
 * at least one expectation, and a comment that starts like one but does not read as one is an
 * error, so a misspelt expectation never passes silently.
 *
 * When every expected finding is an error that `check --fix` can fix (an s_nop or an
 * s_waitcnt), the fixed text is checked again and must have no error left.
 *
 * Several cases share a file as blocks, each under its own label and ended by s_endpgm, so that
 * nothing flows from one into the next. The hazard checker reads every block, reached or not;
 * the waitcnt checker judges the waits present only in code that runs, so a waitcnt fixture makes
 * each case a kernel (a descriptor per label). A callable function (`.type f,@function` without a
 * descriptor) would add the waits its entry needs.
 */
import { readFileSync } from 'node:fs';
import type { Finding } from '../../../src/analysis/types.js';
import { checkLoaded } from '../../../src/check/check.js';
import { fixLoaded } from '../../../src/check/fix.js';
import { loadText } from '../../../src/load.js';

type Severity = 'error' | 'warning' | 'note';

/** One expected finding. */
export interface Expected {
  line: number;
  severity: Severity;
  rule: string;
  fields: Record<string, string>;
  /** The one target it holds on (all when absent). */
  target?: string;
}

export interface Fixture {
  file: string;
  text: string;
  /** The targets to run; empty when the file names its own (.amdgcn_target). */
  targets: string[];
  expected: Expected[];
}

const EXPECT = /;\s*expect\b(.*)$/i;
const FORM = /^(?:\(([a-z0-9]+)\))?(?:(-none)\s*$|:\s*(\S.*)$)/;
const ITEM = /^(?:(error|warning|note)\s+)?([a-z0-9][a-z0-9-]*)((?:\s+[A-Za-z]+=[^\s,]+)*)$/;
const TARGET = /^\s*;\s*target:\s*(\S.*)$/;

/** Reads a fixture's header and expectations; throws naming file:line on anything malformed. */
export function parseFixture(file: string, text: string): Fixture {
  const targets: string[] = [];
  const expected: Expected[] = [];
  let marks = 0;
  let code = 0;
  text.split('\n').forEach((raw, i) => {
    const t = TARGET.exec(raw);
    if (t) {
      targets.push(...t[1]!.split(/[\s,]+/).filter((s) => s.length > 0));
      return;
    }
    const m = EXPECT.exec(raw);
    if (raw.slice(0, m ? m.index : raw.length).trim().length > 0) code = i + 1;
    if (!m) return;
    // On a line of its own, an expectation is about the nearest line of code above it.
    const line = code;
    if (line === 0) throw new Error(`${file}:${i + 1}: an expectation before any code`);
    const f = FORM.exec(m[1]!);
    if (!f) throw new Error(`${file}:${i + 1}: malformed expectation '${m[0]}' (expect: [severity] rule [key=value]..., or expect-none)`);
    marks++;
    if (f[2]) return;
    for (const item of f[3]!.split(',').map((s) => s.trim())) {
      const it = ITEM.exec(item);
      if (!it) throw new Error(`${file}:${i + 1}: malformed expected finding '${item}'`);
      const fields: Record<string, string> = {};
      for (const kv of it[3]!.trim().split(/\s+/).filter((s) => s.length > 0)) {
        const [k, v] = kv.split('=') as [string, string];
        fields[k] = v;
      }
      expected.push({ line, severity: (it[1] ?? 'error') as Severity, rule: it[2]!, fields, ...(f[1] ? { target: f[1] } : {}) });
    }
  });
  if (marks === 0) throw new Error(`${file}: no expectation: mark the lines (; expect: rule, or ; expect-none)`);
  const declared = /^\s*\.amdgcn_target\b/m.test(text);
  if (declared && targets.length > 0) throw new Error(`${file}: both .amdgcn_target and a '; target:' header`);
  if (!declared && targets.length === 0) throw new Error(`${file}: no target: add '; target: gfxNNN' or .amdgcn_target`);
  return { file, text, targets, expected };
}

function fieldOf(f: Finding, key: string): string | undefined {
  const own = (f as unknown as Record<string, unknown>)[key];
  const v = own !== undefined ? own : (f.fix as Record<string, unknown> | undefined)?.[key];
  return v === undefined ? undefined : String(v);
}

function matches(e: Expected, f: Finding): boolean {
  return f.loc.line === e.line && f.rule === e.rule && f.severity === e.severity &&
    Object.entries(e.fields).every(([k, v]) => fieldOf(f, k) === v);
}

const showExpected = (file: string, e: Expected) =>
  `${file}:${e.line}: ${e.severity} [${e.rule}]${Object.entries(e.fields).map(([k, v]) => ` ${k}=${v}`).join('')}`;
const showFinding = (f: Finding) =>
  `${f.loc.file}:${f.loc.line}: ${f.severity}: ${f.message} [${f.rule}]${f.required !== undefined ? ` required=${f.required} actual=${f.actual}` : ''}`;

/**
 * Checks the fixture on each of its targets; returns the problems (empty when the findings are
 * exactly the expected ones): the expected findings missing, then the findings not expected.
 */
export function fixtureProblems(fx: Fixture): string[] {
  const problems: string[] = [];
  const ran = new Set<string>();
  for (const arch of fx.targets.length > 0 ? fx.targets : [undefined]) {
    const l = loadText(fx.text, fx.file, arch ? { arch } : {});
    const name = l.target.name;
    ran.add(name);
    if (arch) ran.add(arch);
    const at = arch ? ` (${arch})` : '';
    const all = checkLoaded(l).findings;
    const left = [...all];
    const wanted = fx.expected.filter((e) => e.target === undefined || e.target === name || e.target === arch);
    for (const e of wanted) {
      const k = left.findIndex((f) => matches(e, f));
      if (k < 0) problems.push(`missing${at}: ${showExpected(fx.file, e)}`);
      else left.splice(k, 1);
    }
    for (const f of left) problems.push(`unexpected${at}: ${showFinding(f)}`);
    const fixable = wanted.length > 0 && wanted.every((e) => e.severity === 'error') &&
      all.every((f) => f.severity !== 'error' || f.fix?.kind === 'nop' || f.fix?.kind === 'waitcnt');
    if (problems.length === 0 && fixable) {
      const fixed = loadText(fixLoaded(l, arch ? { arch } : {}).text, fx.file, arch ? { arch } : {});
      for (const f of checkLoaded(fixed).findings) if (f.severity === 'error') problems.push(`after --fix${at}: ${showFinding(f)}`);
    }
  }
  for (const e of fx.expected) if (e.target !== undefined && !ran.has(e.target)) problems.push(`${fx.file}:${e.line}: expect(${e.target}): the file is not checked for ${e.target}`);
  return problems;
}

/** Throws listing every problem of the fixture. */
export function assertFixture(fx: Fixture): void {
  const problems = fixtureProblems(fx);
  if (problems.length > 0) throw new Error(`${fx.file}: findings differ from the expectations:\n  ${problems.join('\n  ')}`);
}

/** Runs one fixture file, named `display` in messages. */
export function runFixture(path: string, display = path): void {
  assertFixture(parseFixture(display, readFileSync(path, 'utf8')));
}
