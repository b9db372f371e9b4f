/**
 * A schedule: one permutation per region (position -> local node, and its inverse), with a
 * version counter per region so that metrics can be cached per region. Moves are validated in
 * O(distance moved) against the region's dependency bit matrix, applied in place, and undone by
 * restoring a region's saved permutation. A clone shares every region's arrays with the state
 * it was made from; whichever changes a shared region first copies it (copy on write), so that a
 * clone costs O(regions), not O(instructions).
 */
import type { ScheduleKernel } from './kernel.js';
import { ROLE } from './kernel.js';
import { dependent, explainDependency, type DepKind } from './deps.js';
import type { Command } from './commands.js';

/**
 * Region versions are unique across all states: two states with the same version for a region
 * have the same order there (clones share versions), so metric caches can key on it. 0 is the
 * original order.
 */
let versionCounter = 0;
export function nextVersion(): number { return ++versionCounter; }

let journalEpochs = 0;
function nextJournalEpoch(): number { return ++journalEpochs; }
/** Journal entries kept before it is cleared. */
const JOURNAL_MAX = 1 << 16;

export class ScheduleState {
  readonly k: ScheduleKernel;
  /** Per region: position -> local node (index into region.nodes). Changed only after own(r). */
  readonly order: Int32Array[];
  /** Per region: local node -> position. Changed only after own(r). */
  readonly pos: Int32Array[];
  /** Per region: 1 when its arrays are this state's alone (0: perhaps shared with a clone, copied before a change). */
  private readonly owned: Uint8Array;
  /** Per region: bumped on every change (metric caches key on it). */
  readonly version: Uint32Array;
  /**
   * The regions whose version changed, in order, since the journal was last cleared (an
   * evaluator reads the part after what it saw last instead of comparing every region's
   * version); `journalEpoch` changes when it is cleared.
   */
  journal = new Int32Array(64);
  journalLength = 0;
  journalEpoch = nextJournalEpoch();

  constructor(k: ScheduleKernel, from?: ScheduleState) {
    this.k = k;
    if (from) {
      this.order = from.order.slice();
      this.pos = from.pos.slice();
      this.version = from.version.slice();
      this.owned = new Uint8Array(k.regions.length);
      from.owned.fill(0);
    } else {
      this.order = k.regions.map((r) => identity(r.nodes.length));
      this.pos = k.regions.map((r) => identity(r.nodes.length));
      this.version = new Uint32Array(k.regions.length);
      this.owned = new Uint8Array(k.regions.length).fill(1);
    }
  }

  /** Make region r's arrays this state's alone (copied when they may be shared with another state): before any change to them. */
  own(r: number): void {
    if (this.owned[r] === 0) {
      this.order[r] = this.order[r]!.slice();
      this.pos[r] = this.pos[r]!.slice();
      this.owned[r] = 1;
    }
  }

  clone(): ScheduleState { return new ScheduleState(this.k, this); }

  /** Set region r's version (every change goes through here, so the journal sees it). */
  setVersion(r: number, v: number): void {
    this.version[r] = v;
    if (this.journalLength === this.journal.length) {
      if (this.journalLength >= JOURNAL_MAX) { this.journalLength = 0; this.journalEpoch = nextJournalEpoch(); } else {
        const j = new Int32Array(this.journal.length * 2);
        j.set(this.journal);
        this.journal = j;
      }
    }
    this.journal[this.journalLength++] = r;
  }

  /** Does region r differ from the original order? */
  isChanged(r: number): boolean {
    const o = this.order[r]!;
    for (let p = 0; p < o.length; p++) if (o[p] !== p) return true;
    return false;
  }

  changedRegions(): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.order.length; r++) if (this.isChanged(r)) out.push(r);
    return out;
  }

  /** Kernel instruction indexes of region r in the current order. */
  regionSequence(r: number): Int32Array {
    const nodes = this.k.regions[r]!.nodes;
    const o = this.order[r]!;
    const out = new Int32Array(o.length);
    for (let p = 0; p < o.length; p++) out[p] = nodes[o[p]!]!;
    return out;
  }

  /** Replace region r's order (a permutation of 0..m-1; not validated). */
  setOrder(r: number, order: ArrayLike<number>): void {
    this.own(r);
    const o = this.order[r]!;
    const p = this.pos[r]!;
    for (let i = 0; i < o.length; i++) { o[i] = order[i]!; p[order[i]!] = i; }
    this.setVersion(r, nextVersion());
  }

  /** Save region r (for undo). */
  snapshot(r: number): RegionSnapshot {
    return { region: r, order: this.order[r]!.slice(), version: this.version[r]! };
  }

  /** Put back a saved region (its version too, so cached metrics stay valid). */
  restore(snap: RegionSnapshot): void {
    this.own(snap.region);
    const o = this.order[snap.region]!;
    const p = this.pos[snap.region]!;
    o.set(snap.order);
    for (let i = 0; i < o.length; i++) p[o[i]!] = i;
    this.setVersion(snap.region, snap.version);
  }

  /** Take another state's orders (same kernel): the regions that differ share its arrays. */
  copyFrom(s: ScheduleState): void {
    for (let r = 0; r < this.order.length; r++) {
      if (s.version[r] === this.version[r]) continue;
      this.order[r] = s.order[r]!;
      this.pos[r] = s.pos[r]!;
      this.owned[r] = 0;
      s.owned[r] = 0;
      this.setVersion(r, s.version[r]!);
    }
  }
}

export interface RegionSnapshot { region: number; order: Int32Array; version: number }

function identity(n: number): Int32Array {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  return a;
}

/* ---------------------------------------------------------------------------------------------- */
/* Low-level moves (the strategies' hot path)                                                      */
/* ---------------------------------------------------------------------------------------------- */

/** Can the instruction at position `from` of region r move to position `to` (others shift)? O(|from - to|). */
export function canMove(s: ScheduleState, r: number, from: number, to: number): boolean {
  const g = s.k.regions[r]!.graph;
  const o = s.order[r]!;
  const a = o[from]!;
  const row = a * g.words;
  const bits = g.bits;
  if (from < to) {
    for (let p = from + 1; p <= to; p++) { const x = o[p]!; if (bits[row + (x >>> 5)]! & (1 << (x & 31))) return false; }
  } else {
    for (let p = to; p < from; p++) { const x = o[p]!; if (bits[row + (x >>> 5)]! & (1 << (x & 31))) return false; }
  }
  return true;
}

/** Move the instruction at position `from` to position `to` without checking. */
export function moveTo(s: ScheduleState, r: number, from: number, to: number): void {
  if (from === to) return;
  s.own(r);
  const o = s.order[r]!;
  const ps = s.pos[r]!;
  const a = o[from]!;
  if (from < to) {
    for (let p = from; p < to; p++) { const x = o[p + 1]!; o[p] = x; ps[x] = p; }
  } else {
    for (let p = from; p > to; p--) { const x = o[p - 1]!; o[p] = x; ps[x] = p; }
  }
  o[to] = a;
  ps[a] = to;
  s.setVersion(r, nextVersion());
}

export function swapAt(s: ScheduleState, r: number, p: number, q: number): void {
  if (p === q) return;
  s.own(r);
  const o = s.order[r]!;
  const ps = s.pos[r]!;
  const a = o[p]!;
  const b = o[q]!;
  o[p] = b; ps[b] = p;
  o[q] = a; ps[a] = q;
  s.setVersion(r, nextVersion());
}

/* ---------------------------------------------------------------------------------------------- */
/* Commands                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

export type FailKind = 'syntax' | 'unknown-tag' | 'same' | 'pinned' | 'region' | DepKind;

export interface CommandFailure {
  /** The command as written. */
  command: string;
  kind: FailKind;
  /** Why it failed ("v_mfma_3 reads v[8:9] which ds_read_b128_2 writes"). */
  reason: string;
  /** Line in the moves file, when the command came from one. */
  line?: number;
}

/** A command resolved to its region and positions. */
export interface ResolvedMove {
  op: 'move' | 'swap';
  region: number;
  /** Positions before the command. */
  from: number;
  /** Target position (move) or the other position (swap). */
  to: number;
  /** Kernel instruction indexes of A and B. */
  a: number;
  b: number;
}

function fail(cmd: Command, kind: FailKind, reason: string): CommandFailure {
  return { command: cmd.text, kind, reason, line: cmd.line };
}

function unknownTag(s: ScheduleState, cmd: Command, tag: string): CommandFailure {
  const m = /^(.*)_(\d+)$/.exec(tag);
  let hint = '';
  if (m) {
    let count = 0;
    while (s.k.byTag.has(`${m[1]}_${count}`)) count++;
    if (count > 0) hint = ` (${s.k.name} has ${m[1]}_0 .. ${m[1]}_${count - 1})`;
  }
  return fail(cmd, 'unknown-tag', `unknown tag '${tag}'${hint}`);
}

/** Why instruction i (written `tag` in `cmd`) cannot move, or undefined when it can. */
function notMovableFailure(s: ScheduleState, cmd: Command, tag: string, i: number): CommandFailure | undefined {
  const k = s.k;
  if (k.role[i] === ROLE.pinned) return fail(cmd, 'pinned', `${tag} is pinned (${k.pinReason[i]})`);
  if (k.role[i] !== ROLE.movable) return fail(cmd, 'pinned', `${tag} is not scheduled`);
  return undefined;
}

/** Resolve and validate a command against the current order (does not change the state). */
export function resolveCommand(s: ScheduleState, cmd: Command): ResolvedMove | CommandFailure | undefined {
  if (cmd.op === 'done') return undefined;
  const k = s.k;
  const a = k.byTag.get(cmd.a);
  if (a === undefined) return unknownTag(s, cmd, cmd.a);
  const b = k.byTag.get(cmd.b);
  if (b === undefined) return unknownTag(s, cmd, cmd.b);
  if (a === b) return fail(cmd, 'same', `${cmd.a} and ${cmd.b} are the same instruction`);
  const notMovable = notMovableFailure(s, cmd, cmd.a, a) ?? notMovableFailure(s, cmd, cmd.b, b);
  if (notMovable) return notMovable;
  const ra = k.regionOf[a]!;
  const rb = k.regionOf[b]!;
  if (ra !== rb) {
    const where = (r: number) => `region ${r}, lines ${k.regions[r]!.lines[0]}-${k.regions[r]!.lines[1]}`;
    return fail(cmd, 'region', `${cmd.a} and ${cmd.b} are in different scheduling regions (${cmd.a}: ${where(ra)}; ${cmd.b}: ${where(rb)}); regions end at barriers, branches, labels, directives, sched_barrier comments and other pinned instructions`);
  }
  const pa = s.pos[ra]![k.localOf[a]!]!;
  const pb = s.pos[ra]![k.localOf[b]!]!;
  // "A and B may alias (...)" between the command's own two instructions reads better as "may alias (...)"
  const own = (b2: { kind: DepKind; reason: string }) => {
    for (const p of [`${cmd.a} and ${cmd.b} `, `${cmd.b} and ${cmd.a} `]) if (b2.kind === 'memory' && b2.reason.startsWith(p)) return b2.reason.slice(p.length);
    return b2.reason;
  };
  if (cmd.op === 'swap') {
    const bad = firstSwapConflict(s, ra, pa, pb);
    if (bad) return fail(cmd, bad.kind, own(bad));
    return { op: 'swap', region: ra, from: pa, to: pb, a, b };
  }
  let to: number;
  if (cmd.where === 'after') to = pa < pb ? pb : pb + 1;
  else to = pa < pb ? pb - 1 : pb;
  const bad = firstMoveConflict(s, ra, pa, to);
  if (bad) return fail(cmd, bad.kind, own(bad));
  return { op: 'move', region: ra, from: pa, to, a, b };
}

/** Validate and apply a command. Returns the failure, or the resolved move when applied. */
export function applyCommand(s: ScheduleState, cmd: Command): ResolvedMove | CommandFailure | undefined {
  const r = resolveCommand(s, cmd);
  if (!r || 'kind' in r) return r;
  if (r.op === 'swap') swapAt(s, r.region, r.from, r.to);
  else moveTo(s, r.region, r.from, r.to);
  return r;
}

export function isFailure(x: unknown): x is CommandFailure {
  return typeof x === 'object' && x !== null && 'kind' in x && 'reason' in x;
}

/** The first dependency broken by moving position `from` to `to`, explained. */
function firstMoveConflict(s: ScheduleState, r: number, from: number, to: number): { kind: DepKind; reason: string } | undefined {
  const o = s.order[r]!;
  const g = s.k.regions[r]!.graph;
  const a = o[from]!;
  // Check the instructions passed nearest first: the closest conflict is the one to report.
  if (from < to) {
    for (let p = from + 1; p <= to; p++) if (dependent(g, a, o[p]!)) return explainPair(s, r, a, o[p]!);
  } else {
    for (let p = from - 1; p >= to; p--) if (dependent(g, a, o[p]!)) return explainPair(s, r, a, o[p]!);
  }
  return undefined;
}

function firstSwapConflict(s: ScheduleState, r: number, p: number, q: number): { kind: DepKind; reason: string } | undefined {
  const o = s.order[r]!;
  const g = s.k.regions[r]!.graph;
  const a = o[p]!;
  const b = o[q]!;
  const lo = Math.min(p, q);
  const hi = Math.max(p, q);
  if (dependent(g, a, b)) return explainPair(s, r, a, b);
  for (let x = lo + 1; x < hi; x++) {
    if (dependent(g, a, o[x]!)) return explainPair(s, r, a, o[x]!);
    if (dependent(g, b, o[x]!)) return explainPair(s, r, b, o[x]!);
  }
  return undefined;
}

/** Explain the edge between local nodes x and y of region r, with x as the subject. */
export function explainPair(s: ScheduleState, r: number, x: number, y: number): { kind: DepKind; reason: string } {
  const k = s.k;
  const rg = k.regions[r]!;
  const ix = rg.nodes[x]!;
  const iy = rg.nodes[y]!;
  const lo = Math.min(x, y);
  const hi = Math.max(x, y);
  const first = rg.nodes[lo]!;
  const redefined = () => {
    const base = k.mem[first]?.baseUnits ?? [];
    for (let j = lo; j < hi; j++) {
      const i = rg.nodes[j]!;
      for (let p = k.defOff[i]!; p < k.defOff[i + 1]!; p++) if (base.includes(k.defUnits[p]!)) return true;
    }
    return false;
  };
  const e = explainDependency(k, ix, iy, x < y, k.tags[iy]!, k.options.disambiguate, redefined);
  if (!e) return { kind: 'raw', reason: `${k.tags[ix]} depends on ${k.tags[iy]}` };
  if (e.kind === 'memory') return { kind: 'memory', reason: `${k.tags[ix]} and ${k.tags[iy]} ${e.text}` };
  return { kind: e.kind, reason: `${k.tags[ix]} ${e.text}` };
}
