/**
 * Waitcnt across control flow: loops (back-edges), joins (pessimistic merge), which paths a
 * wait falls short on (every path, or the straight path from its producer: error; some paths:
 * warning naming one), correlated branches,
 * s_barrier (full wait on targets without back-off barrier), calls, returns and function entry.
 * Sources: LLVM SIInsertWaitcnts (CFG merge to a fixed point; barriers, program end, calls,
 * function entry); targets' 'back-off-barrier' feature (oracle probe).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, ctxOf, pathShape, summary } from './helpers.js';
import { checkWaitcnt, minimalWaits, rederiveWaits } from '../../../src/waitcnt/index.js';
import { kernelContextsFromText } from '../../../src/analysis/context.js';

test('loop: a load at the bottom used at the top through the back-edge', () => {
  const lines = [
    's_mov_b32 s4, 0',
    'loop_top:',
    'v_add_f32 v0, v1, v0',
    'global_load_dword v1, v[2:3], off',
    'global_load_dword v5, v[2:3], off',
    's_add_u32 s4, s4, 1',
    's_cmp_lt_u32 s4, 10',
    's_cbranch_scc1 loop_top',
    's_endpgm',
  ];
  assert.deepEqual(summary(check(lines)), ['3 waitcnt-missing vmcnt=1']);
  // short through the back-edge only (not on the loop entry): a warning naming that edge
  const [f] = check(lines);
  assert.equal(pathShape(f!), 'warning 3 [8: on that path s_cbranch_scc1 branches (back to the loop head)]');
  assert.match(f!.message, /falls short only on some paths into it \(one of them goes through the branch noted\); an error with --paths all$/);
  assert.deepEqual(checkWaitcnt(ctxOf(lines), { paths: 'all' }).map(pathShape), ['error 3 []'], '--paths all: every shortfall an error');
  // the wait inside the loop covers it; the loop reaches a fixed point
  assert.deepEqual(check([
    's_mov_b32 s4, 0',
    'loop_top:',
    's_waitcnt vmcnt(1)',
    'v_add_f32 v0, v1, v0',
    'global_load_dword v1, v[2:3], off',
    'global_load_dword v5, v[2:3], off',
    's_add_u32 s4, s4, 1',
    's_cmp_lt_u32 s4, 10',
    's_cbranch_scc1 loop_top',
    's_endpgm',
  ]), []);
});

test('loop: a load before the loop, used inside it', () => {
  const fs = check([
    'global_load_dword v1, v[2:3], off',
    's_mov_b32 s4, 0',
    'loop_top:',
    'v_add_f32 v0, v1, v0',
    'global_store_dword v[2:3], v0, off',
    's_add_u32 s4, s4, 1',
    's_cmp_lt_u32 s4, 10',
    's_cbranch_scc1 loop_top',
    's_endpgm',
  ]);
  assert.deepEqual(summary(fs), ['4 waitcnt-missing vmcnt=0']);
  assert.equal(pathShape(fs[0]!), 'error 4 []', 'no wait anywhere: short on the entry and on the back-edge');
});

test('join: the pessimistic merge of the predecessors', () => {
  // one side loads two more: the other side (fewer younger loads) decides the value
  const lines = [
    'global_load_dword v1, v[2:3], off',
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 other',
    'global_load_dword v5, v[2:3], off',
    'global_load_dword v6, v[2:3], off',
    's_branch join',
    'other:',
    'global_load_dword v7, v[2:3], off',
    'join:',
    'v_mov_b32 v0, v1',
  ];
  assert.deepEqual(summary(check(lines)), ['10 waitcnt-missing vmcnt=1']);
  assert.equal(pathShape(check(lines)[0]!), 'error 10 []', 'no wait: short on both sides');
  // with vmcnt(2) only the side with fewer younger loads falls short: that side is named
  const waited = check([...lines.slice(0, 9), 's_waitcnt vmcnt(2)', lines[9]!]);
  assert.deepEqual(waited.map(pathShape), ['warning 11 [3: on that path s_cbranch_scc1 branches]']);
  assert.match(waited[0]!.message, /needs vmcnt\(1\), present: vmcnt\(2\)/);
  // a load on one side only is still outstanding at the join
  const oneSide = [
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 join',
    'ds_read_b32 v1, v0',
    'join:',
    'v_mov_b32 v2, v1',
  ];
  assert.deepEqual(summary(check(oneSide)), ['5 waitcnt-missing lgkmcnt=0']);
  // the path that skips the load has nothing outstanding, but the load falls through to the read
  // with no branch between them: short every time the load runs, an error (the guarded load of
  // `if (i < n) v = in[i];` with its wait missing)
  assert.deepEqual(check(oneSide).map(pathShape), ['error 5 []']);
  assert.match(check(oneSide)[0]!.message, /no conditional branch lies between them, so it falls short every time the ds_read_b32 runs$/);
  // the same through an unconditional jump into a block of its own
  assert.deepEqual(check([
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 join',
    'ds_read_b32 v1, v0',
    's_branch use',
    'join:',
    's_nop 0',
    'use:',
    'v_mov_b32 v2, v1',
  ]).map(pathShape), ['error 8 []']);
  // a conditional branch between the load and the read: the short path may be one no run takes
  assert.deepEqual(check([
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 join',
    'ds_read_b32 v1, v0',
    's_cmp_eq_u32 s5, 0',
    's_cbranch_scc1 join',
    's_waitcnt lgkmcnt(0)',
    'join:',
    'v_mov_b32 v2, v1',
  ]).map(pathShape), ['warning 8 [2: on that path s_cbranch_scc1 falls through; 5: on that path s_cbranch_scc1 branches]']);
  // the minimal waits (what the scheduler re-derives) still cover every path
  assert.deepEqual(minimalWaits(ctxOf(oneSide)), [{ before: 3, lgkmcnt: 0 }]);
  // waited for on one side only
  assert.deepEqual(summary(check([
    'ds_read_b32 v1, v0',
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 join',
    's_waitcnt lgkmcnt(0)',
    'join:',
    'v_mov_b32 v2, v1',
  ])), ['6 waitcnt-missing lgkmcnt=0']);
});

test('correlated branches: a second branch on the same unchanged comparison goes the same way', () => {
  const body = (mid: string[]) => [
    's_cmp_eq_u32 s4, 0',
    's_cbranch_scc1 skip', // s4 == 0: no load
    'global_load_dword v1, v[2:3], off',
    'skip:',
    ...mid,
    's_cbranch_scc0 waited', // s4 != 0: the path with the load
    'v_mov_b32 v0, v1', // only when s4 == 0: nothing is pending
    's_endpgm',
    'waited:',
    's_waitcnt vmcnt(0)',
    'v_mov_b32 v0, v1',
    's_endpgm',
  ];
  assert.deepEqual(check(body(['s_cmp_eq_u32 s4, 0'])), []);
  // the same test written as its negation (lg with the opposite branch sense)
  assert.deepEqual(check(body(['s_cmp_lg_u32 s4, 0', 's_cmp_lg_u32 s4, 0', 's_nop 0']).map((l) => l === 's_cbranch_scc0 waited' ? 's_cbranch_scc1 waited' : l)), []);
  // s4 written in between: the comparison may differ, the path with the load reaches the read
  assert.deepEqual(summary(check(body(['s_add_u32 s4, s4, 1', 's_cmp_eq_u32 s4, 0']))), ['8 waitcnt-missing vmcnt=0']);
});

test('s_barrier: LLVM\'s full wait on gfx906/gfx908 (no back-off barrier) is a warning, never inserted; none on gfx90a+', () => {
  const lines = [
    'global_store_dword v[2:3], v1, off',
    'ds_write_b32 v0, v1',
    's_barrier',
  ];
  for (const arch of ['gfx906', 'gfx908']) {
    const fs = check(lines, arch);
    // one wait fixes the fence: one finding naming both counters
    assert.deepEqual(summary(fs), ['3 waitcnt-fence vmcnt=0 lgkmcnt=0'], arch);
    assert.match(fs[0]!.message, /outstanding on vmcnt and lgkmcnt: .*: needs vmcnt\(0\) lgkmcnt\(0\), present: 1 vmcnt operation issued \(global_store_dword at line \d+\) and no vmcnt wait after it; 1 lgkmcnt operation issued \(ds_write_b32 at line \d+\) and no lgkmcnt wait after it$/);
    // a full wait, then loads: the message leads with the loads in flight, then the wait they follow
    // (led by the wait, it read "needs vmcnt(0), present: vmcnt(0) ...")
    const after = check(['global_load_dword v1, v[2:3], off', 's_waitcnt vmcnt(0)', 'global_load_dword v4, v[2:3], off', 'v_mov_b32 v5, 0', 'global_load_dword v6, v[2:3], off', 's_barrier'], arch)
      .filter((f) => f.rule === 'waitcnt-fence');
    assert.equal(after.length, 1, arch);
    assert.match(after[0]!.message, /needs vmcnt\(0\), present: 2 vmcnt operations issued \(global_load_dword at line 3 \.\. global_load_dword at line 5\) after the last vmcnt wait, vmcnt\(0\) at line 2 \(allows 0 outstanding\)$/);
    assert.match(fs[0]!.message, /no back-off barrier/);
    assert.match(fs[0]!.source!, /^LLVM SIInsertWaitcnts \(s_barrier: without FeatureBackOffBarrier/);
    assert.equal(fs[0]!.severity, 'warning', 'a policy for memory exceptions, not a data dependency');
    assert.deepEqual(check(['global_store_dword v[2:3], v1, off', 'ds_write_b32 v0, v1', 's_waitcnt vmcnt(0) lgkmcnt(0)', 's_barrier'], arch), []);
    assert.deepEqual(minimalWaits(ctxOf(lines, arch)), [], 'the fix and the scheduler do not add it');
    // the load stays outstanding across the barrier: its reader after it needs the wait
    const prefetch = ['global_load_dword v5, v[2:3], off', 's_barrier', 'v_mov_b32 v6, v5'];
    assert.deepEqual(minimalWaits(ctxOf(prefetch, arch)), [{ before: 2, vmcnt: 0 }]);
    assert.deepEqual(summary(check(prefetch, arch).filter((f) => f.severity === 'error')), ['3 waitcnt-missing vmcnt=0']);
  }
  for (const arch of ['gfx90a', 'gfx942', 'gfx950']) assert.deepEqual(check(lines, arch), [], arch);
});

test('a call: its own operands are checked, afterwards every counter is zero', () => {
  assert.deepEqual(summary(check([
    's_load_dwordx2 s[16:17], s[0:1], 0x0',
    'global_load_dword v1, v[2:3], off',
    's_swappc_b64 s[30:31], s[16:17]',
    'v_mov_b32 v0, v1',
  ])), ['3 waitcnt-missing lgkmcnt=0']);
});

test('a call of a function (calling convention) clears the counters; a subroutine of the kernel does not', () => {
  // the callee names a function symbol: it waits at entry and before it returns
  const abi = kernelContextsFromText([
    's_getpc_b64 s[4:5]',
    's_add_u32 s4, s4, f@rel32@lo+4',
    's_addc_u32 s5, s5, f@rel32@hi+12',
    'global_load_dword v1, v[2:3], off',
    's_swappc_b64 s[30:31], s[4:5]',
    'v_mov_b32 v0, v1',
    's_endpgm',
    '.text', '.globl f', '.type f,@function', 'f:',
    '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)',
    '  s_setpc_b64 s[30:31]',
  ].join('\n') + '\n', 'snippet.s', 'gfx942');
  assert.equal(abi.length, 2);
  assert.deepEqual(abi.flatMap((c) => summary(checkWaitcnt(c))), []);
  // a function defined elsewhere (clang's external call: the symbol is in no label of the file)
  assert.deepEqual(summary(check([
    's_load_dword s36, s[4:5], 0x28',
    's_getpc_b64 s[18:19]',
    's_add_u32 s18, s18, callee@rel32@lo+4',
    's_addc_u32 s19, s19, callee@rel32@hi+12',
    's_swappc_b64 s[30:31], s[18:19]',
    's_cmp_lt_i32 s36, 1',
    's_endpgm',
  ])), []);
  // the target is s_getpc_b64 plus a label of the kernel (Tensile's activation routines): the
  // routine keeps the caller's counters, so the load is still outstanding after the call
  assert.deepEqual(summary(check([
    's_getpc_b64 s[4:5]',
    's_add_i32 s8, sub_label, 0x4',
    's_add_u32 s4, s4, s8',
    's_addc_u32 s5, s5, 0',
    'global_load_dword v1, v[2:3], off',
    's_swappc_b64 s[30:31], s[4:5]',
    'v_mov_b32 v0, v1',
    's_endpgm',
    'sub_label:',
    'v_mov_b32 v9, 0',
    's_setpc_b64 s[30:31]',
  ])), ['7 waitcnt-missing vmcnt=0']);
});

test('a callable function: full wait at entry and before the return', () => {
  const head = ['.text', '.globl f', '.type f,@function', 'f:'];
  const fs = check([...head, '  v_mov_b32 v0, v1', '  global_load_dword v1, v[2:3], off', '  s_setpc_b64 s[30:31]']);
  assert.deepEqual(summary(fs), ['5 waitcnt-fence vmcnt=0 lgkmcnt=0 expcnt=0', '7 waitcnt-fence vmcnt=0']);
  assert.match(fs[0]!.message, /first instruction of function f: .* outstanding on vmcnt, lgkmcnt and expcnt: needs vmcnt\(0\) lgkmcnt\(0\) expcnt\(0\)/);
  assert.match(fs[1]!.message, /returns with memory operations outstanding/);
  // as LLVM writes it: clean, and the two waits are fences
  assert.deepEqual(check([...head, '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', '  v_mov_b32 v0, v1',
    '  global_load_dword v1, v[2:3], off', '  s_waitcnt vmcnt(0)', '  s_setpc_b64 s[30:31]']), []);
});

test('a tail call (s_setpc_b64 of a function\'s address, a call between leaving the pair alone) is a call, not a return: the callee waits', () => {
  // llc's ipra test (a new user's trial): the sibling call's target was set up before an earlier call
  const body = (to: string) => check(['.text', '.globl f', '.type f,@function', 'f:',
    '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)',
    '  s_getpc_b64 s[16:17]', '  s_add_u32 s16, s16, g@rel32@lo+4', '  s_addc_u32 s17, s17, g@rel32@hi+12',
    '  s_mov_b64 s[30:31], 0', '  s_swappc_b64 s[30:31], s[16:17]',
    '  scratch_load_dword v40, off, s33', `  s_setpc_b64 ${to}`]);
  assert.deepEqual(summary(body('s[16:17]')), []);
  // the return address the ABI passes: a return, which waits for everything
  assert.deepEqual(summary(body('s[30:31]')), ['12 waitcnt-fence vmcnt=0']);
});

test('a return after stores issued past vmcnt(0) on two paths: the message leads with the stores, then the waits they follow', () => {
  const fs = check(['.text', '.globl f', '.type f,@function', 'f:', // 1-4
    '  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)', // 5
    '  global_store_dword v[0:1], v2, off', // 6
    '  v_cmp_eq_u32 vcc, 0, v3', // 7
    '  s_and_saveexec_b64 s[4:5], vcc', // 8
    '  s_cbranch_execz .L2', // 9
    '  global_store_dword v[0:1], v4, off', // 10
    '  s_waitcnt vmcnt(0)', // 11
    '  global_store_dword v[0:1], v5, off', // 12
    '.L2:', // 13
    '  s_or_b64 exec, exec, s[4:5]', // 14
    '  s_setpc_b64 s[30:31]']); // 15
  assert.deepEqual(summary(fs), ['15 waitcnt-fence vmcnt=0']);
  assert.match(fs[0]!.message, /needs vmcnt\(0\), present: 2 vmcnt operations issued \(global_store_dword at line 6 \.\. global_store_dword at line 12\) after the last vmcnt wait, vmcnt\(0\) at line 5 \(allows 0 outstanding\) or vmcnt\(0\) at line 11 \(allows 0 outstanding\), depending on the path$/);
});

test('rederiveWaits: strip the dependency waits, keep fences, derive the waits again', () => {
  const ctx = ctxOf([
    'global_load_dword v1, v[2:3], off',
    'global_load_dword v4, v[2:3], off',
    's_waitcnt vmcnt(0)', // too strong: vmcnt(1) is enough
    'v_mov_b32 v0, v1',
    'ds_write_b32 v0, v4',
    's_waitcnt lgkmcnt(0)', // fence (before the barrier)
    's_barrier',
    'v_mov_b32 v0, v4',
  ]);
  // the barrier fence stays; v4 is still pending after the stripped vmcnt(0) until the fence
  // (which waits lgkmcnt only), so its read needs a wait of its own
  assert.deepEqual(rederiveWaits(ctx), [{ before: 3, vmcnt: 1 }, { before: 4, vmcnt: 0 }]);
});

test('code before the first function starts with nothing outstanding, even when its first line is a label', () => {
  for (const first of ['k:', '.L0:']) {
    assert.deepEqual(summary(check([first, 'v_add_u32 v0, v0, v1', 's_endpgm'])), [], first);
  }
  // a label that `.type @function` names is a callable function: the caller's operations may be outstanding
  const fn = kernelContextsFromText(['.type k,@function', 'k:', 'v_add_u32 v0, v0, v1', 's_setpc_b64 s[30:31]'].join('\n') + '\n', 'snippet.s', 'gfx942');
  assert.deepEqual(fn.flatMap((c) => summary(checkWaitcnt(c))), ['3 waitcnt-fence vmcnt=0 lgkmcnt=0 expcnt=0']);
});

test('s_trap falls through: the trap handler may return to the next instruction (llvm.debugtrap\'s s_trap 3), so what follows is checked', () => {
  // llc 22 waits after `s_trap 3` for a load before it; without that wait the read is an error
  assert.deepEqual(summary(check(['ds_read_b32 v1, v9', 's_trap 3', 'v_add_f32 v2, v1, v1'])), ['3 waitcnt-missing lgkmcnt=0']);
  assert.deepEqual(check(['ds_read_b32 v1, v9', 's_trap 3', 's_waitcnt lgkmcnt(0)', 'v_add_f32 v2, v1, v1']), []);
  // the handler's return (s_rfe_b64) leaves the program's flow
  const ctx = kernelContextsFromText(['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', '  s_trap 2', '  s_rfe_b64 s[0:1]', '  v_mov_b32 v0, 0', '  s_endpgm', ''].join('\n'), 't.s')[0]!;
  assert.deepEqual(ctx.cfg.blocks.map((b) => b.end - b.start), [2, 2], 's_trap stays inside the block; s_rfe_b64 ends it');
  assert.equal(ctx.cfg.blocks[0]!.exits, true);
});
