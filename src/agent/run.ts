/**
 * Model-guided scheduling of one region: choose the region, look the input up in the cache (a hit
 * replays the cached moves, still validated, without calling the model), otherwise run the agents
 * (pool.ts), then validate the best move list again on a fresh exact session, re-derive s_waitcnt
 * and s_nop, and return the program like any other schedule. Nothing here writes the output.
 */
import type { Loaded } from '../load.js';
import { findLoops } from '../cycles/simulate.js';
import { ConductorError } from '../errors.js';
import { cacheKey, ResultCache } from '../cache.js';
import { pickKernel, type Region, type ScheduleKernel } from '../schedule/kernel.js';
import { parseCommand, type Command } from '../schedule/commands.js';
import { ScheduleSession } from '../schedule/session.js';
import { DEFAULT_OBJECTIVE, compareMetrics, type MetricName, type Metrics } from '../schedule/metrics.js';
import { formatListing, kernelListing } from '../schedule/listing.js';
import { createProvider, ProviderError, resolveApiKey, DEFAULT_BASE_URL, type ChatProvider, type ProviderOptions, type Usage } from './provider.js';
import { Transcript } from './transcript.js';
import { runPool, type PoolResult } from './pool.js';
import { checkTemplate, targetFacts } from './prompt.js';
import type { LoopContext } from './loop.js';
import { counted } from '../text.js';

export interface AgentOptions extends Omit<ProviderOptions, 'onHttp'> {
  kernel?: string;
  /** Region to schedule (default: see chooseRegion). */
  region?: number;
  rounds?: number;
  agents?: number;
  checkpoint?: number;
  keep?: number;
  variants?: boolean;
  /** Prompt template text (--prompt-file). */
  template?: string;
  transcriptFile?: string;
  objective?: readonly MetricName[];
  /** Measure rounds with the fast evaluator (the final schedule is always re-derived exactly). */
  fast?: boolean;
  textProtocol?: boolean;
  /** Use the cache (default true). */
  cache?: boolean;
  /** A provider to use instead of the OpenAI-compatible client (tests, embedding). */
  provider?: ChatProvider;
  /** Progress lines. */
  log?: (line: string) => void;
}

export interface AgentRunResult {
  kernel: string;
  arch: string;
  region: number;
  /** Why this region ("most movable instructions: 37" or "--region"). */
  regionReason: string;
  objective: readonly MetricName[];
  /** The best move list (validated), empty when nothing beat the input. */
  moves: string[];
  before: Metrics;
  after: Metrics;
  improved: boolean;
  /** The program of the best schedule, s_waitcnt and s_nop re-derived. */
  text: string;
  changedRegions: number[];
  notes: string[];
  cache: 'hit' | 'miss' | 'off';
  /** Model turns over all agents, HTTP requests (retries included), tokens and cost. */
  rounds: number;
  requests: number;
  usage: Usage;
  agents: PoolResult['agents'];
  checkpoints: number;
  bestAgent: number | null;
  model: string;
  baseUrl: string;
}

/**
 * The region to schedule: the given one; else the region with the most movable instructions
 * inside a loop (where the time goes), and the largest region when the kernel has no loop.
 */
export function chooseRegion(k: ScheduleKernel, region?: number): { region: number; reason: string } {
  if (region !== undefined) {
    if (!Number.isInteger(region) || region < 0 || region >= k.regions.length) {
      throw new ConductorError(`kernel ${k.name} has ${counted(k.regions.length, 'region')} (0..${k.regions.length - 1}); no region ${region}`);
    }
    if (k.regions[region]!.nodes.length < 2) throw new ConductorError(`region ${region} of ${k.name} has ${counted(k.regions[region]!.nodes.length, 'movable instruction')}: nothing to reorder`);
    return { region, reason: '--region' };
  }
  const loops = findLoops(k.ctx);
  const inLoop = (b: number) => loops.some((l) => b >= l.header && b <= l.latch);
  const pick = (cands: readonly Region[]) => {
    let best: Region | undefined;
    for (const r of cands) if (r.nodes.length >= 2 && (!best || r.nodes.length > best.nodes.length)) best = r;
    return best;
  };
  const looped = pick(k.regions.filter((r) => inLoop(r.block)));
  if (looped) return { region: looped.id, reason: `the largest region inside a loop (${looped.nodes.length} movable instructions)` };
  const any = pick(k.regions);
  if (!any) throw new ConductorError(`kernel ${k.name} has no region with two movable instructions: nothing to schedule`);
  return { region: any.id, reason: `the region with the most movable instructions (${any.nodes.length}; the kernel has no loop)` };
}

/** The cache key: the tagged kernel, the target, the objective and the region. */
export function agentCacheKey(k: ScheduleKernel, region: number, objective: readonly MetricName[]): string {
  return cacheKey({ kind: 'agent-moves', version: 1, tagged: formatListing(kernelListing(k)), target: k.target.name, objective, region });
}

interface CacheEntry { moves: string[]; metrics: Metrics; model: string; created: string }

function parseMoves(moves: readonly string[]): Command[] | string {
  const out: Command[] = [];
  for (const m of moves) {
    const c = parseCommand(m);
    if (typeof c === 'string') return `${m}: ${c}`;
    out.push(c);
  }
  return out;
}

/** Validate moves on a fresh exact session; the session (with the moves applied when they were kept). */
function finalSession(k: ScheduleKernel, moves: readonly string[], objective: readonly MetricName[]): { sess: ScheduleSession; kept: boolean; reason?: string } {
  const sess = new ScheduleSession(k, { objective, exact: true });
  if (moves.length === 0) return { sess, kept: true };
  const cmds = parseMoves(moves);
  if (typeof cmds === 'string') return { sess, kept: false, reason: cmds };
  const rep = sess.applyRound(cmds);
  if (rep.outcome !== 'accepted') return { sess, kept: false, reason: rep.reason };
  return { sess, kept: true };
}

export async function runAgentSchedule(loaded: Loaded, opts: AgentOptions): Promise<AgentRunResult> {
  const objective = opts.objective ?? DEFAULT_OBJECTIVE;
  const rounds = opts.rounds ?? 10;
  const agents = opts.agents ?? 1;
  const checkpoint = opts.checkpoint ?? 0;
  const keep = opts.keep ?? Math.max(1, Math.ceil(agents / 2));
  for (const [name, v, min] of [['--rounds', rounds, 1], ['--agents', agents, 1], ['--checkpoint', checkpoint, 0], ['--keep', keep, 1]] as const) {
    if (!Number.isInteger(v) || v < min) throw new ConductorError(`${name} takes an integer >= ${min}, got ${v}`);
  }
  if (keep > agents) throw new ConductorError(`--keep ${keep} exceeds --agents ${agents}`);
  if (opts.template !== undefined) checkTemplate(opts.template, '--prompt-file');
  const baseUrl = (opts.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const k = pickKernel(loaded, opts.kernel);
  const { region, reason } = chooseRegion(k, opts.region);
  const useCache = opts.cache ?? true;
  const cache = useCache ? new ResultCache('agent') : undefined;
  const key = agentCacheKey(k, region, objective);
  const notes: string[] = [];
  const totals: Usage & { requests: number; rounds: number } = { prompt: 0, completion: 0, total: 0, requests: 0, rounds: 0 };
  const model = opts.provider?.model ?? opts.model;
  let transcript = new Transcript(opts.transcriptFile);
  const start = {
    type: 'start', version: 1, model, base_url: opts.provider?.baseUrl ?? baseUrl, kernel: k.name, arch: k.target.name, region, region_reason: reason,
    objective, rounds, agents, checkpoint, keep, variants: !!opts.variants, text_protocol: !!opts.textProtocol, exact: !opts.fast,
    temperature: opts.temperature ?? null, reasoning_effort: opts.reasoningEffort ?? null, cache_key: key,
  };

  const finish = (moves: string[], cacheState: AgentRunResult['cache'], pool?: PoolResult): AgentRunResult => {
    // the input, kept with the reason the moves were not taken
    const input = (why: string) => {
      notes.push(`${why}; the input schedule is kept`);
      moves = [];
      return finalSession(k, [], objective);
    };
    let f = finalSession(k, moves, objective);
    if (!f.kept) f = input(`the best move list did not hold on the exact re-derived program (${f.reason})`);
    let e = f.sess.emit();
    // a move list that does not beat the input on the exact program (a cached one written for
    // another objective or version) is not taken, as the report says
    if (moves.length > 0 && compareMetrics(e.metrics, f.sess.initial, objective) >= 0) {
      f = input('the move list does not beat the input on the exact re-derived program');
      e = f.sess.emit();
    }
    notes.push(...e.notes);
    const after = e.metrics;
    return {
      kernel: k.name, arch: k.target.name, region, regionReason: reason, objective, moves,
      before: f.sess.initial, after, improved: compareMetrics(after, f.sess.initial, objective) < 0,
      text: e.text, changedRegions: e.changedRegions, notes, cache: cacheState,
      rounds: totals.rounds, requests: totals.requests, usage: { prompt: totals.prompt, completion: totals.completion, total: totals.total, ...(totals.cost !== undefined ? { cost: totals.cost } : {}) },
      agents: pool?.agents ?? [], checkpoints: pool?.checkpoints ?? 0, bestAgent: pool && pool.best.agent >= 0 ? pool.best.agent : null,
      model, baseUrl: opts.provider?.baseUrl ?? baseUrl,
    };
  };

  if (cache) {
    const hit = cache.get<CacheEntry>(key);
    if (hit && Array.isArray(hit.moves)) {
      const f = finalSession(k, hit.moves, objective);
      if (f.kept) {
        transcript.write(start);
        transcript.write({ type: 'cache_hit', key, moves: hit.moves, model: hit.model, created: hit.created });
        const r = finish(hit.moves, 'hit');
        transcript.write({ type: 'final', moves: r.moves, before: r.before, after: r.after, rounds: 0, requests: 0, usage: r.usage, cache: 'hit' });
        opts.log?.(`cache hit (${cache.dir}): ${counted(hit.moves.length, 'move')} replayed and validated; no request made`);
        return r;
      }
      cache.delete(key);
      notes.push(`the cached move list no longer replays (${f.reason}); asking the model again`);
    }
  }

  // A cache miss needs the model: the key is read now (no key: exit 2, nothing written), and the
  // transcript scrubs it from every line.
  const secret = opts.provider ? '' : resolveApiKey(baseUrl, opts.apiKeyEnv, opts.env).key;
  transcript = new Transcript(opts.transcriptFile, secret);
  const provider = opts.provider ?? createProvider({
    model: opts.model, baseUrl, apiKeyEnv: opts.apiKeyEnv, temperature: opts.temperature, reasoningEffort: opts.reasoningEffort,
    timeoutMs: opts.timeoutMs, maxRetries: opts.maxRetries, env: opts.env,
    onHttp: (h) => { totals.requests++; transcript.write({ type: 'http', ...h }); },
  } satisfies ProviderOptions);
  transcript.write(start);
  const ctx: LoopContext = {
    k, region, objective, sessionOptions: { exact: !opts.fast }, provider, textProtocol: !!opts.textProtocol, transcript, totals,
    onEvaluated: () => {}, log: opts.log,
  };
  opts.log?.(`kernel ${k.name} (${k.target.name}), region ${region}: ${reason}; model ${model} at ${ctx.provider.baseUrl}`);
  let pool: PoolResult;
  try {
    pool = await runPool(ctx, {
      agents, rounds, checkpoint, keep, variants: !!opts.variants, template: opts.template, facts: targetFacts(k.target),
    }, new ScheduleSession(k, { objective, exact: !opts.fast }).metrics);
  } catch (e) {
    if (e instanceof ProviderError) {
      if (totals.rounds === 0) transcript.remove();
      else transcript.write({ type: 'error', message: e.message });
    }
    throw e;
  }
  const r = finish(pool.best.moves, useCache ? 'miss' : 'off', pool);
  if (cache && r.moves.length > 0 && r.improved) {
    const entry: CacheEntry = { moves: r.moves, metrics: r.after, model, created: new Date().toISOString() };
    if (!cache.set(key, entry)) notes.push(cache.lastError!);
  }
  transcript.write({
    type: 'final', moves: r.moves, before: r.before, after: r.after, improved: r.improved, best_agent: r.bestAgent,
    rounds: r.rounds, requests: r.requests, usage: r.usage, checkpoints: r.checkpoints, cache: r.cache,
  });
  return r;
}

/** The summary line: rounds, requests, tokens and cost. */
export function usageLine(r: AgentRunResult): string {
  const cost = r.usage.cost !== undefined ? `cost ${r.usage.cost.toFixed(6)}` : 'cost not reported';
  const agents = r.agents.length > 1 ? ` over ${r.agents.length} agents` : '';
  return `${counted(r.rounds, 'round')}${agents}, ${counted(r.requests, 'request')}, ` +
    `${r.usage.total} tokens (${r.usage.prompt} prompt, ${r.usage.completion} completion), ${cost}${r.cache === 'hit' ? ' (cache hit: no model call)' : ''}`;
}
