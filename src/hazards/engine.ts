/**
 * The hazard engine: runs every rule that applies to the kernel's target on every instruction
 * (as consumer), turns what the rules report into Findings, and computes the minimal s_nop
 * padding that satisfies all rules at once.
 *
 * Rules search backwards from the consumer only as far as their own largest wait-state count
 * on the target (the true W from the references, e.g. 20 for a 16-pass XDL producer on gfx950,
 * not LLVM's search limit of 19), so a kernel of 40k instructions is checked in a few tens of
 * milliseconds.
 */
import type { Finding, KernelContext } from '../analysis/types.js';
import { ALL_RULES } from './rules/index.js';
import { HazardContext } from './context.js';
import { nopWaitStates } from '../targets/common.js';
import { nopImmediate } from '../asm/program.js';
import { isDeepStrictEqual } from 'node:util';
import { kept, once } from '../analysis/memo.js';
import { checkFastFromEnv, FastPathMismatch } from '../errors.js';
import type { HazardRule, Need } from './types.js';
import { lineAt } from '../asm/include.js';
import { counted } from '../text.js';

export interface HazardOptions {
  /** Rules to run (default: all). Rules that do not apply to the target are skipped. */
  rules?: readonly HazardRule[];
}

/** The rules that apply to this kernel (target features and, for some rules, XNACK mode). */
export function activeRules(h: HazardContext, rules: readonly HazardRule[] = ALL_RULES): HazardRule[] {
  return rules.filter((r) => r.appliesTo(h.target) && (!r.activeFor || r.activeFor(h)) && (!r.present || r.present(h)));
}

/** The worst need of a list: the largest shortfall, then the nearest producer. */
function worst(needs: readonly Need[]): Need | undefined {
  let w: Need | undefined;
  for (const n of needs) {
    const s = n.required - n.distance;
    if (s <= 0) continue;
    if (!w || s > w.required - w.distance || (s === w.required - w.distance && n.distance < w.distance)) w = n;
  }
  return w;
}

function findingOf(h: HazardContext, rule: HazardRule, consumer: number, need: Need): Finding {
  const c = h.f[consumer]!.insn;
  const p = h.f[need.producer]!.insn;
  const note = need.producerNote ? ` (${need.producerNote})` : '';
  const where = need.producer === consumer ? 'itself' : `${p.mnemonic} at ${lineAt(p.loc, c.loc)}`;
  const severity = rule.severity ? rule.severity(h) : 'error';
  const why = severity === 'warning' && rule.warningNote ? ` (${rule.warningNote(h)})` : '';
  if (rule.noNopFix) {
    return {
      rule: rule.id, severity,
      message: `${c.mnemonic} ${need.relation}${need.producer === consumer ? '' : ` ${where}`}${note}${why}`,
      loc: c.loc, insn: consumer, related: need.producer === consumer ? [] : [{ loc: p.loc, message: `${p.mnemonic} is here`, insn: need.producer }],
      source: need.fact.source,
    };
  }
  return {
    rule: rule.id,
    severity,
    message: `${c.mnemonic} ${need.relation} ${where}${note}: ${counted(need.required, 'wait state')} required on ${h.target.name}, ${need.distance} present${why}`,
    loc: c.loc,
    insn: consumer,
    required: need.required,
    actual: need.distance,
    related: [{ loc: p.loc, message: `${p.mnemonic} is here`, insn: need.producer }],
    fix: { kind: 'nop', before: consumer, waitStates: need.required - need.distance },
    source: need.fact.source,
  };
}

/**
 * Check one kernel: one finding per (consumer, rule), for the producer with the largest
 * shortfall. A finding's `fix` is `{ kind: 'nop', before: consumer, waitStates }` where
 * waitStates = required - present: the wait states missing right before the consumer (an
 * s_nop already there is counted in `present`, so the fixer adds to it). For the padding of a
 * whole kernel, where padding one consumer also helps the next, use computeNops.
 */
export function checkHazards(ctx: KernelContext, opts: HazardOptions = {}): Finding[] {
  // with every rule: kept on the context (analysis/memo.ts), a new array each call
  if (!opts.rules) return once(ctx, CHECK_KEY, () => checkWith(ctx, ALL_RULES)).slice();
  return checkWith(ctx, opts.rules);
}

function checkWith(ctx: KernelContext, rules: readonly HazardRule[]): Finding[] {
  const h = new HazardContext(ctx);
  const out = checkContext(h, activeRules(h, rules));
  if (rules === ALL_RULES) out.push(...oversizedNops(ctx));
  return out;
}

/**
 * `s_nop N` with N above 15: the hardware repeats it by the immediate's low four bits
 * (nopWaitStates), so `s_nop 16` is one wait state, not seventeen; the hazard rules count it so,
 * and this warning says why (LLVM never writes such an immediate).
 */
function oversizedNops(ctx: KernelContext): Finding[] {
  const out: Finding[] = [];
  for (let i = 0; i < ctx.insns.length; i++) {
    const insn = ctx.insns[i]!.insn;
    if (insn.base !== 's_nop') continue;
    const imm = nopImmediate(insn);
    if (imm <= 15) continue;
    const ws = nopWaitStates(imm, ctx.target.maxNopImmCounted.value);
    out.push({
      rule: 'nop-immediate', severity: 'warning', loc: insn.loc, insn: i, required: imm + 1, actual: ws, related: [],
      message: `s_nop ${imm} gives ${counted(ws, 'wait state')}, not ${imm + 1}: the hardware repeats s_nop by the low four bits of its immediate, so one s_nop gives at most 16 (s_nop 15); the hazard checks count ${ws}`,
      source: 'CDNA3 ISA §12 SOPP, S_NOP ("Repeat NOP 1..16 times based on SIMM16[3:0]")',
    });
  }
  return out;
}

export function checkContext(h: HazardContext, rules: readonly HazardRule[]): Finding[] {
  const out: Finding[] = [];
  const n = h.f.length;
  for (let i = 0; i < n; i++) {
    for (const r of rules) {
      const needs = r.check(h, i);
      if (!needs || needs.length === 0) continue;
      const w = r.noNopFix ? needs[0] : worst(needs);
      if (w) out.push(findingOf(h, r, i, w));
    }
  }
  return out;
}

export interface NopPlan {
  /** Extra wait states to insert immediately before each instruction (KernelContext.insns order). */
  pads: Int32Array;
  /** Sum of pads. */
  total: number;
  /** The instructions that need padding, in order. */
  sites: { insn: number; waitStates: number; rules: string[] }[];
}

/**
 * Minimal padding: for each consumer in program order, the fewest extra wait states so that
 * every rule is satisfied, counting the padding already decided for earlier instructions
 * (padding before an earlier consumer also lengthens later distances, and distances through
 * loop back-edges include padding decided for later instructions only as far as it is known —
 * more padding never creates a hazard, so each decision stays valid). Rules that cannot be
 * fixed with s_nop (noNopFix) are ignored here.
 */
export function computeNops(ctx: KernelContext, opts: HazardOptions = {}): NopPlan {
  if (!opts.rules && nothingToPad(ctx)) {
    const none: NopPlan = { pads: new Int32Array(ctx.insns.length), total: 0, sites: [] };
    if (checkFastFromEnv() && !isDeepStrictEqual(none, padding(ctx, ALL_RULES))) {
      throw new FastPathMismatch(`fast path check: the kept hazard check of ${ctx.kernel.name} finds nothing to pad, computeNops pads it`);
    }
    return none;
  }
  return padding(ctx, opts.rules ?? ALL_RULES);
}

function padding(ctx: KernelContext, rules: readonly HazardRule[]): NopPlan {
  const h = new HazardContext(ctx);
  return computeNopsIn(h, activeRules(h, rules).filter((r) => !r.noNopFix));
}

/** The key under which checkHazards keeps the check with every rule on the context. */
const CHECK_KEY = 'checkHazards';

/** Rules an s_nop can satisfy (the padding's rules). */
const PADDED: ReadonlySet<string> = new Set(ALL_RULES.filter((r) => !r.noNopFix).map((r) => r.id));

/**
 * Whether the kernel's hazard check, when it is kept (checkHazards with every rule), finds
 * nothing an s_nop fixes. Then computeNops pads nothing: it decides each consumer in order with
 * the padding before it, which stays zero while no consumer needs any, so every rule sees each
 * consumer as the check saw it, and the check reports a rule at a consumer exactly when some
 * producer falls short there (`worst`). Not kept: false (nothing is computed for this).
 */
function nothingToPad(ctx: KernelContext): boolean {
  const found = kept<readonly Finding[]>(ctx, CHECK_KEY);
  return found !== undefined && !found.some((f) => PADDED.has(f.rule));
}

export function computeNopsIn(h: HazardContext, rules: readonly HazardRule[]): NopPlan {
  const n = h.f.length;
  const sites: NopPlan['sites'] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    let need = 0;
    let by: string[] = [];
    for (let q = 0; q < rules.length; q++) {
      const r = rules[q]!;
      const needs = r.check(h, i);
      if (!needs) continue;
      for (let y = 0; y < needs.length; y++) {
        const x = needs[y]!;
        const s = x.required - x.distance;
        if (s > need) { need = s; by = [r.id]; } else if (s === need && s > 0 && !by.includes(r.id)) by.push(r.id);
      }
    }
    if (need > 0) {
      h.pad[i] = need;
      h.invalidate();
      total += need;
      sites.push({ insn: i, waitStates: need, rules: by });
    }
  }
  return { pads: h.pad, total, sites };
}

/**
 * Check a kernel as if `pads[k]` extra wait states were inserted before each instruction k
 * (e.g. a NopPlan's pads): what would still be reported.
 */
export function checkWithPadding(ctx: KernelContext, pads: ArrayLike<number>, opts: HazardOptions = {}): Finding[] {
  const h = new HazardContext(ctx);
  for (let i = 0; i < h.pad.length; i++) h.pad[i] = pads[i] ?? 0;
  return checkContext(h, activeRules(h, opts.rules));
}

