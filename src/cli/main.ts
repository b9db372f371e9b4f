/**
 * The conductor command. Argument handling only: every command is a thin shell over a library
 * function. Exit codes: 0 clean, 1 findings (errors reported by a check), 2 bad input or usage.
 */
import { Command, CommanderError } from 'commander';
import pc from 'picocolors';
import { ConductorError } from '../errors.js';
import { collectNames, intOption } from './options.js';
import type { AgentCliOptions } from './agent.js';
import type { ScheduleCliOptions } from './schedule.js';
import { VERSION } from '../version.js';
import { availableParallelism } from 'node:os';
import { defaultJobs } from '../threads.js';

// Each command's module (and what it needs: the search's worker pool, the report page, the
// model client) is loaded when that command runs, so that a command loads only what it uses.

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_BAD_INPUT = 2;

function program(): Command {
  const cmd = new Command('conductor')
    .description('Check, explain and schedule AMD GPU assembly (gfx906, gfx908, gfx90a, gfx942, gfx950)')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError("(conductor --help lists the commands; conductor COMMAND --help gives a command's options)")
    .option('-I, --include-dir <dir>', 'look for .include files in DIR too (after the current directory, as llvm-mc -I; then the including file\'s directory); repeatable', collectNames, [])
    .option('--lds <bytes>', 'LDS bytes per workgroup the launch allocates beyond the descriptor\'s (dynamic shared memory: Triton\'s "shared", extern __shared__), counted in every kernel\'s occupancy')
    .option('--workgroup-size <n>', 'work-items per workgroup of the launch (default: the kernel metadata\'s .reqd_workgroup_size, or its .max_flat_workgroup_size when below 256, else 256 assumed), counted in every kernel\'s occupancy')
    .hook('preAction', async (root) => {
      const o = root.opts() as { includeDir?: string[]; lds?: string; workgroupSize?: string };
      const dirs = o.includeDir ?? [];
      const lds = intOption('--lds', o.lds);
      const workgroupSize = intOption('--workgroup-size', o.workgroupSize, 1);
      if (workgroupSize !== undefined && workgroupSize > 1024) throw new ConductorError(`--workgroup-size takes at most 1024 work-items, got ${workgroupSize}`);
      if (lds !== undefined) {
        // no target lets a workgroup allocate more (each kernel's own target is judged by check: lds-size)
        const { TARGETS } = await import('../targets/index.js');
        const [most, on] = Object.values(TARGETS).map((t) => [t.occupancy.maxLdsPerWorkgroup.value, t.name] as const).sort((a, b) => b[0] - a[0])[0]!;
        if (lds > most) throw new ConductorError(`--lds takes at most ${most} bytes (what a workgroup may allocate on ${on}, the most of any target), got ${lds}`);
      }
      if (dirs.length > 0 || lds !== undefined || workgroupSize !== undefined) {
        const load = await import('../load.js');
        if (dirs.length > 0) load.setIncludeDirs(dirs);
        load.setLaunch({ lds, workgroupSize });
      }
    });

  cmd.command('emit')
    .description('parse FILE and print it again (byte-identical when nothing changes)')
    .argument('<file>', 'assembly file (.s)')
    .requiredOption('-o, --output <out>', 'output file (- for the standard output; a directory: DIR/<FILE\'s name>)')
    .action(async (file: string, opts: { output: string }) => {
      process.exitCode = await (await import('./emit.js')).commandEmit(file, opts);
    });

  cmd.command('analyze')
    .description('per kernel: target, instructions, basic blocks, counts by class, waits and NOPs, declared resources')
    .argument('<files...>', 'assembly files (.s) or directories of them')
    .option('--arch <target>', 'target (gfx906, gfx908, gfx90a, gfx942, gfx950); default: the file\'s .amdgcn_target')
    .option('--shard <i/N>', 'only the i-th of every N files of the batch (split a library across machines)')
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: { arch?: string; json?: boolean; shard?: string }) => {
      process.exitCode = await (await import('./analyze.js')).commandAnalyze(files, opts);
    });
  cmd.command('check')
    .description('hazards (missing s_nop wait states), missing or wasted s_waitcnt, register pressure and occupancy')
    .argument('<files...>', 'assembly files (.s) or directories of them')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--json', 'same as --format json')
    .option('--format <fmt>', 'clang (default), json or sarif')
    .option('--fix', 'insert the minimal s_nop and s_waitcnt; needs -o')
    .option('-o, --output <out>', 'output file for --fix (- for the standard output; a directory, existing or ending in /: DIR/<each input\'s name>)')
    .option('--paths <mode>', 'every (default): a wait short on every path into it, or right after its load with no branch between them, is an error, short only on some paths a warning naming one; all: every path is feasible, every shortfall an error (and fixed by --fix)')
    .option('--shard <i/N>', 'only the i-th of every N files of the batch (split a library across machines)')
    .action(async (files: string[], opts: { arch?: string; json?: boolean; format?: string; fix?: boolean; output?: string; paths?: string; shard?: string }) => {
      process.exitCode = await (await import('./check.js')).commandCheck(files, opts);
    });
  cmd.command('simulate')
    .description('cycle model: per instruction issue cycle, stall and reason; totals per block, kernel and loop; lower bounds; multi-wave at the occupancy')
    .argument('[file]', 'assembly file (.s)')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--kernel <name>', 'only this kernel')
    .option('--waves <n>', 'waves per SIMD for the multi-wave figure (default: the computed occupancy)')
    .option('--trip <n>', 'loop trip count (default: loops once in the walk, per iteration in steady state)')
    .option('--latency-file <file>', 'JSON calibration file overriding model parameters (see --list-params)')
    .option('--list-params', 'print the target\'s model parameters with their sources')
    .option('--no-insns', 'totals only, no per-instruction rows')
    .option('--json', 'print JSON')
    .action(async (file: string | undefined, opts: { arch?: string; kernel?: string; waves?: string; trip?: string; latencyFile?: string; listParams?: boolean; insns?: boolean; json?: boolean }) => {
      process.exitCode = await (await import('./simulate.js')).commandSimulate(file, opts);
    });
  cmd.command('tag')
    .description('scheduling regions of each kernel: stable tags, lines, pinned instructions, per-region metrics')
    .argument('<file>', 'assembly file (.s)')
    .option('--kernel <name>', 'only this kernel')
    .option('--region <n>', 'only this region')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { kernel?: string; region?: string; arch?: string; json?: boolean }) => {
      process.exitCode = await (await import('./tag.js')).commandTag(file, opts);
    });
  cmd.command('apply')
    .description('apply rounds of move commands (move A after B, move A before B, swap A B, done); re-derive s_waitcnt and s_nop')
    .argument('<file>', 'assembly file (.s)')
    .option('--moves <cmd...>', 'commands, one per argument (an argument --- starts a new round)')
    .option('--moves-file <file>', 'commands, one per line; rounds separated by a line --- or round')
    .option('--kernel <name>', 'kernel to schedule (default: the only kernel)')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--objective <list>', 'metrics compared in order, or conductor (default est_cycles,peak_vgpr,s_waitcnt,s_nop,total_instructions)')
    .option('--fast', 'measure rounds with the fast estimate instead of the re-derived program')
    .option('--per-lane', 'also tell apart memory accesses through the same VGPR base (assumes no cross-lane memory exchange without a barrier)')
    .option('-o, --output <out>', 'write the best schedule reached, when every round applied (- for the standard output; a directory: DIR/<FILE\'s name>)')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { moves?: string[]; movesFile?: string; kernel?: string; arch?: string; objective?: string; fast?: boolean; perLane?: boolean; output?: string; json?: boolean }) => {
      process.exitCode = await (await import('./apply.js')).commandApply(file, opts);
    });
  cmd.command('schedule')
    .description('automatic scheduling of every kernel of each file (list scheduler, beam search, simulated annealing); never worse than the input under the objective, never a lower occupancy')
    .argument('<files...>', 'assembly files (.s) or directories of them')
    .option('--strategy <names>', 'list, beam, anneal, a comma list, or all (default all: list and beam in parallel, then anneal from the best)')
    .option('--objective <list>', 'metrics compared in order, or conductor for peak_vgpr,s_waitcnt,s_nop,total_instructions (default est_cycles,peak_vgpr,s_waitcnt,s_nop,total_instructions)')
    .option('--trip <n>', 'trip count of loops whose count the code does not give, for est_cycles (default 64)')
    .option('--budget <n>', 'evaluations per strategy run (default 2000); with a budget the result depends only on the seed')
    .option('--seconds <s>', 'wall-clock seconds per strategy run (default 10)')
    .option('--jobs <n>', 'threads the search runs on (default: one less than the machine\'s parallelism, at most 4, at least 1)')
    .option('--seed <n>', 'random seed (default 1)')
    .option('--kernel <name>', 'only this kernel (repeat or comma-separate for several; default: every kernel with code)', collectNames)
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--per-lane', 'also tell apart memory accesses through the same VGPR base (assumes no cross-lane memory exchange without a barrier)')
    .option('--shard <i/N>', 'only the i-th of every N files of the batch (split a library across machines)')
    .option('--no-cache', 'do not read or write the result cache')
    .option('--no-pipeline', 'do not try software pipelining (loads of the next iteration started in this one)')
    .option('-o, --output <out>', 'write the scheduled file (- for the standard output; a directory, existing or ending in /: DIR/<each input\'s name>)')
    .option('--save-moves <file>', 'write the moves from the input to the result (replay with apply --moves-file)')
    .option('--paths <mode>', 'which missing waits of the input are errors fixed before scheduling: every (default: short on every path) or all (as check --paths)')
    .option('--json', 'print JSON')
    .action(async (files: string[], opts: ScheduleCliOptions) => {
      process.exitCode = await (await import('./schedule.js')).commandSchedule(files, opts);
    });
  cmd.command('verify')
    .description('is SCHEDULED a legal reordering of ORIGINAL? exit 0 equivalent, 1 not')
    .argument('<original>', 'original assembly file')
    .argument('<scheduled>', 'scheduled assembly file')
    .option('--arch <target>', 'target; default: the files\' .amdgcn_target')
    .option('--per-lane', 'tell apart memory accesses through the same VGPR base (assumes no cross-lane memory exchange without a barrier)')
    .option('--json', 'print JSON')
    .action(async (original: string, scheduled: string, opts: { arch?: string; json?: boolean; perLane?: boolean }) => {
      process.exitCode = await (await import('./verify.js')).commandVerify(original, scheduled, opts);
    });
  cmd.command('agent')
    .description('model-guided scheduling of one region with any OpenAI-compatible model (optional; key from the environment)')
    .argument('<file>', 'assembly file (.s)')
    .requiredOption('--model <name>', 'model name as the server knows it (e.g. openai/gpt-5-mini on OpenRouter)')
    .option('--kernel <name>', 'kernel to schedule (default: the only kernel)')
    .option('--region <n>', 'region to schedule (default: the largest inside a loop, else the largest)')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--base-url <url>', 'OpenAI-compatible API base URL (default https://openrouter.ai/api/v1)')
    .option('--api-key-env <var>', 'environment variable holding the key (default OPENROUTER_API_KEY, then OPENAI_API_KEY)')
    .option('--temperature <t>', 'sampling temperature')
    .option('--reasoning-effort <e>', 'reasoning effort (low, medium, high) where the model supports it')
    .option('--rounds <n>', 'model turns per agent (default 10)')
    .option('--agents <p>', 'agents in parallel (default 1)')
    .option('--checkpoint <k>', 'every K rounds keep the best agents and refill the pool (default: never)')
    .option('--keep <k>', 'agents kept at a checkpoint (default half of --agents)')
    .option('--variants', 'give agents differently worded goals (register pressure, latency hiding)')
    .option('--prompt-file <file>', 'prompt template replacing the built-in one ({{placeholders}}: see README)')
    .option('--transcript <file>', 'write every request, tool call, result and token count as JSONL')
    .option('--objective <list>', 'metrics compared in order, or conductor (default est_cycles,peak_vgpr,s_waitcnt,s_nop,total_instructions)')
    .option('--fast', 'measure rounds with the fast estimate (the result is re-derived exactly)')
    .option('--text-protocol', 'fenced-JSON text protocol for models without tool calling')
    .option('--timeout <s>', 'seconds per request before it is retried (default 120)')
    .option('--max-retries <n>', 'retries on 429, 5xx, timeouts and connection errors (default 4)')
    .option('--no-cache', 'neither read nor write the move-list cache')
    .option('-q, --quiet', 'no progress lines on stderr')
    .option('-o, --output <out>', 'write the best schedule (- for the standard output; a directory: DIR/<FILE\'s name>)')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: AgentCliOptions) => {
      process.exitCode = await (await import('./agent.js')).commandAgent(file, opts);
    });
  cmd.command('report')
    .description('a self-contained HTML report: resources, occupancy, diagnostics, code with cycles and stalls, timeline, register pressure; with --after the schedule side by side')
    .argument('<file>', 'assembly file (.s)')
    .option('--after <scheduled>', 'the scheduled version of FILE: both side by side, the moves between them, metric deltas')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--kernel <name>', 'only this kernel')
    .requiredOption('-o, --output <out>', 'output HTML file (- for the standard output; a directory: DIR/<FILE\'s name without extension>.html)')
    .action(async (file: string, opts: { after?: string; arch?: string; kernel?: string; output: string }) => {
      process.exitCode = await (await import('./report.js')).commandReport(file, opts);
    });
  return cmd;
}

/**
 * `apply --moves A --- B`: the round separator `---` starts with a dash, so commander would read
 * it as an unknown option. After `--moves`, each `---` is passed as `--moves ---` (a required value is
 * taken whatever it starts with, and the variadic option goes on collecting after it).
 */
export function movesSeparators(argv: readonly string[]): string[] {
  const at = argv.findIndex((a) => a === '--moves' || a.startsWith('--moves='));
  if (at < 0) return [...argv];
  const end = argv.indexOf('--');
  return argv.flatMap((a, i) => (i > at && (end < 0 || i < end) && a === '---' ? ['--moves', '---'] : [a]));
}

/** The names of the commands (as `conductor COMMAND` takes them). */
export function commandNames(): string[] {
  return program().commands.map((c) => c.name());
}

export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(movesSeparators(argv), { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    if (e instanceof ConductorError) {
      process.stderr.write(colourDiagnostic(e.format()) + '\n');
      return EXIT_BAD_INPUT;
    }
    throw e;
  }
}

export function colourDiagnostic(text: string): string {
  if (!process.stderr.isTTY) return text;
  return text.replace(/: (error|warning|note):/g, (_m, sev: string) =>
    `: ${sev === 'error' ? pc.red(pc.bold('error')) : sev === 'warning' ? pc.magenta(pc.bold('warning')) : pc.cyan('note')}:`);
}

/*
 * The V8 thread pool a command runs with. The published command's shebang starts node with
 * `--v8-pool-size=1`: one background thread for concurrent compilation and GC help, instead of
 * node's four, suits a command whose hot code runs on one thread (largest corpus kernel, 2-core
 * machine, interleaved pairs against the default: `analyze --json` 0.93x the wall time and 103 MiB
 * peak RSS against 110; `schedule` on one thread 0.93x and 443 against 462 MiB). A `schedule` on
 * several threads wants node's default: with `--jobs 2` the one thread made it 1.03x the wall
 * time, 1.06x the CPU time and 603 MiB against 566. The pool is fixed at start, so such a run
 * starts node again without the option (rerunArgs).
 */
export const ONE_THREAD = '--v8-pool-size=1';

/** The threads a schedule's search runs on: `--jobs N` (or `--jobs=N`), else defaultJobs. */
function scheduleJobs(args: readonly string[], from: number, cores: number): number {
  let jobs: number | undefined;
  for (let k = from; k < args.length; k++) {
    const a = args[k]!;
    if (a === '--jobs') jobs = Number(args[k + 1]);
    else if (a.startsWith('--jobs=')) jobs = Number(a.slice('--jobs='.length));
  }
  return jobs !== undefined && Number.isFinite(jobs) ? jobs : defaultJobs(cores);
}

/**
 * The node options to run the command again with when it was started with one V8 background
 * thread and is a `schedule` on more than one thread; undefined otherwise (run it here). The
 * command is the first argument that names one (commandNames; looked up only when a `schedule`
 * may be asked for).
 */
export function rerunArgs(args: readonly string[], execArgv: readonly string[], cores = availableParallelism()): string[] | undefined {
  if (!execArgv.includes(ONE_THREAD) || !args.includes('schedule')) return undefined;
  const commands = commandNames();
  const cmd = args.findIndex((a) => commands.includes(a));
  if (cmd < 0 || args[cmd] !== 'schedule' || scheduleJobs(args, cmd + 1, cores) <= 1) return undefined;
  return execArgv.filter((a) => a !== ONE_THREAD);
}
