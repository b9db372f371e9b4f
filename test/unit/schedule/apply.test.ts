/**
 * The scheduling engine on hand-written snippets: regions and tags, every reason a command is
 * refused, every warning, undo of an aborted round, tags that follow their instruction.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { pickKernel, ROLE, type ScheduleKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, applyCommand, isFailure, type CommandFailure } from '../../../src/schedule/state.js';
import { parseCommand, parseRounds, parseRoundsOrThrow, type Command } from '../../../src/schedule/commands.js';
import { ScheduleSession } from '../../../src/schedule/session.js';
import { ConductorError } from '../../../src/errors.js';
import { CONDUCTOR_OBJECTIVE } from '../../../src/schedule/metrics.js';

const kernelOf = (lines: string[], arch = 'gfx90a', opts = {}): ScheduleKernel =>
  pickKernel(loadText(lines.join('\n') + '\n', 't.s', { arch }), undefined, opts);

const cmd = (text: string): Command => {
  const c = parseCommand(text);
  assert.ok(typeof c !== 'string', `bad command ${text}: ${c}`);
  return c;
};

/** Apply one command to a fresh state; return the failure (or undefined when it applied). */
function tryCommand(k: ScheduleKernel, text: string): CommandFailure | undefined {
  const s = new ScheduleState(k);
  const r = applyCommand(s, cmd(text));
  return isFailure(r) ? r : undefined;
}

/** Tags of region 0 in the state's current order. */
function order(s: ScheduleState, r = 0): string[] {
  return Array.from(s.regionSequence(r), (i) => s.k.tags[i]!);
}

test('regions: split at pinned instructions; waits stripped; fence waits pinned; tags per mnemonic', () => {
  const k = kernelOf([
    'v_mov_b32 v1, 0',
    'ds_write_b32 v0, v1',
    's_waitcnt lgkmcnt(0)',
    's_barrier',
    'ds_read_b32 v2, v0',
    'v_mov_b32 v3, 1',
    's_waitcnt lgkmcnt(0)',
    'v_add_u32 v4, v2, v3',
    's_nop 1',
    'v_mov_b32 v5, v4',
    's_endpgm',
  ]);
  assert.equal(k.regions.length, 2);
  assert.deepEqual(Array.from(k.regions[0]!.nodes, (i) => k.tags[i]), ['v_mov_b32_0', 'ds_write_b32_0']);
  assert.deepEqual(Array.from(k.regions[1]!.nodes, (i) => k.tags[i]), ['ds_read_b32_0', 'v_mov_b32_1', 'v_add_u32_0', 'v_mov_b32_2']);
  // the wait before the barrier is a fence (pinned, tagged); the one inside region 1 is stripped
  assert.equal(k.role[2], ROLE.pinned);
  assert.equal(k.tags[2], 's_waitcnt_0');
  assert.equal(k.role[6], ROLE.stripped);
  assert.equal(k.role[8], ROLE.stripped);
  assert.equal(k.tags[6], '');
  assert.equal(k.regions[1]!.strippedWaits, 1);
  assert.equal(k.regions[1]!.strippedNops, 1);
  assert.equal(k.role[3], ROLE.pinned);
  assert.match(k.pinReason[3]!, /barrier/);
});

test('regions: a Tensile long branch is pinned as a whole; directives split regions', () => {
  const k = kernelOf([
    'v_mov_b32 v1, 0',
    's_getpc_b64 s[60:61]', 's_add_i32 s62, label_End, 0x4', 's_add_u32 s60, s60, s62', 's_addc_u32 s61, s61, 0',
    's_setpc_b64 s[60:61]',
    'label_X:',
    'v_mov_b32 v2, 0',
    '.set foo, 3',
    'v_mov_b32 v3, foo',
    'label_End:',
    's_endpgm',
  ]);
  for (let i = 1; i <= 5; i++) assert.equal(k.role[i], ROLE.pinned, k.tags[i]);
  assert.deepEqual(k.regions.map((r) => r.nodes.length), [1, 1, 1]);
});

test('commands: parsing, comments, rounds, malformed lines', () => {
  const r = parseRounds(['# a comment', 'move a_1 after b_2  # trailing', 'swap x_0 y_0', '---', 'MOVE a_1 BEFORE b_2', 'round 2', 'done', ''].join('\n'));
  assert.deepEqual(r.errors, []);
  assert.equal(r.rounds.length, 3);
  assert.deepEqual(r.rounds[0]!.map((c) => c.text), ['move a_1 after b_2', 'swap x_0 y_0']);
  assert.equal(r.rounds[1]![0]!.op, 'move');
  assert.equal(r.rounds[2]![0]!.op, 'done');
  const bad = parseRounds(['move a_1 b_2', 'swap a', 'mov a after b', 'move a under b', 'done now'].join('\n'));
  assert.deepEqual(bad.errors.map((e) => e.line), [1, 2, 3, 4, 5]);
  assert.match(bad.errors[0]!.message, /'move' takes a tag, 'after' or 'before', and a tag/);
  assert.match(bad.errors[2]!.message, /expected 'move A after B', 'move A before B', 'swap A B' or 'done'/);
  assert.match(bad.errors[3]!.message, /expected 'after' or 'before', got 'under'/);
  assert.throws(() => parseRoundsOrThrow('swap a', 'm.txt'), (e: unknown) => e instanceof ConductorError && /m\.txt:1: malformed command/.test(e.message));
});

test('commands: a move as the scheduler writes it reads as the full parse reads it; any other spacing takes the full parse', () => {
  // the scheduler's own form (read without splitting): the same command, its text the input
  assert.deepEqual(parseCommand('move v_mov_b32_1 after ds_read_b64_0', 7), { op: 'move', a: 'v_mov_b32_1', b: 'ds_read_b64_0', where: 'after', text: 'move v_mov_b32_1 after ds_read_b64_0', line: 7 });
  assert.deepEqual(parseCommand('move a_1 before b_2'), { op: 'move', a: 'a_1', b: 'b_2', where: 'before', text: 'move a_1 before b_2', line: undefined });
  // written otherwise: the same command by the full parse, its text written the scheduler's way
  for (const t of ['move  a_1 before b_2', 'move a_1\tbefore b_2', ' move a_1 before b_2', 'move a_1 before b_2 ', 'MOVE a_1 Before b_2', 'move a_1 before b_2\n']) {
    assert.deepEqual(parseCommand(t), { op: 'move', a: 'a_1', b: 'b_2', where: 'before', text: 'move a_1 before b_2', line: undefined }, JSON.stringify(t));
  }
  // malformed moves are refused as before
  for (const t of ['move a_1 before', 'move a_1 before ', 'move a_1 under b_2', 'move a_1 before b_2 c_3', 'move  before b_2']) {
    assert.equal(typeof parseCommand(t), 'string', JSON.stringify(t));
  }
});

const BASIC = [
  'ds_read_b64 v[8:9], v0',          // ds_read_b64_0
  'v_mov_b32 v20, 1',                 // v_mov_b32_0
  's_waitcnt lgkmcnt(0)',
  'v_add_f32 v10, v8, v9',            // v_add_f32_0   RAW on v[8:9]
  'v_mov_b32 v8, 0',                  // v_mov_b32_1   WAR with v_add_f32_0, WAW with ds_read
  'v_mov_b32 v21, 2',                 // v_mov_b32_2
  'v_mov_b32 v21, 3',                 // v_mov_b32_3   WAW with v_mov_b32_2
  's_barrier',
  'v_mov_b32 v22, 4',                 // v_mov_b32_4   (next region)
  's_endpgm',
];

test('refused: unknown tag, same instruction, pinned, different regions', () => {
  const k = kernelOf(BASIC);
  let f = tryCommand(k, 'swap v_mov_b32_0 v_mov_b32_9');
  assert.equal(f?.kind, 'unknown-tag');
  assert.match(f!.reason, /unknown tag 'v_mov_b32_9' \(\(top level\) has v_mov_b32_0 \.\. v_mov_b32_4\)/);
  f = tryCommand(k, 'swap nonsense v_mov_b32_0');
  assert.equal(f?.kind, 'unknown-tag');
  f = tryCommand(k, 'move v_mov_b32_0 after v_mov_b32_0');
  assert.equal(f?.kind, 'same');
  f = tryCommand(k, 'move v_mov_b32_0 after s_barrier_0');
  assert.equal(f?.kind, 'pinned');
  assert.match(f!.reason, /s_barrier_0 is pinned \(a barrier\)/);
  f = tryCommand(k, 'swap v_mov_b32_0 v_mov_b32_4');
  assert.equal(f?.kind, 'region');
  assert.match(f!.reason, /different scheduling regions/);
});

test('refused: RAW, WAR, WAW with the registers named', () => {
  const k = kernelOf(BASIC);
  let f = tryCommand(k, 'swap v_add_f32_0 ds_read_b64_0');
  assert.equal(f?.kind, 'raw');
  assert.equal(f!.reason, 'v_add_f32_0 reads v[8:9] which ds_read_b64_0 writes');
  f = tryCommand(k, 'move v_mov_b32_1 before v_add_f32_0');
  assert.equal(f?.kind, 'war');
  assert.equal(f!.reason, 'v_mov_b32_1 writes v8 which v_add_f32_0 reads');
  f = tryCommand(k, 'swap v_mov_b32_2 v_mov_b32_3');
  assert.equal(f?.kind, 'waw');
  assert.equal(f!.reason, 'v_mov_b32_2 writes v21 which v_mov_b32_3 also writes');
  // legal: independent instructions
  assert.equal(tryCommand(k, 'move v_mov_b32_0 before ds_read_b64_0'), undefined);
  assert.equal(tryCommand(k, 'move v_mov_b32_2 after v_mov_b32_0'), undefined);
});

test('refused: implicit EXEC, VCC, SCC, M0', () => {
  const exec = kernelOf(['s_mov_b64 exec, s[0:1]', 'v_add_f32 v3, v1, v2', 's_endpgm']);
  let f = tryCommand(exec, 'swap s_mov_b64_0 v_add_f32_0');
  assert.equal(f?.kind, 'raw');
  assert.equal(f!.reason, 's_mov_b64_0 writes exec which v_add_f32_0 reads (implicitly)');
  f = tryCommand(exec, 'swap v_add_f32_0 s_mov_b64_0');
  assert.equal(f!.reason, 'v_add_f32_0 reads exec which s_mov_b64_0 writes (implicitly)');
  const vcc = kernelOf(['v_cmp_eq_u32_e64 vcc, v0, v1', 'v_div_fmas_f32 v2, v3, v4, v5', 's_endpgm']);
  f = tryCommand(vcc, 'move v_div_fmas_f32_0 before v_cmp_eq_u32_e64_0');
  assert.equal(f?.kind, 'raw');
  assert.equal(f!.reason, 'v_div_fmas_f32_0 reads vcc which v_cmp_eq_u32_e64_0 writes (implicitly)');
  const scc = kernelOf(['s_add_u32 s0, s0, 1', 's_addc_u32 s1, s1, 0', 's_endpgm']);
  f = tryCommand(scc, 'swap s_add_u32_0 s_addc_u32_0');
  assert.equal(f?.kind, 'raw');
  assert.match(f!.reason, /^s_add_u32_0 writes scc which s_addc_u32_0 reads \(implicitly\)$/);
  const m0 = kernelOf(['s_mov_b32 m0, s3', 'ds_read_addtid_b32 v0', 's_endpgm']);
  f = tryCommand(m0, 'move ds_read_addtid_b32_0 before s_mov_b32_0');
  assert.equal(f?.kind, 'raw');
  assert.equal(f!.reason, 'ds_read_addtid_b32_0 reads m0 which s_mov_b32_0 writes (implicitly)');
  // s_movrels reads the SGPR M0 selects: it does not move at all
  const rel = kernelOf(['s_mov_b32 m0, s3', 's_movrels_b32 s0, s1', 's_endpgm']);
  assert.equal(tryCommand(rel, 'move s_movrels_b32_0 before s_mov_b32_0')?.kind, 'pinned');
  // nor does a return from a trap handler
  const rfe = kernelOf(['s_mov_b32 s5, 1', 's_rfe_restore_b64 s[0:1], s2', 's_endpgm']);
  assert.equal(tryCommand(rfe, 'move s_rfe_restore_b64_0 before s_mov_b32_0')?.kind, 'pinned');
});

test('refused: memory accesses that may alias; disjoint offsets from the same base reorder', () => {
  const k = kernelOf([
    'global_store_dword v[2:3], v4, off',         // global_store_dword_0
    'global_load_dword v5, v[2:3], off',          // global_load_dword_0: same address
    'global_load_dword v6, v[2:3], off offset:4', // global_load_dword_1: disjoint
    'buffer_load_dword v7, v1, s[8:11], 0 offen', // buffer_load_dword_0: another base
    'ds_write_b32 v0, v4',                         // ds_write_b32_0
    'ds_read_b32 v8, v0 offset:8',                 // ds_read_b32_0: disjoint
    'ds_read_b32 v9, v10',                         // ds_read_b32_1: unknown base
    's_endpgm',
  ]);
  let f = tryCommand(k, 'move global_load_dword_0 before global_store_dword_0');
  assert.equal(f?.kind, 'memory');
  assert.equal(f!.reason, 'may alias (both global, base v[2:3], bytes 0..3 and 0..3 overlap)');
  assert.equal(`${f!.command}: ${f!.reason}`, 'move global_load_dword_0 before global_store_dword_0: may alias (both global, base v[2:3], bytes 0..3 and 0..3 overlap)');
  // another access in the way is named
  const third = kernelOf(['global_store_dword v[2:3], v4, off', 'global_store_dword v[6:7], v8, off', 'global_load_dword v5, v[2:3], off offset:16', 's_endpgm']);
  assert.equal(tryCommand(third, 'move global_load_dword_0 before global_store_dword_0')!.reason,
    'global_load_dword_0 and global_store_dword_1 may alias (both global, bases v[2:3] and v[6:7])');
  // A VGPR base differs per lane: lanes' addresses may meet, so disjoint offsets still conflict by default ...
  assert.equal(tryCommand(k, 'move global_load_dword_1 before global_store_dword_0')?.kind, 'memory');
  assert.equal(tryCommand(k, 'move ds_read_b32_0 before ds_write_b32_0')?.kind, 'memory');
  // ... and the reason says so (a new user's trial: it said the base was redefined between them, which it was not)
  assert.equal(tryCommand(k, 'move ds_read_b32_0 before ds_write_b32_0')!.reason,
    'may alias (both lds, base v0 is a VGPR: the lanes\' addresses differ, and accesses through one are told apart only with --per-lane)');
  // a base written between them: that is the reason, with --per-lane too
  const rewritten = kernelOf(['ds_write_b32 v0, v4', 'v_add_u32 v0, v0, v1', 'ds_read_b32 v8, v0 offset:8', 's_endpgm'], 'gfx90a', { disambiguate: 'per-lane' });
  assert.match(tryCommand(rewritten, 'move ds_read_b32_0 before ds_write_b32_0')?.reason ?? '', /reads v0 which v_add_u32_0 writes|base v0 is redefined between them/);
  // ... and reorder when the user accepts the per-lane model
  const lanes = kernelOf([
    'global_store_dword v[2:3], v4, off', 'global_load_dword v6, v[2:3], off offset:4',
    'ds_write_b32 v0, v4', 'ds_read_b32 v8, v0 offset:8', 's_endpgm',
  ], 'gfx90a', { disambiguate: 'per-lane' });
  assert.equal(tryCommand(lanes, 'move global_load_dword_0 before global_store_dword_0'), undefined);
  assert.equal(tryCommand(lanes, 'move ds_read_b32_0 before ds_write_b32_0'), undefined);
  // A uniform base (buffer resource and offsets in SGPRs / immediates only) reorders by default
  const uniform = kernelOf(['buffer_store_dword v4, off, s[8:11], 0', 'buffer_load_dword v6, off, s[8:11], 0 offset:4', 's_endpgm']);
  assert.equal(tryCommand(uniform, 'swap buffer_store_dword_0 buffer_load_dword_0'), undefined);
  const uniformSame = kernelOf(['buffer_store_dword v4, off, s[8:11], 0', 'buffer_load_dword v6, off, s[8:11], 0', 's_endpgm']);
  assert.equal(tryCommand(uniformSame, 'swap buffer_store_dword_0 buffer_load_dword_0')?.kind, 'memory');
  f = tryCommand(k, 'move ds_read_b32_1 before ds_write_b32_0');
  assert.equal(f?.kind, 'memory');
  // loads reorder among themselves; LDS and global memory do not alias
  assert.equal(tryCommand(k, 'swap global_load_dword_0 global_load_dword_1'), undefined);
  assert.equal(tryCommand(k, 'move ds_write_b32_0 before global_load_dword_1'), undefined);
  // without disambiguation, disjoint offsets conflict too
  const strict = kernelOf(['global_store_dword v[2:3], v4, off', 'global_load_dword v6, v[2:3], off offset:4', 's_endpgm'], 'gfx90a', { disambiguate: false });
  assert.equal(tryCommand(strict, 'swap global_store_dword_0 global_load_dword_0')?.kind, 'memory');
});

test('tags follow their instruction across moves', () => {
  const k = kernelOf(['v_mov_b32 v1, 1', 'v_mov_b32 v2, 2', 'v_mov_b32 v3, 3', 'v_mov_b32 v4, 4', 's_endpgm']);
  const s = new ScheduleState(k);
  assert.ok(!isFailure(applyCommand(s, cmd('move v_mov_b32_0 after v_mov_b32_3'))));
  assert.deepEqual(order(s), ['v_mov_b32_1', 'v_mov_b32_2', 'v_mov_b32_3', 'v_mov_b32_0']);
  assert.ok(!isFailure(applyCommand(s, cmd('move v_mov_b32_3 before v_mov_b32_1'))));
  assert.deepEqual(order(s), ['v_mov_b32_3', 'v_mov_b32_1', 'v_mov_b32_2', 'v_mov_b32_0']);
  assert.ok(!isFailure(applyCommand(s, cmd('swap v_mov_b32_0 v_mov_b32_3'))));
  assert.deepEqual(order(s), ['v_mov_b32_0', 'v_mov_b32_1', 'v_mov_b32_2', 'v_mov_b32_3']);
  // the tag names the instruction, whatever its position
  const seq = s.regionSequence(0);
  assert.equal(k.ctx.cfg.insns[seq[3]!]!.text, 'v_mov_b32 v4, 4');
  assert.equal(k.tags[seq[3]!], 'v_mov_b32_3');
});

test('a round aborted by an invalid command is undone and reported', () => {
  const k = kernelOf(BASIC);
  // the register objective: the rounds below are judged on what they change there
  const sess = new ScheduleSession(k, { exact: false, objective: CONDUCTOR_OBJECTIVE });
  const rounds = parseRoundsOrThrow(['move v_mov_b32_0 before ds_read_b64_0', 'move v_mov_b32_2 after v_mov_b32_0', 'swap v_add_f32_0 ds_read_b64_0', 'move v_mov_b32_0 after v_mov_b32_1'].join('\n'));
  const r = sess.applyRound(rounds[0]!);
  assert.equal(r.outcome, 'failed');
  assert.deepEqual(r.applied, ['move v_mov_b32_0 before ds_read_b64_0', 'move v_mov_b32_2 after v_mov_b32_0']);
  assert.equal(r.failed?.command, 'swap v_add_f32_0 ds_read_b64_0');
  assert.equal(r.failed?.kind, 'raw');
  assert.deepEqual(sess.state.changedRegions(), []);
  assert.deepEqual(order(sess.state), ['ds_read_b64_0', 'v_mov_b32_0', 'v_add_f32_0', 'v_mov_b32_1', 'v_mov_b32_2', 'v_mov_b32_3']);
  // a later valid round applies
  const ok = sess.applyRound(parseRoundsOrThrow('move v_mov_b32_0 before ds_read_b64_0')[0]!);
  assert.equal(ok.outcome, 'accepted');
  assert.equal(order(sess.state)[0], 'v_mov_b32_0');
});

test('a round that makes the objective worse is reverted', () => {
  // moving the load of v5 away from ... : s_waitcnt count rises when a use is split from its wait
  const k = kernelOf([
    'global_load_dword v1, v[2:3], off',
    'global_load_dword v4, v[2:3], off offset:4',
    'v_mov_b32 v10, 0',
    'v_mov_b32 v11, 0',
    's_waitcnt vmcnt(0)',
    'v_add_u32 v5, v1, v4',
    'v_add_u32 v6, v1, v1',
    's_endpgm',
  ]);
  const sess = new ScheduleSession(k, { exact: false, objective: ['s_waitcnt'] });
  const r = sess.applyRound(parseRoundsOrThrow('move v_add_u32_1 before v_mov_b32_0')[0]!);
  assert.equal(r.outcome, 'worse');
  assert.match(r.reason!, /s_waitcnt 1 -> 2/);
  assert.deepEqual(sess.state.changedRegions(), []);
});

test('warnings: load moved later, address far from its only use, adjacent MFMA chain, occupancy drop', () => {
  const filler = Array.from({ length: 20 }, (_, i) => `v_mov_b32 v${40 + i}, ${i}`);
  // load later
  let k = kernelOf(['global_load_dword v1, v[2:3], off', 'v_mov_b32 v10, 0', 'v_mov_b32 v11, 0', 'v_mov_b32 v12, 0', 's_waitcnt vmcnt(0)', 'v_add_u32 v5, v1, v1', 's_endpgm']);
  let sess = new ScheduleSession(k, { exact: false, objective: ['peak_sgpr'] });
  let r = sess.applyRound([cmd('move global_load_dword_0 after v_mov_b32_2')]);
  assert.equal(r.outcome, 'accepted');
  assert.deepEqual(r.warnings.map((w) => [w.kind, w.severity]), [['load-later', 'warn']]);
  assert.match(r.warnings[0]!.message, /global_load_dword_0 moved 3 later: its result is used 1 instruction after it/);
  sess = new ScheduleSession(k, { exact: false, objective: ['peak_sgpr'] });
  r = sess.applyRound([cmd('move global_load_dword_0 after v_mov_b32_0')]);
  assert.deepEqual(r.warnings.map((w) => [w.kind, w.severity]), [['load-later', 'info']]);
  // address far from its only use
  k = kernelOf(['v_add_u32 v2, 4, v0', ...filler, 'global_load_dword v3, v2, s[0:1]', 's_waitcnt vmcnt(0)', 'v_mov_b32 v9, v3', 's_endpgm']);
  sess = new ScheduleSession(k, { exact: false, objective: ['peak_sgpr'] });
  r = sess.applyRound([cmd('move global_load_dword_0 after v_mov_b32_19')]);
  assert.deepEqual(r.warnings.filter((w) => w.kind === 'address-far').length, 0);
  k = kernelOf([...filler, 'v_add_u32 v2, 4, v0', 'global_load_dword v3, v2, s[0:1]', 's_waitcnt vmcnt(0)', 'v_mov_b32 v9, v3', 's_endpgm']);
  sess = new ScheduleSession(k, { exact: false, objective: ['peak_sgpr'] });
  r = sess.applyRound([cmd('move v_add_u32_0 before v_mov_b32_0')]);
  const far = r.warnings.find((w) => w.kind === 'address-far');
  assert.equal(far?.severity, 'warn');
  assert.match(far!.message, /v_add_u32_0 computes the address of global_load_dword_0, its only use, now 21 instructions away \(was 1\)/);
  // MFMA chain made adjacent
  k = kernelOf([
    'v_mfma_f32_16x16x16f16 a[0:3], v[0:1], v[2:3], a[0:3]',
    'v_mov_b32 v10, 0', 'v_mov_b32 v11, 0',
    'v_mfma_f32_16x16x16f16 a[0:3], v[4:5], v[6:7], a[0:3]',
    's_nop 7', 's_nop 7',
    's_endpgm',
  ]);
  sess = new ScheduleSession(k, { exact: false, objective: ['peak_sgpr'] });
  r = sess.applyRound([cmd('move v_mov_b32_0 after v_mfma_f32_16x16x16f16_1'), cmd('move v_mov_b32_1 after v_mfma_f32_16x16x16f16_1')]);
  const chain = r.warnings.find((w) => w.kind === 'mfma-chain-adjacent');
  assert.equal(chain?.severity, 'warn');
  assert.match(chain!.message, /v_mfma_f32_16x16x16f16_1 now follows v_mfma_f32_16x16x16f16_0 directly and reads its result/);
  // occupancy drop: 64 live VGPRs -> 65 crosses the 8-wave breakpoint on gfx90a
  const defs = Array.from({ length: 63 }, (_, i) => `v_mov_b32 v${i + 1}, ${i}`);
  const uses = Array.from({ length: 62 }, (_, i) => `ds_write_b32 v0, v${i + 2}`);
  k = kernelOf([...defs, 'ds_write_b32 v0, v1', 'v_mov_b32 v100, 5', 'ds_write_b32 v0, v100', ...uses, 's_endpgm']);
  sess = new ScheduleSession(k, { exact: false, objective: ['s_nop'] });
  assert.equal(sess.metrics.peak_vgpr, 64);
  assert.equal(sess.metrics.occupancy, 8);
  r = sess.applyRound([cmd('move v_mov_b32_63 before ds_write_b32_0')]);
  const occ = r.warnings.find((w) => w.kind === 'occupancy-drop');
  assert.equal(occ?.severity, 'critical');
  assert.match(occ!.message, /peak VGPR 64 -> 65 crosses an occupancy breakpoint: 8 -> 7 waves per SIMD/);
});
