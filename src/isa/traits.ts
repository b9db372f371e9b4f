/**
 * What kind of instruction each instruction of a kernel is, decided once: one flat table of
 * small numbers per kernel (class, MFMA kind and passes, memory operation, space and width,
 * the waitcnt events and counter increments, latency class, and boolean traits such as
 * transcendental, DOT, LDS-DMA or wide store).
 *
 * Every analysis above this layer reads its per-instruction view from this table instead of
 * classifying `InsnInfo` again: the hazard checker's HazardInsn, the waitcnt model's InsnEffects, the
 * scheduler's wait model (FlatEffects) and memory-order model (MemAccess), and the cycle model.
 * Only `verify` classifies on its own, on purpose (src/verify/verify.ts): an equivalence proof
 * must not share the scheduler's mistakes.
 *
 * The table is built by one function (`buildTraits`) from the resolved instructions, and read
 * through the accessors below; a front end that keeps instructions in flat arrays can fill the
 * same arrays directly.
 */
import type { InsnClass, LatencyClass, MemOp, MemSpace, MfmaKind, ResolvedInsn, WaitEvent } from './types.js';

/** Instruction classes (InsnClass) as numbers. */
export const CLS = {
  salu: 0, smem: 1, valu: 2, mfma: 3, vmem: 4, flat: 5, ds: 6, export: 7, branch: 8, barrier: 9,
  waitcnt: 10, nop: 11, message: 12, endpgm: 13, other: 14,
} as const satisfies Record<InsnClass, number>;

/** Waitcnt events (WaitEvent) as bits. */
export const EVENT = {
  'vmem-load': 1, 'vmem-store': 2, lds: 4, smem: 8, flat: 16, message: 32, gds: 64, export: 128,
} as const satisfies Record<WaitEvent, number>;

/** Memory operations (MemOp) as numbers; 0: not a memory instruction. */
export const MEM_OP = {
  none: 0, load: 1, store: 2, atomic: 3, 'atomic-rtn': 4, 'load-lds': 5, 'store-lds': 6, cache: 7, time: 8, probe: 9, other: 10,
} as const satisfies Record<MemOp | 'none', number>;

/** Memory spaces (MemSpace) as numbers; 0: not a memory instruction. */
export const MEM_SPACE = {
  none: 0, global: 1, flat: 2, scratch: 3, buffer: 4, lds: 5, gds: 6, gws: 7, scalar: 8,
} as const satisfies Record<MemSpace | 'none', number>;

/** MFMA kinds as numbers; 0: not an MFMA. */
export const MFMA_KIND = { none: 0, xdl: 1, sgemm: 2, dgemm: 3, smfmac: 4 } as const satisfies Record<MfmaKind | 'none', number>;

/** Latency classes (keys of the target's latency table) as numbers. */
export const LATENCY = {
  salu: 0, smem: 1, valu: 2, valu_trans: 3, valu_dp: 4, valu_quarter: 5, valu_64: 6, valu_dot: 7, mfma: 8, ds: 9,
  vmem: 10, flat: 11, branch: 12, barrier: 13, waitcnt: 14, nop: 15, message: 16, export: 17, endpgm: 18, other: 19,
} as const satisfies Record<LatencyClass, number>;

/** Boolean traits, as bits of `KernelTraits.flags`. */
export const TRAIT = {
  /** Transcendental VALU (LLVM GCNHazardRecognizer::checkVALUHazards; CDNA3 ISA §4.5 Table 12). */
  trans: 1 << 0,
  /** Dot product (DL op). */
  dot: 1 << 1,
  /** v_cmpx: writes EXEC. */
  cmpx: 1 << 2,
  /** A VMEM (buffer/global/scratch, not FLAT) load: VMEM writes VGPRs in issue order. */
  vmemLoad: 1 << 3,
  /** A d16 load: keeps the other half of its destination. */
  d16: 1 << 4,
  /** A DS instruction that reads or writes LDS memory (not swizzle/permute, which only use its crossbar). */
  ldsMemory: 1 << 5,
  /** LDS-DMA: a buffer/global/scratch load whose data goes to LDS at M0. */
  ldsDmaLoad: 1 << 6,
  /** LDS-DMA either way (load to LDS, or buffer_store_lds_dword reading LDS), on the VMEM path. */
  ldsDma: 1 << 7,
  /** Writes memory: stores, atomics, LDS-DMA (which writes LDS). */
  mayStore: 1 << 8,
  /** Cache writeback or invalidate (buffer_wbl2, buffer_inv, buffer_wbinvl1*, s_dcache_*). */
  cacheOp: 1 << 9,
  /** FLAT, global or scratch encoding (the FLAT instruction family). */
  flatEncoding: 1 << 10,
  /** MUBUF or MTBUF encoding. */
  bufferEncoding: 1 << 11,
  /**
   * A VMEM/FLAT store or atomic whose data operand is wider than two dwords (dwordx3/x4,
   * cmpswap_x2): it still reads its data after issue (LLVM GCNHazardRecognizer::createsVALUHazard).
   */
  wideStore: 1 << 12,
  /** MUBUF/MTBUF with an SGPR soffset. */
  sgprOffset: 1 << 13,
  /** v_mfma_f64_16x16x4 (DGEMM with a 16x16 tile). */
  dgemm16: 1 << 14,
  /** v_mfma_f64_4x4x4 (DGEMM with a 4x4 tile). */
  dgemm4: 1 << 15,
  /** DPP or SDWA encoding variant. */
  dpp: 1 << 16,
  sdwa: 1 << 17,
  /** v_accvgpr_read_b32 / v_accvgpr_write_b32 / v_accvgpr_mov_b32. */
  accRead: 1 << 18,
  accWrite: 1 << 19,
  accMov: 1 << 20,
} as const;

/** The table of one kernel: entry i describes instruction i (KernelContext.insns order). */
export interface KernelTraits {
  readonly n: number;
  readonly cls: Uint8Array;
  readonly flags: Uint32Array;
  readonly events: Uint8Array;
  readonly vmInc: Uint8Array;
  readonly lgkmInc: Uint8Array;
  readonly expInc: Uint8Array;
  readonly memOp: Uint8Array;
  readonly memSpace: Uint8Array;
  readonly memDwords: Uint8Array;
  readonly mfmaKind: Uint8Array;
  readonly passes: Uint8Array;
  readonly latency: Uint8Array;
}

const ACC: Record<string, number> = { v_accvgpr_read_b32: TRAIT.accRead, v_accvgpr_write_b32: TRAIT.accWrite, v_accvgpr_mov_b32: TRAIT.accMov };

/** Length of the last run of consecutive units of an operand (a tuple on a unified file may be split). */
function lastRun(units: readonly number[]): number {
  let s = units.length - 1;
  while (s > 0 && units[s] === units[s - 1]! + 1) s--;
  return units.length - s;
}

/** Wide-store traits of a store or atomic (see TRAIT.wideStore). */
function wideStoreBits(r: ResolvedInsn): number {
  let data = 0;
  let sgprOffset = false;
  for (const o of r.operands) {
    if (o.units.length === 0) continue;
    if (o.role === 'vdata') data = lastRun(o.units);
    else if (o.role === 'soffset') sgprOffset = o.units[0]! < 128;
  }
  if (data <= 2) return 0;
  const enc = r.info.encoding;
  const buffer = enc === 'mubuf' || enc === 'mtbuf';
  return TRAIT.wideStore | (buffer && sgprOffset ? TRAIT.sgprOffset : 0);
}

/** The traits of every instruction: the one place where an instruction's kind is decided. */
export function buildTraits(insns: readonly ResolvedInsn[]): KernelTraits {
  const n = insns.length;
  const t = emptyTraits(n);
  for (let i = 0; i < n; i++) fillTraits(t, i, insns[i]!);
  return t;
}

function emptyTraits(n: number): KernelTraits {
  return {
    n, cls: new Uint8Array(n), flags: new Uint32Array(n), events: new Uint8Array(n),
    vmInc: new Uint8Array(n), lgkmInc: new Uint8Array(n), expInc: new Uint8Array(n),
    memOp: new Uint8Array(n), memSpace: new Uint8Array(n), memDwords: new Uint8Array(n),
    mfmaKind: new Uint8Array(n), passes: new Uint8Array(n), latency: new Uint8Array(n),
  };
}

const ONE = emptyTraits(1);

/**
 * The traits of one instruction, as instruction 0 of a KernelTraits that the next call
 * overwrites (for a fact computed at once from them, as hazardInsn computes one).
 */
export function traitsOfOne(r: ResolvedInsn): KernelTraits {
  fillTraits(ONE, 0, r);
  return ONE;
}

/** Write instruction i's traits (r) into t, every entry of its row. */
function fillTraits(t: KernelTraits, i: number, r: ResolvedInsn): void {
  const info = r.info;
  const cls = info.cls;
  t.cls[i] = CLS[cls];
  t.latency[i] = LATENCY[info.latency];
  let ev = 0;
  const events = info.events;
  for (let k = 0; k < events.length; k++) ev |= EVENT[events[k]!];
  t.events[i] = ev;
  t.vmInc[i] = info.counters.vm;
  t.lgkmInc[i] = info.counters.lgkm;
  t.expInc[i] = info.counters.exp;
  let f = 0;
  const valu = info.desc.valu;
  if (valu?.trans) f |= TRAIT.trans;
  if (valu?.dot) f |= TRAIT.dot;
  if (valu?.cmpx) f |= TRAIT.cmpx;
  if (info.variant === 'dpp') f |= TRAIT.dpp;
  if (info.variant === 'sdwa') f |= TRAIT.sdwa;
  f |= ACC[info.desc.name] ?? 0;
  const enc = info.encoding;
  if (enc === 'flat' || enc === 'global' || enc === 'scratch') f |= TRAIT.flatEncoding;
  if (enc === 'mubuf' || enc === 'mtbuf') f |= TRAIT.bufferEncoding;
  if (cls === 'vmem' && (ev & EVENT['vmem-load'])) f |= TRAIT.vmemLoad;
  const mem = info.mem;
  t.memOp[i] = mem ? MEM_OP[mem.op] : MEM_OP.none;
  t.memSpace[i] = mem ? MEM_SPACE[mem.space] : MEM_SPACE.none;
  t.memDwords[i] = mem ? mem.dwords : 0;
  if (mem) {
    const op = mem.op;
    if (mem.d16) f |= TRAIT.d16;
    if (cls === 'ds' && mem.space === 'lds' && op !== 'other') f |= TRAIT.ldsMemory;
    if (op === 'load-lds') f |= TRAIT.ldsDmaLoad;
    if ((op === 'load-lds' || op === 'store-lds') && (cls === 'vmem' || cls === 'flat')) f |= TRAIT.ldsDma;
    if (op === 'cache') f |= TRAIT.cacheOp;
    const store = op === 'store' || op === 'atomic' || op === 'atomic-rtn';
    if (store || op === 'load-lds' || op === 'store-lds') f |= TRAIT.mayStore;
    if (store && (cls === 'vmem' || cls === 'flat')) f |= wideStoreBits(r);
  }
  const mf = info.mfma;
  t.passes[i] = cls === 'mfma' ? mf?.passes ?? 0 : 0;
  t.mfmaKind[i] = cls === 'mfma' && mf ? MFMA_KIND[mf.kind] : MFMA_KIND.none;
  if (cls === 'mfma' && mf?.kind === 'dgemm') {
    const m = info.desc.mfma?.m;
    if (m === 16) f |= TRAIT.dgemm16;
    if (m === 4) f |= TRAIT.dgemm4;
  }
  t.flags[i] = f;
}

const CACHE = new WeakMap<readonly ResolvedInsn[], KernelTraits>();

/** The traits of a kernel's instructions, built once per instruction list. */
export function traitsOf(insns: readonly ResolvedInsn[]): KernelTraits {
  let t = CACHE.get(insns);
  if (!t) { t = buildTraits(insns); CACHE.set(insns, t); }
  return t;
}

/** Instruction i has every trait bit of `bits`. */
export function has(t: KernelTraits, i: number, bits: number): boolean {
  return (t.flags[i]! & bits) === bits;
}

/** Instruction i issues the event (an EVENT bit or several: any of them). */
export function issues(t: KernelTraits, i: number, events: number): boolean {
  return (t.events[i]! & events) !== 0;
}

/** Instruction i is of class `c`. */
export function isClass(t: KernelTraits, i: number, c: InsnClass): boolean {
  return t.cls[i] === CLS[c];
}

/** Instruction i is an MFMA of kind `k` ('none': not an MFMA). */
export function isMfmaKind(t: KernelTraits, i: number, k: MfmaKind | 'none'): boolean {
  return t.mfmaKind[i] === MFMA_KIND[k];
}

/** Instruction i's memory operation is `op` ('none' for no memory operation). */
export function isMemOp(t: KernelTraits, i: number, op: MemOp | 'none'): boolean {
  return t.memOp[i] === MEM_OP[op];
}

const SPACE_NAMES = Object.keys(MEM_SPACE) as (MemSpace | 'none')[];

/** Instruction i's memory space by name ('none' for no memory operation). */
export function memSpaceName(t: KernelTraits, i: number): MemSpace | 'none' {
  return SPACE_NAMES[t.memSpace[i]!]!;
}

/** Instruction i's memory space is `s` ('none' for no memory operation). */
export function isMemSpace(t: KernelTraits, i: number, s: MemSpace | 'none'): boolean {
  return t.memSpace[i] === MEM_SPACE[s];
}
