/**
 * The waitcnt model: what each instruction of a kernel does to the counters (precomputed once
 * per kernel), on the counters and operation classes of src/targets/counters.ts.
 *
 * Facts and where they come from:
 *  - Three counters, all GFX9 encoding: vmcnt (max 63), expcnt (7), lgkmcnt (15); the maxima
 *    are target data (`target.counters`): LLVM AMDGPUBaseInfo.cpp (waitcnt bit widths).
 *  - What increments which counter, and by how much: the traits table (isa/traits.ts: the
 *    catalogue's events and counters), which follows LLVM SIInsertWaitcnts and CDNA3 ISA §4.4.
 *  - Which class an event counts as and which classes complete in order: targets/counters.ts.
 *  - expcnt: VMEM stores are not tracked on expcnt: the CDNA3 text and LLVM (SIInsertWaitcnts
 *    tracks no store data on GFX9) agree that GFX9 reads store data at issue; MI200 ISA §4.4 also
 *    lists "VMEM writes that have not yet sent their write data" under EXP_CNT, which the
 *    catalogue (exp = 0 for VMEM stores) and LLVM's output do not follow.
 *  - Register units a pending operation will write: VGPR/AGPR destinations of VMEM, DS and FLAT
 *    loads and atomics with return; SGPR destinations of SMEM loads. Implicit operands of
 *    memory instructions are ignored (as SIInsertWaitcnts::generateWaitcntInstBefore does).
 *
 * Per-class reasoning. The analysis keeps, for each class, how many operations of that class
 * may be outstanding and, for each pending operation, how many later operations of the SAME
 * class were issued ("younger"). An in-order operation with k younger same-class operations is
 * complete after `s_waitcnt <counter>(k)`: were it outstanding, those k would be too (they
 * complete after it), so the counter would be at least k+1. This holds whatever other classes
 * are pending on the same counter, so a mix of LDS and SMEM does not force lgkmcnt(0) for an
 * LDS result (LLVM keeps one timeline per counter and does force 0 there; its own source
 * comment notes that lgkmcnt(i) would suffice). Out-of-order classes (SMEM, FLAT) complete only
 * at a wait for 0.
 */
import type { KernelContext } from '../analysis/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { EXEC_HI, EXEC_LO, UNIT_COUNT, isAgprUnit, isVgprUnit, type RegUnit } from '../asm/registers.js';
import type { WaitcntOperand } from '../asm/ast.js';
import { EVENT, has, isClass, isMemOp, issues as issuesEvent, memSpaceName, traitsOf, TRAIT, type KernelTraits } from '../isa/traits.js';
import { REF } from '../targets/common.js';
import { CLASS_COUNTER, COUNTER, COUNTER_SOURCES, OP_CLASS } from '../targets/counters.js';

export { COUNTER, COUNTER_NAMES, OP_CLASS, NCLASSES, CLASS_COUNTER, CLASS_IN_ORDER, CLASS_NAMES, COUNTER_CLASSES } from '../targets/counters.js';
export type { Counter, CounterName, OpClass } from '../targets/counters.js';

/**
 * Pseudo register units beyond the real ones:
 *  - LDS_MEM: "LDS written by a pending LDS-DMA" (buffer/global load ... lds). An instruction
 *    that accesses LDS waits for it on vmcnt (LLVM SIInsertWaitcnts: LDS-DMA, "memory-based
 *    dependencies"; without alias information every LDS access is assumed to overlap).
 *  - STORES: the youngest pending operation of each class that writes no register (stores,
 *    atomics without return, messages). Nothing reads it; it tells which
 *    waits complete stores (memory ordering, see fences in analysis.ts).
 *  - LDS_QUIET: an LDS-DMA still pending after an LDS access was warned about it (SOURCES.ldsDma:
 *    reported once per DMA run, so it leaves LDS_MEM there). Nothing waits for it; it tells that
 *    an existing vmcnt wait may be ordering an LDS access after the DMA, which the assembly
 *    cannot show (such a wait is never judged stronger than needed on vmcnt).
 *  - WRITEBACK: the youngest vmcnt operation of each class issued before a cache writeback
 *    (buffer_wbl2: a release), still pending. The next store or atomic to global memory waits for
 *    it (SOURCES.release).
 *  - COHERENT_LOAD: a pending load that bypasses or writes through the vector L1 (glc, sc0 or sc1:
 *    an atomic load, an atomic with return): the load of an acquire. A cache invalidate waits for
 *    it (SOURCES.acquire).
 */
export const LDS_MEM = UNIT_COUNT;
export const STORES = UNIT_COUNT + 1;
export const LDS_QUIET = UNIT_COUNT + 2;
export const WRITEBACK = UNIT_COUNT + 3;
export const COHERENT_LOAD = UNIT_COUNT + 4;
export const NUNITS = UNIT_COUNT + 5;

export const SOURCES = {
  counters: COUNTER_SOURCES.widths,
  missing: `LLVM SIInsertWaitcnts::generateWaitcntInstBefore; ${REF.cdna3} §4.4 (Data Dependency Resolution)`,
  ordering: COUNTER_SOURCES.ordering,
  /**
   * s_barrier on targets without back-off barrier (gfx906, gfx908). LLVM SIInsertWaitcnts waits
   * for every counter before each s_barrier there "in case there are any outstanding memory
   * operations that may cause an exception" (a wave stalled at the barrier cannot take it). The
   * ISA's S_BARRIER text asks for no wait, a load's data is written when it returns wherever the
   * wave stands, and AMD's own gfx908 kernels (MIOpen igemm, Tensile) keep their prefetch loads in
   * flight across barriers. Decision: a warning; the fix and the scheduler never add the wait,
   * and the operations stay outstanding across the barrier in the analysis.
   */
  barrier: `LLVM SIInsertWaitcnts (s_barrier: without FeatureBackOffBarrier a full s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) precedes every s_barrier, for memory exceptions); target feature 'back-off-barrier'; a policy, not a data dependency: warning`,
  ret: `LLVM SIInsertWaitcnts (return: wait vmcnt(0) expcnt(0) lgkmcnt(0) before returning)`,
  entry: `LLVM SIInsertWaitcnts (non-kernel function entry: s_waitcnt 0; calls wait only for the call's own registers)`,
  exec: `LLVM SIInsertWaitcnts (an instruction writing EXEC while an export/GDS is pending waits expcnt(0))`,
  /**
   * A result followed by at least as many operations of its (in-order) class as the counter's
   * maximum, with no wait between. The sources disagree and no ISA text covers it: the counter
   * fields are 6/4/3 bits (vmcnt 63, lgkmcnt 15, expcnt 7); LLVM SIInsertWaitcnts::determineWait
   * waits for max-1 there ("avoid overflow"), while AMD's Tensile kernels write lgkmcnt(15)
   * after 19 LDS operations (the HHS kernels in the corpus) and work. Both are correct only if
   * the counter never runs past its maximum (a counter that wrapped would let LLVM's own
   * lgkmcnt(14) pass too early), i.e. issue holds at the maximum; under that model the result is
   * complete. Decision: a warning, not an error, naming both; the fix and the scheduler's
   * re-derived waits take LLVM's safe value.
   */
  saturation: 'LLVM SIInsertWaitcnts::determineWait (waits max-1 when the count reaches the maximum in straight-line code; measured with llc -run-pass=si-insert-waitcnts on a gfx90a GEMM loop: LLVM 22 writes no wait for a load counted across the back edge once the loop body issues the maximum or more later operations, and waits max-1 with fewer); AMD Tensile kernels (wait at the maximum after more operations than it)',
  /**
   * An LDS access while an LDS-DMA (buffer/global load ... lds) may still be writing LDS. The
   * hardware orders the two only through vmcnt; whether the access needs the DMA's data depends
   * on the LDS addresses (M0 and the DMA's offset against the access's address), which the
   * assembly does not show. LLVM SIInsertWaitcnts waits on vmcnt only when it cannot prove the
   * two disjoint: with alias information (the DMA's and the access's memory operands) it omits
   * the wait, so its own output (CK-tile and Triton gfx950 kernels) and AMD's hand-written
   * double-buffered kernels read one LDS buffer while the DMA fills the other, with no wait.
   * Decision: a warning, reported once per DMA run; the fix does not add the wait, and the
   * analysis counts nothing else complete there; the scheduler keeps LLVM's safe value where it
   * re-derives waits (a changed region), so a schedule never drops a wait the input relies on.
   */
  ldsDma: `LLVM SIInsertWaitcnts (LDS-DMA events and memory-based dependencies: waits on vmcnt unless alias information proves the LDS ranges disjoint); no alias information in assembly: warning`,
  /**
   * A release: the memory operations before the cache writeback (buffer_wbl2) complete before the
   * store or atomic that publishes. LLVM writes `buffer_wbl2`, `s_waitcnt vmcnt(0)`, then the
   * store, for a release at agent or system scope on gfx90a and later ("ensures that all memory
   * operations have completed before performing the store that is being released"); the wait is
   * for the operations before it, not the writeback (SIInsertWaitcnts drops it when nothing else is
   * outstanding: isa/catalogue.ts). A store before the writeback still in flight at the next store
   * lets the data be seen after the flag. Only stores and atomics to global memory count (not
   * scratch, not LDS).
   */
  release: `LLVM AMDGPUUsage, memory models GFX90A and GFX942 (store atomic release, fence release: buffer_wbl2, s_waitcnt vmcnt(0), then the store); SIMemoryLegalizer insertRelease`,
  /**
   * An acquire: the load that acquires (an atomic load or an atomic with return, written with
   * glc / sc0 / sc1) completes before the cache invalidate (buffer_inv, buffer_wbinvl1_vol) that
   * makes later loads see what it synchronized with. LLVM writes the load, `s_waitcnt vmcnt(0)`,
   * then the invalidate ("ensures the load has completed before invalidating the cache"). Plain
   * loads in flight at the invalidate are not waited for: a load before an acquire may see
   * older data.
   */
  acquire: `LLVM AMDGPUUsage, memory models GFX6-GFX9, GFX90A and GFX942 (load atomic acquire, atomicrmw acquire: the load, s_waitcnt vmcnt(0), then buffer_inv / buffer_wbinvl1_vol); SIMemoryLegalizer insertAcquire`,
} as const;

/** One counter increment an instruction makes, and the units it will write (or hold). */
export interface Issue {
  cls: number;
  inc: number;
  /**
   * vmcnt / lgkmcnt classes: units written when the operation completes (STORES when none).
   * expcnt classes: source VGPRs held until the operation has read them (WAR).
   */
  units: readonly number[];
}

/** What an instruction is to the analysis: a wait, a barrier, a return, a call, the end, a nop, or anything else. */
export const INSN_KIND = { normal: 0, wait: 1, barrier: 2, return: 3, call: 4, end: 5, nop: 6 } as const;
export type InsnKind = (typeof INSN_KIND)[keyof typeof INSN_KIND];

/**
 * What one instruction does, for the analysis (its registers are the ResolvedInsn's `uses` and
 * `defs`). Instructions that issue nothing and wait for nothing alike share one object.
 */
export interface InsnEffects {
  kind: InsnKind;
  /** INSN_KIND.wait: counter values waited for, [vm, lgkm, exp]; NO_WAIT when the counter is not waited on. */
  wait?: readonly [number, number, number];
  issues: readonly Issue[];
  /** A VMEM (not FLAT) load: VMEM writes VGPRs in issue order, so a pending VMEM load's destination may be overwritten without a wait (WAW exception, SIInsertWaitcnts::generateWaitcntInstBefore). */
  vmemLoad: boolean;
  /**
   * The class whose pending writes this instruction may overwrite without a wait, or -1: its own,
   * when that class writes registers in issue order. OP_CLASS.vmem for a VMEM load (vmemLoad);
   * OP_CLASS.lds for a DS instruction counted as LDS alone (not GDS): LDS operations complete
   * in issue order among themselves (CDNA3 ISA §4.4: "Instructions of a given type return in
   * order"; targets/counters.ts), so a younger LDS load's data lands after an older one's. LLVM's SIInsertWaitcnts waits there anyway; Mesa ACO's waitcnt pass does not
   * ("LDS reads and writes return in the order they were issued"). Decision: no wait needed,
   * no error (a two-buffer LDS read into the same registers is correct code).
   */
  inOrderClass: number;
  /**
   * A VMEM d16 load: it "reads" its destination only in the sense that it keeps the other half;
   * the merge happens when its data is written, after any older VMEM write (in-order VGPR writes),
   * so a pending VMEM load of the same register needs no wait either.
   */
  d16Load: boolean;
  /** Accesses LDS memory (a DS LDS instruction other than a lane exchange, or FLAT which may address LDS): waits for a pending LDS-DMA. */
  lds: boolean;
  writesExec: boolean;
  /** Cache writeback / invalidate (buffer_wbl2, buffer_inv, buffer_wbinvl1*, s_dcache_*). */
  cacheOp: boolean;
  /** buffer_wbl2: the vmcnt operations before it are a release's (WRITEBACK). */
  writeback: boolean;
  /** A store or atomic to global memory: it waits for what a release's writeback follows (WRITEBACK). */
  releaseStore: boolean;
  /** A vector cache invalidate (buffer_inv, buffer_wbinvl1, buffer_wbinvl1_vol): it waits for a pending coherent load (COHERENT_LOAD, an acquire). */
  cacheInvalidate: boolean;
  /** Memory access, message, barrier, cache op, branch or call: something that can observe memory ordering. */
  ordersMemory: boolean;
  /**
   * INSN_KIND.call: the callee follows the calling convention (it waits for every counter at entry and
   * before it returns, SIInsertWaitcnts), so every counter is zero after the call. False for a
   * subroutine inside the kernel (the target address is s_getpc_b64 plus kernel labels, as
   * Tensile's activation routines): such code keeps the caller's counters, so the call is
   * transparent to the analysis (the subroutine's own code is analysed where it stands).
   */
  callWaits: boolean;
}

/** A counter value meaning "not waited on". */
export const NO_WAIT = 0x7fffffff;

export function counterMax(ctx: KernelContext): [number, number, number] {
  const c = ctx.target.counters;
  return [c.vmcnt.value, c.lgkmcnt.value, c.expcnt.value];
}

/** The decoded counters of an s_waitcnt (values at or above the counter's maximum do not wait). */
export function waitValues(r: ResolvedInsn, max: readonly number[]): [number, number, number] {
  const op = r.insn.operands.find((o) => o.kind === 'waitcnt') as WaitcntOperand | undefined;
  const out: [number, number, number] = [NO_WAIT, NO_WAIT, NO_WAIT];
  if (!op) {
    // s_waitcnt with an operand the parser did not decode: assume it waits for everything.
    return [0, 0, 0];
  }
  const v = [op.vmcnt, op.lgkmcnt, op.expcnt];
  for (let c = 0; c < 3; c++) {
    const x = v[c];
    if (x !== undefined && x < max[c]!) out[c] = x;
  }
  return out;
}

/** The VGPR and AGPR units of a list (memoized per list: resolved lists are shared). */
const VA_UNITS = new WeakMap<readonly RegUnit[], readonly RegUnit[]>();

function vaUnits(units: readonly RegUnit[]): readonly RegUnit[] {
  let va = VA_UNITS.get(units);
  if (va === undefined) {
    va = units.filter((u) => isVgprUnit(u) || isAgprUnit(u));
    VA_UNITS.set(units, va);
  }
  return va;
}

const NO_ISSUES: readonly Issue[] = Object.freeze([]);

const STORE_UNITS: readonly number[] = Object.freeze([STORES]);
const LDS_UNITS: readonly number[] = Object.freeze([LDS_MEM]);

const effectsCache = new WeakMap<KernelContext, InsnEffects[]>();

/** The effects of every instruction of the kernel (indexes as KernelContext.insns); cached per context. */
export function kernelEffects(ctx: KernelContext): InsnEffects[] {
  let fx = effectsCache.get(ctx);
  if (!fx) { fx = computeEffects(ctx); effectsCache.set(ctx, fx); }
  return fx;
}

function computeEffects(ctx: KernelContext): InsnEffects[] {
  const max = counterMax(ctx);
  const t = traitsOf(ctx.insns);
  const longSetpc = new Set(ctx.cfg.longBranches.map((l) => l.setpc));
  const labels = new Set(ctx.cfg.blocks.flatMap((b) => b.labels));
  const out: InsnEffects[] = new Array(ctx.insns.length);
  // the latest s_getpc_b64 writing each SGPR pair's first register, kept in one forward pass
  const getpc = new Map<number, number>();
  const shared = new Map<number, InsnEffects>();
  for (let i = 0; i < ctx.insns.length; i++) {
    const r = ctx.insns[i]!;
    const control = ctx.cfg.control[i];
    if (r.insn.base === 's_getpc_b64') {
      const d = r.insn.operands[0];
      if (d && d.kind === 'reg') getpc.set(d.first, i);
    }
    let kind: InsnKind = INSN_KIND.normal;
    if (isClass(t, i, 'waitcnt')) kind = INSN_KIND.wait;
    else if (isClass(t, i, 'barrier')) kind = INSN_KIND.barrier;
    else if (control === 'indirect' && !longSetpc.has(i)) kind = isTailCall(ctx, i, labels) ? INSN_KIND.call : INSN_KIND.return;
    else if (control === 'call') kind = INSN_KIND.call;
    else if (isClass(t, i, 'endpgm')) kind = INSN_KIND.end;
    else if (isClass(t, i, 'nop')) kind = INSN_KIND.nop;
    const issues = issuesOf(r, t, i);
    let writesExec = false;
    const defs = r.defs;
    for (let k = 0; k < defs.length; k++) if (defs[k] === EXEC_LO || defs[k] === EXEC_HI) { writesExec = true; break; }
    const cacheOp = has(t, i, TRAIT.cacheOp);
    const vmemLoad = has(t, i, TRAIT.vmemLoad);
    const callWaits = kind === INSN_KIND.call && !isLocalSubroutineCall(ctx, i, labels, getpc);
    const d16Load = vmemLoad && has(t, i, TRAIT.d16);
    const inOrderClass = vmemLoad ? OP_CLASS.vmem
      : issues.length > 0 && issues.every((x) => x.cls === OP_CLASS.lds) && r.defs.length > 0 ? OP_CLASS.lds : -1;
    // ds_swizzle_b32, ds_permute_b32, ds_bpermute_b32 (memory operation 'other') exchange lanes
    // through the LDS hardware but access no LDS memory (LLVM DSInstructions.td: DS_1A1D_PERMUTE
    // and DS_SWIZZLE_B32 have mayLoad = 0, mayStore = 0, so SIInsertWaitcnts finds no LDS memory
    // operand to order against a pending LDS-DMA)
    const lds = issuesEvent(t, i, EVENT.lds | EVENT.flat) && !(isClass(t, i, 'ds') && isMemOp(t, i, 'other'));
    const ordersMemory = issues.length > 0 || cacheOp || kind === INSN_KIND.barrier || kind === INSN_KIND.call || kind === INSN_KIND.return
      || control === 'jump' || control === 'cjump' || control === 'indirect';
    const base = r.insn.base;
    const cacheInvalidate = cacheOp && (base === 'buffer_inv' || base === 'buffer_wbinvl1' || base === 'buffer_wbinvl1_vol');
    const writeback = cacheOp && base === 'buffer_wbl2';
    const releaseStore = !cacheOp && has(t, i, TRAIT.mayStore) && !has(t, i, TRAIT.ldsDma) && memSpaceName(t, i) !== 'scratch'
      && issues.some((x) => CLASS_COUNTER[x.cls] === COUNTER.vm);
    if (kind === INSN_KIND.wait || issues.length > 0) {
      out[i] = { kind, callWaits, wait: kind === INSN_KIND.wait ? waitValues(r, max) : undefined, issues, vmemLoad, inOrderClass, d16Load, lds, writesExec, cacheOp, writeback, releaseStore, cacheInvalidate, ordersMemory };
      continue;
    }
    // the rest is a kind and seven booleans (a store issues: never here): one object per combination
    const key = kind * 64 + +callWaits * 32 + +vmemLoad * 16 + +d16Load * 8 + +lds * 4 + +writesExec * 2 + +cacheOp + (ordersMemory ? 1024 : 0) + (cacheInvalidate ? 2048 : 0) + (writeback ? 4096 : 0);
    let e = shared.get(key);
    if (e === undefined) {
      e = Object.freeze({ kind, callWaits, wait: undefined, issues: NO_ISSUES, vmemLoad, inOrderClass, d16Load, lds, writesExec, cacheOp, writeback, releaseStore: false, cacheInvalidate, ordersMemory });
      shared.set(key, e);
    }
    out[i] = e;
  }
  return out;
}

/** Written with glc, sc0 or sc1: the access bypasses or writes through the vector L1 (a coherent or volatile access). */
export function writtenCoherent(r: ResolvedInsn): boolean {
  return r.insn.modifiers.some((m) => m.name === 'glc' || m.name === 'sc0' || m.name === 'sc1');
}

/** A load written with glc, sc0 or sc1 (COHERENT_LOAD) also holds that pseudo unit. */
function coherent(r: ResolvedInsn, units: readonly number[]): readonly number[] {
  if (units === STORE_UNITS || !writtenCoherent(r)) return units;
  return [...units, COHERENT_LOAD];
}

/** The counter increments of instruction i, one per class it counts on. */
function issuesOf(r: ResolvedInsn, t: KernelTraits, i: number): readonly Issue[] {
  if (t.events[i] === 0) return NO_ISSUES;
  const out: Issue[] = [];
  const vm = t.vmInc[i]!;
  const lgkm = t.lgkmInc[i]!;
  const exp = t.expInc[i]!;
  const vaDefs = vaUnits(r.explicitDefs);
  const events = t.events[i]!;
  for (let bit = 1; bit <= events; bit <<= 1) {
    if ((events & bit) === 0) continue;
    switch (bit) {
      case EVENT['vmem-load']:
        out.push({ cls: OP_CLASS.vmem, inc: vm || 1, units: coherent(r, vaDefs.length ? vaDefs : STORE_UNITS) });
        break;
      case EVENT['vmem-store']:
        out.push({ cls: OP_CLASS.vmem, inc: vm || 1, units: has(t, i, TRAIT.ldsDmaLoad) ? LDS_UNITS : STORE_UNITS });
        break;
      case EVENT.flat: {
        const units = coherent(r, vaDefs.length ? vaDefs : STORE_UNITS);
        out.push({ cls: OP_CLASS.vmFlat, inc: vm || 1, units });
        out.push({ cls: OP_CLASS.lgkmFlat, inc: lgkm || 1, units });
        break;
      }
      case EVENT.lds:
        out.push({ cls: OP_CLASS.lds, inc: lgkm || 1, units: vaDefs.length ? vaDefs : STORE_UNITS });
        break;
      case EVENT.gds:
        out.push({ cls: OP_CLASS.gds, inc: lgkm || 1, units: vaDefs.length ? vaDefs : STORE_UNITS });
        if (exp > 0) {
          const src = vaUnits(r.explicitUses);
          if (src.length) out.push({ cls: OP_CLASS.expGds, inc: exp, units: src });
        }
        break;
      case EVENT.smem: {
        const d = r.explicitDefs;
        out.push({ cls: OP_CLASS.smem, inc: lgkm || 1, units: d.length ? d : STORE_UNITS });
        break;
      }
      case EVENT.message:
        out.push({ cls: OP_CLASS.message, inc: lgkm || 1, units: STORE_UNITS });
        break;
      case EVENT.export: {
        const src = vaUnits(r.explicitUses);
        if (src.length) out.push({ cls: OP_CLASS.export, inc: exp || 1, units: src });
        break;
      }
    }
  }
  return out;
}

/** How far back isTailCall looks for the instruction that set the jump's target. */
const TAIL_CALL_WINDOW = 512;

/**
 * The s_setpc_b64 at `i` is a tail call: its pair is not the return address the ABI passes
 * (s[30:31]), and the nearest instruction before it that writes the pair's first register names a
 * symbol that is no label of this kernel (a function's address, `callee@rel32@lo+4`). LLVM lowers
 * a sibling call (SI_TCRETURN) so, sometimes with a call between that leaves the pair alone, and
 * treats it as a call (SIInsertWaitcnts: the callee waits for everything in its prolog), not as a
 * return, which waits for everything first (a new user's trial: llc's ipra test).
 */
function isTailCall(ctx: KernelContext, i: number, kernelLabels: ReadonlySet<string>): boolean {
  const to = ctx.insns[i]!.insn.operands[0];
  if (!to || to.kind !== 'reg' || to.file !== 's' || to.index === 30) return false;
  // the operand's first register unit
  const unit = to.first;
  for (let k = i - 1; k >= 0 && k >= i - TAIL_CALL_WINDOW; k--) {
    const r = ctx.insns[k]!;
    if (!r.defs.includes(unit)) continue;
    return r.insn.operands.some((o) => o.kind === 'expr' && o.symbols.some((sym) => !isKernelLabel(sym, kernelLabels)));
  }
  return false;
}

/** A symbol an operand names is a label of this kernel (its relocation variant, `@rel32@lo`, aside). */
function isKernelLabel(sym: string, kernelLabels: ReadonlySet<string>): boolean {
  return kernelLabels.has(sym.split('@')[0]!);
}

/**
 * The call at `i` jumps to code of this kernel: the nearest s_getpc_b64 before it that writes the
 * call's target register, and the few instructions after that one, name labels but no function
 * symbol. A target loaded from memory, passed in, or naming a function follows the ABI.
 * `getpc` maps a register to the latest s_getpc_b64 before `i` writing it (kept by the caller's
 * forward pass, so no call scans back).
 */
function isLocalSubroutineCall(ctx: KernelContext, i: number, kernelLabels: ReadonlySet<string>, getpc: ReadonlyMap<number, number>): boolean {
  const target = ctx.insns[i]!.insn.operands[1];
  if (!target || target.kind !== 'reg') return false;
  const g = getpc.get(target.first);
  if (g === undefined) return false;
  let named = false;
  for (let k = g + 1; k < Math.min(i, g + 8); k++) {
    for (const o of ctx.insns[k]!.insn.operands) {
      if (o.kind !== 'expr') continue;
      for (const sym of o.symbols) {
        if (!isKernelLabel(sym, kernelLabels)) return false;
        named = true;
      }
    }
  }
  return named;
}
