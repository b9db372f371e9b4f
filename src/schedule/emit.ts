/**
 * From a schedule back to program text.
 *
 * 1. `reorderedText`: the regions whose order changed are written in the new order with their
 *    dependency s_waitcnt / s_nop removed; every other line is byte-identical. An instruction
 *    alone on its line moves with its line (trailing comment included) and with the comment
 *    lines directly above it. A macro invocation whose expansion holds a changed region is
 *    written out expanded (`// expanded from: ...`, one statement per line), since the macro
 *    body is shared by every call.
 * 2. `rederive`: minimal s_waitcnt and s_nop for the new order. The check machinery decides
 *    (`fixLoaded`, which applies the fixes of the registered waitcnt and hazard checkers); when
 *    it has no waitcnt checker the scheduler's own model (waits.ts) inserts the waits, and when
 *    it has no hazard checker the hazard engine's minimal padding (src/hazards) inserts the nops.
 *    The result is checked again: any error left (a hazard, a missing wait, a descriptor that
 *    does not cover the registers used) is an exception, never a written program.
 */
import type { Program, Statement } from '../asm/ast.js';
import { loadText, type Loaded } from '../load.js';
import { kernelContexts } from '../check/context.js';
import { checkContexts } from '../check/check.js';
import { fixLoaded, nopLines, waitcntText } from '../check/fix.js';
import { addInsert, applyStatementEdits, emptyEdits } from '../check/edit.js';
import type { KernelContext } from '../check/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { ConductorError } from '../errors.js';
import { MOVABLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { counterMax, kernelWaits, waitFacts } from './waits.js';
import { hazardEngine, hazardEngineError } from './hazard-model.js';
import { machinery } from './machinery.js';
import { missingCompletions } from './completion.js';
import { programMetrics, type Metrics } from './metrics.js';

interface Chunk { lines: string[]; eols: string[] }

function indentOf(text: string): string {
  const m = /^[ \t]*/.exec(text);
  return m ? m[0] : '';
}

/** Text of the program with the changed regions of `s` reordered and their waits/nops removed. */
export function reorderedText(s: ScheduleState, opts: { keepNops?: boolean } = {}): string {
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
    for (const i of rg.stripped) {
      if (opts.keepNops && k.insns[i]!.insn.base === 's_nop') continue;
      drop.add(cfg.insns[i]!.stmt);
    }
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

  // Owned comment lines: comment-only lines right above a simple line whose only instruction moves.
  const owned = new Map<number, number[]>(); // insn -> owned line indexes (top to bottom)
  const ownedLine = new Set<number>();
  const code = commentOnlyLines(program);
  for (const i of movedNodes) {
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
  for (let li = 0; li < program.lines.length; li++) {
    const line = program.lines[li]!;
    if (ownedLine.has(li)) continue;
    const stmts = stmtsOfLine.get(li);
    if (!stmts) { out.push(line.text + line.eol); continue; }
    const indent = indentOf(line.text);
    const eol = line.eol || '\n';
    const simple = isSimpleLine(li);
    const emitted: string[] = [];
    if (!simple) {
      const call = stmts.map((x) => program.statements[x]!).find((x) => x.kind === 'macroCall' && !x.expansion);
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
        if (S.kind === 'label') { emitted.push(`${indent}${S.name}:${eol}`); restFrom = S.loc.col - 1 + S.text.length + 1; continue; }
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

function statementText(s: Statement): string {
  if (s.kind === 'label') return `${s.name}:`;
  return s.insn ? s.insn.text : s.text;
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
  /** How waits and nops were derived. */
  waits: 'checkers' | 'schedule-model';
  nops: 'checkers' | 'hazard-engine' | 'unavailable';
  notes: string[];
}

function contextOf(l: Loaded, name: string): KernelContext {
  const c = kernelContexts(l).find((x) => x.kernel.name === name);
  if (!c) throw new ConductorError(`internal: kernel '${name}' disappeared from the scheduled program`);
  return c;
}

/**
 * Minimal s_waitcnt and s_nop for kernel `name` of `text` (whose dependency waits and nops of
 * changed regions were removed), then the whole file checked: throws when an error is left.
 */
export function rederive(text: string, file: string, arch: string, name: string,
  opts: {
    loaded?: Loaded;
    /** The waits were derived already (no waitcnt checker: the caller used its own model). */
    skipWaits?: boolean;
    /** Wait states to insert before instruction i given the engine's padding there (default: all of it). */
    nopPolicy?: (ctx: KernelContext, i: number, pad: number) => number;
  } = {}): Rederived {
  const m = machinery(arch);
  const notes: string[] = [];
  let cur = opts.loaded ?? loadText(text, file, { arch });
  let curText = text;
  let waits: Rederived['waits'] = 'checkers';
  let nops: Rederived['nops'] = 'checkers';
  if (!m.waits && !opts.skipWaits) {
    waits = 'schedule-model';
    const ctx = contextOf(cur, name);
    const f = waitFacts(ctx.insns, ctx.cfg.control);
    const kw = kernelWaits(ctx.cfg, f, counterMax(ctx.target));
    if (kw.inserted.size > 0) {
      const e = emptyEdits();
      for (const [i, w] of kw.inserted) {
        addInsert(e, ctx.cfg.insns[i]!.stmt, waitcntText({
          vmcnt: w.vm >= 0 ? w.vm : undefined, lgkmcnt: w.lgkm >= 0 ? w.lgkm : undefined, expcnt: w.exp >= 0 ? w.exp : undefined,
        }));
      }
      curText = applyStatementEdits(cur.program, e);
      cur = loadText(curText, file, { arch });
    }
  }
  if (!m.hazards) {
    const eng = hazardEngine();
    if (eng) {
      nops = 'hazard-engine';
      const ctx = contextOf(cur, name);
      const plan = eng.computeNops(ctx);
      if (plan.total > 0) {
        const e = emptyEdits();
        const maxImm = ctx.target.maxNopImm.value;
        for (let i = 0; i < plan.pads.length; i++) {
          const w = opts.nopPolicy ? opts.nopPolicy(ctx, i, plan.pads[i]!) : plan.pads[i]!;
          if (w > 0) for (const l of nopLines(w, maxImm)) addInsert(e, ctx.cfg.insns[i]!.stmt, l);
        }
        curText = applyStatementEdits(cur.program, e);
        cur = loadText(curText, file, { arch });
      }
    } else {
      nops = 'unavailable';
      notes.push(`no hazard rules available (${hazardEngineError() || 'no hazard checker registered'}): s_nop were not re-derived`);
    }
  }
  const fixed = fixLoaded(cur, { arch });
  if (fixed.text !== curText) {
    curText = fixed.text;
    cur = loadText(curText, file, { arch });
  }
  const errors = checkContexts(kernelContexts(cur)).flatMap((k) => k.findings.filter((f) => f.severity === 'error'));
  if (errors.length > 0) {
    const f = errors[0]!;
    throw new ConductorError(`the scheduled program does not check clean: ${f.message} [${f.rule}]`, f.loc);
  }
  return { text: curText, loaded: cur, waits, nops, notes };
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
    return { text, loaded: k.loaded, waits: 'checkers', nops: 'checkers', notes: [], changedRegions, metrics: programMetrics(k.loaded, k.name) };
  }
  const m = machinery(arch);
  const keepNops = !m.hazards && !hazardEngine();
  const text = reorderedText(s, { keepNops });
  // Without a waitcnt checker the scheduler's own model derives the waits of the changed
  // regions (see scheduleWaits); the rest of the kernel keeps the waits it has.
  let loaded = loadText(text, file, { arch });
  let builtin = false;
  if (!m.waits) {
    builtin = true;
    const ctx1 = contextOf(loaded, k.name);
    const ins = scheduleWaits(s, ctx1);
    if (ins.size > 0) {
      const e = emptyEdits();
      for (const [j, w] of ins) {
        addInsert(e, ctx1.cfg.insns[j]!.stmt, waitcntText({
          vmcnt: w.vm >= 0 ? w.vm : undefined, lgkmcnt: w.lgkm >= 0 ? w.lgkm : undefined, expcnt: w.exp >= 0 ? w.exp : undefined,
        }));
      }
      const t2 = applyStatementEdits(loaded.program, e);
      loaded = loadText(t2, file, { arch });
    }
  }
  const r = rederive(loaded.program.lines.map((l) => l.text + l.eol).join(''), file, arch, k.name, { loaded, skipWaits: builtin, nopPolicy: nopPolicy(s) });
  if (builtin) r.waits = 'schedule-model';
  if (keepNops) r.notes.push('s_nop of the reordered regions were kept where they were');
  // Memory operations complete at barriers, cache operations, messages, calls and returns stay complete.
  const sched = contextOf(r.loaded, k.name);
  const missing = missingCompletions(k.ctx, sched, alignToOriginal(s, sched));
  if (missing.size > 0) {
    const e = emptyEdits();
    for (const [i, w] of missing) addInsert(e, sched.cfg.insns[i]!.stmt, waitcntText({ vmcnt: w.vm, lgkmcnt: w.lgkm, expcnt: w.exp }));
    r.text = applyStatementEdits(r.loaded.program, e);
    r.loaded = loadText(r.text, file, { arch });
    r.notes.push(`${missing.size} wait${missing.size === 1 ? '' : 's'} kept in front of barriers, cache operations, messages, calls or returns`);
    const errors = checkContexts(kernelContexts(r.loaded)).flatMap((x) => x.findings.filter((f) => f.severity === 'error'));
    if (errors.length > 0) throw new ConductorError(`the scheduled program does not check clean: ${errors[0]!.message} [${errors[0]!.rule}]`, errors[0]!.loc);
  }
  return { ...r, changedRegions, metrics: programMetrics(r.loaded, k.name) };
}

interface RegionExit { pending: number[] }
const exitCache = new WeakMap<ScheduleKernel, RegionExit[]>();

/** Pending event counts (vm, lgkm, exp) right after each region of the original, under the model. */
function originalExits(k: ScheduleKernel): RegionExit[] {
  let e = exitCache.get(k);
  if (!e) {
    const kw = kernelWaits(k.ctx.cfg, waitFacts(k.insns, k.ctx.cfg.control), counterMax(k.target), {
      accept: () => false, after: k.regions.map((r) => r.last),
    });
    e = k.regions.map((r) => {
      const st = kw.after.get(r.last);
      return { pending: st ? [0, 1, 2].map((c) => st.ub[c]! - st.lb[c]!) : [0, 0, 0] };
    });
    exitCache.set(k, e);
  }
  return e;
}

/**
 * The waits of the changed regions of a schedule, with the scheduler's model, for the scheduled
 * kernel `ctx` (its waits and nops of changed regions removed). Outside the changed regions the
 * program's own waits are trusted (the model is pessimistic on paths that cannot run, so it would
 * ask for waits the program rightly does without). That is sound because each changed region is
 * made to end with no more memory operations pending than the original region left (per
 * counter, the operations still pending are among those the original left pending; otherwise a
 * wait closes the region).
 */
export function scheduleWaits(s: ScheduleState, ctx: KernelContext): Map<number, { vm: number; lgkm: number; exp: number }> {
  const k = s.k;
  const toOrig = alignToOriginal(s, ctx);
  const newOf = new Int32Array(k.n).fill(-1);
  for (let j = 0; j < toOrig.length; j++) if (toOrig[j]! >= 0) newOf[toOrig[j]!] = j;
  const changed = s.changedRegions();
  const inChanged = new Uint8Array(ctx.insns.length);
  const lastNew: number[] = [];
  for (const r of changed) {
    const rg = k.regions[r]!;
    for (const i of rg.nodes) inChanged[newOf[i]!] = 1;
    lastNew.push(newOf[rg.nodes[s.order[r]![rg.nodes.length - 1]!]!]!);
  }
  const f = waitFacts(ctx.insns, ctx.cfg.control);
  const max = counterMax(ctx.target);
  const exits = originalExits(k);
  const ooo = (i: number) => { const r = k.insns[i]!; return r.info.cls === 'smem' || r.info.cls === 'flat' || r.info.events.includes('message') || r.info.events.includes('gds'); };
  const counts = (r: ResolvedInsn, c: number) => (c === 0 ? r.info.counters.vm : c === 1 ? r.info.counters.lgkm : r.info.counters.exp) > 0;
  let forced = new Map<number, { vm: number; lgkm: number; exp: number }>();
  let kw = kernelWaits(ctx.cfg, f, max, { accept: (i) => inChanged[i] === 1, after: lastNew });
  for (let iter = 0; iter < 4; iter++) {
    const next = new Map<number, { vm: number; lgkm: number; exp: number }>();
    changed.forEach((r, x) => {
      const rg = k.regions[r]!;
      const jl = lastNew[x]!;
      const st = kw.after.get(jl);
      if (!st || jl + 1 >= ctx.insns.length) return;
      const w = [-1, -1, -1];
      for (let c = 0; c < 3; c++) {
        const pn = st.ub[c]! - st.lb[c]!;
        const po = exits[r]!.pending[c]!;
        const eo = Array.from(rg.nodes).filter((i) => counts(k.insns[i]!, c));
        const en = Array.from(s.order[r]!, (q) => rg.nodes[q]!).filter((i) => counts(k.insns[i]!, c));
        let allowed: number;
        if (po >= eo.length) allowed = po;
        else {
          const keep = new Set(eo.slice(eo.length - po));
          let n = 0;
          while (n < en.length && keep.has(en[en.length - 1 - n]!)) n++;
          allowed = Math.min(n, po);
          if (en.some(ooo) && allowed < pn) allowed = 0;
        }
        if (pn > allowed) w[c] = allowed;
      }
      if (w.some((x2) => x2 >= 0)) next.set(jl + 1, { vm: w[0]!, lgkm: w[1]!, exp: w[2]! });
    });
    const same = next.size === forced.size && [...next].every(([j, w]) => { const o = forced.get(j); return o && o.vm === w.vm && o.lgkm === w.lgkm && o.exp === w.exp; });
    if (same) break;
    forced = next;
    kw = kernelWaits(ctx.cfg, f, max, { accept: (i) => inChanged[i] === 1, after: lastNew, forced });
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
      orig = hazardEngine()?.computeNops(k.ctx).pads ?? new Int32Array(k.n);
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
