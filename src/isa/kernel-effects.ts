/**
 * What an instruction reads and writes beyond its own text: effects that depend on the kernel
 * around it. resolveProgram applies them after resolving every instruction on its own.
 *
 * 1. The unified register file (layout.ts): on gfx90a+ a VGPR at or above accum_offset is the
 *    AGPR unit it aliases, so v(accum_offset+k) and a_k are one unit for every analysis.
 *
 * 2. VGPR indexing mode (GFX9; LLVM emits it for dynamically indexed vectors,
 *    SIInstrInfo::expandPostRAPseudo of V_INDIRECT_REG_READ/WRITE_GPR_IDX). Between
 *    `s_set_gpr_idx_on sN, gpr_idx(...)` and `s_set_gpr_idx_off`, MODE.gpr_idx_en (MODE bit 27,
 *    MI200 ISA "Mode Register Fields") is set and every VALU operand that the mode bits select
 *    (bit 0 src0, 1 src1, 2 src2, 3 dst: LLVM AMDGPU syntax reference, "imask") names the
 *    register at its own index plus the index in M0[7:0]. `s_set_gpr_idx_on` writes the index
 *    (SSRC0[7:0]) and the mode bits (M0[15:12]) into M0, `s_set_gpr_idx_idx` the index,
 *    `s_set_gpr_idx_mode` the mode bits, `s_set_gpr_idx_off` clears the enable; an s_setreg of
 *    MODE whose field covers bit 27 sets or clears it too (the index and mode then come from
 *    whatever M0 holds). Inside the mode, an indexed operand v_k (n registers wide) with the
 *    index in [lo, hi] reads, or may write, v(k+lo) .. v(k+hi+n-1), and the instruction reads
 *    M0 (LLVM's MIR lists the vector as implicit operands and M0 as an implicit use of
 *    V_MOV_B32_indirect_read/write). A write that may land on one of several registers keeps
 *    the others: it both reads and writes the range. A source beyond the registers the kernel
 *    has reads v0 instead (MI200 ISA, "Registers": out-of-range source GPR reads return GPR 0);
 *    a destination beyond them is dropped.
 *
 *    The index bounds [lo, hi], from the most precise source available:
 *      - a `conductor: gpr-idx LO..HI` (or `conductor: gpr-idx N`) comment on the line of the
 *        instruction that sets the index (s_set_gpr_idx_on, s_set_gpr_idx_idx, an s_setreg that
 *        turns the mode on): the user states the range;
 *      - the value of the index SGPR, followed along the block: `s_mov_b32 sN, imm` (exact),
 *        `s_and_b32 sN, x, imm` ([0, imm]), `s_bfe_u32 sN, x, imm` ([0, 2^width - 1]),
 *        `s_min_u32 sN, x, imm`, copies (`s_mov_b32 sN, sM`); LLVM masks the index this way
 *        (`v[i & 15]`);
 *      - at a loop's top, the values of its counter (loopCounters: LLVM at -O1 indexes by it);
 *      - otherwise [0, 255]: an indexed operand reaches the rest of the kernel's registers.
 *    The mode is tracked along the straight-line code of each block and joined at labels over
 *    the branches that reach them (an indirect jump reaches every label); when it is on at a
 *    label, the index and mode bits there are unknown ([0, 255], all four operands).
 */
import type { Diagnostic, Instruction, KernelSymbol, Program } from '../asm/ast.js';
import { OPCODES } from '../asm/store.js';
import { statementAt } from '../asm/program.js';
import type { Target } from './target.js';
import { controlKind } from './control.js';
import { constantAdd } from './scalar-add.js';
import { HWREG_MODE, hwregField, hwregId } from './hwreg.js';
import { kernelLayout, vgprUnitIn, type RegisterLayout } from './layout.js';
import { AGPR_BASE, M0, SCC, VGPR_BASE, type RegUnit } from '../asm/registers.js';
import { ACC_DEF, ACC_USE, roleId, type ResolvedStore } from './resolved-store.js';
import type { OperandRole, ResolvedInsn, ResolvedOperand } from './types.js';

/** MODE.gpr_idx_en (MI200 ISA, Table 4 "Mode Register Fields"). */
export const MODE_GPR_IDX_EN_BIT = 27;

/** Operand roles each gpr_idx mode bit selects (VOP3P-MAI: srcA/srcB/srcC are src0/1/2). */
const ROLE_BIT: Partial<Record<OperandRole, number>> = { src0: 1, srcA: 1, src1: 2, srcB: 2, src2: 4, srcC: 4, vdst: 8 };

const ALL_MODES = 0xf;

/** What is known of M0's index (M0[7:0]) and mode bits (M0[15:12]). */
interface M0Fact { lo: number; hi: number; modes: number }
const M0_UNKNOWN: M0Fact = Object.freeze({ lo: 0, hi: 255, modes: ALL_MODES });

/** A range stated by a comment, or undefined. */
export interface StatedRange { lo: number; hi: number }

const DIRECTIVE = /\bconductor:\s*gpr-idx\b([^\n]*)/i;

/**
 * The `conductor: gpr-idx LO..HI` (or `N`) comment on the source line of an instruction (or of
 * the macro body line it was expanded from). `range` undefined and `error` set when the
 * comment is there but malformed; both undefined when there is none.
 */
export function statedIndexRange(program: Program, insn: Instruction): { range?: StatedRange; error?: string } {
  const st = statementAt(program, insn.stmt);
  if (!st) return {};
  const lines = [program.lines[st.lineIndex]?.text];
  if (st.expansion) lines.push(program.lines[st.expansion.macroIndex]?.text);
  for (const text of lines) {
    const m = text === undefined ? null : DIRECTIVE.exec(text);
    if (!m) continue;
    const r = /^\s*(\d+)\s*(?:\.\.\s*(\d+))?\s*(?:$|\*\/|;|\/\/)/.exec(m[1]!);
    const lo = r ? Number(r[1]) : NaN;
    const hi = r ? Number(r[2] ?? r[1]) : NaN;
    if (!(lo >= 0 && lo <= hi && hi <= 255)) {
      return { error: `ignored 'conductor: gpr-idx${m[1]!.replace(/\s*(\*\/|;|\/\/).*$/, '')}': write the index range as LO..HI with 0 <= LO <= HI <= 255` };
    }
    return { range: { lo, hi } };
  }
  return {};
}

/** Mode bits of a gpr_idx(...) or immediate operand; all four when it cannot be read. */
export function gprIdxModeBits(insn: Instruction): number {
  for (const o of insn.operands) {
    if (o.kind === 'func' && o.name === 'gpr_idx') {
      let m = 0;
      for (const a of o.args) {
        const bit = { SRC0: 1, SRC1: 2, SRC2: 4, DST: 8 }[a.trim().toUpperCase()];
        if (bit === undefined) return ALL_MODES;
        m |= bit;
      }
      return m;
    }
    if (o.kind === 'imm' && Number.isInteger(o.value)) return o.value & ALL_MODES;
  }
  return ALL_MODES;
}

/** Low byte of an immediate operand, or undefined. */
function immByte(insn: Instruction, i: number): number | undefined {
  const o = insn.operands[i];
  return o && o.kind === 'imm' && !o.float && Number.isInteger(o.value) ? o.value & 0xff : undefined;
}

/** Unit of a single 32-bit scalar register operand, or undefined. */
function scalarUnit(insn: Instruction, i: number): RegUnit | undefined {
  const o = insn.operands[i];
  return o && o.kind === 'reg' && o.count === 1 && o.file !== 'v' && o.file !== 'a' ? o.first : undefined;
}

/** Interval [lo, hi] of the low byte of an SGPR, from the instructions of the current block. */
type ValueBounds = Map<RegUnit, readonly [number, number]>;

function valueOf(bounds: ValueBounds, insn: Instruction, i: number): readonly [number, number] {
  const v = immByte(insn, i);
  if (v !== undefined) return [v, v];
  const u = scalarUnit(insn, i);
  return (u !== undefined ? bounds.get(u) : undefined) ?? [0, 255];
}

/** The low-byte interval an SALU instruction leaves in its destination, or undefined when unknown. */
function salValue(bounds: ValueBounds, insn: Instruction): readonly [number, number] | undefined {
  switch (insn.base) {
    case 's_mov_b32': case 's_movk_i32':
      return valueOf(bounds, insn, 1);
    case 's_and_b32': {
      // (x & y) <= min(x, y) as unsigned bytes
      const a = valueOf(bounds, insn, 1);
      const b = valueOf(bounds, insn, 2);
      return [0, Math.min(a[1], b[1])];
    }
    case 's_bfe_u32': {
      const f = insn.operands[2];
      if (!f || f.kind !== 'imm' || !Number.isInteger(f.value)) return undefined;
      const width = (f.value >> 16) & 0x7f;
      return width < 8 ? [0, (1 << width) - 1] : undefined;
    }
    case 's_min_u32': {
      // min(x, c) <= c: with 0 <= c < 256 the whole value, so its low byte, is at most c
      for (const o of [insn.operands[1], insn.operands[2]]) {
        if (o && o.kind === 'imm' && !o.float && Number.isInteger(o.value) && o.value >= 0 && o.value < 256) return [0, o.value];
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** An SGPR's values at the top of a loop (loopCounters). */
interface Counter { unit: RegUnit; lo: number; hi: number }

/**
 * The loop counters at the top of each loop whose values there all lie in [0, 255] (LLVM at -O1
 * indexes a register vector by its loop counter: `s_mov_b32 s2, 0` ... `.L: s_set_gpr_idx_on s2`
 * ... `s_add_i32 s2, s2, 1; s_cmp_eq_u32 s2, 16; s_cbranch_scc0 .L`: s2 is 0..15 at .L). A loop
 * here is a label h reached only by fall-through and by one `s_cbranch_scc0/1` back to it at the
 * end of straight-line code (no other label, no other jump between), no data naming the label;
 * its counter an SGPR set by `s_mov_b32 sN, c0` in the straight-line code that falls into h,
 * written once in the loop, by `s_add_i32/u32 sN, sN, c` (c > 0), and compared after that with a
 * constant B by the last SCC write before the branch. The loop goes on while the new value is
 * below B (`lt`, `le`, or `ge`/`gt` falling through) or differs from B (`eq`/`lg`, reached from c0
 * in steps of c); the values at h are c0 and the new values the loop went on with.
 */
function loopCounters(program: Program, kernel: KernelSymbol, insns: readonly ResolvedInsn[], first: number, count: number,
  labelsBefore: ReadonlyMap<number, string[]>): Map<number, Counter[]> {
  const out = new Map<number, Counter[]>();
  if (labelsBefore.size === 0) return out;
  // who names each label: instructions (by index) and data
  const named = new Map<string, number[]>();
  for (let i = first; i < first + count; i++) {
    for (const o of insns[i]!.insn.operands) if (o.kind === 'expr') for (const sym of o.symbols) { const l = named.get(sym); if (l) l.push(i); else named.set(sym, [i]); }
  }
  const data: string[] = [];
  for (let st = kernel.start; st < kernel.end; st++) {
    const x = statementAt(program, st)!;
    if (x.kind !== 'label' && !x.insn && x.args) data.push(x.args);
  }
  for (const [h, labels] of labelsBefore) {
    if (h === first || labels.some((l) => data.some((d) => d.includes(l)))) continue;
    const refs = labels.flatMap((l) => named.get(l) ?? []);
    if (refs.length !== 1) continue;
    const r = refs[0]!;
    const branch = insns[r]!.insn.base;
    if (r < h || (branch !== 's_cbranch_scc0' && branch !== 's_cbranch_scc1')) continue;
    // straight-line from h to the branch, fallen into from the code before h
    let straight = true;
    for (let j = h; j < r && straight; j++) {
      const kind = controlKind(insns[j]!.insn.base);
      straight = !labelsBefore.has(j + 1) && (kind === 'none' || kind === 'cjump');
    }
    const into = controlKind(insns[h - 1]!.insn.base);
    if (!straight || !(into === 'none' || into === 'cjump' || into === 'call')) continue;
    // the last SCC write before the branch: a compare of an SGPR with a constant
    let q = r - 1;
    while (q >= h && !insns[q]!.defs.includes(SCC)) q--;
    if (q < h) continue;
    const cmp = /^s_cmp_(eq|lg|lt|le|gt|ge)_(u32|i32)$/.exec(insns[q]!.insn.base);
    const reg = insns[q]!.insn.operands[0];
    const unit = reg && reg.kind === 'reg' && reg.file === 's' ? scalarUnit(insns[q]!.insn, 0) : undefined;
    const bound = insns[q]!.insn.operands[1];
    if (!cmp || unit === undefined || !bound || bound.kind !== 'imm' || bound.float || !Number.isInteger(bound.value)) continue;
    // the constant as the compare reads it: -1 is 2^32 - 1 to an unsigned compare
    const B = cmp[2] === 'u32' ? bound.value >>> 0 : bound.value | 0;
    // written once in the loop, before the compare, by an add of a positive constant
    const writers: number[] = [];
    for (let j = h; j <= r; j++) if (insns[j]!.defs.includes(unit)) writers.push(j);
    if (writers.length !== 1 || writers[0]! > q) continue;
    const step = counterStep(insns[writers[0]!]!.insn, unit);
    if (step === undefined) continue;
    // its value falling into h
    let c0: number | undefined;
    for (let j = h - 1; j >= first; j--) {
      const x = insns[j]!;
      if (x.defs.includes(unit)) {
        const v = x.insn.operands[1];
        if (x.insn.base === 's_mov_b32' && v && v.kind === 'imm' && !v.float && Number.isInteger(v.value)) c0 = v.value;
        break;
      }
      // another path joins, or a call may change it
      const kind = controlKind(x.insn.base);
      if (labelsBefore.has(j) || (kind !== 'none' && kind !== 'cjump')) break;
    }
    if (c0 === undefined || c0 < 0) continue;
    // the loop goes on while the new value is below `below` (or, for eq/lg, until it equals B)
    const onTrue = branch === 's_cbranch_scc1';
    const op = cmp[1]!;
    let hi: number | undefined;
    if ((op === 'eq' && !onTrue) || (op === 'lg' && onTrue)) hi = B > c0 && (B - c0) % step === 0 ? B - step : undefined;
    else if ((op === 'lt' && onTrue) || (op === 'ge' && !onTrue)) hi = Math.max(c0, B - 1);
    else if ((op === 'le' && onTrue) || (op === 'gt' && !onTrue)) hi = Math.max(c0, B);
    if (hi === undefined || hi > 255) continue;
    const l = out.get(h);
    if (l) l.push({ unit, lo: c0, hi }); else out.set(h, [{ unit, lo: c0, hi }]);
  }
  return out;
}

/** The constant c of `s_add_i32/u32 sN, sN, c` (or `sN, c, sN`) when 0 < c < 256, or undefined. */
function counterStep(insn: Instruction, unit: RegUnit): number | undefined {
  const a = constantAdd(insn);
  return a && !a.sub && a.dst === unit && a.src === unit && a.add > 0 && a.add < 256 ? a.add : undefined;
}

/** The index interval: a stated range narrows what is known (and wins when the two disagree). */
function withStated(a: readonly [number, number], s: StatedRange | undefined): readonly [number, number] {
  if (!s) return a;
  const lo = Math.max(a[0], s.lo);
  const hi = Math.min(a[1], s.hi);
  return lo <= hi ? [lo, hi] : [s.lo, s.hi];
}

/** Does this s_setreg write MODE bit 27? Returns the bit value (1/0), 'unknown', or undefined when it does not touch it. */
function setregGprIdxEn(insn: Instruction): 0 | 1 | 'unknown' | undefined {
  if (insn.base !== 's_setreg_b32' && insn.base !== 's_setreg_imm32_b32') return undefined;
  const id = hwregId(insn);
  if (id !== undefined && id !== HWREG_MODE) return undefined;
  const f = hwregField(insn);
  if (f && (MODE_GPR_IDX_EN_BIT < f.offset || MODE_GPR_IDX_EN_BIT >= f.offset + f.size)) return undefined;
  if (insn.base === 's_setreg_imm32_b32' && f && id === HWREG_MODE) {
    const v = insn.operands[1];
    if (v && v.kind === 'imm' && Number.isInteger(v.value)) return ((v.value >>> (MODE_GPR_IDX_EN_BIT - f.offset)) & 1) as 0 | 1;
  }
  return 'unknown';
}

/** Per-kernel result: the register layout, and warnings (a malformed `conductor: gpr-idx` comment). */
export interface KernelEffects {
  layout: RegisterLayout;
  diagnostics: Diagnostic[];
}

/**
 * Apply the kernel-dependent effects to the resolved instructions of one kernel, in place
 * (`rs` is indexed like program.instructions; `first`/`count` give the kernel's slice).
 */
export function applyKernelEffects(program: Program, kernel: KernelSymbol, target: Target, rs: ResolvedStore,
  first: number, count: number): KernelEffects {
  const layout = kernelLayout(program, kernel, target);
  const diagnostics: Diagnostic[] = [];
  if (layout.reusesAgprs) remapUnits(rs, first, count, layout);
  let indexing = false;
  const op = rs.insns.opcode;
  for (let i = first; i < first + count && !indexing; i++) {
    const b = OPCODES.base[op[i]!]!;
    indexing = b.startsWith('s_set_gpr_idx_') || ((b === 's_setreg_b32' || b === 's_setreg_imm32_b32') && setregGprIdxEn(rs.instruction(i)) !== undefined);
  }
  if (indexing) { indexMode(program, kernel, rs, first, count, layout, diagnostics); rs.indexed = true; }
  return { layout, diagnostics };
}

/* ------------------------------------------------------------------------------------------ */
/* Unified file                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Every VGPR at or above accum_offset as the AGPR unit it is, in every list of the kernel's instructions. */
function remapUnits(rs: ResolvedStore, first: number, count: number, layout: RegisterLayout): void {
  const pool = rs.pool;
  const mapped = new Map<number, number>();
  const scratch: RegUnit[] = [];
  const map = (e: number): number => {
    let m = mapped.get(e);
    if (m === undefined) {
      scratch.length = 0;
      let changed = false;
      for (let k = pool.off[e]!, end = k + pool.len[e]!; k < end; k++) {
        let u = pool.units[k]!;
        if (u >= VGPR_BASE && u < AGPR_BASE && u - VGPR_BASE >= layout.accumOffset!) { u = vgprUnitIn(layout, u - VGPR_BASE); changed = true; }
        if (!scratch.includes(u)) scratch.push(u);
      }
      m = changed ? pool.intern(scratch, scratch.length) : e;
      mapped.set(e, m);
    }
    return m;
  };
  const lists = [rs.defs, rs.uses, rs.explicitDefs, rs.explicitUses, rs.implicitDefs, rs.implicitUses];
  for (let i = first; i < first + count; i++) {
    for (const l of lists) l[i] = map(l[i]!);
    for (let k = rs.insns.opBegin[i]!; k < rs.insns.opBegin[i + 1]!; k++) rs.oUnits[k] = map(rs.oUnits[k]!);
  }
}

/** Write a ResolvedInsn object's lists and operands into the store as instruction i's. */
function writeResolved(rs: ResolvedStore, i: number, r: ResolvedInsn): void {
  const pool = rs.pool;
  const e = (l: readonly RegUnit[]) => pool.intern(l, l.length);
  rs.defs[i] = e(r.defs);
  rs.uses[i] = e(r.uses);
  rs.explicitDefs[i] = e(r.explicitDefs);
  rs.explicitUses[i] = e(r.explicitUses);
  rs.implicitDefs[i] = e(r.implicitDefs);
  rs.implicitUses[i] = e(r.implicitUses);
  const b = rs.insns.opBegin[i]!;
  for (const o of r.operands) {
    rs.oUnits[b + o.index] = e(o.units);
    rs.oAccess[b + o.index] = (o.def ? ACC_DEF : 0) | (o.use ? ACC_USE : 0);
    rs.oRole[b + o.index] = roleId(o.role);
  }
}

/** A plain copy of instruction i's resolution (its lists as they are now). */
function snapshot(rs: ResolvedStore, i: number): ResolvedInsn {
  const pool = rs.pool;
  return {
    insn: rs.instruction(i), info: rs.info(i), operands: rs.operandRecords(i),
    defs: pool.list(rs.defs[i]!), uses: pool.list(rs.uses[i]!), explicitDefs: pool.list(rs.explicitDefs[i]!),
    explicitUses: pool.list(rs.explicitUses[i]!), implicitDefs: pool.list(rs.implicitDefs[i]!), implicitUses: pool.list(rs.implicitUses[i]!),
  };
}

/* ------------------------------------------------------------------------------------------ */
/* VGPR indexing mode                                                                          */
/* ------------------------------------------------------------------------------------------ */

function indexMode(program: Program, kernel: KernelSymbol, rs: ResolvedStore, first: number, count: number,
  layout: RegisterLayout, diagnostics: Diagnostic[]): void {
  // The kernel's resolutions as objects: the passes below read the originals and choose the results.
  const insns: ResolvedInsn[] = [];
  for (let i = first; i < first + count; i++) insns[i] = snapshot(rs, i);
  // Labels before each instruction of the kernel (the kernel's own label is its entry).
  const labelsBefore = new Map<number, string[]>();
  let pending: string[] = [];
  let k = first;
  for (let s = kernel.start; s < kernel.end; s++) {
    const st = statementAt(program, s)!;
    if (st.kind === 'label' && s !== kernel.start) pending.push(st.name!);
    else if (st.insn) {
      if (pending.length) { labelsBefore.set(k, pending); pending = []; }
      k++;
    }
  }
  const stated = new Map<number, StatedRange>();
  for (let i = first; i < first + count; i++) {
    const insn = insns[i]!.insn;
    if (!(insn.base === 's_set_gpr_idx_on' || insn.base === 's_set_gpr_idx_idx' || setregGprIdxEn(insn) !== undefined)) continue;
    const d = statedIndexRange(program, insn);
    if (d.range) stated.set(i, d.range);
    else if (d.error) diagnostics.push({ severity: 'warning', message: d.error, loc: insn.loc, rule: 'gpr-idx' });
  }
  const counters = loopCounters(program, kernel, insns, first, count, labelsBefore);
  // Is the mode on when a branch to each label is taken? Grows until stable.
  const onAt = new Set<string>();
  let onAnywhere = false;
  const original = insns.slice(first, first + count);
  for (;;) {
    const before = onAt.size + (onAnywhere ? 1 : 0);
    let on = false;
    let reachable = true;
    let m0: M0Fact = M0_UNKNOWN;
    const bounds: ValueBounds = new Map();
    for (let i = first; i < first + count; i++) {
      const labels = labelsBefore.get(i);
      if (labels) {
        // other paths reach the label: M0 and the SGPR values are unknown there
        on = (reachable && on) || onAnywhere || labels.some((l) => onAt.has(l));
        m0 = M0_UNKNOWN;
        reachable = true;
        bounds.clear();
        for (const c of counters.get(i) ?? []) bounds.set(c.unit, [c.lo, c.hi]);
      }
      const r = original[i - first]!;
      const insn = r.insn;
      insns[i] = on && (r.info.cls === 'valu' || r.info.cls === 'mfma') ? indexed(r, m0, layout) : r;
      // the instruction's effect on the mode, M0 and the known SGPR values
      const base = insn.base;
      const en = setregGprIdxEn(insn);
      if (base === 's_set_gpr_idx_on' || base === 's_set_gpr_idx_idx') {
        const u = scalarUnit(insn, 0);
        const v = withStated((u !== undefined ? bounds.get(u) : undefined) ?? [0, 255], stated.get(i));
        m0 = { lo: v[0], hi: v[1], modes: base === 's_set_gpr_idx_on' ? gprIdxModeBits(insn) : m0.modes };
        if (base === 's_set_gpr_idx_on') on = true;
      } else if (base === 's_set_gpr_idx_mode') {
        m0 = { ...m0, modes: gprIdxModeBits(insn) };
      } else if (base === 's_set_gpr_idx_off') {
        on = false;
      } else if (en !== undefined) {
        const s = stated.get(i);
        if (s) m0 = { ...m0, lo: s.lo, hi: s.hi };
        // an unknown value may set the bit: the mode may be on from here
        on = en !== 0;
      } else if (r.defs.includes(M0)) {
        // any other write of M0 sets the index and the mode bits
        const imm = base === 's_mov_b32' ? insn.operands[1] : undefined;
        if (imm && imm.kind === 'imm' && !imm.float && Number.isInteger(imm.value)) {
          m0 = { lo: imm.value & 0xff, hi: imm.value & 0xff, modes: (imm.value >> 12) & ALL_MODES };
        } else if (base === 's_mov_b32') {
          const v = valueOf(bounds, insn, 1);
          m0 = { lo: v[0], hi: v[1], modes: ALL_MODES };
        } else m0 = M0_UNKNOWN;
      }
      for (const u of r.defs) if (u < VGPR_BASE) bounds.delete(u);
      if (r.info.cls === 'salu') {
        const d = scalarUnit(insn, 0);
        const v = d !== undefined && r.defs.includes(d) ? salValue(bounds, insn) : undefined;
        if (v && d !== undefined) bounds.set(d, v);
      }
      const kind = controlKind(base);
      if (kind !== 'none' && kind !== 'call') {
        if (on) {
          if (kind === 'indirect') onAnywhere = true;
          for (const o of insn.operands) if (o.kind === 'expr') for (const l of o.symbols) onAt.add(l);
        }
        bounds.clear();
        if (kind !== 'cjump') reachable = false;
      }
    }
    if (onAt.size + (onAnywhere ? 1 : 0) === before) break;
  }
  for (let i = first; i < first + count; i++) if (insns[i] !== original[i - first]) writeResolved(rs, i, insns[i]!);
}

/** The resolution of a VALU instruction inside the indexing mode with M0 as `m0`. */
function indexed(r: ResolvedInsn, m0: M0Fact, layout: RegisterLayout): ResolvedInsn {
  let touched = false;
  let readsZero: RegUnit[] | undefined;
  const operands: ResolvedOperand[] = r.operands.map((rec) => {
    const bit = ROLE_BIT[rec.role];
    if (bit === undefined || !(m0.modes & bit) || (!rec.def && !rec.use)) return rec;
    const o = r.insn.operands[rec.index];
    if (!o || o.kind !== 'reg' || (o.file !== 'v' && o.file !== 'a')) return rec;
    touched = true;
    const end = o.file === 'v' ? layout.vgprEnd : layout.agprEnd;
    const lo = o.index + m0.lo;
    const hi = o.index + m0.hi + o.count - 1;
    const units: RegUnit[] = [];
    for (let j = lo; j <= Math.min(hi, end - 1); j++) units.push(o.file === 'v' ? vgprUnitIn(layout, j) : AGPR_BASE + j);
    if (hi >= end && rec.use) (readsZero ??= []).push(o.file === 'v' ? vgprUnitIn(layout, 0) : AGPR_BASE);
    // a write that may land on one of several registers (or be dropped) keeps the others
    const may = rec.def && (m0.lo !== m0.hi || hi >= end);
    return Object.freeze({ index: rec.index, role: rec.role, def: rec.def, use: rec.use || may, units: Object.freeze(units) });
  });
  if (!touched) return r;
  const explicitDefs: RegUnit[] = [];
  const explicitUses: RegUnit[] = [];
  for (const o of operands) {
    if (o.def) for (const u of o.units) if (!explicitDefs.includes(u)) explicitDefs.push(u);
    if (o.use) for (const u of o.units) if (!explicitUses.includes(u)) explicitUses.push(u);
  }
  const implicitUses = [...r.implicitUses];
  for (const u of [M0, ...(readsZero ?? [])]) if (!implicitUses.includes(u)) implicitUses.push(u);
  const defs = [...explicitDefs];
  for (const u of r.implicitDefs) if (!defs.includes(u)) defs.push(u);
  const uses = [...explicitUses];
  for (const u of implicitUses) if (!uses.includes(u)) uses.push(u);
  return {
    ...r, operands: Object.freeze(operands), explicitDefs: Object.freeze(explicitDefs), explicitUses: Object.freeze(explicitUses),
    implicitUses: Object.freeze(implicitUses), defs: Object.freeze(defs), uses: Object.freeze(uses),
  };
}
