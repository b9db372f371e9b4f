/**
 * Parallel agents: P agents start from the same region and take their turns concurrently, one
 * round at a time. Every K rounds (a checkpoint) they are ranked by their best metrics (ties: the
 * lower id), the top k survive and the pool is refilled to P with copies of the survivors (their
 * schedule replayed and validated, their conversation copied), each copy told it continues from
 * that schedule and, with variants, given a differently worded goal. A beam search over move
 * sequences whose moves come from the model. The best state of the run is tracked across agents.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { compareMetrics, formatMetrics, type Metrics } from '../schedule/metrics.js';
import { parseCommand, type Command } from '../schedule/commands.js';
import { Agent, agentTurn, newSession, regionText, type LoopContext } from './loop.js';
import { renderPrompt, VARIANTS } from './prompt.js';

export interface PoolOptions {
  agents: number;
  rounds: number;
  /** Rounds between checkpoints (0: none). */
  checkpoint: number;
  keep: number;
  variants: boolean;
  template?: string;
  facts?: string;
}

export interface Best {
  metrics: Metrics;
  moves: string[];
  agent: number;
  round: number;
}

export interface PoolResult {
  best: Best;
  agents: { id: number; turns: number; finished: boolean; metrics: Metrics; focus: string; from?: number }[];
  checkpoints: number;
}

function focusOf(opts: PoolOptions, n: number): string {
  return opts.variants ? VARIANTS[n % VARIANTS.length]! : '';
}

export async function runPool(ctx: LoopContext, opts: PoolOptions, initial: Metrics): Promise<PoolResult> {
  const tr = ctx.transcript;
  let best: Best = { metrics: initial, moves: [], agent: -1, round: 0 };
  const bestOfRun = () => best.metrics;
  ctx.onEvaluated = (a, round) => {
    if (compareMetrics(a.metrics, best.metrics, ctx.objective) < 0) {
      best = { metrics: a.metrics, moves: a.moves(), agent: a.id, round };
      tr.write({ type: 'best', agent: a.id, round, metrics: best.metrics, moves: best.moves });
      ctx.log?.(`round ${round}: new best from agent ${a.id}: ${formatMetrics(best.metrics)}`);
    }
  };
  const from = new Map<number, number>();
  let nextId = 0;
  const fresh = (): Agent => {
    const id = nextId++;
    const sess = newSession(ctx);
    const focus = focusOf(opts, id);
    const system = renderPrompt({
      template: opts.template, k: ctx.k, region: ctx.region, listing: regionText(ctx, sess), baseline: sess.metrics,
      objective: ctx.objective, focus, textProtocol: ctx.textProtocol, facts: opts.facts,
    });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: `Schedule region ${ctx.region} of ${ctx.k.name}. Start with one to three moves.` },
    ];
    return new Agent(id, sess, messages, focus);
  };
  /** A copy of `src` that continues from its schedule (replayed and validated on a new session). */
  const copy = (src: Agent, round: number): Agent => {
    const id = nextId++;
    const sess = newSession(ctx);
    const moves = src.moves();
    if (moves.length > 0) {
      const cmds = moves.map((m) => parseCommand(m) as Command);
      const rep = sess.applyRound(cmds);
      if (rep.outcome !== 'accepted') throw new Error(`internal: the schedule of agent ${src.id} did not replay (${rep.reason})`);
    }
    const focus = opts.variants ? focusOf(opts, id) : src.focus;
    const messages = structuredClone(src.messages);
    messages.push({
      role: 'user',
      content: `Checkpoint after round ${round}: you continue from the schedule of agent ${src.id}, one of the best so far (${formatMetrics(sess.metrics)}).` +
        `${focus ? ` ${focus}` : ''} The region now reads:\n${regionText(ctx, sess)}\nGo on with one to three moves per call.`,
    });
    const a = new Agent(id, sess, messages, focus);
    a.logged = src.messages.length;
    from.set(id, src.id);
    return a;
  };

  let pool: Agent[] = [];
  for (let i = 0; i < opts.agents; i++) pool.push(fresh());
  const all: Agent[] = [...pool];
  let checkpoints = 0;
  for (let round = 1; round <= opts.rounds; round++) {
    const active = pool.filter((a) => !a.finished);
    if (active.length === 0) break;
    await Promise.all(active.map((a) => agentTurn(ctx, a, round, bestOfRun)));
    if (opts.checkpoint > 0 && round % opts.checkpoint === 0 && round < opts.rounds && pool.length > 1) {
      checkpoints++;
      const ranked = [...pool].sort((x, y) => compareMetrics(x.metrics, y.metrics, ctx.objective) || x.id - y.id);
      const kept = ranked.slice(0, Math.min(opts.keep, ranked.length));
      const dropped = ranked.slice(kept.length);
      const refill: Agent[] = [];
      for (let j = 0; kept.length + refill.length < opts.agents; j++) refill.push(copy(kept[j % kept.length]!, round));
      all.push(...refill);
      tr.write({
        type: 'checkpoint', round,
        ranking: ranked.map((a) => ({ agent: a.id, metrics: a.metrics, finished: a.finished })),
        kept: kept.map((a) => a.id), dropped: dropped.map((a) => a.id),
        refilled: refill.map((a) => ({ agent: a.id, from: from.get(a.id), focus: a.focus })),
      });
      ctx.log?.(`checkpoint after round ${round}: kept agents ${kept.map((a) => a.id).join(', ')}; dropped ${dropped.map((a) => a.id).join(', ') || 'none'}; ` +
        `refilled ${refill.map((a) => `${a.id} (from ${from.get(a.id)})`).join(', ') || 'none'}`);
      pool = [...kept, ...refill];
    }
  }
  return {
    best,
    agents: all.map((a) => ({ id: a.id, turns: a.turns, finished: a.finished, metrics: a.metrics, focus: a.focus, from: from.get(a.id) })),
    checkpoints,
  };
}
