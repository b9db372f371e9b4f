/**
 * Asks LLVM which features each target has and compares the answers with the feature sets in
 * src/targets/*.ts.
 *
 *   node dist/scripts/probe-features.js [--json]
 *
 * Every probe of FEATURE_PROBES runs for every target: assembly through
 * `llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=<target> -filetype=obj` (one-line probes of a
 * target batched into one file, one probe per line), or IR through `llc`.
 * Prints a table (feature x target: + present, . absent, ! disagreement with the target file)
 * and exits 1 on any disagreement, 2 when LLVM cannot be run. LLVM_BIN overrides
 * /usr/lib/llvm-22/bin.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm, access } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FEATURE_PROBES, ALL_FEATURES, TARGETS, TARGET_NAMES } from '../src/targets/index.js';
import type { Feature, TargetName } from '../src/targets/index.js';

export const DEFAULT_LLVM_BIN = '/usr/lib/llvm-22/bin';

export function llvmBin(): string {
  return process.env.LLVM_BIN ?? DEFAULT_LLVM_BIN;
}

export interface ProbeCell {
  target: TargetName;
  feature: Feature;
  /** What LLVM says. */
  probed: boolean;
  /** What src/targets says. */
  declared: boolean;
  /** The first diagnostic line LLVM printed for the last rejected alternative (for the table). */
  detail: string;
}

export interface ProbeReport {
  llvmVersion: string;
  cells: ProbeCell[];
  disagreements: ProbeCell[];
}

interface RunResult { ok: boolean; stdout: string; stderr: string }

function run(cmd: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new Error(`cannot run ${cmd}: not found (set LLVM_BIN or install llvm-22)`));
        return;
      }
      resolve({ ok: !err, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Throws with a clear message when the LLVM tools are missing. */
export async function requireLlvm(bin = llvmBin()): Promise<string> {
  for (const tool of ['llvm-mc', 'llc']) {
    try {
      await access(join(bin, tool), constants.X_OK);
    } catch {
      throw new Error(`${join(bin, tool)} is missing: the feature probes need LLVM 22 (apt-get install llvm-22, or set LLVM_BIN)`);
    }
  }
  const v = await run(join(bin, 'llvm-mc'), ['--version']);
  const m = /LLVM version ([0-9.]+)/.exec(v.stdout);
  return m ? m[1]! : 'unknown';
}

function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.includes('error:')) ?? stderr.split('\n')[0] ?? '';
  return line.replace(/^.*error:\s*/, '').trim();
}

async function probeLlc(bin: string, dir: string, target: TargetName, feature: Feature): Promise<{ present: boolean; detail: string }> {
  const p = FEATURE_PROBES[feature].llc!;
  const ll = join(dir, `${target}-${feature}.ll`);
  await writeFile(ll, p.ir);
  const r = await run(join(bin, 'llc'), ['-mtriple=amdgcn-amd-amdhsa', `-mcpu=${target}`, '-O2', ll, '-o', '-']);
  if (!r.ok) throw new Error(`llc failed on the ${feature} probe for ${target}: ${firstError(r.stderr)}`);
  const present = new RegExp(p.presentIf).test(r.stdout);
  return { present, detail: present ? 'llc output matches' : 'llc output does not match' };
}

async function assemble(bin: string, file: string, target: TargetName): Promise<RunResult> {
  return run(join(bin, 'llvm-mc'), ['-triple=amdgcn-amd-amdhsa', `-mcpu=${target}`, '-filetype=obj', file, '-o', file + '.o']);
}

/** Multi-line probes (kernel descriptors): one llvm-mc run per alternative. */
async function probeFile(bin: string, dir: string, target: TargetName, feature: Feature): Promise<{ present: boolean; detail: string }> {
  let detail = '';
  for (const [i, text] of (FEATURE_PROBES[feature].asm ?? []).entries()) {
    const s = join(dir, `${target}-${feature}-${i}.s`);
    await writeFile(s, text.endsWith('\n') ? text : text + '\n');
    const r = await assemble(bin, s, target);
    if (r.ok) return { present: true, detail: 'accepted' };
    detail = firstError(r.stderr);
  }
  return { present: false, detail };
}

/**
 * One-line probes of one target, batched: one llvm-mc run per round assembles alternative k of
 * every probe still undecided, one per line; llvm-mc reports each rejected line and goes on.
 */
async function probeLines(bin: string, dir: string, target: TargetName, features: Feature[]): Promise<Map<Feature, { present: boolean; detail: string }>> {
  const out = new Map<Feature, { present: boolean; detail: string }>();
  let pending = features;
  for (let k = 0; pending.length > 0; k++) {
    const batch = pending.filter((f) => (FEATURE_PROBES[f].asm ?? [])[k] !== undefined);
    for (const f of pending) if (!batch.includes(f)) out.set(f, out.get(f) ?? { present: false, detail: 'no alternative assembled' });
    if (batch.length === 0) break;
    const file = join(dir, `${target}-lines-${k}.s`);
    await writeFile(file, batch.map((f) => FEATURE_PROBES[f].asm![k]!).join('\n') + '\n');
    const r = await assemble(bin, file, target);
    const errors = new Map<number, string>();
    for (const line of r.stderr.split('\n')) {
      const m = /:(\d+):\d+: error: (.*)$/.exec(line);
      if (m && !errors.has(Number(m[1]))) errors.set(Number(m[1]), m[2]!.trim());
    }
    if (!r.ok && errors.size === 0) throw new Error(`llvm-mc failed on the ${target} probes without a line diagnostic: ${r.stderr.slice(0, 500)}`);
    const next: Feature[] = [];
    batch.forEach((f, i) => {
      const err = errors.get(i + 1);
      if (err === undefined) out.set(f, { present: true, detail: 'accepted' });
      else { out.set(f, { present: false, detail: err }); next.push(f); }
    });
    pending = next;
  }
  return out;
}

async function probeTarget(bin: string, dir: string, target: TargetName): Promise<Map<Feature, { present: boolean; detail: string }>> {
  const oneLine = ALL_FEATURES.filter((f) => FEATURE_PROBES[f].asm?.every((t) => !t.trimEnd().includes('\n')));
  const results = await probeLines(bin, dir, target, oneLine);
  for (const f of ALL_FEATURES) {
    if (results.has(f)) continue;
    results.set(f, FEATURE_PROBES[f].llc ? await probeLlc(bin, dir, target, f) : await probeFile(bin, dir, target, f));
  }
  return results;
}

/** Runs every probe on every target and compares with the target files. */
export async function probeFeatures(bin = llvmBin()): Promise<ProbeReport> {
  const llvmVersion = await requireLlvm(bin);
  const dir = await mkdtemp(join(tmpdir(), 'conductor-probe-'));
  try {
    const perTarget = await Promise.all(TARGET_NAMES.map((t) => probeTarget(bin, dir, t)));
    const cells: ProbeCell[] = [];
    TARGET_NAMES.forEach((target, i) => {
      for (const feature of ALL_FEATURES) {
        const r = perTarget[i]!.get(feature)!;
        cells.push({ target, feature, probed: r.present, declared: TARGETS[target].has(feature), detail: r.detail });
      }
    });
    return { llvmVersion, cells, disagreements: cells.filter((c) => c.probed !== c.declared) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatTable(report: ProbeReport): string {
  const w = Math.max(...ALL_FEATURES.map((f) => f.length)) + 2;
  const lines: string[] = [];
  lines.push(`feature probes, LLVM ${report.llvmVersion}  (+ present, . absent, ! target file disagrees)`);
  lines.push('feature'.padEnd(w) + TARGET_NAMES.map((t) => t.padEnd(8)).join(''));
  for (const f of ALL_FEATURES) {
    let row = f.padEnd(w);
    for (const t of TARGET_NAMES) {
      const c = report.cells.find((x) => x.target === t && x.feature === f)!;
      const mark = c.probed ? '+' : '.';
      row += (c.probed === c.declared ? mark : `!${mark}`).padEnd(8);
    }
    lines.push(row.trimEnd());
  }
  for (const d of report.disagreements) {
    lines.push(`DISAGREE ${d.target} ${d.feature}: LLVM says ${d.probed ? 'present' : 'absent'} (${d.detail}), src/targets/${d.target}.ts says ${d.declared ? 'present' : 'absent'}`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  let report: ProbeReport;
  try {
    report = await probeFeatures();
  } catch (e) {
    console.error(`probe-features: ${(e as Error).message}`);
    process.exit(2);
  }
  if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else console.log(formatTable(report));
  if (report.disagreements.length > 0) {
    console.error(`probe-features: ${report.disagreements.length} disagreement(s) between LLVM and src/targets`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
