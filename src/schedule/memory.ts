/**
 * Memory accesses as the scheduler sees them: which memories an instruction may read and write
 * (LDS, global memory, GDS), and, when it can be told, the address as "base operands + constant
 * byte ranges" so that two accesses through the same base with disjoint offsets can be reordered.
 *
 * Address spaces (conservative):
 *   - LDS: ds_* (not ds_swizzle/permute/bpermute, which touch no memory), flat_* (a generic
 *     address may point to LDS), and the LDS side of LDS-DMA (buffer/global load ... lds, which
 *     writes LDS at an address taken from M0: no base is known, so it conflicts with every LDS
 *     access).
 *   - global memory: buffer_*, global_*, scratch_*, flat_*, and scalar memory (s_load,
 *     s_buffer_load, s_store, s_atomic). Scratch and buffer are not told apart from global.
 *   - GDS: ds_* with the gds bit (conflicts with GDS only).
 * Loads never conflict with loads; a store or an atomic conflicts with every access of the same
 * memory that it may alias.
 *
 * Disambiguation: two accesses of the same kind through identical address operands (same
 * registers, same flags), whose registers are not redefined between them, and whose constant
 * byte ranges (offset .. offset + width) do not overlap, do not alias. With a per-lane (VGPR)
 * base this assumes that the accesses of all lanes stay apart, as compilers and Tensile lay out
 * their LDS and global tiles; `disambiguate: false` (ScheduleOptions) turns it off.
 */
import type { Instruction, Operand } from '../asm/ast.js';
import type { ResolvedInsn } from '../isa/types.js';
import { rangeName } from '../asm/registers.js';
import { CLS, isMemOp, MEM_OP, MEM_SPACE, memSpaceName, type KernelTraits } from '../isa/traits.js';

/** The memories an access may touch, as bits. */
export const MEMORY = { lds: 1, global: 2, gds: 4 } as const;

export interface MemAccess {
  /** Memories read (MEM_* bits). */
  reads: number;
  /** Memories written (stores, atomics, LDS-DMA's LDS side). */
  writes: number;
  /** Kind of address, for messages: lds, gds, global, buffer, scratch, flat, scalar. */
  space: string;
  /**
   * Address operands as a key (kind + registers + flags) when the address is "base + constant";
   * undefined when it cannot be told (then the access may alias everything in its memories).
   */
  baseKey?: string;
  /** Memories the base describes (the LDS side of LDS-DMA has no base). */
  baseMems: number;
  /** Register units whose values form the base. */
  baseUnits: readonly number[];
  /** Printable base ("v[2:3]", "v5, s[8:11]"). */
  baseText: string;
  /** Byte ranges [lo, hi) relative to the base. */
  ranges: readonly (readonly [number, number])[];
}

function modNum(insn: Instruction, name: string): number | undefined {
  for (const m of insn.modifiers) if (m.name === name) return m.num ?? (m.value !== undefined ? Number(m.value) : undefined);
  return undefined;
}

function hasMod(insn: Instruction, name: string): boolean {
  for (const m of insn.modifiers) if (m.name === name) return true;
  return false;
}

function regText(o: Operand | undefined): string {
  if (!o) return '';
  if (o.kind === 'reg') return rangeName(o.first, o.count);
  return o.text;
}

/** Register units named by the operands with these roles. */
function roleUnits(r: ResolvedInsn, roles: readonly string[]): { units: number[]; text: string[]; imm: number } {
  const units: number[] = [];
  const text: string[] = [];
  let imm = 0;
  for (const op of r.operands) {
    if (!roles.includes(op.role)) continue;
    const o = r.insn.operands[op.index];
    if (!o) continue;
    if (o.kind === 'reg') {
      for (const u of op.units) units.push(u);
      text.push(regText(o));
    } else if (o.kind === 'imm' && !o.float) {
      imm += o.value;
    } else if (o.kind === 'off') {
      text.push('off');
    } else {
      // an expression or constant source in an address: give up on disambiguation
      return { units, text: [...text, '?'], imm: Number.NaN };
    }
  }
  return { units, text, imm };
}

const NO_UNITS: readonly number[] = Object.freeze([]);

/** The memory access of instruction i (traits `t`), or undefined when it touches no memory. */
export function memAccessOf(r: ResolvedInsn, t: KernelTraits, i: number): MemAccess | undefined {
  if (isMemOp(t, i, 'none')) return undefined;
  const cls = t.cls[i]!;
  const insn = r.insn;
  const op = t.memOp[i]!;
  if (op === MEM_OP.other && cls === CLS.ds) return undefined; // swizzle / permute / bpermute: no memory
  if (op === MEM_OP.cache || op === MEM_OP.time || op === MEM_OP.probe) return undefined; // pinned by the region builder
  const loadLike = op === MEM_OP.load || op === MEM_OP['load-lds'];
  const storeLike = op === MEM_OP.store || op === MEM_OP['store-lds'];
  const atomic = op === MEM_OP.atomic || op === MEM_OP['atomic-rtn'];
  const width = Math.max(1, t.memDwords[i]!) * 4;

  let memBits: number;
  let space: string = memSpaceName(t, i);
  switch (t.memSpace[i]) {
    case MEM_SPACE.lds: memBits = MEMORY.lds; break;
    case MEM_SPACE.gds: case MEM_SPACE.gws: memBits = MEMORY.gds; break;
    case MEM_SPACE.flat: memBits = MEMORY.lds | MEMORY.global; break;
    default: memBits = MEMORY.global;
  }
  if (cls === CLS.vmem && insn.mnemonic.startsWith('buffer_')) space = 'buffer';
  if (cls === CLS.smem) space = 'scalar';

  let reads = 0;
  let writes = 0;
  if (loadLike) reads = memBits;
  if (storeLike) writes = memBits;
  if (atomic) { reads = memBits; writes = memBits; }
  if (op === MEM_OP.other) { reads = memBits; writes = memBits; }
  if (op === MEM_OP['load-lds']) writes |= MEMORY.lds; // LDS-DMA writes LDS (address from M0)
  if (op === MEM_OP['store-lds']) reads |= MEMORY.lds;

  // Address: base operands and constant ranges.
  let baseKey: string | undefined;
  let baseUnits: readonly number[] = NO_UNITS;
  let baseText = '';
  let ranges: (readonly [number, number])[] = [];
  const name = r.info.desc.name;
  if (cls === CLS.ds) {
    const a = roleUnits(r, ['vaddr']);
    const addtid = name.includes('addtid') || name.startsWith('ds_append') || name.startsWith('ds_consume') || name.startsWith('ds_gws') || name === 'ds_ordered_count';
    if (!addtid && a.units.length > 0 && !Number.isNaN(a.imm)) {
      if (/^ds_(read2|write2|wrxchg2)(st64)?_(rtn_)?b(32|64)$/.test(name)) {
        const elem = name.endsWith('_b64') ? 8 : 4;
        const scale = name.includes('st64') ? elem * 64 : elem;
        const o0 = (modNum(insn, 'offset0') ?? 0) * scale;
        const o1 = (modNum(insn, 'offset1') ?? 0) * scale;
        ranges = [[o0, o0 + elem], [o1, o1 + elem]];
      } else {
        const o = modNum(insn, 'offset') ?? 0;
        ranges = [[o, o + width]];
      }
      baseKey = `${t.memSpace[i] === MEM_SPACE.gds ? 'gds' : 'ds'}:${a.units.join(',')}`;
      baseUnits = a.units;
      baseText = a.text.join(', ');
    }
  } else if (cls === CLS.vmem || cls === CLS.flat || cls === CLS.smem) {
    const enc = r.info.encoding;
    let roles: string[];
    let flags = '';
    if (enc === 'mubuf' || enc === 'mtbuf') {
      roles = ['vaddr', 'srsrc', 'soffset'];
      if (hasMod(insn, 'idxen')) roles = []; // index * stride (and swizzling): not told apart
      flags = `${hasMod(insn, 'offen') ? 'offen' : ''}${hasMod(insn, 'addr64') ? 'addr64' : ''}`;
      if (enc === 'mtbuf') {
        const fmt = insn.modifiers.find((m) => m.name === 'format');
        flags += fmt ? `fmt${fmt.value}` : '';
      }
    } else if (enc === 'smem') {
      roles = ['sbase', 'soff'];
    } else {
      roles = ['vaddr', 'saddr'];
    }
    if (roles.length > 0) {
      const a = roleUnits(r, roles);
      if (!Number.isNaN(a.imm) && (a.units.length > 0 || enc === 'smem')) {
        let o = a.imm;
        if (enc !== 'smem') o += modNum(insn, 'offset') ?? 0;
        ranges = [[o, o + width]];
        baseKey = `${enc}:${a.units.join(',')}:${flags}`;
        baseUnits = a.units;
        baseText = a.text.filter((t) => t !== 'off').join(', ');
      }
    }
  }
  const baseMems = baseKey === undefined ? 0 : op === MEM_OP['load-lds'] ? MEMORY.global : memBits;
  return { reads, writes, space, baseKey, baseMems, baseUnits, baseText, ranges };
}

/** Memories on which two accesses conflict (one of them writes a memory the other touches). */
export function conflictMems(a: MemAccess, b: MemAccess): number {
  return (a.writes & (b.reads | b.writes)) | (b.writes & (a.reads | a.writes));
}

/** Do the constant ranges of two accesses with the same base overlap? */
export function rangesOverlap(a: MemAccess, b: MemAccess): boolean {
  for (const [lo1, hi1] of a.ranges) {
    for (const [lo2, hi2] of b.ranges) if (lo1 < hi2 && lo2 < hi1) return true;
  }
  return false;
}

/** "may alias (both global, base v[2:3])" and its variants. */
export function aliasReason(a: MemAccess, b: MemAccess): string {
  const spaces = a.space === b.space ? `both ${a.space}` : `${a.space} and ${b.space}`;
  if (a.baseKey !== undefined && a.baseKey === b.baseKey) {
    const r = (m: MemAccess) => m.ranges.map(([lo, hi]) => `${lo}..${hi - 1}`).join('/');
    return `may alias (${spaces}, base ${a.baseText}, bytes ${r(a)} and ${r(b)} overlap)`;
  }
  if (a.baseKey !== undefined && b.baseKey !== undefined) {
    return `may alias (${spaces}, bases ${a.baseText || 'none'} and ${b.baseText || 'none'})`;
  }
  const base = a.baseText || b.baseText;
  return `may alias (${spaces}${base ? `, base ${base}` : ''})`;
}
