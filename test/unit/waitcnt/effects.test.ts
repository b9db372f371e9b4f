/**
 * The waitcnt analysis' view of each instruction (kernelEffects), where instructions that issue
 * and wait for nothing share one object per combination of facts: every instruction's effects
 * agree with its own traits and registers, so no two instructions with different facts share.
 * And statementAt, which reads one statement without building the program's statement list,
 * gives what the list gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import { parseProgram } from '../../../src/asm/parser.js';
import { statementAt } from '../../../src/asm/program.js';
import { EXEC_HI, EXEC_LO } from '../../../src/asm/registers.js';
import { EVENT, TRAIT, has, isClass, issues, traitsOf } from '../../../src/isa/traits.js';
import { INSN_KIND, kernelEffects } from '../../../src/waitcnt/model.js';
import { root } from '../../repo.js';

const EXAMPLE = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

/** Loads (d16 and plain, buffer and global), LDS, SMEM, cache ops, EXEC writes, branches, a call and a subroutine call, waits, nops. */
const SNIPPET = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
  '.text',
  '.globl k', '.type k,@function', 'k:',
  's_load_dwordx2 s[4:5], s[0:1], 0x0',
  'buffer_load_dword v1, v0, s[8:11], 0 offen',
  'buffer_load_short_d16 v2, v0, s[8:11], 0 offen',
  'global_load_dword v3, v[4:5], off',
  'flat_load_dword v6, v[4:5]',
  'ds_read_b32 v7, v8',
  'buffer_wbl2',
  'buffer_inv sc1',
  's_mov_b64 exec, -1',
  'v_cmpx_eq_u32 vcc, v1, v2',
  's_nop 3',
  's_waitcnt vmcnt(0) lgkmcnt(0)',
  'v_add_u32 v9, v1, v2',
  'v_mov_b32 v10, v9',
  's_barrier',
  's_cbranch_scc1 .Lnext',
  'v_add_u32 v9, v9, v9',
  '.Lnext:',
  's_getpc_b64 s[12:13]',
  's_swappc_b64 s[30:31], s[14:15]',
  's_getpc_b64 s[16:17]',
  's_add_u32 s16, s16, .Lend+4',
  's_addc_u32 s17, s17, 0',
  's_swappc_b64 s[30:31], s[16:17]',
  's_branch .Lend',
  '.Lend:',
  's_endpgm',
].join('\n') + '\n';

for (const [name, text] of [['example', EXAMPLE], ['snippet', SNIPPET]] as const) {
  test(`${name}: each instruction's effects are its own, shared or not`, () => {
    for (const ctx of kernelContextsFromText(text, `${name}.s`, 'gfx942')) {
      const fx = kernelEffects(ctx);
      const t = traitsOf(ctx.insns);
      assert.equal(fx.length, ctx.insns.length);
      let shared = 0;
      const seen = new Set<object>();
      for (let i = 0; i < fx.length; i++) {
        const f = fx[i]!;
        const r = ctx.insns[i]!;
        const at = `${name}:${r.insn.loc.line} ${r.insn.text}`;
        if (seen.has(f)) shared++;
        seen.add(f);
        const vmemLoad = has(t, i, TRAIT.vmemLoad);
        assert.equal(f.vmemLoad, vmemLoad, at);
        assert.equal(f.d16Load, vmemLoad && has(t, i, TRAIT.d16), at);
        assert.equal(f.cacheOp, has(t, i, TRAIT.cacheOp), at);
        assert.equal(f.lds, issues(t, i, EVENT.lds | EVENT.flat), at);
        assert.equal(f.writesExec, r.defs.includes(EXEC_LO) || r.defs.includes(EXEC_HI), at);
        assert.equal(f.issues.length > 0, t.events[i] !== 0, at);
        assert.equal(f.kind === INSN_KIND.wait, isClass(t, i, 'waitcnt'), at);
        assert.equal(f.wait !== undefined, f.kind === INSN_KIND.wait, at);
        if (f.kind !== INSN_KIND.wait) {
          assert.equal(f.kind === INSN_KIND.barrier, isClass(t, i, 'barrier'), at);
          assert.equal(f.kind === INSN_KIND.nop, isClass(t, i, 'nop'), at);
          assert.equal(f.kind === INSN_KIND.end, isClass(t, i, 'endpgm'), at);
          assert.equal(f.kind === INSN_KIND.call, ctx.cfg.control[i] === 'call', at);
          assert.equal(f.callWaits && f.kind !== INSN_KIND.call, false, at);
        }
        const control = ctx.cfg.control[i];
        const orders = f.issues.length > 0 || f.cacheOp || f.kind === INSN_KIND.barrier || f.kind === INSN_KIND.call || f.kind === INSN_KIND.return
          || control === 'jump' || control === 'cjump' || control === 'indirect';
        assert.equal(f.ordersMemory, orders, at);
      }
      if (name === 'example') assert.ok(shared > 0, 'plain ALU instructions share their effects');
      if (name === 'snippet') {
        const calls = fx.filter((f) => f.kind === INSN_KIND.call).map((f) => f.callWaits);
        assert.deepEqual(calls, [true, false], 'a call by the ABI, then one into the kernel');
      }
    }
  });

  test(`${name}: statementAt gives each statement of the list`, () => {
    const p = parseProgram(text, `${name}.s`);
    const n = p.statementCount;
    const one = Array.from({ length: n }, (_, k) => statementAt(p, k)!);
    const list = p.statements;
    assert.equal(list.length, n);
    for (let k = 0; k < n; k++) {
      const a = one[k]!;
      const b = list[k]!;
      for (const key of ['kind', 'text', 'name', 'args', 'lineIndex', 'blockEnd'] as const) assert.equal(a[key], b[key], `${k} ${key}`);
      assert.deepEqual(a.loc, b.loc, `${k} loc`);
      assert.deepEqual(a.expansion, b.expansion, `${k} expansion`);
      assert.equal(a.insn, b.insn, `${k} insn`);
      // once the list is built, statementAt reads it
      assert.equal(statementAt(p, k), b);
    }
    assert.equal(statementAt(p, n), undefined);
  });
}
