/**
 * Per-kernel state of the hazard checker: its view of every instruction (computed once), the
 * wait states each instruction counts for, the padding already decided before each instruction,
 * and the backward walk through the CFG that every rule uses.
 *
 * Wait-state counting (LLVM GCNHazardRecognizer::getWaitStatesSince and SIInstrInfo::getNumWaitStates):
 *   - every instruction issued counts 1 — VALU, SALU, SMEM, VMEM, DS, s_waitcnt, s_branch,
 *     v_nop, everything; no instruction counts 0 in assembly text
 *     (LLVM's 0-count meta instructions and inline-asm markers do not exist in assembly);
 *   - `s_nop N` counts (N & 15)+1 (the hardware reads SIMM16[3:0]: targets/common.ts nopWaitStates),
 *     crediting up to target.maxNopImmCounted (15; LLVM's 4-bit reading,
 *     SIInstrInfo::getNumWaitStates). The MI200 ISA text says s_nop
 *     repeats at most eight times, so N > 7 relies on LLVM's reading (targets' NOP_IMM_NOTE);
 *     the fixer emits chunks of at most target.maxNopImm;
 *   - labels, directives and comments are not instructions and count 0.
 * ISA caveat: the CDNA3/CDNA4 MFMA tables (CDNA3 ISA §7.5 Table 37, CDNA4 ISA §7.6 Table 38) speak of "NOPs or independent VALU
 * instructions"; like LLVM we count every instruction.
 *
 * Distance: the wait states strictly between producer and consumer, the minimum over every CFG
 * path (across branches and loop back-edges, into every predecessor, as
 * GCNHazardRecognizer::getWaitStatesSince walks them). Padding that
 * the engine has decided to insert before an instruction k (`pad[k]`) lies between k-1 and k
 * on every path into k, so walking past k adds ws(k) + pad(k).
 */
import type { Instruction } from '../asm/ast.js';
import type { KernelContext } from '../analysis/types.js';
import { OP_CONST, StoredInstruction, type InsnStore } from '../asm/store.js';
import type { OperandRole, ResolvedInsn, ResolvedOperand } from '../isa/types.js';
import { EXEC_HI, EXEC_LO, M0, VCC_HI, VCC_LO, VGPR_BASE, AGPR_BASE, rangeName } from '../asm/registers.js';
import type { Target } from '../isa/target.js';
import { unitsAsWritten } from '../isa/names.js';
import { firstAlike, operandsOnce, storeIndexOf } from '../isa/resolved-store.js';
import { has, isClass, isMfmaKind, traitsOf, traitsOfOne, TRAIT, type KernelTraits } from '../isa/traits.js';
import { isDeepStrictEqual } from 'node:util';
import { FastPathMismatch } from '../errors.js';
import { generationOf, type Generation } from './types.js';
import { isWaitOrNop, nopImmediate } from '../asm/program.js';
import { nopWaitStates } from '../targets/common.js';

/** A register operand as a half-open unit range [lo, hi). */
export interface OpRange {
  role: OperandRole;
  /** Position in the instruction's operand list. */
  index: number;
  def: boolean;
  use: boolean;
  lo: number;
  hi: number;
}

/** Everything the rules ask about one instruction, computed once per kernel. */
export interface HazardInsn {
  ri: ResolvedInsn;
  insn: Instruction;
  /** Canonical mnemonic (catalogue name, without _e32/_e64/_sdwa/_dpp). */
  name: string;
  /** Wait states this instruction counts for when walked past. */
  ws: number;
  /** Vector ALU in LLVM's sense: VOP1/2/3/3P/C incl. MFMA, v_accvgpr_*, readlane, DOT (not LDS-DMA). */
  valu: boolean;
  mfma: boolean;
  /** XDL on this target: XDL or SMFMAC (on gfx908/gfx90a every non-DGEMM MFMA). */
  xdl: boolean;
  sgemm: boolean;
  dgemm: boolean;
  /** v_mfma_f64_16x16x4 (DGEMM 16x16) / v_mfma_f64_4x4x4 (DGEMM 4x4). */
  dgemm16: boolean;
  dgemm4: boolean;
  smfmac: boolean;
  passes: number;
  accRead: boolean;
  accWrite: boolean;
  /** MFMA or v_accvgpr_read/write/mov (LLVM's isMAI). */
  mai: boolean;
  dot: boolean;
  trans: boolean;
  /** v_cmpx_* (any encoding): writes EXEC. */
  cmpx: boolean;
  salu: boolean;
  smem: boolean;
  /** buffer/global/scratch/flat (FLAT included), incl. LDS-DMA. */
  vmem: boolean;
  flat: boolean;
  ds: boolean;
  exp: boolean;
  /** buffer/global/scratch load to LDS or buffer_store_lds_dword (M0 gives the LDS address). */
  ldsDma: boolean;
  dpp: boolean;
  sdwa: boolean;
  /** Stores (incl. atomics and LDS-DMA, which write LDS). */
  mayStore: boolean;
  /** Register operands as ranges. */
  ops: readonly OpRange[];
  /** All units written / read, explicit and implicit. */
  defs: readonly number[];
  uses: readonly number[];
  /** Scalar-space units written (SGPR, VCC, EXEC, M0, TTMP), explicit and implicit. */
  sdefs: readonly number[];
  writesExec: boolean;
  writesVcc: boolean;
  writesM0: boolean;
  /** Any VGPR/AGPR written. */
  writesVector: boolean;
  /** Names of constant operands (src_vccz, lds_direct ...). */
  consts: readonly string[];
  /**
   * gfx942+: the destination of a VALU that writes its result at a shifted bit position
   * (see dstSelOperand), else undefined.
   */
  dstSel?: OpRange;
  /** A store whose data is wider than 64 bits (or cmpswap_x2): its data range and soffset kind. */
  wideStore?: WideStore;
}

export interface WideStore {
  lo: number;
  hi: number;
  /** MUBUF/MTBUF with an SGPR soffset. */
  sgprOffset: boolean;
  /** MUBUF/MTBUF (else FLAT/global/scratch). */
  buffer: boolean;
}

/** The data range of a wide store (TRAIT.wideStore): its vdata operand (the last run of a split tuple). */
function wideStoreOf(t: KernelTraits, i: number, ops: readonly OpRange[]): WideStore | undefined {
  if (!has(t, i, TRAIT.wideStore)) return undefined;
  let data: OpRange | undefined;
  for (const o of ops) if (o.role === 'vdata') data = o;
  return { lo: data!.lo, hi: data!.hi, sgprOffset: has(t, i, TRAIT.sgprOffset), buffer: has(t, i, TRAIT.bufferEncoding) };
}

const EMPTY: readonly number[] = Object.freeze([]);
const NO_STRINGS: readonly string[] = Object.freeze([]);
const EMPTY_RANGES: readonly OpRange[] = Object.freeze([]);

function isVectorUnit(u: number): boolean { return u >= VGPR_BASE; }

/** The ranges of one operand (shared: operand records are interned, and OpRanges are never changed). */
const RANGES_OF = new WeakMap<ResolvedOperand, readonly OpRange[]>();

function operandRanges(o: ResolvedOperand): readonly OpRange[] {
  let r = RANGES_OF.get(o);
  if (r === undefined) {
    const out: OpRange[] = [];
    const n = o.units.length;
    // one range per run of consecutive units (a tuple across a unified file's accum_offset has two)
    for (let s = 0, p = 1; p <= n; p++) {
      if (p < n && o.units[p] === o.units[p - 1]! + 1) continue;
      out.push({ role: o.role, index: o.index, def: o.def, use: o.use, lo: o.units[s]!, hi: o.units[p - 1]! + 1 });
      s = p;
    }
    r = out;
    RANGES_OF.set(o, r);
  }
  return r;
}

/** Scratch list of hazardInsn: the scalar defs are built there and kept as an exact-size copy. */
const UNIT_SCRATCH: number[] = [];

/**
 * An exact-size copy of a scratch list, which is emptied (an array grown by push keeps room for
 * 17 elements, and these lists are kept, one per instruction).
 */
function keep<T>(scratch: T[]): T[] {
  const out = scratch.slice();
  scratch.length = 0;
  return out;
}

/**
 * The range lists of one kernel's instructions, each kept once: a node per list prefix, found
 * from its parent by the next range (ranges are shared objects, see operandRanges). The
 * instructions of a kernel repeat the same few thousand operand lists.
 */
export class RangeLists {
  private readonly root: RangeNode = { list: undefined, next: undefined };
  private readonly path: OpRange[] = [];

  /** The kept list of instruction ri's register operand ranges, in operand order. */
  of(ri: ResolvedInsn): readonly OpRange[] {
    const ops = operandsOnce(ri);
    const path = this.path;
    let node = this.root;
    for (let k = 0; k < ops.length; k++) {
      const o = ops[k]!;
      if (o.units.length === 0) continue;
      const r = operandRanges(o);
      for (let j = 0; j < r.length; j++) {
        const x = r[j]!;
        path.push(x);
        const next = (node.next ??= new Map());
        let child = next.get(x);
        if (child === undefined) { child = { list: undefined, next: undefined }; next.set(x, child); }
        node = child;
      }
    }
    const list = (node.list ??= path.length === 0 ? EMPTY_RANGES : path.slice());
    path.length = 0;
    return list;
  }
}

interface RangeNode {
  list: readonly OpRange[] | undefined;
  next: Map<OpRange, RangeNode> | undefined;
}

/** Instruction i of a store has a constant operand (src_vccz, lds_direct ...). */
function hasConstOperand(s: InsnStore, i: number): boolean {
  for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) if (s.oKind[k] === OP_CONST) return true;
  return false;
}


// the converts whose op_sel[3:2] select the destination byte (LLVM getFPDstSelType FP8: its Type 3
// op_sel[2], Type 2 op_sel[3]): the stochastic-rounding FP8/BF8 ones and gfx950's packed FP4 ones
// (llc 22 pads v_cvt_scalef32_pk_fp4_f32 op_sel:[0,0,1,0] and _f16 op_sel:[0,0,0,1] before a reader)
const BYTE_SEL_CVT = /^v_cvt_(scalef32_)?sr_(fp8|bf8)_|^v_cvt_scalef32_pk_fp4_/;
const FP4_SR = /^v_cvt_scalef32_sr_pk_fp4_/;

/**
 * The destination of a VALU that writes its result at a shifted bit position
 * (LLVM GCNHazardRecognizer::checkVALUHazards; CDNA3 Table 11 Case 20):
 *   - SDWA with dst_sel other than DWORD;
 *   - VOP3 (not VOP3P) whose op_sel sets the destination bit: op_sel[k] with k = the number of
 *     source operands (op_sel lists one bit per source, then the destination);
 *   - FP8/BF8 stochastic-rounding and gfx950's packed FP4 converts with a byte select (op_sel[2] or op_sel[3]);
 *   - on gfx950 (cvt_scale forwarding), every v_cvt_scalef32_sr_pk_fp4_* whatever its op_sel.
 * Undefined for anything else, and before gfx940 (no such hazard).
 */
export function dstSelOperand(ri: ResolvedInsn, ops: readonly OpRange[], target: Target): OpRange | undefined {
  if (!target.has('gfx940-insts')) return undefined;
  const cls = ri.info.cls;
  if (cls !== 'valu') return undefined;
  let vdst: OpRange | undefined;
  for (const o of ops) if (o.role === 'vdst' && o.def && o.lo >= VGPR_BASE) { vdst = o; break; }
  if (!vdst) return undefined;
  // an instruction of a store without modifiers has neither dst_sel nor op_sel (nor their objects to build)
  const insn = ri.insn;
  const name = ri.info.desc.name;
  if (insn instanceof StoredInstruction && insn.store.modBegin[insn.index] === insn.store.modBegin[insn.index + 1]
    && !(target.has('gfx950-insts') && FP4_SR.test(name))) return undefined;
  const mods = insn.modifiers;
  if (ri.info.variant === 'sdwa') {
    for (const m of mods) if (m.name === 'dst_sel' && m.value !== undefined && m.value.toUpperCase() !== 'DWORD') return vdst;
  }
  if (target.has('gfx950-insts') && FP4_SR.test(name)) return vdst;
  if (ri.info.encoding === 'vop3p') return undefined;
  let os: number[] | undefined;
  for (const m of mods) if (m.name === 'op_sel') os = m.list;
  if (!os) return undefined;
  let nsrc = 0;
  for (const o of operandsOnce(ri)) if (o.role === 'src0' || o.role === 'src1' || o.role === 'src2') nsrc++;
  if (os[nsrc]) return vdst;
  if (BYTE_SEL_CVT.test(name) && (os[2] || os[3])) return vdst;
  return undefined;
}

/** The hazard checker's view of instruction i of a kernel, from its traits (isa/traits.ts) and its operands. */
export function hazardInsn(ri: ResolvedInsn, target: Target, t: KernelTraits, i: number, lists: RangeLists = new RangeLists()): HazardInsn {
  const name = ri.info.desc.name;
  const insn = ri.insn;
  const mfma = isClass(t, i, 'mfma');
  const defs = ri.defs;
  let scalar = 0;
  let writesExec = false;
  let writesVcc = false;
  let writesM0 = false;
  let writesVector = false;
  for (let k = 0; k < defs.length; k++) {
    const u = defs[k]!;
    if (u < 128) {
      scalar++;
      UNIT_SCRATCH.push(u);
      if (u === EXEC_LO || u === EXEC_HI) writesExec = true;
      else if (u === VCC_LO || u === VCC_HI) writesVcc = true;
      else if (u === M0) writesM0 = true;
    } else if (isVectorUnit(u)) writesVector = true;
  }
  // every unit written is scalar: the list of defs is the list of scalar defs
  const sdefs: readonly number[] = scalar === 0 ? EMPTY : scalar === defs.length ? (UNIT_SCRATCH.length = 0, defs) : keep(UNIT_SCRATCH);
  let consts: string[] | undefined;
  if (!(insn instanceof StoredInstruction) || hasConstOperand(insn.store, insn.index)) {
    for (const o of insn.operands) if (o.kind === 'const') (consts ??= []).push(o.name);
  }
  const ws = name === 's_nop' ? nopWaitStates(nopImmediate(insn), target.maxNopImmCounted.value) : 1;
  const ops = lists.of(ri);
  const smfmac = isMfmaKind(t, i, 'smfmac');
  let bits = 0;
  if (isClass(t, i, 'valu') || mfma) bits |= HB.valu;
  if (mfma) bits |= HB.mfma;
  if (isMfmaKind(t, i, 'xdl') || smfmac) bits |= HB.xdl;
  if (isMfmaKind(t, i, 'sgemm')) bits |= HB.sgemm;
  if (isMfmaKind(t, i, 'dgemm')) bits |= HB.dgemm;
  if (has(t, i, TRAIT.dgemm16)) bits |= HB.dgemm16;
  if (has(t, i, TRAIT.dgemm4)) bits |= HB.dgemm4;
  if (smfmac) bits |= HB.smfmac;
  if (has(t, i, TRAIT.accRead)) bits |= HB.accRead;
  if (has(t, i, TRAIT.accWrite)) bits |= HB.accWrite;
  if (mfma || (t.flags[i]! & (TRAIT.accRead | TRAIT.accWrite | TRAIT.accMov)) !== 0) bits |= HB.mai;
  if (has(t, i, TRAIT.dot)) bits |= HB.dot;
  if (has(t, i, TRAIT.trans)) bits |= HB.trans;
  if (has(t, i, TRAIT.cmpx)) bits |= HB.cmpx;
  if (isClass(t, i, 'salu')) bits |= HB.salu;
  if (isClass(t, i, 'smem')) bits |= HB.smem;
  if (isClass(t, i, 'vmem') || isClass(t, i, 'flat')) bits |= HB.vmem;
  if (has(t, i, TRAIT.flatEncoding)) bits |= HB.flat;
  if (isClass(t, i, 'ds')) bits |= HB.ds;
  if (isClass(t, i, 'export')) bits |= HB.exp;
  if (has(t, i, TRAIT.ldsDma)) bits |= HB.ldsDma;
  if (has(t, i, TRAIT.dpp)) bits |= HB.dpp;
  if (has(t, i, TRAIT.sdwa)) bits |= HB.sdwa;
  if (has(t, i, TRAIT.mayStore)) bits |= HB.mayStore;
  if (writesExec) bits |= HB.writesExec;
  if (writesVcc) bits |= HB.writesVcc;
  if (writesM0) bits |= HB.writesM0;
  if (writesVector) bits |= HB.writesVector;
  const dstSel = dstSelOperand(ri, ops, target);
  const wideStore = wideStoreOf(t, i, ops);
  const rare = consts || dstSel || wideStore ? { consts: consts ?? NO_STRINGS, dstSel, wideStore } : undefined;
  return new HazardView(ri, name, ws, t.passes[i]!, bits, ops, sdefs, rare);
}

/** The boolean facts of a HazardView, as bits. */
const HB = {
  valu: 1 << 0, mfma: 1 << 1, xdl: 1 << 2, sgemm: 1 << 3, dgemm: 1 << 4, dgemm16: 1 << 5, dgemm4: 1 << 6, smfmac: 1 << 7,
  accRead: 1 << 8, accWrite: 1 << 9, mai: 1 << 10, dot: 1 << 11, trans: 1 << 12, cmpx: 1 << 13, salu: 1 << 14, smem: 1 << 15,
  vmem: 1 << 16, flat: 1 << 17, ds: 1 << 18, exp: 1 << 19, ldsDma: 1 << 20, dpp: 1 << 21, sdwa: 1 << 22, mayStore: 1 << 23,
  writesExec: 1 << 24, writesVcc: 1 << 25, writesM0: 1 << 26, writesVector: 1 << 27,
} as const;

/** The names of every field of a HazardInsn (what a test compares). */
export const HAZARD_INSN_FIELDS: readonly (keyof HazardInsn)[] = [
  'name', 'ws', 'passes', 'ops', 'defs', 'uses', 'sdefs', 'consts', 'dstSel', 'wideStore', ...(Object.keys(HB) as (keyof typeof HB)[]),
];

/** The facts few instructions have (constant operands, a shifted destination, a wide store). */
interface RareFacts {
  consts: readonly string[];
  dstSel: OpRange | undefined;
  wideStore: WideStore | undefined;
}

/**
 * HazardInsn with its boolean facts packed in one number, what its resolution holds read from it,
 * and the rare facts in one object (one small object per instruction, kept as long as the kernel).
 */
class HazardView implements HazardInsn {
  constructor(
    readonly ri: ResolvedInsn,
    readonly name: string,
    readonly ws: number,
    readonly passes: number,
    private readonly bits: number,
    readonly ops: readonly OpRange[],
    readonly sdefs: readonly number[],
    private readonly rare: RareFacts | undefined,
  ) {}

  /** Write the facts, without the instruction, as carried instruction p (carryFacts). */
  carryInto(c: CarriedArrays, p: number): void {
    c.name[p] = this.name;
    c.ws[p] = this.ws;
    c.passes[p] = this.passes;
    c.bits[p] = this.bits;
    c.ops[p] = this.ops;
    c.sdefs[p] = this.sdefs === this.ri.defs ? null : this.sdefs;
    c.rare[p] = this.rare;
  }

  /** These facts for `ri`, an instruction resolved as this one's was (ResolvedStore.alike). */
  alike(ri: ResolvedInsn): HazardView {
    return new HazardView(ri, this.name, this.ws, this.passes, this.bits, this.ops, this.sdefs === this.ri.defs ? ri.defs : this.sdefs, this.rare);
  }

  get insn(): Instruction { return this.ri.insn; }
  get uses(): readonly number[] { return this.ri.uses; }
  get consts(): readonly string[] { return this.rare === undefined ? NO_STRINGS : this.rare.consts; }
  get dstSel(): OpRange | undefined { return this.rare?.dstSel; }
  get wideStore(): WideStore | undefined { return this.rare?.wideStore; }
  get defs(): readonly number[] { return this.ri.defs; }
  get valu(): boolean { return (this.bits & HB.valu) !== 0; }
  get mfma(): boolean { return (this.bits & HB.mfma) !== 0; }
  get xdl(): boolean { return (this.bits & HB.xdl) !== 0; }
  get sgemm(): boolean { return (this.bits & HB.sgemm) !== 0; }
  get dgemm(): boolean { return (this.bits & HB.dgemm) !== 0; }
  get dgemm16(): boolean { return (this.bits & HB.dgemm16) !== 0; }
  get dgemm4(): boolean { return (this.bits & HB.dgemm4) !== 0; }
  get smfmac(): boolean { return (this.bits & HB.smfmac) !== 0; }
  get accRead(): boolean { return (this.bits & HB.accRead) !== 0; }
  get accWrite(): boolean { return (this.bits & HB.accWrite) !== 0; }
  get mai(): boolean { return (this.bits & HB.mai) !== 0; }
  get dot(): boolean { return (this.bits & HB.dot) !== 0; }
  get trans(): boolean { return (this.bits & HB.trans) !== 0; }
  get cmpx(): boolean { return (this.bits & HB.cmpx) !== 0; }
  get salu(): boolean { return (this.bits & HB.salu) !== 0; }
  get smem(): boolean { return (this.bits & HB.smem) !== 0; }
  get vmem(): boolean { return (this.bits & HB.vmem) !== 0; }
  get flat(): boolean { return (this.bits & HB.flat) !== 0; }
  get ds(): boolean { return (this.bits & HB.ds) !== 0; }
  get exp(): boolean { return (this.bits & HB.exp) !== 0; }
  get ldsDma(): boolean { return (this.bits & HB.ldsDma) !== 0; }
  get dpp(): boolean { return (this.bits & HB.dpp) !== 0; }
  get sdwa(): boolean { return (this.bits & HB.sdwa) !== 0; }
  get mayStore(): boolean { return (this.bits & HB.mayStore) !== 0; }
  get writesExec(): boolean { return (this.bits & HB.writesExec) !== 0; }
  get writesVcc(): boolean { return (this.bits & HB.writesVcc) !== 0; }
  get writesM0(): boolean { return (this.bits & HB.writesM0) !== 0; }
  get writesVector(): boolean { return (this.bits & HB.writesVector) !== 0; }
}

/**
 * Whether every effect of `c` is confined to the lanes EXEC enables, so that with EXEC = 0 it
 * reads and writes no lane's registers and accesses no memory: a VALU other than MFMA (whose
 * EXEC behaviour the ISA text does not settle) and the lane-crossing moves (v_readlane,
 * v_readfirstlane, v_writelane, v_permlane*, which address a lane whatever EXEC holds), writing
 * no scalar register (a VOPC writes its whole mask, inactive lanes as 0); or a VMEM, FLAT or DS
 * instruction other than GWS. EXEC is the mask of the lanes a vector instruction executes for;
 * with EXEC = 0 the hardware still issues it, and it changes nothing. LLVM relies on the same
 * fact when it removes an s_cbranch_execz over a few instructions and lets them run with EXEC = 0
 * (SIPreEmitPeephole::mustRetainExeczBranch), keeping the branch only over instructions with
 * effects when EXEC is empty (SIInstrInfo::hasUnwantedEffectsWhenEXECEmpty: v_readlane and
 * v_readfirstlane results, mode and GWS changes, messages, exports).
 */
export function laneMasked(c: HazardInsn): boolean {
  if (c.mfma || c.exp || c.sdefs.length > 0) return false;
  const n = c.name;
  if (c.valu) return !(isRwLane(n) || n.startsWith('v_permlane'));
  return c.vmem || (c.ds && !n.startsWith('ds_gws'));
}

/** v_readlane, v_readfirstlane, v_writelane: a lane chosen by an operand (or the first active one), read or written. */
export function isRwLane(n: string): boolean {
  return n === 'v_readlane_b32' || n === 'v_readfirstlane_b32' || n === 'v_writelane_b32';
}

/** Do [a, b) and [c, d) intersect? */
export function overlaps(a: number, b: number, c: number, d: number): boolean {
  return a < d && c < b;
}

/** Printable name of units (a list of possibly non-contiguous units). */
export function unitsText(units: readonly number[]): string {
  if (units.length === 0) return '';
  const s = [...new Set(units)].sort((x, y) => x - y);
  const parts: string[] = [];
  let i = 0;
  while (i < s.length) {
    let j = i;
    const file = (u: number) => (u >= AGPR_BASE ? 2 : u >= VGPR_BASE ? 1 : 0);
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1 && file(s[j + 1]!) === file(s[i]!)) j++;
    parts.push(rangeName(s[i]!, j - i + 1));
    i = j + 1;
  }
  return parts.join(', ');
}

/** Units [lo, hi) named as instruction `f` writes them (v130, not a2, when it wrote v130 on a unified file). */
export function regText(f: HazardInsn, lo: number, hi: number): string {
  const units: number[] = [];
  for (let u = lo; u < hi; u++) units.push(u);
  return unitsAsWritten(f.ri, units, unitsText);
}

/** Called for each instruction the walk reaches; returning true ends the path there. */
export type Visit = (producer: number, distance: number) => boolean | void;

const FACTS_CACHE = new WeakMap<KernelContext, HazardInsn[]>();

/** The hazard checker's view of every instruction of a kernel (computed once per KernelContext). */
export function hazardInsns(ctx: KernelContext): HazardInsn[] {
  let f = FACTS_CACHE.get(ctx);
  if (!f) {
    const t = ctx.target;
    const insns = ctx.insns;
    const traits = traitsOf(insns);
    f = new Array<HazardInsn>(insns.length);
    const lists = new RangeLists();
    // an instruction resolved as an earlier one was has its facts (a function of the resolution)
    const first = new Map<number, HazardView>();
    for (let i = 0; i < insns.length; i++) {
      const ri = insns[i]!;
      const a = firstAlike(ri);
      const same = a >= 0 ? first.get(a) : undefined;
      const v = same ? same.alike(ri) : hazardInsn(ri, t, traits, i, lists);
      f[i] = v;
      if (a < 0 && v instanceof HazardView && storeIndexOf(ri) >= 0) first.set(storeIndexOf(ri), v);
    }
    FACTS_CACHE.set(ctx, f);
  }
  return f;
}

/**
 * The facts of a kernel's instructions other than s_waitcnt and s_nop, in order, detached from
 * the program they were computed on (they keep no instruction of it), for the same instructions
 * in a program where only s_waitcnt / s_nop statements were inserted, replaced or removed
 * (hazardInsnsCarried). A fact is a function of the instruction's resolved form and the target
 * (its traits are the instruction's own: isa/traits.ts buildTraits); the caller vouches that each
 * carried instruction resolves as it did.
 */
export interface CarriedFacts {
  /** Per carried instruction, in order: its facts (HazardView's fields). */
  readonly name: readonly string[];
  readonly ws: Int32Array;
  readonly passes: Int32Array;
  readonly bits: Int32Array;
  readonly ops: readonly (readonly OpRange[])[];
  /** null: the instruction's defs (every unit it writes is scalar). */
  readonly sdefs: readonly (readonly number[] | null)[];
  readonly rare: readonly (RareFacts | undefined)[];
}

/** CarriedFacts as they are filled. */
interface CarriedArrays {
  name: string[]; ws: Int32Array; passes: Int32Array; bits: Int32Array;
  ops: (readonly OpRange[])[]; sdefs: (readonly number[] | null)[]; rare: (RareFacts | undefined)[];
}

/** The kept facts of `ctx` (hazardInsns), detached; undefined when none are kept. */
export function carryFacts(ctx: KernelContext): CarriedFacts | undefined {
  const f = FACTS_CACHE.get(ctx);
  if (f === undefined) return undefined;
  let n = 0;
  for (let i = 0; i < f.length; i++) {
    const v = f[i]!;
    if (isWaitOrNop(v.ri.insn)) continue;
    if (!(v instanceof HazardView)) return undefined;
    n++;
  }
  const c: CarriedArrays = {
    name: new Array<string>(n), ws: new Int32Array(n), passes: new Int32Array(n), bits: new Int32Array(n),
    ops: new Array<readonly OpRange[]>(n), sdefs: new Array<readonly number[] | null>(n), rare: new Array<RareFacts | undefined>(n),
  };
  let p = 0;
  for (let i = 0; i < f.length; i++) { const v = f[i]!; if (!isWaitOrNop(v.ri.insn)) (v as HazardView).carryInto(c, p++); }
  return c;
}

/**
 * Keep as `ctx`'s facts (what hazardInsns gives) the carried facts for its instructions other
 * than s_waitcnt and s_nop, matched in order and by name, and facts computed for its s_waitcnt
 * and s_nop instructions. False, and nothing kept, when `ctx` has facts already or the
 * instructions do not match the carried ones. With `check`, every fact is also computed as
 * hazardInsns computes it and FastPathMismatch is thrown where they differ.
 */
export function hazardInsnsCarried(ctx: KernelContext, carried: CarriedFacts, check: boolean): boolean {
  if (FACTS_CACHE.has(ctx)) return false;
  const insns = ctx.insns;
  const n = insns.length;
  const out = new Array<HazardInsn>(n);
  const lists = new RangeLists();
  const c = carried;
  const rows = c.name.length;
  let p = 0;
  for (let j = 0; j < n; j++) {
    const ri = insns[j]!;
    if (isWaitOrNop(ri.insn)) { out[j] = hazardInsn(ri, ctx.target, traitsOfOne(ri), 0, lists); continue; }
    if (p === rows || c.name[p] !== ri.info.desc.name) return false;
    out[j] = new HazardView(ri, c.name[p]!, c.ws[p]!, c.passes[p]!, c.bits[p]!, c.ops[p]!, c.sdefs[p] ?? ri.defs, c.rare[p]);
    p++;
  }
  if (p !== rows) return false;
  if (check) expectFacts(ctx, out, 'carried');
  FACTS_CACHE.set(ctx, out);
  return true;
}

/**
 * Keep as `ctx`'s facts, for each instruction j that `toFrom` maps to an instruction of `from`
 * (toFrom[j] >= 0: the same statement, moved within its region, so resolved as it was; the caller
 * vouches for it), the facts `from` keeps for that instruction, and facts computed for the rest
 * (s_waitcnt, s_nop, whatever the map leaves out). False, and nothing kept, when `ctx` has facts
 * already, `from` has none kept, or a mapped instruction is named otherwise. With `check`, every
 * fact is also computed as hazardInsns computes it and FastPathMismatch is thrown where they differ.
 */
export function hazardInsnsAligned(ctx: KernelContext, from: KernelContext, toFrom: Int32Array, check: boolean): boolean {
  if (FACTS_CACHE.has(ctx)) return false;
  const src = FACTS_CACHE.get(from);
  if (src === undefined) return false;
  const insns = ctx.insns;
  const n = insns.length;
  const out = new Array<HazardInsn>(n);
  const lists = new RangeLists();
  for (let j = 0; j < n; j++) {
    const ri = insns[j]!;
    const i = toFrom[j]!;
    const v = i >= 0 ? src[i] : undefined;
    if (v instanceof HazardView) {
      if (v.name !== ri.info.desc.name) return false;
      out[j] = v.alike(ri);
    } else out[j] = hazardInsn(ri, ctx.target, traitsOfOne(ri), 0, lists);
  }
  if (check) expectFacts(ctx, out, 'aligned');
  FACTS_CACHE.set(ctx, out);
  return true;
}

/** Throw FastPathMismatch where the facts `kept` for `ctx` (`how`: carried or aligned) differ from those computed again. */
function expectFacts(ctx: KernelContext, kept: readonly HazardInsn[], how: string): void {
  const insns = ctx.insns;
  const t = traitsOf(insns);
  const fresh = new RangeLists();
  for (let j = 0; j < insns.length; j++) {
    const a = kept[j]!;
    const b = hazardInsn(insns[j]!, ctx.target, t, j, fresh);
    if (a.ri !== b.ri) throw new FastPathMismatch(`fast path check: the ${how} hazard facts of ${ctx.kernel.name} name another instruction at ${j}`);
    for (const k of HAZARD_INSN_FIELDS) {
      if (!isDeepStrictEqual(a[k], b[k])) {
        throw new FastPathMismatch(`fast path check: the ${how} hazard fact '${k}' of ${ctx.kernel.name} instruction ${j} (line ${insns[j]!.insn.loc.line}) differs from the one computed again`);
      }
    }
  }
}

/** A memoized producer list (HazardContext.producers): valid while `epoch` is the context's. */
interface MemoEntry {
  epoch: number;
  limit: number;
  list: readonly number[];
}

/**
 * The checker's view of one kernel. `pad[k]` is extra wait states assumed inserted right before
 * instruction k (zero while checking; filled in order by computeNops).
 */
export class HazardContext {
  readonly ctx: KernelContext;
  readonly target: Target;
  readonly gen: Generation;
  readonly f: HazardInsn[];
  readonly pad: Int32Array;
  /** VGPR units referenced anywhere in the kernel (for the shift64 rule). */
  private usedVgprs?: Uint8Array;
  // walk scratch
  private readonly best: Int32Array;
  private readonly stamp: Uint32Array;
  private epoch = 0;
  private readonly stack: number[] = [];

  /**
   * Answer `producers` by walking only, without the per-kernel prefix counts that let it skip a
   * walk (for a small context whose instructions change in place: see resetContent).
   */
  readonly walkOnly: boolean;

  constructor(ctx: KernelContext, insns?: HazardInsn[], opts: { walkOnly?: boolean } = {}) {
    this.ctx = ctx;
    this.walkOnly = opts.walkOnly ?? false;
    this.target = ctx.target;
    this.gen = generationOf(ctx.target);
    this.f = insns ?? hazardInsns(ctx);
    this.pad = new Int32Array(this.f.length);
    const nb = ctx.cfg.blocks.length;
    this.best = new Int32Array(nb);
    this.stamp = new Uint32Array(nb);
  }

  /** Wait states counted when walking past instruction k (its own count plus padding before it). */
  weight(k: number): number {
    return this.f[k]!.ws + this.pad[k]!;
  }

  /**
   * Walk backwards from `consumer` through the CFG, calling `visit(j, d)` for every instruction
   * j whose distance d (wait states strictly between j and the consumer, minimum over paths) is
   * below `limit`. An instruction may be visited more than once, each time with a smaller d
   * (when a shorter path reaches it). Predecessors are followed across branches and loop
   * back-edges; the kernel entry ends the walk, and so does `visit` returning true for that path.
   */
  walk(consumer: number, limit: number, visit: Visit): void {
    if (limit <= 0) return;
    const cfg = this.ctx.cfg;
    const blocks = cfg.blocks;
    const f = this.f;
    const pad = this.pad;
    let epoch = ++this.epoch;
    if (epoch === 0xffffffff) { this.stamp.fill(0); this.epoch = epoch = 1; }
    const stack = this.stack;
    stack.length = 0;
    // first segment: from consumer-1 down to the start of the consumer's block
    const b0 = cfg.blockOf[consumer]!;
    // padding already placed right before the consumer counts too (0 while it is being decided)
    stack.push(b0, consumer, pad[consumer]!);
    let first = true;
    while (stack.length > 0) {
      let d = stack.pop()!;
      const end = stack.pop()!;
      const b = stack.pop()!;
      const own = first;
      if (!first) {
        // entering block b from its end: skip if already entered with a distance <= d
        if (this.stamp[b] === epoch && this.best[b]! <= d) continue;
        this.stamp[b] = epoch;
        this.best[b] = d;
      }
      first = false;
      const blk = blocks[b]!;
      let j = end - 1;
      for (; j >= blk.start; j--) {
        if (d >= limit || visit(j, d) === true) break;
        d += f[j]!.ws + pad[j]!;
      }
      if (j < blk.start && d < limit) {
        // the consumer's own block entered with EXEC = 0 along some edges: a lane-masked consumer
        // is not reached that way (see execZeroEdge)
        let masked: boolean | undefined;
        for (const p of blk.preds) {
          if (own && this.execZeroEdge(p, b) && (masked ??= this.laneMaskedFromStart(consumer, blk.start))) continue;
          stack.push(p, blocks[p]!.end, d);
        }
      }
    }
  }

  /**
   * Whether `consumer` acts on its lanes only (laneMasked) and nothing between the start of its
   * block and it writes EXEC: then on an edge that enters the block with EXEC = 0 it reads and
   * writes no lane's registers and touches no memory, and no producer before that edge can
   * interfere with it.
   */
  private laneMaskedFromStart(consumer: number, start: number): boolean {
    const f = this.f;
    if (!laneMasked(f[consumer]!)) return false;
    for (let k = start; k < consumer; k++) if (f[k]!.writesExec) return false;
    return true;
  }

  /**
   * Whether the edge from block `p` into block `b` is taken only with EXEC = 0: the branch of an
   * `s_cbranch_execz` that ends `p` (b is not also its fall-through), or the fall-through of an
   * `s_cbranch_execnz` whose branch goes elsewhere.
   */
  private execZeroEdge(p: number, b: number): boolean {
    const blocks = this.ctx.cfg.blocks;
    const pb = blocks[p]!;
    if (pb.end <= pb.start) return false;
    const name = this.f[pb.end - 1]!.name;
    const fall = pb.end === blocks[b]!.start;
    if (name === 's_cbranch_execz') return !fall;
    return name === 's_cbranch_execnz' && fall && pb.succs.length === 2;
  }

  /**
   * The wait states between `producer` and `consumer` (minimum over paths, as `walk`) counting
   * only the paths on which no instruction accepted by `ends` lies between them; undefined when
   * no such path is shorter than `limit`.
   */
  distanceAvoiding(consumer: number, producer: number, limit: number, ends: (k: number) => boolean): number | undefined {
    let found: number | undefined;
    this.walk(consumer, limit, (j, d) => {
      if (j !== producer) return ends(j);
      if (found === undefined || d < found) found = d;
      return true;
    });
    return found;
  }

  /** True when some instruction of the kernel names VGPR index n (in any operand or tuple). */
  vgprUsed(n: number): boolean {
    if (!this.usedVgprs) {
      const used = new Uint8Array(512);
      for (const x of this.f) {
        for (const o of x.ops) {
          if (o.lo >= VGPR_BASE && o.lo < AGPR_BASE) for (let u = o.lo; u < o.hi; u++) used[u - VGPR_BASE] = 1;
        }
      }
      this.usedVgprs = used;
    }
    return n >= 0 && n < 512 && this.usedVgprs[n] === 1;
  }

  // One-consumer memo of producer lists, shared by the rules of a family (the MFMA producers of
  // the consumer being checked are searched once, not once per rule).
  private memoConsumer = -1;
  /**
   * The memo's generation: an entry counts only when its `epoch` is the current one. Moving to
   * another consumer or invalidating starts a new generation, so the entries are reused rather
   * than cleared and allocated again.
   */
  private memoEpoch = 1;
  private readonly memo = new Map<string, MemoEntry>();
  /** Per producer key: number of matching instructions in [0, i). */
  private readonly counts = new Map<string, Int32Array>();
  /** cumWs[i] = sum of ws over [0, i) (padding excluded: a lower bound of distances). */
  private cumWs?: Float64Array;

  private countsFor(key: string, pred: (f: HazardInsn) => boolean): Int32Array {
    let c = this.counts.get(key);
    if (!c) {
      const n = this.f.length;
      c = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) c[i + 1] = c[i]! + (pred(this.f[i]!) ? 1 : 0);
      this.counts.set(key, c);
    }
    return c;
  }

  private readonly present = new Map<string, boolean>();

  /** True when the kernel has at least one instruction accepted by pred (key names pred). */
  has(key: string, pred: (f: HazardInsn) => boolean): boolean {
    let p = this.present.get(key);
    if (p === undefined) {
      const c = this.counts.get(key);
      if (c) p = c[c.length - 1]! > 0;
      else {
        p = false;
        const f = this.f;
        for (let i = 0; i < f.length; i++) if (pred(f[i]!)) { p = true; break; }
      }
      this.present.set(key, p);
    }
    return p;
  }

  /**
   * Instructions accepted by `pred` within `limit` wait states of `consumer`, as a flat list
   * [j0, d0, j1, d1, ...] (each j with its smallest distance). `key` names `pred` (the same key
   * must always mean the same predicate). Memoized per consumer; a consumer whose own block
   * holds no such producer within reach, and whose walk cannot leave the block, is answered
   * without walking.
   */
  producers(consumer: number, key: string, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    if (this.memoConsumer !== consumer) { this.memoEpoch++; this.memoConsumer = consumer; }
    const hit = this.memo.get(key);
    if (hit !== undefined && hit.epoch === this.memoEpoch && hit.limit >= limit) return hit.list;
    if (!this.walkOnly) {
      const skip = this.nothingWithin(consumer, key, limit, pred);
      if (skip) return EMPTY;
    }
    const list = this.collect(consumer, limit, pred);
    if (hit === undefined) this.memo.set(key, { epoch: this.memoEpoch, limit, list });
    else { hit.epoch = this.memoEpoch; hit.limit = limit; hit.list = list; }
    return list;
  }

  /**
   * The walk of `producers`: [j0, d0, j1, d1, ...] in the order the walk first reaches each j,
   * with its smallest distance; a shared empty list when there is none (no allocation).
   */
  protected collect(consumer: number, limit: number, pred: (f: HazardInsn) => boolean): readonly number[] {
    let list: number[] | undefined;
    const f = this.f;
    this.walk(consumer, limit, (j, d) => {
      if (!pred(f[j]!)) return;
      if (list === undefined) { list = [j, d]; return; }
      for (let k = 0; k < list.length; k += 2) {
        if (list[k] === j) { if (d < list[k + 1]!) list[k + 1] = d; return; }
      }
      list.push(j, d);
    });
    return list ?? EMPTY;
  }

  /** True when the prefix counts show no instruction accepted by `pred` within `limit` of `consumer` (no walk needed). */
  private nothingWithin(consumer: number, key: string, limit: number, pred: (f: HazardInsn) => boolean): boolean {
    if (this.present.get(key) === false) return true;
    const cnt = this.countsFor(key, pred);
    if (cnt[cnt.length - 1] === 0) return true;
    let cum = this.cumWs;
    if (!cum) {
      cum = new Float64Array(this.f.length + 1);
      for (let i = 0; i < this.f.length; i++) cum[i + 1] = cum[i]! + this.f[i]!.ws;
      this.cumWs = cum;
    }
    const blk = this.ctx.cfg.blocks[this.ctx.cfg.blockOf[consumer]!]!;
    const s = blk.start;
    if (cum[consumer]! - cum[s]! >= limit) {
      const lo = Math.max(s, consumer - limit);
      if (cnt[consumer]! - cnt[lo]! === 0) return true;
    }
    return false;
  }

  /**
   * Forget everything learnt from the instructions (memoized walks, presence, the VGPRs used):
   * call after changing `f` in place. Only for a `walkOnly` context (the prefix counts are not
   * recomputed).
   */
  resetContent(): void {
    if (!this.walkOnly) throw new Error('internal: resetContent on a context with prefix counts');
    this.invalidate();
    // Map.clear allocates a new table even for an empty map: a window reset per pair asks no `has`
    if (this.present.size !== 0) this.present.clear();
    this.usedVgprs = undefined;
  }

  /** Forget memoized walks (call after changing pad[]). */
  invalidate(): void {
    this.memoConsumer = -1;
    this.memoEpoch++;
  }
}
