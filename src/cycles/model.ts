/**
 * The per-kernel precomputation of the cycle model: every instruction of a KernelContext turned
 * once into numbers in typed arrays (pipe, occupancy, issue cost, result latency, memory
 * completion, counter effects, register uses with their role, MFMA consumer latencies), so that
 * the engine (engine.ts) evaluates any order of any region without looking at an instruction
 * object again.
 *
 * Model rules (the numbers come from the target's CycleParams, src/targets/latency.ts):
 * - One wave issues in order. After an instruction issues at cycle t, the wave's next
 *   instruction may issue at t + issue (one slot, 4 cycles, for almost everything; s_nop N:
 *   (N+1) slots; s_barrier: `barrier`; a taken branch: `branch.taken`; saveexec / setreg:
 *   `salu.long`).
 * - Each instruction holds a pipe (SALU, VALU, matrix, LDS, VMEM, SMEM, branch) for its
 *   occupancy; the next instruction needing a busy pipe waits. An MFMA holds the VALU port for
 *   `mfma.issue` and the matrix pipe for passes x `mfma.pass`, so independent VALU work issues
 *   while it runs.
 * - A register read waits for the producer's result: ALU results after their latency;
 *   memory results when the memory operation completes; MFMA results after (1 + W) slots where
 *   W is the wait-state count of the hazard tables for that consumer (SrcC chain, SrcC overlap,
 *   SrcA/B, VALU, memory). Special forwarding cases: VALU -> MFMA, VALU SGPR -> scalar / VMEM /
 *   VALU, transcendental -> VALU, DOT -> other opcode, ALU -> conditional branch.
 * - Memory operations complete `latency` after issue, in issue order within their counter group
 *   (all VMEM together; LDS; GDS; messages; FLAT), SMEM out of order. s_waitcnt waits until each
 *   named counter has at most N operations outstanding. A memory instruction whose counter is
 *   full waits for the oldest to complete.
 */
import type { KernelContext } from '../analysis/types.js';
import type { ResolvedInsn } from '../isa/types.js';
import { lookupInsn } from '../isa/catalogue.js';
import { OP_CLASS } from '../targets/counters.js';
import { CLS, EVENT, has, isClass, isMemSpace, isMfmaKind, issues, LATENCY, MEM_OP, TRAIT, traitsOf, type KernelTraits } from '../isa/traits.js';
import { UNIT_COUNT } from '../asm/registers.js';
import { defaultCycleParams, MFMA_PASS_COUNTS, mfmaParamKey, type CycleParams, type MfmaConsumer, type MfmaTableKind, type ParamKey } from '../targets/latency.js';
import type { Target } from '../isa/target.js';
import { nopWaitStates } from '../targets/common.js';
import { ACC_DEF, ACC_USE, OperandReader, firstAlike, roleId, storeIndexOf } from '../isa/resolved-store.js';

const ROLE_SRCC = roleId('srcC');
const ROLE_VDST = roleId('vdst');
const ROLE_SRC2 = roleId('src2');

/** The pipes an instruction holds while it issues. */
export const PIPE = { none: 0, salu: 1, valu: 2, matrix: 3, lds: 4, vmem: 5, smem: 6, branch: 7 } as const;
export const NPIPES = 8;
export const PIPE_NAMES = Object.keys(PIPE) as (keyof typeof PIPE)[];

/** What kind of consumer an instruction is (which forwarding and MFMA latencies it sees). */
export const CONSUMER = { scalar: 0, valu: 1, mfma: 2, vmem: 3, ds: 4, branch: 5, none: 6 } as const;

/** What kind of producer an instruction is. */
export const PRODUCER = { salu: 0, valu: 1, mfma: 2, mem: 3, other: 4 } as const;

/** Operand roles of a register read, ordered by strictness (the strictest wins per unit). */
export const READ_ROLE = { implicit: 1, src2: 2, srcC: 3, explicit: 4, srcAB: 5 } as const;

/**
 * Flags. `free`: takes no issue-port cycle (synthetic wait parts: the wait's slot is charged
 * once by its slot entry).
 */
export const FLAG = { trans: 1, dot: 2, vmemLoad: 4, cjump: 8, jump: 16, end: 32, barrier: 64, free: 128 } as const;

/**
 * When memory operations complete, in time: the operation classes of the counter model
 * (targets/counters.ts) time their completions in issue order among their own kind, except
 * scalar memory, whose results return in any order. Everything counted on vmcnt shares one
 * queue (VMEM and FLAT alike), and so does everything counted on expcnt: `VM_QUEUE` and
 * `EXP_QUEUE` are the classes whose slots they use.
 */
export const VM_QUEUE = OP_CLASS.vmem;
export const EXP_QUEUE = OP_CLASS.export;

/** MFMA consumer slots in CycleModel.mfmaLat (5 per instruction). */
export const MFMA_SLOT = { same: 0, srcC: 1, srcAB: 2, valu: 3, mem: 4 } as const;

export interface CycleModel {
  ctx: KernelContext;
  params: CycleParams;
  target: Target;
  /** Instructions of the kernel (indices 0..n-1). */
  n: number;
  /**
   * Synthetic s_waitcnt parts after the kernel's instructions, for sequences that hold waits a
   * program does not have yet (the scheduler's candidates): `synVm + k` waits for vmcnt(k),
   * `synLgkm + k` for lgkmcnt(k), `synExp + k` for expcnt(k) (no issue cost), and `synSlot` is
   * the wait's issue slot. `syntheticWait` gives the parts of one s_waitcnt.
   */
  synVm: number;
  synLgkm: number;
  synExp: number;
  synSlot: number;
  pipeA: Uint8Array;
  occA: Float64Array;
  pipeB: Uint8Array;
  occB: Float64Array;
  /** Cycles until the same wave may issue again (not taken). */
  issue: Float64Array;
  /** Same, when the instruction is a branch that is taken. */
  issueTaken: Float64Array;
  /** Result latency from issue (ALU); completion latency from issue (memory). */
  lat: Float64Array;
  cc: Uint8Array;
  pk: Uint8Array;
  flags: Uint8Array;
  /** Interned mnemonic (DOT same-opcode chains). */
  opId: Int32Array;
  passes: Uint8Array;
  /** 5 latencies (cycles from issue) per instruction for MFMA producers: MFMA_SLOT.same..M_MEM. */
  mfmaLat: Float64Array;
  mfmaDstFirst: Int32Array;
  mfmaDstCount: Int32Array;
  mfmaCFirst: Int32Array;
  mfmaCCount: Int32Array;
  vmInc: Uint8Array;
  lgkmInc: Uint8Array;
  expInc: Uint8Array;
  /** Operation class (targets/counters.ts OP_CLASS) of the lgkm increment. */
  lgkmClass: Uint8Array;
  /** s_waitcnt counts (-1 = not waited on). */
  wVm: Int8Array;
  wLgkm: Int8Array;
  wExp: Int8Array;
  /**
   * The registers instruction i reads, [useStart[i], useEnd[i]) in useUnit (units) and useRole
   * (READ_ROLE), and writes, [defStart[i], defEnd[i]) in defUnit. Instructions resolved alike
   * share one range.
   */
  useStart: Int32Array;
  useEnd: Int32Array;
  useUnit: Int16Array;
  useRole: Uint8Array;
  defStart: Int32Array;
  defEnd: Int32Array;
  defUnit: Int16Array;
  /** Scalars in cycles. */
  slot: number;
  valuToMfma: number;
  sgprToSalu: number;
  sgprToVmem: number;
  sgprToValu: number;
  transToValu: number;
  dotLat: number;
  afterWrite: number;
  vmMax: number;
  lgkmMax: number;
  expMax: number;
}

function num(p: CycleParams, k: ParamKey): number {
  return p.values[k].value;
}

function passIndexValue(n: number): number {
  for (const p of MFMA_PASS_COUNTS) if (n <= p) return p;
  return 16;
}

/**
 * The model entries of one s_waitcnt that is not in the program (counter values, -1 = not
 * waited on; a value at or above the counter's maximum waits for nothing), pushed onto `out`.
 */
export function syntheticWait(m: CycleModel, vm: number, lgkm: number, exp: number, out: number[]): void {
  if (vm >= 0 && vm < m.vmMax) out.push(m.synVm + vm);
  if (lgkm >= 0 && lgkm < m.lgkmMax) out.push(m.synLgkm + lgkm);
  if (exp >= 0 && exp < m.expMax) out.push(m.synExp + exp);
  out.push(m.synSlot);
}

/** syntheticWait written into `out` from position q (at most 4 entries); returns the position after them. */
export function syntheticWaitInto(m: CycleModel, vm: number, lgkm: number, exp: number, out: Int32Array, q: number): number {
  if (vm >= 0 && vm < m.vmMax) out[q++] = m.synVm + vm;
  if (lgkm >= 0 && lgkm < m.lgkmMax) out[q++] = m.synLgkm + lgkm;
  if (exp >= 0 && exp < m.expMax) out[q++] = m.synExp + exp;
  out[q++] = m.synSlot;
  return q;
}

const DP_SLOW = /^v_(fma|fmac|mul|rcp|rsq|sqrt|div_fmas|trig_preop)_f64$/;

/**
 * A model to take rows from (buildCycleModel's `from`): `model`, of the same target and
 * parameters, and per instruction of the kernel being modelled the instruction of `model`'s kernel
 * it is a copy of (the same statement in the same kernel, hence resolved alike), or -1.
 */
export interface ModelRows { model: CycleModel; row: ArrayLike<number> }

/**
 * Build the model of a kernel (the engine caches it per context and parameter set). An
 * instruction resolved as an earlier one of the kernel was (ResolvedStore.alike), with the same
 * control kind, gets that one's timing and register lists (a function of the resolution, the
 * control kind and the parameters); `opts.alike` false computes each (the unit test compares).
 * With `opts.from`, an instruction that is a copy of one of another model's kernel, with the
 * same control kind, gets that one's the same way (the scheduled kernel's from the original's:
 * modelDifference compares the two ways).
 */
export function buildCycleModel(ctx: KernelContext, params?: CycleParams, opts: { alike?: boolean; from?: ModelRows } = {}): CycleModel {
  const p = params ?? defaultCycleParams(ctx.target);
  const insns = ctx.insns;
  const n = insns.length;
  const slot = num(p, 'slot');
  const vmMax = ctx.target.counters.vmcnt.value;
  const lgkmMax = ctx.target.counters.lgkmcnt.value;
  const expMax = ctx.target.counters.expcnt.value;
  const total = n + vmMax + lgkmMax + expMax + 4;
  const m: CycleModel = {
    ctx, params: p, target: ctx.target, n,
    synVm: n, synLgkm: n + vmMax + 1, synExp: n + vmMax + lgkmMax + 2, synSlot: total - 1,
    pipeA: new Uint8Array(total), occA: new Float64Array(total), pipeB: new Uint8Array(total), occB: new Float64Array(total),
    issue: new Float64Array(total), issueTaken: new Float64Array(total), lat: new Float64Array(total),
    cc: new Uint8Array(total), pk: new Uint8Array(total), flags: new Uint8Array(total), opId: new Int32Array(total),
    passes: new Uint8Array(total), mfmaLat: new Float64Array(total * 5),
    mfmaDstFirst: new Int32Array(total).fill(-1), mfmaDstCount: new Int32Array(total),
    mfmaCFirst: new Int32Array(total).fill(-1), mfmaCCount: new Int32Array(total),
    vmInc: new Uint8Array(total), lgkmInc: new Uint8Array(total), expInc: new Uint8Array(total), lgkmClass: new Uint8Array(total),
    wVm: new Int8Array(total).fill(-1), wLgkm: new Int8Array(total).fill(-1), wExp: new Int8Array(total).fill(-1),
    useStart: new Int32Array(total), useEnd: new Int32Array(total), useUnit: new Int16Array(0), useRole: new Uint8Array(0),
    defStart: new Int32Array(total), defEnd: new Int32Array(total), defUnit: new Int16Array(0),
    slot,
    valuToMfma: slot * (1 + num(p, 'valu.toMfma.ws')),
    sgprToSalu: num(p, 'valu.sgprToSalu'),
    sgprToVmem: slot * (1 + num(p, 'valu.sgprToVmem.ws')),
    sgprToValu: slot * (1 + num(p, 'valu.sgprToValu.ws')),
    transToValu: num(p, 'valu.trans.latency') + slot * num(p, 'valu.transToValu.ws'),
    dotLat: slot * (1 + num(p, 'valu.dot.ws')),
    afterWrite: num(p, 'branch.afterWrite'),
    vmMax, lgkmMax, expMax,
  };
  const ids = new Map<string, number>();
  const from = opts.from;
  // the other model's register lists come first, so that its instructions' ranges hold here
  const useU = new GrowingArray(Int16Array, from?.model.useUnit);
  const useR = new GrowingArray(Uint8Array, from?.model.useRole);
  const defU = new GrowingArray(Int16Array, from?.model.defUnit);
  // its opcode ids too (an id stands for one mnemonic: only equality is read)
  if (from) {
    const fm = from.model;
    for (let o = 0; o < fm.n; o++) if (!ids.has(fm.ctx.insns[o]!.insn.base)) ids.set(fm.ctx.insns[o]!.insn.base, fm.opId[o]!);
  }
  let nextId = ids.size === 0 ? 0 : Math.max(...ids.values()) + 1;
  const fromArrays = from && perInstructionArrays(from.model);
  // the read role of each unit an instruction uses (-1: not used), and those units in the order first met
  const roleOf = new Int8Array(UNIT_COUNT).fill(-1);
  const met: number[] = [];
  const nopMax = ctx.target.maxNopImmCounted.value;
  const traits = traitsOf(insns);
  const reader = new OperandReader();
  // the kernel's first instruction resolved as each store index
  const first = opts.alike === false ? undefined : new Map<number, number>();
  const perInsn = first || from ? perInstructionArrays(m) : undefined;
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    if (from) {
      const o = from.row[i]!;
      const fm = from.model;
      if (o >= 0 && fm.ctx.cfg.control[o] === ctx.cfg.control[i]) {
        copyRow(m, perInsn!, i, fm, fromArrays!, o);
        continue;
      }
    }
    if (first) {
      const a = firstAlike(r);
      const j = a >= 0 ? first.get(a) : undefined;
      if (j !== undefined && ctx.cfg.control[j] === ctx.cfg.control[i]) {
        copyRow(m, perInsn!, i, m, perInsn!, j);
        continue;
      }
      if (a < 0 && storeIndexOf(r) >= 0) first.set(storeIndexOf(r), i);
    }
    classify(m, p, r, traits, i, nopMax, ctx.cfg.control[i]!);
    const base = r.insn.base;
    let id = ids.get(base);
    if (id === undefined) { id = nextId++; ids.set(base, id); }
    m.opId[i] = id;
    // uses with roles
    met.length = 0;
    const isMfma = isClass(traits, i, 'mfma');
    const ops = reader.read(r);
    for (let k = 0; k < ops.n; k++) {
      const acc = ops.acc[k]!;
      if ((acc & ACC_USE) === 0) continue;
      const ro = ops.role[k]!;
      let role: number = READ_ROLE.explicit;
      if (isMfma) {
        if (ro === ROLE_SRCC || ro === ROLE_VDST) role = READ_ROLE.srcC;
        else role = READ_ROLE.srcAB;
      } else if (ro === ROLE_SRC2 || (ro === ROLE_VDST && (acc & ACC_DEF) !== 0)) {
        role = READ_ROLE.src2;
      }
      const units = ops.units;
      const us = ops.start[k]!;
      const ue = ops.end[k]!;
      for (let q = us; q < ue; q++) {
        const u = units[q]!;
        unitInRange(u);
        const prev = roleOf[u]!;
        if (prev < 0) met.push(u);
        if (role > prev) roleOf[u] = role;
      }
      if (isMfma && role === READ_ROLE.srcC && ue > us) {
        m.mfmaCFirst[i] = units[us]!;
        m.mfmaCCount[i] = ue - us;
      }
    }
    const uses = r.uses;
    for (let q = 0; q < uses.length; q++) { const u = uses[q]!; unitInRange(u); if (roleOf[u]! < 0) { met.push(u); roleOf[u] = READ_ROLE.implicit; } }
    m.useStart[i] = useU.length;
    for (let q = 0; q < met.length; q++) { const u = met[q]!; useU.push(u); useR.push(roleOf[u]!); roleOf[u] = -1; }
    m.useEnd[i] = useU.length;
    m.defStart[i] = defU.length;
    const defs = r.defs;
    for (let q = 0; q < defs.length; q++) defU.push(defs[q]!);
    m.defEnd[i] = defU.length;
    if (isMfma) {
      for (let k = 0; k < ops.n; k++) {
        if ((ops.acc[k]! & ACC_DEF) === 0) continue;
        const a = ops.start[k]!;
        const b = ops.end[k]!;
        if (b > a) { m.mfmaDstFirst[i] = ops.units[a]!; m.mfmaDstCount[i] = b - a; }
        break;
      }
    }
  }
  // synthetic wait parts: no registers, no pipe
  for (let i = n; i < total; i++) {
    m.useStart[i] = m.useEnd[i] = useU.length;
    m.defStart[i] = m.defEnd[i] = defU.length;
    m.cc[i] = CONSUMER.none; m.pk[i] = PRODUCER.other;
    m.issue[i] = m.issueTaken[i] = i === m.synSlot ? slot : 0;
    if (i !== m.synSlot) m.flags[i] = FLAG.free;
    m.opId[i] = -1;
  }
  for (let k = 0; k <= vmMax; k++) m.wVm[m.synVm + k] = k;
  for (let k = 0; k <= lgkmMax; k++) m.wLgkm[m.synLgkm + k] = k;
  for (let k = 0; k <= expMax; k++) m.wExp[m.synExp + k] = k;
  m.useUnit = useU.done();
  m.useRole = useR.done();
  m.defUnit = defU.done();
  return m;
}

/**
 * A typed array written by push, starting as a copy of `start` (no copy through a JS array: the
 * largest kernel's register lists run to hundreds of thousands of entries per emitted model).
 */
class GrowingArray<A extends Int16Array | Uint8Array> {
  private a: A;
  length: number;

  constructor(private readonly make: new (n: number) => A, start?: A) {
    this.length = start?.length ?? 0;
    this.a = new make(Math.max(1024, this.length + (this.length >>> 2)));
    if (start) this.a.set(start);
  }

  push(v: number): void {
    if (this.length === this.a.length) {
      const b = new this.make(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.length++] = v;
  }

  /** The values pushed, in an array of their length. */
  done(): A {
    return this.a.slice(0, this.length) as A;
  }
}

/**
 * The model's arrays of one entry per position (instructions, then the synthetic waits) that
 * buildCycleModel writes per instruction: what an instruction copies from one resolved alike
 * (besides mfmaLat's five entries and the use and def lists).
 */
const ROW_KEYS = ['pipeA', 'occA', 'pipeB', 'occB', 'issue', 'issueTaken', 'lat', 'cc', 'pk', 'flags', 'opId', 'passes',
  'mfmaDstFirst', 'mfmaDstCount', 'mfmaCFirst', 'mfmaCCount', 'vmInc', 'lgkmInc', 'expInc', 'lgkmClass', 'wVm', 'wLgkm', 'wExp'] as const;

type RowArrays = (Uint8Array | Int8Array | Int32Array | Float64Array)[];

function perInstructionArrays(m: CycleModel): RowArrays {
  return ROW_KEYS.map((k) => m[k]);
}

/**
 * Where two models of one kernel differ as the engine reads them (undefined when they do not):
 * every entry of each position's arrays, the register lists each position reads and writes (its
 * units and roles, wherever its range lies), which positions share an opcode id (its value is
 * only compared), and the scalars.
 */
export function modelDifference(a: CycleModel, b: CycleModel): string | undefined {
  if (a.n !== b.n) return `n: ${a.n} and ${b.n}`;
  const total = a.pipeA.length;
  if (b.pipeA.length !== total) return `positions: ${total} and ${b.pipeA.length}`;
  const idOf = new Map<number, number>();
  for (const key of ROW_KEYS) {
    const xa = a[key];
    const xb = b[key];
    for (let i = 0; i < total; i++) {
      const x = xa[i]!;
      const y = xb[i]!;
      if (key === 'opId') {
        // the same partition of the positions: a's id x always goes with b's id y
        const was = idOf.get(x);
        if (was === undefined) idOf.set(x, y); else if (was !== y) return `opId of position ${i}`;
      } else if (!Object.is(x, y)) return `${key} of position ${i}: ${x} and ${y}`;
    }
  }
  if (new Set(idOf.values()).size !== idOf.size) return 'opId: two ids of one model are one of the other';
  for (let i = 0; i < total * 5 && i < a.mfmaLat.length; i++) if (!Object.is(a.mfmaLat[i], b.mfmaLat[i])) return `mfmaLat[${i}]`;
  for (let i = 0; i < total; i++) {
    const ua = a.useEnd[i]! - a.useStart[i]!;
    if (ua !== b.useEnd[i]! - b.useStart[i]!) return `uses of position ${i}`;
    for (let k = 0; k < ua; k++) {
      if (a.useUnit[a.useStart[i]! + k] !== b.useUnit[b.useStart[i]! + k] || a.useRole[a.useStart[i]! + k] !== b.useRole[b.useStart[i]! + k]) return `uses of position ${i}`;
    }
    const da = a.defEnd[i]! - a.defStart[i]!;
    if (da !== b.defEnd[i]! - b.defStart[i]!) return `defs of position ${i}`;
    for (let k = 0; k < da; k++) if (a.defUnit[a.defStart[i]! + k] !== b.defUnit[b.defStart[i]! + k]) return `defs of position ${i}`;
  }
  for (const k of ['synVm', 'synLgkm', 'synExp', 'synSlot', 'slot', 'valuToMfma', 'sgprToSalu', 'sgprToVmem', 'sgprToValu', 'transToValu', 'dotLat',
    'afterWrite', 'vmMax', 'lgkmMax', 'expMax'] as const) if (!Object.is(a[k], b[k])) return `${k}: ${a[k]} and ${b[k]}`;
  return undefined;
}

/**
 * Position i of model m (`mine`: its perInstructionArrays) takes position j of model `src`
 * (`theirs`: its arrays; m itself, or a model whose register lists m's begin with): every entry,
 * the MFMA latencies and the register list ranges. Indexed loops: this runs a few times per
 * process, mostly before it is optimized, where a for-of makes an iterator result per step.
 */
function copyRow(m: CycleModel, mine: RowArrays, i: number, src: CycleModel, theirs: RowArrays, j: number): void {
  for (let q = 0; q < mine.length; q++) mine[q]![i] = theirs[q]![j]!;
  for (let k = 0; k < 5; k++) m.mfmaLat[i * 5 + k] = src.mfmaLat[j * 5 + k]!;
  m.useStart[i] = src.useStart[j]!;
  m.useEnd[i] = src.useEnd[j]!;
  m.defStart[i] = src.defStart[j]!;
  m.defEnd[i] = src.defEnd[j]!;
}

function unitInRange(u: number): void {
  if (!(u >= 0 && u < UNIT_COUNT)) throw new Error(`cycle model: register unit ${u} out of range`);
}

/** What the timing of one instruction is decided from. */
interface TimingInput {
  m: CycleModel;
  p: CycleParams;
  r: ResolvedInsn;
  t: KernelTraits;
  i: number;
  nopMax: number;
  control: string;
  base: string;
  slot: number;
  /** Memory operation (MEM_OP), data dwords, and whether it counts on a waitcnt counter. */
  op: number;
  dw: number;
  counts: boolean;
  v: (k: ParamKey) => number;
}

/** The timing of one instruction (see CycleModel); memLat < 0: not a memory completion. */
interface Timing {
  pipeA: number; occA: number; pipeB: number; occB: number;
  issue: number; issueTaken: number; lat: number;
  cc: number; pk: number; flags: number;
  memLat: number;
}

/** One instruction of the kernel into the model's arrays: its class's timing, then the calibration. */
function classify(m: CycleModel, p: CycleParams, r: ResolvedInsn, t: KernelTraits, i: number, nopMax: number, control: string): void {
  const slot = m.slot;
  const x: TimingInput = {
    m, p, r, t, i, nopMax, control, base: r.insn.base, slot, op: t.memOp[i]!, dw: t.memDwords[i]!,
    counts: t.vmInc[i]! + t.lgkmInc[i]! + t.expInc[i]! > 0, v: (k) => num(p, k),
  };
  // by default a scalar ALU operation
  const tm: Timing = {
    pipeA: PIPE.salu, occA: slot, pipeB: PIPE.none, occB: 0, issue: slot, issueTaken: slot, lat: x.v('salu'),
    cc: CONSUMER.scalar, pk: PRODUCER.salu, flags: 0, memLat: -1,
  };
  CLASS_TIMING[t.cls[i]!]?.(x, tm);
  addTwoDwordPenalty(x, tm);
  calibrate(x, tm);
  store(x, tm);
}

const CLASS_TIMING: Partial<Record<number, (x: TimingInput, tm: Timing) => void>> = {
  [CLS.salu]: (x, tm) => {
    if (/_saveexec_b64$/.test(x.base)) { tm.issue = x.v('salu.long'); tm.lat = x.v('salu.long'); }
    tm.issueTaken = tm.issue;
  },
  [CLS.other]: (x, tm) => {
    const { v, base } = x;
    if (x.op !== MEM_OP.none) {
      const scalar = isMemSpace(x.t, x.i, 'scalar');
      tm.pipeA = scalar ? PIPE.smem : PIPE.vmem;
      if (!scalar) tm.cc = CONSUMER.vmem;
      if (x.counts) { tm.pk = PRODUCER.mem; tm.memLat = scalar ? v('smem.latency') : v('vmem.latency'); }
    }
    if (base.startsWith('s_setreg')) { tm.issue = v('salu.long'); tm.lat = v('salu.long'); } else if (base === 's_sleep') {
      const imm = x.r.insn.operands[0];
      const k = imm && imm.kind === 'imm' ? imm.value & 0x7f : 1;
      tm.issue = Math.max(x.slot, k * v('sleep.unit'));
    }
    tm.issueTaken = tm.issue;
  },
  [CLS.smem]: (x, tm) => {
    const { v, dw } = x;
    tm.pipeA = PIPE.smem;
    tm.occA = x.op === MEM_OP.none || dw <= 4 ? v('smem.issue.x4') : dw <= 8 ? v('smem.issue.x8') : v('smem.issue.x16');
    tm.memLat = v('smem.latency');
    tm.pk = PRODUCER.mem;
  },
  [CLS.valu]: (x, tm) => valuTiming(x, tm),
  [CLS.nop]: (x, tm) => {
    if (x.base === 's_nop') {
      tm.pipeA = PIPE.none; tm.occA = 0; tm.cc = CONSUMER.none; tm.pk = PRODUCER.other;
      const op = x.r.insn.operands[0];
      tm.issue = tm.issueTaken = x.slot * (op && op.kind === 'imm' && op.value >= 0 ? nopWaitStates(op.value, x.nopMax) : 1);
      tm.lat = 0;
      return;
    }
    if (x.base === 'ds_nop') {
      tm.pipeA = PIPE.lds; tm.occA = x.v('ds.other'); tm.cc = CONSUMER.none; tm.pk = PRODUCER.other; tm.lat = 0;
      return;
    }
    valuTiming(x, tm);
    tm.cc = CONSUMER.none; tm.pk = PRODUCER.other; tm.lat = 0;
  },
  [CLS.mfma]: (x, tm) => mfmaTiming(x, tm),
  [CLS.vmem]: (x, tm) => vmemTiming(x, tm),
  [CLS.flat]: (x, tm) => vmemTiming(x, tm),
  [CLS.ds]: (x, tm) => {
    const { v, op, dw } = x;
    tm.pipeA = PIPE.lds; tm.cc = CONSUMER.ds; tm.pk = PRODUCER.mem;
    if (op === MEM_OP.load) tm.occA = dw <= 1 ? v('ds.read.x1') : dw <= 2 ? v('ds.read.x2') : v('ds.read.x4');
    else if (op === MEM_OP.store) tm.occA = dw <= 1 ? v('ds.write.x1') : dw <= 2 ? v('ds.write.x2') : dw <= 3 ? v('ds.write.x3') : v('ds.write.x4');
    else if ((op === MEM_OP.atomic || op === MEM_OP['atomic-rtn']) && isMemSpace(x.t, x.i, 'lds') && !/^ds_(append|consume)$/.test(x.base)) tm.occA = dw <= 1 ? v('ds.atomic.x1') : v('ds.atomic.x2');
    else tm.occA = v('ds.other');
    tm.memLat = Math.max(v('ds.latency'), tm.occA + x.slot);
  },
  [CLS.export]: (x, tm) => {
    tm.pipeA = PIPE.vmem; tm.cc = CONSUMER.vmem; tm.pk = PRODUCER.mem; tm.memLat = x.v('export.latency');
  },
  [CLS.branch]: (x, tm) => {
    if (x.control === 'none') return; // s_getpc_b64: a scalar ALU op
    tm.pipeA = PIPE.branch; tm.occA = x.slot; tm.cc = CONSUMER.branch; tm.pk = PRODUCER.other; tm.lat = x.slot;
    tm.issue = x.v('branch');
    tm.issueTaken = x.v('branch.taken');
    tm.flags |= x.control === 'cjump' ? FLAG.cjump : FLAG.jump;
  },
  [CLS.barrier]: (x, tm) => {
    tm.pipeA = PIPE.none; tm.occA = 0; tm.cc = CONSUMER.none; tm.pk = PRODUCER.other; tm.lat = 0;
    tm.issue = tm.issueTaken = x.v('barrier'); tm.flags |= FLAG.barrier;
  },
  [CLS.waitcnt]: (x, tm) => {
    tm.pipeA = PIPE.none; tm.occA = 0; tm.cc = CONSUMER.none; tm.pk = PRODUCER.other; tm.lat = 0;
    const { m, i } = x;
    const op = x.r.insn.operands[0];
    if (op && op.kind === 'waitcnt') {
      if (op.vmcnt !== undefined && op.vmcnt < m.target.counters.vmcnt.value) m.wVm[i] = op.vmcnt;
      if (op.lgkmcnt !== undefined && op.lgkmcnt < m.target.counters.lgkmcnt.value) m.wLgkm[i] = op.lgkmcnt;
      if (op.expcnt !== undefined && op.expcnt < m.target.counters.expcnt.value) m.wExp[i] = op.expcnt;
    }
  },
  [CLS.message]: (x, tm) => {
    tm.pipeA = PIPE.salu; tm.cc = CONSUMER.scalar; tm.pk = PRODUCER.mem; tm.memLat = x.v('message.latency');
    if (x.control === 'trap') { tm.flags |= FLAG.jump; tm.issueTaken = x.v('branch.taken'); }
  },
  [CLS.endpgm]: (_x, tm) => {
    tm.pipeA = PIPE.none; tm.occA = 0; tm.cc = CONSUMER.none; tm.pk = PRODUCER.other; tm.lat = 0; tm.flags |= FLAG.end;
  },
};

/** A vector ALU operation: its rate by latency class. */
function valuTiming(x: TimingInput, tm: Timing): void {
  const { v, t, i } = x;
  tm.pipeA = PIPE.valu; tm.cc = CONSUMER.valu; tm.pk = PRODUCER.valu;
  switch (t.latency[i]) {
    case LATENCY.valu_trans:
      tm.occA = v('valu.trans'); tm.lat = v('valu.trans.latency'); tm.flags |= FLAG.trans; break;
    case LATENCY.valu_quarter:
      tm.occA = tm.lat = v('valu.quarter'); break;
    case LATENCY.valu_64:
      tm.occA = tm.lat = v('valu.64'); break;
    case LATENCY.valu_dp: {
      const f = v('valu.dpFactor') * (DP_SLOW.test(x.base) ? v('valu.dp.slow') : v('valu.dp.fast'));
      tm.occA = tm.lat = Math.max(v('valu'), f);
      if (has(t, i, TRAIT.trans)) { tm.occA = Math.max(tm.occA, v('valu.trans')); tm.lat = Math.max(tm.lat, v('valu.trans.latency')); tm.flags |= FLAG.trans; }
      break;
    }
    case LATENCY.valu_dot:
      tm.occA = tm.lat = v('valu.dot'); tm.flags |= FLAG.dot; break;
    default:
      tm.occA = tm.lat = v('valu');
  }
}

/**
 * An MFMA: the VALU port for its issue, the matrix pipe for its passes, and the latency each
 * kind of consumer sees (the dependency wait states of the target's table, in slots).
 */
function mfmaTiming(x: TimingInput, tm: Timing): void {
  const { m, t, i, v, slot } = x;
  tm.pipeA = PIPE.valu; tm.occA = v('mfma.issue');
  const passes = isMfmaKind(t, i, 'none') ? 8 : t.passes[i]!;
  tm.pipeB = PIPE.matrix; tm.occB = passes * v('mfma.pass');
  tm.cc = CONSUMER.mfma; tm.pk = PRODUCER.mfma;
  m.passes[i] = passes;
  const kind: MfmaTableKind = isMfmaKind(t, i, 'sgemm') ? 'sgemm' : isMfmaKind(t, i, 'dgemm') ? 'dgemm' : 'xdl';
  const pn = passIndexValue(passes);
  // wait states are counted in slots beyond the producer's own slot
  const ws = (c: MfmaConsumer) => slot * (1 + num(x.p, mfmaParamKey(kind, c, pn)));
  // the matrix pipe is busy for the passes anyway: a consumer never sees the result before
  // the producer's passes end (SrcC chains forward at that point)
  m.mfmaLat[i * 5 + MFMA_SLOT.same] = Math.max(ws('srcCSame'), tm.occB);
  m.mfmaLat[i * 5 + MFMA_SLOT.srcC] = Math.max(ws('srcC'), tm.occB);
  m.mfmaLat[i * 5 + MFMA_SLOT.srcAB] = Math.max(ws('srcAB'), tm.occB);
  m.mfmaLat[i * 5 + MFMA_SLOT.valu] = Math.max(ws('valu'), tm.occB);
  m.mfmaLat[i * 5 + MFMA_SLOT.mem] = Math.max(ws('mem'), tm.occB);
  tm.lat = m.mfmaLat[i * 5 + MFMA_SLOT.valu]!;
}

/** A VMEM or FLAT access: the memory pipe by operation and width, completion by kind. */
function vmemTiming(x: TimingInput, tm: Timing): void {
  const { v, op, dw, t, i } = x;
  tm.pipeA = PIPE.vmem; tm.cc = CONSUMER.vmem; tm.pk = PRODUCER.mem;
  if (op === MEM_OP.none || op === MEM_OP.load || op === MEM_OP['load-lds']) tm.occA = op === MEM_OP.none || dw <= 1 ? v('vmem.issue.load.x1') : dw <= 2 ? v('vmem.issue.load.x2') : v('vmem.issue.load.x4');
  else if (op === MEM_OP.store || op === MEM_OP['store-lds']) tm.occA = v('vmem.issue.store');
  else if (op === MEM_OP.atomic || op === MEM_OP['atomic-rtn']) tm.occA = /cmpswap/.test(x.base) ? v('vmem.issue.cmpswap') : v('vmem.issue.atomic');
  else tm.occA = x.slot;
  if (isClass(t, i, 'flat')) tm.memLat = v('flat.latency');
  else tm.memLat = op === MEM_OP.store || op === MEM_OP.atomic ? v('vmem.store.latency') : v('vmem.latency');
  if (issues(t, i, EVENT['vmem-load'])) tm.flags |= FLAG.vmemLoad;
}

/** 2-dword instructions (an extra issue penalty, 0 by default). */
function addTwoDwordPenalty(x: TimingInput, tm: Timing): void {
  const twoDword = x.v('issue.twoDword');
  const cls = x.t.cls[x.i];
  if (twoDword > 0 && cls !== CLS.nop && cls !== CLS.waitcnt && instructionDwords(x.r) >= 2) {
    tm.issue += twoDword;
    tm.issueTaken += twoDword;
  }
}

/** Per-instruction calibration (`insn.<mnemonic>.<field>` of a latency file). */
function calibrate(x: TimingInput, tm: Timing): void {
  const o = x.p.insn[x.base];
  if (!o) return;
  if (o.occupancy) { if (tm.pipeB === PIPE.matrix) tm.occB = o.occupancy.value; else tm.occA = o.occupancy.value; }
  if (o.issue) { tm.issue = o.issue.value; if (!(tm.flags & (FLAG.cjump | FLAG.jump))) tm.issueTaken = tm.issue; }
  if (o.latency) {
    if (tm.pk === PRODUCER.mfma) {
      for (let k = MFMA_SLOT.srcC; k <= MFMA_SLOT.mem; k++) x.m.mfmaLat[x.i * 5 + k] = o.latency.value;
      tm.lat = o.latency.value;
    } else if (tm.memLat >= 0) tm.memLat = o.latency.value;
    else tm.lat = o.latency.value;
  }
}

/** The timing into the model's arrays, with the counter effects of a memory operation. */
function store(x: TimingInput, tm: Timing): void {
  const { m, t, i } = x;
  m.pipeA[i] = tm.pipeA; m.occA[i] = tm.occA; m.pipeB[i] = tm.pipeB; m.occB[i] = tm.occB;
  m.issue[i] = tm.issue; m.issueTaken[i] = tm.issueTaken;
  m.cc[i] = tm.cc; m.pk[i] = tm.pk; m.flags[i] = tm.flags;
  if (tm.memLat < 0) { m.lat[i] = tm.lat; return; }
  m.lat[i] = tm.memLat;
  m.vmInc[i] = t.vmInc[i]!;
  m.lgkmInc[i] = t.lgkmInc[i]!;
  m.expInc[i] = t.expInc[i]!;
  m.lgkmClass[i] = issues(t, i, EVENT.smem) ? OP_CLASS.smem : issues(t, i, EVENT.flat) ? OP_CLASS.lgkmFlat
    : issues(t, i, EVENT.gds) ? OP_CLASS.gds : issues(t, i, EVENT.message) ? OP_CLASS.message : OP_CLASS.lds;
  if (!x.counts) {
    // a memory-class instruction that counts nothing (cache invalidates): its effects are not
    // waited on; treat it as an ALU op of its pipe
    m.pk[i] = PRODUCER.other;
    m.lat[i] = x.slot;
  }
}

const ONE_DWORD = new Set(['sop1', 'sop2', 'sopk', 'sopc', 'sopp', 'vop1', 'vop2', 'vopc']);
const INLINE_FLOATS = new Set([0.5, -0.5, 1, -1, 2, -2, 4, -4, 0.15915494309189535]);

/** Encoded size in dwords: 1 for SOP and VOP1/2/C (e32) without a literal, else 2 (or 3 with a literal). */
export function instructionDwords(r: ResolvedInsn): number {
  const enc = r.info.encoding;
  const variant = r.info.variant;
  const one = ONE_DWORD.has(enc) && (variant === undefined || variant === 'e32');
  let literal = false;
  if (enc !== 'sopk' && enc !== 'sopp') {
    for (const op of r.insn.operands) {
      if (op.kind !== 'imm') continue;
      const x = op.value;
      const inline = op.float ? INLINE_FLOATS.has(x) || x === 0 : Number.isInteger(x) && x >= -16 && x <= 64;
      if (!inline) { literal = true; break; }
    }
  }
  return (one ? 1 : 2) + (literal ? 1 : 0);
}

/** True when `mnemonic` names an instruction of the catalogue (for calibration keys). */
export function knownMnemonic(mnemonic: string): boolean {
  return lookupInsn(mnemonic) !== undefined;
}
