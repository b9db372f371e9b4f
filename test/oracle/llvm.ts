/**
 * LLVM 22 as the judge: run llvm-mc on a file for a target and collect the lines it rejects.
 * Missing tools are an error (the oracle suite fails loudly, it never skips).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { llvmTool, repoRoot } from '../../scripts/build-kernels.js';

export { llvmTool, repoRoot };

/** ../shared/corpus beside the repository (CONDUCTOR_CORPUS overrides). */
export function corpusDir(): string {
  const dir = process.env['CONDUCTOR_CORPUS'] ?? resolve(repoRoot(), '..', 'shared', 'corpus');
  if (!existsSync(dir)) throw new Error(`corpus not found at ${dir}: the oracle suite reads ../shared/corpus (set CONDUCTOR_CORPUS)`);
  return dir;
}

export interface McError {
  /** Line in the input file (for errors inside macro expansions: the invocation line). */
  line: number;
  col: number;
  message: string;
}

export interface McResult {
  ok: boolean;
  crashed: boolean;
  errors: McError[];
  stderr: string;
  ms: number;
}

export function runLlvmMc(file: string, mcpu: string, extra: string[] = ['-filetype=obj', '-o', '/dev/null']): Promise<McResult> {
  const mc = llvmTool('llvm-mc');
  const t0 = performance.now();
  return new Promise((res) => {
    execFile(mc, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${mcpu}`, ...extra, file], { maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' },
      (err, _stdout, stderr) => {
        const crashed = err !== null && (err.signal !== null && err.signal !== undefined || (typeof err.code === 'number' && err.code > 128));
        res({ ok: err === null, crashed, errors: parseMcErrors(stderr, file), stderr, ms: performance.now() - t0 });
      });
  });
}

/**
 * `file:L:C: error: msg` lines; `<instantiation>:L:C: error:` lines are attributed to the
 * following `file:L:C: note: while in macro instantiation` line.
 */
export function parseMcErrors(stderr: string, file: string): McError[] {
  const out: McError[] = [];
  const lines = stderr.split('\n');
  const base = file.split('/').pop()!;
  for (let i = 0; i < lines.length; i++) {
    const m = /^(.*?):(\d+):(\d+): error: (.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[1] === '<instantiation>') {
      for (let j = i + 1; j < lines.length; j++) {
        const n = /^(.*?):(\d+):(\d+): note: while in macro instantiation/.exec(lines[j]!);
        if (n && n[1] !== '<instantiation>') { out.push({ line: Number(n[2]), col: Number(n[3]), message: m[4]! }); break; }
        if (/: error: /.test(lines[j]!)) break;
      }
      continue;
    }
    if (m[1] === file || m[1]!.endsWith(base)) out.push({ line: Number(m[2]), col: Number(m[3]), message: m[4]! });
  }
  return out;
}

export function corpusFile(...parts: string[]): string {
  return join(corpusDir(), ...parts);
}

/** MANIFEST.tsv rows as objects keyed by the header. */
export function readManifest(text: string): Record<string, string>[] {
  const [head, ...rows] = text.trim().split('\n');
  const keys = head!.split('\t');
  return rows.map((r) => Object.fromEntries(r.split('\t').map((v, i) => [keys[i], v])));
}

export interface TensileKernel { path: string; text: string; target: string }

/**
 * The Tensile kernels of the corpus that llvm-mc accepts, in name order (the corpus keeps one
 * file LLVM rejects on purpose). Fails when the corpus has fewer than 8 files.
 */
export async function acceptedTensileKernels(): Promise<TensileKernel[]> {
  const dir = join(corpusDir(), 'tensile');
  const files = readdirSync(dir).filter((f) => f.endsWith('.s')).sort();
  if (files.length < 8) throw new Error(`expected the Tensile corpus in ${dir}, found ${files.length} files`);
  const out: TensileKernel[] = [];
  for (const f of files) {
    const path = join(dir, f);
    const text = readFileSync(path, 'utf8');
    const target = /\.amdgcn_target "amdgcn-amd-amdhsa--(gfx[0-9a-z]+)/.exec(text)?.[1] ?? 'gfx942';
    if ((await runLlvmMc(path, target)).ok) out.push({ path, text, target });
  }
  return out;
}
