/**
 * `check --fix` says what it changed (count and lines, a wait strengthened in place included),
 * changes only what falls short on every path unless `--paths all`, and `check --paths`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { changeText, fixFactsCarried, fixLoaded, fixSummary, waitcntOnlyRounds } from '../../../src/check/fix.js';
import { lineHunks } from '../../../src/check/line-diff.js';
import { scheduleLoaded } from '../../../src/schedule/search/run.js';
import { verifyLoaded } from '../../../src/verify/verify.js';
import { checkContexts, checkLoaded } from '../../../src/check/check.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { bin } from '../../repo.js';

const dir = mkdtempSync(join(tmpdir(), 'conductor-fix-'));

const kernel = (body: string[]) => ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:', ...body.map((l) => (l.endsWith(':') ? l : `  ${l}`)), '  s_endpgm', ''].join('\n');

/** Two loads, a wait for one of them: too weak on every path (needs vmcnt(0)), written in place. */
const EVERY = kernel([
  'global_load_dword v1, v[2:3], off',
  'global_load_dword v4, v[2:3], off',
  's_waitcnt vmcnt(1)',
  'v_add_f32 v0, v4, v0',
  'v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[8:11]',
  'v_add_f32 v12, v9, v9',
]);
/**
 * The load is on one side of a branch only, and a second branch between it and the read skips
 * its wait (a path no run may take: the straight path from the load waits).
 */
const SOME = kernel([
  's_cmp_eq_u32 s4, 0',
  's_cbranch_scc1 .Ljoin',
  'ds_read_b32 v1, v0',
  's_cmp_eq_u32 s5, 0',
  's_cbranch_scc1 .Ljoin',
  's_waitcnt lgkmcnt(0)',
  '.Ljoin:',
  'v_mov_b32 v2, v1',
]);

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('check --fix reports what it changed', () => {
  it('a wait strengthened in place is counted and listed with its line; the nops too', () => {
    const carried = fixFactsCarried.kept;
    const r = fixLoaded(loadText(EVERY, 'k.s'));
    // each round after the first checks the kernel with the facts of the text before its edit of waits and nops
    assert.equal(fixFactsCarried.kept, carried + 2);
    assert.equal(r.insertedWaits, 0);
    assert.equal(r.strengthenedWaits, 1);
    assert.ok(r.insertedNops >= 1);
    const lines = r.changes.map(changeText);
    assert.equal(lines[0], 'line 6: s_waitcnt vmcnt(1) -> s_waitcnt vmcnt(0)');
    assert.match(lines[1]!, /^before line 9: \+ s_nop \d+$/);
    assert.match(fixSummary(r), /^inserted 1 s_nop \(\d+ wait states in all\), inserted 0 s_waitcnt, strengthened 1 s_waitcnt at 2 places in 2 rounds$/);
  });

  it('the fixed program it returns loaded is the fixed text loaded afresh; none when nothing changed', () => {
    const r = fixLoaded(loadText(EVERY, 'k.s'));
    assert.ok(r.loaded);
    const fresh = loadText(r.text, 'k.s', { arch: 'gfx942' });
    assert.equal(r.loaded.program.lines.map((l) => l.text + l.eol).join(''), r.text);
    assert.equal(r.loaded.target, fresh.target);
    assert.deepEqual(r.loaded.program.instructions.map((i) => [i.text, i.loc, i.stmt]), fresh.program.instructions.map((i) => [i.text, i.loc, i.stmt]));
    assert.deepEqual(r.loaded.resolved.map((x) => [x.defs, x.uses]), fresh.resolved.map((x) => [x.defs, x.uses]));
    assert.deepEqual(checkLoaded(r.loaded).kernels.map((k) => k.findings), checkLoaded(fresh).kernels.map((k) => k.findings));
    assert.equal(fixLoaded(loadText(SOME, 'k.s')).loaded, undefined);
  });

  it("the caller's checks of the input are the first round's: the same fix as checking again; a check that found nothing fixes nothing", () => {
    for (const [text, paths] of [[EVERY, undefined], [SOME, 'all'], [SOME, undefined]] as const) {
      const l = loadText(text, 'k.s');
      const opts = paths ? { paths } : {};
      const checks = checkContexts(kernelContexts(l), opts);
      const given = fixLoaded(l, { ...opts, checks });
      const own = fixLoaded(loadText(text, 'k.s'), opts);
      assert.equal(given.text, own.text);
      assert.deepEqual([given.rounds, given.changes, given.waitcntWarnings.map((f) => f.message)], [own.rounds, own.changes, own.waitcntWarnings.map((f) => f.message)]);
    }
    // the checks given are taken as they are (a check that found nothing: nothing to fix)
    const l = loadText(EVERY, 'k.s');
    const clean = checkContexts(kernelContexts(l), {}).map((k) => ({ ...k, findings: [] }));
    assert.deepEqual(fixLoaded(l, { checks: clean }).changes, []);
  });

  it('after a round whose errors were all missing waits, the next checks the waitcnt analysis alone, and finds what the whole check finds', () => {
    // SOME's wait short on some paths (a warning), a hazard warning (an s_nop 16 credited as one
    // wait state), and a read of a load with no wait at all (an error on every path)
    const text = kernel([
      ...['s_cmp_eq_u32 s4, 0', 's_cbranch_scc1 .Ljoin', 'ds_read_b32 v1, v0', 's_cmp_eq_u32 s5, 0', 's_cbranch_scc1 .Ljoin', 's_waitcnt lgkmcnt(0)', '.Ljoin:', 'v_mov_b32 v2, v1'],
      's_nop 16',
      'global_load_dword v20, v[2:3], off',
      'v_add_f32 v21, v20, v20',
    ]);
    const input = checkLoaded(loadText(text, 'k.s'));
    assert.deepEqual(input.findings.filter((f) => f.severity === 'error').map((f) => f.rule), ['waitcnt-missing']);
    assert.ok(input.findings.some((f) => f.rule === 'nop-immediate'), 'a warning of another checker');
    const before = waitcntOnlyRounds.count;
    const old = process.env['CONDUCTOR_CHECK_FAST'];
    process.env['CONDUCTOR_CHECK_FAST'] = '1';
    let r;
    try {
      r = fixLoaded(loadText(text, 'k.s'));
    } finally {
      if (old === undefined) delete process.env['CONDUCTOR_CHECK_FAST']; else process.env['CONDUCTOR_CHECK_FAST'] = old;
    }
    assert.equal(waitcntOnlyRounds.count, before + 1);
    assert.deepEqual(r.changes.map(changeText), ['before line 14: + s_waitcnt vmcnt(0)']);
    // what the whole check of the fixed text finds: no error, and the same waitcnt warnings
    const after = checkLoaded(loadText(r.text, 'k.s'));
    assert.equal(after.errors, 0);
    assert.deepEqual(r.waitcntWarnings.map((f) => f.message), after.findings.filter((f) => f.rule.startsWith('waitcnt-') && f.severity !== 'error').map((f) => f.message));
    assert.equal(r.waitcntWarnings.length, 1);
    assert.match(r.waitcntWarnings[0]!.message, /falls short only on some paths/);
    // a round with a hazard error among its errors is followed by a whole check
    const n = waitcntOnlyRounds.count;
    fixLoaded(loadText(EVERY, 'k.s'));
    assert.equal(waitcntOnlyRounds.count, n);
  });

  it('a wait short on some paths only is left as it is, unless paths all', () => {
    const none = fixLoaded(loadText(SOME, 'k.s'));
    assert.equal(none.text, SOME);
    assert.deepEqual(none.changes, []);
    const all = fixLoaded(loadText(SOME, 'k.s'), { paths: 'all' });
    assert.deepEqual(all.changes.map(changeText), ['before line 11: + s_waitcnt lgkmcnt(0)']);
    assert.equal(all.insertedWaits, 1);
  });

  it('the command prints the summary and every changed line', () => {
    const f = join(dir, 'every.s');
    writeFileSync(f, EVERY);
    const out = join(dir, 'every.fixed.s');
    const r = run('check', f, '--fix', '-o', out);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /fixed: inserted 1 s_nop .*strengthened 1 s_waitcnt at 2 places/);
    assert.match(r.out, /\n {2}line 6: s_waitcnt vmcnt\(1\) -> s_waitcnt vmcnt\(0\)\n/);
    assert.equal(run('check', out).code, 0);
  });
});

describe('check --paths', () => {
  it('every (default): a shortfall on some paths is a warning (exit 0); all: an error (exit 1)', () => {
    const f = join(dir, 'some.s');
    writeFileSync(f, SOME);
    const d = run('check', f);
    assert.equal(d.code, 0, d.out);
    assert.match(d.out, /warning: v_mov_b32 reads v1 .* falls short only on some paths .* \[waitcnt-missing\]/);
    assert.match(d.out, /some\.s:5:3: note: on that path s_cbranch_scc1 falls through/);
    const a = run('check', f, '--paths', 'all');
    assert.equal(a.code, 1);
    assert.match(a.out, /error: v_mov_b32 reads v1 .*needs lgkmcnt\(0\), present: lgkmcnt\(0\) at line 9 \(allows 0 outstanding\) or no lgkmcnt wait, depending on the path \[waitcnt-missing\]/);
    const bad = run('check', f, '--paths', 'some');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--paths takes every or all, got 'some'/);
    // the fixed file of --paths all checks clean with --paths all
    const out = join(dir, 'some.fixed.s');
    assert.equal(run('check', f, '--fix', '--paths', 'all', '-o', out).code, 0);
    assert.equal(run('check', out, '--paths', 'all').code, 0);
    assert.match(readFileSync(out, 'utf8'), /s_waitcnt lgkmcnt\(0\)\n\s+v_mov_b32 v2, v1/);
  });
});

describe('schedule fixes its input as check --fix does, and says what it changed', () => {
  it('an error on every path: fixed first, the note lists the change', async () => {
    const r = await scheduleLoaded(loadText(EVERY, 'k.s'), EVERY, { budget: 20, cache: false, jobs: 1, strategies: ['list'] });
    assert.ok(r.notes.some((n) => /scheduled from the file as check --fix writes it, which 'before' measures: .*strengthened 1 s_waitcnt .*\(line 6: s_waitcnt vmcnt\(1\) -> s_waitcnt vmcnt\(0\); before line 9: \+ s_nop \d+\)/.test(n)), r.notes.join('\n'));
  });
  it('a shortfall on some paths only: left as it is by default, fixed with paths all', async () => {
    const d = await scheduleLoaded(loadText(SOME, 'k.s'), SOME, { budget: 20, cache: false, jobs: 1, strategies: ['list'] });
    assert.deepEqual(d.notes.filter((n) => /check --fix writes it/.test(n)), []);
    const a = await scheduleLoaded(loadText(SOME, 'k.s'), SOME, { budget: 20, cache: false, jobs: 1, strategies: ['list'], paths: 'all' });
    assert.ok(a.notes.some((n) => /has 1 check error .*before line 11: \+ s_waitcnt lgkmcnt\(0\)/.test(n)), a.notes.join('\n'));
  });
});

describe('line hunks', () => {
  it('rebuild the output from the input', () => {
    let seed = 7;
    const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed; };
    for (let t = 0; t < 500; t++) {
      const gen = () => Array.from({ length: rnd() % 12 }, () => 'abc'[rnd() % 3]!);
      const a = gen();
      const b = gen();
      const out: string[] = [];
      let i = 0;
      for (const h of lineHunks(a, b)!) {
        assert.equal(h.a0 - i >= 0, true);
        out.push(...a.slice(i, h.a0), ...b.slice(h.b0, h.b1));
        i = h.a1;
      }
      out.push(...a.slice(i));
      assert.deepEqual(out, b, `${a.join('')} -> ${b.join('')}`);
    }
    assert.deepEqual(lineHunks(['x', 'y', 'z'], ['x', 'n', 'y', 'z']), [{ a0: 1, a1: 1, b0: 1, b1: 2 }]);
    assert.equal(lineHunks(['a', 'b'], ['c', 'd'], 3), undefined, 'more lines differ than allowed');
  });
});

describe('verify counts a missing wait on any path', () => {
  it('a reordering that leaves a read short through the loop back-edge only is rejected', () => {
    const orig = kernel([
      's_mov_b32 s4, 0',
      '.Lloop:',
      's_waitcnt vmcnt(0)',
      'v_add_f32 v0, v1, v0',
      'global_load_dword v1, v[2:3], off',
      's_add_u32 s4, s4, 1',
      's_cmp_lt_u32 s4, 10',
      's_cbranch_scc1 .Lloop',
    ]);
    const moved = orig.replace('  s_waitcnt vmcnt(0)\n  v_add_f32 v0, v1, v0\n', '  v_add_f32 v0, v1, v0\n  s_waitcnt vmcnt(0)\n');
    assert.notEqual(moved, orig);
    // short on the back-edge only: a warning for check, an error for verify
    assert.equal(checkLoaded(loadText(moved, 'k.s')).errors, 0);
    const r = verifyLoaded(loadText(orig, 'k.s'), loadText(moved, 'k.s'));
    assert.equal(r.equivalent, false);
    assert.equal(r.difference?.kind, 'check');
    assert.match(r.difference!.message, /v_add_f32 reads v1 .* \[waitcnt-missing\]/);
  });
});

it('a change of many lines (a repeat block written out as its expansions) names its lines and the waits and nops it adds, not its text', () => {
  const body = ['.rept 2', 'ds_read_b32 v1, v0', 's_waitcnt lgkmcnt(0)', 'v_add_f32 v2, v1, v1', '.endr'];
  const out = ['// expanded from: .rept 2', 'ds_read_b32 v1, v0', 's_waitcnt lgkmcnt(0)', 's_nop 1', 'v_add_f32 v2, v1, v1', 'ds_read_b32 v1, v0', 's_waitcnt lgkmcnt(0)', 's_nop 1', 'v_add_f32 v2, v1, v1'];
  assert.equal(changeText({ line: 7, before: body, after: out }), 'line 7 (5 lines written out as 9): + s_nop 1 (x2)', 'the body\'s own lines and the comment are not named');
  assert.equal(changeText({ line: 7, before: body, after: [] }), 'line 7 (5 lines): now in the expansions written out above');
  assert.equal(changeText({ line: 3, before: [], after: ['s_nop 0'] }), 'before line 3: + s_nop 0', 'a short change in full');
  assert.equal(changeText({ line: 3, before: ['s_waitcnt vmcnt(2)'], after: ['s_waitcnt vmcnt(1)'] }), 'line 3: s_waitcnt vmcnt(2) -> s_waitcnt vmcnt(1)');
});

describe('check --fix and PC-relative sequences', () => {
  // an instruction between s_getpc_b64 and the add that names the symbol: the +8 counts its bytes
  const pcrel = (between: string[]) => ['.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:',
    '  s_load_dword s9, s[0:1], 0x0', '  v_mov_b32_e32 v2, 2', '  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3', '  s_getpc_b64 s[4:5]', ...between,
    '  s_add_u32 s4, s4, tab@rel32@lo+8', '  s_addc_u32 s5, s5, tab@rel32@hi+16', '  s_load_dword s6, s[4:5], 0x0', '  s_waitcnt lgkmcnt(0)',
    '  v_add_u32_e32 v4, s8, v2', '  global_store_dword v0, v4, s[2:3]', '  s_endpgm', '.section .rodata', 'tab:', '  .long 42', ''].join('\n');
  const between = (text: string) => {
    const lines = text.split('\n').map((l) => l.trim());
    return lines.slice(lines.indexOf('s_getpc_b64 s[4:5]') + 1, lines.findIndex((l) => l.startsWith('s_add_u32 s4, s4, tab')));
  };
  it('a wait the sequence needs goes before its s_getpc_b64, its counters at 0 (inserting one inside would move the symbol\'s offset)', () => {
    const text = pcrel(['  s_add_u32 s8, s9, 1']);
    const r = fixLoaded(loadText(text, 'k.s'));
    assert.deepEqual(between(r.text), ['s_add_u32 s8, s9, 1']);
    const lines = r.text.split('\n').map((l) => l.trim());
    assert.equal(lines[lines.indexOf('s_getpc_b64 s[4:5]') - 1], 's_waitcnt lgkmcnt(0)');
    assert.equal(checkLoaded(loadText(r.text, 'fixed.s')).errors, 0);
  });
  it('so does an s_nop', () => {
    const r = fixLoaded(loadText(pcrel(['  s_getreg_b32 s8, hwreg(HW_REG_MODE, 0, 8)']), 'k.s'));
    assert.deepEqual(between(r.text), ['s_getreg_b32 s8, hwreg(HW_REG_MODE, 0, 8)']);
    const lines = r.text.split('\n').map((l) => l.trim());
    assert.match(lines[lines.indexOf('s_getpc_b64 s[4:5]') - 1]!, /^s_nop \d$/);
    assert.equal(checkLoaded(loadText(r.text, 'fixed.s')).errors, 0);
  });
});
