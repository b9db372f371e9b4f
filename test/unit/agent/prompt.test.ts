/**
 * The prompt and the call protocol: target facts generated from the target data (checked against
 * gfx950's occupancy table and the data for the other targets), templates and
 * placeholders, native and fenced-JSON tool calls, transcript reading, key handling.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TARGETS } from '../../../src/targets/index.js';
import { defaultCycleParams } from '../../../src/targets/latency.js';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { ScheduleSession } from '../../../src/schedule/session.js';
import { formatListing, kernelListing } from '../../../src/schedule/listing.js';
import { DEFAULT_OBJECTIVE } from '../../../src/schedule/metrics.js';
import { checkTemplate, occupancyBreakpoints, renderPrompt, targetFacts, PLACEHOLDERS, DEFAULT_TEMPLATE, TEXT_PROTOCOL } from '../../../src/agent/prompt.js';
import { parseNativeCall, parseTextCalls, isCallError } from '../../../src/agent/protocol.js';
import { isTranscript, movesFromTranscript, Transcript } from '../../../src/agent/transcript.js';
import { resolveApiKey, scrub } from '../../../src/agent/provider.js';
import { chooseRegion, agentCacheKey } from '../../../src/agent/run.js';
import { ConductorError } from '../../../src/errors.js';
import { root } from '../../repo.js';


/**
 * Waves per SIMD by VGPRs used on gfx950 (up to `to` VGPRs): a 512-entry VGPR file per SIMD lane
 * allocated in groups of 8 (AMD Instinct CDNA4 ISA reference guide), as LLVM 22 computes it
 * (AMDGPU::IsaInfo::getNumWavesPerEUWithNumVGPRs; llc -mcpu=gfx950 reports occupancy
 * 8/7/6/5/4/3/2 from 1/65/73/81/97/129/169 VGPRs, the measurement src/targets records).
 */
const GFX950_OCCUPANCY: readonly { to: number; waves: number }[] = [
  { to: 64, waves: 8 }, { to: 72, waves: 7 }, { to: 80, waves: 6 }, { to: 96, waves: 5 },
  { to: 128, waves: 4 }, { to: 168, waves: 3 }, { to: 256, waves: 2 },
];

test('occupancy breakpoints: gfx950 matches its occupancy table; gfx906 follows its 256-register file', () => {
  const rows = GFX950_OCCUPANCY;
  const mine = occupancyBreakpoints(TARGETS.gfx950);
  for (const r of rows) {
    const b = mine.find((x) => x.to === r.to);
    assert.ok(b, `a breakpoint at ${r.to} VGPRs`);
    assert.equal(b.waves, r.waves, `${r.to} VGPRs`);
  }
  const g906 = occupancyBreakpoints(TARGETS.gfx906);
  assert.deepEqual(g906[0], { from: 1, to: 24, waves: 10 });
  assert.deepEqual(g906.at(-1), { from: 129, to: 256, waves: 1 });
});

test('target facts: generated per target from the data (registers, counters, latencies with sources, MFMA and hazard tables)', () => {
  const f942 = targetFacts(TARGETS.gfx942);
  assert.match(f942, /### gfx942: Instinct MI300X/);
  assert.match(f942, /unified file of 512 registers/);
  assert.match(f942, /vmcnt up to 63/);
  assert.match(f942, /lgkmcnt up to 15/);
  const p = defaultCycleParams(TARGETS.gfx942);
  assert.ok(f942.includes(`| global / buffer load (to vmcnt and data) | ${p.values['vmem.latency'].value} | ${p.values['vmem.latency'].source} |`));
  // gfx942 XDL 8 passes: N+3 for SrcA/B
  assert.match(f942, /\| XDL \| 8 \| 0 \| 9 \| 11 \| 11 \| 11 \|/);
  assert.match(f942, /VALU writes an SGPR \(incl\. VCC, M0\) -> VMEM\/FLAT reads it \| 5 \|/);
  assert.match(f942, /VALU writes EXEC \(v_cmpx\) -> VMEM\/FLAT \(its implicit EXEC read\) \| 5 \|/);
  const f950 = targetFacts(TARGETS.gfx950);
  assert.match(f950, /\| XDL \| 16 \| 0 \| 18 \| 20 \| 20 \| 20 \|/);
  assert.match(f950, /LDS 160 KiB per CU/);
  const f906 = targetFacts(TARGETS.gfx906);
  assert.match(f906, /no AGPRs/);
  assert.doesNotMatch(f906, /MFMA dependency wait states/);
  assert.match(f906, /at most 10 waves per SIMD/);
  assert.notEqual(targetFacts(TARGETS.gfx908), targetFacts(TARGETS.gfx90a));
});

const SNIPPET = [
  'v_mov_b32 v40, 1', 'ds_read_b128 v[8:11], v21', 's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[10:11], a[0:3]', 'v_add_u32 v34, v40, v40', 's_barrier',
  'v_mov_b32 v1, 0', 'v_mov_b32 v2, 0', 'v_mov_b32 v3, 0', 'global_store_dword v20, v1, s[0:1]', 's_endpgm', '',
].join('\n');

test('prompt: the default template is filled; a user template with placeholders; unknown placeholders are refused', () => {
  const k = pickKernel(loadText(SNIPPET, 'p.s', { arch: 'gfx90a' }));
  const sess = new ScheduleSession(k);
  const listing = formatListing(kernelListing(k, 0, sess.state));
  const text = renderPrompt({ k, region: 0, listing, baseline: sess.metrics, objective: DEFAULT_OBJECTIVE });
  assert.doesNotMatch(text, /\{\{/);
  assert.match(text, /Try one to three moves per call/);
  assert.match(text, /peak_vgpr, s_waitcnt, s_nop, total_instructions/);
  assert.match(text, /v_mfma_f32_16x16x16f16_0/);
  assert.match(text, /### gfx90a/);
  // the kernel's MFMA with its pass count on the target, from the instruction catalogue
  const passes = k.insns.find((r) => r.info.mfma)!.info.mfma!.passes;
  assert.ok(text.includes(`| v_mfma_f32_16x16x16f16 | XDL | ${passes} | ${passes * 4} |`), 'MFMA row');
  assert.match(text, /evaluate_moves\(moves, summary\)/);
  const textMode = renderPrompt({ k, region: 0, listing, baseline: sess.metrics, objective: DEFAULT_OBJECTIVE, textProtocol: true });
  assert.ok(textMode.includes(TEXT_PROTOCOL));
  const custom = renderPrompt({ template: 'T={{target}} K={{kernel}} R={{ region }} O={{objective}} F={{focus}}', k, region: 1, listing, baseline: sess.metrics, objective: ['s_nop'], focus: 'go' });
  assert.equal(custom, `T=gfx90a (${TARGETS.gfx90a.products}) K=${k.name} R=1 O=s_nop F=\ngo\n`);
  assert.throws(() => checkTemplate('{{listing}} {{targte}}', 'p.txt'), (e: unknown) => e instanceof ConductorError && /p\.txt: unknown placeholder \{\{targte\}\}/.test(e.message));
  for (const m of DEFAULT_TEMPLATE.matchAll(/\{\{(\w+)\}\}/g)) assert.ok(m[1]! in PLACEHOLDERS);
});

test('region choice: the largest region inside a loop by default, else the largest; --region checked', () => {
  const ex = pickKernel(loadText(readFileSync(resolve(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8'), 'mfma_lds_gemm.gfx942.s'));
  const inLoop = chooseRegion(ex);
  assert.match(inLoop.reason, /the largest region inside a loop \(\d+ movable instructions\)/);
  // the main loop starts at .LBB0_2 (its first region has the global loads and LDS writes)
  assert.deepEqual(ex.ctx.cfg.blocks[ex.regions[inLoop.region]!.block]!.labels, ['.LBB0_2']);
  const k = pickKernel(loadText(SNIPPET, 'p.s', { arch: 'gfx90a' }));
  assert.equal(k.regions.length, 2);
  const c = chooseRegion(k);
  assert.equal(c.region, 0);
  assert.match(c.reason, /most movable instructions \(4; the kernel has no loop\)/);
  assert.equal(chooseRegion(k, 1).region, 1);
  assert.throws(() => chooseRegion(k, 5), /no region 5/);
  // the cache key changes with the objective, the region and the input
  const k2 = pickKernel(loadText(SNIPPET.replace('v_mov_b32 v3, 0', 'v_mov_b32 v3, 1'), 'p.s', { arch: 'gfx90a' }));
  const keys = new Set([agentCacheKey(k, 0, DEFAULT_OBJECTIVE), agentCacheKey(k, 1, DEFAULT_OBJECTIVE), agentCacheKey(k, 0, ['s_nop']), agentCacheKey(k2, 0, DEFAULT_OBJECTIVE)]);
  assert.equal(keys.size, 4);
  assert.equal(agentCacheKey(k, 0, DEFAULT_OBJECTIVE), agentCacheKey(pickKernel(loadText(SNIPPET, 'other-name.s', { arch: 'gfx90a' })), 0, DEFAULT_OBJECTIVE));
});

test('protocol: native calls with malformed arguments; fenced JSON in both shapes; blocks without a tool are ignored', () => {
  const ok = parseNativeCall('evaluate_moves', '{"moves": ["swap a b"], "summary": "s"}', 'c1');
  assert.deepEqual(ok, { name: 'evaluate_moves', moves: ['swap a b'], summary: 's', id: 'c1' });
  const bad = parseNativeCall('evaluate_moves', '{"moves": [', 'c2');
  assert.ok(isCallError(bad) && /not valid JSON/.test(bad.error) && bad.id === 'c2');
  const notArray = parseNativeCall('evaluate_moves', '{"moves": "swap a b"}');
  assert.ok(isCallError(notArray) && /must be an array of strings/.test(notArray.error));
  const empty = parseNativeCall('evaluate_moves', '{"moves": []}');
  assert.ok(isCallError(empty) && /empty/.test(empty.error));
  const unknown = parseNativeCall('reorder', '{}');
  assert.ok(isCallError(unknown) && /unknown tool 'reorder'/.test(unknown.error));
  assert.deepEqual(parseNativeCall('done', ''), { name: 'done', summary: '', id: undefined });

  const text = 'Plan:\n```json\n{"tool": "evaluate_moves", "moves": ["move a after b"], "summary": "x"}\n```\nthen\n```\n{"tool": "done", "arguments": {"summary": "y"}}\n```\n```json\n{"note": 1}\n```';
  assert.deepEqual(parseTextCalls(text), [
    { name: 'evaluate_moves', moves: ['move a after b'], summary: 'x', id: undefined },
    { name: 'done', summary: 'y', id: undefined },
  ]);
  assert.deepEqual(parseTextCalls('no block here, {"tool": "done"} inline is not a block'), []);
  const broken = parseTextCalls('```json\n{"tool": "evaluate_moves", "moves": [\n```');
  assert.equal(broken.length, 1);
  assert.ok(isCallError(broken[0]!) && /not valid JSON/.test(broken[0].error));
});

test('transcript: JSONL detection; the final (or last best) move list; the secret is scrubbed from every line', () => {
  const t = new Transcript(undefined, 'sk-secret-123');
  t.write({ type: 'start', kernel: 'k', region: 2, note: 'header sk-secret-123' });
  t.write({ type: 'best', moves: ['swap a b'] });
  t.write({ type: 'best', moves: ['swap a b', 'move c after d'] });
  const text = t.records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  assert.ok(!text.includes('sk-secret-123') && text.includes('[redacted]'));
  assert.ok(isTranscript(text));
  assert.ok(!isTranscript('move a after b\nswap c d\n'));
  assert.deepEqual(movesFromTranscript(text), { moves: ['swap a b', 'move c after d'], from: 'best', kernel: 'k', region: 2 });
  const withFinal = text + JSON.stringify({ type: 'final', moves: ['swap a b'] }) + '\n';
  assert.deepEqual(movesFromTranscript(withFinal).moves, ['swap a b']);
  assert.throws(() => movesFromTranscript('{"type": "start"}\n'), /no final or best move list/);
  assert.throws(() => movesFromTranscript('{"type": "start"}\nnot json\n', 't.jsonl'), /t\.jsonl:2: not a JSON line/);
  assert.equal(scrub('a sk-secret-123 b', 'sk-secret-123'), 'a [redacted] b');
});

test('key: --api-key-env names the only variable; OpenRouter prefers OPENROUTER_API_KEY, other servers OPENAI_API_KEY', () => {
  const env = { OPENROUTER_API_KEY: 'or-key', OPENAI_API_KEY: 'oa-key', MINE: ' my-key ' };
  assert.deepEqual(resolveApiKey('https://openrouter.ai/api/v1', undefined, env), { key: 'or-key', variable: 'OPENROUTER_API_KEY' });
  assert.deepEqual(resolveApiKey('http://localhost:8000/v1', undefined, env), { key: 'oa-key', variable: 'OPENAI_API_KEY' });
  assert.deepEqual(resolveApiKey('http://localhost:8000/v1', 'MINE', env), { key: 'my-key', variable: 'MINE' });
  assert.deepEqual(resolveApiKey('http://localhost:8000/v1', undefined, { OPENROUTER_API_KEY: 'or-key' }).variable, 'OPENROUTER_API_KEY');
  assert.throws(() => resolveApiKey('http://x/v1', 'NOPE', env), /no API key: set NOPE/);
  assert.throws(() => resolveApiKey('http://x/v1', undefined, { OPENAI_API_KEY: '  ' }), /no API key/);
});
