import { loadInput } from '../input.js';
import { checkOutputs, outputName, readTextFile, summaryStream, writeOutput } from '../io.js';
import { intOption, numberOption } from './options.js';
import { failedInput, singleOutputPath, bomFirst, warnBom } from './files.js';
import { formatMetrics, parseObjective, type MetricName } from '../schedule/metrics.js';
import type { Loaded } from '../load.js';
import { runAgentSchedule, usageLine, type AgentRunResult } from '../agent/run.js';
import { counted } from '../text.js';

export interface AgentCliOptions {
  model: string;
  kernel?: string;
  region?: string;
  arch?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  temperature?: string;
  reasoningEffort?: string;
  rounds?: string;
  agents?: string;
  checkpoint?: string;
  keep?: string;
  variants?: boolean;
  promptFile?: string;
  transcript?: string;
  objective?: string;
  fast?: boolean;
  textProtocol?: boolean;
  timeout?: string;
  maxRetries?: string;
  cache?: boolean;
  output?: string;
  json?: boolean;
  quiet?: boolean;
}

/**
 * `conductor agent FILE --model M ...`: model-guided scheduling of one region. Exit 0 (whether or
 * not the model improved the schedule), 2 for bad input, no key, or a model server that cannot be
 * reached (nothing written then). Progress goes to stderr, the report to stdout.
 */
export async function commandAgent(file: string, opts: AgentCliOptions): Promise<number> {
  checkOutputs(opts.json, [opts.output]);
  const output = opts.output !== undefined ? await singleOutputPath(file, opts.output) : undefined;
  const objective = opts.objective !== undefined ? parseObjective(opts.objective) : undefined;
  const timeout = numberOption('--timeout', opts.timeout, 0.001, 86_400);
  const template = opts.promptFile !== undefined ? await readTextFile(opts.promptFile, 'a prompt template') : undefined;
  let loaded;
  try {
    loaded = await loadInput(file, { arch: opts.arch });
  } catch (e) {
    return failedInput(file, e, opts.json); // --json: the failed file's record, as check gives it
  }
  if (output !== undefined) warnBom(loaded.program);
  let r: AgentRunResult;
  try {
    r = await agentRun(loaded, opts, objective, timeout, template);
    if (output) await writeOutput(output, bomFirst(loaded.program, r.text));
  } catch (e) {
    // no key, a server that cannot be reached, a kernel or region not there: --json gives the record too
    return failedInput(file, e, opts.json);
  }
  if (opts.json) {
    const { text: _text, ...rest } = r;
    process.stdout.write(JSON.stringify({ file, ...rest, output: output ?? null, transcript: opts.transcript ?? null }, null, 2) + '\n');
  } else {
    summaryStream([output]).write(formatAgent(file, r, output, opts.transcript) + '\n');
  }
  return 0;
}

function agentRun(loaded: Loaded, opts: AgentCliOptions, objective: MetricName[] | undefined, timeout: number | undefined, template: string | undefined): Promise<AgentRunResult> {
  return runAgentSchedule(loaded, {
    model: opts.model,
    kernel: opts.kernel,
    region: intOption('--region', opts.region, 0),
    baseUrl: opts.baseUrl,
    apiKeyEnv: opts.apiKeyEnv,
    temperature: numberOption('--temperature', opts.temperature, 0, 2),
    reasoningEffort: opts.reasoningEffort,
    timeoutMs: timeout !== undefined ? Math.round(timeout * 1000) : undefined,
    maxRetries: intOption('--max-retries', opts.maxRetries, 0),
    rounds: intOption('--rounds', opts.rounds, 1),
    agents: intOption('--agents', opts.agents, 1),
    checkpoint: intOption('--checkpoint', opts.checkpoint, 0),
    keep: intOption('--keep', opts.keep, 1),
    variants: opts.variants,
    template,
    transcriptFile: opts.transcript,
    objective,
    fast: opts.fast,
    textProtocol: opts.textProtocol,
    cache: opts.cache,
    log: opts.quiet ? undefined : (line) => process.stderr.write(`conductor agent: ${line}\n`),
  });
}

export function formatAgent(file: string, r: AgentRunResult, output?: string, transcript?: string): string {
  const out = [`${file}: kernel ${r.kernel} (${r.arch}), region ${r.region}: ${r.regionReason}`];
  out.push(`model ${r.model} at ${r.baseUrl}`);
  out.push(r.improved ? `improved with ${counted(r.moves.length, 'move')}${r.bestAgent !== null ? ` (best: agent ${r.bestAgent})` : ''}:` : 'no improvement: the input schedule is kept');
  for (const m of r.moves) out.push(`  ${m}`);
  out.push(`before: ${formatMetrics(r.before)}`);
  out.push(`after:  ${formatMetrics(r.after)}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  out.push(`summary: ${usageLine(r)}`);
  if (transcript) out.push(`transcript ${transcript}`);
  if (output) out.push(`wrote ${outputName(output)}`);
  return out.join('\n');
}
