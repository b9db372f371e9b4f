/**
 * Hazard facts carried from a text to the next when an edit only inserts, replaces or removes
 * s_waitcnt / s_nop statements (check/edit.ts carriedEdit, hazards/context.ts carryFacts and
 * hazardInsnsCarried, what check --fix's rounds use): the carried facts equal the facts computed
 * on the new text; an edit that writes anything else, or touches a line of a macro expansion,
 * carries nothing; facts carried to a text whose instructions resolve otherwise (a planted fault)
 * are caught by the check. Facts taken from another kernel by a map of its instructions
 * (hazardInsnsAligned): equal to those computed, a wrong map caught. Emission with the check on
 * random schedules gives its drafts the original kernel's facts (aligned with it),
 * parses its drafts copying the rows of the lines they keep (asm/program.ts LineReuse: the check
 * parses each again from scratch and compares), makes the emitted kernel's cycle model from the
 * original's (cycles/estimate.ts seedCycleModel, checked the same way), and writes what it writes
 * without them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import type { KernelContext } from '../../../src/analysis/types.js';
import { addInsert, applyStatementEdits, carriedEdit, emptyEdits } from '../../../src/check/edit.js';
import { carryFacts, HAZARD_INSN_FIELDS, hazardInsn, hazardInsns, hazardInsnsAligned, hazardInsnsCarried } from '../../../src/hazards/context.js';
import { traitsOf } from '../../../src/isa/traits.js';
import { alignedFacts, cycleModelsSeeded, emitSchedule } from '../../../src/schedule/emit.js';
import { parseReuse } from '../../../src/asm/parser.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { FastPathMismatch } from '../../../src/errors.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP, randomSchedule } from './helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');

function kernelCtx(text: string, name: string): KernelContext {
  return kernelContexts(loadText(text, name)).find((c) => c.insns.length > 0)!;
}

/** Waits and nops inserted before every third instruction, every s_waitcnt of the input removed. */
function waitEdits(ctx: KernelContext): ReturnType<typeof emptyEdits> {
  const e = emptyEdits();
  ctx.insns.forEach((ri, j) => {
    if (ri.insn.base === 's_waitcnt') e.remove.add(ctx.cfg.insns[j]!.stmt);
    else if (j % 3 === 0) addInsert(e, ctx.cfg.insns[j]!.stmt, j % 2 ? 's_nop 1' : 's_waitcnt vmcnt(0) lgkmcnt(0)');
  });
  return e;
}

test('hazard facts carried across waits and nops inserted and removed equal the facts of the new text', () => {
  for (const [name, text] of [['example.s', example], ['loop.s', LOOP]] as const) {
    const a = kernelCtx(text, name);
    hazardInsns(a);
    const e = waitEdits(a);
    assert.ok(carriedEdit(a.program, e), name);
    const carried = carryFacts(a)!;
    const b = kernelCtx(applyStatementEdits(a.program, e), name);
    assert.ok(hazardInsnsCarried(b, carried, true), name);
    const fb = hazardInsns(b);
    const t = traitsOf(b.insns);
    fb.forEach((x, j) => {
      const y = hazardInsn(b.insns[j]!, b.target, t, j);
      assert.equal(x.ri, b.insns[j]);
      for (const k of HAZARD_INSN_FIELDS) assert.deepEqual(x[k], y[k], `${name} ${j} ${k}`);
    });
    // kept already: nothing carried again
    assert.equal(hazardInsnsCarried(b, carried, true), false);
    // nothing kept on the context: nothing to carry
    assert.equal(carryFacts(kernelCtx(text, name)), undefined);
  }
});

test('only edits of s_waitcnt / s_nop statements outside macro expansions carry the facts', () => {
  const a = kernelCtx(example, 'example.s');
  const j = a.insns.findIndex((ri) => ri.insn.base.startsWith('v_'));
  const w = a.insns.findIndex((ri) => ri.insn.base === 's_waitcnt');
  const stmt = (i: number) => a.cfg.insns[i]!.stmt;
  const one = (f: (e: ReturnType<typeof emptyEdits>) => void) => { const e = emptyEdits(); f(e); return carriedEdit(a.program, e); };
  assert.ok(one((e) => addInsert(e, stmt(j), '  s_waitcnt lgkmcnt(0)')));
  assert.ok(one((e) => e.replace.set(stmt(w), 's_waitcnt vmcnt(1)')));
  assert.ok(one((e) => e.remove.add(stmt(w))));
  assert.equal(one((e) => addInsert(e, stmt(j), 'v_nop')), false);
  assert.equal(one((e) => addInsert(e, stmt(j), 's_nop 0 ; v_nop')), false);
  assert.equal(one((e) => addInsert(e, stmt(j), 's_waitcnt_vscnt null, 0')), false);
  assert.equal(one((e) => e.remove.add(stmt(j))), false);
  assert.equal(one((e) => e.replace.set(stmt(j), 's_nop 0')), false);
  assert.equal(one((e) => e.replace.set(stmt(w), 'v_nop')), false);
  // a line of a macro expansion is written out expanded
  const macro = '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n.macro M d\n  v_mov_b32 v[\\d], 0\n  s_waitcnt lgkmcnt(0)\n  v_add_u32 v[\\d], v[\\d], 1\n.endm\nk:\n  M 3\n  s_endpgm\n';
  const m = kernelCtx(macro, 'macro.s');
  const mw = m.insns.findIndex((ri) => ri.insn.base === 's_waitcnt');
  const me = emptyEdits();
  me.remove.add(m.cfg.insns[mw]!.stmt);
  assert.equal(carriedEdit(m.program, me), false);
  const end = m.insns.findIndex((ri) => ri.insn.base === 's_endpgm');
  const mi = emptyEdits();
  addInsert(mi, m.cfg.insns[end]!.stmt, 's_nop 0');
  assert.ok(carriedEdit(m.program, mi));
});

test('facts carried to instructions that resolve otherwise (a planted fault) are caught by the check', () => {
  const a = kernelCtx(example, 'example.s');
  hazardInsns(a);
  const carried = carryFacts(a)!;
  // the same instructions by name, one of them writing other registers: not a wait/nop edit
  const v = a.insns.findIndex((ri) => ri.insn.base === 'v_add_u32' || ri.insn.base === 'v_mov_b32');
  assert.ok(v >= 0);
  const line = a.program.lines[a.insns[v]!.insn.loc.line - 1]!.text;
  const changed = line.replace(/v(\d+)/, (_, n) => `v${Number(n) + 1}`);
  assert.notEqual(changed, line);
  const lines = example.split('\n');
  lines[a.insns[v]!.insn.loc.line - 1] = changed;
  const text = lines.join('\n');
  const unchecked = kernelCtx(text, 'example.s');
  assert.ok(hazardInsnsCarried(unchecked, carried, false), 'carried without the check (the fault goes unseen)');
  const b = kernelCtx(text, 'example.s');
  assert.throws(() => hazardInsnsCarried(b, carried, true), FastPathMismatch);
  // another instruction count or name: refused outright
  const fewer = kernelCtx(example.replace(line + '\n', ''), 'example.s');
  assert.equal(hazardInsnsCarried(fewer, carried, true), false);
});

/** Every fact of `ctx` (hazardInsns) equals the fact computed again. */
function expectFresh(ctx: KernelContext, what: string): void {
  const t = traitsOf(ctx.insns);
  hazardInsns(ctx).forEach((x, j) => {
    const y = hazardInsn(ctx.insns[j]!, ctx.target, t, j);
    assert.equal(x.ri, ctx.insns[j]);
    for (const k of HAZARD_INSN_FIELDS) assert.deepEqual(x[k], y[k], `${what} ${j} ${k}`);
  });
}

test('hazard facts taken from another kernel by a map of its instructions equal the facts computed; a wrong map is caught', () => {
  for (const [name, text] of [['example.s', example], ['loop.s', LOOP]] as const) {
    const a = kernelCtx(text, name);
    // the same text again, its waits and nops taken out: each other instruction maps to itself in `a`
    const b0 = kernelCtx(text, name);
    assert.equal(hazardInsnsAligned(b0, a, new Int32Array(b0.insns.length).fill(-1), true), false, 'nothing kept on `a`: nothing taken');
    hazardInsns(a);
    const e = emptyEdits();
    a.insns.forEach((ri, j) => { if (ri.insn.base === 's_waitcnt' || ri.insn.base === 's_nop') e.remove.add(a.cfg.insns[j]!.stmt); });
    const b = kernelCtx(applyStatementEdits(a.program, e), name);
    const full = new Int32Array(b.insns.length);
    let i = 0;
    b.insns.forEach((ri, j) => {
      while (a.insns[i]!.insn.base === 's_waitcnt' || a.insns[i]!.insn.base === 's_nop') i++;
      assert.equal(a.insns[i]!.insn.text, ri.insn.text);
      full[j] = i++;
    });
    const map = full.map((v, j) => (j % 5 === 0 ? -1 : v)); // some computed afresh
    assert.ok(hazardInsnsAligned(b, a, map, true), name);
    expectFresh(b, name);
    assert.equal(hazardInsnsAligned(b, a, map, true), false, 'kept already: nothing taken again');
    // two instructions of the same name, writing other registers, swapped in the map: caught
    const c = kernelCtx(applyStatementEdits(a.program, e), name);
    const byName = new Map<string, number>();
    let x = -1;
    let y = -1;
    c.insns.forEach((ri, j) => {
      const o = byName.get(ri.insn.base);
      if (x < 0 && o !== undefined && c.insns[o]!.defs.join() !== ri.defs.join()) { x = o; y = j; }
      if (o === undefined) byName.set(ri.insn.base, j);
    });
    assert.ok(x >= 0, name);
    const wrong = full.slice();
    wrong[x] = full[y]!; wrong[y] = full[x]!;
    assert.throws(() => hazardInsnsAligned(c, a, wrong, true), FastPathMismatch);
    // a map to an instruction of another name: refused outright
    const other = c.insns.findIndex((ri) => ri.insn.base !== c.insns[x]!.insn.base);
    const named = full.slice();
    named[x] = full[other]!;
    assert.equal(hazardInsnsAligned(kernelCtx(applyStatementEdits(a.program, e), name), a, named, true), false);
  }
});

test('emission gives its drafts the original kernel\'s hazard facts, parses its drafts copying rows, and writes what it writes without them (checked on random schedules)', () => {
  const before = alignedFacts.kept;
  let emitted = 0;
  for (const [name, text] of [['example.s', example], ['loop.s', LOOP]] as const) {
    const k = pickKernel(loadText(text, name));
    const rand = mulberry32(3);
    for (let t = 0; t < 4; t++) {
      const s = randomSchedule(k, rand, 8 + 8 * t);
      if (s.changedRegions().length === 0) continue;
      let plain: string;
      try { plain = emitSchedule(s, { checkFast: false }).text; } catch { continue; }
      // the check parses every draft again from scratch and compares (loadText's checkFast), and
      // builds the cycle model made from the original's rows from scratch (seedCycleModel)
      const rows = parseReuse.rows;
      const seeded = cycleModelsSeeded.made;
      assert.equal(emitSchedule(s, { checkFast: true }).text, plain);
      assert.equal(cycleModelsSeeded.made, seeded + 1);
      // the reordered draft copies the rows of the lines it moved or left; the edited drafts those their edit left
      assert.ok(parseReuse.rows - rows >= k.n, `${name}: ${parseReuse.rows - rows} rows copied in an emission of a kernel of ${k.n} instructions`);
      emitted++;
    }
  }
  assert.ok(emitted >= 4, `only ${emitted} schedules emitted`);
  // each emission twice (with and without the check): the reordered draft and the drafts its edits make
  assert.ok(alignedFacts.kept - before >= emitted * 4, `facts taken ${alignedFacts.kept - before} times in ${emitted * 2} emissions`);
});
