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
import { ConductorError } from '../errors.js';
import { MOVABLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { counterMax, kernelWaits, waitFacts } from './waits.js';
import { hazardEngine, hazardEngineError } from './hazard-model.js';
import { machinery } from './machinery.js';
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
export function rederive(text: string, file: string, arch: string, name: string): Rederived {
  const m = machinery(arch);
  const notes: string[] = [];
  let cur = loadText(text, file, { arch });
  let curText = text;
  let waits: Rederived['waits'] = 'checkers';
  let nops: Rederived['nops'] = 'checkers';
  if (!m.waits) {
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
          const w = plan.pads[i]!;
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
  const r = rederive(text, file, arch, k.name);
  if (keepNops) r.notes.push('s_nop of the reordered regions were kept where they were');
  return { ...r, changedRegions, metrics: programMetrics(r.loaded, k.name) };
}

/** Is instruction i of the kernel movable? */
export function isMovable(k: ScheduleKernel, i: number): boolean { return k.role[i] === MOVABLE; }
