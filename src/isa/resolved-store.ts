/**
 * The resolution of a program's instructions as numbers: what resolveProgram writes, what the
 * checks can read without a ResolvedInsn object per instruction.
 *
 * For instruction i of the InsnStore (same index):
 *   - `infoId[i]`: its InsnInfo is `infos[infoId[i]]` (shared by every instruction of the same
 *     opcode and form; class, encoding, counters, MFMA kind and passes, memory operation);
 *   - `flags[i]`: RS_UNKNOWN when it could not be resolved (its effects are a guess);
 *   - six register-unit lists, each an entry of `pool` (see UnitPool): `defs[i]`, `uses[i]`
 *     (all units written / read, explicit then implicit, without duplicates),
 *     `explicitDefs[i]`, `explicitUses[i]`, `implicitDefs[i]`, `implicitUses[i]`.
 * For operand k of the InsnStore's operand pool (instruction i's operands are
 * [insns.opBegin[i], insns.opBegin[i + 1])):
 *   - `oRole[k]` (index in ROLES), `oAccess[k]` (ACC_DEF | ACC_USE), `oUnits[k]` (pool entry).
 *
 * A unit list is read as `pool.units[pool.off[e] .. pool.off[e] + pool.len[e])` (no
 * allocation), or as a shared frozen array with `pool.list(e)`. Equal lists are one entry.
 *
 * The per-kernel effects (unified VGPR/AGPR file, VGPR indexing mode: kernel-effects.ts) are
 * already applied. `resolvedAt(i)` (and Loaded.resolved) give the ResolvedInsn object view.
 *
 * A per-instruction table of facts (class, MFMA kind and passes, memory operation, counter
 * events, ...) fills straight from it: compute the facts once per entry of `infos` (a few
 * hundred per program), then fact[i] = factOfInfo[infoId[i]]; registers read and written come
 * from the pool entries without a list per instruction. Operand k's text, kind and register
 * are in the InsnStore (`insns`): oKind, oFile, oFirst, oCount, oValue, operandText(i, k).
 */
import type { Instruction } from '../asm/ast.js';
import type { InsnStore } from '../asm/store.js';
import type { Target } from './target.js';
import type { RegUnit } from '../asm/registers.js';
import type { InsnInfo, OperandRole, ResolvedInsn, ResolvedOperand } from './types.js';

/** Operand roles by id (ResolvedStore.oRole). */
export const ROLES: readonly OperandRole[] = [
  'vdst', 'sdst', 'src0', 'src1', 'src2', 'carryOut', 'carryIn', 'mask', 'lane',
  'srcA', 'srcB', 'srcC', 'idx', 'scaleA', 'scaleB',
  'vaddr', 'vdata', 'vdata1', 'saddr', 'srsrc', 'soffset', 'sbase', 'sdata', 'soff',
  'ssrc0', 'ssrc1',
  'imm', 'label', 'hwreg', 'msg', 'target', 'attr', 'waitcnt', 'gpridx',
];
const ROLE_ID = new Map<OperandRole, number>(ROLES.map((r, i) => [r, i]));
export function roleId(role: OperandRole): number {
  return ROLE_ID.get(role)!;
}
export const ROLE_IMM = roleId('imm');

/** ResolvedStore.oAccess bits. */
export const ACC_DEF = 1;
export const ACC_USE = 2;

/** ResolvedStore.flags bits. */
export const RS_UNKNOWN = 1;
/** Its resolution reported an issue (an operand llvm-mc refuses, a warning): resolved again wherever it is copied to (resolve.ts ResolveReuse). */
export const RS_ISSUES = 2;

const EMPTY: readonly RegUnit[] = Object.freeze([]);

/**
 * Interned register-unit lists: entry e is units[off[e], off[e] + len[e]). Entry 0 is the
 * empty list. `list(e)` is the entry as a frozen array, made once.
 */
export class UnitPool {
  units = new Uint16Array(4096);
  off = new Uint32Array(256);
  len = new Uint16Array(256);
  /** Entries (entry 0 is empty). */
  size = 1;
  private used = 0;
  private hash = new Int32Array(256);
  private table = new Int32Array(1024).fill(-1);
  private mask = 1023;
  private lists: (readonly RegUnit[] | undefined)[] = [EMPTY];
  /** Entry of first..first+count-1 at first * 64 + count (0: not made yet). */
  private ranges = new Int32Array(1024 * 64);
  private unions = new Map<number, number>();

  /** The entry of the list a[0, n). */
  intern(a: ArrayLike<number>, n: number): number {
    if (n === 0) return 0;
    let h = n;
    for (let k = 0; k < n; k++) h = Math.imul(h ^ a[k]!, 0x9e3779b1) ^ (h >>> 15);
    let slot = h & this.mask;
    for (;;) {
      const e = this.table[slot]!;
      if (e < 0) break;
      if (this.hash[e] === h && this.len[e] === n) {
        const o = this.off[e]!;
        let k = 0;
        while (k < n && this.units[o + k] === a[k]) k++;
        if (k === n) return e;
      }
      slot = (slot + 1) & this.mask;
    }
    return this.add(a, n, h, slot);
  }

  /** The entry of first, first + 1, ..., first + count - 1. */
  range(first: number, count: number): number {
    if (count === 0) return 0;
    const key = first * 64 + count;
    if (count < 64 && key < this.ranges.length) {
      const e = this.ranges[key]!;
      if (e !== 0) return e;
    }
    const a = RANGE_SCRATCH.length >= count ? RANGE_SCRATCH : new Uint16Array(count);
    for (let k = 0; k < count; k++) a[k] = first + k;
    const e = this.intern(a, count);
    if (count < 64 && key < this.ranges.length) this.ranges[key] = e;
    return e;
  }

  /** The entry of a ∪ b: a's units, then those of b that a lacks. */
  union(a: number, b: number): number {
    if (a === 0) return b;
    if (b === 0) return a;
    const key = a * 0x100000 + b;
    let e = this.unions.get(key);
    if (e === undefined) {
      const ao = this.off[a]!;
      const an = this.len[a]!;
      const out = UNION_SCRATCH;
      for (let k = 0; k < an; k++) out[k] = this.units[ao + k]!;
      let n = an;
      const bo = this.off[b]!;
      for (let k = 0; k < this.len[b]!; k++) {
        const u = this.units[bo + k]!;
        let j = 0;
        while (j < n && out[j] !== u) j++;
        if (j === n) out[n++] = u;
      }
      e = n === an ? a : this.intern(out, n);
      this.unions.set(key, e);
    }
    return e;
  }

  /** Entry e as a shared frozen array. */
  list(e: number): readonly RegUnit[] {
    let l = this.lists[e];
    if (l === undefined) {
      const o = this.off[e]!;
      const n = this.len[e]!;
      const a: RegUnit[] = new Array(n);
      for (let k = 0; k < n; k++) a[k] = this.units[o + k]!;
      l = Object.freeze(a);
      this.lists[e] = l;
    }
    return l;
  }

  /** Does entry e hold unit u? */
  has(e: number, u: number): boolean {
    for (let k = this.off[e]!, end = k + this.len[e]!; k < end; k++) if (this.units[k] === u) return true;
    return false;
  }

  private add(a: ArrayLike<number>, n: number, h: number, slot: number): number {
    const e = this.size++;
    if (e >= this.off.length) {
      const c = this.off.length * 2;
      const off = new Uint32Array(c); off.set(this.off); this.off = off;
      const len = new Uint16Array(c); len.set(this.len); this.len = len;
      const hash = new Int32Array(c); hash.set(this.hash); this.hash = hash;
    }
    if (this.used + n > this.units.length) {
      const u = new Uint16Array(Math.max(this.units.length * 2, this.used + n));
      u.set(this.units);
      this.units = u;
    }
    const o = this.used;
    for (let k = 0; k < n; k++) this.units[o + k] = a[k]!;
    this.used += n;
    this.off[e] = o;
    this.len[e] = n;
    this.hash[e] = h;
    this.table[slot] = e;
    if (this.size * 2 > this.mask) this.rehash();
    return e;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let e = 1; e < this.size; e++) {
      let slot = this.hash[e]! & this.mask;
      while (this.table[slot]! >= 0) slot = (slot + 1) & this.mask;
      this.table[slot] = e;
    }
  }
}
const RANGE_SCRATCH = new Uint16Array(64);
const UNION_SCRATCH = new Uint16Array(2048);

export class ResolvedStore {
  readonly insns: InsnStore;
  readonly target: Target;
  readonly n: number;
  readonly pool: UnitPool;
  readonly infoId: Uint32Array;
  readonly infos: InsnInfo[];
  readonly flags: Uint8Array;
  readonly defs: Uint32Array;
  readonly uses: Uint32Array;
  readonly explicitDefs: Uint32Array;
  readonly explicitUses: Uint32Array;
  readonly implicitDefs: Uint32Array;
  readonly implicitUses: Uint32Array;
  readonly oRole: Uint8Array;
  readonly oAccess: Uint8Array;
  readonly oUnits: Uint32Array;
  /**
   * Per instruction, the index of the first instruction resolved alike (itself when none): the
   * same opcode, operands and modifiers, hence the same resolution (resolve.ts Alike), checked
   * again once the kernels' effects are in. What is a function of the resolution alone (the
   * hazard facts, the cycle model's timing) can be copied from that instruction's.
   */
  readonly alike: Int32Array;
  /** The arrays that hold an instruction's resolution: one entry per instruction, one per operand. */
  private readonly perInsn: readonly (Uint8Array | Uint32Array)[];
  private readonly perOperand: readonly (Uint8Array | Uint32Array)[];
  /** Per resolver form id (resolve.ts): its implicit defs and uses entries and its info id. */
  readonly formDefs: number[];
  readonly formUses: number[];
  readonly formInfo: number[];
  private readonly infoIds: Map<InsnInfo, number>;
  private readonly records: Map<number, ResolvedOperand>;
  /** A kernel's VGPR indexing mode changed some resolution here (kernel-effects.ts): no other store copies from this one. */
  indexed = false;
  private readonly instructions: () => Instruction[];
  private views: ResolvedInsn[] | undefined;

  /**
   * `instructions` gives the object form of the store's instructions (ResolvedInsn.insn).
   * `shared`: a store of the same target whose unit lists, infos and forms this one shares (both
   * only add to them), so that copyFrom can take its rows as they are.
   */
  constructor(insns: InsnStore, target: Target, instructions: () => Instruction[], shared?: ResolvedStore) {
    this.insns = insns;
    this.target = target;
    this.instructions = instructions;
    this.pool = shared?.pool ?? new UnitPool();
    this.infos = shared?.infos ?? [];
    this.formDefs = shared?.formDefs ?? [];
    this.formUses = shared?.formUses ?? [];
    this.formInfo = shared?.formInfo ?? [];
    this.infoIds = shared?.infoIds ?? new Map();
    this.records = shared?.records ?? new Map();
    const n = insns.n;
    this.n = n;
    this.infoId = new Uint32Array(n);
    this.flags = new Uint8Array(n);
    this.defs = new Uint32Array(n);
    this.uses = new Uint32Array(n);
    this.explicitDefs = new Uint32Array(n);
    this.explicitUses = new Uint32Array(n);
    this.implicitDefs = new Uint32Array(n);
    this.implicitUses = new Uint32Array(n);
    const nOps = insns.nOps;
    this.oRole = new Uint8Array(nOps);
    this.oAccess = new Uint8Array(nOps);
    this.oUnits = new Uint32Array(nOps);
    this.alike = new Int32Array(n);
    for (let i = 0; i < n; i++) this.alike[i] = i;
    this.perInsn = [this.infoId, this.flags, this.defs, this.uses, this.explicitDefs, this.explicitUses, this.implicitDefs, this.implicitUses];
    this.perOperand = [this.oRole, this.oAccess, this.oUnits];
  }

  /**
   * Instruction i resolves as instruction j of `src` (the store this one shares its lists with:
   * constructor's `shared`), both with the same number of operands.
   */
  copyFrom(src: ResolvedStore, j: number, i: number): void {
    for (let x = 0; x < this.perInsn.length; x++) this.perInsn[x]![i] = src.perInsn[x]![j]!;
    const oa = src.insns.opBegin[j]!, ob = this.insns.opBegin[i]!, n = src.insns.opBegin[j + 1]! - oa;
    for (let x = 0; x < this.perOperand.length; x++) { const to = this.perOperand[x]!; const from = src.perOperand[x]!; for (let k = 0; k < n; k++) to[ob + k] = from[oa + k]!; }
  }

  /** Instruction b resolves as instruction a did (both with the same number of operands). */
  copyResolution(a: number, b: number): void {
    for (const arr of this.perInsn) arr[b] = arr[a]!;
    const oa = this.insns.opBegin[a]!, ob = this.insns.opBegin[b]!, n = this.insns.opBegin[a + 1]! - oa;
    for (const arr of this.perOperand) for (let x = 0; x < n; x++) arr[ob + x] = arr[oa + x]!;
  }

  /** Do instructions a and b have the same resolution (info, flags, every list, every operand's)? */
  sameResolution(a: number, b: number): boolean {
    for (const arr of this.perInsn) if (arr[a] !== arr[b]) return false;
    const s = this.insns;
    const oa = s.opBegin[a]!, ob = s.opBegin[b]!, n = s.opBegin[a + 1]! - oa;
    if (s.opBegin[b + 1]! - ob !== n) return false;
    for (const arr of this.perOperand) for (let x = 0; x < n; x++) if (arr[oa + x] !== arr[ob + x]) return false;
    return true;
  }

  /** The id of an InsnInfo in `infos`. */
  idOfInfo(info: InsnInfo): number {
    let id = this.infoIds.get(info);
    if (id === undefined) {
      id = this.infos.length;
      this.infos.push(info);
      this.infoIds.set(info, id);
    }
    return id;
  }

  info(i: number): InsnInfo {
    return this.infos[this.infoId[i]!]!;
  }

  instruction(i: number): Instruction {
    return this.instructions()[i]!;
  }

  /** The ResolvedOperand records of instruction i (shared objects for equal operands). */
  operandRecords(i: number): readonly ResolvedOperand[] {
    const b = this.insns.opBegin[i]!;
    const e = this.insns.opBegin[i + 1]!;
    const out: ResolvedOperand[] = new Array(e - b);
    for (let k = b; k < e; k++) {
      const index = k - b;
      const units = this.oUnits[k]!;
      const key = ((units * 64 + this.oRole[k]!) * 16 + index) * 4 + this.oAccess[k]!;
      let rec = this.records.get(key);
      if (rec === undefined) {
        const acc = this.oAccess[k]!;
        rec = Object.freeze({ index, role: ROLES[this.oRole[k]!]!, def: (acc & ACC_DEF) !== 0, use: (acc & ACC_USE) !== 0, units: this.pool.list(units) });
        this.records.set(key, rec);
      }
      out[index] = rec;
    }
    return Object.freeze(out);
  }

  /** The object view of instruction i's resolution. */
  resolvedAt(i: number): ResolvedInsn {
    return this.all()[i]!;
  }

  /**
   * The object views of every instruction (made once, when the store is complete: a view
   * keeps the instruction, info, defs and uses it read then).
   */
  all(): ResolvedInsn[] {
    if (this.views === undefined) {
      const out: ResolvedInsn[] = new Array(this.n);
      const insns = this.instructions();
      for (let i = 0; i < this.n; i++) out[i] = new StoredResolved(this, i, insns[i]!);
      this.views = out;
    }
    return this.views;
  }
}

/**
 * The store index of the first instruction resolved as `ri` was (ResolvedStore.alike), or -1
 * when there is none before it or `ri` is not read from a store.
 */
export function firstAlike(ri: ResolvedInsn): number {
  if (!(ri instanceof StoredResolved)) return -1;
  const a = ri.store.alike[ri.index]!;
  return a === ri.index ? -1 : a;
}

/** The index of `ri` in its store, or -1 when it is not read from one. */
export function storeIndexOf(ri: ResolvedInsn): number {
  return ri instanceof StoredResolved ? ri.index : -1;
}

/** ResolvedInsn read from a ResolvedStore: lists are the pool's shared frozen arrays. */
class StoredResolved implements ResolvedInsn {
  readonly insn: Instruction;
  readonly info: InsnInfo;
  readonly defs: readonly RegUnit[];
  readonly uses: readonly RegUnit[];
  readonly #rs: ResolvedStore;
  readonly #i: number;
  #ops: readonly ResolvedOperand[] | undefined;

  constructor(rs: ResolvedStore, i: number, insn: Instruction) {
    this.insn = insn;
    this.info = rs.infos[rs.infoId[i]!]!;
    this.defs = rs.pool.list(rs.defs[i]!);
    this.uses = rs.pool.list(rs.uses[i]!);
    this.#rs = rs;
    this.#i = i;
    this.#ops = undefined;
  }

  get operands(): readonly ResolvedOperand[] { return (this.#ops ??= this.#rs.operandRecords(this.#i)); }
  /** The operand records, without keeping their list on this view (see operandsOnce). */
  operandsOnce(): readonly ResolvedOperand[] { return this.#ops ?? this.#rs.operandRecords(this.#i); }
  get explicitDefs(): readonly RegUnit[] { return this.#rs.pool.list(this.#rs.explicitDefs[this.#i]!); }
  get explicitUses(): readonly RegUnit[] { return this.#rs.pool.list(this.#rs.explicitUses[this.#i]!); }
  get implicitDefs(): readonly RegUnit[] { return this.#rs.pool.list(this.#rs.implicitDefs[this.#i]!); }
  get implicitUses(): readonly RegUnit[] { return this.#rs.pool.list(this.#rs.implicitUses[this.#i]!); }
  get unknown(): true | undefined { return this.#rs.flags[this.#i]! & 1 ? true : undefined; }
  /** The store and index this view reads. */
  get store(): ResolvedStore { return this.#rs; }
  get index(): number { return this.#i; }
}

/**
 * The operand records of an instruction for a reader that needs them once (a per-kernel view
 * built from them): a stored view that has not made its list yet does not keep one, which would
 * be a list per instruction held as long as the store.
 */
export function operandsOnce(ri: ResolvedInsn): readonly ResolvedOperand[] {
  return ri instanceof StoredResolved ? ri.operandsOnce() : ri.operands;
}

/**
 * The operands of one instruction as numbers, for a reader that walks every instruction of a
 * kernel (the cycle model): per operand k < n, its access bits (ACC_DEF | ACC_USE), its role (an
 * index in ROLES) and its register units, units[start[k], end[k]). read() refills the same reader:
 * a stored instruction (ResolvedStore) is read from the store's arrays without the operand
 * records; another from its records.
 */
export class OperandReader {
  n = 0;
  units: ArrayLike<number> = EMPTY;
  acc = new Uint8Array(16);
  role = new Uint8Array(16);
  start = new Uint32Array(16);
  end = new Uint32Array(16);
  private readonly flat: number[] = [];

  read(ri: ResolvedInsn): this {
    if (ri instanceof StoredResolved) {
      const rs = ri.store;
      const i = ri.index;
      const b = rs.insns.opBegin[i]!;
      const n = rs.insns.opBegin[i + 1]! - b;
      this.room(n);
      const pool = rs.pool;
      for (let k = 0; k < n; k++) {
        const e = rs.oUnits[b + k]!;
        this.acc[k] = rs.oAccess[b + k]!;
        this.role[k] = rs.oRole[b + k]!;
        this.start[k] = pool.off[e]!;
        this.end[k] = pool.off[e]! + pool.len[e]!;
      }
      this.n = n;
      this.units = pool.units;
      return this;
    }
    const ops = ri.operands;
    this.room(ops.length);
    const flat = this.flat;
    flat.length = 0;
    ops.forEach((o, k) => {
      this.acc[k] = (o.def ? ACC_DEF : 0) | (o.use ? ACC_USE : 0);
      this.role[k] = roleId(o.role);
      this.start[k] = flat.length;
      for (const u of o.units) flat.push(u);
      this.end[k] = flat.length;
    });
    this.n = ops.length;
    this.units = flat;
    return this;
  }

  private room(n: number): void {
    if (n <= this.acc.length) return;
    const c = Math.max(n, this.acc.length * 2);
    this.acc = new Uint8Array(c); this.role = new Uint8Array(c); this.start = new Uint32Array(c); this.end = new Uint32Array(c);
  }
}

/**
 * Where two resolutions of one program differ (undefined when they do not): per instruction its
 * info, flags and unit lists (by their units: the stores' pools number lists each their own
 * way), per operand its role, access and units. The check of a resolution that copied rows of
 * an earlier one (resolve.ts ResolveReuse) against the program resolved afresh.
 */
export function resolutionDifference(a: ResolvedStore, b: ResolvedStore): string | undefined {
  if (a.n !== b.n) return `instructions: ${a.n} and ${b.n}`;
  const list = (s: ResolvedStore, e: number) => s.pool.list(e).join(',');
  const lists = ['defs', 'uses', 'explicitDefs', 'explicitUses', 'implicitDefs', 'implicitUses'] as const;
  for (let i = 0; i < a.n; i++) {
    if (a.info(i) !== b.info(i)) return `instruction ${i}: info ${a.info(i).desc.name} and ${b.info(i).desc.name}`;
    if (a.flags[i] !== b.flags[i]) return `instruction ${i}: flags ${a.flags[i]} and ${b.flags[i]}`;
    for (const l of lists) if (list(a, a[l][i]!) !== list(b, b[l][i]!)) return `instruction ${i}: ${l} ${list(a, a[l][i]!)} and ${list(b, b[l][i]!)}`;
    for (let k = a.insns.opBegin[i]!, e = a.insns.opBegin[i + 1]!; k < e; k++) {
      if (a.oRole[k] !== b.oRole[k] || a.oAccess[k] !== b.oAccess[k] || list(a, a.oUnits[k]!) !== list(b, b.oUnits[k]!)) return `instruction ${i}: operand ${k - a.insns.opBegin[i]!}`;
    }
  }
  return undefined;
}
