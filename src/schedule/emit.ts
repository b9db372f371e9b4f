/**
 * From a schedule back to program text, checked clean, in named steps:
 *  1. reorder (reorder.ts): the changed regions written in their new order, their dependency
 *     waits and nops removed; every other line byte-identical;
 *  2. rederive waits (rederive.ts): the waitcnt analysis' minimal waits, kept to what the
 *     schedule needs, plus the waits that close each changed region;
 *  3. pad, complete and tidy, in one edit: the hazard engine's minimal s_nop padding
 *     (src/hazards), all of it inside the changed regions and what exceeds the original's
 *     padding elsewhere; memory operations complete at barriers, cache operations, messages,
 *     calls and returns in the original stay complete (completion.ts); the waits tidied
 *     (rederive.ts tidyWaits): those that wait for nothing removed, those in a row merged;
 *  4. fix: the default checkers run; an error the original does not have is fixed with the
 *     finding's fix (fix.ts planFixes) or, when it cannot be, is an exception — a program with a
 *     new hazard, a new missing wait or a descriptor that does not cover its registers is never
 *     returned (a wait the tidying removed was an issue slot: a hazard it covered is padded here);
 *  5. tidy again, then 4 again, only where 3 or 4 wrote waits the tidying did not see (the
 *     completions, a fix's wait).
 * align.ts lines the scheduled kernel up with the original for every step that compares them.
 */
import { loadText, type Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts, checkerFindings } from '../check/check.js';
import { addNopLines, planFixes, waitcntText } from '../check/fix.js';
import { addInsert, emptyEdits, loadEdited, mergeEdits } from '../check/edit.js';
import type { Finding, KernelContext } from '../analysis/types.js';
import { ConductorError } from '../errors.js';
import { ROLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { computeNops } from '../hazards/engine.js';
import { hazardInsnsAligned } from '../hazards/context.js';
import { printProgram } from '../asm/printer.js';
import { LineOrigins, type LineReuse } from '../asm/program.js';
import { missingCompletions } from './completion.js';
import { checkFastFromEnv, contextMetrics, FastPathMismatch, programMetrics, type Metrics } from './metrics.js';
import { reorderedText, reorderReuse } from './reorder.js';
import { alignToOriginal } from './align.js';
import { memMark } from '../memtrace.js';
import { seedCycleModel } from '../cycles/estimate.js';
import { rederivedWaits, tidyWaits, type StatementEdits } from './rederive.js';
import { keptMissing } from '../waitcnt/index.js';
import { counted } from '../text.js';

/* ---------------------------------------------------------------------------------------------- */
/* Re-derivation                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

export interface Rederived {
  text: string;
  loaded: Loaded;
  notes: string[];
}

export interface Emitted extends Rederived {
  /** Regions written in a new order. */
  changedRegions: number[];
  metrics: Metrics;
}

/**
 * The scheduled program while it is being written: its text and that text loaded. Only one
 * loaded form is alive at a time: an edit drops the current one before loading the next.
 */
class Draft {
  text: string;
  #loaded: Loaded | undefined;
  /**
   * The kernels' contexts in the current text, made once per text: the steps that read the same
   * text share them and what is computed per context (hazard facts, waitcnt effects).
   */
  private ctxs?: KernelContext[];
  /**
   * Whether the scheduled kernel's instructions other than s_waitcnt and s_nop are the original
   * kernel's, in the schedule's order and resolved as they were: the reordered draft, and a draft
   * made from such a one by an edit of waits and nops only (carriedEdit). Then they take the
   * original's hazard facts, aligned with it (alignToOriginal), when the contexts are made.
   */
  private aligned: boolean;

  /** `reuse`: what the parse of `text` may copy from the program `from` (LineReuse), and its resolutions. */
  constructor(text: string, private readonly file: string, private readonly arch: string, readonly checkFast: boolean,
    private readonly s: ScheduleState, reuse?: { lines: LineReuse; from: Loaded }) {
    this.text = text;
    this.aligned = true;
    this.#loaded = loadText(text, file, { arch, ...(reuse ? { reuse: reuse.lines, reuseResolution: reuse.from.resolvedStore, checkFast } : {}) });
  }

  get loaded(): Loaded { return this.#loaded!; }

  contexts(): KernelContext[] {
    if (this.ctxs === undefined) {
      this.ctxs = kernelContexts(this.loaded);
      const mine = this.aligned ? this.scheduledIn(this.ctxs) : undefined;
      if (mine) alignedFacts.kept += hazardInsnsAligned(mine, this.s.k.ctx, alignToOriginal(this.s, mine), this.checkFast) ? 1 : 0;
    }
    return this.ctxs;
  }

  private scheduledIn(ctxs: KernelContext[] | undefined): KernelContext | undefined {
    return ctxs?.find((x) => x.kernel.name === this.s.k.name);
  }

  /** The scheduled kernel's context in the current text. */
  ctx(): KernelContext {
    const c = this.scheduledIn(this.contexts());
    if (!c) throw new ConductorError(`internal: kernel '${this.s.k.name}' disappeared from the scheduled program`);
    return c;
  }

  /**
   * Apply statement edits (inserted / replaced / removed lines) and load the result. An edit of
   * waits and nops only (carriedEdit) is parsed copying the rows of the lines it did not touch,
   * and their resolutions (LineReuse, ResolveReuse), and its scheduled kernel stays aligned with
   * the original (it takes the original's hazard facts).
   */
  edit(e: StatementEdits): void {
    const { text, loaded, carried } = loadEdited(this.loaded, e, { file: this.file, arch: this.arch, checkFast: this.checkFast });
    this.aligned &&= carried;
    this.ctxs = undefined;
    this.text = text;
    this.#loaded = loaded;
  }
}

/** The scopes of the first check after padAndComplete, counted (for the tests). */
export const paddedChecks = { hazards: 0, hazardsAndWaits: 0 };

/** Emitted programs whose cycle model was made from the original's (seedCycleModel; for the tests). */
export const cycleModelsSeeded = { made: 0 };

/** Drafts whose scheduled kernel took its hazard facts from the original kernel's (alignToOriginal; for the tests). */
export const alignedFacts = { kept: 0 };

export interface EmitOptions {
  /**
   * Also run the whole check wherever emission re-checks only what an edit can change, and
   * throw FastPathMismatch when the two disagree (default: CONDUCTOR_CHECK_FAST=1). Slow: for
   * tests.
   */
  checkFast?: boolean;
}

/**
 * The program text of a schedule: changed regions reordered, waits and nops re-derived, checked
 * clean, with exact metrics. Without changes the original text is returned as it is.
 */
export function emitSchedule(s: ScheduleState, opts: EmitOptions = {}): Emitted {
  const k = s.k;
  const changedRegions = s.changedRegions();
  if (changedRegions.length === 0) {
    const text = printProgram(k.loaded.program);
    return { text, loaded: k.loaded, notes: [], changedRegions, metrics: programMetrics(k.loaded, k.name, { trip: k.options.trip }) };
  }
  const notes: string[] = [];
  const origins = new LineOrigins();
  const text = reorderedText(s, origins);
  const lines = reorderReuse(k.loaded.program, origins);
  const d = new Draft(text, k.loaded.program.file, k.target.name, opts.checkFast ?? checkFastFromEnv(), s, lines && { lines, from: k.loaded });
  memMark('emit reordered');
  rederiveWaits(s, d);
  memMark('emit waits');
  const { waitsAdded, waitsClean } = padAndComplete(s, d, notes);
  memMark('emit padded');
  paddedChecks[waitsClean ? 'hazards' : 'hazardsAndWaits']++;
  const fixed = fixNewErrors(s, d, waitsClean ? 'hazards' : 'hazards+waitcnt');
  memMark('emit fixed');
  // The tidying went with the padding (padAndComplete); waits written after it (the completions,
  // a fix's) may stand beside others or make one wait for nothing: tidied again, as above.
  if (waitsAdded || fixed) {
    const tidy = tidyWaits(s, d.loaded, d.ctx());
    if (tidy.edits > 0) {
      d.edit(tidy.plan);
      fixNewErrors(s, d, 'hazards');
    }
  }
  memMark('emit tidied');
  // the exact metrics' cycle model: the original's rows for the instructions the program kept
  const ctx = d.ctx();
  cycleModelsSeeded.made += seedCycleModel(ctx, k.ctx, alignToOriginal(s, ctx), d.checkFast) ? 1 : 0;
  return { text: d.text, loaded: d.loaded, notes, changedRegions, metrics: contextMetrics(ctx, { trip: k.options.trip }) };
}

/** Waits: see rederive.ts. */
function rederiveWaits(s: ScheduleState, d: Draft): void {
  const e = rederivedWaits(s, d.ctx(), d.checkFast);
  if (e) d.edit(e);
}

/**
 * Nops (the hazard engine's minimal padding, kept to what the schedule needs), the waits that
 * keep memory operations complete at synchronization points, and the tidying of the waits, in
 * one edit of the program the waits were re-derived in. Tidying makes the waits minimal and
 * merged: a wait the analysis finds waits for nothing, where the input had none, is removed, and
 * waits standing together before one instruction become one wait (tidyWaits). Neither changes a
 * counter's state, and an s_nop changes none either, so the tidying found here is the tidying of
 * the padded program; but a removed wait was also an issue slot: a hazard it happened to cover
 * gets its s_nop from the check that follows (fixNewErrors), which runs on every emission.
 * Returns whether it wrote waits of its own (the completions), which tidying has not seen, and
 * whether the waitcnt analysis of the program it edited (made for the tidying) found no wait
 * missing, as error or warning: then the edit leaves none missing either (an s_nop changes no
 * counter, a completion only lowers them, tidying changes no state), and the check that follows
 * need not run the waitcnt analysis again (CheckScope).
 */
function padAndComplete(s: ScheduleState, d: Draft, notes: string[]): { waitsAdded: boolean; waitsClean: boolean } {
  const ctx = d.ctx();
  const e = emptyEdits();
  let edits = 0;
  const plan = computeNops(ctx);
  const policy = nopPolicy(s);
  const maxImm = ctx.target.maxNopImm.value;
  for (let j = 0; j < plan.pads.length; j++) {
    const w = policy(ctx, j, plan.pads[j]!);
    if (w > 0) edits += addNopLines(e, ctx.cfg.insns[j]!.stmt, w, maxImm);
  }
  const missing = missingCompletions(s.k.ctx, ctx, alignToOriginal(s, ctx));
  for (const [j, w] of missing) { addInsert(e, ctx.cfg.insns[j]!.stmt, waitcntText({ vmcnt: w.vm, lgkmcnt: w.lgkm, expcnt: w.exp })); edits++; }
  if (missing.size > 0) notes.push(`${counted(missing.size, 'wait')} kept in front of barriers, cache operations, messages, calls or returns`);
  const tidy = tidyWaits(s, d.loaded, ctx);
  // the analysis tidyWaits' check made (checkWaitcnt: judged, per type)
  const waitsClean = keptMissing(ctx)?.length === 0;
  mergeEdits(e, tidy.plan);
  if (edits + tidy.edits > 0) d.edit(e);
  return { waitsAdded: missing.size > 0, waitsClean };
}

/** Rounds of fixes before a scheduled program that still does not check clean is refused. */
const FIX_ROUNDS = 3;

/**
 * Whatever the checkers find that the original does not have is fixed with their fixes
 * (s_nop / s_waitcnt); then nothing new may be left. `first`: what the first round checks (see
 * CheckScope); the rounds after a fix check hazards and waits. Returns whether a fix wrote a wait.
 */
function fixNewErrors(s: ScheduleState, d: Draft, first: CheckScope): boolean {
  let waits = false;
  for (let round = 0; ; round++) {
    const fresh = newErrors(s, d, round === 0 ? first : 'hazards+waitcnt');
    if (fresh.length === 0) return waits;
    const fixable = fresh.filter((f) => f.finding.fix && (f.finding.fix.kind === 'nop' || f.finding.fix.kind === 'waitcnt'));
    if (fixable.length === 0 || round === FIX_ROUNDS) {
      const f = fresh[0]!.finding;
      throw new ConductorError(`the scheduled program does not check clean: ${f.message} [${f.rule}]`, f.loc);
    }
    waits ||= fixable.some((f) => f.finding.fix!.kind === 'waitcnt');
    const byCtx = new Map<KernelContext, Finding[]>();
    for (const f of fixable) { const l = byCtx.get(f.ctx) ?? []; l.push(f.finding); byCtx.set(f.ctx, l); }
    d.edit(planFixes([...byCtx].map(([c, findings]) => ({ ctx: c, findings }))).edits);
  }
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
 * What a check of the scheduled kernel runs, by what the edits since the last check can change
 * (the other kernels of the file are always checked whole):
 *  - the descriptor's register coverage (analysis/resources.ts, the only error the resource
 *    check reports) is never run: the scheduled kernel names the registers the original names
 *    (the same instructions in another order, waits and nops added or removed, which name no
 *    register), so its errors are the original's, which newErrors discounts;
 *  - 'hazards+waitcnt': after a reordering or inserted waits and nops;
 *  - 'hazards': after tidyWaits, which removes only waits that wait for nothing and merges runs
 *    of waits with nothing between them into one wait with the same effect (no counter state
 *    changes, so no missing-wait finding does), while each wait removed was an issue slot; and
 *    after padAndComplete when the waitcnt analysis of the program it edited found no wait
 *    missing: its s_nops change no counter, its completions only lower them and its tidying
 *    changes no state, so no wait is missing after it either.
 * With EmitOptions.checkFast the whole check runs beside it and the two must agree.
 */
export type CheckScope = 'hazards+waitcnt' | 'hazards';

export interface Fresh { ctx: KernelContext; finding: Finding }

/**
 * Error findings of a scheduled program that the original does not have (the schedule must not
 * add any; what the original already had is the original's business). Findings of the scheduled
 * kernel are matched by rule and original instruction, those of other kernels by rule and text.
 */
function newErrors(s: ScheduleState, d: Draft, scope: CheckScope): Fresh[] {
  const fresh = scheduleErrors(s, d.contexts(), scope);
  if (d.checkFast) {
    const show = (l: Fresh[]) => l.map((f) => `${f.ctx.kernel.name}:${f.finding.insn}:${f.finding.rule}:${f.finding.message}`);
    const a = show(fresh).join('\n');
    const b = show(scheduleErrors(s, d.contexts(), 'whole')).join('\n');
    if (a !== b) throw new FastPathMismatch(`fast path check: emit's ${scope} check of ${s.k.name} found\n${a || '(nothing)'}\nthe whole check\n${b || '(nothing)'}`);
  }
  return fresh;
}

const originalTextsCache = new WeakMap<ScheduleKernel, Map<string, { texts: string[]; descriptor: string }>>();

/** What the original file's other kernels are made of, by name: their instructions' text and their descriptor's values. */
function originalTexts(k: ScheduleKernel): Map<string, { texts: string[]; descriptor: string }> {
  let m = originalTextsCache.get(k);
  if (!m) {
    m = new Map();
    for (const c of kernelContexts(k.loaded)) if (c.kernel.name !== k.name) m.set(c.kernel.name, kernelMakeup(c));
    originalTextsCache.set(k, m);
  }
  return m;
}

/** Other kernels newErrors checked and left unchecked as unchanged (for the bench and tests). */
export const otherKernels = { checked: 0, skipped: 0 };

function kernelMakeup(c: KernelContext): { texts: string[]; descriptor: string } {
  return { texts: c.insns.map((r) => r.insn.text), descriptor: JSON.stringify(c.kernel.descriptor?.values ?? null) };
}

/**
 * Whether another kernel of the scheduled program is the original's kernel of that name: the same
 * instructions, written the same, and the same descriptor values. Its checks then find what they
 * found in the original (a kernel's findings follow from its instructions, its descriptor and the
 * target; what the schedule changes elsewhere, the scheduled kernel's order, waits and nops, names
 * no register and defines no symbol another kernel's instructions read), all of which newErrors
 * discounts: it is not checked again (the whole check, EmitOptions.checkFast, still checks it).
 */
function unchangedOther(k: ScheduleKernel, c: KernelContext): boolean {
  const o = originalTexts(k).get(c.kernel.name);
  if (!o || o.texts.length !== c.insns.length) return false;
  for (let i = 0; i < c.insns.length; i++) if (c.insns[i]!.insn.text !== o.texts[i]) return false;
  return o.descriptor === JSON.stringify(c.kernel.descriptor?.values ?? null);
}

/**
 * The error findings of the scheduled program `ctxs` (the kernels of a program emitted from
 * `s`) that the original does not have, from the checks of `scope` on the scheduled kernel
 * ('whole': every checker and the resource check, on every kernel; otherwise a kernel the
 * schedule left as the original had it is not checked, unchangedOther), in the order
 * checkContexts gives them.
 */
export function scheduleErrors(s: ScheduleState, ctxs: readonly KernelContext[], scope: CheckScope | 'whole'): Fresh[] {
  const k = s.k;
  const orig = new Map(originalErrors(k));
  const out: Fresh[] = [];
  for (const c of ctxs) {
    const mine = c.kernel.name === k.name;
    if (!mine && scope !== 'whole') {
      if (unchangedOther(k, c)) { otherKernels.skipped++; continue; }
      otherKernels.checked++;
    }
    // a shortfall on any path counts
    const findings = mine && scope !== 'whole' ? scopedFindings(c, scope) : checkContexts([c], { paths: 'all' })[0]!.findings;
    const toOrig = mine ? alignToOriginal(s, c) : undefined;
    for (const f of findings) {
      if (f.severity !== 'error') continue;
      let where: string;
      if (toOrig) where = f.insn >= 0 && toOrig[f.insn]! >= 0 ? `#${toOrig[f.insn]}` : f.insn >= 0 ? `new:${f.insn}` : 'kernel';
      else where = `${c.kernel.name}:${f.insn >= 0 ? c.insns[f.insn]!.insn.text : 'kernel'}`;
      const key = errorKey(f.rule, where);
      const n = orig.get(key) ?? 0;
      if (n > 0) { orig.set(key, n - 1); continue; }
      out.push({ ctx: c, finding: f });
    }
  }
  return out;
}

const SCOPE_CHECKERS: Record<CheckScope, readonly string[]> = { 'hazards+waitcnt': ['hazards', 'waitcnt'], hazards: ['hazards'] };

/** The findings of the checkers of `scope` on one kernel, in checkContexts' order. */
function scopedFindings(c: KernelContext, scope: CheckScope): Finding[] {
  return checkerFindings(c, SCOPE_CHECKERS[scope], { paths: 'all' });
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
    if (k.role[i] === ROLE.movable && changed.has(k.regionOf[i]!)) return pad;
    let orig = padCache.get(k);
    if (!orig) {
      orig = computeNops(k.ctx).pads;
      padCache.set(k, orig);
    }
    return Math.max(0, pad - orig[i]!);
  };
}
