/**
 * Helpers shared by the hazard oracle tests (not a test file itself): the reviewed exceptions,
 * splitting LLVM-printed assembly into functions, and lining up where LLVM put s_nop.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Finding } from '../../src/analysis/types.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface PairException {
  /** Pair file stem without .nohazard.s / .withhazard.s, e.g. "hazards-gfx950.gfx950". */
  file: string;
  function: string;
  /** For withhazard findings: the rule; for nohazard misses: the consumer instruction text. */
  rule?: string;
  consumer?: string;
  reason: string;
}

export interface KernelCount {
  kernel: string;
  target: string;
  count: number;
  rule?: string;
  category?: string;
  reason?: string;
}

export interface HazardExceptions {
  pairs: { llvmSpecific: PairException[]; isaStricter: PairException[] };
  kernels: {
    categories: Record<string, string>;
    ruleReasons: Record<string, string>;
    loadFailures: { kernel: string; target: string; reason: string }[];
    llvmOutput: KernelCount[];
    missed: KernelCount[];
  };
}

/** hazards-exceptions.json (beside the .ts source; the compiled test runs from dist/test/oracle). */
export function loadHazardExceptions(): HazardExceptions {
  const candidates = [join(here, 'hazards-exceptions.json'), join(here, '..', '..', '..', 'test', 'oracle', 'hazards-exceptions.json')];
  for (const c of candidates) {
    try {
      return JSON.parse(readFileSync(c, 'utf8')) as HazardExceptions;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new Error('hazards-exceptions.json not found');
}

export interface AsmFunction {
  name: string;
  /** 0-based line range [start, end) of the function in the file. */
  start: number;
  end: number;
  /** The whole file with every line outside the function blanked (line numbers are kept). */
  text: string;
}

/** Functions of an llc-printed .s file, split at "; -- Begin function" lines. */
export function splitFunctions(text: string): AsmFunction[] {
  const lines = text.split('\n');
  const starts: number[] = [];
  lines.forEach((l, i) => { if (/; -- Begin function/.test(l)) starts.push(i); });
  return starts.map((s, k) => {
    // up to its `; -- End function` line: the module's closing directives (llc's
    // .amd_amdgpu_isa for its own triple, which llvm-mc refuses for amdhsa) belong to no function
    const next = k + 1 < starts.length ? starts[k + 1]! : lines.length;
    let e = next;
    for (let i = s; i < next; i++) if (/; -- End function/.test(lines[i]!)) { e = i + 1; break; }
    const m = /\.globl\s+(\S+)/.exec(lines[s]!);
    if (!m) throw new Error(`no .globl on line ${s + 1}`);
    const out = lines.map((l, i) => (i >= s && i < e ? l : ''));
    out[0] = '\t.text';
    return { name: m[1]!, start: s, end: e, text: out.join('\n') };
  });
}

export interface InsnLine {
  line: number;
  text: string;
}

/** Instruction lines (1-based line numbers) of a range of a .s file. */
export function instructionLines(lines: readonly string[], start = 0, end = lines.length): InsnLine[] {
  const out: InsnLine[] = [];
  for (let i = start; i < end; i++) {
    const t = lines[i]!.replace(/;.*$/, '').trim();
    if (!t || t.startsWith('.') || /^[\w.$]+:/.test(t)) continue;
    out.push({ line: i + 1, text: t });
  }
  return out;
}

export function nopWaitStates(text: string): number | undefined {
  const m = /^s_nop\s+(\S+)/.exec(text);
  return m ? Number(m[1]) + 1 : undefined;
}

/**
 * Line up a function without LLVM's hazard padding (A) and with it (B): the s_nop runs of B that
 * are not in A, keyed by the line (in A) of the instruction they precede, with their wait states.
 * `other` lists the lines of B that are neither in A nor s_nop (e.g. the shift64 rewrite).
 */
export function insertedNops(a: readonly InsnLine[], b: readonly InsnLine[]): { sites: Map<number, number>; other: string[] } {
  const sites = new Map<number, number>();
  const other: string[] = [];
  let i = 0;
  for (let j = 0; j < b.length; j++) {
    if (i < a.length && a[i]!.text === b[j]!.text) { i++; continue; }
    const n = nopWaitStates(b[j]!.text);
    if (n !== undefined && i < a.length) { sites.set(a[i]!.line, (sites.get(a[i]!.line) ?? 0) + n); continue; }
    other.push(b[j]!.text);
  }
  return { sites, other };
}

/** Per consumer line, the largest shortfall (required - actual) among nop-fixable findings. */
export function shortfallByLine(fs: readonly Finding[]): Map<number, { d: number; f: Finding }> {
  const out = new Map<number, { d: number; f: Finding }>();
  for (const f of fs) {
    if (f.required === undefined || f.actual === undefined) continue;
    const d = f.required - f.actual;
    const cur = out.get(f.loc.line);
    if (!cur || d > cur.d) out.set(f.loc.line, { d, f });
  }
  return out;
}

/** The text with every s_nop line blanked, and the LLVM padding sites (line of the next instruction -> wait states). */
export function stripNops(text: string): { text: string; sites: Map<number, number>; nopLines: number[] } {
  const lines = text.split('\n');
  const sites = new Map<number, number>();
  const nopLines: number[] = [];
  let run = 0;
  const out = lines.map((l, i) => {
    const t = l.replace(/;.*$/, '').trim();
    const n = nopWaitStates(t);
    if (n !== undefined) { run += n; nopLines.push(i + 1); return ''; }
    if (run && t && !t.startsWith('.') && !/^[\w.$]+:/.test(t)) { sites.set(i + 1, run); run = 0; }
    return l;
  });
  return { text: out.join('\n'), sites, nopLines };
}
