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
import type { HazardContext } from '../context.js';
import { UNIT_COUNT } from '../../asm/registers.js';
import { lineAt } from '../../asm/include.js';

const FACT: WaitStateFact = {
  what: 'soft clause (consecutive SMEM, or consecutive VMEM) with a write the clause reads, or a store joining a clause that writes -> break it',
  w: all(1),
  source: `LLVM GCNHazardRecognizer::checkSoftClauseHazards (XNACK on or any)`,
  note: 'Not an ISA wait-state table entry: required by XNACK replay of memory clauses. Checked unless the target id says xnack-.',
};

/**
 * Scratch of `check`, kept between calls so that a clause is examined without allocating: the
 * units the clause writes, in the order first written (as a Set would list them), and per unit
 * the call that last saw it written or read (stamps, so nothing is cleared).
 */
const defList = new Int32Array(UNIT_COUNT);
const defStamp = new Uint32Array(UNIT_COUNT);
const readStamp = new Uint32Array(UNIT_COUNT);
/** Per unit, the clause instruction that writes it (the nearest before the consumer) and one that reads it, for the message. */
const defBy = new Int32Array(UNIT_COUNT);
const readBy = new Int32Array(UNIT_COUNT);
let stamp = 0;

/** Adds the units instruction k writes to the clause's writes (each once, named by its nearest writer). */
function addDefs(units: readonly number[], nd: number, now: number, k: number): number {
  for (let x = 0; x < units.length; x++) {
    const u = units[x]!;
    if (defStamp[u] !== now) { defStamp[u] = now; defList[nd++] = u; defBy[u] = k; }
  }
  return nd;
}

/** Adds the units instruction k reads; `mine` (the consumer) names itself as their reader, else the nearest reader does. */
function addReads(units: readonly number[], now: number, k: number, mine: boolean): void {
  for (let x = 0; x < units.length; x++) {
    const u = units[x]!;
    if (mine || readStamp[u] !== now) { readStamp[u] = now; readBy[u] = k; }
  }
}

/**
 * Which clause instructions conflict, for the message: a unit of `common` (one the consumer writes
 * when there is one), the instruction that reads it and the one that writes it ("v36 read by global_store_dwordx4 at line 289, written
 * by scratch_load_dwordx4 at line 294"), so that a reader far back in a long clause is named.
 */
function conflictNote(h: HazardContext, i: number, common: readonly number[]): string {
  // the conflict this instruction brings (a unit it writes), else the clause's own
  const mine = h.f[i]!.defs;
  const u = common.find((x) => mine.includes(x)) ?? common[0]!;
  const who = (k: number) => (k === i ? 'itself' : `${h.f[k]!.insn.mnemonic} at ${lineAt(h.f[k]!.insn.loc, h.f[i]!.insn.loc)}`);
  const r = readBy[u]!;
  const w = defBy[u]!;
  return r === w ? `${unitsText([u])} read and written by ${who(r)}` : `${unitsText([u])} read by ${who(r)}, written by ${who(w)}`;
}

export const xnackSoftClause: HazardRule = {
  id: 'xnack-soft-clause',
  description: 'With XNACK replay, a memory soft clause must not overwrite a register it reads; break the clause with s_nop.',
  appliesTo: () => true,
  activeFor: (h) => h.ctx.xnack !== false,
  severity: (h) => (h.ctx.xnack === true ? 'error' : 'warning'),
  warningNote: (h) => `the target id leaves XNACK unspecified: an error with ${h.target.name}:xnack+, nothing with ${h.target.name}:xnack- (--arch or .amdgcn_target)`,
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.smem && !c.vmem) return undefined;
    const smem = c.smem;
    if (h.pad[i]! > 0) return undefined;
    // not in a clause unless the instruction before it in layout order is of the same kind. The
    // clause may begin in the block before: a block that ends with a memory instruction falls
    // through into this one, and the hardware issues the two back to back whatever labels lie
    // between (LLVM's PostRAHazardRecognizer keeps its emitted instructions across blocks too);
    // a branch ending the block before is not a memory instruction and breaks the clause.
    if (i - 1 < 0) return undefined;
    const before = h.f[i - 1]!;
    if (smem ? !before.smem : !before.vmem) return undefined;
    if (++stamp === 0xffffffff) { defStamp.fill(0); readStamp.fill(0); stamp = 1; }
    const now = stamp;
    // the clause's writes (defList[0..nd)) and reads (stamped in readStamp)
    let nd = 0;
    let k = i - 1;
    for (; k >= 0; k--) {
      const p = h.f[k]!;
      if (smem ? !p.smem : !p.vmem) break;
      nd = addDefs(p.defs, nd, now, k);
      addReads(p.uses, now, k, false);
      if (h.pad[k]! > 0) break; // padding before k already breaks the clause there
    }
    // padding before i-1 ends the walk at k = i-1: the clause is then {i-1, i}, still a clause
    // (LLVM checkSoftClauseHazards stops at a wait state after adding the instruction after it)
    if (nd === 0) return undefined;
    const prev = i - 1;
    if (c.mayStore) return [need(prev, 0, 1, 'is a store joining a soft clause that writes registers, after', FACT)];
    nd = addDefs(c.defs, nd, now, i);
    addReads(c.uses, now, i, true);
    let common: number[] | undefined;
    for (let x = 0; x < nd; x++) { const u = defList[x]!; if (readStamp[u] === now) (common ??= []).push(u); }
    if (common === undefined) return undefined;
    return [need(prev, 0, 1, `joins a soft clause that writes and reads ${unitsText(common)}, after`, FACT, conflictNote(h, i, common))];
  },
};
