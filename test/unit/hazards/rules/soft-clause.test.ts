/** xnack-soft-clause: an error with xnack+, a warning with XNACK unspecified, nothing with xnack-. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type Case } from '../harness.js';

const R = 'xnack-soft-clause';
const SMEM = 's_load_dwordx2 s[0:1], s[0:1], 0x0\ns_load_dwordx2 s[2:3], s[0:1], 0x8';
const CASES: Case[] = [
  { name: 'SMEM clause reads what it writes (xnack+)', arch: 'gfx942', rule: R, required: 1, actual: 0, xnack: '+', asm: SMEM },
  { name: 'XNACK unspecified: warning', arch: 'gfx90a', rule: R, required: 1, actual: 0, severity: 'warning', asm: SMEM },
  { name: 'xnack-: no clause hazard', arch: 'gfx90a', rule: R, xnack: '-', asm: SMEM },
  { name: 'a store joins a VMEM clause that writes', arch: 'gfx906', rule: R, required: 1, actual: 0, xnack: '+',
    asm: 'global_load_dword v0, v[2:3], off\nglobal_store_dword v[4:5], v6, off' },
  { name: 'independent loads', arch: 'gfx906', rule: R, xnack: '+',
    asm: 'global_load_dword v0, v[2:3], off\nglobal_load_dword v1, v[4:5], off' },
  { name: 'an s_nop breaks the clause', arch: 'gfx942', rule: R, xnack: '+',
    asm: 's_load_dwordx2 s[0:1], s[0:1], 0x0\ns_nop 0\ns_load_dwordx2 s[2:3], s[0:1], 0x8' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});

it('the warning says why and how to make it an error or silence it; the error does not', async () => {
  const { checkLoaded } = await import('../../../../src/check/check.js');
  const { loadText } = await import('../../../../src/load.js');
  const msg = (arch: string) => checkLoaded(loadText(`${SMEM}\n`, 's.s', { arch })).findings.find((f) => f.rule === R)?.message ?? '';
  assert.match(msg('gfx90a'), /\(the target id leaves XNACK unspecified: an error with gfx90a:xnack\+, nothing with gfx90a:xnack- \(--arch or \.amdgcn_target\)\)$/);
  assert.doesNotMatch(msg('gfx90a:xnack+'), /unspecified/);
});

it('padding that splits a clause re-checks the clause it starts: an s_nop before each of two chained breaks', async () => {
  // reduced from clang-22 gfx908 spill code (Conductor's schedule left the second break out):
  // the store and the load writing v[0:1] need a break, and then the load writing v12 (read as an
  // address by the load before it, which now starts a clause) needs one too (LLVM checkSoftClauseHazards)
  const { context } = await import('../harness.js');
  const { computeNops, checkWithPadding } = await import('../../../../src/hazards/index.js');
  const ctx = context('gfx908', `buffer_store_dword v0, off, s[16:19], 0 offset:372
global_load_dwordx2 v[9:10], v[11:12], off
global_load_dwordx2 v[0:1], v[11:12], off offset:512
buffer_load_dword v12, off, s[16:19], 0 offset:144`, '+');
  const plan = computeNops(ctx);
  assert.deepEqual(plan.sites.map((s) => [s.insn, s.waitStates]), [[2, 1], [3, 1]]);
  assert.deepEqual(checkWithPadding(ctx, plan.pads).map((f) => f.message), []);
  // and the check itself: a nop before the third leaves the fourth in a two-instruction clause
  const { findings } = await import('../harness.js');
  const fs = findings('gfx908', `global_load_dwordx2 v[9:10], v[11:12], off
s_nop 0
global_load_dwordx2 v[0:1], v[11:12], off offset:512
buffer_load_dword v12, off, s[16:19], 0 offset:144`, '+').filter((f) => f.rule === R);
  assert.equal(fs.length, 1);
});

it('the message names the clause instructions that conflict, also a reader far back in a long clause', async () => {
  // reduced from clang-22 gfx942:xnack+ spill code: stores, then reloads; the third load overwrites
  // v[8:9] that the first store (five memory instructions back) reads
  const { findings } = await import('../harness.js');
  const fs = findings('gfx942', `global_store_dwordx4 v0, v[6:9], s[0:1]
global_store_dwordx4 v0, v[10:13], s[0:1] offset:16
global_store_dwordx4 v0, v[14:17], s[0:1] offset:32
scratch_load_dwordx4 v[20:23], off, off
scratch_load_dwordx4 v[24:27], off, off offset:16
scratch_load_dwordx4 v[8:11], off, off offset:32
global_load_dwordx2 v[30:31], v[30:31], off`, '+').filter((f) => f.rule === R);
  const at = (n: number) => n + (fs[0]?.loc.line ?? 6) - 6; // the harness's lines before the snippet
  assert.deepEqual(fs.map((f) => [f.loc.line, f.message.replace(/: 1 wait state.*/, '')]), [
    [at(6), `scratch_load_dwordx4 joins a soft clause that writes and reads v[8:11], after scratch_load_dwordx4 at line ${at(5)} `
      + `(v8 read by global_store_dwordx4 at line ${at(1)}, written by itself)`],
    [at(7), `global_load_dwordx2 joins a soft clause that writes and reads v[8:11], v[30:31], after scratch_load_dwordx4 at line ${at(6)} `
      + '(v30 read and written by itself)'],
  ]);
});

it('a clause runs on through a label into the block the one before falls through to; a branch or an s_nop after the label ends it', async () => {
  // reduced from clang-22 gfx942 code of vLLM's paged attention (mfma4 kernel): a block ends with an
  // s_load whose address pair the s_load after the next label overwrites; LLVM pads the second
  // (its PostRAHazardRecognizer keeps the emitted instructions across blocks), Conductor's check
  // saw nothing and schedule dropped LLVM's s_nop
  const { findings } = await import('../harness.js');
  const run = (asm: string) => findings('gfx942', asm, '+').filter((f) => f.rule === R);
  const body = (between: string) => `s_cmp_eq_u32 s2, 0
s_cbranch_scc1 .LBB0_2
s_load_dword s28, s[8:9], 0x0
.LBB0_2:
${between}s_load_dwordx4 s[8:11], s[0:1], 0x48
s_waitcnt lgkmcnt(0)
s_endpgm`;
  const fs = run(body(''));
  assert.equal(fs.length, 1);
  assert.match(fs[0]!.message, /s_load_dwordx4 joins a soft clause that writes and reads s\[8:9\], after s_load_dword at line \d+ \(s8 read by s_load_dword/);
  assert.equal(run(body('s_nop 0\n')).length, 0);
  // the block before ends with a branch: not a memory instruction, no clause
  assert.equal(run(`s_load_dword s28, s[8:9], 0x0
s_branch .LBB0_2
.LBB0_2:
s_load_dwordx4 s[8:11], s[0:1], 0x48
s_waitcnt lgkmcnt(0)
s_endpgm`).length, 0);
});
