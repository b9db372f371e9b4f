/**
 * verify's own may-alias: which memories an access reads and writes, and when two accesses
 * through the same base with disjoint constant offsets are told apart.
 *
 * verify reads the catalogue (InsnInfo) itself instead of the traits table (isa/traits.ts) that
 * the scheduler's models read, and decides on its own what each instruction touches: a proof
 * that shared the scheduler's classification would share its mistakes.
 */
import type { Instruction } from '../asm/ast.js';
import type { ResolvedInsn } from '../isa/types.js';
import { rangeName, VGPR_BASE } from '../asm/registers.js';

export interface Access {
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

export function accessOf(r: ResolvedInsn): Access | undefined {
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

export function mayAlias(a: Access, b: Access, sameBaseValues: boolean, disambiguate: boolean | 'per-lane'): boolean {
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
