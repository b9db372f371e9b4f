/**
 * Writing a pipelined loop (plan.ts says which and how): the program text with, per loop,
 *
 *     <code before the loop>
 *     P'                         the first iteration's loads (renamed) and address code
 *     s_cmp_<op> c, g            the guard: the first iteration is the last one
 *     s_cbranch_scc<x> .Lpeel
 *   loop:
 *     v_mov_b32 D, X ...         copies of the renamed loads' data
 *     R                          the rest of the body, the compare's constant one step on
 *     P'                         the next iteration's loads
 *     s_cbranch_scc<y> loop
 *   .Lpeel:
 *     v_mov_b32 D, X ...         (only where R cannot read X itself: Rename.peelDirect)
 *     R                          the last iteration (the original compare)
 *   <code after the loop>
 *
 * Every s_waitcnt and s_nop of the loop body is dropped, except the fence waits, which stay in
 * their place in R (both copies); then the waits and nops the new program
 * needs are derived by the checkers' fixes (the waitcnt analysis follows the back edge, so the
 * copies wait for the loads of the iteration before), as `check --fix` does. Only the kernel
 * concerned changes; everything else is written as it was.
 */
import { loadText, type Loaded } from '../../load.js';
import { fixLoaded } from '../../check/fix.js';
import { addInsert, applyStatementEdits, emptyEdits } from '../../check/edit.js';
import type { Program } from '../../asm/ast.js';
import { kernelContexts } from '../../analysis/context.js';
import { checkContexts } from '../../check/check.js';
import { ConductorError } from '../../errors.js';
import type { ScheduleKernel } from '../kernel.js';
import type { PipelinePlan, Rename } from './plan.js';

/** What was done to one loop, for reports. */
export interface PipelinedLoop {
  /** Line of the loop's first instruction in the input, and its label. */
  line: number;
  label: string;
  /** Label of the peeled last iteration in the output. */
  peel: string;
  /** Loads started one iteration early, and how many of them write renamed registers. */
  loads: number;
  renamed: number;
  /** Instructions of P (loads and address code) and of R. */
  p: number;
  r: number;
}

export interface PipelinedProgram {
  text: string;
  loaded: Loaded;
  loops: PipelinedLoop[];
}

const ALIGN = /^\.(p2align|balign|align)/;

const range = (first: number, count: number) => (count === 1 ? `v${first}` : `v[${first}:${first + count - 1}]`);

/** A compare constant as an operand: small values as inline constants, others in hex. */
function constantText(mnemonic: string, v: number): string {
  const s = v | 0;
  if (mnemonic.startsWith('s_cmpk_')) return mnemonic.endsWith('_u32') ? String(v >>> 0) : String(s);
  if (s >= -16 && s <= 64) return String(s);
  return `0x${(v >>> 0).toString(16)}`;
}

/** The text of instruction statement `stmt` with operand k written as `with`. */
function withOperand(program: Program, stmt: number, k: number, withText: string): string {
  return withOperands(program, stmt, new Map([[k, withText]]));
}

/** The text of instruction statement `stmt` with the operands of `texts` (by index) written anew. */
function withOperands(program: Program, stmt: number, texts: ReadonlyMap<number, string>): string {
  const insn = program.statements[stmt]!.insn!;
  const ops = insn.operands.map((o, x) => texts.get(x) ?? o.text);
  const mods = insn.modifiers.map((m) => m.text);
  return [insn.mnemonic, ops.join(', '), mods.join(' ')].filter((x) => x !== '').join(' ');
}

function labelNames(program: Program): Set<string> {
  const s = new Set<string>();
  for (const st of program.statements) if (st.kind === 'label' && st.name) s.add(st.name);
  return s;
}

/**
 * Pipeline the loops of `plans` (all of one kernel) and derive the waits and nops. Throws
 * (ConductorError) when the result cannot be made to check clean.
 */
export function pipelineProgram(k: ScheduleKernel, plans: readonly PipelinePlan[]): PipelinedProgram {
  const program = k.loaded.program;
  const { cfg, insns } = k.ctx;
  const e = emptyEdits();
  const names = labelNames(program);
  const loops: PipelinedLoop[] = [];
  let n = 0;
  for (const plan of plans) {
    const b = cfg.blocks[plan.block]!;
    const stmtOf = (i: number) => cfg.insns[i]!.stmt;
    const renameOf = new Map<number, Rename>(plan.renames.map((x) => [x.load, x]));
    const pText = plan.p.map((i) => {
      const rn = renameOf.get(i);
      return rn ? withOperand(program, stmtOf(i), 0, range(rn.to, rn.count)) : insns[i]!.insn.text.trim();
    });
    const copiesOf = (list: readonly Rename[]) => list.flatMap((rn) => Array.from({ length: rn.count }, (_, c) => `v_mov_b32_e32 v${rn.from + c}, v${rn.to + c}`));
    const copies = copiesOf(plan.renames);
    // the peeled iteration reads the renamed registers itself where it can (no copies there)
    const direct = plan.renames.filter((rn) => rn.peelDirect);
    const peelCopies = copiesOf(plan.renames.filter((rn) => !rn.peelDirect));
    const peelText = (i: number): string => {
      const texts = new Map<number, string>();
      insns[i]!.insn.operands.forEach((o, x) => {
        if (o.kind !== 'reg' || o.file !== 'v') return;
        const rn = direct.find((d) => o.index >= d.from && o.index + o.count <= d.from + d.count);
        if (rn) texts.set(x, range(rn.to + (o.index - rn.from), o.count));
      });
      return texts.size > 0 ? withOperands(program, stmtOf(i), texts) : insns[i]!.insn.text.trim();
    };
    const cnt = plan.counter;
    const cmpStmt = stmtOf(cnt.cmpAt);
    const cmpWith = (v: number) => withOperand(program, cmpStmt, 1 - cnt.counterOperand, constantText(cnt.cmpMnemonic, v));
    let peel: string;
    do { peel = `.Lpipelined_peel${n++}`; } while (names.has(peel));
    names.add(peel);
    // before the loop: P' and the guard, in front of the loop's labels (and the alignment before them)
    let at = stmtOf(b.start);
    const indent = /^[ \t]*/.exec(program.lines[program.statements[at]!.lineIndex]!.text)![0] || '\t';
    while (at - 1 >= 0 && (program.statements[at - 1]!.kind === 'label' || ALIGN.test(program.statements[at - 1]!.name ?? ''))) at--;
    const before = (t: string) => addInsert(e, at, /^[ \t]/.test(program.lines[program.statements[at]!.lineIndex]!.text) ? t : indent + t);
    for (const t of pText) before(t);
    before(cmpWith(cnt.guardBound));
    before(`s_cbranch_scc${cnt.exitScc} ${peel}`);
    // the body: copies first, P' last, the compare one step on, waits and nops dropped
    const pSet = new Set(plan.p);
    const fenceSet = new Set(plan.fences);
    for (const t of copies) addInsert(e, stmtOf(b.start), t);
    for (let i = b.start; i < plan.branch; i++) {
      const base = insns[i]!.insn.base;
      if (fenceSet.has(i)) continue;
      if (pSet.has(i) || base === 's_waitcnt' || base === 's_nop') e.remove.add(stmtOf(i));
    }
    e.replace.set(cmpStmt, cmpWith(cnt.loopBound));
    for (const t of pText) addInsert(e, stmtOf(plan.branch), t);
    // after the loop: the peeled last iteration
    const next = stmtOf(plan.branch) + 1;
    addInsert(e, next, `${peel}:`);
    for (const t of peelCopies) addInsert(e, next, t);
    const rSet = new Set(plan.r);
    for (let i = b.start; i < plan.branch; i++) {
      if (rSet.has(i)) addInsert(e, next, peelText(i));
      else if (fenceSet.has(i)) addInsert(e, next, insns[i]!.insn.text.trim());
    }
    loops.push({ line: plan.line, label: plan.label, peel, loads: plan.loads.length, renamed: plan.renames.length, p: plan.p.length, r: plan.r.length });
  }
  const file = program.file;
  const arch = k.target.name;
  const raw = applyStatementEdits(program, e);
  const fixed = fixLoaded(loadText(raw, file, { arch }), { kernels: new Set([k.name]) });
  const loaded = loadText(fixed.text, file, { arch });
  // nothing the checkers find on any path that the input does not have
  const before = errorsByRule(k.loaded, k.name);
  for (const [rule, count] of errorsByRule(loaded, k.name)) {
    if (count > (before.get(rule) ?? 0)) throw new ConductorError(`the pipelined kernel ${k.name} does not check clean: ${count} [${rule}] (the input has ${before.get(rule) ?? 0})`);
  }
  return { text: fixed.text, loaded, loops };
}

/** Error findings of one kernel on every path (a shortfall on any path counts), by rule. */
function errorsByRule(l: Loaded, name: string): Map<string, number> {
  const ctx = kernelContexts(l).filter((c) => c.kernel.name === name);
  const m = new Map<string, number>();
  for (const c of checkContexts(ctx, { paths: 'all' })) for (const f of c.findings) if (f.severity === 'error') m.set(f.rule, (m.get(f.rule) ?? 0) + 1);
  return m;
}
