/**
 * Registers named as the source writes them. A unit has one default name (registers.ts:
 * unitName), but on a unified VGPR/AGPR file the unit of a_k is also v(accum_offset+k): an
 * instruction that wrote v130 should be told about v130, not a2.
 */
import { VGPR_BASE, type RegUnit } from '../asm/registers.js';
import type { ResolvedInsn } from './types.js';

/** Units an instruction names with a spelling other than their default name: unit -> [file, index]. */
function respelled(r: ResolvedInsn): Map<RegUnit, readonly ['v' | 'a', number]> | undefined {
  let out: Map<RegUnit, readonly ['v' | 'a', number]> | undefined;
  for (const rec of r.operands) {
    const o = r.insn.operands[rec.index];
    // one unit per register written (an indexed operand's range has no spelling of its own)
    if (!o || o.kind !== 'reg' || o.file !== 'v' || rec.units.length !== o.count) continue;
    for (let p = 0; p < o.count; p++) {
      const u = rec.units[p]!;
      if (u !== VGPR_BASE + o.index + p) (out ??= new Map()).set(u, ['v', o.index + p]);
    }
  }
  return out;
}

/**
 * Text for `units` as `r` writes them: units it names with another spelling (v130 for the unit
 * of a2) as written, the rest by `byDefault` (e.g. "v[8:9], vcc").
 */
export function unitsAsWritten(r: ResolvedInsn | undefined, units: readonly RegUnit[], byDefault: (units: RegUnit[]) => string): string {
  const sp = r ? respelled(r) : undefined;
  if (!sp) return byDefault([...units]);
  const rest: RegUnit[] = [];
  const own: number[] = [];
  for (const u of units) {
    const s = sp.get(u);
    if (!s) rest.push(u); else if (!own.includes(s[1])) own.push(s[1]);
  }
  if (own.length === 0) return byDefault(rest);
  own.sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < own.length;) {
    let j = i;
    while (j + 1 < own.length && own[j + 1] === own[j]! + 1) j++;
    parts.push(j === i ? `v${own[i]}` : `v[${own[i]}:${own[j]}]`);
    i = j + 1;
  }
  if (rest.length) parts.push(byDefault(rest));
  return parts.join(', ');
}
