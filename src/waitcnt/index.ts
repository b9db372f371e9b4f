/**
 * Waitcnt checking and minimal waits (issue "Check", part 3). See model.ts for the counter
 * model and analysis.ts for the dataflow, the fences and the judgement of existing waits.
 *
 *  - checkWaitcnt(ctx): findings — 'waitcnt-missing' (error: a register read or overwritten
 *    while its memory operation may be outstanding), 'waitcnt-fence' (error: a required full
 *    wait is missing before a return or at a function's entry; a warning before s_barrier on
 *    targets without back-off barrier, LLVM's policy there: SOURCES.barrier), 'waitcnt-redundant' (warning: waits for nothing outstanding),
 *    'waitcnt-too-strong' (note: stronger than any later read needs; weakest safe value given).
 *  - minimalWaits(ctx): the waits to insert, each right before the first instruction needing it,
 *    with the weakest safe values, given the waits already present.
 *  - rederiveWaits(ctx): the same after setting aside every dependency wait (all s_waitcnt that
 *    are not fences) — what the scheduler uses after reordering. minimalWaits on a kernel whose
 *    dependency waits were deleted gives the same answer.
 */
import type { Finding, KernelContext } from '../analysis/types.js';
import { COUNTER_NAMES, NO_WAIT, SOURCES, counterMax, kernelEffects } from './model.js';
import { analyzeWaitcnt, isCallable, keptAnalysis, waitText, type Counts, type WaitcntResult, type WaitInsertion, type WaitJudgement } from './analysis.js';
import { shortPath, shortStraightAfter } from './witness.js';
import { ConductorError } from '../errors.js';
import { firstRawWords } from '../analysis/rawwords.js';

export { analyzeWaitcnt, waitPositions, isCallable, waitText } from './analysis.js';
export type { WaitInsertion, WaitJudgement, WaitcntResult, FenceKind, FenceTarget, WaitPosition, AnalysisOptions, NeedReason, Counts, MissingNeed } from './analysis.js';
export { kernelEffects, NO_WAIT, COUNTER_NAMES } from './model.js';

/**
 * Which missing waits are errors:
 *  - 'every' (default): a wait that falls short on every path into the instruction, or on the
 *    straight path from its producer (no conditional branch between them: witness.ts
 *    shortStraightAfter), is an error; one that falls short only on some paths (a branch edge,
 *    a loop entry or back-edge the value analysis of paths.ts cannot exclude) is a warning whose
 *    related notes name one such path;
 *  - 'all': every path is treated as feasible, every shortfall is an error.
 */
export type PathsMode = 'every' | 'all';
export const PATHS_MODES: readonly PathsMode[] = ['every', 'all'];

/** The --paths option: undefined when not given, an input error (exit 2) when unknown. */
export function pathsMode(v: string | undefined): PathsMode | undefined {
  if (v === undefined) return undefined;
  if (!(PATHS_MODES as readonly string[]).includes(v)) throw new ConductorError(`--paths takes ${PATHS_MODES.join(' or ')}, got '${v}'`);
  return v as PathsMode;
}

/** The rules of the findings checkWaitcnt makes. */
export const WAITCNT_RULES: ReadonlySet<string> = new Set(['waitcnt-missing', 'waitcnt-fence', 'waitcnt-redundant', 'waitcnt-too-strong']);

/** Options shared by the entry points (see AnalysisOptions.mixed). */
export interface WaitcntOptions {
  mixed?: 'per-type' | 'force-zero';
  paths?: PathsMode;
}

/** All waitcnt findings of one kernel. */
export function checkWaitcnt(ctx: KernelContext, opts: WaitcntOptions = {}): Finding[] {
  const r = analyzeWaitcnt(ctx, { mixed: opts.mixed, judge: true });
  const out: Finding[] = (opts.paths ?? 'every') === 'all' || r.missing.length === 0 ? [...r.missing] : classifyPaths(ctx, r, opts);
  // the judgements see the program with the missing waits inserted (as --fix inserts them):
  // with missing waits, a wait may be needed as written and wait for nothing only once they are in
  // (--fix inserts the errors' waits; a warning's wait counts too, as the analysis goes on past it)
  const once = out.some((f) => f.severity === 'error') ? ' once the missing waits reported for this kernel are inserted (as --fix does)'
    : out.some((f) => f.rule === 'waitcnt-missing' && f.source !== SOURCES.ldsDma) // an LDS-DMA wait is not counted
      ? ' (counting the waits the waitcnt-missing warnings of this kernel name as present)' : '';
  // A kernel that jumps by raw offset (Cfg.rawJumps): the analysis does not follow those jumps,
  // so a block they enter may have more outstanding than it sees (MIOpen's Winograd v30 skips an
  // s_call with 's_cbranch_scc1 7' and its 'lgkmcnt(5)' after it is needed on that path). That a
  // wait is redundant or too strong is not claimed there; missing waits still are.
  // Likewise data words among the instructions (an instruction encoded by hand): what they count is unknown.
  const judge = ctx.cfg.rawJumps.length === 0 && !firstRawWords(ctx.program, ctx.cfg.insns);
  for (const j of judge ? r.judgements : []) {
    const f = judgementFinding(ctx, j, once);
    if (f) out.push(f);
  }
  out.sort((a, b) => a.insn - b.insn || a.rule.localeCompare(b.rule));
  return out;
}

function judgementFinding(ctx: KernelContext, j: WaitJudgement, once: string): Finding | undefined {
  const insn = ctx.insns[j.insn]!.insn;
  const written = waitText(j.values);
  if (j.verdict === 'redundant') {
    return {
      rule: 'waitcnt-redundant', severity: 'warning',
      message: `${insn.text.trim() || written} waits for nothing: no memory operation counted by ${countersOf(j.values)} can be outstanding here${once}`,
      loc: insn.loc, insn: j.insn, related: [], fix: { kind: 'remove', insn: j.insn }, source: SOURCES.counters + '; ' + SOURCES.missing,
    };
  }
  if (j.verdict !== 'too-strong') return undefined;
  const next: Counts = [NO_WAIT, NO_WAIT, NO_WAIT];
  let first = -1;
  for (let c = 0; c < 3; c++) {
    if (!j.effect[c]) continue;
    next[c] = j.weakest[c]!;
    if (first < 0 && j.values[c]! < j.weakest[c]!) first = c;
  }
  const max = [ctx.target.counters.vmcnt.value, ctx.target.counters.lgkmcnt.value, ctx.target.counters.expcnt.value];
  const none = next.every((v) => v === NO_WAIT);
  const c = first;
  const required = next[c] === NO_WAIT ? max[c]! : next[c]!;
  const base = {
    rule: 'waitcnt-too-strong', severity: 'note' as const, loc: insn.loc, insn: j.insn, required, actual: j.values[c]!,
    related: [], source: SOURCES.missing,
  };
  if (none) {
    return {
      ...base,
      message: `${written} is not needed: nothing after it reads (or overwrites) a result it waits for; it can be removed`,
      fix: { kind: 'remove', insn: j.insn },
    };
  }
  const fix: { kind: 'set-waitcnt'; insn: number; vmcnt?: number; lgkmcnt?: number; expcnt?: number } = { kind: 'set-waitcnt', insn: j.insn };
  if (next[0] !== NO_WAIT) fix.vmcnt = next[0];
  if (next[1] !== NO_WAIT) fix.lgkmcnt = next[1];
  if (next[2] !== NO_WAIT) fix.expcnt = next[2];
  return {
    ...base,
    message: `${written} is stronger than needed: ${waitText(next)} is the weakest wait that covers every later read${once}`,
    fix,
  };
}

/**
 * Missing waits needed on every path, or short on the straight path from their producer, stay
 * errors; the others become warnings naming one path on which the wait falls short (the branches
 * on it, from the producer to the instruction).
 */
function classifyPaths(ctx: KernelContext, r: WaitcntResult, opts: WaitcntOptions): Finding[] {
  // the waits needed on every path, wanted only at the instructions missing one
  const every = analyzeWaitcnt(ctx, { mixed: opts.mixed, meet: true, only: new Set(r.missing.map((f) => f.insn)) }).everyPath!;
  const fx = kernelEffects(ctx);
  const max = counterMax(ctx);
  const insns = ctx.cfg.insns;
  return r.missing.map((f, k) => {
    const need = r.missingNeeds[k]!;
    // the LDS-DMA need is a warning on every path already (its paths are not counted)
    if (need.reason === 'lds-dma' || every.has(3 * f.insn + need.c)) return f;
    const unit = need.units[0];
    const query = need.producer >= 0 && unit !== undefined
      ? { producer: need.producer, consumer: f.insn, unit, cls: need.cls, max, callable: isCallable(ctx) } : undefined;
    // short right after the producer, with no branch between them: an error however it is reached
    if (query && shortStraightAfter(ctx, fx, query)) {
      const mn = ctx.insns[query.producer]!.insn.mnemonic;
      return { ...f, message: `${f.message}; no conditional branch lies between them, so it falls short every time the ${mn} runs` };
    }
    const related = [...f.related];
    const path = query ? shortPath(ctx, fx, query) : undefined;
    for (const s of path ?? []) {
      const b = insns[s.branch]!;
      related.push({ loc: b.loc, insn: s.branch, message: `on that path ${b.mnemonic} ${s.taken ? 'branches' : 'falls through'}${s.back ? ' (back to the loop head)' : ''}` });
    }
    const where = path && path.length > 0 ? ` (one of them goes through the ${path.length === 1 ? 'branch' : `${path.length} branches`} noted)` : '';
    return {
      ...f, severity: 'warning' as const, related, somePaths: true as const,
      message: `${f.message}; it falls short only on some paths into it${where}; an error with --paths all`,
    };
  });
}

function countersOf(v: Counts): string {
  const names = [0, 1, 2].filter((c) => v[c] !== NO_WAIT).map((c) => COUNTER_NAMES[c]);
  return names.length ? names.join('/') : 'it';
}

/** Waits to insert so that every read is covered (existing waits kept). */
export function minimalWaits(ctx: KernelContext, opts: WaitcntOptions = {}): WaitInsertion[] {
  return analyzeWaitcnt(ctx, opts).insertions;
}

/** The existing s_waitcnt instructions that are dependency waits (not fences): what rescheduling strips. */
export function dependencyWaits(ctx: KernelContext, opts: WaitcntOptions = {}): number[] {
  return analyzeWaitcnt(ctx, { ...opts, judge: true }).judgements.filter((j) => j.verdict !== 'fence' && j.verdict !== 'unreachable').map((j) => j.insn);
}

/** Indexes of the s_waitcnt instructions that are fences, with the kind of fence. */
export function fenceWaits(ctx: KernelContext): Map<number, NonNullable<WaitJudgement['fence']>> {
  return fencesOf(analyzeWaitcnt(ctx, { judge: true }));
}

/**
 * fenceWaits' indexes when the analysis they come from is already kept for `ctx` (a check of
 * the program made it), else undefined: what a thread that checked a program can hand a worker
 * thread preparing the same program (schedule/search/task.ts), which would otherwise make the
 * whole analysis again for them.
 */
export function keptFenceWaits(ctx: KernelContext): number[] | undefined {
  const r = keptAnalysis(ctx, { judge: true });
  return r && [...fencesOf(r).keys()];
}

/**
 * The waits the kept judged analysis of `ctx` (a check of the program made it) finds missing,
 * errors and warnings, or undefined when none is kept (this computes nothing).
 */
export function keptMissing(ctx: KernelContext): readonly Finding[] | undefined {
  return keptAnalysis(ctx, { judge: true })?.missing;
}

function fencesOf(r: WaitcntResult): Map<number, NonNullable<WaitJudgement['fence']>> {
  const out = new Map<number, NonNullable<WaitJudgement['fence']>>();
  for (const j of r.judgements) if (j.fence) out.set(j.insn, j.fence);
  return out;
}

/**
 * The waits to insert once every dependency wait is set aside (fences stay): what the scheduler
 * uses after reordering. `strip` overrides which waits are set aside.
 */
export function rederiveWaits(ctx: KernelContext, strip?: Iterable<number>, opts: WaitcntOptions = {}): WaitInsertion[] {
  const skip = new Set(strip ?? dependencyWaits(ctx, opts));
  return analyzeWaitcnt(ctx, { ...opts, skip }).insertions;
}
