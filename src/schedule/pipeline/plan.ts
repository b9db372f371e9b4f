/**
 * Software pipelining by one stage: which loops can be rotated, and how.
 *
 * A loop qualifies when
 *  - it is one basic block ending in `s_cbranch_scc0/scc1` back to its own label, left by
 *    falling through into the next block, and entered only by falling into it from the code
 *    right before its label (which is then the only way in besides the back edge);
 *  - nothing in it is pinned (no barrier, message, call, mode change, ...: scheduling.ts'
 *    rules), waits and nops aside; a fence wait (a pinned s_waitcnt, e.g. the release after
 *    LDS stores) stays in R in its place, and P (below) must lie before the first one;
 *  - its control is a scalar counter: one `s_add`/`s_sub` of a constant to an SGPR (or
 *    `s_addk_i32`) and, after it, an `s_cmp(k)_<op>_{i32,u32}` of that SGPR with a constant or
 *    with an SGPR the loop does not write, whose SCC only the back-edge branch reads; SCC is not
 *    live into the loop (the guard below writes it). The rotated loop and the guard test whether
 *    the next iteration is the last (LoopCounter.form): with `lg`/`eq` and a constant, the loop
 *    going on while the counter differs from it, by the compare with the constant one step on
 *    (32-bit values, so the count is exact whatever the start value); otherwise (a bound in an
 *    SGPR, `lt`/`le`/`gt`/`ge`, a loop going on while equal) by the counter's next value, made
 *    in a free SGPR by the step itself (`s_add_i32 t, c, s` beside `s_add_i32 c, c, s`) and
 *    compared as the original compares the counter: the same operation on the same values as
 *    the original's next iteration, whatever the compare and the wrap-around;
 *  - it has vector-memory loads (global/buffer/scratch, data to VGPRs) whose address code (the
 *    instructions of the body they depend on, VALU and SALU without side effects, not the loop
 *    control) can move to the front of the body: no instruction they pass depends on them or
 *    they on it (registers, EXEC/VCC/SCC/M0, memory: a store that may alias a load keeps the
 *    load behind it). That set P (the loads and their address code) writes nothing the
 *    back-edge branch reads.
 *
 * With the rest of the body R (in its order), the loop P R P R ... P R (n iterations) is the
 * same instruction stream as  P | (R P) (R P) ... | R : one copy of P before the loop, a loop
 * body R P run n-1 times, and R after it. So the transform
 *  - appends P to the code before the loop (executed only on the way into the loop, which runs
 *    at least once once entered: no load runs that the original does not run);
 *  - guards the loop: `s_cmp <counter>, g` + a branch past the loop body to the peeled R when
 *    the first iteration is the last one (g: the counter value for which the original leaves
 *    after one iteration);
 *  - makes the loop body R P with the compare's constant moved by one step (the loop exits one
 *    iteration earlier, exactly, in 32-bit arithmetic);
 *  - writes R again after the loop (the last iteration, with the original compare: SCC and
 *    every register leave as in the original).
 * The instruction order inside each block is then the scheduler's business (the dependency
 * graph of the new program keeps it legal); its point is that the loads of iteration i+1 may
 * now be hoisted above the work of iteration i.
 *
 * Renaming: a load of P writes registers D that R reads, so without more the next iteration's
 * load cannot pass this iteration's readers. When registers X are free (named below
 * `.amdhsa_next_free_vgpr`, and accum_offset on a unified file, or below the highest VGPR the
 * code names without a descriptor: the descriptor and its occupancy stay as they are; not live
 * into the loop; not used by R nor by P after the load), the load writes X instead and copies
 * `v_mov_b32 D, X` open the body (and the peeled R): D holds the same values where R reads
 * them (EXEC is not written in the body, so the copy writes the lanes the load wrote), and X is
 * dead after the loop. Loads that write half registers (d16) are not renamed.
 */
import type { KernelContext } from '../../analysis/types.js';
import { computeLiveness, setHas } from '../../analysis/liveness.js';
import { EXEC_HI, EXEC_LO, FLAT_SCRATCH_LO, SCC, SGPR_BASE, VGPR_BASE } from '../../asm/registers.js';
import type { ResolvedInsn } from '../../isa/types.js';
import { isWaitOrNop } from '../../asm/program.js';
import { kernelLayout } from '../../isa/layout.js';
import { constantAdd, intOperand, sgprOperand } from '../../isa/scalar-add.js';
import { buildGraph, dependent, explainDependency } from '../deps.js';
import { pinnedReason, ROLE, schedBarrierBetween, type ScheduleKernel } from '../kernel.js';
import { tripFromCode } from '../../cycles/kernel-time.js';
import { alignUp, computeOccupancy, declaredResources } from '../../analysis/occupancy.js';
import { workgroupInput } from '../../analysis/resources.js';

/** The scalar counter that controls a loop. */
export interface LoopCounter {
  /** SGPR unit of the counter and its name as written. */
  unit: number;
  name: string;
  /** Signed step per iteration and the instruction that applies it. */
  step: number;
  stepAt: number;
  /** The compare (kernel instruction index), its mnemonic and which operand is the counter. */
  cmpAt: number;
  cmpMnemonic: string;
  counterOperand: 0 | 1;
  /** The compare's relation, and its constant as a 32-bit pattern (0 when it compares with an SGPR). */
  op: 'lg' | 'eq' | 'lt' | 'le' | 'gt' | 'ge';
  bound: number;
  /** The compare reads the counter after the step. */
  afterStep: boolean;
  /** SCC value with which the back-edge branch leaves the loop. */
  exitScc: 0 | 1;
  /** The constant of the rotated loop's compare (bound - step) and of the guard ('bound' form). */
  loopBound: number;
  guardBound: number;
  /**
   * How the rotated loop and the guard test that the next iteration is the last: 'bound', the
   * compare with its constant one step on (`lg`/`eq` with a constant, going on while different);
   * 'next', the compare of the counter's next value, made by the step's own instruction into the
   * free SGPR `temp` (planPipelines picks it), with the original's other operand (`boundSgpr`, an
   * SGPR the loop does not write, or the constant `bound`).
   */
  form: 'bound' | 'next';
  boundSgpr?: number;
  temp?: number;
  /** The descriptor's .amdhsa_next_free_sgpr grown to cover `temp` (at the same occupancy). */
  growSgpr?: number;
}

/** A load of P whose destination is renamed. */
export interface Rename {
  /** Kernel instruction index of the load. */
  load: number;
  /** Destination VGPRs as written (index in the VGPR file) and the renamed ones. */
  from: number;
  to: number;
  count: number;
  /**
   * The peeled last iteration reads the renamed registers directly instead of copying them
   * back (R there names X where it named D): D is not live after the loop, R does not write it,
   * and R names it only in whole operands within D.
   */
  peelDirect: boolean;
}

export interface PipelinePlan {
  /** Block of the loop (header and latch). */
  block: number;
  /** Line of the loop's first instruction. */
  line: number;
  /** Label of the loop. */
  label: string;
  /** Kernel instruction index of the back-edge branch. */
  branch: number;
  /** The loads and their address code, and the rest (kernel indexes, body order, waits and nops left out). */
  p: number[];
  r: number[];
  /** Fence waits of the body (pinned s_waitcnt): they stay in R, in their place. */
  fences: number[];
  loads: number[];
  renames: Rename[];
  counter: LoopCounter;
  /** Trip count from the code, when it gives one. */
  trip?: number;
  /** The two-stage form (TwoStage), when the loop allows it, else why not. */
  twoStage?: TwoStage;
  twoStageRefused?: string;
}

/**
 * Software pipelining by two stages: the loads of iteration i+2 start in iteration i, into
 * registers that alternate between even and odd iterations (modulo variable expansion), so that
 * a load has two iterations to return instead of one. With P2 and R2 below, the loop
 * P2 R2 P2 R2 ... (n iterations) is written (transform.ts)
 *
 *     P2(D) ; leave to LAST when n = 1 ; P2(Y) ; leave to EVEN when n = 2
 *   L: R2(D) P2(D) ; leave to ODD after iteration n-2 ; R2(Y) P2(Y) ; back to L unless after n-2
 *   EVEN: R2(D) R2(Y) ; to OUT      ODD: R2(Y)      LAST: R2(D)      OUT:
 *
 * where (D) is the loads' own registers and (Y) the alternate ones (R2 reading Y where it read
 * D). It is the stream P2_1 P2_2 R2_1 P2_3 R2_2 P2_4 ... of the original: each P2_{j+1} moves
 * above R2_j only, so it qualifies when, besides the one-stage conditions,
 *  - no fence wait is in the loop;
 *  - P2 is P with the instructions of R that write what P reads from the iteration before
 *    (induction updates, e.g. `v_add_u32 v22, 64, v22` of an address), when they are address
 *    code whose inputs come from P2 or from outside the loop and they can move to the front of
 *    the body with P;
 *  - across the back edge, P2 reads nothing R2 writes, writes nothing R2 reads or writes but the
 *    loads' registers D, and R2 writes no memory;
 *  - every load of P2 writes whole VGPRs D that R2 does not write and names only as whole plain
 *    operands, and that are dead after the loop; and free registers Y exist for each (below the
 *    registers the descriptor covers, or above them as far as the occupancy stays: TwoStage.grow).
 *    Where P2's address code reads or writes D too (a load overwriting its own address
 *    registers), odd iterations load into free registers as well, and D stays the address code's.
 */
export interface TwoStage {
  p: number[];
  r: number[];
  /** The instructions moved from R into P2. */
  moved: number[];
  /**
   * Per load: its registers D (first VGPR index, count), the registers of odd iterations (`odd`:
   * D itself, or free registers where the loads' address code uses D too) and of even ones (`to`).
   */
  buffers: { load: number; from: number; odd: number; to: number; count: number }[];
  /** Compare constant of the loop (bound - 2 step) and of the first guard (bound - step). */
  loopBound: number;
  firstBound: number;
  /**
   * The descriptor's VGPR allocation the alternate registers need when they lie above it (a
   * larger .amdhsa_next_free_vgpr, and accum_offset on a unified file, at the same occupancy).
   */
  grow?: { nextFree: number; accumOffset?: number };
}

/**
 * The VGPRs the two-stage form may use: the allocation may grow (.amdhsa_next_free_vgpr, and
 * accum_offset with it on a unified VGPR/AGPR file when the kernel names no AGPR) as long as the
 * descriptor's occupancy stays (occupancy.ts: the VGPR granule and the waves the file holds).
 */
function growLimit(ctx: KernelContext, limit: number): number {
  const values = ctx.kernel.descriptor?.values;
  const next = values?.['next_free_vgpr'];
  if (!values || next === undefined || limit < next) return limit;
  const t = ctx.target;
  const unified = t.registers.unifiedVgprFile.value;
  if (unified && ctx.insns.some((r) => r.insn.operands.some((o) => o.kind === 'reg' && o.file === 'a'))) return limit;
  const wg = workgroupInput(ctx);
  const occ = (n: number) => {
    const v = { ...values, next_free_vgpr: n, ...(unified ? { accum_offset: Math.max(values['accum_offset'] ?? 0, alignUp(n, 4)) } : {}) };
    const d = declaredResources(v, t, { xnack: ctx.xnack });
    return computeOccupancy(t, { vgprs: d.vgprs, agprs: d.agprs, sgprs: d.sgprs, ldsBytes: d.ldsBytes + (ctx.launch?.lds ?? 0), extraSgprs: d.extraSgprs, ...wg }).wavesPerSimd;
  };
  const now = occ(next);
  let n = next;
  while (n + 1 <= Math.min(t.registers.maxVgprs.value, t.registers.maxNextFreeVgpr.value) && occ(n + 1) >= now) n++;
  return n;
}

/**
 * The descriptor's .amdhsa_next_free_sgpr the 'next' form may grow to for its SGPR: one more, when
 * the descriptor gives it and the occupancy stays (occupancy.ts: the SGPR granule, the extra
 * SGPRs after it, the waves the file holds); else undefined.
 */
function sgprGrowth(ctx: KernelContext): number | undefined {
  const values = ctx.kernel.descriptor?.values;
  const next = values?.['next_free_sgpr'];
  if (!values || next === undefined) return undefined;
  const t = ctx.target;
  if (next + 1 > Math.min(FLAT_SCRATCH_LO, t.registers.maxNextFreeSgpr.value)) return undefined;
  const wg = workgroupInput(ctx);
  const occ = (n: number) => {
    const d = declaredResources({ ...values, next_free_sgpr: n }, t, { xnack: ctx.xnack });
    return computeOccupancy(t, { vgprs: d.vgprs, agprs: d.agprs, sgprs: d.sgprs, ldsBytes: d.ldsBytes + (ctx.launch?.lds ?? 0), extraSgprs: d.extraSgprs, ...wg }).wavesPerSimd;
  };
  return occ(next + 1) >= occ(next) ? next + 1 : undefined;
}

export interface PipelineRefusal {
  line: number;
  reason: string;
}

const CMP = /^s_cmpk?_(lg|eq|lt|le|gt|ge)_(i32|u32)$/;

const u32 = (x: number) => x >>> 0;

/** Does a compare constant fit the compare's encoding (s_cmpk: 16 bits, zero- or sign-extended)? */
export function boundEncodable(mnemonic: string, value: number): boolean {
  if (!mnemonic.startsWith('s_cmpk_')) return true;
  const v = u32(value);
  if (mnemonic.endsWith('_u32')) return v <= 0xffff;
  const s = v | 0;
  return s >= -0x8000 && s <= 0x7fff;
}

/** The loop counter, or why there is none that the transform understands. */
export function loopCounter(ctx: KernelContext, start: number, branch: number): LoopCounter | string {
  const { insns } = ctx;
  const br = insns[branch]!;
  const onTrue = br.insn.base === 's_cbranch_scc1' ? 1 : br.insn.base === 's_cbranch_scc0' ? 0 : -1;
  if (onTrue < 0) return `the back edge is ${br.insn.base}, not s_cbranch_scc0/scc1`;
  let cmpAt = -1;
  for (let i = branch - 1; i >= start; i--) {
    const r = insns[i]!;
    if (isWaitOrNop(r.insn)) continue;
    if (r.defs.includes(SCC)) { if (CMP.test(r.insn.base)) cmpAt = i; break; }
  }
  if (cmpAt < 0) return `the back edge does not test an s_cmp(k) of a 32-bit counter`;
  const cmp = insns[cmpAt]!;
  for (let i = cmpAt + 1; i < branch; i++) if (insns[i]!.uses.includes(SCC)) return `SCC of the loop compare is also read by '${insns[i]!.insn.text.trim()}'`;
  const [, op] = CMP.exec(cmp.insn.base)!;
  const writtenIn = (u: number) => { for (let i = start; i < branch; i++) if (insns[i]!.defs.includes(u)) return true; return false; };
  // the counter: the compare's SGPR the loop writes; the other operand a constant or an SGPR it does not
  const s0 = sgprOperand(cmp.insn, 0);
  const s1 = sgprOperand(cmp.insn, 1);
  let counterOperand: 0 | 1;
  if (s0 !== undefined && writtenIn(s0)) counterOperand = 0;
  else if (s1 !== undefined && writtenIn(s1) && !cmp.insn.base.startsWith('s_cmpk_')) counterOperand = 1;
  else return `the loop compare '${cmp.insn.text.trim()}' does not read an SGPR the loop steps`;
  const counter = counterOperand === 0 ? s0! : s1!;
  const other = 1 - counterOperand;
  const bound = intOperand(cmp.insn, other);
  const boundSgpr = bound === undefined ? sgprOperand(cmp.insn, other) : undefined;
  if (bound === undefined && boundSgpr === undefined) return `the loop compare does not compare its counter with a constant or an SGPR`;
  if (boundSgpr !== undefined && writtenIn(boundSgpr)) return `the loop compare's two SGPRs are both written in the loop`;
  let step: number | undefined;
  let stepAt = -1;
  let plainAdd = false;
  for (let i = start; i < branch; i++) {
    const r = insns[i]!;
    if (!r.defs.includes(counter)) continue;
    if (stepAt >= 0) return `the counter ${cmp.insn.operands[counterOperand]!.text} is written twice in the loop`;
    stepAt = i;
    const b = r.insn.base;
    if ((b === 's_add_i32' || b === 's_add_u32' || b === 's_sub_i32' || b === 's_sub_u32') && sgprOperand(r.insn, 0) === counter) {
      const a = constantAdd(r.insn);
      if (a === undefined || a.src !== counter) return `the counter step '${r.insn.text.trim()}' is not a constant added to the counter`;
      step = a.add;
      plainAdd = true;
    } else if (b === 's_addk_i32' && sgprOperand(r.insn, 0) === counter) {
      step = intOperand(r.insn, 1);
    } else return `the counter is written by '${r.insn.text.trim()}', not by an add or subtract of a constant`;
  }
  if (step === undefined || u32(step) === 0) return `the loop counter does not step`;
  const afterStep = stepAt < cmpAt;
  if (!afterStep) return `the loop compares its counter before stepping it (only a compare after the step is rotated)`;
  const common = {
    unit: counter, name: cmp.insn.operands[counterOperand]!.text, step, stepAt, cmpAt, cmpMnemonic: cmp.insn.mnemonic, counterOperand,
    op: op as LoopCounter['op'], afterStep, exitScc: (onTrue === 1 ? 0 : 1) as 0 | 1,
  };
  // "go on while counter != bound": s_cmp_lg + scc1, or s_cmp_eq + scc0, with a constant
  const continuesWhileDifferent = (op === 'lg' || op === 'eq') && (op === 'lg') === (onTrue === 1);
  if (bound !== undefined && continuesWhileDifferent) {
    const loopBound = u32(bound - step);
    if (boundEncodable(cmp.insn.base, loopBound)) {
      return { ...common, form: 'bound', bound: u32(bound), loopBound, guardBound: loopBound };
    }
  }
  // the counter's next value, made by the step's own instruction into a free SGPR
  if (!plainAdd) return `the loop's compare is not rotated with its constant one step on, and its step '${insns[stepAt]!.insn.text.trim()}' (s_addk) cannot make the next value elsewhere`;
  return { ...common, form: 'next', bound: bound === undefined ? 0 : u32(bound), ...(boundSgpr !== undefined ? { boundSgpr } : {}), loopBound: 0, guardBound: 0 };
}

/**
 * An SGPR the 'next' form may make the counter's next value in: allocated (below
 * .amdhsa_next_free_sgpr, or the highest SGPR the kernel names), named nowhere in the loop, and
 * dead where the loop is entered, where it goes round and where it is left; or else the first
 * SGPR past the allocation, which then grows by one (`grow`: the new .amdhsa_next_free_sgpr).
 */
function freeSgpr(ctx: KernelContext, loop: number, before: number, live: ReturnType<typeof computeLiveness>): { temp: number; grow?: number } | undefined {
  const { cfg, insns } = ctx;
  let limit = ctx.kernel.descriptor?.values['next_free_sgpr'];
  if (limit === undefined) {
    limit = 0;
    for (const r of insns) for (const u of [...r.defs, ...r.uses]) if (u < FLAT_SCRATCH_LO) limit = Math.max(limit, u + 1);
  }
  limit = Math.min(limit, FLAT_SCRATCH_LO);
  const b = cfg.blocks[loop]!;
  const named = new Set<number>();
  for (let i = b.start; i < b.end; i++) for (const u of [...insns[i]!.defs, ...insns[i]!.uses]) named.add(u);
  for (let u = SGPR_BASE; u < SGPR_BASE + limit; u++) {
    if (named.has(u) || setHas(live.liveIn[loop]!, u) || setHas(live.liveOut[loop]!, u) || setHas(live.liveOut[before]!, u)) continue;
    return { temp: u };
  }
  // none: the next SGPR, when the allocation may grow by one at the same occupancy (no code reads
  // it: it is above every SGPR the descriptor covers)
  const grown = sgprGrowth(ctx);
  return grown !== undefined ? { temp: SGPR_BASE + grown - 1, grow: grown } : undefined;
}

/** A load P may start early: vector memory, data to VGPRs only, not LDS-DMA. */
function isPipelinedLoad(r: ResolvedInsn): boolean {
  const m = r.info.mem;
  if (r.info.cls !== 'vmem' || !m || m.op !== 'load') return false;
  if (r.insn.modifiers.some((x) => x.name === 'lds' || x.name === 'tfe')) return false;
  return r.defs.length > 0 && r.defs.every((u) => u >= VGPR_BASE);
}

/** Instructions P may hold besides the loads: VALU and SALU without side effects. */
function isAddressCode(r: ResolvedInsn): boolean {
  const cls = r.info.cls;
  if (cls !== 'valu' && cls !== 'salu') return false;
  if (r.info.mem || pinnedReason(r) !== '') return false;
  return !r.defs.includes(EXEC_LO) && !r.defs.includes(EXEC_HI);
}

/** The highest VGPR index + 1 that renaming may use: what the descriptor (or the code) already covers. */
function renameLimit(ctx: KernelContext): number {
  const layout = kernelLayout(ctx.program, ctx.kernel, ctx.target);
  const nextFree = ctx.kernel.descriptor?.values['next_free_vgpr'];
  let limit = nextFree !== undefined ? nextFree : layout.namedVgprs;
  if (layout.unified && layout.accumOffset !== undefined) limit = Math.min(limit, layout.accumOffset);
  return Math.min(limit, ctx.target.registers.maxVgprs.value);
}

/** Plans for every loop of a prepared kernel that can be pipelined, and why the others cannot. */
export function planPipelines(k: ScheduleKernel): { plans: PipelinePlan[]; refused: PipelineRefusal[] } {
  const ctx = k.ctx;
  const { cfg, insns } = ctx;
  const plans: PipelinePlan[] = [];
  const refused: PipelineRefusal[] = [];
  const live = computeLiveness(cfg, insns.map((r) => ({ defs: r.defs, uses: r.uses })));
  const limit = renameLimit(ctx);
  for (const b of cfg.blocks) {
    if (b.end - b.start < 2 || !b.succs.includes(b.id)) continue;
    const line = cfg.insns[b.start]!.loc.line;
    const refuse = (reason: string) => { refused.push({ line, reason }); };
    const branch = b.end - 1;
    const label = b.labels[0];
    const br = insns[branch]!;
    if (!label || cfg.control[branch] !== 'cjump') { refuse('the loop does not end in a conditional branch back to its label'); continue; }
    const target = br.insn.operands[0];
    if (!target || target.kind !== 'expr' || !b.labels.includes(target.text.trim())) { refuse('the back-edge branch does not name the loop\'s first label'); continue; }
    const exit = b.id + 1;
    if (exit >= cfg.blocks.length || !b.succs.includes(exit)) { refuse('the loop is not left by falling through'); continue; }
    const preds = b.preds.filter((p) => p !== b.id);
    const before = b.id - 1;
    if (preds.length !== 1 || preds[0] !== before || cfg.blocks[before]!.end <= cfg.blocks[before]!.start) {
      refuse('the loop is entered other than by falling into it from the code right before it'); continue;
    }
    const lastBefore = cfg.blocks[before]!.end - 1;
    if (cfg.control[lastBefore] !== 'none' && cfg.control[lastBefore] !== 'cjump') { refuse('the code before the loop does not fall into it'); continue; }
    let pinned = '';
    const fences: number[] = [];
    for (let i = b.start; i < branch && !pinned; i++) {
      const r = insns[i]!;
      if (isWaitOrNop(r.insn)) {
        // a fence wait stays where it is in R (P, which comes before it, moves across no fence)
        if (k.role[i] === ROLE.pinned) {
          if (r.insn.base === 's_waitcnt') fences.push(i);
          else pinned = `'${r.insn.text.trim()}' (${k.pinReason[i]})`;
        }
        continue;
      }
      const why = pinnedReason(r);
      if (why) pinned = `'${r.insn.text.trim()}' (${why})`;
    }
    if (pinned) { refuse(`the loop holds an instruction that must stay in place: ${pinned}`); continue; }
    const stmts = ctx.program.statements;
    // from the instruction before the loop (a barrier between it and the label counts too)
    const from = b.start > 0 ? stmts[cfg.insns[b.start - 1]!.stmt]!.lineIndex : -1;
    if (schedBarrierBetween(ctx.program, from, stmts[cfg.insns[branch]!.stmt]!.lineIndex)) {
      refuse('the loop holds a sched_barrier (nothing moves across it)'); continue;
    }
    const counter = loopCounter(ctx, b.start, branch);
    if (typeof counter === 'string') { refuse(counter); continue; }
    if (setHas(live.liveIn[b.id]!, SCC)) { refuse('SCC is live into the loop (the guard would overwrite it)'); continue; }
    if (counter.form === 'next') {
      // an SGPR M0 indexes is read or written where the code does not name it: liveness cannot tell a free one
      const indexed = insns.find((r) => r.insn.base.startsWith('s_movrel'));
      if (indexed) { refuse(`the kernel reads or writes SGPRs by M0 ('${indexed.insn.text.trim()}'): no SGPR is known to be free for the counter's next value`); continue; }
      const t = freeSgpr(ctx, b.id, before, live);
      if (t === undefined) { refuse(`no SGPR is free across the loop for its counter's next value (the compare '${insns[counter.cmpAt]!.insn.text.trim()}' is rotated so), and the allocation cannot grow by one at the same occupancy`); continue; }
      counter.temp = t.temp;
      if (t.grow !== undefined) counter.growSgpr = t.grow;
    }
    const trip = tripFromCode(ctx, b.id, b.id);
    if (trip !== undefined && trip < 2) { refuse(`the loop runs ${trip === 1 ? 'once' : 'never'} (trip count from the code)`); continue; }

    const body: number[] = [];
    for (let i = b.start; i < branch; i++) if (!isWaitOrNop(insns[i]!.insn)) body.push(i);
    // reaching definitions inside one iteration
    const writerBefore = (x: number, u: number): number => {
      for (let y = x - 1; y >= 0; y--) if (insns[body[y]!]!.defs.includes(u)) return y;
      return -1;
    };
    const graph = buildGraph(k, Int32Array.from(body), k.options.disambiguate);
    const control = new Set([counter.stepAt, counter.cmpAt]);
    // each load's backward slice inside the iteration (address code only)
    const slices = new Map<number, Set<number>>();
    const why: string[] = [];
    for (let x = 0; x < body.length; x++) {
      const i = body[x]!;
      if (!isPipelinedLoad(insns[i]!)) continue;
      const slice = new Set<number>([x]);
      const stack = [x];
      let bad = '';
      while (stack.length > 0 && !bad) {
        const y = stack.pop()!;
        for (const u of insns[body[y]!]!.uses) {
          const w = writerBefore(y, u);
          if (w < 0 || slice.has(w)) continue;
          const rw = insns[body[w]!]!;
          if (control.has(body[w]!)) { bad = `its address depends on the loop counter step '${rw.insn.text.trim()}'`; break; }
          if (!isAddressCode(rw)) { bad = `its address depends on '${rw.insn.text.trim()}', which cannot start early`; break; }
          slice.add(w);
          stack.push(w);
        }
      }
      if (bad) why.push(`load '${insns[i]!.insn.text.trim()}' stays: ${bad}`);
      else slices.set(x, slice);
    }
    // P (the union) moves to the front of the body: it passes every other instruction before
    // it. A load whose slice holds an instruction that cannot pass one outside P stays behind.
    const inP = new Set<number>();
    for (;;) {
      inP.clear();
      for (const sl of slices.values()) for (const y of sl) inP.add(y);
      let blocked = -1;
      for (const y of inP) {
        for (let z = 0; z < y && blocked < 0; z++) {
          if (inP.has(z) || !dependent(graph, z, y)) continue;
          const e = explainDependency(k, body[y]!, body[z]!, false, `'${insns[body[z]!]!.insn.text.trim()}'`, k.options.disambiguate, () => true);
          why.push(`'${insns[body[y]!]!.insn.text.trim()}' cannot move above '${insns[body[z]!]!.insn.text.trim()}'${e ? ` (it ${e.text})` : ''}`);
          blocked = y;
        }
        if (blocked >= 0) break;
      }
      if (blocked < 0) break;
      for (const [x, sl] of [...slices]) if (sl.has(blocked)) { slices.delete(x); why.push(`so load '${insns[body[x]!]!.insn.text.trim()}' stays`); }
    }
    // P moves to the front of the body: an instruction of it after a fence wait would cross the
    // fence, so a load whose slice reaches past the first fence stays
    if (fences.length > 0) {
      for (const [x, sl] of [...slices]) {
        const late = [...sl].find((y) => body[y]! > fences[0]!);
        if (late !== undefined) {
          slices.delete(x);
          why.push(`load '${insns[body[x]!]!.insn.text.trim()}' stays: '${insns[body[late]!]!.insn.text.trim()}' is after the fence wait '${insns[fences[0]!]!.insn.text.trim()}'`);
        }
      }
    }
    const loads = [...slices.keys()].sort((a, b) => a - b).map((x) => body[x]!);
    if (loads.length === 0) {
      refuse(why.length > 0 ? why.join('; ') : 'no vector-memory load in the loop'); continue;
    }
    const p = body.filter((_, x) => inP.has(x));
    const r = body.filter((_, x) => !inP.has(x));
    // P must not write SCC (the guard after the first iteration's P writes it) nor what the
    // back-edge branch reads
    const sccWriter = p.find((i) => insns[i]!.defs.includes(SCC));
    if (sccWriter !== undefined) { refuse(`'${insns[sccWriter]!.insn.text.trim()}' in the loads' address code writes SCC, which the guard overwrites`); continue; }
    const brUses = br.uses;
    const clash = p.find((i) => insns[i]!.defs.some((u) => brUses.includes(u)));
    if (clash !== undefined) { refuse(`'${insns[clash]!.insn.text.trim()}' writes what the back-edge branch reads`); continue; }
    // the first iteration's P is placed before the loop: what it writes must be dead there
    const headIn = live.liveIn[b.id]!;
    const pDead = p.find((i) => insns[i]!.defs.some((u) => setHas(headIn, u)));
    if (pDead !== undefined) { refuse(`'${insns[pDead]!.insn.text.trim()}' writes registers that are live into the loop`); continue; }

    const renames = chooseRenames(ctx, body, p, r, loads, live.liveOut[b.id]!, limit);
    const two: TwoStage | string = counter.form === 'next' ? 'two stages rotate only a compare of the counter with a constant that goes on while they differ'
      : fences.length === 0 && (trip === undefined || trip >= 3)
        ? planTwoStage(ctx, body, graph, inP, loads, counter, control, live.liveOut[b.id]!, headIn, limit)
        : fences.length > 0 ? 'the loop holds a fence wait' : 'the loop runs fewer than three times (trip count from the code)';
    plans.push({ block: b.id, line, label, branch, p, r, fences, loads, renames, counter, trip, ...(typeof two === 'string' ? { twoStageRefused: two } : { twoStage: two }) });
  }
  return { plans, refused };
}

/** The two-stage form of a loop (TwoStage), or undefined when it does not qualify. */
/** The two-stage form of a loop (TwoStage), or why it does not qualify. */
function planTwoStage(ctx: KernelContext, body: number[], graph: ReturnType<typeof buildGraph>, inP: ReadonlySet<number>, loads: number[],
  counter: LoopCounter, control: ReadonlySet<number>, liveOut: Uint32Array, liveIn: Uint32Array, limit: number): TwoStage | string {
  const { insns } = ctx;
  const loopBound = u32(counter.bound - 2 * counter.step);
  if (!boundEncodable(counter.cmpMnemonic, loopBound)) return `the two-stage compare's constant does not fit the compare`;
  for (const i of body) if (insns[i]!.defs.includes(EXEC_LO) || insns[i]!.defs.includes(EXEC_HI)) return `the loop writes EXEC`;
  const inP2 = new Set(inP);
  // registers P2 reads before it writes them, in body order: what it takes from the iteration before
  const exposed = (): Set<number> => {
    const written = new Set<number>();
    const out = new Set<number>();
    for (let x = 0; x < body.length; x++) {
      if (!inP2.has(x)) continue;
      for (const u of insns[body[x]!]!.uses) if (!written.has(u)) out.add(u);
      for (const u of insns[body[x]!]!.defs) written.add(u);
    }
    return out;
  };
  for (let grew = true; grew;) {
    grew = false;
    const need = exposed();
    for (let x = 0; x < body.length; x++) {
      if (inP2.has(x)) continue;
      const rx = insns[body[x]!]!;
      if (!rx.defs.some((u) => need.has(u))) continue;
      if (control.has(body[x]!) || !isAddressCode(rx)) return `the loads' address code reads a register the loop control or non-address code updates`;
      inP2.add(x);
      grew = true;
    }
  }
  // P2 moves to the front of the body
  for (const y of inP2) for (let z = 0; z < y; z++) if (!inP2.has(z) && dependent(graph, z, y)) return `the loads' address code and its updates cannot move to the front of the body`;
  const p = body.filter((_, x) => inP2.has(x));
  const r = body.filter((_, x) => !inP2.has(x));
  if (p.some((i) => insns[i]!.defs.includes(SCC))) return `the loads' address code writes SCC`;
  const dUnits = new Set<number>();
  const dsts = loads.map((i) => vdstOf(insns[i]!));
  for (let x = 0; x < loads.length; x++) {
    const d = dsts[x];
    const rl = insns[loads[x]!]!;
    if (!d || rl.info.mem?.d16 || rl.defs.length !== d.count) return `a load writes part of a register or a d16 half`;
    for (let c = 0; c < d.count; c++) dUnits.add(VGPR_BASE + d.first + c);
  }
  // across the back edge: P2 of the next iteration passes R2 of this one
  const defsP = new Set<number>(); const usesP = new Set<number>();
  for (const i of p) { for (const u of insns[i]!.defs) defsP.add(u); for (const u of insns[i]!.uses) usesP.add(u); }
  for (const i of r) {
    const x = insns[i]!;
    if (x.info.mem && x.info.mem.op !== 'load') return `the rest of the body writes memory`;
    if (x.defs.some((u) => usesP.has(u) || defsP.has(u))) return `the rest of the body writes a register the loads' address code reads or writes`;
    if (x.uses.some((u) => defsP.has(u) && !dUnits.has(u))) return `the rest of the body reads a register the loads' address code writes`;
  }
  // the address code uses D as well (a load overwriting its own address registers): both
  // iterations then load into free registers, and D stays the address code's
  const loadSet = new Set(loads);
  const shared = p.some((i) => insns[i]!.uses.some((u) => dUnits.has(u)) || (!loadSet.has(i) && insns[i]!.defs.some((u) => dUnits.has(u))));
  for (const d of dsts) {
    const units = Array.from({ length: d!.count }, (_, c) => VGPR_BASE + d!.first + c);
    if (!readsDirectly(ctx, r, units, liveOut)) return `the loaded registers are live after the loop, written by the rest of the body, or not named as whole operands`;
  }
  // the alternate registers: named nowhere in the loop, dead after it, below the limit
  const inLoop = new Set<number>();
  for (const i of body) for (const u of [...insns[i]!.defs, ...insns[i]!.uses]) inLoop.add(u);
  const aligned = ctx.target.registers.unifiedVgprFile.value;
  const taken = new Set<number>();
  const buffers: TwoStage['buffers'] = [];
  const next = ctx.kernel.descriptor?.values['next_free_vgpr'];
  const grown = growLimit(ctx, limit);
  const pick = (count: number): number | undefined => {
    for (let s = 0; s + count <= grown; s += aligned && count > 1 ? 2 : 1) {
      let good = true;
      for (let c = 0; c < count && good; c++) {
        const u = VGPR_BASE + s + c;
        good = !inLoop.has(u) && !taken.has(u) && !setHas(liveOut, u) && !setHas(liveIn, u);
      }
      if (good) { for (let c = 0; c < count; c++) taken.add(VGPR_BASE + s + c); return s; }
    }
    return undefined;
  };
  for (let x = 0; x < loads.length; x++) {
    const d = dsts[x]!;
    const odd = shared ? pick(d.count) : d.first;
    const to = pick(d.count);
    if (odd === undefined || to === undefined) return `no free registers for the alternate loads`;
    buffers.push({ load: loads[x]!, from: d.first, odd, to, count: d.count });
  }
  const top = Math.max(...buffers.map((x) => Math.max(x.to, x.odd) + x.count));
  const accum = ctx.kernel.descriptor?.values['accum_offset'];
  const grow = next !== undefined && top > next
    ? { nextFree: top, ...(aligned && accum !== undefined ? { accumOffset: Math.max(accum, alignUp(top, 4)) } : {}) } : undefined;
  return { p, r, moved: p.filter((i) => !inP.has(body.indexOf(i))), buffers, loopBound, firstBound: counter.loopBound, ...(grow ? { grow } : {}) };
}

/** Can the peeled R read the renamed registers in place of D (see Rename.peelDirect)? */
function readsDirectly(ctx: KernelContext, r: number[], dUnits: number[], liveOut: Uint32Array): boolean {
  if (dUnits.some((u) => setHas(liveOut, u))) return false;
  const lo = dUnits[0]! - VGPR_BASE;
  const hi = dUnits[dUnits.length - 1]! - VGPR_BASE;
  for (const i of r) {
    const x = ctx.insns[i]!;
    if (x.defs.some((u) => dUnits.includes(u))) return false;
    if (!x.uses.some((u) => dUnits.includes(u))) continue;
    let named = false;
    for (const o of x.insn.operands) {
      if (o.kind !== 'reg' || o.file !== 'v') continue;
      if (o.index + o.count - 1 < lo || o.index > hi) continue;
      if (o.index < lo || o.index + o.count - 1 > hi || !PLAIN_VGPR.test(o.text.trim())) return false;
      named = true;
    }
    if (!named) return false;
  }
  return true;
}

/** A VGPR operand written plainly (no modifier): `v5` or `v[4:7]`. */
export const PLAIN_VGPR = /^v(\d+|\[\d+:\d+\])$/;

/** Destination VGPR range of a load (index in the VGPR file), or undefined. */
function vdstOf(r: ResolvedInsn): { first: number; count: number } | undefined {
  const o = r.insn.operands[0];
  if (!o || o.kind !== 'reg' || o.file !== 'v') return undefined;
  return { first: o.index, count: o.count };
}

/**
 * Free registers for the loads of P (see the file comment); a load gets none when no range
 * fits. Preference: registers the loop does not name at all, then the load's own address
 * registers (free once it has issued), then other address temporaries of P.
 */
function chooseRenames(ctx: KernelContext, body: number[], p: number[], r: number[], loads: number[], liveOut: Uint32Array, limit: number): Rename[] {
  const { insns } = ctx;
  for (const i of body) if (insns[i]!.defs.includes(EXEC_LO) || insns[i]!.defs.includes(EXEC_HI)) return [];
  const aligned = ctx.target.registers.unifiedVgprFile.value;
  const referencedBy = (list: number[]) => {
    const s = new Set<number>();
    for (const i of list) for (const u of [...insns[i]!.defs, ...insns[i]!.uses]) s.add(u);
    return s;
  };
  const inR = referencedBy(r);
  const inLoop = referencedBy(body);
  const taken = new Set<number>();
  const dsts = loads.map((i) => vdstOf(insns[i]!));
  for (const d of dsts) if (d) for (let k = 0; k < d.count; k++) taken.add(VGPR_BASE + d.first + k);
  const pSet = new Set(p);
  const out: Rename[] = [];
  for (let x = 0; x < loads.length; x++) {
    const i = loads[x]!;
    const rl = insns[i]!;
    const d = dsts[x];
    if (!d || rl.info.mem?.d16) continue;
    if (rl.defs.length !== d.count) continue;
    const dUnits = Array.from({ length: d.count }, (_, k) => VGPR_BASE + d.first + k);
    // P must not read D (a load feeding another load's address)
    if (p.some((j) => insns[j]!.uses.some((u) => dUnits.includes(u)))) continue;
    const after = referencedBy(body.slice(body.indexOf(i) + 1).filter((j) => pSet.has(j)));
    const own = new Set(rl.uses);
    const ok = (u: number) => !taken.has(u) && !setHas(liveOut, u) && !inR.has(u) && !after.has(u);
    const pick = (pref: (u: number) => boolean): number | undefined => {
      for (let s = 0; s + d.count <= limit; s += aligned && d.count > 1 ? 2 : 1) {
        let good = true;
        for (let k = 0; k < d.count && good; k++) { const u = VGPR_BASE + s + k; good = ok(u) && pref(u); }
        if (good) return s;
      }
      return undefined;
    };
    const s = pick((u) => !inLoop.has(u)) ?? pick((u) => own.has(u) || !inLoop.has(u)) ?? pick(() => true);
    if (s === undefined) continue;
    for (let k = 0; k < d.count; k++) taken.add(VGPR_BASE + s + k);
    out.push({ load: i, from: d.first, to: s, count: d.count, peelDirect: readsDirectly(ctx, r, dUnits, liveOut) });
  }
  return out;
}
