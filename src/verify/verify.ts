/**
 * `verify`: is SCHEDULED a reordering of ORIGINAL that computes the same thing?
 *
 * Written on its own, without the scheduler's dependency code, so that it can judge the
 * scheduler. For every kernel (matched by name):
 *
 *  1. Anchors stay: labels, directives, and every instruction that a reordering may not move
 *     (barriers, branches and the rest of the control flow, s_endpgm, messages, traps, exports,
 *     mode/priority/sleep/hwreg/cache instructions, timers, GWS, unknown instructions and any
 *     instruction naming a symbol) appear in the same order with the same operands. Waits and
 *     nops are ignored here (they are re-derived).
 *  2. Between two anchors (a region) both files hold the same instructions (as multisets).
 *  3. Registers: inside every region each register read sees the same producing instruction
 *     (or the region's entry value) as in the original, and every register's last writer at the
 *     region's exit is the same. Identical instructions are told apart by their occurrence.
 *     Registers are physical registers in verify's own reckoning: on a unified VGPR/AGPR file
 *     a_k and v(accum_offset+k) are one, and inside the VGPR indexing mode an indexed operand
 *     reaches every register the index may select (regView, indexModeRanges).
 *  4. Memory: two accesses of a region that may alias (one writes, same memory; FLAT reaches
 *     LDS and global memory; the same base with disjoint constant offsets does not alias when the
 *     base registers hold the same values, and the base is uniform unless per-lane disambiguation
 *     is asked for) keep their order.
 *  5. Completion: the memory operations of a block that the waits in front of a barrier, cache
 *     operation, message, call or return have completed in the original are completed in the
 *     scheduled file too.
 *  6. The scheduled file checks clean: no hazard, missing-wait or descriptor error that the
 *     original does not have (an error already in the original, such as a wait a pessimistic
 *     analysis asks for on a path that cannot run, is matched by rule and instruction).
 *
 * The first difference is reported with its place in both files.
 */
import type { Instruction, KernelSymbol, Loc, Operand, Program, WaitcntOperand } from '../asm/ast.js';
import type { Loaded } from '../load.js';
import { buildCfg, type Cfg } from '../analysis/cfg.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts } from '../check/check.js';
import type { Checker } from '../check/checkers.js';
import type { ResolvedInsn } from '../isa/types.js';
import { AGPR_BASE, M0, rangeName, VGPR_BASE } from '../asm/registers.js';
import { HWREG_MODE, hwregField, hwregId } from '../isa/hwreg.js';
import { gprIdxModeBits, statedIndexRange } from '../isa/kernel-effects.js';
import { validAccumOffset } from '../isa/layout.js';

export type DifferenceKind =
  | 'kernels' | 'anchor' | 'region-contents' | 'reaching-definition' | 'exit-definition' | 'memory-order' | 'completion' | 'check';

export interface Difference {
  kind: DifferenceKind;
  kernel: string;
  message: string;
  original?: Loc;
  scheduled?: Loc;
}

export interface VerifyOptions {
  /**
   * Tell apart accesses through the same base with disjoint offsets: true (default, as the
   * scheduler) only through uniform bases (SGPRs only: every lane uses the same address);
   * 'per-lane' also through VGPR bases (assumes lanes never exchange data through memory
   * without synchronisation); false never.
   */
  disambiguate?: boolean | 'per-lane';
  /** Skip check 6 (tests of the other checks on snippets that are not clean on purpose). */
  skipCheck?: boolean;
  /** The checkers of check 6 (default DEFAULT_CHECKERS). */
  checkers?: readonly Checker[];
}

export interface VerifyResult {
  equivalent: boolean;
  /** The first difference (undefined when equivalent). */
  difference?: Difference;
  /** Per kernel: the instructions that may move (neither pinned, nor a wait or nop), and the pairs of memory accesses kept in order. */
  kernels: { name: string; instructions: number; memoryPairs: number }[];
}

/* ---------------------------------------------------------------------------------------------- */
/* The instruction stream of a kernel                                                             */
/* ---------------------------------------------------------------------------------------------- */

interface Item {
  /** Canonical text: mnemonic and operands as resolved (spelling-independent). */
  key: string;
  r: ResolvedInsn;
  loc: Loc;
  /** Index in the kernel's instruction list (cfg order). */
  index: number;
  /** Registers read and written, as verify's own physical register keys (see regView). */
  reads: readonly number[];
  writes: readonly number[];
}

interface Token {
  /** Identity of the anchor (canonical text). */
  anchor: string;
  /** As the source wrote it. */
  shown: string;
  loc: Loc;
  item?: Item;
}

interface Region {
  /** Anchor (or kernel start) before the region, as the source wrote it. */
  after: string;
  items: Item[];
}

interface KernelView {
  name: string;
  regs: RegView;
  tokens: Token[];
  regions: Region[];
  /** All instructions (cfg order) with waits, for the completion check. */
  all: ResolvedInsn[];
  blockOf: Int32Array;
  blockStart: Int32Array;
  isReturnOrCall: Uint8Array;
}

function operandKey(o: Operand): string {
  switch (o.kind) {
    case 'reg': return `${o.file}${o.first}:${o.count}${o.mods ? JSON.stringify(o.mods) : ''}`;
    case 'imm': return `#${o.value}${o.float ? 'f' : ''}${o.mods ? JSON.stringify(o.mods) : ''}`;
    case 'waitcnt': return `w${o.vmcnt}/${o.expcnt}/${o.lgkmcnt}`;
    default: return o.text.replace(/\s+/g, '');
  }
}

/** Canonical text of an instruction: mnemonic, operands and modifiers, spelling-independent. */
export function keyOf(insn: Instruction): string {
  const mods = insn.modifiers.map((m) => m.text.replace(/\s+/g, '')).sort().join(' ');
  return `${insn.mnemonic} ${insn.operands.map(operandKey).join(',')}${mods ? ' ' + mods : ''}`;
}

const FIXED_CLASSES = new Set(['barrier', 'branch', 'endpgm', 'message', 'export', 'other']);

/** Instructions a reordering must leave in place (verify's own list). */
function isAnchor(r: ResolvedInsn): boolean {
  if (r.unknown) return true;
  const cls = r.info.cls;
  if (FIXED_CLASSES.has(cls)) return true;
  const base = r.insn.base;
  if (/^(s_setvskip|s_set_gpr_idx_|s_dcache_|s_icache_|buffer_wbl2|buffer_inv|buffer_wbinvl1)/.test(base)) return true;
  const mem = r.info.mem;
  if (mem && (mem.op === 'cache' || mem.op === 'time' || mem.op === 'probe' || mem.space === 'gws')) return true;
  if (mem && mem.op === 'other' && cls !== 'ds') return true;
  return r.insn.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0);
}

function isWaitOrNop(r: ResolvedInsn): boolean {
  return r.insn.base === 's_waitcnt' || r.insn.base === 's_nop';
}

function kernelView(l: Loaded, name: string): KernelView | undefined {
  const program: Program = l.program;
  const kernel = program.kernels.find((k) => k.name === name);
  if (!kernel) return undefined;
  const byStmt = new Map<number, ResolvedInsn>();
  program.instructions.forEach((insn, k) => byStmt.set(insn.stmt, l.resolved[k]!));
  const cfg = buildCfg(program, kernel);
  const all = cfg.insns.map((i) => byStmt.get(i.stmt)!);
  const indexOfStmt = new Map<number, number>();
  cfg.insns.forEach((i, k) => indexOfStmt.set(i.stmt, k));
  const regs = regView(l, kernel);
  const indexed = indexModeRanges(l, cfg, all, regs);
  const tokens: Token[] = [];
  const regions: Region[] = [{ after: '(kernel start)', items: [] }];
  // Long-branch setpc are jumps, not returns.
  const longEnds = new Set(cfg.longBranches.map((b) => b.setpc));
  const isReturnOrCall = new Uint8Array(all.length);
  cfg.control.forEach((c, i) => { if (c === 'call' || (c === 'indirect' && !longEnds.has(i))) isReturnOrCall[i] = 1; });
  for (let s = kernel.start; s < kernel.end; s++) {
    const st = program.statements[s]!;
    let anchor: string | undefined;
    let shown = '';
    let item: Item | undefined;
    if (st.kind === 'label') { anchor = `label ${st.name}`; shown = `label ${st.name}`; }
    else if (st.kind === 'directive' || st.kind === 'raw') { anchor = `directive ${st.text.replace(/\s+/g, ' ')}`; shown = `directive ${st.text.trim()}`; }
    else if (st.kind === 'instruction') {
      const r = byStmt.get(s)!;
      if (isWaitOrNop(r)) continue;
      const idx = indexOfStmt.get(s) ?? -1;
      const extra = indexed.get(idx);
      const reads = [...new Set([...r.uses.map(regs.key), ...(extra?.reads ?? [])])];
      const writes = [...new Set([...r.defs.map(regs.key), ...(extra?.writes ?? [])])];
      item = { key: keyOf(r.insn), r, loc: r.insn.loc, index: idx, reads, writes };
      if (isAnchor(r)) { anchor = `instruction ${item.key}`; shown = `'${textOf(item)}'`; }
    } else continue; // macro invocations: their statements follow
    if (anchor !== undefined) {
      tokens.push({ anchor, shown, loc: st.loc, item });
      regions.push({ after: shown, items: [] });
    } else if (item) {
      regions[regions.length - 1]!.items.push(item);
    }
  }
  const blockStart = new Int32Array(cfg.blocks.length);
  for (const b of cfg.blocks) blockStart[b.id] = b.start;
  return { name, regs, tokens, regions, all, blockOf: cfg.blockOf, blockStart, isReturnOrCall };
}

/* ---------------------------------------------------------------------------------------------- */
/* Memory: verify's own may-alias                                                                  */
/* ---------------------------------------------------------------------------------------------- */

// verify reads the catalogue (InsnInfo) itself instead of the traits table (isa/traits.ts) that
// the scheduler's models read, and decides on its own what each instruction touches: a proof
// that shared the scheduler's classification would share its mistakes.

interface Access {
  /** Memories read / written: bit 1 LDS, bit 2 global, bit 4 GDS. */
  rd: number;
  wr: number;
  /** Address form for disambiguation: family, base register units, constant byte ranges. */
  family?: string;
  base: number[];
  ranges: [number, number][];
  /** Memories the address describes. */
  addressed: number;
  what: string;
}

function numMod(insn: Instruction, name: string): number {
  const m = insn.modifiers.find((x) => x.name === name);
  if (!m) return 0;
  if (m.num !== undefined) return m.num;
  const v = Number(m.value);
  return Number.isFinite(v) ? v : Number.NaN;
}

function accessOf(r: ResolvedInsn): Access | undefined {
  const mem = r.info.mem;
  if (!mem) return undefined;
  const cls = r.info.cls;
  const insn = r.insn;
  if (cls === 'ds' && mem.op === 'other') return undefined; // permute / swizzle: no memory
  if (mem.op === 'cache' || mem.op === 'time' || mem.op === 'probe') return undefined;
  const space = mem.space === 'lds' ? 1 : mem.space === 'gds' || mem.space === 'gws' ? 4 : mem.space === 'flat' ? 3 : 2;
  let rd = 0;
  let wr = 0;
  switch (mem.op) {
    case 'load': rd = space; break;
    case 'store': wr = space; break;
    case 'load-lds': rd = space; wr = 1; break;
    case 'store-lds': rd = space | 1; wr = space; break;
    default: rd = space; wr = space; // atomics and anything else
  }
  const a: Access = { rd, wr, base: [], ranges: [], addressed: 0, what: `${insn.mnemonic.split('_')[0]}` };
  a.what = mem.space === 'buffer' ? 'buffer' : mem.space === 'scalar' ? 'scalar' : mem.space;
  // address operands by role
  const regsOf = (roles: string[]): { units: number[]; imm: number; ok: boolean; text: string[] } => {
    const units: number[] = [];
    const text: string[] = [];
    let imm = 0;
    let ok = true;
    for (const op of r.operands) {
      if (!roles.includes(op.role)) continue;
      const o = insn.operands[op.index]!;
      if (o.kind === 'reg') { units.push(...op.units); text.push(rangeName(o.first, o.count)); } else if (o.kind === 'imm' && !o.float) imm += o.value;
      else if (o.kind !== 'off') ok = false;
    }
    return { units, imm, ok, text };
  };
  const width = 4 * Math.max(1, mem.dwords);
  if (cls === 'ds') {
    const n = r.info.desc.name;
    if (/addtid|append|consume|gws|ordered/.test(n)) return a;
    const ad = regsOf(['vaddr']);
    if (!ad.ok || ad.units.length === 0) return a;
    const pair = /^ds_(read2|write2|wrxchg2)/.exec(n);
    if (pair) {
      const elem = /_b64$/.test(n) ? 8 : 4;
      const stride = n.includes('st64') ? 64 * elem : elem;
      const o0 = numMod(insn, 'offset0') * stride;
      const o1 = numMod(insn, 'offset1') * stride;
      a.ranges = [[o0, o0 + elem], [o1, o1 + elem]];
    } else {
      const o = numMod(insn, 'offset');
      a.ranges = [[o, o + width]];
    }
    if (a.ranges.some(([x, y]) => Number.isNaN(x) || Number.isNaN(y))) return a;
    a.family = `ds${mem.space}`;
    a.base = ad.units;
    a.addressed = space;
    a.what = `${mem.space} (base ${ad.text.join(', ')})`;
    return a;
  }
  const enc = r.info.encoding;
  let roles: string[];
  let flags: string;
  if (enc === 'mubuf' || enc === 'mtbuf') {
    if (insn.modifiers.some((m) => m.name === 'idxen')) return a;
    roles = ['vaddr', 'srsrc', 'soffset'];
    flags = insn.modifiers.filter((m) => ['offen', 'addr64', 'format'].includes(m.name)).map((m) => m.text).sort().join('');
  } else if (enc === 'smem') {
    roles = ['sbase', 'soff'];
    flags = '';
  } else {
    roles = ['vaddr', 'saddr'];
    flags = '';
  }
  const ad = regsOf(roles);
  if (!ad.ok || (ad.units.length === 0 && enc !== 'smem')) return a;
  const o = ad.imm + (enc === 'smem' ? 0 : numMod(insn, 'offset'));
  if (Number.isNaN(o)) return a;
  a.ranges = [[o, o + width]];
  a.family = `${enc}|${flags}`;
  a.base = ad.units;
  a.addressed = mem.op === 'load-lds' ? 2 : space;
  a.what = `${a.what} (base ${ad.text.join(', ')})`;
  return a;
}

/* ---------------------------------------------------------------------------------------------- */
/* Registers: verify's own physical numbering and reading of the VGPR indexing mode                */
/* ---------------------------------------------------------------------------------------------- */

/**
 * Physical register keys. On a unified VGPR/AGPR file (gfx90a+) AGPR k is VGPR accum_offset+k
 * (AMD MI200 ISA, "Registers"; .amdhsa_accum_offset), read here from the descriptor: both
 * spellings get the key of the VGPR. Without a valid directive nothing is folded (the resolver
 * then places the AGPRs above every VGPR the code names, so no two spellings meet).
 */
interface RegView {
  key(u: number): number;
  /** Printable name of a key. */
  name(k: number): string;
}

function regView(l: Loaded, kernel: KernelSymbol): RegView {
  const accum = kernel.descriptor?.values.accum_offset;
  if (!l.target.registers.unifiedVgprFile.value || accum === undefined || !validAccumOffset(accum, l.target)) {
    return { key: (u) => u, name: (k) => rangeName(k, 1) };
  }
  const top = VGPR_BASE + accum;
  return {
    key: (u) => (u >= AGPR_BASE ? top + (u - AGPR_BASE) : u),
    name: (k) => (k >= top && k < AGPR_BASE ? `v${k - VGPR_BASE} (a${k - top} with accum_offset ${accum})` : rangeName(k, 1)),
  };
}

const GPR_IDX_ROLES: Readonly<Record<string, number>> = { src0: 1, srcA: 1, src1: 2, srcB: 2, src2: 4, srcC: 4, vdst: 8 };

/**
 * Registers VALU instructions reach inside the VGPR indexing mode (s_set_gpr_idx_on ..
 * s_set_gpr_idx_off, or an s_setreg of MODE covering gpr_idx_en, bit 27): an operand the mode
 * bits select, v_k of n registers with the index (M0[7:0]) in [lo, hi], reads or may write
 * v(k+lo)..v(k+hi+n-1) up to the end of the file (and reads v0 past it), and the instruction
 * reads M0. The mode is followed block by block over the CFG (on at a block's entry when it is on
 * at the end of a predecessor; the index and mode bits are then unknown). The index range: a
 * `conductor: gpr-idx LO..HI` comment on the instruction that sets it, else the last write of
 * the index SGPR in the same block when it is an s_mov_b32 of a constant, an s_and_b32 with a
 * constant or an s_bfe_u32 of fewer than 8 bits, else [0, 255].
 * Keyed by the kernel's instruction index (cfg order).
 */
function indexModeRanges(l: Loaded, cfg: Cfg, all: ResolvedInsn[], regs: RegView): Map<number, { reads: number[]; writes: number[] }> {
  const out = new Map<number, { reads: number[]; writes: number[] }>();
  const enables = (insn: Instruction): boolean | undefined => {
    if (insn.base !== 's_setreg_b32' && insn.base !== 's_setreg_imm32_b32') return undefined;
    const f = hwregField(insn);
    const id = hwregId(insn);
    if ((id !== undefined && id !== HWREG_MODE) || (f && (f.offset > 27 || f.offset + f.size <= 27))) return undefined;
    const v = insn.operands[1];
    return insn.base === 's_setreg_imm32_b32' && f && v?.kind === 'imm' ? ((v.value >>> (27 - f.offset)) & 1) === 1 : true;
  };
  if (!all.some((r) => r.insn.base.startsWith('s_set_gpr_idx_') || enables(r.insn) !== undefined)) return out;
  const t = l.target.registers;
  const bound = (i: number, sreg: Operand | undefined): [number, number] => {
    const said = statedIndexRange(l.program, all[i]!.insn).range;
    if (said) return [said.lo, said.hi];
    if (!sreg || sreg.kind !== 'reg') return [0, 255];
    for (let j = i - 1; j >= cfg.blocks[cfg.blockOf[i]!]!.start; j--) {
      const w = all[j]!;
      if (!w.defs.includes(sreg.first)) continue;
      const [, x, y] = w.insn.operands;
      const c = (o: Operand | undefined) => (o?.kind === 'imm' && !o.float ? o.value : undefined);
      switch (w.insn.base) {
        case 's_mov_b32': case 's_movk_i32': { const v = c(x); return v === undefined ? [0, 255] : [v & 0xff, v & 0xff]; }
        case 's_and_b32': { const v = c(x) ?? c(y); return v === undefined ? [0, 255] : [0, v & 0xff]; }
        case 's_bfe_u32': { const v = c(y); const width = v === undefined ? 32 : (v >> 16) & 0x7f; return width < 8 ? [0, (1 << width) - 1] : [0, 255]; }
        default: return [0, 255];
      }
    }
    return [0, 255];
  };
  const nb = cfg.blocks.length;
  const onIn = new Uint8Array(nb);
  for (let changed = true; changed;) {
    changed = false;
    for (const b of cfg.blocks) {
      let on = onIn[b.id] === 1;
      let modes = 15;
      let range: [number, number] = [0, 255];
      for (let i = b.start; i < b.end; i++) {
        const r = all[i]!;
        const base = r.insn.base;
        const e = enables(r.insn);
        if (on && (r.info.cls === 'valu' || r.info.cls === 'mfma')) {
          const reads: number[] = [];
          const writes: number[] = [];
          for (const op of r.operands) {
            const o = r.insn.operands[op.index];
            if (!((GPR_IDX_ROLES[op.role] ?? 0) & modes) || !o || o.kind !== 'reg' || (o.file !== 'v' && o.file !== 'a')) continue;
            const max = o.file === 'v' ? t.maxVgprs.value : t.maxAgprs.value;
            const baseUnit = o.file === 'v' ? VGPR_BASE : AGPR_BASE;
            const last = o.index + range[1] + o.count - 1;
            for (let j = o.index + range[0]; j <= Math.min(last, max - 1); j++) {
              if (op.use || (op.def && (range[0] !== range[1] || last >= max))) reads.push(regs.key(baseUnit + j));
              if (op.def) writes.push(regs.key(baseUnit + j));
            }
            if (op.use && last >= max) reads.push(regs.key(baseUnit));
            reads.push(M0);
          }
          if (reads.length) out.set(i, { reads, writes });
        }
        if (base === 's_set_gpr_idx_on') { on = true; modes = gprIdxModeBits(r.insn); range = bound(i, r.insn.operands[0]); }
        else if (base === 's_set_gpr_idx_idx') range = bound(i, r.insn.operands[0]);
        else if (base === 's_set_gpr_idx_mode') modes = gprIdxModeBits(r.insn);
        else if (base === 's_set_gpr_idx_off') on = false;
        else if (e !== undefined) on = e;
        else if (r.defs.includes(M0)) { modes = 15; range = [0, 255]; }
      }
      for (const s2 of b.succs) if (on && !onIn[s2]) { onIn[s2] = 1; changed = true; }
    }
  }
  return out;
}

/* ---------------------------------------------------------------------------------------------- */
/* Comparison                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/** Occurrence-numbered identities of a region's items: "key#n". */
function identities(items: Item[]): string[] {
  const seen = new Map<string, number>();
  return items.map((it) => {
    const n = seen.get(it.key) ?? 0;
    seen.set(it.key, n + 1);
    return `${it.key}#${n}`;
  });
}

interface Flow {
  /** id -> (unit -> producer id or '(entry)') for every unit read. */
  reads: Map<string, Map<number, string>>;
  /** unit -> last writer id at the exit. */
  exit: Map<number, string>;
  /** id -> position. */
  pos: Map<string, number>;
}

function flowOf(items: Item[], ids: string[]): Flow {
  const last = new Map<number, string>();
  const reads = new Map<string, Map<number, string>>();
  const pos = new Map<string, number>();
  items.forEach((it, p) => {
    const id = ids[p]!;
    pos.set(id, p);
    const m = new Map<number, string>();
    for (const u of it.reads) m.set(u, last.get(u) ?? '(entry)');
    reads.set(id, m);
    for (const u of it.writes) last.set(u, id);
  });
  return { reads, exit: last, pos };
}

/** An instruction as the source wrote it. */
function textOf(it: Item): string {
  return it.r.insn.text.trim();
}

/** An instruction as the source wrote it, with its place: `v_lshlrev_b64 v[38:39], 3, v[34:35] (k.s:56)`. */
function shownAt(it: Item): string {
  return `'${textOf(it)}' (${locText(it.loc)})`;
}

function mayAlias(a: Access, b: Access, sameBaseValues: boolean, disambiguate: boolean | 'per-lane'): boolean {
  const clash = (a.wr & (b.rd | b.wr)) | (b.wr & (a.rd | a.wr));
  if (!clash) return false;
  if (!disambiguate || a.family === undefined || a.family !== b.family) return true;
  // A VGPR base differs per lane: two lanes' addresses may meet whatever the constant offsets.
  if (disambiguate !== 'per-lane' && (a.base.some((u) => u >= VGPR_BASE) || b.base.some((u) => u >= VGPR_BASE))) return true;
  if ((clash & a.addressed & b.addressed) !== clash) return true;
  if (a.base.length !== b.base.length || a.base.some((u, i) => u !== b.base[i])) return true;
  if (!sameBaseValues) return true;
  for (const [x0, x1] of a.ranges) for (const [y0, y1] of b.ranges) if (x0 < y1 && y0 < x1) return true;
  return false;
}

/** Completed (by identity) memory operations at each completion point, per block; `texts` gets each point's source text. */
function completions(v: KernelView, idOf: Map<number, string>, texts?: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const n = v.all.length;
  let pending: { id: string; counters: number; ooo: boolean; t: number[] }[] = [];
  const issued = [0, 0, 0];
  let anchorCount = new Map<string, number>();
  let block = -1;
  for (let i = 0; i < n; i++) {
    const r = v.all[i]!;
    if (v.blockOf[i] !== block) { block = v.blockOf[i]!; pending = []; issued.fill(0); anchorCount = new Map(); }
    const base = r.insn.base;
    if (base === 's_waitcnt') {
      const w = r.insn.operands[0] as WaitcntOperand | undefined;
      if (!w || w.kind !== 'waitcnt') continue;
      const lim = [w.vmcnt, w.lgkmcnt, w.expcnt];
      pending = pending.filter((p) => {
        for (let c = 0; c < 3; c++) {
          if (!(p.counters & (1 << c))) continue;
          const k = lim[c];
          if (k === undefined) return true;
          // an in-order operation counts the younger ones of its own type (its only t[] entry)
          const ty = p.t.findIndex((x) => x > 0);
          const younger = ty >= 0 ? issued[ty]! - p.t[ty]! : 0;
          if (p.ooo ? k !== 0 : younger < k) return true;
        }
        return false;
      });
      continue;
    }
    const cls = r.info.cls;
    const point = cls === 'barrier' || cls === 'message' || v.isReturnOrCall[i] === 1 || r.info.mem?.op === 'cache'
      || /^(s_dcache_|s_icache_|buffer_wbl2|buffer_inv|buffer_wbinvl1)/.test(base);
    if (point) {
      const key = `${block}:${keyOf(r.insn)}`;
      const nth = anchorCount.get(key) ?? 0;
      anchorCount.set(key, nth + 1);
      const done = new Set<string>();
      // completed = issued in this block so far and no longer pending
      for (let j = v.blockStart[block]!; j < i; j++) {
        const id = idOf.get(j);
        if (id !== undefined && v.all[j]!.info.mem && !pending.some((p) => p.id === id)) done.add(id);
      }
      out.set(`${key}#${nth}`, done);
      texts?.set(`${key}#${nth}`, r.insn.text.trim());
    }
    const c = r.info.counters;
    const counters = (c.vm > 0 ? 1 : 0) | (c.lgkm > 0 ? 2 : 0) | (c.exp > 0 ? 4 : 0);
    if (counters) {
      // operations of one type complete in order: VMEM (vm), LDS (lgkm), export (exp); the rest
      // (scalar memory, FLAT, messages, GDS) in any order
      const ooo = cls === 'smem' || cls === 'flat' || r.info.events.includes('message') || r.info.events.includes('gds');
      const t = [0, 0, 0];
      if (!ooo) { const ty = c.vm > 0 ? 0 : c.lgkm > 0 ? 1 : 2; t[ty] = ++issued[ty]!; }
      const id = idOf.get(i);
      pending.push({ id: id ?? `#${i}`, counters, ooo, t });
    }
  }
  return out;
}

function diff(kind: DifferenceKind, kernel: string, message: string, a?: Loc, b?: Loc): VerifyResult {
  return { equivalent: false, difference: { kind, kernel, message, original: a, scheduled: b }, kernels: [] };
}

function locText(l?: Loc): string { return l ? `${l.file}:${l.line}` : '?'; }

export function verifyLoaded(orig: Loaded, sched: Loaded, opts: VerifyOptions = {}): VerifyResult {
  const disambiguate = opts.disambiguate ?? true;
  const names = orig.program.kernels.map((k) => k.name);
  const names2 = sched.program.kernels.map((k) => k.name);
  if (names.join('\u0000') !== names2.join('\u0000')) {
    return diff('kernels', '', `the files hold different kernels: ${names.join(', ') || 'none'} vs ${names2.join(', ') || 'none'}`);
  }
  const kernels: VerifyResult['kernels'] = [];
  for (const name of names) {
    const a = kernelView(orig, name)!;
    const b = kernelView(sched, name)!;
    // 1. anchors
    const na = Math.min(a.tokens.length, b.tokens.length);
    for (let t = 0; t < na; t++) {
      if (a.tokens[t]!.anchor !== b.tokens[t]!.anchor) {
        return diff('anchor', name, `pinned ${a.tokens[t]!.shown} (${locText(a.tokens[t]!.loc)}) is not where it was: the scheduled file has ${b.tokens[t]!.shown} (${locText(b.tokens[t]!.loc)}) in its place`, a.tokens[t]!.loc, b.tokens[t]!.loc);
      }
    }
    if (a.tokens.length !== b.tokens.length) {
      const extra = a.tokens.length > b.tokens.length ? a.tokens[na]! : b.tokens[na]!;
      return diff('anchor', name, `${a.tokens.length > b.tokens.length ? 'the scheduled file lacks' : 'the scheduled file adds'} ${extra.shown} (${locText(extra.loc)})`,
        a.tokens[na]?.loc, b.tokens[na]?.loc);
    }
    let memoryPairs = 0;
    let instructions = 0;
    const idOfA = new Map<number, string>();
    const idOfB = new Map<number, string>();
    for (let g = 0; g < a.regions.length; g++) {
      const ra = a.regions[g]!;
      const rb = b.regions[g]!;
      const where = `region after ${ra.after}`;
      // 2. same instructions
      const ka = ra.items.map((x) => x.key).sort();
      const kb = rb.items.map((x) => x.key).sort();
      if (ka.join('\n') !== kb.join('\n')) {
        const ca = new Map<string, number>();
        for (const k of ka) ca.set(k, (ca.get(k) ?? 0) + 1);
        for (const k of kb) ca.set(k, (ca.get(k) ?? 0) - 1);
        const [k, c] = [...ca.entries()].find(([, c2]) => c2 !== 0)!;
        const ia = ra.items.find((x) => x.key === k);
        const ib = rb.items.find((x) => x.key === k);
        return diff('region-contents', name, `${where}: '${textOf((ia ?? ib)!)}' appears ${c > 0 ? 'more' : 'fewer'} times in the original (${ia ? locText(ia.loc) : 'absent'}) than in the scheduled file (${ib ? locText(ib.loc) : 'absent'})`,
          ia?.loc ?? ra.items[0]?.loc, ib?.loc ?? rb.items[0]?.loc);
      }
      instructions += ra.items.length;
      const ida = identities(ra.items);
      const idb = identities(rb.items);
      ra.items.forEach((it, p) => idOfA.set(it.index, `${g}|${ida[p]!}`));
      rb.items.forEach((it, p) => idOfB.set(it.index, `${g}|${idb[p]!}`));
      // 3. reaching definitions and exit state
      const fa = flowOf(ra.items, ida);
      const fb = flowOf(rb.items, idb);
      const itemA = new Map(ida.map((id, p) => [id, ra.items[p]!]));
      const itemB = new Map(idb.map((id, p) => [id, rb.items[p]!]));
      for (const id of ida) {
        const ma = fa.reads.get(id)!;
        const mb = fb.reads.get(id)!;
        for (const [u, pa] of ma) {
          const pb = mb.get(u);
          if (pa !== pb) {
            const ia = itemA.get(id)!;
            const ib = itemB.get(id)!;
            const src = (p?: string, m?: Map<string, Item>) => (p === undefined || p === '(entry)' ? 'the value from before the region' : shownAt(m!.get(p)!));
            return diff('reaching-definition', name, `${shownAt(ia)} reads ${a.regs.name(u)} from ${src(pa, itemA)} in the original but from ${src(pb, itemB)} in the scheduled file (${locText(ib.loc)})`, ia.loc, ib.loc);
          }
        }
      }
      for (const [u, wa] of fa.exit) {
        const wb = fb.exit.get(u);
        if (wa !== wb) {
          const ia = itemA.get(wa)!;
          const ib = wb ? itemB.get(wb) : undefined;
          return diff('exit-definition', name, `${where}: ${a.regs.name(u)} is last written by ${shownAt(ia)} in the original but by ${ib ? shownAt(ib) : 'nothing'} in the scheduled file`, ia.loc, ib?.loc);
        }
      }
      // 4. memory order
      const acc = ra.items.map((it) => accessOf(it.r));
      for (let x = 0; x < ra.items.length; x++) {
        const ax = acc[x];
        if (!ax) continue;
        for (let y = x + 1; y < ra.items.length; y++) {
          const ay = acc[y];
          if (!ay) continue;
          const idx = ida[x]!;
          const idy = ida[y]!;
          // the base holds the same value at both accesses: same producers of every base unit
          const same = ax.base.every((u) => fa.reads.get(idx)!.get(a.regs.key(u)) === fa.reads.get(idy)!.get(a.regs.key(u)));
          if (!mayAlias(ax, ay, same, disambiguate)) continue;
          memoryPairs++;
          if (fb.pos.get(idx)! > fb.pos.get(idy)!) {
            const bx = itemB.get(idx)!;
            return diff('memory-order', name, `${shownAt(ra.items[x]!)} and ${shownAt(ra.items[y]!)} may alias (${ax.what} and ${ay.what}) and changed order (scheduled: ${locText(bx.loc)} and ${locText(itemB.get(idy)!.loc)})`,
              ra.items[x]!.loc, bx.loc);
          }
        }
      }
    }
    // 5. completion before barriers, cache operations, messages, calls and returns
    const pointText = new Map<string, string>();
    const ca = completions(a, idOfA, pointText);
    const cb = completions(b, idOfB);
    for (const [point, doneA] of ca) {
      const doneB = cb.get(point) ?? new Set<string>();
      for (const id of doneA) {
        if (!doneB.has(id)) {
          const find = (v: KernelView, m: Map<number, string>) => { for (const [i, x] of m) if (x === id) return v.all[i]!.insn; return undefined; };
          const ia = find(a, idOfA);
          const lb = find(b, idOfB)?.loc;
          const before = pointText.get(point) ?? point;
          return diff('completion', name, `'${ia?.text.trim() ?? id}' (${locText(ia?.loc)}) is complete before '${before}' in the original but not in the scheduled file (${locText(lb)})`, ia?.loc, lb);
        }
      }
    }
    kernels.push({ name, instructions, memoryPairs });
  }
  // 6. the scheduled file checks clean: no error the original does not have (matched by rule
  //    and instruction: the original's own errors are not the schedule's doing)
  if (!opts.skipCheck) {
    const fresh = newCheckErrors(orig, sched, opts.checkers);
    if (fresh) return { ...diff('check', fresh.kernel, `the scheduled file does not check clean: ${fresh.message}`, undefined, fresh.loc), kernels };
  }
  return { equivalent: true, kernels };
}

/** Canonical text of an instruction for matching findings between the two files. */
function findingKey(rule: string, r: ResolvedInsn | undefined): string {
  return `${rule}|${r ? keyOf(r.insn) : 'kernel'}`;
}

/** The first error of the scheduled file's check that the original's check does not have. */
function newCheckErrors(orig: Loaded, sched: Loaded, checkers?: readonly Checker[]): { kernel: string; message: string; loc: Loc } | undefined {
  const count = new Map<string, number>();
  const oc = kernelContexts(orig);
  checkContexts(oc, { paths: 'all', checkers }).forEach((k, x) => { // a missing wait on any path counts
    for (const f of k.findings) {
      if (f.severity !== 'error') continue;
      const key = `${k.name}|${findingKey(f.rule, f.insn >= 0 ? oc[x]!.insns[f.insn] : undefined)}`;
      count.set(key, (count.get(key) ?? 0) + 1);
    }
  });
  const sc = kernelContexts(sched);
  const checks = checkContexts(sc, { paths: 'all', checkers });
  for (let x = 0; x < checks.length; x++) {
    const k = checks[x]!;
    for (const f of k.findings) {
      if (f.severity !== 'error') continue;
      const key = `${k.name}|${findingKey(f.rule, f.insn >= 0 ? sc[x]!.insns[f.insn] : undefined)}`;
      const n = count.get(key) ?? 0;
      if (n > 0) { count.set(key, n - 1); continue; }
      return { kernel: k.name, message: `${f.message} [${f.rule}]`, loc: f.loc };
    }
  }
  return undefined;
}

export function formatVerify(r: VerifyResult, original: string, scheduled: string): string {
  if (r.equivalent) {
    const n = r.kernels.reduce((s, k) => s + k.instructions, 0);
    return `${scheduled}: equivalent to ${original} (${r.kernels.length} kernel${r.kernels.length === 1 ? '' : 's'}; ${n} movable instructions, each reading the same producers; ${r.kernels.reduce((s, k) => s + k.memoryPairs, 0)} memory pairs kept in order)`;
  }
  const d = r.difference!;
  const where = [d.original ? `${d.original.file}:${d.original.line}` : '', d.scheduled ? `${d.scheduled.file}:${d.scheduled.line}` : ''].filter((x) => x).join(' vs ');
  return `${scheduled}: NOT equivalent to ${original}${d.kernel ? ` (kernel ${d.kernel})` : ''}: ${d.kind}: ${d.message}${where ? `\n  at ${where}` : ''}`;
}
