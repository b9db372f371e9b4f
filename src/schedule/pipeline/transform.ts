/**
 * Writing a pipelined loop (plan.ts says which and how): the program text with, per loop,
 *
 *     <code before the loop>
 *     P'                         the first iteration's loads (renamed) and address code
 *     s_cmp_<op> c, g            the guard: the first iteration is the last one (or, in the
 *     s_cbranch_scc<x> .Lpeel    'next' form, `s_add t, c, s` + the compare of t: LoopCounter)
 *   loop:
 *     v_mov_b32 D, X ...         copies of the renamed loads' data
 *     R                          the rest of the body, the compare's constant one step on
 *                                (or the compare of the next value, made just before it)
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
import { addNopLines, fixLoaded } from '../../check/fix.js';
import { computeNops } from '../../hazards/engine.js';
import { addInsert, applyStatementEdits, emptyEdits } from '../../check/edit.js';
import type { Program, Statement } from '../../asm/ast.js';
import { kernelContextNamed, kernelContexts } from '../../analysis/context.js';
import { checkContexts } from '../../check/check.js';
import { ConductorError } from '../../errors.js';
import { isDebugLine, type ScheduleKernel } from '../kernel.js';
import type { PipelinePlan, Rename, TwoStage } from './plan.js';
import { SGPR_BASE } from '../../asm/registers.js';

/** What was done to one loop, for reports. */
export interface PipelinedLoop {
  /** Line of the loop's first instruction in the input, and its label. */
  line: number;
  /** The included file `line` is in (schedule of a file with `.include`); absent: the input file. */
  file?: string;
  label: string;
  /** Stages: 1, or 2 (the loads of iteration i+2 start in iteration i; the loop body holds two iterations). */
  stages: 1 | 2;
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

/**
 * Insert a line where the code falls into a loop whose first statement is `first`: in front of
 * its labels (and the alignment and the `.loc` debug line rows before them: clang -g writes a
 * `.loc` between the loop's label and its first instruction), indented as the loop.
 */
function beforeLoop(program: Program, e: ReturnType<typeof emptyEdits>, first: number): (line: string) => void {
  let at = first;
  const indent = /^[ \t]*/.exec(program.lines[program.statements[at]!.lineIndex]!.text)![0] || '\t';
  const skipped = (st: Statement) => st.kind === 'label' || ALIGN.test(st.name ?? '') || isDebugLine(st);
  while (at - 1 >= 0 && skipped(program.statements[at - 1]!)) at--;
  return (t: string) => addInsert(e, at, /^[ \t]/.test(program.lines[program.statements[at]!.lineIndex]!.text) ? t : indent + t);
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

/** A maker of labels `.Lpipelined_<what><n>` the program does not define yet. */
function labelMaker(program: Program): (what: string) => string {
  const names = new Set<string>();
  for (const st of program.statements) if (st.kind === 'label' && st.name) names.add(st.name);
  let n = 0;
  return (what) => {
    let l: string;
    do { l = `.Lpipelined_${what}${n++}`; } while (names.has(l));
    names.add(l);
    return l;
  };
}

/**
 * Pipeline the loops of `plans` (all of one kernel) and derive the waits and nops. Throws
 * (ConductorError) when the result cannot be made to check clean.
 */
export function pipelineProgram(k: ScheduleKernel, plans: readonly PipelinePlan[]): PipelinedProgram {
  const program = k.loaded.program;
  const { cfg, insns } = k.ctx;
  const e = emptyEdits();
  const fresh = labelMaker(program);
  const loops: PipelinedLoop[] = [];
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
    // the test that the next iteration is the last (LoopCounter.form): the compare with its
    // constant one step on, or the counter's next value made by the step into the free SGPR and
    // compared as the original compares the counter
    const temp = cnt.form === 'next' ? `s${cnt.temp! - SGPR_BASE}` : '';
    const lastTest = (v: number): string[] => cnt.form === 'next'
      ? [withOperand(program, stmtOf(cnt.stepAt), 0, temp), withOperand(program, cmpStmt, cnt.counterOperand, temp)]
      : [withOperand(program, cmpStmt, 1 - cnt.counterOperand, constantText(cnt.cmpMnemonic, v))];
    const peel = fresh('peel');
    // before the loop: P' and the guard, in front of the loop's labels (and the alignment before them)
    const before = beforeLoop(program, e, stmtOf(b.start));
    for (const t of pText) before(t);
    for (const t of lastTest(cnt.guardBound)) before(t);
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
    const test = lastTest(cnt.loopBound);
    for (const t of test.slice(0, -1)) addInsert(e, cmpStmt, t);
    e.replace.set(cmpStmt, test[test.length - 1]!);
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
    loops.push({ line: plan.line, label: plan.label, stages: 1, peel, loads: plan.loads.length, renamed: plan.renames.length, p: plan.p.length, r: plan.r.length });
  }
  // one stage renames into registers the descriptor covers; the SGPR of a counter's next value
  // may grow the SGPR allocation by one (LoopCounter.growSgpr, at the same occupancy)
  const growSgpr = plans.reduce<number | undefined>((g, p) => (p.counter.growSgpr !== undefined && (g === undefined || p.counter.growSgpr > g) ? p.counter.growSgpr : g), undefined);
  if (growSgpr !== undefined) growSgprAllocation(k, e, growSgpr);
  return finishProgram(k, e, loops, undefined, growSgpr);
}

/** Apply the edits to the kernel and derive its waits and nops; throws when it does not check clean. */
function finishProgram(k: ScheduleKernel, e: ReturnType<typeof emptyEdits>, loops: PipelinedLoop[], grow?: TwoStage['grow'], growSgpr?: number): PipelinedProgram {
  const program = k.loaded.program;
  const file = program.file;
  const arch = k.target.name;
  let raw = applyStatementEdits(program, e);
  if (grow) {
    const from = k.ctx.kernel.descriptor!.values['next_free_vgpr']!;
    raw = growMetadata(raw, k.name, 'vgpr_count', (n) => (n === from ? grow.nextFree : undefined));
  }
  if (growSgpr !== undefined) {
    const by = growSgpr - k.ctx.kernel.descriptor!.values['next_free_sgpr']!;
    raw = growMetadata(raw, k.name, 'sgpr_count', (n) => n + by);
  }
  // nothing the checkers find on any path that the input does not have
  const before = errorsByRule(k.loaded, k.name);
  const derive = (paths: 'every' | 'all') => {
    const fixed = fixLoaded(loadText(raw, file, { arch }), { kernels: new Set([k.name]), paths });
    const text = padWarnings(loadText(fixed.text, file, { arch }), k.name) ?? fixed.text;
    const loaded = loadText(text, file, { arch });
    const excess = [...errorsByRule(loaded, k.name)].find(([rule, count]) => count > (before.get(rule) ?? 0));
    return { text, loaded, excess };
  };
  // check --fix's waits fix what falls short on every path; a copy before the loop can fall
  // short on some paths only (a load the loop's own wait covered, issued on a path that skips
  // the loop): then the waits are derived for every path
  let d = derive('every');
  if (d.excess) d = derive('all');
  if (d.excess) {
    const [rule, count] = d.excess;
    throw new ConductorError(`the pipelined kernel ${k.name} does not check clean: ${count} [${rule}] (the input has ${before.get(rule) ?? 0})`);
  }
  return { text: d.text, loaded: d.loaded, loops };
}

/**
 * The s_nop padding the hazard engine gives the pipelined kernel beyond what check --fix inserted
 * (fixLoaded pads errors only): the rules whose shortfall is a warning, e.g. an XNACK soft clause
 * when the target id leaves XNACK unspecified (LLVM pads it: the code object may run with XNACK
 * on). The pipelined program is the original of the search that follows, whose emit pads only
 * what exceeds the original's padding outside the regions it reorders, so the copies written here
 * (the peeled iteration) would keep such a shortfall. Undefined when nothing is to pad.
 */
function padWarnings(l: Loaded, name: string): string | undefined {
  const ctx = kernelContextNamed(l, name);
  if (!ctx) return undefined;
  const plan = computeNops(ctx);
  if (plan.total === 0) return undefined;
  const e = emptyEdits();
  const maxImm = ctx.target.maxNopImm.value;
  for (const s of plan.sites) addNopLines(e, ctx.cfg.insns[s.insn]!.stmt, s.waitStates, maxImm);
  return applyStatementEdits(l.program, e);
}

/** Error findings of one kernel on every path (a shortfall on any path counts), by rule. */
function errorsByRule(l: Loaded, name: string): Map<string, number> {
  const ctx = kernelContexts(l).filter((c) => c.kernel.name === name);
  const m = new Map<string, number>();
  for (const c of checkContexts(ctx, { paths: 'all' })) for (const f of c.findings) if (f.severity === 'error') m.set(f.rule, (m.get(f.rule) ?? 0) + 1);
  return m;
}

/**
 * Pipeline the loops of `plans` by two stages (PipelinePlan.twoStage, plan.ts, every plan must
 * have one), writing per loop
 *
 *     <code before the loop>
 *     P2                          iteration 1's loads (their own registers D) and address code
 *     s_cmp_<op> c, bound-step    the loop runs once
 *     s_cbranch_scc<x> LAST
 *     P2'                         iteration 2's, into the alternate registers Y (odd iterations
 *                                 load into D, or where the address code uses D, into free ones too)
 *     s_cmp_<op> c, bound-2step   the loop runs twice
 *     s_cbranch_scc<x> EVEN
 *   loop:
 *     R2 P2                       iteration i (odd), its compare at bound-2step; the loads of i+2
 *     s_cbranch_scc<x> ODD        i was the third-last
 *     R2' P2'                     iteration i+1 (reading Y), the loads of i+3 into Y
 *     s_cbranch_scc<y> loop       the original back edge
 *   EVEN:
 *     R2 R2'                      the last two iterations when the count is even
 *     s_branch OUT
 *   ODD:
 *     R2'                         the last two when it is odd (or the last one: LAST)
 *   LAST:
 *     R2
 *   OUT:
 *   <code after the loop>
 *
 * Waits and nops of the body are dropped and derived anew, as for one stage.
 */
export function pipelineTwoStage(k: ScheduleKernel, plans: readonly PipelinePlan[]): PipelinedProgram {
  const program = k.loaded.program;
  const { cfg, insns } = k.ctx;
  const e = emptyEdits();
  const fresh = labelMaker(program);
  const loops: PipelinedLoop[] = [];
  for (const plan of plans) {
    const two = plan.twoStage!;
    const b = cfg.blocks[plan.block]!;
    const stmtOf = (i: number) => cfg.insns[i]!.stmt;
    const cnt = plan.counter;
    const cmpStmt = stmtOf(cnt.cmpAt);
    const bufferOf = new Map(two.buffers.map((x) => [x.load, x]));
    /** Instruction i of an odd or even iteration: D read (and by the loads written) as that iteration's registers; the compare's constant as given. */
    const text = (i: number, even: boolean, bound?: number): string => {
      const texts = new Map<number, string>();
      if (i === cnt.cmpAt && bound !== undefined) texts.set(1 - cnt.counterOperand, constantText(cnt.cmpMnemonic, bound));
      const own = bufferOf.get(i);
      insns[i]!.insn.operands.forEach((o, x) => {
        if (o.kind !== 'reg' || o.file !== 'v') return;
        // the loads' own destination; in R2, whole operands within some load's D
        const d = own ? (x === 0 ? own : undefined) : two.r.includes(i) ? two.buffers.find((y) => o.index >= y.from && o.index + o.count <= y.from + y.count) : undefined;
        const base = d ? (even ? d.to : d.odd) : undefined;
        if (d && base !== d.from) texts.set(x, range(base! + (o.index - d.from), o.count));
      });
      return texts.size > 0 ? withOperands(program, stmtOf(i), texts) : insns[i]!.insn.text.trim();
    };
    const pOf = (even: boolean) => two.p.map((i) => text(i, even));
    const rOf = (even: boolean, bound?: number) => two.r.map((i) => text(i, even, bound));
    const cmpWith = (v: number) => withOperand(program, cmpStmt, 1 - cnt.counterOperand, constantText(cnt.cmpMnemonic, v));
    const exitBranch = (l: string) => `s_cbranch_scc${cnt.exitScc} ${l}`;
    const last = fresh('last');
    const even = fresh('even');
    const odd = fresh('odd');
    const out = fresh('out');
    // before the loop, in front of its labels (and the alignment before them)
    const before = beforeLoop(program, e, stmtOf(b.start));
    for (const t of pOf(false)) before(t);
    before(cmpWith(two.firstBound));
    before(exitBranch(last));
    for (const t of pOf(true)) before(t);
    before(cmpWith(two.loopBound));
    before(exitBranch(even));
    // the body: every instruction of it written anew before the back edge
    for (let i = b.start; i < plan.branch; i++) e.remove.add(stmtOf(i));
    const br = stmtOf(plan.branch);
    for (const t of [...rOf(false, two.loopBound), ...pOf(false), exitBranch(odd), ...rOf(true, two.loopBound), ...pOf(true)]) addInsert(e, br, t);
    // after the loop
    const next = br + 1;
    const after = [`${even}:`, ...rOf(false), ...rOf(true), `s_branch ${out}`, `${odd}:`, ...rOf(true), `${last}:`, ...rOf(false), `${out}:`];
    for (const t of after) addInsert(e, next, t);
    loops.push({ line: plan.line, label: plan.label, stages: 2, peel: last, loads: plan.loads.length, renamed: two.buffers.length, p: two.p.length, r: two.r.length });
  }
  // each loop's registers grow from the same descriptor: the allocation is the largest they need
  let grow: TwoStage['grow'];
  for (const p of plans) { const g = p.twoStage!.grow; if (g && (!grow || g.nextFree > grow.nextFree)) grow = g; }
  if (grow) growAllocation(k, e, grow);
  return finishProgram(k, e, loops, grow);
}

/**
 * A larger VGPR allocation in the kernel's descriptor (TwoStage.grow): .amdhsa_next_free_vgpr,
 * .amdhsa_accum_offset on a unified file, and `.set <kernel>.num_vgpr` as LLVM writes it, each
 * where it is a plain number. Throws when the descriptor does not say it that way.
 */
function growAllocation(k: ScheduleKernel, e: ReturnType<typeof emptyEdits>, grow: NonNullable<TwoStage['grow']>): void {
  let found = false;
  eachDirective(k, (st, s, inDescriptor, plain) => {
    if (inDescriptor && st.name === '.amdhsa_next_free_vgpr') {
      if (!plain) throw new ConductorError(`the descriptor of ${k.name} gives .amdhsa_next_free_vgpr as an expression; the allocation is not grown`);
      e.replace.set(s, `.amdhsa_next_free_vgpr ${grow.nextFree}`);
      found = true;
    } else if (inDescriptor && st.name === '.amdhsa_accum_offset' && grow.accumOffset !== undefined) {
      if (!plain) throw new ConductorError(`the descriptor of ${k.name} gives .amdhsa_accum_offset as an expression; the allocation is not grown`);
      e.replace.set(s, `.amdhsa_accum_offset ${grow.accumOffset}`);
    } else if (st.name === '.set') {
      const m = /^(\S+)\.num_vgpr\s*,\s*(\d+)$/.exec(st.args?.trim() ?? '');
      if (m && m[1] === k.name) e.replace.set(s, `.set ${k.name}.num_vgpr, ${grow.nextFree}`);
    }
  });
  if (!found) throw new ConductorError(`no .amdhsa_next_free_vgpr for ${k.name}; the allocation is not grown`);
}

/**
 * Each directive from the kernel's start (statement and index), whether it is inside the kernel's
 * own descriptor (.amdhsa_kernel <name> ... .end_amdhsa_kernel), and whether its argument is a
 * plain number.
 */
function eachDirective(k: ScheduleKernel, visit: (st: Statement, s: number, inDescriptor: boolean, plain: boolean) => void): void {
  const program = k.loaded.program;
  let inDescriptor = false;
  for (let s = k.ctx.kernel.start; s < program.statements.length; s++) {
    const st = program.statements[s]!;
    if (st.kind !== 'directive') continue;
    if (st.name === '.amdhsa_kernel') { inDescriptor = st.args?.trim() === k.name; continue; }
    if (st.name === '.end_amdhsa_kernel') { inDescriptor = false; continue; }
    visit(st, s, inDescriptor, /^\d+$/.test(st.args?.trim() ?? ''));
  }
}

/**
 * A larger SGPR allocation in the kernel's descriptor (LoopCounter.growSgpr):
 * .amdhsa_next_free_sgpr and `.set <kernel>.numbered_sgpr` / `.num_sgpr` as LLVM writes them,
 * where they are plain numbers. Throws when the descriptor does not say it that way.
 */
function growSgprAllocation(k: ScheduleKernel, e: ReturnType<typeof emptyEdits>, nextFree: number): void {
  let found = false;
  eachDirective(k, (st, s, inDescriptor, plain) => {
    if (inDescriptor && st.name === '.amdhsa_next_free_sgpr') {
      if (!plain) throw new ConductorError(`the descriptor of ${k.name} gives .amdhsa_next_free_sgpr as an expression; the allocation is not grown`);
      e.replace.set(s, `.amdhsa_next_free_sgpr ${nextFree}`);
      found = true;
    } else if (st.name === '.set') {
      const m = /^(\S+)\.(numbered_sgpr|num_sgpr)\s*,\s*(\d+)$/.exec(st.args?.trim() ?? '');
      if (m && m[1] === k.name) e.replace.set(s, `.set ${k.name}.${m[2]}, ${nextFree}`);
    }
  });
  if (!found) throw new ConductorError(`no .amdhsa_next_free_sgpr for ${k.name}; the allocation is not grown`);
}

/**
 * The kernel's count `key` (`.vgpr_count`, `.sgpr_count`) in the code object metadata (YAML),
 * as `change` gives it (undefined: left as it is): the key at the indentation of the kernel's
 * `.name`, within its map (up to a line indented less).
 */
function growMetadata(text: string, name: string, key: string, change: (n: number) => number | undefined): string {
  const lines = text.split('\n');
  const indentOf = (l: string) => /^[ \t]*(?:-[ \t]+)?/.exec(l)![0].length;
  for (let x = 0; x < lines.length; x++) {
    const nm = /^[ \t]*(?:-[ \t]+)?\.name:[ \t]+(\S+)[ \t]*$/.exec(lines[x]!);
    if (!nm || nm[1] !== name) continue;
    const at = indentOf(lines[x]!);
    for (let y = x - 1; y >= 0 && lines[y]!.trim() !== '' && indentOf(lines[y]!) >= at && !/\.amdgpu_metadata/.test(lines[y]!); y--) {
      if (indentOf(lines[y]!) === at && setCount(lines, y, key, change)) return lines.join('\n');
      if (/^[ \t]*-[ \t]/.test(lines[y]!) && indentOf(lines[y]!) === at) break;
    }
    for (let y = x + 1; y < lines.length && indentOf(lines[y]!) >= at && !/^[ \t]*-[ \t]/.test(lines[y]!.slice(0, at)); y++) {
      if (indentOf(lines[y]!) === at && setCount(lines, y, key, change)) return lines.join('\n');
    }
  }
  return lines.join('\n');
}

function setCount(lines: string[], y: number, key: string, change: (n: number) => number | undefined): boolean {
  const vc = new RegExp(`^(.*\\.${key}:[ \\t]+)(\\d+)([ \\t]*)$`).exec(lines[y]!);
  const to = vc ? change(Number(vc[2])) : undefined;
  if (!vc || to === undefined) return false;
  lines[y] = `${vc[1]}${to}${vc[3]}`;
  return true;
}
