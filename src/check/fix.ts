/**
 * `check --fix`: turn the fixes of error findings into source edits (minimal s_nop merged with
 * an s_nop already in front of the consumer and split into chunks the target allows; minimal
 * s_waitcnt merged with a wait already in front), re-check the result, and repeat until clean.
 * Nothing is returned as fixed unless the re-check finds no error.
 */
import type { KernelContext, Finding } from '../analysis/types.js';
import type { Program, WaitcntOperand } from '../asm/ast.js';
import { ParsedProgram } from '../asm/program.js';
import { printProgram } from '../asm/printer.js';
import { addInsert, emptyEdits, loadEdited, type StatementEdits } from './edit.js';
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { pcRelativeSpans } from '../analysis/cfg.js';
import { checkContexts, checkerFindings, rawJumpRefusal, type KernelCheck } from './check.js';
import { checkFastFromEnv, ConductorError, FastPathMismatch } from '../errors.js';
import { carryFacts, hazardInsnsCarried, type CarriedFacts } from '../hazards/context.js';
import { ALL_RULES, computeNops } from '../hazards/index.js';
import { WAITCNT_RULES, type PathsMode } from '../waitcnt/index.js';
import { lineHunks, type Hunk } from './line-diff.js';
import { lineRef, type InputLine } from '../asm/include.js';
import { counted } from '../text.js';

const MAX_ROUNDS = 6;
const ALL_KINDS: ReadonlySet<'nop' | 'waitcnt'> = new Set(['nop', 'waitcnt']);
const WAITS_ONLY: ReadonlySet<'nop' | 'waitcnt'> = new Set(['waitcnt']);

export interface FixResult {
  text: string;
  rounds: number;
  insertedNops: number;
  insertedWaitStates: number;
  insertedWaits: number;
  /** Existing s_waitcnt made stronger (a missing wait merged into the one right before). */
  strengthenedWaits: number;
  /** Existing s_nop given more wait states. */
  extendedNops: number;
  /** Every change, by line of the input (see fixChanges). */
  changes: FixChange[];
  /**
   * The line hunks that turn the input's text into `text` (lineHunks, lines cut at '\n'), from
   * which `changes` is made; absent when nothing changed or too many lines differ.
   */
  hunks?: Hunk[];
  /**
   * The waitcnt analysis' warnings and notes of the fixed program (--fix fixes errors only): the
   * waits short only on some paths among them. The other checkers' warnings are not here: the
   * rounds after one that only inserted or strengthened waits do not run them (CheckScope).
   */
  waitcntWarnings: Finding[];
  /** `text` loaded as the last round loaded and checked it (with the input's file and target); absent when nothing changed. */
  loaded?: Loaded;
}

/**
 * One place the fixed text differs from the input. `line`: the 1-based input line changed, or the line the new lines were inserted before; `file`:
 * the file that holds it, when it is not the input itself (a file the input `.include`s).
 */
export interface FixChange extends InputLine {
  /** The input lines replaced (empty for an insertion) and the lines written instead. */
  before: string[];
  after: string[];
}

export interface FixOptions {
  arch?: string;
  /** Which missing waits are errors, and so fixed (waitcnt PathsMode; default 'every'). */
  paths?: PathsMode;
  /** Fix only these kernels' errors; every other kernel stays as written (default: every kernel). */
  kernels?: ReadonlySet<string>;
  /**
   * The caller's checks of the input with these options (checkContexts of its kernelContexts,
   * by kernel name): the first round takes them instead of checking the same program again.
   */
  checks?: readonly KernelCheck[];
}

interface Counters { vmcnt?: number; expcnt?: number; lgkmcnt?: number }

function minCounters(a: Counters, b: Counters): Counters {
  const m = (x?: number, y?: number) => (x === undefined ? y : y === undefined ? x : Math.min(x, y));
  return { vmcnt: m(a.vmcnt, b.vmcnt), expcnt: m(a.expcnt, b.expcnt), lgkmcnt: m(a.lgkmcnt, b.lgkmcnt) };
}

export function waitcntText(c: Counters): string {
  const parts: string[] = [];
  if (c.vmcnt !== undefined) parts.push(`vmcnt(${c.vmcnt})`);
  if (c.expcnt !== undefined) parts.push(`expcnt(${c.expcnt})`);
  if (c.lgkmcnt !== undefined) parts.push(`lgkmcnt(${c.lgkmcnt})`);
  return parts.length === 0 ? 's_waitcnt 0' : `s_waitcnt ${parts.join(' ')}`;
}

/** s_nop lines giving `waitStates` wait states, in chunks of at most maxImm + 1. */
export function nopLines(waitStates: number, maxImm: number): string[] {
  const out: string[] = [];
  let left = waitStates;
  while (left > 0) {
    const n = Math.min(left, maxImm + 1);
    out.push(`s_nop ${n - 1}`);
    left -= n;
  }
  return out;
}

/** Insert before statement `stmt` the s_nop lines giving `waitStates` wait states (nopLines); returns how many. */
export function addNopLines(edits: StatementEdits, stmt: number, waitStates: number, maxImm: number): number {
  const lines = nopLines(waitStates, maxImm);
  for (const line of lines) addInsert(edits, stmt, line);
  return lines.length;
}

/** Edits for the error fixes of one round. */
export function planFixes(checks: { ctx: KernelContext; findings: Finding[] }[], kinds: ReadonlySet<'nop' | 'waitcnt'> = ALL_KINDS): { edits: StatementEdits; nops: number; waitStates: number; waits: number; strengthened: number; extended: number } {
  const edits = emptyEdits();
  let nops = 0;
  let waitStates = 0;
  let waits = 0;
  let strengthened = 0;
  let extended = 0;
  for (const { ctx, findings } of checks) {
    const maxImm = ctx.target.maxNopImm.value;
    const nopNeed = new Map<number, number>();
    const waitNeed = new Map<number, Counters>();
    const nopRules = new Set<string>();
    for (const f of findings) {
      if (f.severity !== 'error' || !f.fix || !(kinds as ReadonlySet<string>).has(f.fix.kind)) continue;
      if (f.fix.kind === 'nop') nopRules.add(f.rule);
      else if (f.fix.kind === 'waitcnt') {
        waitNeed.set(f.fix.before, minCounters(waitNeed.get(f.fix.before) ?? {}, f.fix));
      }
    }
    if (nopRules.size > 0) {
      // The hazard engine's minimal padding: consumers in order, counting the padding already
      // placed before earlier ones (independent per-finding shortfalls would over-pad).
      const rules = ALL_RULES.filter((r) => nopRules.has(r.id));
      for (const site of computeNops(ctx, { rules }).sites) nopNeed.set(site.insn, site.waitStates);
    }
    const stmtOf = (i: number) => ctx.cfg.insns[i]!.stmt;
    const sameLineStandalone = (i: number) => {
      const s = ctx.program.statements[stmtOf(i)]!;
      return !s.expansion;
    };
    // nothing is inserted inside a PC-relative sequence (it would move the symbol's offset from the
    // s_getpc_b64): a wait there goes before the s_getpc_b64, each counter it needs at 0 (what was
    // counted after that point is not issued yet there), and a nop before it too (the wait states
    // count across the sequence; a producer inside it is still short, which the next round finds)
    const spans = pcRelativeSpans(ctx.cfg);
    for (const [before, c] of [...waitNeed]) {
      const g = spans[before]!;
      if (g < 0) continue;
      waitNeed.delete(before);
      const zero: Counters = { ...(c.vmcnt !== undefined ? { vmcnt: 0 } : {}), ...(c.expcnt !== undefined ? { expcnt: 0 } : {}), ...(c.lgkmcnt !== undefined ? { lgkmcnt: 0 } : {}) };
      waitNeed.set(g, minCounters(waitNeed.get(g) ?? {}, zero));
    }
    for (const [before, need] of [...nopNeed]) {
      const g = spans[before]!;
      if (g < 0) continue;
      nopNeed.delete(before);
      nopNeed.set(g, Math.max(nopNeed.get(g) ?? 0, need));
    }
    for (const [before, c] of waitNeed) {
      const prev = before - 1;
      const p = prev >= 0 ? ctx.cfg.insns[prev] : undefined;
      if (p && p.base === 's_waitcnt' && ctx.cfg.blockOf[prev] === ctx.cfg.blockOf[before] && sameLineStandalone(prev) && p.operands[0]) {
        const old = p.operands[0] as WaitcntOperand;
        const max = ctx.target.counters;
        const cur: Counters = {
          vmcnt: old.vmcnt !== undefined && old.vmcnt < max.vmcnt.value ? old.vmcnt : undefined,
          expcnt: old.expcnt !== undefined && old.expcnt < max.expcnt.value ? old.expcnt : undefined,
          lgkmcnt: old.lgkmcnt !== undefined && old.lgkmcnt < max.lgkmcnt.value ? old.lgkmcnt : undefined,
        };
        edits.replace.set(stmtOf(prev), waitcntText(minCounters(cur, c)));
        strengthened++;
      } else {
        addInsert(edits, stmtOf(before), waitcntText(c));
        waits++;
      }
    }
    for (const [before, need] of nopNeed) {
      let left = need;
      const prev = before - 1;
      const p = prev >= 0 ? ctx.cfg.insns[prev] : undefined;
      if (p && p.base === 's_nop' && !waitNeed.has(before) && ctx.cfg.blockOf[prev] === ctx.cfg.blockOf[before] && sameLineStandalone(prev)) {
        const op = p.operands[0];
        const n = op && op.kind === 'imm' ? op.value : 0;
        if (n < maxImm) {
          const take = Math.min(left, maxImm - n);
          edits.replace.set(stmtOf(prev), `s_nop ${n + take}`);
          left -= take;
          waitStates += take;
          extended++;
        }
      }
      nops += addNopLines(edits, stmtOf(before), left, maxImm);
      waitStates += left;
    }
  }
  return { edits, nops, waitStates, waits, strengthened, extended };
}

/**
 * Fix a loaded program: returns the fixed text, or throws when the errors cannot all be fixed.
 * Only errors are fixed: with the default `paths: 'every'`, a wait that falls short only on some
 * paths is a warning and stays as it is.
 */
/** The errors among `findings` that no s_nop or s_waitcnt fixes. */
export function unfixableErrors(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.severity === 'error' && (!f.fix || (f.fix.kind !== 'nop' && f.fix.kind !== 'waitcnt')));
}

/** Kernels whose check after a fix round took their hazard facts from the text before it (for the tests). */
export const fixFactsCarried = { kept: 0 };

/**
 * Fix every error the checks find with s_nop / s_waitcnt, round after round, until the program
 * checks clean. A round whose edits are waits and nops only (carriedEdit) parses the new text
 * copying the rows of the lines it left (LineReuse), and its kernels keep their hazard facts
 * (hazards/context.ts carryFacts).
 */
export function fixLoaded(l: Loaded, opts: FixOptions = {}): FixResult {
  let current = l;
  let text: string | undefined;
  let nops = 0;
  let waitStates = 0;
  let waits = 0;
  let strengthened = 0;
  let extended = 0;
  const checkOpts = opts.paths ? { paths: opts.paths } : {};
  const done = (rounds: number, findings: readonly Finding[][]): FixResult => {
    const input = originalText(l);
    const out = text ?? input;
    // the line diff of the input and the fixed text, when the fix changed it
    const a = text !== undefined ? input.split('\n') : [];
    const b = text !== undefined ? out.split('\n') : [];
    const hunks = text !== undefined ? lineHunks(a, b) : undefined;
    return {
      text: out, rounds, insertedNops: nops, insertedWaitStates: waitStates, insertedWaits: waits,
      strengthenedWaits: strengthened, extendedNops: extended, changes: fixChanges(a, b, hunks ?? [], l.program),
      ...(hunks ? { hunks } : {}),
      waitcntWarnings: findings.flatMap((l) => l.filter((f) => f.severity !== 'error' && WAITCNT_RULES.has(f.rule))),
      ...(text !== undefined ? { loaded: current } : {}),
    };
  };
  const inScope = (c: KernelContext) => !opts.kernels || opts.kernels.has(c.kernel.name);
  const given = opts.checks ? new Map(opts.checks.map((k) => [k.name, k])) : undefined;
  const isError = (f: Finding) => f.severity === 'error';
  const errorsOf = (l2: Loaded, scope: CheckScope, facts?: Map<string, CarriedFacts>) => {
    const contexts = kernelContexts(l2).filter(inScope);
    if (facts) for (const c of contexts) { const f = facts.get(c.kernel.name); if (f && hazardInsnsCarried(c, f, checkFastFromEnv())) fixFactsCarried.kept++; }
    const findings = scope === 'waitcnt' ? waitcntFindings(contexts, checkOpts)
      : l2 === l && given && contexts.every((c) => given.has(c.kernel.name)) ? contexts.map((c) => given.get(c.kernel.name)!.findings)
        : checkContexts(contexts, checkOpts).map((k) => k.findings);
    return { contexts, findings, errors: findings.flatMap((x) => x.filter(isError)) };
  };
  // the hazard facts of the kernels before an edit of waits and nops only, for the same kernels after it
  let carried: Map<string, CarriedFacts> | undefined;
  let scope: CheckScope = 'whole';
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const { contexts, findings, errors } = errorsOf(current, scope, carried);
    if (errors.length === 0) return done(round - 1, findings);
    const unfixable = unfixableErrors(errors);
    if (unfixable.length > 0) {
      const f = unfixable[0]!;
      throw new ConductorError(`cannot fix: ${f.message} [${f.rule}] (${counted(unfixable.length, 'error')} need a change other than s_nop or s_waitcnt)`, f.loc);
    }
    for (let k = 0; k < contexts.length; k++) {
      const refusal = findings[k]!.some(isError) ? rawJumpRefusal(contexts[k]!, 'fix') : undefined;
      if (refusal) throw refusal;
    }
    // Waits first: an inserted s_waitcnt is itself a wait state, so NOPs are planned once the waits are in.
    const anyWait = errors.some((f) => f.fix?.kind === 'waitcnt');
    const plan = planFixes(contexts.map((ctx, k) => ({ ctx, findings: findings[k]! })), anyWait ? WAITS_ONLY : ALL_KINDS);
    // errors that were all missing waits: this round's edit only inserts or strengthens waits (CheckScope)
    scope = errors.every((f) => f.fix?.kind === 'waitcnt') ? 'waitcnt' : 'whole';
    nops += plan.nops;
    waitStates += plan.waitStates;
    waits += plan.waits;
    strengthened += plan.strengthened;
    extended += plan.extended;
    // waits and nops only (carriedEdit): the lines the edit left are parsed copying their rows,
    // and the kernels keep their hazard facts
    const edited = loadEdited(current, plan.edits, { file: l.program.file, arch: opts.arch ?? l.target.name });
    carried = undefined;
    if (edited.carried) {
      carried = new Map();
      for (const c of contexts) { const f = carryFacts(c); if (f) carried.set(c.kernel.name, f); }
    }
    text = edited.text;
    current = edited.loaded;
  }
  const last = errorsOf(current, scope, carried);
  const left = last.errors;
  if (left.length > 0) {
    throw new ConductorError(`fix did not converge after ${MAX_ROUNDS} rounds: ${left[0]!.message} [${left[0]!.rule}]`, left[0]!.loc);
  }
  return done(MAX_ROUNDS, last.findings);
}

/**
 * What a round of the fix checks: every checker ('whole'), or the waitcnt analysis alone
 * ('waitcnt') after a round whose errors were all missing waits. That round's edit inserted or
 * strengthened s_waitcnt only, which changes no register's use (the resources) and makes no
 * hazard: no hazard rule reads a wait, and an inserted instruction only lengthens the distances
 * that span it (every instruction issued counts one wait state, hazards/context.ts), while the
 * round's check found no hazard error. Only the waitcnt analysis can find something new. About
 * a sixth of a second on the largest corpus kernel, whose six missing waits take one round.
 */
type CheckScope = 'whole' | 'waitcnt';

/** Fix rounds whose check ran the waitcnt analysis alone (CheckScope; for the tests). */
export const waitcntOnlyRounds = { count: 0 };

/**
 * The waitcnt analysis' findings per kernel (CheckScope 'waitcnt'). Under CONDUCTOR_CHECK_FAST=1
 * the whole check runs too, and its errors and waitcnt findings must be the same.
 */
function waitcntFindings(contexts: readonly KernelContext[], opts: { paths?: PathsMode }): Finding[][] {
  waitcntOnlyRounds.count++;
  const out = contexts.map((c) => checkerFindings(c, ['waitcnt'], opts));
  if (checkFastFromEnv()) {
    const whole = checkContexts([...contexts], opts);
    const show = (f: Finding) => `${f.severity} ${f.rule} ${f.insn}: ${f.message}`;
    for (const [k, c] of contexts.entries()) {
      const a = out[k]!.map(show).join('\n');
      const b = whole[k]!.findings.filter((f) => f.severity === 'error' || WAITCNT_RULES.has(f.rule)).map(show).join('\n');
      if (a !== b) throw new FastPathMismatch(`fast path check: the fix's waitcnt-only check of ${c.kernel.name} found\n${a || '(nothing)'}\nthe whole check\n${b || '(nothing)'}`);
    }
  }
  return out;
}

/**
 * What the fixed text changed, by line of the input: the line hunks `hunks` that turn the input's
 * lines `a` into the fixed text's `b` (lineHunks). For a program read with `.include`d files
 * spliced in, the line is the one of the file that holds it.
 */
export function fixChanges(a: readonly string[], b: readonly string[], hunks: readonly Hunk[], program?: Program): FixChange[] {
  const map = program instanceof ParsedProgram ? program.store.lineMap : undefined;
  return hunks.map((h) => {
    const before = a.slice(h.a0, h.a1).map((x) => x.trim());
    const after = b.slice(h.b0, h.b1).map((x) => x.trim());
    return { ...(map ? map.place(h.a0 + 1) : { line: h.a0 + 1 }), before, after };
  });
}

/** Lines of a change shown in full; a longer one (a macro or repeat block written out as its expansions) is summed up. */
const CHANGE_LINES_SHOWN = 4;
/** Distinct s_nop / s_waitcnt lines a summed-up change names. */
const ADDED_NAMED = 4;

/**
 * "line 12: s_waitcnt vmcnt(3) -> s_waitcnt vmcnt(1)", "before line 40: + s_nop 1" ("defs.inc:40"
 * in an included file). A change of more lines (an edit inside a `.rept` or macro call writes
 * that block out as its expansions) names the lines it replaces and the waits and nops it adds:
 * "line 432 (5 lines written out as 66): + s_nop 4 (x2), s_nop 1".
 */
export function changeText(c: FixChange): string {
  const at = lineRef(c);
  if (c.before.length <= CHANGE_LINES_SHOWN && c.after.length <= CHANGE_LINES_SHOWN) {
    const after = c.after.join(' ; ');
    return c.before.length === 0 ? `before ${at}: + ${after}` : `${at}: ${c.before.join(' ; ')} -> ${after}`;
  }
  if (c.after.length === 0) return `${at} (${counted(c.before.length, 'line')}): now in the expansions written out above`;
  // the lines written that the replaced text has nowhere (its body lines repeat once per expansion), counted
  const had = new Set(c.before);
  const added = new Map<string, number>();
  for (const x of c.after) if (x !== '' && !had.has(x)) added.set(x, (added.get(x) ?? 0) + 1);
  // what the fix writes (waits and nops); the rest is the block's text written out
  const waits = [...added].filter(([x]) => /^s_(nop|waitcnt)\b/.test(x));
  const named = waits.slice(0, ADDED_NAMED).map(([x, n]) => (n > 1 ? `${x} (x${n})` : x));
  const what = named.length === 0 ? 'no s_nop or s_waitcnt added' : `+ ${named.join(', ')}${waits.length > ADDED_NAMED ? `, and ${waits.length - ADDED_NAMED} more` : ''}`;
  return c.before.length === 0
    ? `before ${at} (${c.after.length} lines): ${what}`
    : `${at} (${counted(c.before.length, 'line')} written out as ${c.after.length}): ${what}`;
}

/** One line saying what the fixer did ("inserted 2 s_nop (3 wait states), strengthened 1 s_waitcnt"). */
export function fixSummary(r: FixResult): string {
  const n = (k: number, what: string) => `${k} ${what}`;
  const parts: string[] = [];
  parts.push(`inserted ${n(r.insertedNops, 's_nop')} (${counted(r.insertedWaitStates, 'wait state')} in all)`);
  if (r.extendedNops > 0) parts.push(`lengthened ${n(r.extendedNops, 's_nop')}`);
  parts.push(`inserted ${n(r.insertedWaits, 's_waitcnt')}`);
  parts.push(`strengthened ${n(r.strengthenedWaits, 's_waitcnt')}`);
  const changed = r.insertedNops + r.insertedWaits + r.strengthenedWaits + r.extendedNops > 0;
  const places = r.changes.length === 0 && changed ? 'at too many places to list' : `at ${counted(r.changes.length, 'place')}`;
  return `${parts.join(', ')} ${places} in ${counted(r.rounds, 'round')}`;
}

function originalText(l: Loaded): string {
  return printProgram(l.program);
}
