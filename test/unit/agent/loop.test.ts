/**
 * The model-guided loop against a loopback chat-completions server with scripted replies: valid
 * tool calls, an invalid move (aborted round reported back), malformed JSON arguments, a reply with
 * neither (nudge), 429 then success (retry), a hang (timeout, retry), a worse round, `done`; the
 * text protocol; parallel agents with a checkpoint; the cache; replay of a transcript by `apply`;
 * no key, unreachable server. The key never appears in stdout, stderr, transcript or output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { runAgentSchedule } from '../../../src/agent/run.js';
import { NUDGE_NATIVE, NUDGE_TEXT } from '../../../src/agent/protocol.js';
import { movesFromTranscript } from '../../../src/agent/transcript.js';
import { movesFileRounds } from '../../../src/cli/apply.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { replayMoves } from '../../../src/schedule/replay.js';
import { CONDUCTOR_OBJECTIVE } from '../../../src/schedule/metrics.js';
import { startServer, feedback, ofAgent, USAGE, type Action, type SeenRequest } from './server.js';
import { bin } from '../../repo.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-agent-'));
const KEY = 'sk-test-9f8e7d6c5b4a-never-print-me';

/** A region with global and LDS loads, MFMAs and VALU (gfx90a); v40/v41 are defined long before their use. */
const SNIPPET = [
  '  v_mov_b32 v40, 1',
  '  v_mov_b32 v41, 2',
  '  global_load_dwordx4 v[0:3], v20, s[0:1]',
  '  ds_read_b128 v[8:11], v21',
  '  ds_read_b128 v[12:15], v21 offset:64',
  '  s_waitcnt lgkmcnt(0)',
  '  v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[12:13], a[0:3]',
  '  v_mfma_f32_16x16x16f16 a[4:7], v[10:11], v[14:15], a[4:7]',
  '  s_waitcnt vmcnt(0)',
  '  v_add_f32 v32, v0, v1',
  '  v_mul_f32 v33, v2, v3',
  '  v_add_u32 v34, v40, v41',
  '  global_store_dword v20, v34, s[0:1]',
  '  global_store_dword v20, v32, s[0:1] offset:4',
  '  global_store_dword v20, v33, s[0:1] offset:8',
  '  s_endpgm',
  '',
].join('\n');

const M1 = 'move v_mov_b32_0 before v_add_u32_0'; // peak VGPR 15 -> 14
const M2 = 'move v_mov_b32_1 before v_add_u32_0'; // then 14 -> 13
const INVALID = 'swap v_mfma_f32_16x16x16f16_0 ds_read_b128_0'; // the MFMA reads what the ds_read writes
const WORSE = 'move v_mov_b32_0 before global_load_dwordx4_0'; // after M1, M2: back up, 13 -> 14

const evaluate = (moves: string[], summary = 'try'): Action => ({ tools: [{ name: 'evaluate_moves', args: { moves, summary } }] });
const DONE: Action = { tools: [{ name: 'done', args: { summary: 'finished' } }] };
const fenced = (o: object): Action => ({ text: `Here is my next step.\n\`\`\`json\n${JSON.stringify(o)}\n\`\`\`` });

/** The model turn a request belongs to: the assistant messages already in the conversation. */
const turnOf = (r: SeenRequest): number => r.body.messages.filter((m) => m.role === 'assistant').length;

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string; err: string }> {
  const e: NodeJS.ProcessEnv = { ...process.env, OPENROUTER_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env };
  for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
  return new Promise((res) => {
    const p = spawn(process.execPath, [bin, ...args], { env: e });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.on('close', (code) => res({ code: code ?? -1, out, err }));
  });
}

const toolResult = (r: SeenRequest): Record<string, unknown> => {
  const t = r.body.messages.filter((m) => m.role === 'tool');
  return JSON.parse(t[t.length - 1]!.content!) as Record<string, unknown>;
};

test('agent CLI: the whole scripted loop ends with the best state, a verified output, a complete transcript, and no key anywhere', async (t) => {
  const attempts = new Map<number, number>();
  const server = await startServer((r) => {
    const turn = turnOf(r);
    const n = attempts.get(turn) ?? 0;
    attempts.set(turn, n + 1);
    switch (turn) {
      case 0: return n === 0 ? { status: 429, retryAfterMs: 20 } : evaluate([INVALID], 'MFMA earlier');
      case 1: return { tools: [{ name: 'evaluate_moves', args: '{"moves": ["move v_mov_b32_0 before' }] };
      case 2: return { text: 'I would reorder the loads, I think.' };
      case 3: return n === 0 ? { hang: true } : evaluate([M1], 'define v40 late');
      case 4: return evaluate([M2], 'define v41 late');
      case 5: return evaluate([WORSE], 'back up');
      default: return DONE;
    }
  });
  try {
    const input = write('loop.s', SNIPPET);
    const out = join(dir, 'loop.out.s');
    const tr = join(dir, 'loop.jsonl');
    const cache = mkdtempSync(join(tmpdir(), 'conductor-agent-cache-'));
    const args = ['agent', input, '--arch', 'gfx90a', '--model', 'test/scripted', '--base-url', server.url, '--rounds', '10',
      '--timeout', '1', '--max-retries', '2', '--transcript', tr, '-o', out, '--json'];
    const t0 = performance.now();
    const r = await run(args, { OPENAI_API_KEY: KEY, CONDUCTOR_CACHE_DIR: cache });
    const ms = performance.now() - t0;
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);

    // the server saw the key, every round, the retries and the feedback
    assert.ok(server.requests.every((q) => q.headers['authorization'] === `Bearer ${KEY}`));
    assert.equal(server.requests.length, 9, 'turns 0 and 3 are sent twice (429, hang)');
    assert.deepEqual([...attempts.entries()].sort((a, b) => a[0] - b[0]), [[0, 2], [1, 1], [2, 1], [3, 2], [4, 1], [5, 1], [6, 1]]);
    assert.deepEqual(server.requests[0]!.body.tools!.map((t) => t.function.name), ['evaluate_moves', 'done']);
    assert.match(server.requests[0]!.body.messages[0]!.content!, /gfx90a/);
    assert.match(server.requests[0]!.body.messages[0]!.content!, /v_mov_b32_0\s+v_mov_b32 v40, 1/);
    const byTurn = (t: number) => server.requests.filter((q) => turnOf(q) === t).at(-1)!;
    const aborted = toolResult(byTurn(1));
    assert.equal(aborted['outcome'], 'failed');
    assert.match((aborted['failed'] as { reason: string }).reason, /v_mfma_f32_16x16x16f16_0 reads v\[8:9\] which ds_read_b128_0 writes/);
    assert.match(String(aborted['region']), /ds_read_b128_0/);
    assert.match(String(toolResult(byTurn(2))['error']), /not valid JSON/);
    assert.equal(byTurn(3).body.messages.at(-1)!.content, NUDGE_NATIVE);
    const first = toolResult(byTurn(4));
    assert.equal(first['outcome'], 'accepted');
    assert.equal(first['improved'], true);
    assert.equal((first['metrics'] as { peak_vgpr: number }).peak_vgpr, 14);
    assert.match(String(first['region']), /v_mov_b32_0[^\n]*\n[^\n]*v_add_u32_0/, 'the region comes back in its new order');
    assert.equal((toolResult(byTurn(5))['metrics'] as { peak_vgpr: number }).peak_vgpr, 13);
    const worse = toolResult(byTurn(6));
    assert.equal(worse['outcome'], 'worse');
    assert.match(String(worse['reason']), /peak_vgpr 13 -> 14/);
    assert.equal((worse['metrics'] as { peak_vgpr: number }).peak_vgpr, 13, 'the worse round was reverted');

    // the result: the best state, written and equivalent to the input
    assert.equal(j.before.peak_vgpr, 15);
    assert.equal(j.after.peak_vgpr, 13);
    assert.equal(j.improved, true);
    assert.equal(j.rounds, 7);
    assert.equal(j.requests, 9);
    assert.equal(j.usage.total, 7 * USAGE.total_tokens);
    assert.ok(Math.abs(j.usage.cost - 7 * USAGE.cost) < 1e-9);
    assert.equal(j.cache, 'miss');
    const k = pickKernel(loadText(SNIPPET, 'loop.s', { arch: 'gfx90a' }));
    assert.ok('state' in replayMoves(k, j.moves), 'the move list replays');
    const outText = readFileSync(out, 'utf8');
    assert.match(outText, /v_mov_b32 v41, 2\s*\n\s*v_add_u32 v34, v40, v41/);
    const v = await run(['verify', input, out, '--arch', 'gfx90a'], {});
    assert.equal(v.code, 0, v.out + v.err);

    // the transcript: every request, attempt, call, result, usage, the best states and the final list
    const recs = readFileSync(tr, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const count = (t: string) => recs.filter((x) => x['type'] === t).length;
    assert.equal(recs[0]!['type'], 'start');
    assert.equal(count('request'), 7);
    assert.equal(count('response'), 7);
    assert.equal(count('tool_call'), 6);
    assert.equal(count('tool_result'), 6);
    assert.equal(count('nudge'), 1);
    assert.equal(count('best'), 2);
    assert.equal(count('http'), 9);
    const statuses = recs.filter((x) => x['type'] === 'http').map((x) => x['status']);
    assert.deepEqual(statuses, [429, 200, 200, 200, 'error', 200, 200, 200, 200]);
    assert.deepEqual((recs.find((x) => x['type'] === 'response')!['usage'] as { cost: number }).cost, USAGE.cost);
    const fin = recs.at(-1)!;
    assert.equal(fin['type'], 'final');
    assert.deepEqual(fin['moves'], j.moves);
    assert.deepEqual(movesFromTranscript(readFileSync(tr, 'utf8')).moves, j.moves);

    // the key is nowhere
    for (const [what, text] of [['stdout', r.out], ['stderr', r.err], ['transcript', readFileSync(tr, 'utf8')], ['output', outText]] as const) {
      assert.ok(!text.includes(KEY), `the key appears in ${what}`);
    }
    assert.match(r.err, /new best from agent 0/);
    t.diagnostic(`loop: 7 turns, 9 HTTP requests (one 429, one timeout) in ${Math.round(ms)} ms`);

    // apply replays the transcript's final move list to the same program
    const out2 = join(dir, 'loop.apply.s');
    const a = await run(['apply', input, '--arch', 'gfx90a', '--moves-file', tr, '-o', out2], {});
    assert.equal(a.code, 0, a.err);
    assert.equal(readFileSync(out2, 'utf8'), outText);
    // on the kernel the transcript names (a new user's trial: a file's other kernel got the moves):
    // the rounds carry it, and a --kernel that names another is refused
    const named = recs[0]!['kernel'] as string;
    assert.equal(movesFileRounds(readFileSync(tr, 'utf8'), tr).kernel, named);
    const other = await run(['apply', input, '--arch', 'gfx90a', '--moves-file', tr, '--kernel', 'nosuch', '-o', join(dir, 'other.s')], {});
    assert.equal(other.code, 2);
    assert.ok(other.err.includes(`is a transcript of kernel ${named}; --kernel names nosuch`), other.err);

    // cache: the same input again makes no request (and needs no key) and writes the same program
    const before = server.requests.length;
    const out3 = join(dir, 'loop.cached.s');
    const tr3 = join(dir, 'loop.cached.jsonl');
    const c = await run(['agent', input, '--arch', 'gfx90a', '--model', 'test/scripted', '--base-url', server.url, '--transcript', tr3, '-o', out3, '--json'],
      { CONDUCTOR_CACHE_DIR: cache }); // a hit needs no key

    assert.equal(c.code, 0, c.err);
    assert.equal(server.requests.length, before, 'a cache hit makes zero requests');
    const cj = JSON.parse(c.out);
    assert.equal(cj.cache, 'hit');
    assert.equal(cj.requests, 0);
    assert.deepEqual(cj.moves, j.moves);
    assert.equal(readFileSync(out3, 'utf8'), outText);
    assert.deepEqual(readFileSync(tr3, 'utf8').trim().split('\n').map((l) => JSON.parse(l).type), ['start', 'cache_hit', 'final']);
    // a cached move list that does not beat the input (a new user's trial: "the input schedule is
    // kept" was printed over a changed program): the input is written, with no moves
    const key = recs[0]!['cache_key'] as string;
    writeFileSync(join(cache, 'agent', key.slice(0, 2), `${key}.json`), JSON.stringify({ moves: [WORSE], metrics: cj.after, model: 'test/scripted', created: 'now' }));
    const out4 = join(dir, 'loop.kept.s');
    const w = await run(['agent', input, '--arch', 'gfx90a', '--model', 'test/scripted', '--base-url', server.url, '-o', out4, '--json'], { CONDUCTOR_CACHE_DIR: cache });
    assert.equal(w.code, 0, w.err);
    const wj = JSON.parse(w.out);
    assert.deepEqual([wj.cache, wj.moves, wj.improved], ['hit', [], false]);
    assert.equal(readFileSync(out4, 'utf8'), readFileSync(input, 'utf8'));
    // --no-cache asks the model again
    const nc = await run([...args.slice(0, -3), '--no-cache', '--rounds', '1', '--json'], { OPENAI_API_KEY: KEY, CONDUCTOR_CACHE_DIR: cache });
    assert.equal(nc.code, 0, nc.err);
    assert.ok(server.requests.length > before);
  } finally {
    await server.close();
  }
});

test('agent: text protocol (fenced JSON), malformed block, nudge, done', async () => {
  const server = await startServer((r) => {
    switch (turnOf(r)) {
      case 0: return fenced({ tool: 'evaluate_moves', moves: [M1], summary: 'v40 late' });
      case 1: return { text: '```json\n{"tool": "evaluate_moves", "moves": [\n```' };
      case 2: return { text: 'Nothing to add.' };
      case 3: return fenced({ tool: 'evaluate_moves', arguments: { moves: [M2], summary: 'v41 late' } });
      default: return fenced({ tool: 'done', summary: 'ok' });
    }
  });
  try {
    const tr = join(dir, 'text.jsonl');
    const r = await runAgentSchedule(loadText(SNIPPET, 'text.s', { arch: 'gfx90a' }), {
      model: 'test/text', baseUrl: server.url, env: { OPENAI_API_KEY: KEY }, textProtocol: true, rounds: 8, cache: false, transcriptFile: tr,
    });
    assert.equal(server.requests.length, 5);
    assert.ok(server.requests.every((q) => q.body.tools === undefined), 'no tools are sent with the text protocol');
    assert.match(server.requests[0]!.body.messages[0]!.content!, /fenced JSON block/);
    const fb = feedback(server.requests[1]!);
    assert.match(fb.at(-1)!, /^Result of evaluate_moves:\n```json\n/);
    assert.match(fb.at(-1)!, /"outcome": "accepted"/);
    assert.match(feedback(server.requests[2]!).at(-1)!, /not valid JSON/);
    assert.equal(feedback(server.requests[3]!).at(-1), NUDGE_TEXT);
    assert.equal(r.after.peak_vgpr, 13);
    assert.equal(r.rounds, 5);
    assert.ok(!readFileSync(tr, 'utf8').includes(KEY));
  } finally {
    await server.close();
  }
});

test('agent: parallel agents, a checkpoint keeps the k best and refills from them; the result is the best of all', async () => {
  // round 1: agent 0 reaches 14, agent 1 fails, agent 2 reaches 13, agent 3 stays at 15; round 2: everyone left is done
  // except agent 0, which also reaches 13 (not better than agent 2's 13)
  const server = await startServer((r) => {
    const turn = turnOf(r);
    if (turn === 0) {
      switch (r.agent) {
        case 0: return evaluate([M1]);
        case 1: return evaluate([INVALID]);
        case 2: return evaluate([M1, M2]);
        case 3: return evaluate(['move global_load_dwordx4_0 before v_mov_b32_0']);
      }
    }
    if (r.agent === 0) return turn === 1 ? evaluate([M2]) : DONE;
    return DONE;
  });
  try {
    const tr = join(dir, 'pool.jsonl');
    const r = await runAgentSchedule(loadText(SNIPPET, 'pool.s', { arch: 'gfx90a' }), {
      model: 'test/pool', baseUrl: server.url, env: { OPENAI_API_KEY: KEY }, agents: 4, checkpoint: 1, keep: 2, rounds: 2, variants: true, cache: false,
      transcriptFile: tr, objective: CONDUCTOR_OBJECTIVE,
    });
    const recs = readFileSync(tr, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const cp = recs.filter((x) => x['type'] === 'checkpoint');
    assert.equal(cp.length, 1);
    assert.deepEqual(cp[0]!['kept'], [2, 0]);
    assert.deepEqual(cp[0]!['dropped'], [1, 3]);
    assert.deepEqual((cp[0]!['refilled'] as { agent: number; from: number }[]).map((x) => [x.agent, x.from]), [[4, 2], [5, 0]]);
    // dropped agents make no further request; the copies continue the survivors' conversations
    assert.equal(ofAgent(server.requests, 1).length, 1);
    assert.equal(ofAgent(server.requests, 3).length, 1);
    const copy = ofAgent(server.requests, 4)[0]!;
    assert.match(copy.body.messages.at(-1)!.content!, /continue from the schedule of agent 2/);
    assert.match(copy.body.messages.at(-1)!.content!, /peak_vgpr 13/);
    assert.ok(copy.body.messages.some((m) => m.role === 'tool' && /"peak_vgpr":13/.test(m.content ?? '')), 'agent 2\'s results are in the copy\'s history');
    // variants: agents 1 and 2 have the two focus texts
    assert.match(ofAgent(server.requests, 1)[0]!.body.messages[0]!.content!, /prioritize register pressure/);
    assert.match(ofAgent(server.requests, 2)[0]!.body.messages[0]!.content!, /prioritize latency hiding/);
    // the best of all: agent 2's 13 (agent 0 only tied it later)
    assert.equal(r.bestAgent, 2);
    assert.equal(r.after.peak_vgpr, 13);
    const best = Math.min(...r.agents.map((a) => a.metrics.peak_vgpr));
    assert.equal(r.after.peak_vgpr, best);
    assert.equal(r.agents.length, 6);
    assert.equal(r.checkpoints, 1);
  } finally {
    await server.close();
  }
});

test('agent CLI: no key, or a server that cannot be reached: exit 2, nothing written, the key never shown', async () => {
  const input = write('nokey.s', SNIPPET);
  const out = join(dir, 'nokey.out.s');
  const tr = join(dir, 'nokey.jsonl');
  const base = ['agent', input, '--arch', 'gfx90a', '--model', 'm', '-o', out, '--transcript', tr, '--no-cache'];
  let r = await run(base, {});
  assert.equal(r.code, 2);
  assert.match(r.err, /no API key: set OPENROUTER_API_KEY or OPENAI_API_KEY/);
  assert.ok(!existsSync(out) && !existsSync(tr));
  r = await run([...base, '--api-key-env', 'MY_KEY'], { OPENAI_API_KEY: KEY });
  assert.equal(r.code, 2);
  assert.match(r.err, /set MY_KEY/);
  // a port nobody listens on
  const s = await startServer(() => DONE);
  const url = s.url;
  await s.close();
  r = await run([...base, '--base-url', url, '--max-retries', '1', '--timeout', '2'], { OPENAI_API_KEY: KEY });
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /cannot reach the model server at http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.ok(!existsSync(out) && !existsSync(tr), 'nothing written');
  assert.ok(!r.err.includes(KEY) && !r.out.includes(KEY));
  // --json: the failure record on the standard output, as for bad input
  r = await run([...base, '--base-url', url, '--max-retries', '0', '--timeout', '2', '--json'], { OPENAI_API_KEY: KEY });
  assert.equal(r.code, 2, r.err);
  const rec = JSON.parse(r.out) as { file: string; error: string; exit: number; kernels: unknown[] };
  assert.equal(rec.file, input);
  assert.match(rec.error, /^cannot reach the model server at http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.equal(rec.exit, 2);
  assert.deepEqual(rec.kernels, []);
  assert.ok(!existsSync(out) && !existsSync(tr) && !r.out.includes(KEY));
  r = await run([...base, '--json'], {});
  assert.equal(r.code, 2);
  assert.match((JSON.parse(r.out) as { error: string }).error, /^no API key/);
  // a key the server refuses
  const refuse = await startServer(() => ({ status: 401, error: 'invalid key' }));
  try {
    r = await run([...base, '--base-url', refuse.url], { OPENAI_API_KEY: KEY });
    assert.equal(r.code, 2);
    assert.match(r.err, /the key was refused \(HTTP 401\)/);
    assert.equal(refuse.requests.length, 1, '401 is not retried');
    assert.ok(!r.err.includes(KEY) && !existsSync(out));
  } finally {
    await refuse.close();
  }
});
