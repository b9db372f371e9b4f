/**
 * verify, check 7: loops pipelined by one stage (software pipelining across the back edge), and
 * by two stages (proveTwoStage, below).
 *
 * A scheduled file may hold a loop of the original in this form (what `schedule` writes; any
 * other program of this shape is judged the same way):
 *
 *     PRE'                           the original's code before the loop, and more
 *     s_cbranch_scc<e> PEEL          the guard (e: the loop's exit sense)
 *   L:                               the loop's labels (and directives before them), as in the original
 *     BODY'
 *     s_cbranch_scc<x> L             the original back edge
 *   PEEL:
 *     EXIT'                          up to the next anchor, as in the original
 *
 * The anchors are those of the original with the guard branch and the PEEL label added.
 * What is proven, in verify's own code:
 *
 *  (a) Trip counts. Both loops are controlled the same way: the last SCC writer before the back
 *      edge is `s_cmp(k)_{lg,eq}_{u32,i32} c, K` (c an SGPR, K a constant, its SCC read by the
 *      branch only), c is written once in the body, by an add or subtract of a constant s before
 *      the compare, and the loop goes on while c != K. The scheduled loop's compare has
 *      K' = K - s (mod 2^32); the last SCC writer in PRE' is the same compare with G = K - s, c
 *      is not written after it, and the guard leaves on "c == G"; c holds the same value there
 *      as where the original enters its loop (checked on the symbolic values, (b)). Then for
 *      every start value c0 the original runs its body n = min{m >= 1 : c0 + m*s = K} times
 *      (32-bit arithmetic) and the scheduled file runs its guard to PEEL when n = 1, else its
 *      loop n - 1 times (it leaves when c0 + (m+1)*s = K) and falls into PEEL; when the
 *      original never leaves its loop, neither does the scheduled file.
 *      The next-value form (any s_cmp(k)_<op>_{i32,u32} of c with a constant or with an SGPR K
 *      the original's body does not write, either branch sense; c stepped as above): the
 *      scheduled loop steps c once by the original's step, then makes t with that step's own
 *      instruction writing t instead of c, and its last compare is the original's with t in
 *      c's place; after t is made nothing writes c, t or K and nothing but the compare reads t;
 *      the body does not write K (nextValueTest). PRE' ends the same way (t' made from c, the
 *      compare, the guard of the exit sense), and c and K hold there the values the original
 *      enters its loop with ((b)). Writing c_m = c0 + m*s (the step's 32-bit operation), the
 *      original runs iteration m + 1 iff its compare of c_m goes on; the guard tests c_1 and
 *      leaves iff n = 1, and after the scheduled loop's iteration h (R_h P_{h+1}, c = c_h) it
 *      tests c_{h+1}: it goes round iff iteration h + 1 is not the last, and falls into PEEL
 *      (R_n) after n - 1 iterations. The same operation on the same values as the original's
 *      compare, whatever the relation and the wrap-around. t and t' are dead after the loop
 *      (compareRuns holds every live register to the original's value).
 *  (b) Values, for trip counts n = 1 .. PROVEN_TRIPS: the original's straight-line run
 *      PRE BODY^n EXIT and the scheduled file's PRE' BODY'^(n-1) EXIT' are executed on symbolic
 *      values (value numbering: a value is the operation with its operands' values, and for a
 *      memory access, the stores before it that may alias it, as a multiset: stores that cannot
 *      alias each other may change places, the order of those that may alias each other is the
 *      order check below; `v_mov_b32 vD, vS` passes the value
 *      on when EXEC is the value it was written under). At the end every register live in the
 *      original there holds the same value in both, both make the same stores, and every two
 *      memory accesses that may alias (verify's own rule, memory.ts, with the address registers'
 *      values) are in the same order; and every instruction of the scheduled run computes what
 *      an instruction of the original's computes (the same operation on the same values, as
 *      often; the guards are (a)'s, and a compare of the counter counts by the value it
 *      compares whatever its constant, which (a) proves), so an
 *      instruction reading another producer is found even when its result is overwritten
 *      unread. An instruction read before its producer, a store moved across a load of the same
 *      memory, a renamed register that is still live: each shows as a value that differs.
 *  For trip counts beyond PROVEN_TRIPS the values are not compared instruction by instruction:
 *  the claim rests on (a) and on the loops being single straight-line blocks that repeat the
 *  same code, so that every iteration of a longer run of the rotated loop sees the same pattern
 *  of producers from its neighbours as iteration 1 or 2 of a run of PROVEN_TRIPS (a one-stage
 *  rotation relates an iteration to its neighbours only).
 */
import { computeLiveness, setHas } from '../analysis/liveness.js';
import { EXEC_HI, EXEC_LO, SCC } from '../asm/registers.js';
import type { Loc } from '../asm/ast.js';
import { accessOf, mayAlias, type Access } from './memory.js';
import { locText, operandKey, textOf, type Item, type KernelView } from './view.js';

/** Trip counts whose runs are compared value by value. */
export const PROVEN_TRIPS = 4;

/** A pipelined loop found in the scheduled file: token and region indexes of both views. */
export interface LoopMatch {
  /** Scheduled: the guard branch and the PEEL label (token indexes). */
  guardB: number;
  peelB: number;
  /** Original and scheduled: the loop's label token and back-edge branch token. */
  labelA: number;
  labelB: number;
  branchA: number;
  branchB: number;
  /** Regions: before the loop, the body, after the loop. */
  preA: number;
  preB: number;
  bodyA: number;
  bodyB: number;
  exitA: number;
  exitB: number;
  /** Stages: 1, or 2 (TwoStageTokens: the scheduled tokens of the two-stage form). */
  stages: 1 | 2;
  two?: TwoStageTokens;
}

/**
 * The scheduled tokens of a loop pipelined by two stages (src/schedule/pipeline/transform.ts,
 * pipelineTwoStage): guardB leaves to LAST, guard2 to EVEN; the loop's label, the exit branch
 * of its first half (to ODD) and its back edge; then EVEN, the jump to OUT, ODD, LAST and OUT.
 */
export interface TwoStageTokens {
  guard2: number;
  exitBranch: number;
  even: number;
  jump: number;
  odd: number;
  last: number;
  out: number;
}

export interface Alignment {
  /** For each original token, the scheduled token paired with it. */
  pairOf: Int32Array;
  loops: LoopMatch[];
}

export interface LoopDifference {
  message: string;
  original?: Loc;
  scheduled?: Loc;
}

const CBRANCH_SCC = /^s_cbranch_scc[01]$/;

function branchTarget(it: Item | undefined): string | undefined {
  if (!it || !CBRANCH_SCC.test(it.r.insn.base)) return undefined;
  const o = it.r.insn.operands[0];
  return o && o.kind === 'expr' ? o.text.trim() : undefined;
}

const isLabel = (anchor: string, name?: string) => anchor.startsWith('label ') && (name === undefined || anchor === `label ${name}`);

/**
 * Pair the anchors of both kernels. The scheduled file may add, per pipelined loop, a guard
 * branch before the loop and the label of its peeled last iteration right after the back edge;
 * everything else must pair in order. Returns the first place they do not pair when they don't.
 */
export function alignAnchors(a: KernelView, b: KernelView): Alignment | { at: [number, number] } {
  const A = a.tokens;
  const B = b.tokens;
  const pairOf = new Int32Array(A.length).fill(-1);
  const loops: LoopMatch[] = [];
  const peels = new Set<number>();
  let i = 0;
  let j = 0;
  while (i < A.length || j < B.length) {
    if (i < A.length && j < B.length && !peels.has(j) && (A[i]!.anchor === B[j]!.anchor || grownAllocation(A[i]!, B[j]!, loops))) { pairOf[i++] = j++; continue; }
    if (j < B.length && peels.has(j)) { j++; continue; }
    const t2 = j < B.length && i < A.length ? twoStageAt(b, j) : undefined;
    if (t2) {
      const labelA = i + (t2.labelB - (j + 2));
      const branchA = labelA + 1;
      if (branchA < A.length && A[labelA]!.anchor === B[t2.labelB]!.anchor && A[branchA]!.anchor === B[t2.branchB]!.anchor) {
        const two = t2.two;
        loops.push({
          guardB: j, peelB: two.last, labelA, labelB: t2.labelB, branchA, branchB: t2.branchB,
          preA: i, preB: j, bodyA: labelA + 1, bodyB: t2.labelB + 1, exitA: branchA + 1, exitB: two.out + 1, stages: 2, two,
        });
        for (const x of [two.guard2, two.exitBranch, two.even, two.jump, two.odd, two.last, two.out]) peels.add(x);
        j++;
        continue;
      }
    }
    const m = j < B.length ? guardAt(b, j) : undefined;
    if (m && i < A.length) {
      // the loop in the original: the tokens from A[i] on must match B's from j+1 on up to the back edge
      const dl = m.labelB - (j + 1);
      const labelA = i + dl;
      const branchA = labelA + 1;
      if (branchA < A.length && A[labelA]!.anchor === B[m.labelB]!.anchor && A[branchA]!.anchor === B[m.branchB]!.anchor) {
        loops.push({
          guardB: j, peelB: m.peelB, labelA, labelB: m.labelB, branchA, branchB: m.branchB,
          preA: i, preB: j, bodyA: labelA + 1, bodyB: m.labelB + 1, exitA: branchA + 1, exitB: m.peelB + 1, stages: 1,
        });
        peels.add(m.peelB);
        j++;
        continue;
      }
    }
    return { at: [i, j] };
  }
  return { pairOf, loops };
}

/**
 * A descriptor directive that sizes the VGPR allocation (when a loop is pipelined by two stages:
 * its alternate registers) or the SGPR allocation (when a loop is pipelined: the SGPR of its
 * counter's next value), grown in the scheduled file: the same directive with a value at least
 * the original's.
 */
function grownAllocation(ta: { anchor: string }, tb: { anchor: string }, loops: readonly LoopMatch[]): boolean {
  if (loops.length === 0) return false;
  const re = loops.some((l) => l.two)
    ? /^directive (\.amdhsa_next_free_vgpr|\.amdhsa_accum_offset|\.set \S+\.num_vgpr,|\.amdhsa_next_free_sgpr|\.set \S+\.(?:numbered|num)_sgpr,) ?(\d+)$/
    : /^directive (\.amdhsa_next_free_sgpr|\.set \S+\.(?:numbered|num)_sgpr,) ?(\d+)$/;
  const x = re.exec(ta.anchor);
  const y = re.exec(tb.anchor);
  return !!x && !!y && x[1] === y[1] && Number(y[2]) >= Number(x[2]);
}

function jumpTarget(it: Item | undefined): string | undefined {
  if (!it || it.r.insn.base !== 's_branch') return undefined;
  const o = it.r.insn.operands[0];
  return o && o.kind === 'expr' ? o.text.trim() : undefined;
}

/** The two-stage shape at scheduled token j (TwoStageTokens), with the loop's label and back edge. */
function twoStageAt(b: KernelView, j: number): { labelB: number; branchB: number; two: TwoStageTokens } | undefined {
  const T = b.tokens;
  const last = branchTarget(T[j]!.item);
  const even = branchTarget(T[j + 1]?.item);
  if (last === undefined || even === undefined || T[j]!.item!.r.insn.base !== T[j + 1]!.item!.r.insn.base) return undefined;
  let k = j + 2;
  while (k < T.length && (T[k]!.anchor.startsWith('directive ') || (isLabel(T[k]!.anchor) && k + 1 < T.length && isLabel(T[k + 1]!.anchor)))) k++;
  if (k + 7 >= T.length || !isLabel(T[k]!.anchor)) return undefined;
  const odd = branchTarget(T[k + 1]!.item);
  const back = branchTarget(T[k + 2]!.item);
  if (odd === undefined || back === undefined || T[k]!.anchor !== `label ${back}` || T[k + 1]!.item!.r.insn.base !== T[j]!.item!.r.insn.base) return undefined;
  const out = jumpTarget(T[k + 4]!.item);
  if (!isLabel(T[k + 3]!.anchor, even) || out === undefined || !isLabel(T[k + 5]!.anchor, odd) || !isLabel(T[k + 6]!.anchor, last) || !isLabel(T[k + 7]!.anchor, out)) return undefined;
  return { labelB: k, branchB: k + 2, two: { guard2: j + 1, exitBranch: k + 1, even: k + 3, jump: k + 4, odd: k + 5, last: k + 6, out: k + 7 } };
}

/** The guard shape at scheduled token j: the branch, the loop's labels after it, its back edge, then the PEEL label. */
function guardAt(b: KernelView, j: number): { labelB: number; branchB: number; peelB: number } | undefined {
  const T = b.tokens;
  const peel = branchTarget(T[j]!.item);
  if (peel === undefined) return undefined;
  let k = j + 1;
  while (k < T.length && (T[k]!.anchor.startsWith('directive ') || (isLabel(T[k]!.anchor) && k + 1 < T.length && isLabel(T[k + 1]!.anchor)))) k++;
  if (k + 2 >= T.length || !isLabel(T[k]!.anchor)) return undefined;
  const back = branchTarget(T[k + 1]!.item);
  if (back === undefined || T[k]!.anchor !== `label ${back}` || !isLabel(T[k + 2]!.anchor, peel)) return undefined;
  return { labelB: k, branchB: k + 1, peelB: k + 2 };
}

/* ---------------------------------------------------------------------------------------------- */
/* (a) The loop control                                                                            */
/* ---------------------------------------------------------------------------------------------- */

const CMP = /^s_cmpk?_(lg|eq|lt|le|gt|ge)_(i32|u32)$/;

interface Control {
  /** Counter SGPR key, the compare item (position in the region) and its constant. */
  counter: number;
  cmp: number;
  constant: number;
  counterOperand: number;
  step: number;
  stepText: string;
  mnemonic: string;
  /** The step's position, the compare's relation and its other operand when that is an SGPR (key; the constant is then 0). */
  stepAt: number;
  op: string;
  boundReg?: number;
}

function immAt(it: Item, k: number): number | undefined {
  const o = it.r.insn.operands[k];
  return o && o.kind === 'imm' && !o.float && Number.isInteger(o.value) ? o.value >>> 0 : undefined;
}

function sgprAt(it: Item, k: number): number | undefined {
  const o = it.r.insn.operands[k];
  return o && o.kind === 'reg' && o.file === 's' && o.count === 1 ? o.first : undefined;
}

/** The last SCC writer of `items` as an s_cmp(k) of 32-bit operands, and no SCC reader after it. */
function lastCompare(items: readonly Item[]): { at: number; mnemonic: string; op: string } | string {
  let at = -1;
  for (let p = items.length - 1; p >= 0; p--) if (items[p]!.writes.includes(SCC)) { at = p; break; }
  if (at < 0 || !CMP.test(items[at]!.r.insn.base)) return 'the last SCC writer is not an s_cmp(k) of 32-bit operands';
  for (let p = at + 1; p < items.length; p++) if (items[p]!.reads.includes(SCC)) return `'${textOf(items[p]!)}' reads the compare's SCC`;
  return { at, mnemonic: items[at]!.r.insn.mnemonic, op: CMP.exec(items[at]!.r.insn.base)![1]! };
}

/** The last SCC writer of `items` as a compare of an SGPR with a constant, and no SCC reader after it. */
function compareAtEnd(items: readonly Item[]): { at: number; counter: number; constant: number; counterOperand: number; mnemonic: string; op: string } | string {
  const c = lastCompare(items);
  if (typeof c === 'string') return c;
  const it = items[c.at]!;
  let counterOperand = 0;
  let counter = sgprAt(it, 0);
  let constant = immAt(it, 1);
  if ((counter === undefined || constant === undefined) && !it.r.insn.base.startsWith('s_cmpk_')) { counter = sgprAt(it, 1); constant = immAt(it, 0); counterOperand = 1; }
  if (counter === undefined || constant === undefined) return 'the compare is not of an SGPR with a constant';
  return { ...c, counter, constant, counterOperand };
}

/** The writer of `u` in `items` when there is exactly one (its position), -1 when none, -2 when more. */
function onlyWriter(items: readonly Item[], u: number): number {
  let at = -1;
  for (let p = 0; p < items.length; p++) if (items[p]!.writes.includes(u)) { if (at >= 0) return -2; at = p; }
  return at;
}

/**
 * The control of a loop body as the original's: the last compare reads a counter SGPR (written
 * once in the body, by an add or subtract of a constant before the compare) and a constant, or
 * an SGPR the body does not write.
 */
function loopControl(items: readonly Item[]): Control | string {
  const c = lastCompare(items);
  if (typeof c === 'string') return c;
  const cmpItem = items[c.at]!;
  const s0 = sgprAt(cmpItem, 0);
  const s1 = cmpItem.r.insn.base.startsWith('s_cmpk_') ? undefined : sgprAt(cmpItem, 1);
  const counterOperand = s0 !== undefined && onlyWriter(items, s0) !== -1 ? 0 : s1 !== undefined && onlyWriter(items, s1) !== -1 ? 1 : -1;
  if (counterOperand < 0) return 'the compare reads no SGPR the loop writes';
  const counter = (counterOperand === 0 ? s0 : s1)!;
  const constant = immAt(cmpItem, 1 - counterOperand);
  const boundReg = constant === undefined ? sgprAt(cmpItem, 1 - counterOperand) : undefined;
  if (constant === undefined && boundReg === undefined) return 'the compare is not of the counter with a constant or an SGPR';
  if (boundReg !== undefined && onlyWriter(items, boundReg) !== -1) return 'both SGPRs of the compare are written in the loop';
  const stepAt = onlyWriter(items, counter);
  if (stepAt === -2) return 'the counter is written twice in the loop';
  const it = items[stepAt]!;
  const base = it.r.insn.base;
  let step: number | undefined;
  if (/^s_(add|sub)_[iu]32$/.test(base) && sgprAt(it, 0) === counter) {
    const x = sgprAt(it, 1) === counter ? immAt(it, 2) : sgprAt(it, 2) === counter && base.startsWith('s_add') ? immAt(it, 1) : undefined;
    if (x !== undefined) step = base.startsWith('s_sub') ? -x : x;
  } else if (base === 's_addk_i32' && sgprAt(it, 0) === counter) {
    const o = it.r.insn.operands[1];
    if (o && o.kind === 'imm') step = o.value;
  }
  if (step === undefined) return `the counter is written by '${textOf(it)}', not by an add or subtract of a constant`;
  if (stepAt > c.at) return 'the counter is not stepped before the compare';
  return {
    counter, cmp: c.at, constant: constant ?? 0, counterOperand, step: step >>> 0, stepText: it.key, mnemonic: c.mnemonic, stepAt, op: c.op,
    ...(boundReg !== undefined ? { boundReg } : {}),
  };
}

/**
 * An instruction other than the back edge `back` that names a label of the loop starting at
 * `first` (a branch into the loop, or an address of it), which the proof's straight-line runs
 * would not follow: undefined when there is none.
 */
function sideEntry(v: KernelView, first: Item, back: Item): Item['r'] | undefined {
  const labels = new Set(v.cfg.blocks[v.cfg.blockOf[first.index]!]!.labels);
  const named = (r: Item['r']) => r.insn.operands.some((o) => o.kind === 'expr' && o.symbols.some((x) => labels.has(x)));
  return v.all.find((r, i) => i !== back.index && named(r));
}

/** sideEntry of the original's loop and of the scheduled one, as the proof's difference. */
function enteredElsewhere(a: KernelView, b: KernelView, loopA: [Item, Item], loopB: [Item, Item], where: string): LoopDifference | undefined {
  for (const [v, [first, back], file] of [[a, loopA, 'original'], [b, loopB, 'scheduled file']] as const) {
    const r = sideEntry(v, first, back);
    if (r) {
      return { message: `${where}: '${r.insn.text.trim()}' (${locText(r.insn.loc)}) names the loop's label in the ${file}: the loop is entered other than by falling into it, which the proof does not follow`, [file === 'original' ? 'original' : 'scheduled']: r.insn.loc };
    }
  }
  return undefined;
}

/** Is `it` the instruction `step` with its destination (operand 0) written elsewhere? */
function stepElsewhere(it: Item, step: Item): boolean {
  const x = it.r.insn;
  const y = step.r.insn;
  const mods = (m: typeof x.modifiers) => m.map((z) => z.text.replace(/\s+/g, '')).sort().join(' ');
  if (x.mnemonic !== y.mnemonic || x.operands.length !== y.operands.length || mods(x.modifiers) !== mods(y.modifiers)) return false;
  return x.operands.every((o, k) => k === 0 || operandKey(o) === operandKey(y.operands[k]!));
}

/**
 * The 'next value' test of a pipelined loop (schedule's LoopCounter 'next' form) at the end of
 * `items`: the last compare is the original's (`ca`: same mnemonic, same other operand in the
 * same place) of an SGPR t, and t's last writer before it in `items` is the original's step
 * (`step`) writing t instead of the counter, after which nothing writes the counter, t or the
 * bound SGPR, and nothing but that compare reads t; t is neither the counter nor the bound.
 * Returns the writer's and the compare's positions and t.
 */
function nextValueTest(items: readonly Item[], ca: Control, step: Item): { make: number; cmp: number; temp: number } | string {
  const c = lastCompare(items);
  if (typeof c === 'string') return c;
  const cmpItem = items[c.at]!;
  if (c.mnemonic !== ca.mnemonic) return `the compare is ${c.mnemonic}, not the original's ${ca.mnemonic}`;
  const temp = sgprAt(cmpItem, ca.counterOperand);
  if (temp === undefined || temp === ca.counter || temp === ca.boundReg) return 'the compare does not read the next value in an SGPR of its own';
  const other = 1 - ca.counterOperand;
  if (ca.boundReg !== undefined ? sgprAt(cmpItem, other) !== ca.boundReg : immAt(cmpItem, other) !== ca.constant) return 'the compare does not read the original\'s bound';
  let make = -1;
  for (let p = c.at - 1; p >= 0; p--) if (items[p]!.writes.includes(temp)) { make = p; break; }
  // an add or subtract of three operands that reads the counter and not t (s_addk_i32 t, s reads t)
  const mk = make >= 0 ? items[make]! : undefined;
  if (!mk || !/^s_(add|sub)_[iu]32$/.test(mk.r.insn.base) || !mk.reads.includes(ca.counter) || mk.reads.includes(temp) || !stepElsewhere(mk, step)) {
    return `the compared SGPR is not made by the original's step '${textOf(step)}' from the counter`;
  }
  for (let p = make + 1; p < items.length; p++) {
    const w = items[p]!.writes;
    if (w.includes(ca.counter) || w.includes(temp) || (ca.boundReg !== undefined && w.includes(ca.boundReg))) return `'${textOf(items[p]!)}' writes the counter, the bound or the next value after the next value is made`;
  }
  // (a read before the writer reads an earlier value: the symbolic runs, (b), judge it)
  for (let p = make + 1; p < items.length; p++) if (p !== c.at && items[p]!.reads.includes(temp)) return `'${textOf(items[p]!)}' reads the SGPR of the next value`;
  return { make, cmp: c.at, temp };
}

/* ---------------------------------------------------------------------------------------------- */
/* (b) Symbolic runs                                                                               */
/* ---------------------------------------------------------------------------------------------- */

class Values {
  private readonly ids = new Map<string, number>();
  /** EXEC's value when a vector value was written (for copies). */
  readonly execOf = new Map<number, number>();
  id(s: string): number {
    let v = this.ids.get(s);
    if (v === undefined) { v = this.ids.size; this.ids.set(s, v); }
    return v;
  }
}

interface MemEvent {
  acc: Access;
  /** Values of the base registers at the access. */
  base: number[];
  /** The store's value (operation and operands), or the load's first result. */
  value: number;
  store: boolean;
  item: Item;
}

interface Run {
  reg: Map<number, number>;
  mem: MemEvent[];
  /** Every instruction's operation (with its operands' values), counted, and an instruction of each. */
  ops: Map<number, { count: number; item: Item }>;
  /** Values of the loop's control registers at a chosen item (the guard's), when asked. */
  probe?: string;
}

function shapeOf(it: Item): string {
  const insn = it.r.insn;
  const ops = insn.operands.map((o) => (o.kind === 'reg' ? `R${o.mods ? JSON.stringify(o.mods) : ''}` : o.kind === 'imm' ? `#${o.value}${o.float ? 'f' : ''}${o.mods ? JSON.stringify(o.mods) : ''}` : o.text.replace(/\s+/g, '')));
  const mods = insn.modifiers.map((m) => m.text.replace(/\s+/g, '')).sort().join(' ');
  return `${insn.mnemonic} ${ops.join(',')} ${mods}`;
}

function isCopy(it: Item): boolean {
  const insn = it.r.insn;
  if (insn.base !== 'v_mov_b32' || (insn.suffix !== undefined && insn.suffix !== 'e32' && insn.suffix !== 'e64')) return false;
  if (insn.modifiers.length > 0) return false;
  const [d, s] = insn.operands;
  return !!d && !!s && d.kind === 'reg' && s.kind === 'reg' && d.file === 'v' && s.file === 'v' && d.count === 1 && s.count === 1 && !s.mods && it.writes.length === 1;
}

function execKeys(v: KernelView): [number, number] { return [v.regs.key(EXEC_LO), v.regs.key(EXEC_HI)]; }

/** Execute `items` on symbolic values (see the file comment). */
function execute(v: KernelView, items: readonly Item[], vals: Values, disambiguate: boolean | 'per-lane', probe?: { item: Item; units: readonly number[] },
  control?: (it: Item) => 'skip' | 'any constant' | undefined): Run {
  const reg = new Map<number, number>();
  const valueOf = (u: number) => { let x = reg.get(u); if (x === undefined) { x = vals.id(`in ${u}`); reg.set(u, x); } return x; };
  const [e0, e1] = execKeys(v);
  const mem: MemEvent[] = [];
  const run: Run = { reg, mem, ops: new Map() };
  for (const it of items) {
    if (probe && run.probe === undefined && it === probe.item) run.probe = probe.units.map(valueOf).join(',');
    const exec = vals.id(`exec ${valueOf(e0)},${valueOf(e1)}`);
    if (isCopy(it)) {
      const src = valueOf(it.reads.find((u) => u !== e0 && u !== e1)!);
      const w = vals.execOf.get(src);
      if (w === exec) { reg.set(it.writes[0]!, src); continue; }
    }
    const ins = it.reads.map(valueOf).join(',');
    let tag = '';
    const acc = accessOf(it.r);
    let event: MemEvent | undefined;
    if (acc) {
      const base = acc.base.map((u) => valueOf(v.regs.key(u)));
      const earlier: number[] = [];
      for (const m of mem) {
        if (!m.store || !(m.acc.wr & (acc.rd | acc.wr))) continue;
        const same = m.base.length === base.length && m.base.every((x, k) => x === base[k]);
        if (mayAlias(m.acc, acc, same, disambiguate)) earlier.push(m.value);
      }
      // the stores as a multiset (in value order, not program order): two stores that cannot
      // alias each other may change places before an access that may alias both (spill stores to
      // disjoint scratch dwords before a global load) without changing what it reads; the order
      // of two that may alias each other is compareRuns' order check on the whole run
      tag = ` mem[${earlier.sort((x, y) => x - y).join(',')}]`;
      event = { acc, base, value: -1, store: acc.wr !== 0, item: it };
    }
    const op = `${shapeOf(it)}(${ins})${tag}`;
    const ctl = control?.(it);
    if (ctl !== 'skip') {
      const opId = vals.id(ctl === 'any constant' ? `${it.r.insn.mnemonic} (${ins}) any constant` : op);
      const seen = run.ops.get(opId);
      if (seen) seen.count++; else run.ops.set(opId, { count: 1, item: it });
    }
    const vector = it.r.info.cls !== 'salu' && it.r.info.cls !== 'smem';
    it.writes.forEach((u, k) => {
      const x = vals.id(`${op}#${k}`);
      if (vector) vals.execOf.set(x, exec);
      reg.set(u, x);
    });
    if (event) { event.value = vals.id(op); mem.push(event); }
  }
  return run;
}

/** Register keys live right after the original's EXIT region (before the instruction that follows it). */
function liveAfter(a: KernelView, next: number): Set<number> {
  const out = new Set<number>();
  const cfg = a.cfg;
  if (next < 0 || next >= a.all.length) return out;
  const live = computeLiveness(cfg, a.all.map((r) => ({ defs: r.defs, uses: r.uses })));
  const b = cfg.blocks[cfg.blockOf[next]!]!;
  const cur = new Set<number>();
  const lo = live.liveOut[b.id]!;
  for (let u = 0; u < lo.length * 32; u++) if (setHas(lo, u)) cur.add(u);
  for (let i = b.end - 1; i >= next; i--) {
    const r = a.all[i]!;
    for (const u of r.defs) cur.delete(u);
    for (const u of r.uses) cur.add(u);
  }
  for (const u of cur) out.add(a.regs.key(u));
  return out;
}

/** The first instruction after a region (its last item's successor, or the token before it's). */
function nextAfter(v: KernelView, region: number, before: Item | undefined): number {
  const items = v.regions[region]!.items;
  const last = items.length > 0 ? items[items.length - 1]! : before;
  return last ? last.index + 1 : 0;
}

/** Prove one pipelined loop (see the file comment); undefined when proven. */
export function proveLoop(a: KernelView, b: KernelView, m: LoopMatch, disambiguate: boolean | 'per-lane'): LoopDifference | undefined {
  if (m.two) return proveTwoStage(a, b, m, m.two, disambiguate);
  const RA = a.regions;
  const RB = b.regions;
  const fail = (message: string, x?: Item, y?: Item): LoopDifference => ({ message, original: x?.loc, scheduled: y?.loc });
  // the shape: nothing between the guard and the loop's label, nor between the back edge and PEEL
  for (let g = m.preA + 1; g <= m.labelA; g++) if (RA[g]!.items.length) return fail(`instructions between the code before the loop at ${locText(a.tokens[m.labelA]!.loc)} and its label`);
  for (let g = m.preB + 1; g <= m.labelB; g++) if (RB[g]!.items.length) return fail('instructions between the guard and the loop\'s label', undefined, RB[g]!.items[0]);
  if (RB[m.branchB + 1]!.items.length) return fail('instructions between the back edge and the peeled iteration', undefined, RB[m.branchB + 1]!.items[0]);
  const brA = a.tokens[m.branchA]!.item!;
  const brB = b.tokens[m.branchB]!.item!;
  const guard = b.tokens[m.guardB]!.item!;
  const bodyA = RA[m.bodyA]!.items;
  const bodyB = RB[m.bodyB]!.items;
  const preA = RA[m.preA]!.items;
  const preB = RB[m.preB]!.items;
  const exitA = RA[m.exitA]!.items;
  const exitB = RB[m.exitB]!.items;
  const where = `loop at ${locText(a.tokens[m.labelA]!.loc)}`;
  if (bodyA.length === 0 || bodyB.length === 0) return fail(`${where}: an empty loop body`, brA, brB);
  const side = enteredElsewhere(a, b, [bodyA[0]!, brA], [bodyB[0]!, brB], where);
  if (side) return side;
  // (a) control
  const ca = loopControl(bodyA);
  if (typeof ca === 'string') return fail(`${where}: the original loop's control is not one verify can follow: ${ca}`, brA);
  const sub = (x: number, y: number) => (x - y) >>> 0;
  if (brA.key !== brB.key) return fail(`${where}: the back edge changed`, brA, brB);
  const exitSense = brA.r.insn.base === 's_cbranch_scc1' ? 's_cbranch_scc0' : 's_cbranch_scc1';
  if (guard.r.insn.base !== exitSense) return fail(`${where}: the guard does not leave on the original's exit test after one iteration`, undefined, guard);
  const stepA = bodyA[ca.stepAt]!;
  const stepB = onlyWriter(bodyB, ca.counter);
  if (stepB < 0 || bodyB[stepB]!.key !== stepA.key) return fail(`${where}: the pipelined loop is not controlled by the original's counter and step`, stepA, stepB >= 0 ? bodyB[stepB] : brB);
  // the guard and the loop test the counter's next value (the 'next' form) or compare it with the
  // constant one step on
  const next = nextValueTest(bodyB, ca, stepA);
  let control: { guards: Item[]; guard: Item; temps: number[] };
  if (typeof next === 'object') {
    // (nextValueTest: nothing writes the counter after the next value is made, so the step is before it)
    if (ca.boundReg !== undefined && onlyWriter(bodyB, ca.boundReg) !== -1) return fail(`${where}: the pipelined loop writes the bound ${b.regs.name(ca.boundReg)}`, undefined, bodyB[onlyWriter(bodyB, ca.boundReg)]);
    const g = nextValueTest(preB, ca, stepA);
    if (typeof g === 'string') return fail(`${where}: the guard does not test the counter's next value as the original's compare does: ${g}`, undefined, guard);
    control = { guards: [preB[g.make]!, preB[g.cmp]!, bodyB[next.make]!, bodyB[next.cmp]!], guard: preB[g.make]!, temps: [g.temp, next.temp] };
  } else {
    const whileDifferent = ca.boundReg === undefined && (ca.op === 'lg' || ca.op === 'eq') && (ca.op === 'lg') === (brA.r.insn.base === 's_cbranch_scc1');
    if (!whileDifferent) return fail(`${where}: the pipelined loop does not test the counter's next value (${next}), and the original does not go on while its counter differs from a constant`, undefined, brB);
    const cb = loopControl(bodyB);
    if (typeof cb === 'string') return fail(`${where}: the pipelined loop's control is not one verify can follow: ${cb}`, undefined, brB);
    if (cb.counter !== ca.counter || cb.mnemonic !== ca.mnemonic || cb.counterOperand !== ca.counterOperand || cb.step !== ca.step || cb.stepText !== ca.stepText || cb.boundReg !== undefined) {
      return fail(`${where}: the pipelined loop is not controlled by the original's counter and step`, bodyA[ca.cmp], bodyB[cb.cmp]);
    }
    if (cb.constant !== sub(ca.constant, ca.step)) return fail(`${where}: the pipelined loop's compare constant is ${cb.constant | 0}, not one step before the original's ${ca.constant | 0}`, bodyA[ca.cmp], bodyB[cb.cmp]);
    const gc = compareAtEnd(preB);
    if (typeof gc === 'string' || gc.counter !== ca.counter || gc.mnemonic !== ca.mnemonic || gc.counterOperand !== ca.counterOperand) {
      return fail(`${where}: the guard does not leave on the original's exit test after one iteration`, undefined, guard);
    }
    if (gc.constant !== sub(ca.constant, ca.step)) return fail(`${where}: the guard's constant is ${gc.constant | 0}, not ${sub(ca.constant, ca.step) | 0}`, undefined, preB[gc.at]);
    for (let p = gc.at + 1; p < preB.length; p++) if (preB[p]!.writes.includes(ca.counter)) return fail(`${where}: the counter is written after the guard's compare`, undefined, preB[p]);
    control = { guards: [preB[gc.at]!], guard: preB[gc.at]!, temps: [] };
  }
  // (b) values, trip counts 1 .. PROVEN_TRIPS
  const live = liveAfter(a, nextAfter(a, m.exitA, brA));
  const renamed = new Set<number>();
  // the registers the loop's copies read and write: where the peeled iteration reads the renamed
  // registers itself, the copied-to registers keep the last copy's value (dead after the loop)
  for (const it of bodyB) if (isCopy(it)) for (const u of [...it.reads, ...it.writes]) renamed.add(u);
  for (const u of execKeys(b)) renamed.delete(u);
  // the next value's SGPRs (dead after the loop: compareRuns holds every live register to the original's value)
  for (const u of control.temps) renamed.add(u);
  for (let n = 1; n <= PROVEN_TRIPS; n++) {
    const vals = new Values();
    const ta: Item[] = [...preA];
    for (let x = 0; x < n; x++) ta.push(...bodyA);
    ta.push(...exitA);
    const tb: Item[] = [...preB];
    for (let x = 1; x < n; x++) tb.push(...bodyB);
    tb.push(...exitB);
    const d = compareTrip(a, b, {
      ta, tb, n, counter: ca.counter, ...(ca.boundReg !== undefined ? { bound: ca.boundReg } : {}), guards: control.guards, probeA: bodyA[0] ?? exitA[0], guard: control.guard, where, live, free: renamed,
    }, vals, disambiguate);
    if (d) return d;
  }
  return undefined;
}

/** Trip counts whose runs are compared value by value for a loop pipelined by two stages. */
export const PROVEN_TRIPS_TWO = 8;

/**
 * Prove a loop pipelined by two stages (TwoStageTokens). The scheduled file holds
 *
 *     PRE' ; guard to LAST ; P2 ; guard2 to EVEN
 *   L: HALF1 ; exit branch to ODD ; HALF2 ; back edge to L
 *   EVEN: E2 ; s_branch OUT      ODD: E1'      LAST: E1      OUT: EXIT'
 *
 *  (a) Control. The original loop is controlled as for one stage (compare with K, step s, going
 *      on while c != K). The last SCC writer of PRE' is the original's compare with K - s and the
 *      guard leaves on the original's exit sense; P2 writes neither the counter nor SCC but by a
 *      last compare with K - 2s, guard2 of the same sense; HALF1 and HALF2 each step the counter
 *      once (the original's step) and end with the original's compare with K - 2s, their
 *      branches of the exit sense (to ODD) and the original's back edge. With c0 the counter
 *      where the original enters its loop and n = min{m >= 1 : c0 + m*s = K}: the guard leaves
 *      iff c0 = K - s iff n = 1; else guard2 leaves iff c0 = K - 2s iff n = 2; else after h
 *      halves (the counter at c0 + h*s) the loop leaves iff c0 + (h+2)*s = K, first at h = n - 2,
 *      through ODD when h is odd (ODD falls into LAST) and through EVEN when it is even. When
 *      the original never leaves, neither does the scheduled loop. So for every c0 the run is
 *        n = 1: PRE' E1 EXIT';  n = 2: PRE' P2 E2 EXIT';
 *        n >= 3: PRE' P2 (HALF1 HALF2)... n-2 halves, then E1' E1 EXIT' (n odd) or E2 EXIT' (n even).
 *  (b) Values: those runs and the original's PRE BODY^n EXIT for n = 1 .. PROVEN_TRIPS_TWO (both
 *      exits, every half at least twice), on symbolic values as for one stage; the registers the
 *      loads of the halves write (the alternating load registers) may differ after the loop
 *      when they are dead there, and so may the original's load registers (where the address code
 *      uses them too, both halves load into other registers).
 *  Beyond that the claim rests on (a) and on the halves repeating the same straight-line code, as
 *  for one stage.
 */
function proveTwoStage(a: KernelView, b: KernelView, m: LoopMatch, t: TwoStageTokens, disambiguate: boolean | 'per-lane'): LoopDifference | undefined {
  const RA = a.regions;
  const RB = b.regions;
  const fail = (message: string, x?: Item, y?: Item): LoopDifference => ({ message, original: x?.loc, scheduled: y?.loc });
  const where = `loop at ${locText(a.tokens[m.labelA]!.loc)}`;
  for (let g = m.preA + 1; g <= m.labelA; g++) if (RA[g]!.items.length) return fail(`instructions between the code before the loop at ${locText(a.tokens[m.labelA]!.loc)} and its label`);
  for (let g = t.guard2 + 1; g <= m.labelB; g++) if (RB[g]!.items.length) return fail(`${where}: instructions between the second guard and the loop's label`, undefined, RB[g]!.items[0]);
  for (const g of [m.branchB + 1, t.jump + 1]) if (RB[g]!.items.length) return fail(`${where}: instructions between the loop and the code after it that no path runs`, undefined, RB[g]!.items[0]);
  const brA = a.tokens[m.branchA]!.item!;
  const brB = b.tokens[m.branchB]!.item!;
  const bodyA = RA[m.bodyA]!.items;
  const preA = RA[m.preA]!.items;
  const exitA = RA[m.exitA]!.items;
  const preB = RB[m.preB]!.items;
  const p2 = RB[m.guardB + 1]!.items;
  const half1 = RB[m.labelB + 1]!.items;
  const half2 = RB[t.exitBranch + 1]!.items;
  const e2 = RB[t.even + 1]!.items;
  const e1Alt = RB[t.odd + 1]!.items;
  const e1 = RB[t.last + 1]!.items;
  const exitB = RB[t.out + 1]!.items;
  if (bodyA.length === 0 || half1.length === 0) return fail(`${where}: an empty loop body`, brA, brB);
  const side = enteredElsewhere(a, b, [bodyA[0]!, brA], [half1[0]!, brB], where);
  if (side) return side;
  // (a) control
  const ca = loopControl(bodyA);
  if (typeof ca === 'string') return fail(`${where}: the original loop's control is not one verify can follow: ${ca}`, brA);
  if (ca.boundReg !== undefined || (ca.op !== 'lg' && ca.op !== 'eq') || (ca.op === 'lg') !== (brA.r.insn.base === 's_cbranch_scc1')) {
    return fail(`${where}: the original loop does not go on while its counter differs from a constant (a two-stage loop is rotated only so)`, brA);
  }
  if (brA.key !== brB.key) return fail(`${where}: the back edge changed`, brA, brB);
  const sub = (x: number, y: number) => (x - y) >>> 0;
  const exitSense = brA.r.insn.base === 's_cbranch_scc1' ? 's_cbranch_scc0' : 's_cbranch_scc1';
  const sameCompare = (c: { counter: number; mnemonic: string; counterOperand: number }) => c.counter === ca.counter && c.mnemonic === ca.mnemonic && c.counterOperand === ca.counterOperand;
  for (const [items, branch, what] of [[half1, b.tokens[t.exitBranch]!.item!, 'first half'], [half2, brB, 'second half']] as const) {
    const c = loopControl(items);
    if (typeof c === 'string') return fail(`${where}: the pipelined loop's ${what} is not controlled as verify can follow: ${c}`, undefined, branch);
    if (!sameCompare(c) || c.step !== ca.step || c.stepText !== ca.stepText || c.boundReg !== undefined) return fail(`${where}: the pipelined loop's ${what} is not controlled by the original's counter and step`, bodyA[ca.cmp], items[c.cmp]);
    if (c.constant !== sub(ca.constant, 2 * ca.step)) return fail(`${where}: the ${what}'s compare constant is ${c.constant | 0}, not two steps before the original's ${ca.constant | 0}`, bodyA[ca.cmp], items[c.cmp]);
  }
  if (b.tokens[t.exitBranch]!.item!.r.insn.base !== exitSense) return fail(`${where}: the first half's branch does not leave on the original's exit test`, undefined, b.tokens[t.exitBranch]!.item);
  const guards: [readonly Item[], Item, number][] = [[preB, b.tokens[m.guardB]!.item!, sub(ca.constant, ca.step)], [p2, b.tokens[t.guard2]!.item!, sub(ca.constant, 2 * ca.step)]];
  for (const [items, guard, constant] of guards) {
    const gc = compareAtEnd(items);
    if (typeof gc === 'string' || !sameCompare(gc) || guard.r.insn.base !== exitSense) return fail(`${where}: a guard does not leave on the original's exit test`, undefined, guard);
    if (gc.constant !== constant) return fail(`${where}: a guard's constant is ${gc.constant | 0}, not ${constant | 0}`, undefined, items[gc.at]);
    for (let p = gc.at + 1; p < items.length; p++) if (items[p]!.writes.includes(ca.counter)) return fail(`${where}: the counter is written after a guard's compare`, undefined, items[p]);
  }
  for (const it of p2) if (it.writes.includes(ca.counter)) return fail(`${where}: the counter is written between the guards`, undefined, it);
  const gc1 = compareAtEnd(preB) as { at: number };
  const gc2 = compareAtEnd(p2) as { at: number };
  // (b) values
  const live = liveAfter(a, nextAfter(a, m.exitA, brA));
  const alternating = new Set<number>();
  for (const it of [...half1, ...half2, ...bodyA]) if (it.r.info.mem?.op === 'load') for (const u of it.writes) alternating.add(u);
  for (let n = 1; n <= PROVEN_TRIPS_TWO; n++) {
    const vals = new Values();
    const ta: Item[] = [...preA];
    for (let x = 0; x < n; x++) ta.push(...bodyA);
    ta.push(...exitA);
    const tb: Item[] = [...preB];
    if (n === 1) tb.push(...e1);
    else {
      tb.push(...p2);
      for (let h = 1; h <= n - 2; h++) tb.push(...(h % 2 === 1 ? half1 : half2));
      tb.push(...((n - 2) % 2 === 1 ? [...e1Alt, ...e1] : e2));
    }
    tb.push(...exitB);
    const d = compareTrip(a, b, { ta, tb, n, counter: ca.counter, guards: [preB[gc1.at]!, p2[gc2.at]!], probeA: bodyA[0] ?? exitA[0], guard: preB[gc1.at]!, where, live, free: alternating }, vals, disambiguate);
    if (d) return d;
  }
  return undefined;
}

/**
 * One trip count n: run the original's and the scheduled file's straight-line runs on symbolic
 * values; the counter at the guard must hold the value the original loop starts from (n = 1), and
 * the runs must leave the same values (compareRuns; `free`: registers that may differ when dead).
 */
function compareTrip(a: KernelView, b: KernelView, t: { ta: Item[]; tb: Item[]; n: number; counter: number; bound?: number; guards: Item[]; probeA?: Item; guard: Item; where: string; live: Set<number>; free: Set<number> },
  vals: Values, disambiguate: boolean | 'per-lane'): LoopDifference | undefined {
  // compares of the counter: the guards (reading the start value) are the control proof's (a);
  // every other one compares the counter value the original compares, whatever its constant
  // (the loop's is moved, (a) proves it), as often
  const control = (it: Item): 'skip' | 'any constant' | undefined => {
    if (t.guards.includes(it)) return 'skip';
    const c = CMP.test(it.r.insn.base) ? compareAtEnd([it]) : undefined;
    return typeof c === 'object' && c.counter === t.counter ? 'any constant' : undefined;
  };
  const units = t.bound === undefined ? [t.counter] : [t.counter, t.bound];
  const ra = execute(a, t.ta, vals, disambiguate, t.probeA ? { item: t.probeA, units } : undefined, control);
  const rb = execute(b, t.tb, vals, disambiguate, { item: t.guard, units }, control);
  if (t.n === 1 && ra.probe !== rb.probe) {
    const what = units.map((u) => b.regs.name(u)).join(' and ');
    return { message: `${t.where}: the guard reads ${t.bound === undefined ? 'the counter' : 'the counter and the bound'} ${what} with other values than the original loop starts from`, scheduled: t.guard.loc };
  }
  const d = compareRuns(a, ra, rb, t.live, t.free, (u) => vals.id(`in ${u}`), disambiguate);
  return d ? { message: `${t.where}, run with trip count ${t.n}: ${d.message}`, original: d.original, scheduled: d.scheduled } : undefined;
}

function compareRuns(a: KernelView, ra: Run, rb: Run, live: Set<number>, renamed: Set<number>, entry: (u: number) => number,
  disambiguate: boolean | 'per-lane'): LoopDifference | undefined {
  // every instruction computes what an instruction of the original computes (the same operation
  // on the same values, as often): an instruction that reads another producer shows here even
  // when what it computes is overwritten before anything reads it
  for (const [id, o] of rb.ops) {
    if ((ra.ops.get(id)?.count ?? 0) >= o.count) continue;
    return { message: `'${textOf(o.item)}' (${locText(o.item.loc)}) computes a value the original does not compute there (it reads another producer than in the original)`, scheduled: o.item.loc };
  }
  for (const u of live) {
    if ((ra.reg.get(u) ?? entry(u)) === (rb.reg.get(u) ?? entry(u))) continue;
    return { message: `${a.regs.name(u)} does not hold the same value after the loop in both files (it is live there)` };
  }
  const storesA = ra.mem.filter((e) => e.store);
  const storesB = rb.mem.filter((e) => e.store);
  const count = new Map<number, number>();
  for (const e of storesA) count.set(e.value, (count.get(e.value) ?? 0) + 1);
  for (const e of storesB) count.set(e.value, (count.get(e.value) ?? 0) - 1);
  for (const [v, c] of count) {
    if (c === 0) continue;
    const e = (c > 0 ? storesA : storesB).find((x) => x.value === v)!;
    return c > 0
      ? { message: `the store '${textOf(e.item)}' (${locText(e.item.loc)}) is not made with the same address and data in the scheduled file`, original: e.item.loc }
      : { message: `the scheduled file makes a store the original does not: '${textOf(e.item)}' (${locText(e.item.loc)})`, scheduled: e.item.loc };
  }
  // order of accesses that may alias: accesses matched by value and occurrence
  const ident = (evs: MemEvent[]) => {
    const seen = new Map<string, number>();
    return evs.map((e) => { const k = `${e.store ? 's' : 'l'}${e.value}`; const n = seen.get(k) ?? 0; seen.set(k, n + 1); return `${k}#${n}`; });
  };
  const ia = ident(ra.mem);
  const ib = ident(rb.mem);
  const posB = new Map(ib.map((id, p) => [id, p]));
  for (let x = 0; x < ra.mem.length; x++) {
    for (let y = x + 1; y < ra.mem.length; y++) {
      const ex = ra.mem[x]!;
      const ey = ra.mem[y]!;
      if (!(ex.store || ey.store)) continue;
      const same = ex.base.length === ey.base.length && ex.base.every((v, k) => v === ey.base[k]);
      if (!mayAlias(ex.acc, ey.acc, same, disambiguate)) continue;
      const px = posB.get(ia[x]!);
      const py = posB.get(ia[y]!);
      if (px === undefined || py === undefined) {
        const e = px === undefined ? ex : ey;
        return { message: `'${textOf(e.item)}' (${locText(e.item.loc)}) does not access memory with the same address and data in the scheduled file`, original: e.item.loc };
      }
      if (px > py) {
        return { message: `'${textOf(ex.item)}' and '${textOf(ey.item)}' may alias (${ex.acc.what} and ${ey.acc.what}) and changed order`, original: ex.item.loc, scheduled: rb.mem[px]!.item.loc };
      }
    }
  }
  // every other register too, as check 3 keeps every register's last writer, except the
  // registers the pipelined loop copies renamed load data from and to (dead after the loop, above)
  for (const u of new Set([...ra.reg.keys(), ...rb.reg.keys()])) {
    if (renamed.has(u) || (ra.reg.get(u) ?? entry(u)) === (rb.reg.get(u) ?? entry(u))) continue;
    return { message: `${a.regs.name(u)} does not hold the same value after the loop in both files (dead there, but only the registers the loop copies renamed load data from and to may differ)` };
  }
  return undefined;
}

/** Items of the regions a loop proof covers, for the completion check's identities. */
export function loopRegions(m: LoopMatch): { a: number[]; b: number[] } {
  return { a: [m.preA, m.bodyA, m.exitA], b: [m.preB, m.bodyB, m.exitB] };
}
