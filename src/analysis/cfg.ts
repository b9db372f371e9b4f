/**
 * Basic blocks and the control flow graph of one kernel. Blocks start at a label (but a label
 * only debug information names: debugOnlyLabels) or after a control instruction; edges follow
 * s_branch / s_cbranch_* to their labels and fall through.
 * s_setpc_b64 is a return unless it closes a PC-relative long branch (s_getpc_b64 ... an
 * operand naming a label ... s_setpc_b64, as Tensile writes them), whose label is its target.
 */
import type { Instruction, KernelSymbol, Loc, Program } from '../asm/ast.js';
import { controlKind, type ControlKind } from '../isa/control.js';
import { ParsedProgram, forEachStatementObject, statementAt } from '../asm/program.js';
import { once } from './memo.js';
import { sectionIsCode } from './rawwords.js';
import { namesRegisters, namesSymbol } from '../asm/store.js';

export interface BasicBlock {
  id: number;
  /** Index of the first instruction (into Cfg.insns) and one past the last. */
  start: number;
  end: number;
  /** Labels naming this block. */
  labels: string[];
  succs: number[];
  preds: number[];
  /** The block ends the program or leaves through an unknown jump (return / indirect). */
  exits: boolean;
  loc: Loc;
}

export interface LongBranch {
  /** Index of s_getpc_b64 and of s_setpc_b64 in Cfg.insns. */
  getpc: number;
  setpc: number;
  label: string;
  /**
   * A loop closed by the s_setpc_b64 (findPcLoops): the label right after the s_getpc_b64 is the
   * target and nothing between the two names the address pair, so the code between them may be
   * reordered; a long branch's address arithmetic may not.
   */
  loop?: true;
}

export interface Cfg {
  kernel: KernelSymbol;
  insns: Instruction[];
  blocks: BasicBlock[];
  /** Block id of each instruction. */
  blockOf: Int32Array;
  /** Control kind of each instruction. */
  control: ControlKind[];
  longBranches: LongBranch[];
  /** Labels that name no instruction (at the end of the kernel). */
  danglingLabels: string[];
  /**
   * Jumps by a raw offset rather than to a label (`s_branch 1755`, as in kernels written from a
   * disassembly, or an s_setpc_b64 of an s_getpc_b64 value moved by a number): their targets are
   * not followed (the block exits), and any change of the code's layout moves them.
   */
  rawJumps: number[];
}

const LONG_BRANCH_WINDOW = 8;

/**
 * PC-relative sequences: for each instruction after an s_getpc_b64 in its block, up to the last
 * one there naming a symbol (`s_add_u32 s4, s4, tab@rel32@lo+8`), the index of that s_getpc_b64;
 * -1 elsewhere. A symbol's offset there counts the bytes from the s_getpc_b64, so nothing may be
 * inserted, removed or moved inside such a sequence.
 */
export function pcRelativeSpans(cfg: Cfg): Int32Array {
  return once(cfg, 'pcRelativeSpans', () => {
    const out = new Int32Array(cfg.insns.length).fill(-1);
    for (let i = 0; i < cfg.insns.length; i++) {
      if (cfg.insns[i]!.base !== 's_getpc_b64') continue;
      const blk = cfg.blocks[cfg.blockOf[i]!]!;
      let last = i;
      for (let j = i + 1; j < blk.end; j++) if (cfg.control[j] === 'none' && namesSymbol(cfg.insns[j]!)) last = j;
      for (let j = i + 1; j <= last; j++) if (out[j] === -1) out[j] = i;
    }
    return out;
  });
}

/**
 * Data directives: a label they name in a debug section (`.section .debug_*`) is an address in
 * the debug information (clang -g: the DWARF ranges and location lists, `.uleb128
 * .Ltmp5-.Lfunc_begin0`), not a place code goes to. Anywhere else (code, or a data section such
 * as .rodata, where a table of addresses code could jump through may live) it counts as named.
 */
const DATA_DIRECTIVES = new Set(['.byte', '.short', '.hword', '.value', '.2byte', '.long', '.int', '.4byte', '.word',
  '.quad', '.8byte', '.uleb128', '.sleb128', '.size']);
const LOCAL_SYMBOL = /\.L[\w.$]*/g;

/**
 * Local labels (`.L...`, written outside any macro) that no instruction, symbol assignment or
 * directive other than a data directive of a debug section names: the labels clang -g writes between instructions
 * (`.Ltmp<n>`) for the debug information's address ranges. No branch reaches them and no code
 * reads their address, so they start no basic block and a reordering may move code across them
 * (the label stays between the same two instruction slots: the ranges keep their order, as after
 * a compiler's own scheduling, and describe the code approximately); verify ignores them.
 * Kept on the program (memo.ts).
 */
export function debugOnlyLabels(program: Program): ReadonlySet<string> {
  return once(program, 'debugOnlyLabels', () => {
    const out = new Set<string>();
    forEachStatementObject(program, (s) => {
      if (s.kind === 'label' && !s.expansion && s.name !== undefined && s.name.startsWith('.L')) out.add(s.name);
    });
    if (out.size === 0) return out;
    const named = (t: string) => { for (const m of t.matchAll(LOCAL_SYMBOL)) out.delete(m[0]); };
    let debug = false;
    // (the section only decides for directives; an instruction read from the store is looked at
    // in place, its text made only when it names a local symbol)
    const store = program instanceof ParsedProgram ? program.store : undefined;
    forEachStatementObject(program, (s) => {
      const section = sectionIsCode(s);
      if (section !== undefined) { debug = !section && s.name === '.section' && /^"?\.debug/.test((s.args ?? '').trim()); return; }
      if (s.kind === 'label' || (debug && s.kind === 'directive' && DATA_DIRECTIVES.has(s.name ?? ''))) return;
      if (s.text.includes('.L')) named(s.text);
    }, store && ((i) => { if (store.textHas(i, '.L')) named(store.text(i)); }));
    return out;
  });
}

export function buildCfg(program: Program, kernel: KernelSymbol): Cfg {
  const insns: Instruction[] = [];
  const labelsBefore = new Map<number, string[]>();
  const debugOnly = debugOnlyLabels(program);
  let pending: string[] = [];
  for (let k = kernel.start; k < kernel.end; k++) {
    // an instruction read from the store without its statement's view
    let insn = program instanceof ParsedProgram ? program.storedInstructionAt(k) : undefined;
    if (insn === undefined) {
      const s = statementAt(program, k)!;
      if (s.kind === 'label' && k !== kernel.start && !debugOnly.has(s.name!)) { pending.push(s.name!); continue; }
      insn = s.insn;
    }
    if (insn) {
      if (pending.length > 0) { labelsBefore.set(insns.length, pending); pending = []; }
      insns.push(insn);
    }
  }
  const control = insns.map((i) => controlKind(i.base));
  const n = insns.length;
  const leader = new Uint8Array(n + 1);
  if (n > 0) leader[0] = 1;
  for (const idx of labelsBefore.keys()) leader[idx] = 1;
  for (let i = 0; i < n; i++) if (control[i] !== 'none' && control[i] !== 'call') leader[i + 1] = 1;

  const blocks: BasicBlock[] = [];
  const blockOf = new Int32Array(n);
  const labelBlock = new Map<string, number>();
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && !leader[j]) j++;
    const id = blocks.length;
    const labels = labelsBefore.get(i) ?? [];
    for (const l of labels) labelBlock.set(l, id);
    blocks.push({ id, start: i, end: j, labels, succs: [], preds: [], exits: false, loc: insns[i]!.loc });
    for (let k = i; k < j; k++) blockOf[k] = id;
    i = j;
  }

  const longBranches = findLongBranches(insns, control);
  longBranches.push(...findPcLoops(insns, control, labelsBefore, new Set(longBranches.map((lb) => lb.setpc))));
  const longByEnd = new Map(longBranches.map((lb) => [lb.setpc, lb]));
  const addEdge = (a: number, b: number) => {
    const A = blocks[a]!;
    if (!A.succs.includes(b)) { A.succs.push(b); blocks[b]!.preds.push(a); }
  };
  for (const b of blocks) {
    const last = b.end - 1;
    const kind = control[last]!;
    const insn = insns[last]!;
    const fall = b.id + 1 < blocks.length ? b.id + 1 : -1;
    const target = () => {
      const op = insn.operands[0];
      const name = op && op.kind === 'expr' ? op.symbols[0] ?? op.text : undefined;
      return name !== undefined ? labelBlock.get(name) : undefined;
    };
    switch (kind) {
      case 'jump': {
        const t = target();
        if (t === undefined) b.exits = true; else addEdge(b.id, t);
        break;
      }
      case 'cjump': {
        const t = target();
        if (t === undefined) b.exits = true; else addEdge(b.id, t);
        if (fall >= 0) addEdge(b.id, fall); else b.exits = true;
        break;
      }
      case 'indirect': {
        const lb = longByEnd.get(last);
        const t = lb ? labelBlock.get(lb.label) : undefined;
        if (t === undefined) b.exits = true; else addEdge(b.id, t);
        break;
      }
      case 'end': case 'trap':
        b.exits = true;
        break;
      default:
        if (fall >= 0) addEdge(b.id, fall); else b.exits = true;
    }
  }
  const danglingLabels = pending;
  const rawJumps: number[] = [];
  for (let i = 0; i < n; i++) {
    const k = control[i];
    if (k === 'jump' || k === 'cjump') {
      const op = insns[i]!.operands[0];
      if (op && op.kind !== 'expr') rawJumps.push(i);
    } else if (k === 'indirect' && !longByEnd.has(i) && pcMovedByNumber(insns, control, i)) rawJumps.push(i);
    else if (k === 'call' && insns[i]!.mnemonic === 's_call_b64') {
      // s_call_b64 sdst, simm16: a word offset like a branch's (MIOpen's Winograd v30 'of 1542')
      const op = insns[i]!.operands[1];
      if (op && op.kind !== 'expr') rawJumps.push(i);
    }
  }
  return { kernel, insns, blocks, blockOf, control, longBranches, danglingLabels, rawJumps };
}

/**
 * A loop closed by s_setpc_b64 of the address an s_getpc_b64 took earlier (MIOpen's conv1x1wrw.s:
 * `s_getpc_b64 s[p:p+1]`, `loop_n_begin:`, ..., `s_setpc_b64 s[p:p+1]`): S_GETPC_B64 gives the
 * address of the next instruction (ISA: "D.u64 = PC + 4"), so the jump goes to the label right
 * after the s_getpc_b64. Taken only when such a label is there and no instruction between the two
 * names either register of the pair (nothing can have changed the address); otherwise the
 * s_setpc_b64 stays what it was (a return, or a raw jump when the PC was moved by a number).
 */
function findPcLoops(insns: Instruction[], control: ControlKind[], labelsBefore: ReadonlyMap<number, string[]>, taken: ReadonlySet<number>): LongBranch[] {
  const out: LongBranch[] = [];
  for (let i = 0; i < insns.length; i++) {
    if (control[i] !== 'indirect' || taken.has(i) || insns[i]!.base !== 's_setpc_b64') continue;
    const to = insns[i]!.operands[0];
    if (!to || to.kind !== 'reg') continue;
    for (let g = i - 1; g >= 0; g--) {
      const r = insns[g]!;
      // read from the store's rows: the scan may pass thousands of instructions
      if (!namesRegisters(r, to.file, to.first, to.count)) continue;
      const pc = r.operands[0];
      if (r.base === 's_getpc_b64' && pc && pc.kind === 'reg' && pc.file === to.file && pc.first === to.first && pc.count === to.count) {
        const label = labelsBefore.get(g + 1)?.[0];
        if (label !== undefined && g + 1 <= i) out.push({ getpc: g, setpc: i, label, loop: true });
      }
      break;
    }
  }
  return out;
}

/**
 * An s_setpc_b64 of the register pair an s_getpc_b64 wrote within LONG_BRANCH_WINDOW before it
 * (no label named between: the PC moved by a number).
 */
function pcMovedByNumber(insns: Instruction[], control: ControlKind[], i: number): boolean {
  const to = insns[i]!.operands[0];
  if (!to || to.kind !== 'reg') return false;
  for (let g = i - 1; g >= 0 && g >= i - LONG_BRANCH_WINDOW; g--) {
    if (insns[g]!.base === 's_getpc_b64') {
      const pc = insns[g]!.operands[0];
      return !!pc && pc.kind === 'reg' && pc.file === to.file && pc.first === to.first;
    }
    if (control[g] !== 'none') return false;
  }
  return false;
}

function findLongBranches(insns: Instruction[], control: ControlKind[]): LongBranch[] {
  const out: LongBranch[] = [];
  for (let i = 0; i < insns.length; i++) {
    if (control[i] !== 'indirect') continue;
    for (let g = i - 1; g >= 0 && g >= i - LONG_BRANCH_WINDOW; g--) {
      if (insns[g]!.base === 's_getpc_b64') {
        let label: string | undefined;
        for (let k = g + 1; k < i && !label; k++) {
          for (const op of insns[k]!.operands) if (op.kind === 'expr' && op.symbols.length > 0) { label = op.symbols[0]; break; }
        }
        if (label) out.push({ getpc: g, setpc: i, label });
        break;
      }
      if (control[g] !== 'none') break;
    }
  }
  return out;
}

/**
 * Immediate dominators of the blocks reachable from block 0 (Cooper, Harvey and Kennedy, "A
 * Simple, Fast Dominance Algorithm", 2001): `idom[b]` (block 0 its own; -1 for a block the entry
 * does not reach), and `rank[b]`, the block's place in reverse postorder (-1 unreached).
 */
export function dominators(blocks: readonly { succs: readonly number[]; preds: readonly number[] }[]): { idom: Int32Array; rank: Int32Array } {
  const n = blocks.length;
  const idom = new Int32Array(n).fill(-1);
  const rank = new Int32Array(n).fill(-1);
  if (n === 0) return { idom, rank };
  const order: number[] = [];
  const seen = new Uint8Array(n);
  const stack: [number, number][] = [[0, 0]];
  seen[0] = 1;
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    const ss = blocks[top[0]]!.succs;
    if (top[1] < ss.length) {
      const s = ss[top[1]++]!;
      if (!seen[s]) { seen[s] = 1; stack.push([s, 0]); }
    } else { order.push(top[0]); stack.pop(); }
  }
  order.reverse();
  order.forEach((x, r) => { rank[x] = r; });
  idom[0] = 0;
  for (let changed = true; changed;) {
    changed = false;
    for (const x of order) {
      if (x === 0) continue;
      let m = -1;
      for (const p of blocks[x]!.preds) if (idom[p]! >= 0 && rank[p]! >= 0) m = m < 0 ? p : commonIdom(idom, rank, p, m);
      if (m >= 0 && idom[x] !== m) { idom[x] = m; changed = true; }
    }
  }
  return { idom, rank };
}

/** The nearest common dominator of a and b (both reached), walking up `idom` by reverse-postorder rank. */
export function commonIdom(idom: Int32Array, rank: Int32Array, a: number, b: number): number {
  while (a !== b) {
    while (rank[a]! > rank[b]!) a = idom[a]!;
    while (rank[b]! > rank[a]!) b = idom[b]!;
  }
  return a;
}

/** Block d dominates block b (both reached from the entry). */
export function dominates(idom: Int32Array, rank: Int32Array, d: number, b: number): boolean {
  if (rank[d]! < 0 || rank[b]! < 0) return false;
  while (rank[b]! > rank[d]!) b = idom[b]!;
  return b === d;
}
