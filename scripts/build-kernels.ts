/**
 * Builds the project's own OpenCL kernels (kernels/*.cl) into AMDGPU assembly and final MIR,
 * one pair of files per kernel and target, for the LLVM oracle tests.
 *
 * Recipe (see the oracle design notes):
 *   clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=T -nogpulib -O3 -S -emit-llvm
 *         -Xclang -emit-llvm-uselists k.cl -o full.ll
 *   opt -S -preserve-ll-uselistorder -passes=internalize,globaldce
 *       -internalize-public-api-list=<kernels> full.ll -o k.ll
 *   llc -mtriple=amdgcn-amd-amdhsa -mcpu=T -O3 -stop-after=amdgpu-resource-usage k.ll -o k.mir
 *   llc -mtriple=amdgcn-amd-amdhsa -mcpu=T -O3 k.ll -o k.s
 *
 * Outputs go to build/kernels/<name>.<target>.{ll,mir,s} with a <name>.<target>.stamp file that
 * holds the hash of the inputs; a build whose hash matches its stamp is skipped.
 *
 * Usage: node dist/scripts/build-kernels.js [--only a,b] [--targets gfx942,gfx950] [--out dir]
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bump when the recipe or the outputs change, so every stamp becomes stale. */
export const SCRIPT_VERSION = 1;

/** Targets the kernels are built for. */
export const KERNEL_TARGETS = ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'] as const;
export type KernelTarget = (typeof KERNEL_TARGETS)[number];

/** Default LLVM tool directory (overridden by the LLVM_BIN environment variable). */
export const DEFAULT_LLVM_BIN = '/usr/lib/llvm-22/bin';

/** How many kernel builds run at the same time. */
export const MAX_PARALLEL_BUILDS = 2;

/** One kernel source file and the targets its header declares. */
export interface KernelSource {
  /** File name without `.cl`. */
  name: string;
  /** Absolute path of the .cl file. */
  file: string;
  /** Targets from the `// targets:` header line, in header order. */
  targets: KernelTarget[];
  /** The one-line description (second header line, without `//`). */
  description: string;
}

/** Files produced for one kernel and target. */
export interface KernelBuild {
  name: string;
  target: KernelTarget;
  /** Source file. */
  cl: string;
  /** Final assembly. */
  s: string;
  /** Final MIR (after amdgpu-resource-usage, the last pass before the assembly printer). */
  mir: string;
}

export interface BuildKernelsOptions {
  /** Only these kernels (file names without .cl). */
  only?: string[];
  /** Only these targets (intersected with each kernel's header). */
  targets?: string[];
  /** Output directory (default: <repo>/build/kernels). */
  outDir?: string;
  /** Kernel source directory (default: <repo>/kernels). */
  kernelDir?: string;
  /** Called once per finished build. */
  onBuild?: (build: KernelBuild, cached: boolean) => void;
}

/** Statistics of the last buildKernels call (for the command-line summary). */
export interface BuildStats {
  built: number;
  cached: number;
  seconds: number;
}
export let lastBuildStats: BuildStats = { built: 0, cached: 0, seconds: 0 };

/** The repository root: the nearest ancestor of this file that holds package.json and kernels/. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'kernels'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('build-kernels: cannot find the repository root (package.json + kernels/)');
    dir = up;
  }
}

export function defaultKernelDir(): string { return join(repoRoot(), 'kernels'); }
export function defaultOutDir(): string { return join(repoRoot(), 'build', 'kernels'); }

const TARGET_SET: ReadonlySet<string> = new Set(KERNEL_TARGETS);

/** Reads the two header lines of one kernel file. Throws on a malformed header. */
export function parseKernelHeader(file: string, text: string): KernelSource {
  const lines = text.split('\n');
  const m = /^\/\/\s*targets:\s*(.*)$/.exec(lines[0] ?? '');
  if (!m) throw new Error(`${file}: first line must be "// targets: gfx..."`);
  const targets = m[1]!.trim().split(/\s+/).filter((t) => t.length > 0);
  if (targets.length === 0) throw new Error(`${file}: no targets in header`);
  for (const t of targets) {
    if (!TARGET_SET.has(t)) throw new Error(`${file}: unknown target "${t}" in header`);
  }
  const d = /^\/\/\s*(.*\S)\s*$/.exec(lines[1] ?? '');
  if (!d) throw new Error(`${file}: second line must be a one-line "// description"`);
  return {
    name: basename(file).replace(/\.cl$/, ''),
    file,
    targets: targets as KernelTarget[],
    description: d[1]!,
  };
}

/** Every kernels/*.cl file with its targets, sorted by name. */
export function enumerateKernels(kernelDir: string = defaultKernelDir()): KernelSource[] {
  const files = readdirSync(kernelDir).filter((f) => f.endsWith('.cl')).sort();
  return files.map((f) => {
    const file = resolve(kernelDir, f);
    return parseKernelHeader(file, readFileSync(file, 'utf8'));
  });
}

/** Every (kernel, target) pair, optionally filtered. */
export function enumerateKernelTargets(
  opts: { only?: string[]; targets?: string[]; kernelDir?: string } = {},
): Array<{ kernel: KernelSource; target: KernelTarget }> {
  const kernels = enumerateKernels(opts.kernelDir);
  if (opts.only) {
    const known = new Set(kernels.map((k) => k.name));
    for (const n of opts.only) if (!known.has(n)) throw new Error(`build-kernels: no kernel named "${n}"`);
  }
  if (opts.targets) {
    for (const t of opts.targets) if (!TARGET_SET.has(t)) throw new Error(`build-kernels: unknown target "${t}"`);
  }
  const only = opts.only ? new Set(opts.only) : undefined;
  const targets = opts.targets ? new Set(opts.targets) : undefined;
  const out: Array<{ kernel: KernelSource; target: KernelTarget }> = [];
  for (const kernel of kernels) {
    if (only && !only.has(kernel.name)) continue;
    for (const target of kernel.targets) {
      if (targets && !targets.has(target)) continue;
      out.push({ kernel, target });
    }
  }
  return out;
}

/** The LLVM tool directory: $LLVM_BIN or /usr/lib/llvm-22/bin. */
export function llvmBinDir(): string {
  const env = process.env['LLVM_BIN'];
  return env && env.length > 0 ? env : DEFAULT_LLVM_BIN;
}

/** Path of one LLVM tool; throws a clear error naming the tool when it is missing. */
export function llvmTool(tool: string): string {
  const dir = llvmBinDir();
  const path = join(dir, tool);
  if (!existsSync(path)) {
    throw new Error(
      `LLVM tool "${tool}" not found at ${path}. The kernel build needs LLVM 22 `
        + `(apt-get install -y llvm-22 clang-22) or LLVM_BIN set to a directory holding clang, opt and llc.`,
    );
  }
  return path;
}

interface RunResult { stdout: string; stderr: string }

function run(cmd: string, args: string[]): Promise<RunResult> {
  return new Promise((res, rej) => {
    execFile(cmd, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const msg = `${basename(cmd)} failed (${err.code ?? err.signal ?? 'error'}):\n  ${cmd} ${args.join(' ')}\n${stderr}`;
        rej(new Error(msg));
      } else {
        res({ stdout, stderr });
      }
    });
  });
}

let versionCache: { dir: string; version: string } | undefined;

/** `clang --version` + `llc --version` of the tool directory (part of the cache key). */
async function llvmVersion(tools: { clang: string; llc: string }): Promise<string> {
  const dir = llvmBinDir();
  if (versionCache && versionCache.dir === dir) return versionCache.version;
  const [c, l] = await Promise.all([run(tools.clang, ['--version']), run(tools.llc, ['--version'])]);
  const version = `${c.stdout.split('\n')[0] ?? ''}\n${l.stdout.split('\n').slice(0, 2).join('\n')}`;
  versionCache = { dir, version };
  return version;
}

const CLANG_FLAGS = ['-x', 'cl', '-cl-std=CL2.0', '-target', 'amdgcn-amd-amdhsa', '-nogpulib', '-O3'];

/** Kernel function names (amdgpu_kernel definitions) of an LLVM IR module. */
export function kernelFunctionNames(ll: string): string[] {
  const names: string[] = [];
  const re = /^define\b[^\n@]*\bamdgpu_kernel\b[^\n@]*@("?)([^\s"(]+)\1\(/gm;
  for (let m = re.exec(ll); m; m = re.exec(ll)) names.push(m[2]!);
  return names;
}

/** Writes through a temporary name so a crash never leaves a half-written output behind. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp${process.pid}`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

async function buildOne(
  kernel: KernelSource,
  target: KernelTarget,
  outDir: string,
  tools: { clang: string; opt: string; llc: string },
  version: string,
): Promise<{ build: KernelBuild; cached: boolean }> {
  const stem = join(outDir, `${kernel.name}.${target}`);
  const build: KernelBuild = { name: kernel.name, target, cl: kernel.file, s: `${stem}.s`, mir: `${stem}.mir` };
  const source = await readFile(kernel.file, 'utf8');
  const hash = createHash('sha256')
    .update(`script ${SCRIPT_VERSION}\0target ${target}\0llvm ${version}\0`)
    .update(source)
    .digest('hex');
  const stampPath = `${stem}.stamp`;
  if (existsSync(stampPath) && existsSync(build.s) && existsSync(build.mir)) {
    const stamp = (await readFile(stampPath, 'utf8')).trim();
    if (stamp === hash) return { build, cached: true };
  }
  await rm(stampPath, { force: true });
  // temporaries carry the process id, so two concurrent builds of one tree do not collide
  const full = `${stem}.full.ll.tmp${process.pid}`;
  const ll = `${stem}.ll`;
  const llTmp = `${ll}.tmp${process.pid}`;
  const mirTmp = `${build.mir}.tmp${process.pid}`;
  const sTmp = `${build.s}.tmp${process.pid}`;
  try {
    await run(tools.clang, [...CLANG_FLAGS, `-mcpu=${target}`, '-S', '-emit-llvm',
      '-Xclang', '-emit-llvm-uselists', kernel.file, '-o', full]);
    const names = kernelFunctionNames(await readFile(full, 'utf8'));
    if (names.length === 0) throw new Error(`${kernel.file}: no __kernel function found for ${target}`);
    await run(tools.opt, ['-S', '-preserve-ll-uselistorder', '-passes=internalize,globaldce',
      `-internalize-public-api-list=${names.join(',')}`, full, '-o', llTmp]);
    await rename(llTmp, ll); // llc reads the final name: it is recorded in the MIR's ModuleID
    const llc = ['-mtriple=amdgcn-amd-amdhsa', `-mcpu=${target}`, '-O3'];
    await run(tools.llc, [...llc, '-stop-after=amdgpu-resource-usage', ll, '-o', mirTmp]);
    await run(tools.llc, [...llc, ll, '-o', sTmp]);
    await rename(mirTmp, build.mir);
    await rename(sTmp, build.s);
    await writeAtomic(stampPath, `${hash}\n`);
  } finally {
    await rm(full, { force: true });
    await rm(llTmp, { force: true });
    await rm(mirTmp, { force: true });
    await rm(sTmp, { force: true });
  }
  return { build, cached: false };
}

/**
 * Builds every kernel (or the selected ones) for each target of its header, at most
 * MAX_PARALLEL_BUILDS at a time, skipping builds whose stamp is current. Results are in
 * enumeration order (kernel name, then header target order). Throws if a tool is missing or
 * any build fails (all failures are listed).
 */
export async function buildKernels(opts: BuildKernelsOptions = {}): Promise<KernelBuild[]> {
  const started = performance.now();
  const tools = { clang: llvmTool('clang'), opt: llvmTool('opt'), llc: llvmTool('llc') };
  const jobs = enumerateKernelTargets(opts);
  const outDir = resolve(opts.outDir ?? defaultOutDir());
  await mkdir(outDir, { recursive: true });
  const version = await llvmVersion(tools);
  const results: KernelBuild[] = new Array(jobs.length);
  const failures: string[] = [];
  let built = 0;
  let cached = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const idx = next++;
      const { kernel, target } = jobs[idx]!;
      try {
        const r = await buildOne(kernel, target, outDir, tools, version);
        results[idx] = r.build;
        if (r.cached) cached++; else built++;
        opts.onBuild?.(r.build, r.cached);
      } catch (e) {
        failures.push(`${kernel.name} (${target}): ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_PARALLEL_BUILDS, Math.max(jobs.length, 1)) }, worker));
  lastBuildStats = { built, cached, seconds: (performance.now() - started) / 1000 };
  if (failures.length > 0) {
    throw new Error(`build-kernels: ${failures.length} build(s) failed:\n${failures.join('\n')}`);
  }
  return results;
}

function parseArgs(argv: string[]): BuildKernelsOptions {
  const opts: BuildKernelsOptions = {};
  const list = (v: string | undefined, flag: string): string[] => {
    if (!v) throw new Error(`build-kernels: ${flag} needs a value`);
    return v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--only') opts.only = list(argv[++i], a);
    else if (a === '--targets' || a === '--target') opts.targets = list(argv[++i], a);
    else if (a === '--out') opts.outDir = argv[++i];
    else if (a === '-h' || a === '--help') {
      console.log('usage: build-kernels [--only k1,k2] [--targets gfx942,...] [--out dir]');
      process.exit(0);
    } else throw new Error(`build-kernels: unknown argument "${a}"`);
  }
  return opts;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const builds = await buildKernels(opts);
  const kernels = new Set(builds.map((b) => b.name)).size;
  const targets = new Set(builds.map((b) => b.target)).size;
  const { built, cached, seconds } = lastBuildStats;
  console.log(`kernels: ${kernels} kernels x ${targets} targets = ${builds.length} builds `
    + `(${built} built, ${cached} cached) in ${seconds.toFixed(1)} s -> ${resolve(opts.outDir ?? defaultOutDir())}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  });
}
