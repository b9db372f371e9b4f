/**
 * The model-guided loop on a real kernel (examples/mfma_lds_gemm.gfx942.s) against the loopback
 * chat-completions server: the scripted model reorders the loads of the main loop (fewer
 * s_waitcnt), tries an illegal move (reported back, undone) and finishes; the output must
 * assemble with llvm-mc, be equivalent to the input (verify), and check clean.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFile, loadText } from '../../src/load.js';
import { runAgentSchedule } from '../../src/agent/run.js';
import { CONDUCTOR_OBJECTIVE } from '../../src/schedule/metrics.js';
import { verifyLoaded } from '../../src/verify/verify.js';
import { checkLoaded } from '../../src/check/check.js';
import { runLlvmMc, repoRoot, llvmTool } from './llvm.js';
import { startServer } from '../unit/agent/server.js';

test('agent on mfma_lds_gemm.gfx942.s: the best schedule assembles with llvm-mc, is equivalent and checks clean', async (t) => {
  llvmTool('llvm-mc'); // fails loudly when LLVM is missing
  const file = join(repoRoot(), 'examples', 'mfma_lds_gemm.gfx942.s');
  const loaded = await loadFile(file);
  const server = await startServer((r) => {
    const turn = r.body.messages.filter((m) => m.role === 'assistant').length;
    const call = (name: string, args: object) => ({ tools: [{ name, args }] });
    switch (turn) {
      case 0: return call('evaluate_moves', { moves: ['move global_load_dwordx2_2 before s_add_i32_0'], summary: 'load in the order the LDS writes consume' });
      case 1: return call('evaluate_moves', { moves: ['move ds_write2st64_b64_0 before global_load_dwordx2_0'], summary: 'write early' });
      case 2: return call('evaluate_moves', { moves: ['move global_load_dwordx2_3 before ds_write2st64_b64_1'], summary: 'same for the next pair' });
      default: return call('done', { summary: 'loads reordered' });
    }
  });
  try {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-agent-oracle-'));
    const t0 = performance.now();
    const r = await runAgentSchedule(loaded, {
      model: 'test/oracle', baseUrl: server.url, env: { OPENAI_API_KEY: 'sk-oracle-test-key' }, rounds: 6, cache: false,
      transcriptFile: join(dir, 't.jsonl'), objective: CONDUCTOR_OBJECTIVE, // the moves below trade waits, not cycles
    });
    const ms = performance.now() - t0;
    assert.equal(r.region, 2);
    assert.equal(server.requests.length, 4);
    const failed = JSON.parse(server.requests[2]!.body.messages.filter((m) => m.role === 'tool').at(-1)!.content!);
    assert.equal(failed.outcome, 'failed');
    assert.match(failed.failed.reason, /ds_write2st64_b64_0/);
    assert.ok(r.improved, `before ${JSON.stringify(r.before)} after ${JSON.stringify(r.after)}`);
    assert.ok(r.after.s_waitcnt < r.before.s_waitcnt);
    assert.equal(r.after.peak_vgpr, r.before.peak_vgpr);
    assert.ok(r.moves.length >= 1);
    const out = join(dir, 'out.s');
    writeFileSync(out, r.text);
    const mc = await runLlvmMc(out, 'gfx942');
    assert.ok(mc.ok, `llvm-mc rejected the output:\n${mc.stderr}`);
    const sched = loadText(readFileSync(out, 'utf8'), out);
    const v = verifyLoaded(loaded, sched);
    assert.ok(v.equivalent, JSON.stringify(v.difference));
    const before = checkLoaded(loaded).errors;
    assert.ok(checkLoaded(sched).errors <= before, 'no new check error');
    t.diagnostic(`agent oracle: ${r.moves.length} moves, s_waitcnt ${r.before.s_waitcnt} -> ${r.after.s_waitcnt}, ${server.requests.length} requests, ${Math.round(ms)} ms`);
  } finally {
    await server.close();
  }
});
