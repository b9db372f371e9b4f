/**
 * A kernel prepared for scheduling: every instruction classified (movable, pinned, stripped
 * dependency wait/nop, or kept), scheduling regions (basic blocks split at pinned instructions,
 * at directives and at scheduling barriers), stable tags, flattened def/use lists and memory accesses, the dependency
 * graph of every region, and the facts the metrics need (live-out sets, pressure at pinned
 * instructions). Built once per kernel; a schedule (state.ts) is then a permutation per region.
 *
 * Pinned (never moved, and region boundaries): s_barrier, branches and every PC-relative
 * instruction (s_getpc..s_setpc long branches of Tensile, and any instruction whose operand is
 * a symbol such as a `@rel32` relocation), s_endpgm, s_setprio, s_sleep, s_sendmsg and the other
 * messages, s_trap, s_setreg/s_getreg and the other mode instructions (s_set_gpr_idx_*,
 * s_setvskip), cache writeback/invalidate (buffer_wbl2, buffer_inv, buffer_wbinvl1*, s_dcache_*,
 * s_icache_inv), s_memtime, exports, GWS/ordered-count, anything whose effects the catalogue does
 * not know, and fence waits.
 *
 * Waits: an s_waitcnt is a fence (pinned) when it stands right before an s_barrier, a cache
 * operation, a message, a call or a return (only waits and nops between: waitcnt's
 * waitPositions, the rule the waitcnt analysis judges fences by), or after a cache operation
 * with only instructions that increment no counter between. (Memory operations that
 * other waits happen to complete before such a point stay complete: completion.ts.)
 * The waitcnt analysis (src/waitcnt, fenceWaits) adds the waits it finds to be fences (for
 * example a wait that completes stores before a release). `ScheduleOptions.isFence` decides
 * instead when given. Every other s_waitcnt and every s_nop inside a region is a dependency
 * wait/nop: stripped before scheduling, re-derived after. Waits and nops in a run without
 * movable instructions are kept as they are.
 *
 * Scheduling barriers: `__builtin_amdgcn_sched_barrier(mask)` leaves only the comment
 * `; sched_barrier mask(0x...)` in the assembly LLVM writes (AMDGPUAsmPrinter prints the
 * SCHED_BARRIER pseudo-instruction as that comment). Nothing is moved across it, whatever the
 * mask lets LLVM's scheduler move (AMDGPUIGroupLP: the mask names the instruction kinds that may
 * cross): the kernel's author put it there to keep an order. `sched_group_barrier` and `iglp_opt`
 * comments describe an arrangement for LLVM's own scheduler and do not split regions.
 *
 * Tags: `<mnemonic>_<n>`, n counting the tagged instructions (movable and pinned) with that
 * mnemonic in kernel order, from 0. A tag names an instruction, not a position.
 */
import type { Disambiguation } from './deps.js';
import type { KernelSymbol, Program, Statement } from '../asm/ast.js';
import { namesConstant, namesSymbol } from '../asm/store.js';
import type { Loaded } from '../load.js';
import type { KernelContext } from '../analysis/types.js';
import { kernelContexts } from '../analysis/context.js';
import { computeLiveness, countFiles, noteUsed } from '../analysis/liveness.js';
import { pcRelativeSpans } from '../analysis/cfg.js';
import type { ResolvedInsn } from '../isa/types.js';
import type { Target } from '../isa/target.js';
import { checkFastFromEnv, ConductorError, FastPathMismatch } from '../errors.js';
import { memAccessOf, type MemAccess } from './memory.js';
import { traitsOf } from '../isa/traits.js';
import { buildGraph, type DepGraph } from './deps.js';
import { fenceWaits, waitPositions, type WaitPosition } from '../waitcnt/index.js';
import { preloadHeaderLength } from '../isa/descriptor.js';
import { once } from '../analysis/memo.js';
import { isInlineAsmMarker } from '../asm/inline-asm.js';
import { rawJumpRefusal, rawWordsRefusal } from '../check/check.js';

/**
 * What an instruction is to the scheduler: movable; pinned (never moved, a region boundary);
 * stripped (a dependency s_waitcnt / s_nop inside a region: removed and re-derived when the
 * region changes); kept (an s_waitcnt / s_nop outside every region, no movable instruction
 * around it: left alone).
 */
export const ROLE = { movable: 0, pinned: 1, stripped: 2, kept: 3 } as const;

export interface ScheduleOptions {
  /**
   * Tell apart accesses through the same base with disjoint constant offsets: true (default)
   * for uniform (SGPR) bases only, 'per-lane' also for VGPR bases, false never (see Disambiguation).
   */
  disambiguate?: Disambiguation;
  /**
   * Decide whether the s_waitcnt at kernel instruction `i` is a fence (pinned). Return undefined
   * to use the built-in rule.
   */
  isFence?: (ctx: KernelContext, i: number) => boolean | undefined;
  /**
   * The kernel's s_waitcnt instructions that the waitcnt analysis judges fences (waitcnt
   * fenceWaits), when the caller has them: a worker thread preparing a program that another
   * thread checked gets them from that thread (keptFenceWaits) instead of making the whole
   * analysis again. With CONDUCTOR_CHECK_FAST=1 they are compared with fenceWaits.
   */
  fenceWaits?: ReadonlySet<number>;
  /** Trip count of loops whose count the code does not give, for est_cycles (default DEFAULT_TRIP). */
  trip?: number;
  /**
   * The kernel is prepared to show its regions (report), not to be reordered: data words among
   * its instructions (rawWordsRefusal) do not refuse it then.
   */
  viewOnly?: boolean;
}

export interface Region {
  id: number;
  /** Basic block (cfg.blocks index). */
  block: number;
  /** Kernel instruction indexes of the movable instructions, in the original order. */
  nodes: Int32Array;
  /** First and last kernel instruction index covered (stripped waits/nops included). */
  first: number;
  last: number;
  /** Kernel instruction indexes of the stripped waits and nops in the region. */
  stripped: Int32Array;
  strippedWaits: number;
  strippedNops: number;
  graph: DepGraph;
  /** Register units live right after the region (bitset of 1024 units). */
  liveOut: Uint32Array;
  /** Lines of the first and last instruction. */
  lines: [number, number];
}

export interface ScheduleKernel {
  loaded: Loaded;
  ctx: KernelContext;
  target: Target;
  kernel: KernelSymbol;
  name: string;
  options: Required<Pick<ScheduleOptions, 'disambiguate'>> & ScheduleOptions;
  /** Number of instructions (cfg.insns). */
  n: number;
  insns: readonly ResolvedInsn[];
  /** ROLE.movable / ROLE.pinned / ROLE.stripped / ROLE.kept per instruction. */
  role: Uint8Array;
  /** Why an instruction is pinned ('' otherwise). */
  pinReason: string[];
  /** Region of each instruction (-1 when none: pinned or kept). Stripped ones belong to their region. */
  regionOf: Int32Array;
  /** Index of a movable instruction within its region's nodes (-1 otherwise). */
  localOf: Int32Array;
  /** Tag of each instruction ('' for stripped and kept waits/nops). */
  tags: string[];
  byTag: Map<string, number>;
  /** Flattened defs and uses (explicit + implicit) per instruction. */
  defOff: Int32Array;
  defUnits: Int32Array;
  useOff: Int32Array;
  useUnits: Int32Array;
  mem: (MemAccess | undefined)[];
  regions: Region[];
  /** Highest pressure at pinned and kept instructions (independent of any schedule). */
  fixedPeak: { vgpr: number; agpr: number; sgpr: number };
  /** Registers named (highest index + 1 per file): what the allocation must cover. */
  used: { vgpr: number; agpr: number; sgpr: number };
  /** s_waitcnt / s_nop instructions outside the stripped sets (fences, kept) and their total count. */
  fixedWaits: number;
  fixedNops: number;
  /** Instructions that are neither stripped waits nor stripped nops. */
  fixedInstructions: number;
}

const CACHE_NAMES = /^(buffer_wbl2|buffer_inv|buffer_wbinvl1|s_dcache_|s_icache_inv)/;
const MODE_NAMES = new Set(['s_setvskip', 's_set_gpr_idx_on', 's_set_gpr_idx_off', 's_set_gpr_idx_mode', 's_set_gpr_idx_idx']);

/** A cache writeback or invalidate (s_icache_inv included, which the catalogue counts as no memory operation). */
export function isCacheOp(r: ResolvedInsn): boolean {
  return r.info.mem?.op === 'cache' || CACHE_NAMES.test(r.insn.base);
}

function isWait(r: ResolvedInsn): boolean { return r.insn.base === 's_waitcnt'; }
function isSNop(r: ResolvedInsn): boolean { return r.insn.base === 's_nop'; }
function countsEvents(r: ResolvedInsn): boolean {
  const c = r.info.counters;
  return c.vm > 0 || c.lgkm > 0 || c.exp > 0;
}

/** Why an instruction must not move ('' when it may). Waits are decided separately. */
export function pinnedReason(r: ResolvedInsn): string {
  if (r.unknown) return 'its effects are unknown';
  const cls = r.info.cls;
  const base = r.insn.base;
  switch (cls) {
    case 'barrier': return 'a barrier';
    case 'branch': return base === 's_getpc_b64' ? 'PC-relative' : 'a branch';
    case 'endpgm': return 'the end of the program';
    case 'message': return base === 's_trap' ? 'a trap' : 'a message';
    case 'export': return 'an export';
    case 'other':
      if (isCacheOp(r)) return 'a cache operation';
      if (base === 's_setprio') return 'a priority change';
      if (base === 's_sleep') return 'a sleep';
      if (base.startsWith('s_setreg') || base === 's_getreg_b32') return 'a hardware register access';
      return 'a mode or scheduling instruction';
    default: break;
  }
  if (isCacheOp(r)) return 'a cache operation';
  if (MODE_NAMES.has(base)) return 'a mode instruction';
  const mem = r.info.mem;
  if (mem && (mem.op === 'time' || mem.op === 'probe')) return 'a timer or probe';
  if (mem && (mem.space === 'gws' || (mem.op === 'other' && cls !== 'ds'))) return 'a GWS or ordered operation';
  if (namesSymbol(r.insn)) return 'PC-relative (names a symbol)';
  // s_movrels / s_movreld read or write the SGPR M0 selects, which the code does not name
  if (base.startsWith('s_movrel')) return 'an SGPR access indexed by M0';
  // lds_direct reads LDS at the address in M0 (gfx906/gfx908): a memory read no access model sees
  if (readsLdsDirect(r)) return 'an LDS read at M0 (lds_direct)';
  // v_mfma_ld_scale_b32 sets the scales of the MFMA that follows it (gfx950)
  if (base === 'v_mfma_ld_scale_b32') return 'the scales of the next MFMA';
  // s_rfe_restore_b64 returns from a trap handler (it sets the PC)
  if (base === 's_rfe_restore_b64') return 'a return from a trap handler';
  return '';
}

const LDS_DIRECT = ['lds_direct', 'src_lds_direct'];

/**
 * Does `r` read an lds_direct source (LDS at M0)? Read from the instruction store: every
 * instruction of the kernel is asked, and operand objects made here would stay on the program
 * for the whole run (about 15 MiB on a kernel of 41,536 instructions).
 */
function readsLdsDirect(r: ResolvedInsn): boolean {
  return namesConstant(r.insn, LDS_DIRECT);
}

/** A wait right after a cache operation, with only instructions that count nothing between (the acquire side). */
function afterCacheOp(k: KernelContext, i: number): boolean {
  const { cfg, insns } = k;
  const block = cfg.blocks[cfg.blockOf[i]!]!;
  for (let j = i - 1; j >= block.start; j--) {
    const r = insns[j]!;
    if (isCacheOp(r)) return true;
    if (countsEvents(r) || pinnedReason(r) !== '') break;
  }
  return false;
}

/** Prepare every kernel of a loaded file (or only `name`). */
export function prepareKernels(loaded: Loaded, opts: ScheduleOptions & { kernel?: string } = {}): ScheduleKernel[] {
  const ctxs = kernelContexts(loaded);
  const chosen = opts.kernel === undefined ? ctxs : ctxs.filter((c) => c.kernel.name === opts.kernel);
  if (opts.kernel !== undefined && chosen.length === 0) {
    throw new ConductorError(`no kernel named '${opts.kernel}' in ${loaded.program.file} (kernels: ${ctxs.map((c) => c.kernel.name).join(', ') || 'none'})`);
  }
  return chosen.map((c) => prepareKernel(loaded, c, opts));
}

/**
 * The kernel `apply` works on: the one named, else the only kernel with a descriptor, else the
 * only one with instructions.
 */
export function pickKernel(loaded: Loaded, name?: string, opts: ScheduleOptions = {}): ScheduleKernel {
  const ctxs = kernelContexts(loaded);
  if (name !== undefined) {
    const c = ctxs.find((x) => x.kernel.name === name);
    if (!c) throw new ConductorError(`no kernel named '${name}' in ${loaded.program.file} (kernels: ${ctxs.map((x) => x.kernel.name).join(', ') || 'none'})`);
    return prepareKernel(loaded, c, opts);
  }
  const withCode = ctxs.filter((c) => c.insns.length > 0);
  const kernels = withCode.filter((c) => c.kernel.kind === 'kernel');
  const pick = kernels.length === 1 ? kernels[0] : withCode.length === 1 ? withCode[0] : undefined;
  if (!pick) {
    const names = withCode.map((c) => c.kernel.name);
    throw new ConductorError(names.length === 0
      ? `${loaded.program.file} has no instructions to schedule`
      : `${loaded.program.file} has ${names.length} kernels (${names.join(', ')}): pick one with --kernel`);
  }
  return prepareKernel(loaded, pick, opts);
}

export function prepareKernel(loaded: Loaded, ctx: KernelContext, opts: ScheduleOptions = {}): ScheduleKernel {
  const refusal = rawJumpRefusal(ctx, 'schedule') ?? (opts.viewOnly ? undefined : rawWordsRefusal(ctx, 'schedule'));
  if (refusal) throw refusal;
  const { role, pinReason } = classifyRoles(loaded, ctx, opts);
  const flat = flattenOperands(ctx);
  const disambiguate = opts.disambiguate ?? true;
  const { regions, regionOf, localOf } = buildRegions(loaded, ctx, role, flat, disambiguate);
  const { tags, byTag } = assignTags(ctx, role);
  const fixedPeak = liveness(ctx, role, regions);
  const used = { vgpr: 0, agpr: 0, sgpr: 0 };
  for (let p = 0; p < flat.defUnits.length; p++) noteUsed(used, flat.defUnits[p]!);
  for (let p = 0; p < flat.useUnits.length; p++) noteUsed(used, flat.useUnits[p]!);
  const { insns } = ctx;
  const n = insns.length;
  let fixedWaits = 0;
  let fixedNops = 0;
  let fixedInstructions = 0;
  for (let i = 0; i < n; i++) {
    if (role[i] !== ROLE.stripped) {
      fixedInstructions++;
      if (isWait(insns[i]!)) fixedWaits++;
      else if (isSNop(insns[i]!)) fixedNops++;
    }
  }
  return {
    loaded, ctx, target: loaded.target, kernel: ctx.kernel, name: ctx.kernel.name,
    options: { ...opts, disambiguate },
    n, insns, role, pinReason, regionOf, localOf, tags, byTag, ...flat, regions,
    fixedPeak, used, fixedWaits, fixedNops, fixedInstructions,
  };
}

/** fenceWaits of the kernel, or the caller's `given` (checked against it under CONDUCTOR_CHECK_FAST=1). */
function analysisFenceWaits(ctx: KernelContext, given: ReadonlySet<number> | undefined): { has(i: number): boolean } {
  if (!given) return fenceWaits(ctx);
  if (checkFastFromEnv()) {
    const made = [...fenceWaits(ctx).keys()].sort((a, b) => a - b).join(',');
    const had = [...given].sort((a, b) => a - b).join(',');
    if (made !== had) throw new FastPathMismatch(`fast path check: the fence waits given for ${ctx.kernel.name} (${had}) are not the analysis' (${made})`);
  }
  return given;
}

/** Every instruction's role (ROLE.movable, ROLE.pinned or ROLE.stripped; ROLE.kept comes with the regions) and why a pinned one is. */
function classifyRoles(loaded: Loaded, ctx: KernelContext, opts: ScheduleOptions): { role: Uint8Array; pinReason: string[] } {
  const { cfg, insns } = ctx;
  const n = insns.length;
  const role = new Uint8Array(n);
  const pinReason: string[] = new Array(n).fill('');
  // --- pinned instructions ------------------------------------------------------------------
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    if (isWait(r)) continue;
    if (isSNop(r)) continue;
    const why = pinnedReason(r);
    if (why) { role[i] = ROLE.pinned; pinReason[i] = why; }
  }
  for (const lb of cfg.longBranches) {
    if (lb.loop) {
      // a loop closed by s_setpc_b64: the two ends stay, the body between them is code like any other
      for (const i of [lb.getpc, lb.setpc]) { role[i] = ROLE.pinned; pinReason[i] = 'the ends of a loop closed by s_setpc_b64 of an s_getpc_b64 address'; }
      continue;
    }
    for (let i = lb.getpc; i <= lb.setpc; i++) { role[i] = ROLE.pinned; pinReason[i] = 'part of a long branch (s_getpc_b64 .. s_setpc_b64)'; }
  }
  const asm = once(loaded.program, 'inlineAsmLines', () => inlineAsmLines(loaded.program));
  for (let i = 0; i < n; i++) {
    const st = loaded.program.statements[cfg.insns[i]!.stmt]!;
    if (asm[st.lineIndex] === 1 && role[i] !== ROLE.pinned) {
      role[i] = ROLE.pinned;
      pinReason[i] = 'inline asm (between ;;#ASMSTART and ;;#ASMEND): the author\'s own code';
    }
  }
  const header = preloadHeaderLength(ctx.kernel.descriptor, n, (i) => insns[i]!.insn.base);
  for (let i = 0; i < header; i++) {
    role[i] = ROLE.pinned;
    pinReason[i] = 'the kernel-argument preload header (the 256 bytes firmware that preloads skips)';
  }
  // s_getpc_b64 and the instructions after it in its block up to the last one naming a symbol.
  const spans = pcRelativeSpans(cfg);
  for (let j = 0; j < n; j++) {
    if (spans[j]! >= 0 && role[j] !== ROLE.pinned) { role[j] = ROLE.pinned; pinReason[j] = 'inside a PC-relative sequence (s_getpc_b64 .. its last symbol)'; }
  }
  let analysisFences: { has(i: number): boolean } | undefined;
  let positions: ReadonlyMap<number, WaitPosition> | undefined;
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    if (!isWait(r) || role[i] === ROLE.pinned) continue;
    let decided = opts.isFence?.(ctx, i);
    if (decided === undefined) {
      analysisFences ??= analysisFenceWaits(ctx, opts.fenceWaits);
      positions ??= waitPositions(ctx);
      decided = analysisFences.has(i) || positions.get(i)?.before !== undefined || afterCacheOp(ctx, i);
    }
    if (decided) { role[i] = ROLE.pinned; pinReason[i] = 'a fence wait (completes memory operations for a barrier, message, call or cache operation)'; }
  }
  for (let i = 0; i < n; i++) {
    if (role[i] === ROLE.pinned) continue;
    const r = insns[i]!;
    role[i] = isWait(r) || isSNop(r) ? ROLE.stripped : ROLE.movable;
  }

  return { role, pinReason };
}

/** Flattened defs and uses (explicit + implicit) and the memory access of every instruction. */
function flattenOperands(ctx: KernelContext): Pick<ScheduleKernel, 'defOff' | 'defUnits' | 'useOff' | 'useUnits' | 'mem'> {
  const { insns } = ctx;
  const n = insns.length;
  let nd = 0;
  let nu = 0;
  // indexed loops: this runs once per kernel and thread, before V8 optimizes it (a for-of makes an
  // iterator result per step there)
  for (let i = 0; i < n; i++) { const r = insns[i]!; nd += r.defs.length; nu += r.uses.length; }
  const defOff = new Int32Array(n + 1);
  const useOff = new Int32Array(n + 1);
  const defUnits = new Int32Array(nd);
  const useUnits = new Int32Array(nu);
  nd = 0; nu = 0;
  const mem: (MemAccess | undefined)[] = new Array(n);
  const traits = traitsOf(insns);
  for (let i = 0; i < n; i++) {
    const r = insns[i]!;
    defOff[i] = nd;
    const defs = r.defs;
    for (let x = 0; x < defs.length; x++) defUnits[nd++] = defs[x]!;
    useOff[i] = nu;
    const uses = r.uses;
    for (let x = 0; x < uses.length; x++) useUnits[nu++] = uses[x]!;
    mem[i] = memAccessOf(r, traits, i);
  }
  defOff[n] = nd;
  useOff[n] = nu;

  return { defOff, defUnits, useOff, useUnits, mem };
}

/**
 * Scheduling regions: the runs of a basic block between pinned instructions and directives, with
 * their dependency graphs. A run of stripped waits and nops without a movable instruction is
 * ROLE.kept as it is.
 */
function buildRegions(loaded: Loaded, ctx: KernelContext, role: Uint8Array,
  flat: Pick<ScheduleKernel, 'defOff' | 'defUnits' | 'useOff' | 'useUnits' | 'mem'>, disambiguate: Disambiguation,
): { regions: Region[]; regionOf: Int32Array; localOf: Int32Array } {
  const { cfg, insns } = ctx;
  const n = insns.length;
  const program = loaded.program;
  // --- directives between instructions split regions ----------------------------------------
  const stmtDirectiveBefore = new Uint8Array(n); // 1 when a directive statement lies between insn i-1 and i
  for (let i = 1; i < n; i++) {
    const a = cfg.insns[i - 1]!.stmt;
    const b = cfg.insns[i]!.stmt;
    for (let s = a + 1; s < b; s++) {
      const st = program.statements[s]!;
      // a .loc (a row of the debug line table, no code; clang -g writes one per source line)
      // moves with the instruction below it (reorder.ts): it splits no region
      if ((st.kind === 'directive' && !isDebugLine(st)) || st.kind === 'raw') { stmtDirectiveBefore[i] = 1; break; }
    }
    if (!stmtDirectiveBefore[i] && schedBarrierBetween(program, program.statements[a]!.lineIndex, program.statements[b]!.lineIndex)) {
      stmtDirectiveBefore[i] = 1;
    }
  }

  // --- regions --------------------------------------------------------------------------------
  const regionOf = new Int32Array(n).fill(-1);
  const localOf = new Int32Array(n).fill(-1);
  const runs: { block: number; from: number; to: number }[] = [];
  for (const b of cfg.blocks) {
    let from = b.start;
    for (let i = b.start; i <= b.end; i++) {
      const boundary = i === b.end || role[i] === ROLE.pinned || (i > from && stmtDirectiveBefore[i]);
      if (!boundary) continue;
      if (i > from) runs.push({ block: b.id, from, to: i });
      from = role[i] === ROLE.pinned ? i + 1 : i;
    }
  }
  const kernelBase = { loaded, ctx, n, insns, role, ...flat };
  const regions: Region[] = [];
  for (const run of runs) {
    const nodes: number[] = [];
    const stripped: number[] = [];
    let waits = 0;
    let nops = 0;
    for (let i = run.from; i < run.to; i++) {
      if (role[i] === ROLE.movable) nodes.push(i);
      else if (role[i] === ROLE.stripped) { stripped.push(i); if (isWait(insns[i]!)) waits++; else nops++; }
    }
    if (nodes.length === 0) {
      for (const i of stripped) role[i] = ROLE.kept;
      continue;
    }
    const id = regions.length;
    for (let k = 0; k < nodes.length; k++) { regionOf[nodes[k]!] = id; localOf[nodes[k]!] = k; }
    for (const i of stripped) regionOf[i] = id;
    const nodeArr = Int32Array.from(nodes);
    regions.push({
      id, block: run.block, nodes: nodeArr, first: run.from, last: run.to - 1, stripped: Int32Array.from(stripped),
      strippedWaits: waits, strippedNops: nops,
      graph: buildGraph(kernelBase, nodeArr, disambiguate),
      liveOut: new Uint32Array(32),
      lines: [cfg.insns[nodes[0]!]!.loc.line, cfg.insns[nodes[nodes.length - 1]!]!.loc.line],
    });
  }

  return { regions, regionOf, localOf };
}

/** A `; sched_barrier mask(...)` comment line after line `from` and before line `to` (0-based). */
export function schedBarrierBetween(program: Program, from: number, to: number): boolean {
  if (to <= from + 1) return false;
  // where the text names sched_barrier at all (made once per program: most name it nowhere), so
  // that the lines are read only where one may stand
  const at = once(program, 'schedBarrierOffsets', () => textOffsets(program.lineIndex.text, 'sched_barrier'));
  if (at.length === 0) return false;
  const idx = program.lineIndex;
  const a = idx.start[from + 1]!;
  let lo = 0;
  let hi = at.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (at[mid]! < a) lo = mid + 1; else hi = mid; }
  if (lo === at.length || at[lo]! >= idx.start[to]!) return false;
  for (let l = from + 1; l < to; l++) if (isSchedBarrierLine(idx.line(l))) return true;
  return false;
}

/** The offsets at which `needle` starts in `text`, in order. */
function textOffsets(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let p = text.indexOf(needle); p >= 0; p = text.indexOf(needle, p + needle.length)) out.push(p);
  return out;
}

/**
 * A `.loc` directive: a row of the debug line table (DWARF .debug_line), no byte of code. It
 * names the source line of the instructions after it, so a reordering carries it with the
 * instruction right below it (reorder.ts), as a compiler's scheduler keeps an instruction's
 * debug location; verify ignores it (verify/view.ts).
 */
export function isDebugLine(st: Statement): boolean {
  return st.kind === 'directive' && st.name === '.loc';
}

/** Whether a line is a `; sched_barrier mask(...)` comment (a region boundary: it never moves). */
export function isSchedBarrierLine(text: string): boolean {
  return text.includes('sched_barrier') && SCHED_BARRIER.test(text);
}
const SCHED_BARRIER = /^\s*(?:;|\/\/)\s*sched_barrier\s+mask\(/;

/** A comment line no instruction carries when it moves: a sched_barrier or an inline-asm marker. */
export function staysInPlace(text: string): boolean {
  return isSchedBarrierLine(text) || isInlineAsmMarker(text) !== undefined;
}

/** 1 for the lines between an `;;#ASMSTART` and its `;;#ASMEND` (the inline-asm statements). */
function inlineAsmLines(program: Program): Uint8Array {
  // read by line starts (no object per line), and only when the text has a marker at all
  const idx = program.lineIndex;
  const out = new Uint8Array(idx.count);
  if (!idx.text.includes(';;#ASM')) return out;
  let inside = false;
  for (let l = 0; l < idx.count; l++) {
    const text = idx.line(l);
    if (!text.includes(';;#ASM')) { if (inside) out[l] = 1; continue; }
    const m = isInlineAsmMarker(text);
    if (m === 'start') inside = true;
    else if (m === 'end') inside = false;
  }
  return out;
}

/** Stable tags `<mnemonic>_<n>` of the movable and pinned instructions. */
function assignTags(ctx: KernelContext, role: Uint8Array): { tags: string[]; byTag: Map<string, number> } {
  const { insns } = ctx;
  const n = insns.length;
  // --- tags --------------------------------------------------------------------------------------
  const tags: string[] = new Array(n).fill('');
  const byTag = new Map<string, number>();
  const perMnemonic = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    if (role[i] === ROLE.stripped || role[i] === ROLE.kept) continue;
    const m = insns[i]!.insn.mnemonic;
    const k = perMnemonic.get(m) ?? 0;
    perMnemonic.set(m, k + 1);
    const tag = `${m}_${k}`;
    tags[i] = tag;
    byTag.set(tag, i);
  }

  return { tags, byTag };
}

/** Fills each region's live-out set; returns the highest pressure at pinned and kept instructions. */
function liveness(ctx: KernelContext, role: Uint8Array, regions: readonly Region[]): ScheduleKernel['fixedPeak'] {
  const { cfg, insns } = ctx;
  // --- liveness: live-out of every region, pressure at fixed instructions ------------------------
  // the instructions' own defs and uses (no object per instruction made for it)
  const live = computeLiveness(cfg, insns);
  const regionEndingAt = new Map<number, Region>();
  for (const rg of regions) regionEndingAt.set(rg.last, rg);
  const fixedPeak = { vgpr: 0, agpr: 0, sgpr: 0 };
  const after = new Uint32Array(32);
  for (const b of cfg.blocks) {
    const cur = live.liveOut[b.id]!.slice();
    for (let i = b.end - 1; i >= b.start; i--) {
      const rg = regionEndingAt.get(i);
      if (rg) rg.liveOut.set(cur);
      const r = insns[i]!;
      const fixed = role[i] === ROLE.pinned || role[i] === ROLE.kept;
      if (fixed) {
        // pressure at i: max(live after + written, live before), as computePressure defines it
        after.set(cur);
        for (let x = 0; x < r.defs.length; x++) { const u = r.defs[x]!; after[u >>> 5]! |= 1 << (u & 31); }
        notePeak(fixedPeak, after);
      }
      for (let x = 0; x < r.defs.length; x++) { const u = r.defs[x]!; cur[u >>> 5]! &= ~(1 << (u & 31)); }
      for (let x = 0; x < r.uses.length; x++) { const u = r.uses[x]!; cur[u >>> 5]! |= 1 << (u & 31); }
      if (fixed) notePeak(fixedPeak, cur);
    }
  }
  return fixedPeak;
}

/** Raise `peak` to the live VGPR / AGPR / SGPR counts of a unit bitset. */
function notePeak(peak: { vgpr: number; agpr: number; sgpr: number }, set: Uint32Array): void {
  const c = countFiles(set);
  if (c.vgpr > peak.vgpr) peak.vgpr = c.vgpr;
  if (c.agpr > peak.agpr) peak.agpr = c.agpr;
  if (c.sgpr > peak.sgpr) peak.sgpr = c.sgpr;
}
