/**
 * s_nop for the scheduler, through the hazard checker's own engine (src/hazards): a fast estimate
 * of the s_nop a region needs in a given order (for `evaluate`): the region's instructions in
 * that order between a window of the instructions before and after it in the original program,
 * as one straight-line block, padded by the engine with the rules that apply to the kernel.
 */
import type { KernelContext } from '../analysis/types.js';
import type { Cfg } from '../analysis/cfg.js';
import type { Instruction } from '../asm/ast.js';
import type { ResolvedInsn } from '../isa/types.js';
import { maxWaitOf, type HazardRule, type Need } from './types.js';
import { activeRules, computeNopsIn } from './engine.js';
import { HazardContext, hazardInsns, overlaps, type HazardInsn, type Visit } from './context.js';

/** s_nop instructions needed for `waitStates` wait states in chunks of maxImm + 1. */
export function nopInstructions(waitStates: number, maxImm: number): number {
  return waitStates <= 0 ? 0 : Math.ceil(waitStates / (maxImm + 1));
}

/** Per kernel: the facts of every instruction (computed once) and the rules that apply. */
export interface WindowNopModel {
  /** s_nop instructions needed inside `seq` and in the `after` window (kernel indexes). */
  nops(before: ArrayLike<number>, seq: ArrayLike<number>, after: ArrayLike<number>): number;
  /**
   * A window of n instructions padded again in time proportional to its change (see NopWindow),
   * bounding the pairwise rules by `table` when given (its range must hold every instruction
   * the window is given).
   */
  window(n: number, table?: PairTable): NopWindow;
  /**
   * A table of the pairwise rules' wait states for the pairs of kernel instructions in [lo, hi),
   * filled as pairs are asked for; undefined when the range is too long for a table.
   */
  pairTable(lo: number, hi: number): PairTable | undefined;
}

/** Longest instruction range given a pair table (its bytes are the square of the length). */
export const PAIR_TABLE_MAX = 3072;

/** The window model of one kernel. */
export function windowNopModel(ctx: KernelContext): WindowNopModel {
  const facts = hazardInsns(ctx);
  const rules = activeRules(new HazardContext(ctx, facts)).filter((r) => !r.noNopFix);
  const maxImm = ctx.target.maxNopImm.value;
  const inert = new InertRules(rules, ctx.insns.length);
  let pairs: PairWaits | undefined;
  return {
    nops(before, seq, after) {
      const idx: number[] = [];
      for (let p = 0; p < before.length; p++) idx.push(before[p]!);
      const from = idx.length;
      for (let p = 0; p < seq.length; p++) idx.push(seq[p]!);
      for (let p = 0; p < after.length; p++) idx.push(after[p]!);
      const n = idx.length;
      const insns = idx.map((i) => ctx.insns[i]!);
      const cfg: Cfg = {
        kernel: ctx.kernel,
        insns: insns.map((r) => r.insn),
        blocks: [{ id: 0, start: 0, end: n, labels: [], succs: [], preds: [], exits: true, loc: ctx.kernel.loc }],
        blockOf: new Int32Array(n),
        control: insns.map(() => 'none'),
        longBranches: [],
        danglingLabels: [], rawJumps: [],
      };
      const mini: KernelContext = { ...ctx, cfg, insns };
      const h = new HazardContext(mini, idx.map((i) => facts[i]!));
      const plan = computeNopsIn(h, rules);
      let count = 0;
      for (const s of plan.sites) if (s.insn >= from) count += nopInstructions(s.waitStates, maxImm);
      return count;
    },
    window(n, table) {
      return new NopWindow(ctx, facts, rules, inert, maxImm, n, table);
    },
    pairTable(lo, hi) {
      if (hi - lo > PAIR_TABLE_MAX) return undefined;
      pairs ??= new PairWaits(ctx, facts, inert);
      return new PairTable(pairs, lo, hi);
    },
  };
}

const NONE: readonly number[] = Object.freeze([]);

/**
 * What the window model learns per rule and consumer: a rule that, checking kernel instruction i
 * as a consumer, asked nothing about other instructions (no walk, no producer list) and found
 * nothing judged i alone, so it finds nothing for i in any window and after any producer; the
 * NopWindows and the pair table then skip it for i. The soft clause rule reads the instructions
 * before a memory consumer directly and is never inert.
 */
export class InertRules {
  /** Per rule (index in the model's rules), per kernel instruction: 1 inert, 2 not, 0 not yet known. */
  private readonly known: Uint8Array[];
  private readonly never: number;
  /** The pairwise rules (HazardRule.pairwise), as indexes into `rules`, in order: pairwise[b] has bit b in `bits`. */
  readonly pairwise: readonly number[];
  /** Per rule: its bit in `bits` (its place in `pairwise`), else -1. */
  readonly pairBit: Int32Array;
  /** Per kernel instruction: the bits (pairBit) of the pairwise rules known inert for it. */
  readonly bits: Int32Array;

  constructor(readonly rules: readonly HazardRule[], n: number) {
    this.known = rules.map(() => new Uint8Array(n));
    this.never = rules.findIndex((r) => r.id === 'xnack-soft-clause');
    this.pairBit = new Int32Array(rules.length).fill(-1);
    const pairwise = rules.flatMap((r, x) => (r.pairwise === true ? [x] : []));
    if (pairwise.length > MASK_RULES) throw new Error(`internal: ${pairwise.length} pairwise hazard rules, more than the ${MASK_RULES} one mask holds`);
    pairwise.forEach((x, b) => { this.pairBit[x] = b; });
    this.pairwise = pairwise;
    this.bits = new Int32Array(n);
  }

  /**
   * Rule x's needs for the consumer at window position p (kernel instruction i) of `h`, or
   * undefined when it finds none; without running it when it is known inert for i (`learn`
   * false: always run, nothing learnt).
   */
  check(x: number, h: WindowContext, p: number, i: number, learn = true): Need[] | undefined {
    const known = this.known[x]!;
    const state = learn ? known[i]! : 2;
    if (state === 1) return undefined;
    const asked = h.asked;
    const needs = this.rules[x]!.check(h, p);
    const found = needs !== undefined && needs.length > 0;
    if (state === 0) {
      const inert = !found && h.asked === asked && x !== this.never;
      known[i] = inert ? 1 : 2;
      if (inert && this.pairBit[x]! >= 0) this.bits[i]! |= 1 << this.pairBit[x]!;
    }
    return found ? needs : undefined;
  }

  /** Whether rule x is known to find nothing for kernel instruction i. */
  inert(x: number, i: number): boolean { return this.known[x]![i] === 1; }
}

/** Most pairwise rules kept as bits of one number (InertRules.bits, PairWaits' producer masks). */
const MASK_RULES = 31;

/** The number of bits set in v (a non-negative 31-bit number). */
function bitCount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A hazard context over a window whose instructions change in place, recording how far back each consumer's walks reach. */
class WindowContext extends HazardContext {
  /** Lowest position a walk visited since it was last set. */
  reach = 0;
  /** Questions asked about other instructions (walks, producer lists): a rule that asks none judged the consumer alone. */
  asked = 0;

  /**
   * Per producer key asked about: how many instructions of the window match it, counted when
   * first asked for after the content changed (`version` is the content's version it counts).
   */
  private readonly matches = new Map<string, { count: number; version: number }>();
  /** The content's version: changes with every resetContent. */
  private version = 0;

  /**
   * HazardContext.producers, answered without walking when no instruction of the window matches
   * the key (the walk would find none); the positions that walk would have visited count as
   * read all the same.
   */
  override producers(consumer: number, key: string, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    this.asked++;
    let m = this.matches.get(key);
    if (m === undefined) { m = { count: 0, version: -1 }; this.matches.set(key, m); }
    if (m.version !== this.version) {
      let count = 0;
      const f = this.f;
      for (let j = 0; j < f.length; j++) if (pred(f[j]!)) count++;
      m.count = count;
      m.version = this.version;
    }
    if (m.count === 0) {
      const lo = Math.max(0, consumer - limit);
      if (limit > 0 && lo < consumer && lo < this.reach) this.reach = lo;
      return NONE;
    }
    return super.producers(consumer, key, limit, pred);
  }

  // collect's walk: one visitor made once, its predicate and list in fields
  private collectPred: (f: HazardInsn) => boolean = () => false;
  private collected: number[] | undefined;
  private readonly collectVisit: Visit = (j, d) => {
    if (!this.collectPred(this.f[j]!)) return;
    if (this.collected === undefined) this.collected = [j, d]; else this.collected.push(j, d);
  };

  /**
   * HazardContext.collect on one block without predecessors: straight back from the consumer,
   * each instruction met once (so at its smallest distance), with a visitor made once.
   */
  protected override collect(consumer: number, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    this.collectPred = pred;
    this.collected = undefined;
    this.walk(consumer, limit, this.collectVisit);
    const list = this.collected;
    this.collected = undefined;
    return list ?? NONE;
  }

  /** The window's instructions changed in place: the match counts are counted again when next asked for. */
  override resetContent(): void {
    super.resetContent();
    this.version++;
  }

  /** HazardContext.walk on one block without predecessors: straight back from the consumer. */
  override walk(consumer: number, limit: number, visit: Visit): void {
    this.asked++;
    if (limit <= 0) return;
    const f = this.f;
    const pad = this.pad;
    let d = pad[consumer]!;
    for (let j = consumer - 1; j >= 0; j--) {
      if (d >= limit) break;
      if (j < this.reach) this.reach = j;
      if (visit(j, d) === true) break;
      d += f[j]!.ws + pad[j]!;
    }
  }
}

/** A straight-line hazard context of n positions whose instructions are set in place (NopWindow, PairWaits). */
function windowContext(ctx: KernelContext, facts: readonly HazardInsn[], n: number): { h: WindowContext; insns: ResolvedInsn[]; f: HazardInsn[] } {
  const insns = new Array<ResolvedInsn>(n).fill(ctx.insns[0]!);
  const f = new Array<HazardInsn>(n).fill(facts[0]!);
  const cfg: Cfg = {
    kernel: ctx.kernel,
    insns: insns.map((r) => r.insn),
    blocks: [{ id: 0, start: 0, end: n, labels: [], succs: [], preds: [], exits: true, loc: ctx.kernel.loc }],
    blockOf: new Int32Array(n),
    control: new Array<string>(n).fill('none') as Cfg['control'],
    longBranches: [],
    danglingLabels: [], rawJumps: [],
  };
  return { h: new WindowContext({ ...ctx, cfg, insns }, f, { walkOnly: true }), insns, f };
}

/**
 * The wait states the pairwise rules (HazardRule.pairwise) demand of a producer/consumer pair:
 * the rules run on the two instructions alone, the producer right before the consumer. By the
 * rules' contract, a consumer's need under those rules in any straight-line window is at most
 * the largest (pair value - distance) over the instructions before it, and nothing when no
 * pair value exceeds its distance.
 */
export class PairWaits {
  private readonly h: WindowContext;
  private readonly insns: ResolvedInsn[];
  private readonly f: HazardInsn[];
  /** The pairwise rules, as indexes into the model's rules (InertRules.pairwise). */
  private readonly pairwise: readonly number[];
  /** The largest wait-state count any pairwise rule's facts demand on the kernel's generation: pair values never exceed it. */
  readonly reach: number;
  /**
   * Pairs computed; rule runs skipped because the rule is known to find nothing for the consumer;
   * rule runs skipped because the producer or the registers rule the rule out (for the bench and tests).
   */
  computed = 0;
  skipped = 0;
  filtered = 0;
  /** The rules waits() runs for the pair at hand. */
  private readonly run: Int32Array;
  /**
   * Per kernel instruction: the bits (InertRules.pairBit) of the pairwise rules whose producer
   * predicate accepts it (-1 until first asked for).
   */
  private readonly byProducer: Int32Array;
  /** The bits of the pairwise rules that relate shared registers only (HazardRule.sharesRegisters). */
  private readonly sharing: number;

  /**
   * @param inert the model's rules (the pair runs their pairwise ones) and what it learns of them (shared with its NopWindows)
   * @param learn skip the rules known to find nothing for a consumer (false: every rule runs on every pair, for tests).
   */
  constructor(private readonly ctx: KernelContext, private readonly facts: readonly HazardInsn[],
    private readonly inert: InertRules, private readonly learn = true) {
    ({ h: this.h, insns: this.insns, f: this.f } = windowContext(ctx, facts, 2));
    const rules = inert.rules;
    const pairwise = inert.pairwise;
    this.pairwise = pairwise;
    this.run = new Int32Array(pairwise.length);
    this.byProducer = new Int32Array(ctx.insns.length).fill(-1);
    let sharing = 0;
    pairwise.forEach((x, b) => { if (rules[x]!.sharesRegisters === true) sharing |= 1 << b; });
    this.sharing = sharing;
    let reach = 0;
    for (const x of pairwise) for (const fact of rules[x]!.facts) reach = Math.max(reach, maxWaitOf(fact, this.h.gen));
    this.reach = reach;
  }

  /**
   * Pair value of kernel instructions j (producer) and c (consumer). The rules that cannot find
   * anything for the pair are not run (when learning): those known to find nothing for c
   * (InertRules), those whose producer predicate rejects j (HazardRule.producer), and those that
   * relate shared registers when j and c share none (HazardRule.sharesRegisters).
   */
  waits(j: number, c: number): number {
    const run = this.run;
    let n = 0;
    if (this.learn) {
      // the rules left, as bits: the producer's, less those inert for c, less those that need
      // shared registers when the two share none (each counted as the rule runs it skips)
      const mine = this.producerBits(j);
      const inert = this.inert.bits[c]!;
      let left = mine & ~inert;
      this.filtered += this.pairwise.length - bitCount(mine);
      this.skipped += bitCount(mine & inert);
      const shares = left & this.sharing;
      if (shares !== 0 && !opsOverlap(this.facts[j]!, this.facts[c]!)) {
        this.filtered += bitCount(shares);
        left &= ~shares;
      }
      // lowest bit first: the rules in their order
      while (left !== 0) { run[n++] = this.pairwise[31 - Math.clz32(left & -left)]!; left &= left - 1; }
    } else for (const x of this.pairwise) run[n++] = x;
    this.computed++;
    if (n === 0) return 0;
    const h = this.h;
    const cfgInsns = h.ctx.cfg.insns as Instruction[];
    for (let p = 0; p < 2; p++) {
      const i = p === 0 ? j : c;
      this.f[p] = this.facts[i]!;
      this.insns[p] = this.ctx.insns[i]!;
      cfgInsns[p] = this.insns[p]!.insn;
    }
    h.resetContent();
    h.pad[0] = 0;
    h.pad[1] = 0;
    let w = 0;
    for (let y = 0; y < n; y++) {
      const x = run[y]!;
      const needs = this.inert.check(x, h, 1, c, this.learn);
      if (needs === undefined) continue;
      for (let z = 0; z < needs.length; z++) {
        const n = needs[z]!;
        if (n.producer !== 0) throw new Error(`internal: pairwise hazard rule ${this.inert.rules[x]!.id} names producer ${n.producer} of a pair`);
        if (n.required > w) w = n.required;
      }
    }
    if (w > this.reach) throw new Error(`internal: a pair needs ${w} wait states, more than the pairwise rules' facts allow (${this.reach})`);
    return w;
  }

  /** The bits of the pairwise rules that can name kernel instruction j as a producer (HazardRule.producer; a rule without one: always). */
  private producerBits(j: number): number {
    const m = this.byProducer[j]!;
    return m >= 0 ? m : this.producerBitsOf(j);
  }

  /** producerBits computed and kept (apart: a function holding a closure allocates its context on every call). */
  private producerBitsOf(j: number): number {
    const f = this.facts[j]!;
    const pairwise = this.pairwise;
    let m = 0;
    for (let b = 0; b < pairwise.length; b++) {
      const r = this.inert.rules[pairwise[b]!]!;
      if (r.producer === undefined || r.producer(f)) m |= 1 << b;
    }
    this.byProducer[j] = m;
    return m;
  }

}

/**
 * Largest table whose rows are computed whole (PairTable.reachOf): a row of a larger one costs
 * more pair evaluations than the walks it shortens save (the 2,237-instruction region of the
 * bench ran 2.2x slower with rows computed).
 */
const ROW_TABLE_MAX = 512;

/** Rows and columns of a PairTable tile, as a power of two (8: a tile is 64 pairs). */
const TILE_BITS = 3;
const TILE_MASK = (1 << TILE_BITS) - 1;
const CELL_BITS = 2 * TILE_BITS;
const TILE_CELLS = 1 << CELL_BITS;
const CELL_MASK = TILE_CELLS - 1;

/**
 * PairWaits of the pairs of kernel instructions in [lo, hi), computed when first asked for and
 * kept. The pairs are kept in square tiles of TILE_CELLS, each made when one of its pairs is
 * first computed: a search asks for the pairs of instructions its orders bring near each other,
 * a few percent of the square in a long region. A consumer's row in a tile holds its producers
 * side by side, so the walk back from a consumer reads a few neighbouring bytes.
 *
 * A pair's place is the sum of its consumer's row offset (rowOf) and its producer's column
 * offset (colOf): the tile's index in its bits from CELL_BITS up, the pair's place in the tile
 * below them.
 */
export class PairTable {
  readonly size: number;
  /** Tiles per row of tiles. */
  private readonly across: number;
  /** Per tile (row of tiles x across + column of tiles): its offset in `cells`, 0 while none of its pairs is computed. */
  private readonly tiles: Int32Array;
  /** The tiles' pairs (consumer-major in each tile), -1 while not computed; the first tile is never written (every tile not made reads it). */
  private cells: Int8Array;
  /** Cells of `cells` in use. */
  private used = TILE_CELLS;

  /** Per row (consumer - lo): the most any producer of the table asks of it (-1: not known yet), and walks since. */
  private readonly rowMax: Int8Array;
  private readonly walks: Uint16Array;
  /**
   * Paddings that read the table (NopWindow.nops). Rows are computed only once the table has
   * served as many paddings as it has rows: a search that passes through a region (the largest
   * Tensile kernels' thousand regions, a few evaluations each) would pay for whole rows it never
   * uses again; one that keeps moving in it (thousands of evaluations) gets them soon enough.
   */
  paddings = 0;

  constructor(readonly pairs: PairWaits, readonly lo: number, readonly hi: number) {
    this.size = hi - lo;
    this.across = (this.size + TILE_MASK) >>> TILE_BITS;
    this.tiles = new Int32Array(this.across * this.across);
    this.cells = new Int8Array(TILE_CELLS * 16).fill(-1);
    this.rowMax = new Int8Array(this.size).fill(-1);
    this.walks = new Uint16Array(this.size);
  }

  /**
   * How far back from the consumer at row offset `row` a walk must read: no producer can ask
   * more wait states than its row's largest value. In a table of at most ROW_TABLE_MAX
   * instructions the row (`size` pairs) is computed whole once the table has served `size`
   * paddings (`paddings`) and the consumer's walks have read about as many pairs (walks x the
   * rules' reach), so a consumer walked rarely never pays for it; until then, and in larger
   * tables, the pairwise rules' reach.
   */
  reachOf(row: number): number {
    const a = ((((row >>> CELL_BITS) / this.across) | 0) << TILE_BITS) + ((row & CELL_MASK) >>> TILE_BITS);
    const m = this.rowMax[a]!;
    if (m >= 0) return m;
    const reach = this.pairs.reach;
    if (this.size > ROW_TABLE_MAX || this.paddings < this.size || ++this.walks[a]! * reach < this.size) return reach;
    let max = 0;
    for (let b = 0; b < this.size; b++) { const v = this.at(row, colAt(b)); if (v > max) max = v; }
    this.rowMax[a] = max;
    return max;
  }

  /** Kernel instruction c's row offset, as consumer. */
  rowOf(c: number): number {
    const a = this.place(c);
    return (((a >>> TILE_BITS) * this.across) << CELL_BITS) | ((a & TILE_MASK) << TILE_BITS);
  }

  /** Kernel instruction j's column offset, as producer. */
  colOf(j: number): number {
    return colAt(this.place(j));
  }

  private place(j: number): number {
    const a = j - this.lo;
    if (a < 0 || a >= this.size) throw new Error(`internal: instruction ${j} outside the pair table's instructions [${this.lo}, ${this.hi})`);
    return a;
  }

  /** The value of the pair of the consumer at row offset `row` and the producer at column offset `col`. */
  at(row: number, col: number): number {
    const k = row + col;
    const v = this.cells[this.tiles[k >>> CELL_BITS]! + (k & CELL_MASK)]!;
    return v >= 0 ? v : this.compute(k);
  }

  /** Compute and keep the pair at place k (rowOf + colOf). */
  private compute(k: number): number {
    const t = k >>> CELL_BITS;
    const tr = (t / this.across) | 0;
    const tc = t - tr * this.across;
    const cell = k & CELL_MASK;
    const consumer = this.lo + ((tr << TILE_BITS) | (cell >>> TILE_BITS));
    const producer = this.lo + ((tc << TILE_BITS) | (cell & TILE_MASK));
    const v = this.pairs.waits(producer, consumer);
    this.put(k, v);
    return v;
  }

  private put(k: number, v: number): void {
    const t = k >>> CELL_BITS;
    let base = this.tiles[t]!;
    if (base === 0) {
      if (this.used + TILE_CELLS > this.cells.length) {
        const more = new Int8Array(this.cells.length + Math.max(TILE_CELLS, (this.cells.length >>> 1) & ~CELL_MASK)).fill(-1);
        more.set(this.cells);
        this.cells = more;
      }
      base = this.used;
      this.used += TILE_CELLS;
      this.tiles[t] = base;
    }
    this.cells[base + (k & CELL_MASK)] = v;
  }

  get(j: number, c: number): number {
    return this.at(this.rowOf(c), this.colOf(j));
  }

  /** Bytes the table holds now (its tiles and their index). */
  get bytes(): number { return this.cells.byteLength + this.tiles.byteLength + this.rowMax.byteLength + this.walks.byteLength; }

  /** For tests: pairs computed. */
  pairsKnown(): number {
    let n = 0;
    for (let x = TILE_CELLS; x < this.used; x++) if (this.cells[x]! >= 0) n++;
    return n;
  }

  /** For tests: rows whose bound is known. */
  rowsKnown(): number {
    let n = 0;
    for (const m of this.rowMax) if (m >= 0) n++;
    return n;
  }

  /** For tests: set consumer c's row bound (one too small must be caught). */
  corruptRow(c: number, v: number): void {
    this.rowMax[c - this.lo] = v;
  }

  /** For tests: set a pair's value (a wrong table must be caught by the evaluator's check mode). */
  corrupt(j: number, c: number, v: number): void {
    this.put(this.rowOf(c) + this.colOf(j), v);
  }
}

/** The column offset of table place b (PairTable.colOf). */
function colAt(b: number): number {
  return ((b >>> TILE_BITS) << CELL_BITS) | (b & TILE_MASK);
}

/**
 * The padding of a straight-line window of n instructions (`nops(before, seq, after)` as one
 * sequence), kept with the last content padded so that a new content is padded from its first
 * changed position only, and past its last changed position only as far as the padding can
 * differ. The engine pads consumers in order, each looking only backwards: consumer i's padding
 * depends on the instructions and padding at the positions its rules read, from the lowest
 * position its walks visit (its reach; the soft clause rule, which reads the clause before a
 * memory instruction directly, reaches back over the memory instructions before it) to i. A
 * consumer after the change whose reach lies after the change and after every position whose
 * padding changed keeps its padding without running the rules.
 */
export class NopWindow {
  private readonly idx: Int32Array;
  /** Per position: its instruction's column in the pair table (as producer), and its wait-state count (HazardInsn.ws). */
  private readonly col: Int32Array;
  private readonly ws: Int32Array;
  private readonly insns: ResolvedInsn[];
  private readonly f: HazardInsn[];
  private readonly h: WindowContext;
  /** Per position: the lowest position consumer p's rules read in the last padding. */
  private readonly reach: Int32Array;
  private readonly clauses: boolean;
  private readonly clauseRule: number;
  private ran = false;
  /** Per rule: set when the pair table bounds it (HazardRule.pairwise). */
  private readonly pairwise: Uint8Array;
  /** Consumers whose rules ran in the last call (for the bench and tests). */
  checked = 0;
  /** Of those, consumers the pair table showed no shortfall for: only the rules that are not pairwise ran. */
  byTable = 0;

  /**
   * @param inert what the model learns of its rules (shared with its other windows and its pair table)
   */
  constructor(private readonly ctx: KernelContext, private readonly facts: readonly HazardInsn[], private readonly rules: readonly HazardRule[],
    private readonly inert: InertRules, private readonly maxImm: number, readonly n: number,
    private readonly table?: PairTable) {
    this.idx = new Int32Array(n).fill(-1);
    this.col = new Int32Array(n);
    this.ws = new Int32Array(n);
    ({ h: this.h, insns: this.insns, f: this.f } = windowContext(ctx, facts, n));
    this.reach = new Int32Array(n);
    this.clauseRule = rules.findIndex((r) => r.id === 'xnack-soft-clause');
    this.clauses = this.clauseRule >= 0;
    this.pairwise = Uint8Array.from(rules, (r) => (table !== undefined && r.pairwise === true ? 1 : 0));
  }

  /** s_nop instructions the padding of `content` (n kernel indexes) places at positions `from` and later. */
  nops(content: ArrayLike<number>, from: number): number {
    const n = this.n;
    const h = this.h;
    const pad = h.pad;
    let first = 0;
    let last = n - 1;
    if (this.ran) {
      while (first < n && this.idx[first] === content[first]) first++;
      if (first === n) { this.checked = 0; return this.count(from); }
      while (last > first && this.idx[last] === content[last]) last--;
    }
    this.ran = true;
    if (this.table) this.table.paddings++;
    const cfgInsns = h.ctx.cfg.insns as Instruction[];
    for (let p = first; p <= last; p++) {
      const i = content[p]!;
      this.idx[p] = i;
      this.ws[p] = this.facts[i]!.ws;
      if (this.table !== undefined) this.col[p] = this.table.colOf(i);
      this.insns[p] = this.ctx.insns[i]!;
      this.f[p] = this.facts[i]!;
      cfgInsns[p] = this.insns[p]!.insn;
    }
    h.resetContent();
    this.checked = 0;
    this.byTable = 0;
    let padChanged = -1;
    const table = this.table;
    for (let p = first; p < n; p++) {
      if (p > last && this.reach[p]! > last && this.reach[p]! > padChanged) continue;
      const old = pad[p]!;
      pad[p] = 0;
      h.reach = p;
      let need: number;
      if (table === undefined) need = this.shortfall(content[p]!, p, false);
      else {
        // the pairwise rules' bound: the largest (pair value - distance) over the positions
        // within their reach, walked as HazardContext.walk counts distance
        const c = content[p]!;
        const row = table.rowOf(c);
        const col = this.col;
        const ws = this.ws;
        let bound = 0;
        let d = 0;
        let q = p - 1;
        const lim = table.reachOf(row);
        for (; q >= 0 && d < lim; q--) {
          const t = table.at(row, col[q]!) - d;
          if (t > bound) bound = t;
          d += ws[q]! + pad[q]!;
        }
        // the rules would read as far back (and the table's answer depends on no position before)
        if (q + 1 < h.reach) h.reach = q + 1;
        if (bound > 0) need = this.shortfall(c, p, false);
        else { need = this.shortfall(c, p, true); this.byTable++; }
      }
      this.checked++;
      let reach = h.reach;
      if (this.clauses && (this.f[p]!.smem || this.f[p]!.vmem)) {
        let k = p - 1;
        while (k > 0 && (this.f[k]!.smem || this.f[k]!.vmem)) k--;
        if (k < reach) reach = Math.max(0, k);
      }
      this.reach[p] = reach;
      if (need > 0) { pad[p] = need; h.invalidate(); }
      if (pad[p] !== old) padChanged = p;
    }
    return this.count(from);
  }

  /**
   * The engine's step (engine.ts shortfall) for consumer p, instruction i, skipping the rules
   * inert for i, and the pairwise rules when `notPairwise` (the pair table showed they need nothing).
   */
  private shortfall(i: number, p: number, notPairwise: boolean): number {
    const h = this.h;
    const rules = this.rules;
    let need = 0;
    for (let x = 0; x < rules.length; x++) {
      if (notPairwise && this.pairwise[x] === 1) continue;
      const needs = this.inert.check(x, h, p, i);
      if (needs === undefined) continue;
      for (let z = 0; z < needs.length; z++) { const s = needs[z]!.required - needs[z]!.distance; if (s > need) need = s; }
    }
    return need;
  }

  private count(from: number): number {
    const pad = this.h.pad;
    let c = 0;
    for (let p = from; p < this.n; p++) c += nopInstructions(pad[p]!, this.maxImm);
    return c;
  }
}

/** Whether an operand range of p overlaps an operand range of c (HazardInsn.ops, any role). */
function opsOverlap(p: HazardInsn, c: HazardInsn): boolean {
  const a = p.ops;
  const b = c.ops;
  for (let x = 0; x < a.length; x++) {
    const o = a[x]!;
    for (let y = 0; y < b.length; y++) if (overlaps(o.lo, o.hi, b[y]!.lo, b[y]!.hi)) return true;
  }
  return false;
}
