/**
 * XNACK soft clauses. Consecutive SMEM (or consecutive VMEM) instructions form a soft clause
 * that the hardware replays from its start after an XNACK page fault, so no instruction of the
 * clause may write a register that an instruction of the clause reads (itself included), and a
 * store must not join a clause that has writes. A non-clause instruction (s_nop) breaks the
 * clause: 1 wait state.
 *
 * Decision (documented): this is not in the ISA wait-state tables (CDNA3 Table 11, MI200 Table 9);
 * it is a correctness requirement of XNACK replay, implemented by LLVM (checkSoftClauseHazards,
 * LLVM GCNHazardRecognizer::checkSoftClauseHazards), active when XNACK is on or "any". We check it when
 * the code object may run with XNACK on: an error with xnack+, a warning when the target id
 * leaves XNACK unspecified ("any"), and not at all with xnack-.
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, need } from './util.js';
import { unitsText } from '../context.js';

const FACT: WaitStateFact = {
  what: 'soft clause (consecutive SMEM, or consecutive VMEM) with a write the clause reads, or a store joining a clause that writes -> break it',
  w: all(1),
  source: `LLVM GCNHazardRecognizer::checkSoftClauseHazards (XNACK on or any)`,
  note: 'Not an ISA wait-state table entry: required by XNACK replay of memory clauses. Checked unless the target id says xnack-.',
};

export const xnackSoftClause: HazardRule = {
  id: 'xnack-soft-clause',
  description: 'With XNACK replay, a memory soft clause must not overwrite a register it reads; break the clause with s_nop.',
  appliesTo: () => true,
  activeFor: (h) => h.ctx.xnack !== false,
  severity: (h) => (h.ctx.xnack === true ? 'error' : 'warning'),
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.smem && !c.vmem) return undefined;
    const smem = c.smem;
    const blk = h.ctx.cfg.blocks[h.ctx.cfg.blockOf[i]!]!;
    if (h.pad[i]! > 0) return undefined;
    // not in a clause unless the instruction before it (in its block) is of the same kind
    if (i - 1 < blk.start) return undefined;
    const before = h.f[i - 1]!;
    if (smem ? !before.smem : !before.vmem) return undefined;
    const defs = new Set<number>();
    const uses = new Set<number>();
    let k = i - 1;
    for (; k >= blk.start; k--) {
      const p = h.f[k]!;
      if (smem ? !p.smem : !p.vmem) break;
      for (const u of p.defs) defs.add(u);
      for (const u of p.uses) uses.add(u);
      if (h.pad[k]! > 0) break; // padding before k already breaks the clause there
    }
    if (k === i - 1 || defs.size === 0) return undefined;
    const prev = i - 1;
    if (c.mayStore) return [need(prev, 0, 1, 'is a store joining a soft clause that writes registers, after', FACT)];
    for (const u of c.defs) defs.add(u);
    for (const u of c.uses) uses.add(u);
    const common: number[] = [];
    for (const u of defs) if (uses.has(u)) common.push(u);
    if (common.length === 0) return undefined;
    return [need(prev, 0, 1, `joins a soft clause that writes and reads ${unitsText(common)}, after`, FACT)];
  },
};
