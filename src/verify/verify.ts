/**
 * `verify`: is SCHEDULED a reordering of ORIGINAL that computes the same thing?
 *
 * Written on its own, without the scheduler's dependency code, so that it can judge the
 * scheduler. For every kernel (matched by name):
 *
 *  1. Anchors stay: labels, directives (but `.loc`, a debug line row), and every instruction that a reordering may not move
 *     (barriers, branches and the rest of the control flow, s_endpgm, messages, traps, exports,
 *     mode/priority/sleep/hwreg/cache instructions, timers, GWS, unknown instructions and any
 *     instruction naming a symbol) appear in the same order with the same operands. Waits and
 *     nops are ignored here (they are re-derived).
 *  2. Between two anchors (a region) both files hold the same instructions (as multisets).
 *  3. Registers: inside every region each register read sees the same producing instruction
 *     (or the region's entry value) as in the original, and every register's last writer at the
 *     region's exit is the same, but for a scalar register the code after the region writes
 *     again before reading it (unreadAfter: two independent SCC writers may swap). Identical
 *     instructions are told apart by their occurrence.
 *     Registers are physical registers in verify's own reckoning: on a unified VGPR/AGPR file
 *     a_k and v(accum_offset+k) are one, and inside the VGPR indexing mode an indexed operand
 *     reaches every register the index may select (regView, indexModeRanges).
 *  4. Memory: two accesses of a region that may alias (one writes, same memory; FLAT reaches
 *     LDS and global memory; the same base with disjoint constant offsets does not alias when the
 *     base registers hold the same values, and the base is uniform unless per-lane disambiguation
 *     is asked for) keep their order.
 *  5. Completion: the memory operations of a block that the waits in front of a barrier, cache
 *     operation, message, call or return have completed in the original are completed in the
 *     scheduled file too.
 *  6. The scheduled file checks clean: no hazard, missing-wait or descriptor error that the
 *     original does not have (an error already in the original, such as a wait a pessimistic
 *     analysis asks for on a path that cannot run, is matched by rule and instruction).
 *  7. Pipelined loops (pipeline.ts): a loop the scheduled file runs rotated by one stage (a
 *     guard branch before it and a peeled last iteration after it are the only anchors it
 *     adds), or by two stages (two guards, an exit branch in the middle of the body, and the
 *     even, odd and last ways out after it; the descriptor's VGPR allocation may grow), computes
 *     what the original loop computes: the trip counts correspond for every start value of its
 *     counter, and for trip counts 1 to PROVEN_TRIPS (PROVEN_TRIPS_TWO) the code before, in and
 *     after the loop leaves the same values in every live register, makes the same stores and
 *     keeps every two accesses that may alias in order (symbolic values); checks 2-4 do not apply
 *     to those regions.
 *
 * One function per check (check1Anchors .. check7PipelinedLoops).
 * The first difference is reported with its place in both files.
 */
import type { Loc, WaitcntOperand } from '../asm/ast.js';
import type { Loaded } from '../load.js';
import { kernelContextNamed, kernelContexts } from '../analysis/context.js';
import { fenceWaits } from '../waitcnt/index.js';
import { checkContexts } from '../check/check.js';
import type { Checker } from '../check/checkers.js';
import type { ResolvedInsn } from '../isa/types.js';
import { keyOf, kernelView, locText, shownAt, textOf, type Item, type KernelView, type Region } from './view.js';
import { accessOf, mayAlias } from './memory.js';
import { alignAnchors, proveLoop, PROVEN_TRIPS, type Alignment } from './pipeline.js';
import { counted } from '../text.js';
import { MODE, VGPR_BASE } from '../asm/registers.js';

export { keyOf } from './view.js';
export { PROVEN_TRIPS } from './pipeline.js';

export type DifferenceKind =
  | 'kernels' | 'preload-header' | 'raw-jump-layout' | 'raw-words-layout' | 'anchor' | 'region-contents' | 'reaching-definition' | 'exit-definition' | 'memory-order' | 'completion' | 'check' | 'pipelined-loop';

export interface Difference {
  kind: DifferenceKind;
  kernel: string;
  message: string;
  original?: Loc;
  scheduled?: Loc;
}

export interface VerifyOptions {
  /**
   * Tell apart accesses through the same base with disjoint offsets: true (default, as the
   * scheduler) only through uniform bases (SGPRs only: every lane uses the same address);
   * 'per-lane' also through VGPR bases (assumes lanes never exchange data through memory
   * without synchronisation); false never.
   */
  disambiguate?: boolean | 'per-lane';
  /** Skip check 6 (tests of the other checks on snippets that are not clean on purpose). */
  skipCheck?: boolean;
  /** The checkers of check 6 (default DEFAULT_CHECKERS). */
  checkers?: readonly Checker[];
}

export interface VerifyResult {
  equivalent: boolean;
  /** The first difference (undefined when equivalent). */
  difference?: Difference;
  /** Per kernel: the instructions that may move (neither pinned, nor a wait or nop), and the pairs of memory accesses kept in order. */
  kernels: { name: string; instructions: number; memoryPairs: number; pipelinedLoops: number }[];
}

/* ---------------------------------------------------------------------------------------------- */
/* Comparison                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/** Occurrence-numbered identities of a region's items: "key#n". */
function identities(items: Item[]): string[] {
  const seen = new Map<string, number>();
  return items.map((it) => {
    const n = seen.get(it.key) ?? 0;
    seen.set(it.key, n + 1);
    return `${it.key}#${n}`;
  });
}

interface Flow {
  /**
   * id -> (unit -> producer id or '(entry)') for every unit read, and every vector register
   * written: a write of a VGPR or AGPR keeps the value of the lanes EXEC leaves out (and of the
   * half a 16-bit write leaves), so the writer before it is read too (`merged`).
   */
  reads: Map<string, Map<number, string>>;
  merged: Map<string, Set<number>>;
  /** unit -> last writer id at the exit. */
  exit: Map<number, string>;
  /** id -> position. */
  pos: Map<string, number>;
}

function flowOf(items: Item[], ids: string[]): Flow {
  const last = new Map<number, string>();
  const reads = new Map<string, Map<number, string>>();
  const merged = new Map<string, Set<number>>();
  const pos = new Map<string, number>();
  items.forEach((it, p) => {
    const id = ids[p]!;
    pos.set(id, p);
    const m = new Map<number, string>();
    for (const u of it.reads) m.set(u, last.get(u) ?? '(entry)');
    for (const u of it.writes) {
      if (u < VGPR_BASE || m.has(u)) continue;
      m.set(u, last.get(u) ?? '(entry)');
      let set = merged.get(id);
      if (!set) merged.set(id, set = new Set());
      set.add(u);
    }
    reads.set(id, m);
    for (const u of it.writes) last.set(u, id);
  });
  return { reads, merged, exit: last, pos };
}

/**
 * Walk a kernel's instructions block by block with the counter model of the completion check:
 * `visit(i, done)` runs before instruction i (after the waits before it), `done()` giving, while
 * the visit runs, the memory operations (by identity) its block issued before i that are complete
 * there, and those still pending. (Identities may repeat: the operations of pipelined loops are named by their
 * text alone.)
 */
function walkCompletion(v: KernelView, idOf: Map<number, string>, visit: (i: number, done: () => { done: Set<string>; pending: Set<string> }) => void): void {
  const n = v.all.length;
  let pending: { id: string; counters: number; ooo: boolean; t: number[] }[] = [];
  const issued = [0, 0, 0];
  let block = -1;
  let at = 0;
  // completed = issued in this block before instruction `at` and no longer pending
  const done = () => {
    const complete = new Set<string>();
    const still = new Set<string>();
    for (let j = v.blockStart[block]!; j < at; j++) {
      const id = idOf.get(j);
      if (id === undefined || !v.all[j]!.info.mem) continue;
      if (pending.some((p) => p.id === id)) still.add(id); else complete.add(id);
    }
    return { done: complete, pending: still };
  };
  for (let i = 0; i < n; i++) {
    const r = v.all[i]!;
    if (v.blockOf[i] !== block) { block = v.blockOf[i]!; pending = []; issued.fill(0); }
    at = i;
    visit(i, done);
    if (r.insn.base === 's_waitcnt') {
      const w = r.insn.operands[0] as WaitcntOperand | undefined;
      if (!w || w.kind !== 'waitcnt') continue;
      const lim = [w.vmcnt, w.lgkmcnt, w.expcnt];
      pending = pending.filter((p) => {
        for (let c = 0; c < 3; c++) {
          if (!(p.counters & (1 << c))) continue;
          const k = lim[c];
          if (k === undefined) return true;
          // an in-order operation counts the younger ones of its own type (its only t[] entry)
          const ty = p.t.findIndex((x) => x > 0);
          const younger = ty >= 0 ? issued[ty]! - p.t[ty]! : 0;
          if (p.ooo ? k !== 0 : younger < k) return true;
        }
        return false;
      });
      continue;
    }
    const c = r.info.counters;
    const counters = (c.vm > 0 ? 1 : 0) | (c.lgkm > 0 ? 2 : 0) | (c.exp > 0 ? 4 : 0);
    if (counters) {
      // operations of one type complete in order: VMEM (vm), LDS (lgkm), export (exp); the rest
      // (scalar memory, FLAT, messages, GDS) in any order
      const cls = r.info.cls;
      const ooo = cls === 'smem' || cls === 'flat' || r.info.events.includes('message') || r.info.events.includes('gds');
      const t = [0, 0, 0];
      if (!ooo) { const ty = c.vm > 0 ? 0 : c.lgkm > 0 ? 1 : 2; t[ty] = ++issued[ty]!; }
      const id = idOf.get(i);
      pending.push({ id: id ?? `#${i}`, counters, ooo, t });
    }
  }
}

/**
 * Completed (by identity) memory operations at each completion point, per block, and the ones
 * still pending there; `texts` gets each point's source text.
 */
function completions(v: KernelView, idOf: Map<number, string>, texts?: Map<string, string>): Map<string, { done: Set<string>; pending: Set<string> }> {
  const out = new Map<string, { done: Set<string>; pending: Set<string> }>();
  let anchorCount = new Map<string, number>();
  let block = -1;
  walkCompletion(v, idOf, (i, done) => {
    if (v.blockOf[i] !== block) { block = v.blockOf[i]!; anchorCount = new Map(); }
    const r = v.all[i]!;
    const base = r.insn.base;
    const cls = r.info.cls;
    const point = cls === 'barrier' || cls === 'message' || v.isReturnOrCall[i] === 1 || r.info.mem?.op === 'cache'
      || /^(s_dcache_|s_icache_|buffer_wbl2|buffer_inv|buffer_wbinvl1)/.test(base);
    if (!point) return;
    const key = `${block}:${keyOf(r.insn)}`;
    const nth = anchorCount.get(key) ?? 0;
    anchorCount.set(key, nth + 1);
    out.set(`${key}#${nth}`, done());
    texts?.set(`${key}#${nth}`, r.insn.text.trim());
  });
  return out;
}

/**
 * What each memory operation that follows a fence wait of the original in its block (up to the
 * next fence wait) needs complete before it: the operations that wait completes (pending right
 * before it, complete after it and the waits and nops beside it), by identity. `fences`: the
 * original's fence waits (waitcnt fenceWaits: a wait that completes stores before a release, a
 * wait after a cache writeback), as indexes of `v.all`. (An operation another wait completed
 * earlier is not the fence's: a pipelined loop may issue its next iteration's load there.)
 */
function releases(v: KernelView, idOf: Map<number, string>, fences: ReadonlySet<number>): Map<string, { done: Set<string>; wait: number }> {
  const out = new Map<string, { done: Set<string>; wait: number }>();
  let block = -1;
  let fence = -1;
  let before: Set<string> | undefined;
  let after: { done: Set<string>; wait: number } | undefined;
  walkCompletion(v, idOf, (i, done) => {
    if (v.blockOf[i] !== block) { block = v.blockOf[i]!; fence = -1; before = undefined; after = undefined; }
    const base = v.all[i]!.insn.base;
    if (base === 's_waitcnt' || base === 's_nop') {
      if (!fences.has(i)) return;
      if (fence < 0 || after) before = done().pending;
      fence = i;
      after = undefined;
      return;
    }
    if (fence < 0) return;
    if (!after) {
      const completed = new Set<string>();
      for (const x of done().done) if (before!.has(x)) completed.add(x);
      after = { done: completed, wait: fence };
    }
    const id = idOf.get(i);
    if (id !== undefined && v.all[i]!.info.mem && after.done.size > 0) out.set(id, after);
  });
  return out;
}

function diff(kind: DifferenceKind, kernel: string, message: string, a?: Loc, b?: Loc): VerifyResult {
  return { equivalent: false, difference: { kind, kernel, message, original: a, scheduled: b }, kernels: [] };
}

type Check = VerifyResult | undefined;

/** 1. Anchors: in the same order with the same operands (pipelined loops add a guard and a label). */
function check1Anchors(name: string, a: KernelView, b: KernelView): Alignment | VerifyResult {
  const al = alignAnchors(a, b);
  if ('pairOf' in al) return al;
  const [i, j] = al.at;
  const ta = a.tokens[i];
  const tb = b.tokens[j];
  if (ta && tb) {
    // an anchor one file has and the other has nowhere (a label added or dropped): named as such
    const count = (v: KernelView, anchor: string) => v.tokens.reduce((n, t) => n + (t.anchor === anchor ? 1 : 0), 0);
    if (count(a, tb.anchor) < count(b, tb.anchor)) return diff('anchor', name, `the scheduled file adds ${tb.shown} (${locText(tb.loc)}), which the original does not have`, ta.loc, tb.loc);
    if (count(b, ta.anchor) < count(a, ta.anchor)) return diff('anchor', name, `the scheduled file lacks ${ta.shown} (${locText(ta.loc)})`, ta.loc, tb.loc);
    return diff('anchor', name, `pinned ${ta.shown} (${locText(ta.loc)}) is not where it was: the scheduled file has ${tb.shown} (${locText(tb.loc)}) in its place`, ta.loc, tb.loc);
  }
  const extra = (ta ?? tb)!;
  return diff('anchor', name, `${ta ? 'the scheduled file lacks' : 'the scheduled file adds'} ${extra.shown} (${locText(extra.loc)})`, ta?.loc, tb?.loc);
}

/** 2. A region of both files holds the same instructions (as multisets). */
function check2Contents(name: string, where: string, ra: Region, rb: Region): Check {
  const ka = ra.items.map((x) => x.key).sort();
  const kb = rb.items.map((x) => x.key).sort();
  if (ka.join('\n') === kb.join('\n')) return undefined;
  const ca = new Map<string, number>();
  for (const k of ka) ca.set(k, (ca.get(k) ?? 0) + 1);
  for (const k of kb) ca.set(k, (ca.get(k) ?? 0) - 1);
  const [k, c] = [...ca.entries()].find(([, c2]) => c2 !== 0)!;
  const ia = ra.items.find((x) => x.key === k);
  const ib = rb.items.find((x) => x.key === k);
  // an instruction the other file has more of in the same region: what stands in its place (a
  // changed opcode or operand), named where it is
  const other = [...ca.entries()].find(([, c2]) => Math.sign(c2) === -Math.sign(c));
  const io = other && (c > 0 ? rb : ra).items.find((x) => x.key === other[0]);
  // an instruction in one file's region and not the other's may have moved past an instruction
  // that bounds the region (a barrier, a branch, a label, a directive, ...), which nothing may cross
  const moved = !ia || !ib ? '; an instruction moves only within its region, between the pinned instructions around it' : '';
  const instead = io ? `; the ${c > 0 ? 'scheduled file' : 'original'} has '${textOf(io)}' (${locText(io.loc)}) more times than the ${c > 0 ? 'original' : 'scheduled file'}` : '';
  return diff('region-contents', name, `${where}: '${textOf((ia ?? ib)!)}' appears ${c > 0 ? 'more' : 'fewer'} times in the original (${ia ? locText(ia.loc) : 'absent'}) than in the scheduled file (${ib ? locText(ib.loc) : 'absent'})${instead}${moved}`,
    (c < 0 && io ? io.loc : undefined) ?? ia?.loc ?? ra.items[0]?.loc, (c > 0 && io ? io.loc : undefined) ?? ib?.loc ?? rb.items[0]?.loc);
}

/** Anchors the walk of unreadAfter goes past: they read and write no register. */
const PLAIN_ANCHORS = new Set(['s_barrier', 's_setprio', 's_sleep']);

/**
 * Whether scalar register `u` (an SGPR, VCC, SCC, ...: verify's key below VGPR_BASE; not MODE,
 * which s_setreg writes a field at a time) is written before anything reads it after region `g`
 * of the original, on the only way on from there: through the labels and plain anchors
 * (PLAIN_ANCHORS) and the regions that follow in layout order, up to a scalar ALU
 * instruction's write of it or s_endpgm. It gives up (read there, as far as it knows) at any
 * other anchor, whose effects its register lists may not hold whole (s_getreg of STATUS reads
 * SCC, VCCZ and EXECZ; s_set_gpr_idx_mode writes part of M0; s_setvskip turns vector
 * instructions off; s_movrels/s_movreld reach the SGPR M0 selects; branches, calls, returns,
 * traps), at every directive (an alignment's padding is code: zeros, or the fill it names, are
 * instructions that read registers), and at a region check 7 proves (`traced`). Only a scalar
 * ALU write ends it: a vector instruction's write of a scalar register (v_cmp, v_readlane, a
 * carry-out) is not issued under VSKIP and a DPP row mask may keep some of it, and a scalar
 * load's lands when its data returns, after reads issued before its wait. The regions passed are
 * held by check 3 to the same producers in both files, so a read after the write reads it in
 * both: which instruction of region g wrote `u` last is then unseen.
 */
function unreadAfter(a: KernelView, g: number, u: number, traced: ReadonlySet<number>): boolean {
  if (u >= VGPR_BASE || u === MODE) return false;
  for (let t = g; t < a.tokens.length; t++) {
    const tok = a.tokens[t]!;
    const it = tok.item;
    if (it) {
      if (it.reads.includes(u)) return false;
      if (a.cfg.control[it.index] === 'end') return true;
      if (!PLAIN_ANCHORS.has(it.r.insn.base)) return false;
    } else if (!tok.anchor.startsWith('label ') && tok.anchor !== 'sched_barrier') return false;
    if (traced.has(t + 1)) return false;
    for (const x of a.regions[t + 1]!.items) {
      if (x.reads.includes(u)) return false;
      if (x.writes.includes(u) && x.r.info.cls === 'salu') return true;
    }
  }
  return false;
}

/**
 * 3. Registers: every read sees the same producer, every register the same last writer at the
 * exit (`unread`: a scalar register written again before it is read after the region, whose
 * last writer there is unseen).
 */
function check3Registers(name: string, where: string, a: KernelView, ra: Region, rb: Region, fa: Flow, fb: Flow, ida: string[], idb: string[],
  unread: (u: number) => boolean): Check {
  const itemA = new Map(ida.map((id, p) => [id, ra.items[p]!]));
  const itemB = new Map(idb.map((id, p) => [id, rb.items[p]!]));
  for (const id of ida) {
    const ma = fa.reads.get(id)!;
    const mb = fb.reads.get(id)!;
    for (const [u, pa] of ma) {
      const pb = mb.get(u);
      if (pa === pb) continue;
      const ia = itemA.get(id)!;
      const ib = itemB.get(id)!;
      const src = (p?: string, m?: Map<string, Item>) => (p === undefined || p === '(entry)' ? 'the value from before the region' : shownAt(m!.get(p)!));
      if (fa.merged.get(id)?.has(u)) {
        return diff('reaching-definition', name, `${shownAt(ia)} writes ${a.regs.name(u)} over ${src(pa, itemA)} in the original but over ${src(pb, itemB)} in the scheduled file (${locText(ib.loc)}), whose lanes or half it does not write stay`, ia.loc, ib.loc);
      }
      return diff('reaching-definition', name, `${shownAt(ia)} reads ${a.regs.name(u)} from ${src(pa, itemA)} in the original but from ${src(pb, itemB)} in the scheduled file (${locText(ib.loc)})`, ia.loc, ib.loc);
    }
  }
  for (const [u, wa] of fa.exit) {
    const wb = fb.exit.get(u);
    if (wa === wb || unread(u)) continue;
    const ia = itemA.get(wa)!;
    const ib = wb ? itemB.get(wb) : undefined;
    return diff('exit-definition', name, `${where}: ${a.regs.name(u)} is last written by ${shownAt(ia)} in the original but by ${ib ? shownAt(ib) : 'nothing'} in the scheduled file`, ia.loc, ib?.loc);
  }
  return undefined;
}

/** 4. Memory: two accesses of a region that may alias keep their order. Returns the pairs checked, or the difference. */
function check4Memory(name: string, a: KernelView, ra: Region, rb: Region, fa: Flow, fb: Flow, ida: string[], idb: string[],
  disambiguate: boolean | 'per-lane'): number | VerifyResult {
  const itemB = new Map(idb.map((id, p) => [id, rb.items[p]!]));
  const acc = ra.items.map((it) => accessOf(it.r));
  let pairs = 0;
  for (let x = 0; x < ra.items.length; x++) {
    const ax = acc[x];
    if (!ax) continue;
    for (let y = x + 1; y < ra.items.length; y++) {
      const ay = acc[y];
      if (!ay) continue;
      const idx = ida[x]!;
      const idy = ida[y]!;
      // the base holds the same value at both accesses: same producers of every base unit
      const same = ax.base.every((u) => fa.reads.get(idx)!.get(a.regs.key(u)) === fa.reads.get(idy)!.get(a.regs.key(u)));
      if (!mayAlias(ax, ay, same, disambiguate)) continue;
      pairs++;
      if (fb.pos.get(idx)! > fb.pos.get(idy)!) {
        const bx = itemB.get(idx)!;
        return diff('memory-order', name, `${shownAt(ra.items[x]!)} and ${shownAt(ra.items[y]!)} may alias (${ax.what} and ${ay.what}) and changed order (scheduled: ${locText(bx.loc)} and ${locText(itemB.get(idy)!.loc)})`,
          ra.items[x]!.loc, bx.loc);
      }
    }
  }
  return pairs;
}

/**
 * 5. Completion before barriers, cache operations, messages, calls and returns; and after the
 * original's fence waits (`fences`), before the memory operations that follow them (a release:
 * the stores the wait completes are complete before the flag store that follows).
 */
function check5Completion(name: string, a: KernelView, b: KernelView, idOfA: Map<number, string>, idOfB: Map<number, string>, fences: ReadonlySet<number>): Check {
  const find = (v: KernelView, m: Map<number, string>, id: string) => { for (const [i, x] of m) if (x === id) return v.all[i]!.insn; return undefined; };
  const pointText = new Map<string, string>();
  const ca = completions(a, idOfA, pointText);
  const cb = completions(b, idOfB);
  for (const [point, pa] of ca) {
    const pb = cb.get(point);
    for (const id of pa.done) {
      if (pb && pb.done.has(id) && !pb.pending.has(id)) continue;
      const ia = find(a, idOfA, id);
      const lb = find(b, idOfB, id)?.loc;
      const before = pointText.get(point) ?? point;
      return diff('completion', name, `'${ia?.text.trim() ?? id}' (${locText(ia?.loc)}) is complete before '${before}' in the original but not in the scheduled file (${locText(lb)})`, ia?.loc, lb);
    }
  }
  const dma = ldsDmaNeeds(a, idOfA);
  const late = dma.size === 0 ? undefined : firstUnmet(b, idOfB, (id) => dma.get(id), (x, now) => now.done.has(x) && !now.pending.has(x));
  if (late) {
    const ia = find(a, idOfA, late.x);
    const at = b.all[late.i]!.insn;
    return diff('completion', name, `'${ia?.text.trim() ?? late.x}' (${locText(ia?.loc)}), which writes LDS in the background, is complete before '${at.text.trim()}' in the original but not in the scheduled file (${locText(at.loc)})`,
      ia?.loc, at.loc);
  }
  const needs = releases(a, idOfA, fences);
  const open = needs.size === 0 ? undefined : firstUnmet(b, idOfB, (id) => needs.get(id)?.done, (x, now) => now.done.has(x));
  if (!open) return undefined;
  const ia = find(a, idOfA, open.x);
  const at = b.all[open.i]!.insn;
  const wait = a.all[needs.get(open.id)!.wait]!.insn;
  return diff('completion', name, `'${ia?.text.trim() ?? open.x}' (${locText(ia?.loc)}) is complete before '${at.text.trim()}' in the original, by the fence '${wait.text.trim()}' (${locText(wait.loc)}), but not in the scheduled file (${locText(at.loc)})`,
    ia?.loc, at.loc);
}

/**
 * The first instruction of `b` (walked as the completion check walks it) that needs an operation
 * complete before it (`needOf` its identity) that is not (`complete`): its index, its identity and
 * the operation's.
 */
function firstUnmet(b: KernelView, idOfB: Map<number, string>, needOf: (id: string) => Iterable<string> | undefined,
  complete: (x: string, now: { done: Set<string>; pending: Set<string> }) => boolean): { i: number; id: string; x: string } | undefined {
  let found: { i: number; id: string; x: string } | undefined;
  walkCompletion(b, idOfB, (i, done) => {
    const id = idOfB.get(i);
    const need = id === undefined || found ? undefined : needOf(id);
    if (!need) return;
    const now = done();
    for (const x of need) if (!complete(x, now)) { found = { i, id: id!, x }; return; }
  });
  return found;
}

/** A load whose data goes to LDS (buffer_load ... lds, global_load_lds_*): LDS written in the background, counted by vmcnt. */
function isLdsDma(r: ResolvedInsn): boolean {
  return r.info.mem?.op === 'load-lds';
}

/**
 * What each LDS access of the original needs complete before it: the loads to LDS (isLdsDma)
 * complete there, by identity. Only a wait orders such a load with a later LDS access (program
 * order does not: it writes LDS when its data returns), so the waits that do must stay.
 */
function ldsDmaNeeds(v: KernelView, idOf: Map<number, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const dma = new Set<string>();
  for (const [i, id] of idOf) if (isLdsDma(v.all[i]!)) dma.add(id);
  if (dma.size === 0) return out;
  walkCompletion(v, idOf, (i, done) => {
    const id = idOf.get(i);
    const r = v.all[i]!;
    // an LDS access (a DS instruction, or a flat one, which may reach LDS) by verify's own memory
    // model: ds_bpermute / ds_permute / ds_swizzle move data between lanes and access no memory
    const acc = id === undefined || isLdsDma(r) ? undefined : accessOf(r);
    if (id === undefined || !acc || ((acc.rd | acc.wr) & 1) === 0) return;
    const need = [...done().done].filter((x) => dma.has(x));
    if (need.length > 0) out.set(id, new Set(need));
  });
  return out;
}

/** 6. The scheduled file checks clean: no error the original does not have (matched by rule and instruction). */
function check6Clean(orig: Loaded, sched: Loaded, kernels: VerifyResult['kernels'], checkers?: readonly Checker[]): Check {
  const fresh = newCheckErrors(orig, sched, checkers);
  return fresh ? { ...diff('check', fresh.kernel, `the scheduled file does not check clean: ${fresh.message}`, undefined, fresh.loc), kernels } : undefined;
}

export function verifyLoaded(orig: Loaded, sched: Loaded, opts: VerifyOptions = {}): VerifyResult {
  const disambiguate = opts.disambiguate ?? true;
  const names = orig.program.kernels.map((k) => k.name);
  const names2 = sched.program.kernels.map((k) => k.name);
  if (names.join('\u0000') !== names2.join('\u0000')) {
    return diff('kernels', '', `the files hold different kernels: ${names.join(', ') || 'none'} vs ${names2.join(', ') || 'none'}`);
  }
  const kernels: VerifyResult['kernels'] = [];
  for (const name of names) {
    // labels a macro makes compared by their place first (later calls of a macro numbered anew
    // when one call is written out), then by name (the numbering kept)
    const a = kernelView(orig, name)!;
    const fences = fenceWaitsOf(orig, name, a);
    let r = verifyKernel(name, a, kernelView(sched, name)!, disambiguate, fences);
    if ('equivalent' in r) {
      const byName = verifyKernel(name, kernelView(orig, name, false)!, kernelView(sched, name, false)!, disambiguate, fences);
      if (!('equivalent' in byName)) r = byName;
    }
    if ('equivalent' in r) return r;
    kernels.push(r);
  }
  if (!opts.skipCheck) {
    const c6 = check6Clean(orig, sched, kernels, opts.checkers);
    if (c6) return c6;
  }
  return { equivalent: true, kernels };
}

/**
 * The original kernel's fence waits (waitcnt fenceWaits), as indexes of its view's instructions
 * (the view and the kernel's context list the same instructions in the same order; none when they
 * do not).
 */
function fenceWaitsOf(l: Loaded, name: string, v: KernelView): ReadonlySet<number> {
  const ctx = kernelContextNamed(l, name);
  if (!ctx || ctx.insns.length !== v.all.length || ctx.insns.some((r, i) => r !== v.all[i])) return new Set();
  return new Set(fenceWaits(ctx).keys());
}

/** Checks 1-5 and 7 of one kernel: its figures, or the first difference. */
function verifyKernel(name: string, a: KernelView, b: KernelView, disambiguate: boolean | 'per-lane', fences: ReadonlySet<number>): VerifyResult['kernels'][number] | Exclude<Check, undefined> {
  const layout = checkRawJumpLayout(name, a, b);
  if (layout) return layout;
  if (a.header.join('\n') !== b.header.join('\n')) {
    const form = (h: readonly string[]) => (h.length > 0 && h.every((t) => /^s_nop\b/.test(t)) ? `${h.length} s_nop` : `a prologue of ${counted(h.length, 'instruction')} (${h.join('; ')})`);
    return diff('preload-header', name, `the kernel-argument preload header differs: the original starts with ${form(a.header)} (the 256 bytes firmware that preloads skips), the scheduled file with ${b.header.length}`,
      a.all[0]?.insn.loc, b.all[0]?.insn.loc);
  }
  const al = check1Anchors(name, a, b);
  if (!('pairOf' in al)) return al;
  // regions: region t lies before token t (region tokens.length after the last one)
  const regionPair = (t: number) => (t < a.tokens.length ? al.pairOf[t]! : b.tokens.length);
  const traced = new Set<number>();
  for (const m of al.loops) for (let g = m.preA; g <= m.exitA; g++) traced.add(g);
  let memoryPairs = 0;
  let instructions = 0;
  const idOfA = new Map<number, string>();
  const idOfB = new Map<number, string>();
  for (let g = 0; g < a.regions.length; g++) {
    const ra = a.regions[g]!;
    const rb = b.regions[regionPair(g)]!;
    instructions += ra.items.length;
    if (traced.has(g)) continue;
    const where = `region after ${ra.after}`;
    const c2 = check2Contents(name, where, ra, rb);
    if (c2) return c2;
    const ida = identities(ra.items);
    const idb = identities(rb.items);
    ra.items.forEach((it, p) => idOfA.set(it.index, `${g}|${ida[p]!}`));
    rb.items.forEach((it, p) => idOfB.set(it.index, `${g}|${idb[p]!}`));
    const fa = flowOf(ra.items, ida);
    const fb = flowOf(rb.items, idb);
    const c3 = check3Registers(name, where, a, ra, rb, fa, fb, ida, idb, (u) => unreadAfter(a, g, u, traced));
    if (c3) return c3;
    const c4 = check4Memory(name, a, ra, rb, fa, fb, ida, idb, disambiguate);
    if (typeof c4 !== 'number') return c4;
    memoryPairs += c4;
  }
  const c7 = check7PipelinedLoops(name, a, b, al, disambiguate, idOfA, idOfB);
  if (c7) return c7;
  // the fence waits of pipelined loops' blocks are check 7's (their operations are named by text)
  const loopBlocks = new Set<number>();
  for (const g of traced) for (const it of a.regions[g]!.items) loopBlocks.add(a.blockOf[it.index]!);
  const outside = loopBlocks.size === 0 ? fences : new Set([...fences].filter((w) => !loopBlocks.has(a.blockOf[w]!)));
  const c5 = check5Completion(name, a, b, idOfA, idOfB, outside);
  if (c5) return c5;
  return { name, instructions, memoryPairs, pipelinedLoops: al.loops.length };
}

/**
 * 0. A kernel that jumps by raw offset (`s_branch 1755`) keeps its layout: every instruction,
 * s_waitcnt and s_nop included, the same and in the same order (a raw target is a place in the
 * code, not a label the scheduled file could still name). So does a kernel with data words among
 * its instructions (analysis/rawwords.ts): what they encode may need a wait or a nop around them.
 */
function checkRawJumpLayout(name: string, a: KernelView, b: KernelView): Check {
  const raw = a.cfg.rawJumps.length > 0 ? a : b.cfg.rawJumps.length > 0 ? b : undefined;
  const words = raw ? undefined : a.rawWords ?? b.rawWords;
  if (!raw && !words) return undefined;
  const n = Math.max(a.all.length, b.all.length);
  for (let i = 0; i < n; i++) {
    const x = a.all[i];
    const y = b.all[i];
    if (x && y && keyOf(x.insn) === keyOf(y.insn)) continue;
    const differs = `instruction ${i + 1} differs: ${x ? `'${x.insn.text.trim()}'` : 'none'} vs ${y ? `'${y.insn.text.trim()}'` : 'none'}`;
    if (words) {
      return diff('raw-words-layout', name, `the kernel has data words among its instructions ('${words.text}' at line ${words.loc.line}), which verify does not decode, so its code must keep its layout, and ${differs}`,
        x?.insn.loc, y?.insn.loc);
    }
    const jump = raw!.all[raw!.cfg.rawJumps[0]!]!.insn;
    return diff('raw-jump-layout', name, `the kernel jumps by raw offset ('${jump.text.trim()}' at line ${jump.loc.line}), so its code must keep its layout, and ${differs}`,
      x?.insn.loc, y?.insn.loc);
  }
  return undefined;
}

/**
 * 7. Pipelined loops (pipeline.ts). Their memory operations take part in check 5 named by their
 * text alone (the peeled iteration repeats the body's).
 */
function check7PipelinedLoops(name: string, a: KernelView, b: KernelView, al: Alignment, disambiguate: boolean | 'per-lane',
  idOfA: Map<number, string>, idOfB: Map<number, string>): Check {
  for (const [x, m] of al.loops.entries()) {
    const d = proveLoop(a, b, m, disambiguate);
    if (d) return diff('pipelined-loop', name, d.message, d.original, d.scheduled);
    for (let g = m.preA; g <= m.exitA; g++) for (const it of a.regions[g]!.items) idOfA.set(it.index, `loop${x}|${it.key}`);
    for (let g = m.preB; g <= m.exitB; g++) for (const it of b.regions[g]!.items) idOfB.set(it.index, `loop${x}|${it.key}`);
  }
  return undefined;
}

/** Canonical text of an instruction for matching findings between the two files. */
function findingKey(rule: string, r: ResolvedInsn | undefined): string {
  return `${rule}|${r ? keyOf(r.insn) : 'kernel'}`;
}

/** The first error of the scheduled file's check that the original's check does not have. */
function newCheckErrors(orig: Loaded, sched: Loaded, checkers?: readonly Checker[]): { kernel: string; message: string; loc: Loc } | undefined {
  const count = new Map<string, number>();
  const oc = kernelContexts(orig);
  checkContexts(oc, { paths: 'all', checkers }).forEach((k, x) => { // a missing wait on any path counts
    for (const f of k.findings) {
      if (f.severity !== 'error') continue;
      const key = `${k.name}|${findingKey(f.rule, f.insn >= 0 ? oc[x]!.insns[f.insn] : undefined)}`;
      count.set(key, (count.get(key) ?? 0) + 1);
    }
  });
  const sc = kernelContexts(sched);
  const checks = checkContexts(sc, { paths: 'all', checkers });
  for (let x = 0; x < checks.length; x++) {
    const k = checks[x]!;
    for (const f of k.findings) {
      if (f.severity !== 'error') continue;
      const key = `${k.name}|${findingKey(f.rule, f.insn >= 0 ? sc[x]!.insns[f.insn] : undefined)}`;
      const n = count.get(key) ?? 0;
      if (n > 0) { count.set(key, n - 1); continue; }
      return { kernel: k.name, message: `${f.message} [${f.rule}]`, loc: f.loc };
    }
  }
  return undefined;
}

export function formatVerify(r: VerifyResult, original: string, scheduled: string): string {
  if (r.equivalent) {
    const n = r.kernels.reduce((s, k) => s + k.instructions, 0);
    const loops = r.kernels.reduce((s, k) => s + k.pipelinedLoops, 0);
    const piped = loops > 0 ? `; ${counted(loops, 'pipelined loop')}: the same values for trip counts 1 to ${PROVEN_TRIPS}, the trip counts matched for every start value` : '';
    return `${scheduled}: equivalent to ${original} (${counted(r.kernels.length, 'kernel')}; ${counted(n, 'movable instruction')}, each reading the same producers; ` +
      `${counted(r.kernels.reduce((s, k) => s + k.memoryPairs, 0), 'memory pair')} kept in order${piped})`;
  }
  const d = r.difference!;
  const where = [d.original ? `${d.original.file}:${d.original.line}` : '', d.scheduled ? `${d.scheduled.file}:${d.scheduled.line}` : ''].filter((x) => x).join(' vs ');
  return `${scheduled}: NOT equivalent to ${original}${d.kernel ? ` (kernel ${d.kernel})` : ''}: ${d.kind}: ${d.message}${where ? `\n  at ${where}` : ''}`;
}
