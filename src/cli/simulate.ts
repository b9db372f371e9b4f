import { readTextFile } from '../io.js';
import { loadInput } from '../input.js';
import { kernelContexts } from '../analysis/context.js';
import { ConductorError } from '../errors.js';
import { intOption } from './options.js';
import { failedInput } from './files.js';
import { resolveTarget } from '../targets/index.js';
import { applyLatencyFile, defaultCycleParams, type CycleParams } from '../targets/latency.js';
import { knownMnemonic } from '../cycles/model.js';
import { checkWaves, formatKernelReport, formatParams, simulateKernel } from '../cycles/simulate.js';
import type { Target } from '../isa/target.js';

export interface SimulateCliOptions {
  arch?: string;
  kernel?: string;
  waves?: string;
  trip?: string;
  latencyFile?: string;
  json?: boolean;
  listParams?: boolean;
  insns?: boolean;
}

async function paramsFor(target: Target, file: string | undefined): Promise<CycleParams> {
  const base = defaultCycleParams(target);
  if (!file) return base;
  const text = await readTextFile(file, 'a JSON latency file');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConductorError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  return applyLatencyFile(base, data, file, knownMnemonic);
}

/** `conductor simulate FILE [--arch T] [--kernel K] [--waves N] [--trip N] [--latency-file F] [--json]`. */
export async function commandSimulate(file: string | undefined, opts: SimulateCliOptions): Promise<number> {
  const waves = intOption('--waves', opts.waves);
  const trip = intOption('--trip', opts.trip, 1);
  if (opts.listParams && !file) {
    if (!opts.arch) throw new ConductorError('--list-params needs a FILE or --arch');
    const r = resolveTarget(opts.arch);
    if (!r) throw new ConductorError(`unknown target '${opts.arch}'`);
    const p = await paramsFor(r.target, opts.latencyFile);
    process.stdout.write((opts.json ? JSON.stringify(p, null, 2) : formatParams(p)) + '\n');
    return 0;
  }
  if (!file) throw new ConductorError("simulate needs a FILE (conductor simulate --help gives its options)");
  try {
    return await simulateFile(file, opts, waves, trip);
  } catch (e) {
    return failedInput(file, e, opts.json);
  }
}

/** simulate on FILE: what can fail is the file's (or --latency-file's, or an option out of range for it). */
async function simulateFile(file: string, opts: SimulateCliOptions, waves: number | undefined, trip: number | undefined): Promise<number> {
  const loaded = await loadInput(file, { arch: opts.arch });
  if (waves !== undefined) checkWaves(loaded.target, waves);
  const params = await paramsFor(loaded.target, opts.latencyFile);
  if (opts.listParams) {
    process.stdout.write((opts.json ? JSON.stringify(params, null, 2) : formatParams(params)) + '\n');
    return 0;
  }
  let ctxs = kernelContexts(loaded);
  if (opts.kernel !== undefined) {
    ctxs = ctxs.filter((c) => c.kernel.name === opts.kernel);
    if (ctxs.length === 0) {
      throw new ConductorError(`no kernel '${opts.kernel}' in ${file} (kernels: ${kernelContexts(loaded).map((c) => c.kernel.name).join(', ') || 'none'})`);
    }
  }
  const reports = ctxs.filter((c) => c.insns.length > 0).map((c) => simulateKernel(c, { waves, trip, params }));
  if (opts.json) {
    process.stdout.write(JSON.stringify({ file, arch: loaded.target.name, latencyFile: opts.latencyFile, kernels: reports }, null, 2) + '\n');
  } else {
    const text = reports.map((r) => formatKernelReport(r, { insns: opts.insns })).join('\n\n');
    process.stdout.write((text || `${file}: no instructions to simulate`) + '\n');
  }
  return 0;
}
