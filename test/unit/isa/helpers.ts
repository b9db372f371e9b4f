/** Shared helpers for the isa-* unit tests (not a test file itself). */
import assert from 'node:assert/strict';
import { parseInstructionText } from '../../../src/asm/instruction.js';
import { resolveInstruction } from '../../../src/isa/resolve.js';
import type { ResolvedInsn } from '../../../src/isa/types.js';
import {
  AGPR_BASE, EXEC_HI, EXEC_LO, FLAT_SCRATCH_HI, FLAT_SCRATCH_LO, M0, MODE, SCC, VCC_HI, VCC_LO, VGPR_BASE, unitsToString,
} from '../../../src/asm/registers.js';
import { TARGETS } from '../../../src/targets/index.js';
import type { TargetName } from '../../../src/isa/target.js';

export const at = { file: 't.s', line: 7, col: 1 };

export function res(text: string, target: TargetName = 'gfx942'): ResolvedInsn {
  return resolveInstruction(parseInstructionText(text, at, () => undefined), TARGETS[target]);
}

/** Units named by a compact list: "v1 v[2:3] s4 s[0:1] a[0:3] vcc exec scc m0 mode flat_scratch". */
export function U(spec: string): number[] {
  const out: number[] = [];
  for (const w of spec.split(/\s+/).filter(Boolean)) {
    const m = /^([vsa])(?:(\d+)|\[(\d+):(\d+)\])$/.exec(w);
    if (m) {
      const base = m[1] === 'v' ? VGPR_BASE : m[1] === 'a' ? AGPR_BASE : 0;
      const lo = Number(m[2] ?? m[3]);
      const hi = Number(m[2] ?? m[4]);
      for (let i = lo; i <= hi; i++) out.push(base + i);
      continue;
    }
    switch (w) {
      case 'vcc': out.push(VCC_LO, VCC_HI); break;
      case 'exec': out.push(EXEC_LO, EXEC_HI); break;
      case 'scc': out.push(SCC); break;
      case 'm0': out.push(M0); break;
      case 'mode': out.push(MODE); break;
      case 'flat_scratch': out.push(FLAT_SCRATCH_LO, FLAT_SCRATCH_HI); break;
      default: throw new Error(`bad unit spec '${w}'`);
    }
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

function sorted(a: readonly number[]): number[] {
  return [...new Set(a)].sort((x, y) => x - y);
}

/** Assert defs and uses (explicit + implicit) of an instruction. */
export function expectDefUse(text: string, defs: string, uses: string, target: TargetName = 'gfx942'): ResolvedInsn {
  const r = res(text, target);
  assert.equal(unitsToString(sorted(r.defs)), unitsToString(U(defs)), `defs of '${text}' on ${target}`);
  assert.equal(unitsToString(sorted(r.uses)), unitsToString(U(uses)), `uses of '${text}' on ${target}`);
  // defs/uses are the union of the explicit and implicit lists
  assert.deepEqual(sorted(r.defs), sorted([...r.explicitDefs, ...r.implicitDefs]), `defs = explicit + implicit for '${text}'`);
  assert.deepEqual(sorted(r.uses), sorted([...r.explicitUses, ...r.implicitUses]), `uses = explicit + implicit for '${text}'`);
  return r;
}
