/**
 * The abstract counter state at one program point (see model.ts for the reasoning).
 *
 * For every class: an upper bound on the increments that may be outstanding (`pend`), and per
 * counter the same bound for all classes together (`pendC`). For every pending operation that
 * will write (or, for expcnt, still reads) a register unit: an entry keyed by unit and class,
 * holding the producer and a stamp; `issued[cls] - stamp` is the number of same-class
 * increments issued after the producer ("younger"). At a join the states are merged
 * pessimistically: bounds take the maximum, entries the union with the smaller younger count.
 *
 * Optional "shadows" serve the redundancy analysis: when an existing s_waitcnt completes an
 * entry, the entry becomes a shadow that remembers the wait and the weakest value that would
 * still have completed it; a later read (or overwrite) of the unit charges that demand to the
 * wait. A shadow lives until the unit is written again.
 */
import { CLASS_COUNTER, CLASS_IN_ORDER, COUNTER_CLASSES, NCLASSES, NUNITS } from './model.js';

export interface Ent {
  /** Stamp: issued[cls] right after the producer was issued. */
  readonly s: number;
  /** Producer instruction index. */
  readonly p: number;
}

export interface Shadow {
  /** The s_waitcnt (instruction index) this completion is charged to. */
  readonly w: number;
  /** Weakest value of the counter at `w` that completes the operation. */
  readonly need: number;
  readonly p: number;
}

/** Entries and shadows are keyed by `unit * 16 + class`. */

export class CounterState {
  issued: Int32Array;
  pend: Int32Array;
  pendC: Int32Array;
  /** Bit c: the caller's operations may be outstanding on counter c (entry of a callable function). */
  wild: number;
  ent: Map<number, Ent>;
  mask: Uint16Array;
  sh: Map<number, readonly Shadow[]> | null;
  shMask: Uint16Array | null;

  /** An empty state (with shadows when asked), or a copy of `from`. */
  constructor(shadows: boolean, from?: CounterState) {
    if (from) {
      this.issued = from.issued.slice();
      this.pend = from.pend.slice();
      this.pendC = from.pendC.slice();
      this.wild = from.wild;
      this.ent = copyMap(from.ent);
      this.mask = from.mask.slice();
      this.sh = from.sh ? copyMap(from.sh) : null;
      this.shMask = from.shMask ? from.shMask.slice() : null;
      return;
    }
    this.issued = new Int32Array(NCLASSES);
    this.pend = new Int32Array(NCLASSES);
    this.pendC = new Int32Array(3);
    this.wild = 0;
    this.ent = new Map();
    this.mask = new Uint16Array(NUNITS);
    this.sh = shadows ? new Map() : null;
    this.shMask = shadows ? new Uint16Array(NUNITS) : null;
  }

  clone(): CounterState {
    return new CounterState(false, this);
  }

  /** Record an issued operation of class `cls` writing (or holding) `units`. */
  issue(cls: number, inc: number, p: number, units: readonly number[], capC: readonly number[]): void {
    const c = CLASS_COUNTER[cls]!;
    const cap = capC[c]!;
    this.issued[cls]! += inc;
    this.pend[cls] = Math.min(cap, this.pend[cls]! + inc);
    this.pendC[c] = Math.min(cap, this.pendC[c]! + inc);
    const e: Ent = { s: this.issued[cls]!, p };
    const bit = 1 << cls;
    for (let x = 0; x < units.length; x++) {
      const u = units[x]!;
      this.ent.set(u * 16 + cls, e);
      this.mask[u]! |= bit;
    }
  }

  /**
   * Wait until counter `c` is at most `n`. Entries that are complete afterwards are removed and,
   * if `done` is given, passed to it (key, entry, younger count). `must`: a state of meetInto,
   * whose bounds and younger counts come from different paths: an in-order entry is complete
   * exactly when its (largest) younger count reaches n, as on any one path.
   */
  waitCounter(c: number, n: number, done?: (key: number, e: Ent, y: number) => void, must = false): void {
    if (!must && this.pendC[c]! <= n && (this.wild & (1 << c)) === 0) return;
    if (n === 0) this.wild &= ~(1 << c);
    this.pendC[c] = Math.min(this.pendC[c]!, n);
    let clsMask = 0;
    for (const k of COUNTER_CLASSES[c]!) {
      this.pend[k] = Math.min(this.pend[k]!, n);
      clsMask |= 1 << k;
    }
    const { ent, mask, issued, pend } = this;
    ent.forEach((e, key) => {
      const k = key & 15;
      if (((clsMask >> k) & 1) === 0) return;
      const y = issued[k]! - e.s;
      const complete = CLASS_IN_ORDER[k] ? y >= (must ? n : pend[k]!) : pend[k] === 0;
      if (complete) {
        ent.delete(key);
        mask[key >>> 4]! &= ~(1 << k);
        if (done) done(key, e, y);
      }
    });
  }

  /**
   * The pending entries of `unit` on counter `c` kept as entries of unit `to` instead (the
   * youngest of `to`'s and `unit`'s per class; the bounds as they are).
   */
  moveUnit(unit: number, c: number, to: number): void {
    for (const k of COUNTER_CLASSES[c]!) {
      if (((this.mask[unit]! >> k) & 1) === 0) continue;
      const e = this.ent.get(unit * 16 + k)!;
      this.ent.delete(unit * 16 + k);
      this.mask[unit]! &= ~(1 << k);
      const old = this.ent.get(to * 16 + k);
      if (!old || old.s < e.s) this.ent.set(to * 16 + k, e);
      this.mask[to]! |= 1 << k;
    }
  }

  /**
   * The youngest pending entry of each class of counter `c` kept as an entry of unit `to` too
   * (replacing what `to` held), so that a wait for `to` completes everything issued so far.
   */
  markYoungest(c: number, to: number): void {
    for (const k of COUNTER_CLASSES[c]!) {
      this.ent.delete(to * 16 + k);
      this.mask[to]! &= ~(1 << k);
      if (this.pend[k] === 0) continue;
      let young: Ent | undefined;
      this.ent.forEach((e, key) => { if ((key & 15) === k && (!young || e.s > young.s)) young = e; });
      if (!young) continue;
      this.ent.set(to * 16 + k, young);
      this.mask[to]! |= 1 << k;
    }
  }

  /** After a call: the callee has waited for everything. */
  clearAll(): void {
    this.pend.fill(0);
    this.pendC.fill(0);
    this.wild = 0;
    this.ent.clear();
    this.mask.fill(0);
    if (this.sh) { this.sh.clear(); this.shMask!.fill(0); }
  }

  setShadows(key: number, list: readonly Shadow[]): void {
    const u = key >>> 4;
    const bit = 1 << (key & 15);
    if (list.length === 0) {
      if (this.sh!.delete(key)) this.shMask![u]! &= ~bit;
    } else {
      this.sh!.set(key, list);
      this.shMask![u]! |= bit;
    }
  }

  dropShadowsOfUnit(u: number): void {
    const m = this.shMask![u]!;
    if (m === 0) return;
    for (let k = 0; k < NCLASSES; k++) if ((m >> k) & 1) this.sh!.delete(u * 16 + k);
    this.shMask![u] = 0;
  }
}

/** A copy of a map, in its order (Map.forEach: no entry arrays or iterator results, unlike new Map(m)). */
function copyMap<K, V>(m: ReadonlyMap<K, V>): Map<K, V> {
  const out = new Map<K, V>();
  m.forEach((v, k) => { out.set(k, v); });
  return out;
}

/**
 * The shadows `a` and `b` together (every list of shadows is sorted by wait, one shadow per
 * wait): per wait the smaller need (with a's producer where a has the wait), in the same order;
 * undefined when that is `a` itself. A new list is made only where `b` changes `a`, and nothing is
 * sorted again: a shadow of a wait `a` lacks goes in at its place.
 */
export function mergedShadows(a: readonly Shadow[], b: readonly Shadow[]): Shadow[] | undefined {
  let out: Shadow[] | undefined;
  for (let x = 0; x < b.length; x++) {
    const s = b[x]!;
    const arr: readonly Shadow[] = out ?? a;
    let j = 0;
    while (j < arr.length && arr[j]!.w < s.w) j++;
    if (j < arr.length && arr[j]!.w === s.w) {
      if (arr[j]!.need <= s.need) continue;
      out ??= a.slice();
      out[j] = { w: s.w, need: s.need, p: out[j]!.p };
      continue;
    }
    out ??= a.slice();
    out.push(s);
    for (let q = out.length - 1; q > j; q--) out[q] = out[q - 1]!;
    out[j] = s;
  }
  return out;
}

/**
 * Join `src` into `dst` in place (the pessimistic merge); true when `dst` changed. Younger
 * counts are compared relative to each state's own issue counters, so neither state needs
 * renumbering; `capY` caps them per class (counts at or above the counter maximum are alike).
 */
export function joinInto(dst: CounterState, src: CounterState, capY: readonly number[]): boolean {
  let changed = false;
  for (let k = 0; k < NCLASSES; k++) if (src.pend[k]! > dst.pend[k]!) { dst.pend[k] = src.pend[k]!; changed = true; }
  for (let c = 0; c < 3; c++) if (src.pendC[c]! > dst.pendC[c]!) { dst.pendC[c] = src.pendC[c]!; changed = true; }
  if ((dst.wild | src.wild) !== dst.wild) { dst.wild |= src.wild; changed = true; }
  const di = dst.issued;
  const si = src.issued;
  const dent = dst.ent;
  src.ent.forEach((e, key) => {
    const k = key & 15;
    const y = Math.min(si[k]! - e.s, capY[k]!);
    const cur = dent.get(key);
    if (!cur) {
      dent.set(key, { s: di[k]! - y, p: e.p });
      dst.mask[key >>> 4]! |= 1 << k;
      changed = true;
    } else {
      const cy = Math.min(di[k]! - cur.s, capY[k]!);
      if (y < cy || (y === cy && e.p < cur.p)) { dent.set(key, { s: di[k]! - y, p: e.p }); changed = true; }
    }
  });
  const dsh = dst.sh;
  if (dsh && src.sh) {
    src.sh.forEach((list, key) => {
      const cur = dsh.get(key);
      if (!cur) { dst.setShadows(key, list); changed = true; return; }
      if (cur === list) return;
      const out = mergedShadows(cur, list);
      if (out) { dst.setShadows(key, out); changed = true; }
    });
  }
  return changed;
}

/**
 * Meet `src` into `dst` in place, the optimistic dual of joinInto: what is outstanding on every
 * path. Bounds take the minimum, an entry stays only when both states have it (keyed by unit and
 * class), with the larger younger count. A need that arises in the meet of two states arises in
 * both (the analysis' transfer functions are monotone), so a need of the meet over all paths
 * into an instruction is a need on every path. Shadows are not kept. True when `dst` changed.
 */
export function meetInto(dst: CounterState, src: CounterState, capY: readonly number[]): boolean {
  let changed = false;
  for (let k = 0; k < NCLASSES; k++) if (src.pend[k]! < dst.pend[k]!) { dst.pend[k] = src.pend[k]!; changed = true; }
  for (let c = 0; c < 3; c++) if (src.pendC[c]! < dst.pendC[c]!) { dst.pendC[c] = src.pendC[c]!; changed = true; }
  if ((dst.wild & src.wild) !== dst.wild) { dst.wild &= src.wild; changed = true; }
  const di = dst.issued;
  const si = src.issued;
  const dent = dst.ent;
  const sent = src.ent;
  dent.forEach((cur, key) => {
    const e = sent.get(key);
    if (!e) {
      dent.delete(key);
      dst.mask[key >>> 4]! &= ~(1 << (key & 15));
      changed = true;
      return;
    }
    const k = key & 15;
    const y = Math.min(si[k]! - e.s, capY[k]!);
    const cy = Math.min(di[k]! - cur.s, capY[k]!);
    if (y > cy) { dent.set(key, { s: di[k]! - y, p: cur.p }); changed = true; }
  });
  return changed;
}

/**
 * The two states describe the same outstanding operations (bounds, entries and their younger
 * counts; producers and shadows are not compared). Paths in such states behave alike from here
 * on, so the analysis may merge them without losing precision.
 */
export function sameCore(a: CounterState, b: CounterState, capY: readonly number[]): boolean {
  if (a.wild !== b.wild || a.ent.size !== b.ent.size) return false;
  for (let k = 0; k < NCLASSES; k++) if (a.pend[k] !== b.pend[k]) return false;
  for (let c = 0; c < 3; c++) if (a.pendC[c] !== b.pendC[c]) return false;
  for (const [key, e] of a.ent) {
    const f = b.ent.get(key);
    if (!f) return false;
    const k = key & 15;
    if (Math.min(a.issued[k]! - e.s, capY[k]!) !== Math.min(b.issued[k]! - f.s, capY[k]!)) return false;
  }
  return true;
}
