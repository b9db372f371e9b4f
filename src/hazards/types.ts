/**
 * Vocabulary of the hazard checker: rules, the wait-state facts they are made of, and what a
 * rule reports back to the engine.
 *
 * A hazard rule is a small module in the style of an ESLint rule: an id, a description, the
 * targets it applies to (feature predicates only), the reference it comes from, and a `check`
 * that looks backwards from one consumer instruction and returns every producer that is too
 * close. The engine (engine.ts) owns wait-state counting, the CFG walk and the findings.
 */
import type { Generation, Target } from '../isa/target.js';

export { generationOf, GENERATIONS, type Generation } from '../isa/target.js';
import type { HazardContext, HazardInsn } from './context.js';

/** A wait-state count, or a count per MFMA pass count of the producer (2, 4, 8, 16). */
export type WaitValue = number | Readonly<Record<number, number>>;

/**
 * One row of a rule's data: how many wait states a producer/consumer pair needs on each
 * generation, where that comes from, and (when the references disagree) what each says and
 * which value was chosen. A generation missing from `w` means "no such hazard there".
 */
export interface WaitStateFact {
  /** Short description of the pair ("XDL writes VGPR -> VALU reads it"). */
  what: string;
  w: Readonly<Partial<Record<Generation, WaitValue>>>;
  /** Reference file and section (or table and case). */
  source: string;
  /** What LLVM 22 inserts, when it differs from `w` (same shape as `w`). */
  llvm?: Readonly<Partial<Record<Generation, WaitValue>>>;
  /** Disagreement between references and why `w` was chosen (always the larger, safe value). */
  note?: string;
}

/** Look up a fact's value for a generation and (for pass tables) a pass count. */
export function waitOf(f: WaitStateFact, g: Generation, passes = 0): number | undefined {
  const v = f.w[g];
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  const n = v[passes];
  if (n !== undefined) return n;
  // Unknown pass count: the largest entry (safe).
  return largest(v);
}

/** The largest entry of a pass table, computed once per table (rules ask per consumer). */
const largestOf = new WeakMap<Readonly<Record<number, number>>, number>();
function largest(v: Readonly<Record<number, number>>): number {
  let m = largestOf.get(v);
  if (m === undefined) {
    m = Math.max(...Object.values(v));
    largestOf.set(v, m);
  }
  return m;
}

/** Largest wait-state count a fact can demand on a generation (the search bound). */
export function maxWaitOf(f: WaitStateFact, g: Generation): number {
  const v = f.w[g];
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  return largest(v);
}

/** What a rule reports for one producer that is too close to the consumer. */
export interface Need {
  /** Index (KernelContext.insns) of the producer. */
  producer: number;
  /** Wait states present between producer and consumer (the minimum over all CFG paths). */
  distance: number;
  /** Wait states the pair needs. */
  required: number;
  /**
   * How the consumer relates to the producer, completing the sentence
   * "<consumer> <relation> <producer> at line N": "reads v[4:5] written by",
   * "overwrites v[0:3] read as SrcC by", "follows".
   */
  relation: string;
  /** Extra facts about the producer shown after its line ("XDL, 4 passes"). */
  producerNote?: string;
  /** The fact that set `required`. */
  fact: WaitStateFact;
}

export interface HazardRule {
  /** Kebab-case id, e.g. `mfma-xdl-write-valu-read`. */
  id: string;
  description: string;
  /** Feature predicates only (never a target-name test). */
  appliesTo(t: Target): boolean;
  /** Reference file and section the rule follows. */
  source: string;
  /** The rule's data: every wait-state number it can demand, with its source. */
  facts: readonly WaitStateFact[];
  /**
   * Severity of its findings: 'error' for hardware wait-state rules. A rule may lower it for a
   * context (the XNACK soft-clause rule reports 'warning' when XNACK is only "any").
   */
  severity?(h: HazardContext): 'error' | 'warning';
  /** Appended to the message of a warning: why it is not an error, and what makes it one or silences it. */
  warningNote?(h: HazardContext): string;
  /** Whether the rule is active for this kernel (beyond the target), e.g. XNACK mode. */
  activeFor?(h: HazardContext): boolean;
  /**
   * Fast pre-check: false when the kernel holds no instruction that could be this rule's
   * producer (or consumer), so the rule can be skipped for the whole kernel.
   */
  present?(h: HazardContext): boolean;
  /**
   * Set when the rule's needs are bounded by its pairs: every need of a consumer names a
   * producer j the rule found walking back from it, with `required` fixed by the two
   * instructions alone and `distance` at least the wait states between them (a rule may drop a
   * need or count a longer distance because of what lies between, never add one). The
   * scheduler's s_nop estimate then bounds such a rule by a per-pair table of `required` and
   * runs it only where the table shows a shortfall. A rule that reads anything else (the
   * instructions between as a clause, padding, the kernel as a whole) leaves this unset.
   */
  pairwise?: boolean;
  /**
   * (Pairwise rules.) True for every instruction the rule can name as a producer: the predicate
   * its producers() queries use (a need always names a producer such a query listed). The pair
   * table skips the rule for a producer this rejects.
   */
  producer?: (p: HazardInsn) => boolean;
  /**
   * (Pairwise rules.) Set when every need relates an operand range of the producer to an
   * overlapping operand range of the consumer (HazardInsn.ops on both sides: a read after write,
   * a write after write or after read of the same registers). The pair table skips the rule for
   * a pair whose operands share no register.
   */
  sharesRegisters?: true;
  /** Rules that cannot be fixed by s_nop (a rewrite is needed) set this. */
  noNopFix?: boolean;
  /**
   * Look backwards from `consumer` and return every producer that is closer than its required
   * wait states (an empty array or undefined when there is none).
   */
  check(h: HazardContext, consumer: number): Need[] | undefined;
}
