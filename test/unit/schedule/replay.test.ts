/**
 * Move lists that reproduce a schedule (movesFromState / replayMoves) and the result cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadText } from '../../../src/load.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, canMove, moveTo } from '../../../src/schedule/state.js';
import { movesFromState, replayMoves } from '../../../src/schedule/replay.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { cacheKey, canonicalJson, ResultCache } from '../../../src/cache.js';

const SNIPPET = [
  'global_load_dwordx4 v[0:3], v20, s[0:1]',
  'global_load_dwordx4 v[4:7], v20, s[0:1] offset:16',
  'ds_read_b128 v[8:11], v21',
  'ds_read_b128 v[12:15], v21 offset:64',
  'v_mov_b32 v30, 1',
  'v_add_u32 v31, v30, v30',
  's_waitcnt lgkmcnt(0)',
  'v_mfma_f32_16x16x16f16 a[0:3], v[8:9], v[12:13], a[0:3]',
  'v_mfma_f32_16x16x16f16 a[4:7], v[10:11], v[14:15], a[4:7]',
  's_waitcnt vmcnt(0)',
  'v_add_f32 v32, v0, v4',
  'v_mul_f32 v33, v1, v5',
  'v_mov_b32 v34, v31',
  's_endpgm',
];

test('movesFromState: the move list replays, validated, to the same order (200 random legal schedules)', () => {
  const k = pickKernel(loadText(SNIPPET.join('\n') + '\n', 't.s', { arch: 'gfx90a' }));
  const r = 0;
  const m = k.regions[r]!.nodes.length;
  assert.ok(m >= 10, `region has ${m} instructions`);
  const rand = mulberry32(7);
  let changed = 0;
  for (let t = 0; t < 200; t++) {
    const s = new ScheduleState(k);
    for (let step = 0; step < 12; step++) {
      const from = Math.floor(rand() * m);
      const to = Math.floor(rand() * m);
      if (canMove(s, r, from, to)) moveTo(s, r, from, to);
    }
    const moves = movesFromState(s);
    if (s.isChanged(r)) { changed++; assert.ok(moves.length > 0); } else assert.equal(moves.length, 0);
    const back = replayMoves(k, moves);
    assert.ok('state' in back, `replay failed: ${'failure' in back ? back.failure.reason : ''}`);
    assert.deepEqual(Array.from(back.state.order[r]!), Array.from(s.order[r]!));
  }
  assert.ok(changed > 100, `only ${changed} of 200 random schedules differ from the input`);
});

test('replayMoves: reports the first illegal or unknown command with its index', () => {
  const k = pickKernel(loadText(SNIPPET.join('\n') + '\n', 't.s', { arch: 'gfx90a' }));
  const bad = replayMoves(k, ['move v_mov_b32_0 before global_load_dwordx4_0', 'move v_add_u32_0 before v_mov_b32_0']);
  assert.ok('failure' in bad);
  assert.equal(bad.index, 1);
  assert.equal(bad.failure.kind, 'raw');
  const unknown = replayMoves(k, ['move nothing_0 before v_mov_b32_0']);
  assert.ok('failure' in unknown && unknown.failure.kind === 'unknown-tag');
  const syntax = replayMoves(k, ['shuffle everything']);
  assert.ok('failure' in syntax && syntax.failure.kind === 'syntax');
});

test('cache: canonical keys, round trip, unreadable entries are misses, unwritable directory is reported', () => {
  assert.equal(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }), '{"a":[2,{"c":4,"d":3}],"b":1}');
  assert.equal(cacheKey({ x: 1, y: 'z' }), cacheKey({ y: 'z', x: 1 }));
  assert.notEqual(cacheKey({ x: 1 }), cacheKey({ x: 2 }));
  assert.match(cacheKey('text'), /^[0-9a-f]{64}$/);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conductor-cache-'));
  try {
    const c = new ResultCache('schedule', dir);
    const h = cacheKey({ input: 'abc' });
    assert.equal(c.get(h), undefined);
    assert.ok(c.set(h, { moves: ['move a before b'] }));
    assert.deepEqual(c.get(h), { moves: ['move a before b'] });
    assert.deepEqual(readdirSync(path.join(dir, 'schedule', h.slice(0, 2))), [`${h}.json`]);
    c.delete(h);
    assert.equal(c.get(h), undefined);
    const file = path.join(dir, 'a-file');
    writeFileSync(file, '');
    const blocked = new ResultCache('x', file);
    assert.equal(blocked.set(h, 1), false);
    assert.match(blocked.lastError ?? '', /cannot write the cache entry/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
