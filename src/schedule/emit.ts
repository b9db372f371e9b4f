/**
 * From a schedule back to program text.
 *
 * 1. `reorderedText`: the regions whose order changed are written in the new order with their
 *    dependency s_waitcnt / s_nop removed; every other line is byte-identical. An instruction
 *    alone on its line moves with its line (trailing comment included) and with the comment
 *    lines directly above it, except the comments that head a basic block (above its first
 *    instruction, such as LLVM's `; %bb.1:`), which stay where the block starts. A macro invocation whose expansion holds a changed region is
 *    written out expanded (`// expanded from: ...`, one statement per line), since the macro
 *    body is shared by every call.
 * 2. `emitSchedule`: minimal s_waitcnt and s_nop for the new order, then checked.
 *    - waits: the waitcnt analysis' minimal waits (src/waitcnt); outside the changed regions no
 *      wait is added that the analysis would also ask of the original (its pessimism about paths
 *      that cannot run), and every changed region ends with no more memory operations pending
 *      than the original region left (scheduleWaits), which is what makes trusting the rest sound;
 *    - nops: the hazard engine's minimal padding (src/hazards), all of it inside the changed
 *      regions and what exceeds the original's padding elsewhere;
 *    - memory operations complete at barriers, cache operations, messages, calls and returns in
 *      the original stay complete (completion.ts);
 *    - the default checkers then run: an error the original does not have is fixed with the
 *      finding's fix (fix.ts planFixes) or, when it cannot be, is an exception — a program with
 *      a new hazard, a new missing wait or a descriptor that does not cover its registers is
 *      never returned.
 */
import type { Program } from '../asm/ast.js';
import { loadText, type Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts } from '../check/check.js';
import { nopLines, planFixes, waitcntText } from '../check/fix.js';
import { addInsert, applyStatementEdits, emptyEdits, statementText } from '../check/edit.js';
import type { KernelContext } from '../analysis/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { ConductorError } from '../errors.js';
import { MOVABLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { counterMax, kernelWaits, waitFacts } from './waits.js';
import { CLASS_COUNTER, CLASS_IN_ORDER, EVENT_CLASSES, NCLASSES, type OpClass } from '../targets/counters.js';
import { EVENT, issues, traitsOf, type KernelTraits } from '../isa/traits.js';
import type { WaitEvent } from '../isa/types.js';
import { computeNops } from '../hazards/engine.js';
import { checkWaitcnt, minimalWaits } from '../waitcnt/index.js';
import type { Finding } from '../analysis/types.js';
import { missingCompletions } from './completion.js';
import { programMetrics, type Metrics } from './metrics.js';

interface Chunk { lines: string[]; eols: string[] }

function indentOf(text: string): string {
  const m = /^[ \t]*/.exec(text);
  return m ? m[0] : '';
}

/** Text of the program with the changed regions of `s` reordered and their waits/nops removed. */
export function reorderedText(s: ScheduleState): string {
  const k = s.k;
  const program = k.loaded.program;
  const cfg = k.ctx.cfg;
  const changed = s.changedRegions();
  if (changed.length === 0) return program.lines.map((l) => l.text + l.eol).join('');

  // statement -> replacement (the node now in that slot), dropped statements
  const slotOf = new Map<number, number>(); // statement index -> kernel insn now there
  const drop = new Set<number>();
  const movedNodes = new Set<number>();
  for (const r of changed) {
    const rg = k.regions[r]!;
    const o = s.order[r]!;
    for (let p = 0; p < o.length; p++) {
      if (o[p] === p) continue; // the slot keeps its own instruction: its line stays as it is
      const slotInsn = rg.nodes[p]!;
      const now = rg.nodes[o[p]!]!;
      slotOf.set(cfg.insns[slotInsn]!.stmt, now);
      movedNodes.add(now);
    }
    for (const i of rg.stripped) drop.add(cfg.insns[i]!.stmt);
  }

  // statements per line (only the lines we touch are needed, but the map is cheap)
  const stmtsOfLine = new Map<number, number[]>();
  const touch = (st: number) => {
    const li = program.statements[st]!.lineIndex;
    if (!stmtsOfLine.has(li)) {
      const list: number[] = [];
      // statements of a line are contiguous in the statement stream
      let a = st;
      while (a > 0 && program.statements[a - 1]!.lineIndex === li) a--;
      for (let b = a; b < program.statements.length && program.statements[b]!.lineIndex === li; b++) list.push(b);
      stmtsOfLine.set(li, list);
    }
  };
  for (const st of slotOf.keys()) touch(st);
  for (const st of drop) touch(st);

  const isSimpleLine = (li: number) => stmtsOfLine.get(li)!.every((x) => !program.statements[x]!.expansion);

  // Owned comment lines: comment-only lines right above a simple line whose only instruction
  // moves. The comments above a block's first instruction head the block: they stay in place.
  const owned = new Map<number, number[]>(); // insn -> owned line indexes (top to bottom)
  const ownedLine = new Set<number>();
  const code = commentOnlyLines(program);
  for (const i of movedNodes) {
    if (cfg.blocks[cfg.blockOf[i]!]!.start === i) continue;
    const st = cfg.insns[i]!.stmt;
    const li = program.statements[st]!.lineIndex;
    if (!isSimpleLine(li) || stmtsOfLine.get(li)![0] !== st) continue;
    const list: number[] = [];
    for (let j = li - 1; j >= 0 && code[j] === 1; j--) list.unshift(j);
    if (list.length) { owned.set(i, list); for (const j of list) ownedLine.add(j); }
  }

  const chunkOf = (i: number): Chunk => {
    const st = cfg.insns[i]!.stmt;
    const s0 = program.statements[st]!;
    const li = s0.lineIndex;
    const line = program.lines[li]!;
    if (isSimpleLine(li)) {
      const lines: string[] = [];
      const eols: string[] = [];
      for (const j of owned.get(i) ?? []) { lines.push(program.lines[j]!.text); eols.push(program.lines[j]!.eol || '\n'); }
      const first = stmtsOfLine.get(li)![0] === st;
      lines.push(first ? line.text : indentOf(line.text) + line.text.slice(s0.loc.col - 1));
      eols.push(line.eol || '\n');
      return { lines, eols };
    }
    return { lines: [indentOf(line.text) + s0.insn!.text], eols: [line.eol || '\n'] };
  };

  const out: string[] = [];
  let skipTo = -1;
  for (let li = 0; li < program.lines.length; li++) {
    const line = program.lines[li]!;
    if (ownedLine.has(li) || li <= skipTo) continue;
    const stmts = stmtsOfLine.get(li);
    if (!stmts) { out.push(line.text + line.eol); continue; }
    const indent = indentOf(line.text);
    const eol = line.eol || '\n';
    const simple = isSimpleLine(li);
    const emitted: string[] = [];
    if (!simple) {
      const call = stmts.map((x) => program.statements[x]!).find((x) => x.kind === 'macroCall' && !x.expansion);
      if (call?.blockEnd !== undefined) skipTo = call.blockEnd; // the rest of a repeat block's lines
      emitted.push(`${indent}// expanded from: ${call ? call.text : line.text.trim()}${eol}`);
    }
    let restFrom = 0;
    for (let q = 0; q < stmts.length; q++) {
      const st = stmts[q]!;
      const S = program.statements[st]!;
      if (S.kind === 'macroCall') continue;
      if (drop.has(st)) continue;
      const now = slotOf.get(st);
      if (now !== undefined) {
        const c = chunkOf(now);
        for (let x = 0; x < c.lines.length; x++) emitted.push(c.lines[x]! + (x === c.lines.length - 1 ? eol : c.eols[x]!));
        continue;
      }
      if (simple) {
        // an untouched statement on a simple line that also holds a moved or dropped one: a label
        if (S.kind === 'label') { emitted.push(`${indent}${S.text}:${eol}`); restFrom = S.loc.col - 1 + S.text.length + 1; continue; }
        emitted.push(indent + line.text.slice(Math.max(restFrom, S.loc.col - 1)).trimStart() + eol);
        continue;
      }
      emitted.push(`${indent}${statementText(S)}${eol}`);
    }
    if (emitted.length === 0) continue; // a dropped wait or nop alone on its line
    let joined = emitted.join('');
    if (line.eol === '') joined = joined.slice(0, joined.length - eol.length); // keep "no final newline"
    out.push(joined);
  }
  return out.join('');
}


/** 1 for lines holding only a comment (no code, not blank). */
function commentOnlyLines(program: Program): Uint8Array {
  const out = new Uint8Array(program.lines.length);
  const hasStmt = new Uint8Array(program.lines.length);
  for (const s of program.statements) hasStmt[s.lineIndex] = 1;
  let inBlock = false;
  for (let i = 0; i < program.lines.length; i++) {
    const t = program.lines[i]!.text.trim();
    if (hasStmt[i]) { inBlock = false; continue; }
    if (t === '') { inBlock = false; continue; }
    if (inBlock || t.startsWith('//') || t.startsWith(';') || t.startsWith('/*') || t.startsWith('#')) {
      out[i] = 1;
      if (t.startsWith('/*') && !t.includes('*/')) inBlock = true;
      else if (inBlock && t.includes('*/')) inBlock = false;
    }
  }
  return out;
}

/* ---------------------------------------------------------------------------------------------- */
/* Re-derivation                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

export interface Rederived {
  text: string;
  loaded: Loaded;
  notes: string[];
}

function contextOf(l: Loaded, name: string): KernelContext {
  const c = kernelContexts(l).find((x) => x.kernel.name === name);
  if (!c) throw new ConductorError(`internal: kernel '${name}' disappeared from the scheduled program`);
  return c;
}

export interface Emitted extends Rederived {
  /** Regions written in a new order. */
  changedRegions: number[];
  metrics: Metrics;
}

/**
 * The program text of a schedule: changed regions reordered, waits and nops re-derived, checked
 * clean, with exact metrics. Without changes the original text is returned as it is.
 */
export function emitSchedule(s: ScheduleState): Emitted {
  const k = s.k;
  const arch = k.target.name;
  const file = k.loaded.program.file;
  const changedRegions = s.changedRegions();
  if (changedRegions.length === 0) {
    const text = k.loaded.program.lines.map((l) => l.text + l.eol).join('');
    return { text, loaded: k.loaded, notes: [], changedRegions, metrics: programMetrics(k.loaded, k.name, { trip: k.options.trip }) };
  }
  const notes: string[] = [];
  const text = reorderedText(s);
  let loaded = loadText(text, file, { arch });

  // 1. Waits: the waitcnt analysis' minimal waits (src/waitcnt). A wait the original program
  //    does without at an instruction outside the changed regions is not added (the analysis is
  //    pessimistic on paths that cannot run), and each changed region ends with no more memory
  //    operations pending than the original region left (scheduleWaits), which makes that sound.
  let ctx = contextOf(loaded, k.name);
  const toOrig = alignToOriginal(s, ctx);
  const changed = new Set(changedRegions);
  const orig = originalAnalysisWaits(k);
  const theirs = new Map<number, { vm: number; lgkm: number; exp: number }>();
  for (const w of minimalWaits(ctx)) {
    const v = { vm: w.vmcnt ?? -1, lgkm: w.lgkmcnt ?? -1, exp: w.expcnt ?? -1 };
    const i = toOrig[w.before]!;
    const inChanged = i >= 0 && k.role[i] === MOVABLE && changed.has(k.regionOf[i]!);
    if (!inChanged && i >= 0 && !stronger(v, orig.get(i))) continue;
    theirs.set(w.before, v);
  }
  const ins = scheduleWaits(s, ctx, theirs);
  if (ins.size > 0) loaded = insertWaits(loaded, ctx, ins, file, arch);

  // 2. Nops (the hazard engine's minimal padding, kept to what the schedule needs) and the
  //    waits that keep memory operations complete at synchronization points.
  ctx = contextOf(loaded, k.name);
  const e = emptyEdits();
  let edits = 0;
  {
    const plan = computeNops(ctx);
    const policy = nopPolicy(s);
    const maxImm = ctx.target.maxNopImm.value;
    for (let j = 0; j < plan.pads.length; j++) {
      const w = policy(ctx, j, plan.pads[j]!);
      if (w > 0) for (const l of nopLines(w, maxImm)) { addInsert(e, ctx.cfg.insns[j]!.stmt, l); edits++; }
    }
  }
  const missing = missingCompletions(k.ctx, ctx, alignToOriginal(s, ctx));
  for (const [j, w] of missing) { addInsert(e, ctx.cfg.insns[j]!.stmt, waitcntText({ vmcnt: w.vm, lgkmcnt: w.lgkm, expcnt: w.exp })); edits++; }
  if (missing.size > 0) notes.push(`${missing.size} wait${missing.size === 1 ? '' : 's'} kept in front of barriers, cache operations, messages, calls or returns`);
  let curText = edits > 0 ? applyStatementEdits(loaded.program, e) : loaded.program.lines.map((l) => l.text + l.eol).join('');
  if (edits > 0) loaded = loadText(curText, file, { arch });

  // 3. Whatever the checkers still find that the original does not have: fixed with their
  //    fixes (s_nop / s_waitcnt), then nothing new may be left.
  const fixNew = () => {
    for (let round = 0; round < 4; round++) {
      const fresh = newErrors(s, loaded);
      if (fresh.length === 0) break;
      const fixable = fresh.filter((f) => f.finding.fix && (f.finding.fix.kind === 'nop' || f.finding.fix.kind === 'waitcnt'));
      if (fixable.length === 0 || round === 3) {
        const f = fresh[0]!.finding;
        throw new ConductorError(`the scheduled program does not check clean: ${f.message} [${f.rule}]`, f.loc);
      }
      const byCtx = new Map<KernelContext, Finding[]>();
      for (const f of fixable) { const l = byCtx.get(f.ctx) ?? []; l.push(f.finding); byCtx.set(f.ctx, l); }
      const plan = planFixes([...byCtx].map(([c, findings]) => ({ ctx: c, findings })));
      curText = applyStatementEdits(loaded.program, plan.edits);
      loaded = loadText(curText, file, { arch });
    }
  };
  fixNew();
  // 4. Minimal and merged: a wait the analysis finds waits for nothing, where the input had
  //    none, is removed; waits standing together before one instruction become one wait. A
  //    removed wait was also an issue slot: a hazard it happened to cover gets its s_nop (step 3
  //    again).
  const tidy = tidyWaits(s, loaded);
  if (tidy.edits > 0) {
    curText = applyStatementEdits(loaded.program, tidy.plan);
    loaded = loadText(curText, file, { arch });
    fixNew();
  }
  return { text: curText, loaded, notes, changedRegions, metrics: programMetrics(loaded, k.name, { trip: k.options.trip }) };
}

const WAIT_BASE = 's_waitcnt';

/** The next instruction after i in its block that is neither s_waitcnt nor s_nop (-1 at the block's end). */
function nextNonWait(ctx: KernelContext, i: number): number {
  const b = ctx.cfg.blocks[ctx.cfg.blockOf[i]!]!;
  for (let j = i + 1; j < b.end; j++) { const base = ctx.insns[j]!.insn.base; if (base !== WAIT_BASE && base !== 's_nop') return j; }
  return -1;
}

const inputRedundant = new WeakMap<ScheduleKernel, Map<number, number>>();

/** The input's waits that wait for nothing, counted by the instruction they stand before. */
function redundantOfInput(k: ScheduleKernel): Map<number, number> {
  let m = inputRedundant.get(k);
  if (!m) {
    m = new Map();
    for (const f of checkWaitcnt(k.ctx)) {
      if (f.rule !== 'waitcnt-redundant' || f.insn < 0) continue;
      const at = nextNonWait(k.ctx, f.insn);
      m.set(at, (m.get(at) ?? 0) + 1);
    }
    inputRedundant.set(k, m);
  }
  return m;
}

/** Waits written right before each instruction of the input (by the instruction). */
function waitsBefore(ctx: KernelContext): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < ctx.insns.length; i++) {
    if (ctx.insns[i]!.insn.base !== WAIT_BASE) continue;
    const at = nextNonWait(ctx, i);
    m.set(at, (m.get(at) ?? 0) + 1);
  }
  return m;
}

/**
 * The edits that make the scheduled kernel's waits minimal and merged: every s_waitcnt the waitcnt
 * analysis judges to wait for nothing is removed unless the input had such a wait before the same
 * instruction (what the input does is its own business), and a run of waits with nothing between
 * them, longer than the input's run before the same instruction, becomes one wait (the smallest
 * count per counter: the same effect). Removing a wait that waits for nothing changes no state,
 * so no other wait's need changes.
 */
export function tidyWaits(s: ScheduleState, loaded: Loaded): { plan: ReturnType<typeof emptyEdits>; edits: number } {
  const k = s.k;
  const ctx = contextOf(loaded, k.name);
  const plan = emptyEdits();
  let edits = 0;
  const toOrig = alignToOriginal(s, ctx);
  const origOf = (j: number) => (j < 0 ? -1 : toOrig[j]!);
  const allowed = new Map(redundantOfInput(k));
  const removed = new Set<number>();
  for (const f of checkWaitcnt(ctx)) {
    if (f.rule !== 'waitcnt-redundant' || f.insn < 0) continue;
    const at = origOf(nextNonWait(ctx, f.insn));
    const n = allowed.get(at) ?? 0;
    if (n > 0) { allowed.set(at, n - 1); continue; }
    plan.remove.add(ctx.cfg.insns[f.insn]!.stmt);
    removed.add(f.insn);
    edits++;
  }
  // runs of waits before one instruction
  const inputRuns = waitsBefore(k.ctx);
  for (let i = 0; i < ctx.insns.length; i++) {
    if (ctx.insns[i]!.insn.base !== WAIT_BASE || removed.has(i)) continue;
    if (i > 0 && ctx.insns[i - 1]!.insn.base === WAIT_BASE && ctx.cfg.blockOf[i - 1] === ctx.cfg.blockOf[i]) continue; // not the first of its run
    const run: number[] = [];
    let j = i;
    for (; j < ctx.insns.length && ctx.insns[j]!.insn.base === WAIT_BASE && ctx.cfg.blockOf[j] === ctx.cfg.blockOf[i]; j++) if (!removed.has(j)) run.push(j);
    const at = j < ctx.insns.length && ctx.cfg.blockOf[j] === ctx.cfg.blockOf[i] ? origOf(j) : -1;
    if (run.length < 2 || run.length <= (inputRuns.get(at) ?? 0)) continue;
    const v = { vmcnt: NONE, lgkmcnt: NONE, expcnt: NONE };
    for (const w of run) {
      const op = ctx.insns[w]!.insn.operands[0];
      if (!op || op.kind !== 'waitcnt') { v.vmcnt = v.lgkmcnt = v.expcnt = 0; continue; }
      if (op.vmcnt !== undefined) v.vmcnt = Math.min(v.vmcnt, op.vmcnt);
      if (op.lgkmcnt !== undefined) v.lgkmcnt = Math.min(v.lgkmcnt, op.lgkmcnt);
      if (op.expcnt !== undefined) v.expcnt = Math.min(v.expcnt, op.expcnt);
    }
    plan.replace.set(ctx.cfg.insns[run[0]!]!.stmt, waitcntText({
      vmcnt: v.vmcnt === NONE ? undefined : v.vmcnt, lgkmcnt: v.lgkmcnt === NONE ? undefined : v.lgkmcnt, expcnt: v.expcnt === NONE ? undefined : v.expcnt,
    }));
    for (const w of run.slice(1)) plan.remove.add(ctx.cfg.insns[w]!.stmt);
    edits += run.length - 1;
  }
  return { plan, edits };
}

const NONE = 1 << 20;

function stronger(a: { vm: number; lgkm: number; exp: number }, b?: { vm: number; lgkm: number; exp: number }): boolean {
  if (!b) return true;
  const st = (x: number, y: number) => x >= 0 && (y < 0 || x < y);
  return st(a.vm, b.vm) || st(a.lgkm, b.lgkm) || st(a.exp, b.exp);
}

function insertWaits(loaded: Loaded, ctx: KernelContext, ins: Map<number, { vm: number; lgkm: number; exp: number }>, file: string, arch: string): Loaded {
  const e = emptyEdits();
  for (const [j, w] of ins) {
    addInsert(e, ctx.cfg.insns[j]!.stmt, waitcntText({
      vmcnt: w.vm >= 0 ? w.vm : undefined, lgkmcnt: w.lgkm >= 0 ? w.lgkm : undefined, expcnt: w.exp >= 0 ? w.exp : undefined,
    }));
  }
  return loadText(applyStatementEdits(loaded.program, e), file, { arch });
}

const analysisCache = new WeakMap<ScheduleKernel, Map<number, { vm: number; lgkm: number; exp: number }>>();

/** The waits the waitcnt analysis would add to the original kernel (what it does without). */
function originalAnalysisWaits(k: ScheduleKernel): Map<number, { vm: number; lgkm: number; exp: number }> {
  let m = analysisCache.get(k);
  if (!m) {
    m = new Map();
    for (const w of minimalWaits(k.ctx)) m.set(w.before, { vm: w.vmcnt ?? -1, lgkm: w.lgkmcnt ?? -1, exp: w.expcnt ?? -1 });
    analysisCache.set(k, m);
  }
  return m;
}

const originalErrorsCache = new WeakMap<ScheduleKernel, Map<string, number>>();

function errorKey(rule: string, where: string): string { return `${rule}|${where}`; }

/** Error findings of the original file, counted by rule and instruction (see newErrors). */
function originalErrors(k: ScheduleKernel): Map<string, number> {
  let m = originalErrorsCache.get(k);
  if (!m) {
    m = new Map();
    const ctxs = kernelContexts(k.loaded);
    const checks = checkContexts(ctxs, { paths: 'all' });
    ctxs.forEach((c, x) => {
      for (const f of checks[x]!.findings) {
        if (f.severity !== 'error') continue;
        const where = c.kernel.name === k.name ? (f.insn >= 0 ? `#${f.insn}` : 'kernel') : `${c.kernel.name}:${f.insn >= 0 ? c.insns[f.insn]!.insn.text : 'kernel'}`;
        const key = errorKey(f.rule, where);
        m!.set(key, (m!.get(key) ?? 0) + 1);
      }
    });
    originalErrorsCache.set(k, m);
  }
  return m;
}

/**
 * Error findings of a scheduled program that the original does not have (the schedule must not
 * add any; what the original already had is the original's business). Findings of the scheduled
 * kernel are matched by rule and original instruction, those of other kernels by rule and text.
 */
function newErrors(s: ScheduleState, loaded: Loaded): { ctx: KernelContext; finding: Finding }[] {
  const k = s.k;
  const orig = new Map(originalErrors(k));
  const ctxs = kernelContexts(loaded);
  const checks = checkContexts(ctxs, { paths: 'all' }); // a shortfall on any path counts
  const out: { ctx: KernelContext; finding: Finding }[] = [];
  ctxs.forEach((c, x) => {
    const toOrig = c.kernel.name === k.name ? alignToOriginal(s, c) : undefined;
    for (const f of checks[x]!.findings) {
      if (f.severity !== 'error') continue;
      let where: string;
      if (toOrig) where = f.insn >= 0 && toOrig[f.insn]! >= 0 ? `#${toOrig[f.insn]}` : f.insn >= 0 ? `new:${f.insn}` : 'kernel';
      else where = `${c.kernel.name}:${f.insn >= 0 ? c.insns[f.insn]!.insn.text : 'kernel'}`;
      const key = errorKey(f.rule, where);
      const n = orig.get(key) ?? 0;
      if (n > 0) { orig.set(key, n - 1); continue; }
      out.push({ ctx: c, finding: f });
    }
  });
  return out;
}

interface RegionExit { pending: number[] }
const exitCache = new WeakMap<ScheduleKernel, RegionExit[]>();

/** Operations pending per class (targets/counters.ts) right after each region of the original, under the model. */
function originalExits(k: ScheduleKernel): RegionExit[] {
  let e = exitCache.get(k);
  if (!e) {
    const kw = kernelWaits(k.ctx.cfg, waitFacts(k.insns, k.ctx.cfg.control), counterMax(k.target), {
      accept: () => false, after: k.regions.map((r) => r.last),
    });
    e = k.regions.map((r) => {
      const st = kw.after.get(r.last);
      return { pending: CLASSES.map((c) => (st ? st.ub[c]! - st.lb[c]! : 0)) };
    });
    exitCache.set(k, e);
  }
  return e;
}

const CLASSES: readonly OpClass[] = Array.from({ length: NCLASSES }, (_, c) => c as OpClass);

/** The events (isa/traits.ts EVENT bits) that issue an operation of each class. */
const CLASS_EVENTS: readonly number[] = CLASSES.map((c) => {
  let bits = 0;
  for (const [ev, classes] of Object.entries(EVENT_CLASSES)) if (classes.includes(c)) bits |= EVENT[ev as WaitEvent];
  return bits;
});

/** Does instruction i issue an operation of class c? */
function issuesOn(t: KernelTraits, i: number, c: OpClass): boolean {
  return issues(t, i, CLASS_EVENTS[c]!);
}

/**
 * Rounds of closing waits: each round's waits can only lower the pending counts the next round
 * sees, so the rounds settle within a few (one per region a wait can influence in turn).
 */
const CLOSING_ROUNDS = 4;

/**
 * The waits of the changed regions of a schedule for the scheduled kernel `ctx` (its waits and
 * nops of changed regions removed): the waitcnt analysis' choice `given`, plus the waits the
 * scheduler's model (waits.ts) finds to close each changed region. Outside the changed regions
 * the program's own waits are trusted (the analysis is pessimistic on paths that cannot run, so
 * it would ask for waits the program rightly does without). That is sound because each changed
 * region is made to end with no more memory operations pending than the original region left
 * (per counter, the operations still pending are among those the original left pending;
 * otherwise a wait closes the region).
 */
export function scheduleWaits(s: ScheduleState, ctx: KernelContext,
  given: ReadonlyMap<number, { vm: number; lgkm: number; exp: number }>): Map<number, { vm: number; lgkm: number; exp: number }> {
  const k = s.k;
  const toOrig = alignToOriginal(s, ctx);
  const newOf = new Int32Array(k.n).fill(-1);
  for (let j = 0; j < toOrig.length; j++) if (toOrig[j]! >= 0) newOf[toOrig[j]!] = j;
  const changed = s.changedRegions();
  const lastNew: number[] = [];
  for (const r of changed) {
    const rg = k.regions[r]!;
    lastNew.push(newOf[rg.nodes[s.order[r]![rg.nodes.length - 1]!]!]!);
  }
  const f = waitFacts(ctx.insns, ctx.cfg.control);
  const max = counterMax(ctx.target);
  const exits = originalExits(k);
  const traits = traitsOf(k.insns);
  // the model adds none of its own waits but the ones that close the regions
  const accept = () => false;
  const withGiven = (extra: Map<number, { vm: number; lgkm: number; exp: number }>) => {
    const all = new Map(given);
    for (const [j, w] of extra) {
      const o = all.get(j);
      const mn = (a: number, b: number) => (a < 0 ? b : b < 0 ? a : Math.min(a, b));
      all.set(j, o ? { vm: mn(o.vm, w.vm), lgkm: mn(o.lgkm, w.lgkm), exp: mn(o.exp, w.exp) } : w);
    }
    return all;
  };
  let forced = new Map<number, { vm: number; lgkm: number; exp: number }>();
  let kw = kernelWaits(ctx.cfg, f, max, { accept, after: lastNew, forced: withGiven(forced) });
  for (let iter = 0; ; iter++) {
    const next = new Map<number, { vm: number; lgkm: number; exp: number }>();
    changed.forEach((r, x) => {
      const rg = k.regions[r]!;
      const jl = lastNew[x]!;
      const st = kw.after.get(jl);
      if (!st || jl + 1 >= ctx.insns.length) return;
      const w = [-1, -1, -1];
      const tighten = (c: number, v: number) => { if (w[c]! < 0 || v < w[c]!) w[c] = v; };
      for (const cls of CLASSES) {
        const pn = st.ub[cls]! - st.lb[cls]!;
        if (pn === 0) continue;
        const po = exits[r]!.pending[cls]!;
        const eo = Array.from(rg.nodes).filter((i) => issuesOn(traits, i, cls));
        const en = Array.from(s.order[r]!, (q) => rg.nodes[q]!).filter((i) => issuesOn(traits, i, cls));
        const c = CLASS_COUNTER[cls]!;
        if (!CLASS_IN_ORDER[cls]) {
          // any order: only "nothing of the region more pending than before" is safe, else wait for 0
          if (pn > po || (en.length > 0 && po < en.length)) tighten(c, 0);
          continue;
        }
        let allowed: number;
        if (po >= eo.length) allowed = po;
        else {
          const keepSet = new Set(eo.slice(eo.length - po));
          let n = 0;
          while (n < en.length && keepSet.has(en[en.length - 1 - n]!)) n++;
          allowed = Math.min(n, po);
        }
        // an in-order class on a counter shared with an out-of-order one: cnt(allowed) still
        // completes its older operations (they count only operations of their own kind)
        if (pn > allowed) tighten(c, allowed);
      }
      if (w.some((x2) => x2 >= 0)) next.set(jl + 1, { vm: w[0]!, lgkm: w[1]!, exp: w[2]! });
    });
    const same = next.size === forced.size && [...next].every(([j, w]) => { const o = forced.get(j); return o && o.vm === w.vm && o.lgkm === w.lgkm && o.exp === w.exp; });
    if (same) break;
    if (iter === CLOSING_ROUNDS) {
      throw new Error(`internal: the waits that close the changed regions of ${k.name} did not settle in ${CLOSING_ROUNDS} rounds`);
    }
    forced = next;
    kw = kernelWaits(ctx.cfg, f, max, { accept, after: lastNew, forced: withGiven(forced) });
  }
  return kw.inserted;
}

const padCache = new WeakMap<ScheduleKernel, Int32Array>();

/**
 * s_nop padding when the hazard engine is used directly: before instructions of changed regions
 * all of it; elsewhere only what exceeds the engine's padding of the original there (what the
 * original does without is its own business).
 */
function nopPolicy(s: ScheduleState): (ctx: KernelContext, j: number, pad: number) => number {
  const k = s.k;
  let toOrig: Int32Array | undefined;
  let changed: Set<number> | undefined;
  return (ctx, j, pad) => {
    if (pad <= 0) return 0;
    toOrig ??= alignToOriginal(s, ctx);
    changed ??= new Set(s.changedRegions());
    const i = toOrig[j]!;
    if (i < 0) return pad;
    if (k.role[i] === MOVABLE && changed.has(k.regionOf[i]!)) return pad;
    let orig = padCache.get(k);
    if (!orig) {
      orig = computeNops(k.ctx).pads;
      padCache.set(k, orig);
    }
    return Math.max(0, pad - orig[i]!);
  };
}

/**
 * For each instruction of the scheduled kernel, the original instruction it is (-1 for waits and
 * nops): the scheduled program is the original with changed regions permuted, their waits and
 * nops removed, and waits and nops inserted anywhere.
 */
export function alignToOriginal(s: ScheduleState, sched: KernelContext): Int32Array {
  const k = s.k;
  const expected: number[] = [];
  const seen = new Int32Array(k.regions.length);
  for (let i = 0; i < k.n; i++) {
    const base = k.insns[i]!.insn.base;
    if (base === 's_waitcnt' || base === 's_nop') continue;
    const r = k.regionOf[i]!;
    if (k.role[i] === MOVABLE && r >= 0) {
      const rg = k.regions[r]!;
      expected.push(rg.nodes[s.order[r]![seen[r]!]!]!);
      seen[r]!++;
    } else expected.push(i);
  }
  const out = new Int32Array(sched.insns.length).fill(-1);
  let p = 0;
  for (let j = 0; j < sched.insns.length; j++) {
    const base = sched.insns[j]!.insn.base;
    if (base === 's_waitcnt' || base === 's_nop') continue;
    const o = expected[p++];
    if (o === undefined || k.insns[o]!.insn.mnemonic !== sched.insns[j]!.insn.mnemonic) {
      throw new ConductorError(`internal: the scheduled kernel does not line up with the original at ${sched.insns[j]!.insn.loc.line} ('${sched.insns[j]!.insn.text}')`);
    }
    out[j] = o;
  }
  if (p !== expected.length) throw new ConductorError('internal: the scheduled kernel has fewer instructions than the original');
  return out;
}

/** Is instruction i of the kernel movable? */
export function isMovable(k: ScheduleKernel, i: number): boolean { return k.role[i] === MOVABLE; }
