/**
 * One agent of the scheduling loop: a conversation with the model and a schedule of its own
 * (a ScheduleSession, whose state is the agent's best: worse rounds are reverted). A turn sends
 * the conversation, takes the reply's tool calls (native, or fenced JSON with the text protocol),
 * evaluates each `evaluate_moves` as one round of the engine and sends the result back: metrics,
 * warnings, whether it improved, and the region in its new order, or the failure report of an
 * aborted round. A reply with no call gets a nudge. Only instructions of the agent's region may move.
 */
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import { parseCommand, type Command } from '../schedule/commands.js';
import type { ScheduleKernel } from '../schedule/kernel.js';
import { ScheduleSession, type SessionOptions } from '../schedule/session.js';
import { compareMetrics, type MetricName, type Metrics } from '../schedule/metrics.js';
import { formatListing, kernelListing } from '../schedule/listing.js';
import { movesFromState } from '../schedule/replay.js';
import type { ChatProvider, Usage } from './provider.js';
import {
  isCallError, NUDGE_NATIVE, NUDGE_TEXT, parseNativeCall, parseTextCalls, textResult, TOOLS, type ToolCall, type ToolCallError,
} from './protocol.js';
import type { Transcript } from './transcript.js';

export interface LoopContext {
  k: ScheduleKernel;
  region: number;
  objective: readonly MetricName[];
  sessionOptions: SessionOptions;
  provider: ChatProvider;
  textProtocol: boolean;
  transcript: Transcript;
  totals: Usage & { requests: number; rounds: number };
  /** Called when an agent's state beats the best of the run. */
  onEvaluated(agent: Agent, round: number): void;
  log?: (line: string) => void;
}

/** The result of one evaluate_moves call as the model sees it. */
export interface EvaluateResult {
  outcome: 'accepted' | 'failed' | 'worse';
  improved: boolean;
  /** Commands applied, then undone when the round failed or was worse. */
  applied: string[];
  failed?: { command: string; reason: string };
  reason?: string;
  warnings: string[];
  metrics: Metrics;
  best_of_run: Metrics;
  /** The region in the agent's current order. */
  region: string;
}

export class Agent {
  finished = false;
  turns = 0;
  /** Messages already written to the transcript. */
  logged = 0;
  lastSummary = '';

  constructor(readonly id: number, readonly sess: ScheduleSession, readonly messages: ChatCompletionMessageParam[], readonly focus: string) {}

  get metrics(): Metrics { return this.sess.metrics; }
  moves(): string[] { return movesFromState(this.sess.state); }
}

export function newSession(ctx: Pick<LoopContext, 'k' | 'objective' | 'sessionOptions'>): ScheduleSession {
  return new ScheduleSession(ctx.k, { ...ctx.sessionOptions, objective: ctx.objective });
}

export function regionText(ctx: Pick<LoopContext, 'k' | 'region'>, sess: ScheduleSession): string {
  return formatListing(kernelListing(ctx.k, ctx.region, sess.state));
}

/** Parse and check the commands of one call: syntax, 'done', and that every tag lies in the region. */
function prepare(ctx: LoopContext, moves: readonly string[]): { cmds: Command[]; done: boolean } | { failed: { command: string; reason: string } } {
  const cmds: Command[] = [];
  let done = false;
  for (const m of moves) {
    const c = parseCommand(m);
    if (typeof c === 'string') return { failed: { command: m, reason: c } };
    if (c.op === 'done') { done = true; break; }
    for (const tag of [c.a, c.b]) {
      const i = ctx.k.byTag.get(tag);
      if (i === undefined) return { failed: { command: c.text, reason: `no instruction is tagged '${tag}'` } };
      const r = ctx.k.regionOf[i]!;
      if (r !== ctx.region) {
        return { failed: { command: c.text, reason: `${tag} ${r < 0 ? 'is pinned (outside every region)' : `is in region ${r}`}; only region ${ctx.region} is being scheduled` } };
      }
    }
    cmds.push(c);
  }
  return { cmds, done };
}

export function evaluateMoves(ctx: LoopContext, a: Agent, moves: readonly string[], bestOfRun: () => Metrics): EvaluateResult {
  const p = prepare(ctx, moves);
  const base = (): Omit<EvaluateResult, 'outcome' | 'improved' | 'applied'> => ({
    warnings: [], metrics: a.sess.metrics, best_of_run: bestOfRun(), region: regionText(ctx, a.sess),
  });
  if ('failed' in p) {
    return { outcome: 'failed', improved: false, applied: [], failed: p.failed, reason: `${p.failed.command}: ${p.failed.reason}; nothing was applied`, ...base() };
  }
  if (p.done) a.finished = true;
  if (p.cmds.length === 0) {
    return { outcome: 'failed', improved: false, applied: [], reason: 'no move to evaluate', ...base() };
  }
  const rep = a.sess.applyRound(p.cmds);
  const improved = rep.outcome === 'accepted' && compareMetrics(rep.after, rep.before, ctx.objective) < 0;
  const res: EvaluateResult = {
    outcome: rep.outcome === 'accepted' ? 'accepted' : rep.outcome === 'worse' ? 'worse' : 'failed',
    improved,
    applied: rep.applied,
    ...base(),
  };
  if (rep.failed) res.failed = { command: rep.failed.command, reason: rep.failed.reason };
  if (rep.outcome === 'failed') res.reason = `${rep.reason}; the whole call was undone`;
  else if (rep.outcome === 'worse') res.reason = `${rep.reason}; round reverted`;
  res.warnings = rep.warnings.map((w) => `${w.severity}: ${w.command}: ${w.message}`);
  res.best_of_run = bestOfRun();
  return res;
}

/** One model turn of an agent. Provider errors propagate (the run stops). */
export async function agentTurn(ctx: LoopContext, a: Agent, round: number, bestOfRun: () => Metrics): Promise<void> {
  const tr = ctx.transcript;
  tr.write({ type: 'request', agent: a.id, round, model: ctx.provider.model, messages: a.messages.length, new_messages: a.messages.slice(a.logged), tools: ctx.textProtocol ? null : TOOLS.map((t) => t.function.name) });
  a.logged = a.messages.length;
  const reply = await ctx.provider.complete(a.messages, ctx.textProtocol ? undefined : TOOLS, a.id);
  a.turns++;
  ctx.totals.rounds++;
  ctx.totals.prompt += reply.usage.prompt;
  ctx.totals.completion += reply.usage.completion;
  ctx.totals.total += reply.usage.total;
  if (reply.usage.cost !== undefined) ctx.totals.cost = (ctx.totals.cost ?? 0) + reply.usage.cost;
  const msg = reply.message;
  const toolCalls = (msg.tool_calls ?? []).filter((t): t is ChatCompletionMessageToolCall & { type: 'function' } => t.type === 'function');
  tr.write({
    type: 'response', agent: a.id, round, finish_reason: reply.finishReason, content: msg.content ?? null,
    tool_calls: toolCalls.map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments })), usage: reply.usage, response_ms: reply.ms,
  });
  const assistant: ChatCompletionMessageParam = toolCalls.length > 0
    ? { role: 'assistant', content: msg.content ?? null, tool_calls: toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.function.name, arguments: t.function.arguments } })) }
    : { role: 'assistant', content: msg.content ?? '' };
  a.messages.push(assistant);
  a.logged = a.messages.length;

  let calls: (ToolCall | ToolCallError)[];
  let native = false;
  if (toolCalls.length > 0) {
    native = true;
    calls = toolCalls.map((t) => parseNativeCall(t.function.name, t.function.arguments, t.id));
  } else {
    calls = parseTextCalls(msg.content ?? '');
  }
  if (calls.length === 0) {
    const nudge = ctx.textProtocol ? NUDGE_TEXT : NUDGE_NATIVE;
    a.messages.push({ role: 'user', content: nudge });
    tr.write({ type: 'nudge', agent: a.id, round, message: nudge });
    ctx.log?.(`round ${round}: agent ${a.id}: no tool call; nudged`);
    return;
  }
  const textResults: string[] = [];
  for (const c of calls) {
    tr.write({ type: 'tool_call', agent: a.id, round, name: c.name, ...(isCallError(c) ? { error: c.error } : c.name === 'evaluate_moves' ? { moves: c.moves, summary: c.summary } : { summary: c.summary }) });
    let result: unknown;
    if (a.finished && !isCallError(c)) {
      result = { error: 'ignored: done was already called' };
    } else if (isCallError(c)) {
      result = { error: c.error };
      ctx.log?.(`round ${round}: agent ${a.id}: bad call to ${c.name}: ${c.error}`);
    } else if (c.name === 'done') {
      a.finished = true;
      a.lastSummary = c.summary;
      result = { ok: true, best: a.sess.metrics, best_of_run: bestOfRun() };
      ctx.log?.(`round ${round}: agent ${a.id}: done${c.summary ? `: ${c.summary}` : ''}`);
    } else {
      a.lastSummary = c.summary;
      const r = evaluateMoves(ctx, a, c.moves, bestOfRun);
      ctx.onEvaluated(a, round);
      r.best_of_run = bestOfRun();
      result = r;
      ctx.log?.(`round ${round}: agent ${a.id}: ${c.moves.join('; ')}: ${r.outcome}${r.improved ? ' (improved)' : ''}${r.reason ? `: ${r.reason}` : ''}`);
    }
    tr.write({ type: 'tool_result', agent: a.id, round, name: c.name, result });
    if (native) a.messages.push({ role: 'tool', tool_call_id: c.id ?? '', content: JSON.stringify(result) });
    else textResults.push(textResult(c.name, result));
  }
  if (!native) a.messages.push({ role: 'user', content: textResults.join('\n\n') });
}
