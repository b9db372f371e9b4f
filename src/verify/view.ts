/**
 * verify's own view of a kernel: the stream of instructions and anchors (what a reordering may
 * not move), scheduling regions between anchors, and every instruction's registers as verify's
 * own physical register keys (a unified VGPR/AGPR file folded, the VGPR indexing mode read).
 * Written without the scheduler's code, so that verify can judge the scheduler.
 */
import type { Instruction, KernelSymbol, Loc, Operand, Program } from '../asm/ast.js';
import type { Loaded } from '../load.js';
import { buildCfg, debugOnlyLabels, type Cfg } from '../analysis/cfg.js';
import type { ResolvedInsn } from '../isa/types.js';
import { isWaitOrNop } from '../asm/program.js';
import { isRepeatName } from '../asm/parser.js';
import { AGPR_BASE, M0, rangeName, VGPR_BASE } from '../asm/registers.js';
import { HWREG_MODE, hwregField, hwregId } from '../isa/hwreg.js';
import { gprIdxModeBits, statedIndexRange } from '../isa/kernel-effects.js';
import { validAccumOffset } from '../isa/layout.js';
import { preloadHeaderLength } from '../isa/descriptor.js';
import { firstRawWords } from '../analysis/rawwords.js';

/* ---------------------------------------------------------------------------------------------- */
/* The instruction stream of a kernel                                                             */
/* ---------------------------------------------------------------------------------------------- */

export interface Item {
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

export interface Token {
  /** Identity of the anchor (canonical text). */
  anchor: string;
  /** As the source wrote it. */
  shown: string;
  loc: Loc;
  item?: Item;
}

export interface Region {
  /** Anchor (or kernel start) before the region, as the source wrote it. */
  after: string;
  items: Item[];
}

export interface KernelView {
  name: string;
  regs: RegView;
  tokens: Token[];
  regions: Region[];
  /** All instructions (cfg order) with waits, for the completion check. */
  all: ResolvedInsn[];
  blockOf: Int32Array;
  blockStart: Int32Array;
  isReturnOrCall: Uint8Array;
  cfg: Cfg;
  /** The kernel-argument preload header's instructions, as written (isa/descriptor.ts preloadHeaderLength). */
  header: string[];
  /** The first data directive among the kernel's instructions (analysis/rawwords.ts), if any. */
  rawWords: { loc: Loc; text: string } | undefined;
}

export function operandKey(o: Operand, labels?: ReadonlyMap<string, string>): string {
  switch (o.kind) {
    case 'reg': return `${o.file}${o.first}:${o.count}${o.mods ? JSON.stringify(o.mods) : ''}`;
    case 'imm': return `#${o.value}${o.float ? 'f' : ''}${o.mods ? JSON.stringify(o.mods) : ''}`;
    case 'waitcnt': return `w${o.vmcnt}/${o.expcnt}/${o.lgkmcnt}`;
    default: {
      const t = o.text.replace(/\s+/g, '');
      return labels ? t.replace(/[A-Za-z_.$][\w.$]*/g, (name: string) => labels.get(name) ?? name) : t;
    }
  }
}

/**
 * Canonical text of an instruction: mnemonic, operands and modifiers, spelling-independent; with
 * `labels`, a label of the kernel named by its place (labelOrdinals) rather than its name.
 */
export function keyOf(insn: Instruction, labels?: ReadonlyMap<string, string>): string {
  const mods = insn.modifiers.map((m) => m.text.replace(/\s+/g, '')).sort().join(' ');
  return `${insn.mnemonic} ${insn.operands.map((o) => operandKey(o, labels)).join(',')}${mods ? ' ' + mods : ''}`;
}

/**
 * The kernel's labels made by a macro, named by the macro line that makes them and their place
 * among the labels that line makes (`skipif:5#0`): such a name may use the macro's `\@` counter,
 * which counts the calls before it, and schedule writes a call that holds a changed region out
 * expanded (no longer a call), so the labels of later calls are numbered anew. Other labels
 * keep their names.
 */
function labelOrdinals(program: Program, start: number, end: number): Map<string, string> {
  const out = new Map<string, string>();
  const made = new Map<string, number>();
  for (let s = start; s < end; s++) {
    const st = program.statements[s]!;
    const x = st.expansion;
    if (st.kind !== 'label' || st.name === undefined || !x || isRepeatName(x.macro) || out.has(st.name)) continue;
    const line = `${x.macro}:${x.macroIndex + 1}`;
    const k = made.get(line) ?? 0;
    made.set(line, k + 1);
    out.set(st.name, `${line}#${k}`);
  }
  return out;
}

/** Directives that define or remove a macro. */
const MACRO_DEFINITIONS = new Set(['.macro', '.endm', '.endmacro', '.purgem']);

/**
 * Directives that only describe the code for a debugger: `.loc` (clang -g writes one before most
 * instructions) adds a row to the .debug_line table and changes no byte of .text (DWARF 5 §6.2;
 * llvm-mc assembles the same code with and without them). They are not anchors: the scheduler's
 * pipelined loops leave them where the loop's text was, between other instructions.
 */
const DEBUG_ONLY = new Set(['.loc']);

const FIXED_CLASSES = new Set(['barrier', 'branch', 'endpgm', 'message', 'export', 'other']);

/** Instructions a reordering must leave in place (verify's own list). */
export function isAnchor(r: ResolvedInsn): boolean {
  if (r.unknown) return true;
  const cls = r.info.cls;
  if (FIXED_CLASSES.has(cls)) return true;
  const base = r.insn.base;
  // s_movrels / s_movreld: an SGPR M0 selects, not the one named; v_mfma_ld_scale_b32: the scales of
  // the next MFMA; s_rfe_restore_b64: a return (nothing moves across them)
  if (/^(s_setvskip|s_set_gpr_idx_|s_movrel|s_rfe_|v_mfma_ld_scale|s_dcache_|s_icache_|buffer_wbl2|buffer_inv|buffer_wbinvl1)/.test(base)) return true;
  // lds_direct: an LDS read at the address in M0, which the memory model does not see
  if (r.insn.operands.some((o) => o.kind === 'const' && (o.name === 'lds_direct' || o.name === 'src_lds_direct'))) return true;
  const mem = r.info.mem;
  if (mem && (mem.op === 'cache' || mem.op === 'time' || mem.op === 'probe' || mem.space === 'gws')) return true;
  if (mem && mem.op === 'other' && cls !== 'ds') return true;
  return r.insn.operands.some((o) => o.kind === 'expr' && o.symbols.length > 0);
}


/** `byPlace`: labels a macro makes named by their place (labelOrdinals), else every label by its name. */
export function kernelView(l: Loaded, name: string, byPlace = true): KernelView | undefined {
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
  const labels = byPlace ? labelOrdinals(program, kernel.start, kernel.end) : new Map<string, string>();
  const debugOnly = debugOnlyLabels(program);
  // Long-branch setpc are jumps, not returns.
  const longEnds = new Set(cfg.longBranches.map((b) => b.setpc));
  const isReturnOrCall = new Uint8Array(all.length);
  cfg.control.forEach((c, i) => { if (c === 'call' || (c === 'indirect' && !longEnds.has(i))) isReturnOrCall[i] = 1; });
  const anchorAt = (anchor: string, shown: string, loc: Loc) => {
    tokens.push({ anchor, shown, loc });
    regions.push({ after: shown, items: [] });
  };
  let prevLine = kernel.start < kernel.end ? program.statements[kernel.start]!.lineIndex : 0;
  for (let s = kernel.start; s < kernel.end; s++) {
    const st = program.statements[s]!;
    // a scheduling barrier (only a comment in the assembly) is an anchor: nothing moves across it
    // (verify reads the comment itself rather than trusting the scheduler's reading of it)
    for (let l = prevLine + 1; l < st.lineIndex; l++) {
      if (/^\s*(?:;|\/\/)\s*sched_barrier\s+mask\(/.test(program.lines[l]!.text)) {
        anchorAt('sched_barrier', `sched_barrier (line ${l + 1})`, { file: st.loc.file, line: l + 1, col: 1 });
      }
    }
    prevLine = Math.max(prevLine, st.lineIndex);
    let anchor: string | undefined;
    let shown = '';
    let item: Item | undefined;
    if (st.kind === 'label') {
      if (debugOnly.has(st.name ?? '')) continue; // an address only the debug information names (cfg.ts debugOnlyLabels)
      anchor = `label ${labels.get(st.name ?? '') ?? st.name}`; shown = `label ${st.name}`;
    }
    else if (st.kind === 'directive' && MACRO_DEFINITIONS.has(st.name ?? '')) continue; // no code: the calls are what count
    else if (st.kind === 'directive' && DEBUG_ONLY.has(st.name ?? '')) continue; // no code: debug line rows only
    else if (st.kind === 'directive' || st.kind === 'raw') { anchor = `directive ${st.text.replace(/\s+/g, ' ')}`; shown = `directive ${st.text.trim()}`; }
    else if (st.kind === 'instruction') {
      const r = byStmt.get(s)!;
      if (isWaitOrNop(r.insn)) continue;
      const idx = indexOfStmt.get(s) ?? -1;
      const extra = indexed.get(idx);
      const reads = [...new Set([...r.uses.map(regs.key), ...(extra?.reads ?? [])])];
      const writes = [...new Set([...r.defs.map(regs.key), ...(extra?.writes ?? [])])];
      item = { key: keyOf(r.insn, labels), r, loc: r.insn.loc, index: idx, reads, writes };
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
  const header = all.slice(0, preloadHeaderLength(kernel.descriptor, all.length, (i) => all[i]!.insn.base)).map((r) => r.insn.text);
  const rawWords = firstRawWords(program, cfg.insns);
  return { name, regs, tokens, regions, all, blockOf: cfg.blockOf, blockStart, isReturnOrCall, cfg, header, rawWords };
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
export interface RegView {
  key(u: number): number;
  /** Printable name of a key. */
  name(k: number): string;
}

export function regView(l: Loaded, kernel: KernelSymbol): RegView {
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

/** An instruction as the source wrote it. */
export function textOf(it: Item): string {
  return it.r.insn.text.trim();
}

/** An instruction as the source wrote it, with its place: `v_lshlrev_b64 v[38:39], 3, v[34:35] (k.s:56)`. */
export function shownAt(it: Item): string {
  return `'${textOf(it)}' (${locText(it.loc)})`;
}

export function locText(l?: Loc): string { return l ? `${l.file}:${l.line}` : '?'; }
