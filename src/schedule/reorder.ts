/**
 * From a schedule back to program text, first step: the regions whose order changed are written
 * in the new order with their dependency s_waitcnt / s_nop removed; every other line is
 * byte-identical. An instruction alone on its line moves with its line (trailing comment
 * included) and with the comment and `.loc` lines directly above it, except the comments that head a basic
 * block (above its first instruction, such as LLVM's `; %bb.1:`), which stay where the block
 * starts. A macro invocation whose expansion holds a changed region is written out expanded
 * (`// expanded from: ...`, one statement per line), since the macro body is shared by every
 * call. emit.ts then re-derives the waits and nops of that text.
 */
import type { Program } from '../asm/ast.js';
import { printProgram } from '../asm/printer.js';
import { MacroNumbering, addStatementLine, indentOf, statementText } from '../check/edit.js';
import type { ScheduleState } from './state.js';
import { isDebugLine, staysInPlace } from './kernel.js';
import { once } from '../analysis/memo.js';
import { EditedText, lineReuse, ParsedProgram, type LineOrigins, type LineReuse } from '../asm/program.js';
import { GPR_COUNT_PREFIX } from '../asm/parser.js';

/**
 * Text of the program with the changed regions of `s` reordered and their waits/nops removed.
 * `origins`, when given, gets where its lines come from: an instruction's line that moves as it
 * is counts as a copy of its line in the program (a region holds no directive, so a line moved
 * within it reads every symbol as it did: asm/program.ts LineReuse).
 */
export function reorderedText(s: ScheduleState, origins?: LineOrigins): string {
  const k = s.k;
  const program = k.loaded.program;
  const cfg = k.ctx.cfg;
  const changed = s.changedRegions();
  if (changed.length === 0) {
    origins?.copied(0, program.lineIndex.count, 0);
    return printProgram(program);
  }

  // statement -> replacement (the node now in that slot), dropped statements
  const nst = program.statements.length;
  const slotOf = new Int32Array(nst).fill(-1); // statement index -> kernel insn now there
  const drop = new Uint8Array(nst);
  const slots: number[] = []; // the statements slotOf sets
  const dropped: number[] = [];
  for (const r of changed) {
    const rg = k.regions[r]!;
    const o = s.order[r]!;
    for (let p = 0; p < o.length; p++) {
      if (o[p] === p) continue; // the slot keeps its own instruction: its line stays as it is
      const slotInsn = rg.nodes[p]!;
      const now = rg.nodes[o[p]!]!;
      const st = cfg.insns[slotInsn]!.stmt;
      slotOf[st] = now;
      slots.push(st);
    }
    for (const i of rg.stripped) { const st = cfg.insns[i]!.stmt; if (drop[st] === 0) { drop[st] = 1; dropped.push(st); } }
  }

  // statements per line, of the lines we touch
  const stmtsOfLine = new Map<number, number[]>();
  const touch = (st: number) => addStatementLine(program, st, stmtsOfLine);
  for (const st of slots) touch(st);
  for (const st of dropped) touch(st);

  const isSimpleLine = (li: number) => stmtsOfLine.get(li)!.every((x) => !program.statements[x]!.expansion);

  // Owned comment lines: comment-only (or .loc) lines right above a simple line whose only instruction
  // moves, below any sched_barrier comment (a region boundary: it stays, and so do the lines
  // above it). The comments above a block's first instruction head the block: they stay in place.
  const owned = new Map<number, number[]>(); // insn -> owned line indexes (top to bottom)
  const ownedLine = new Set<number>();
  const code = once(program, 'commentOnlyLines', () => commentOnlyLines(program));
  for (const slot of slots) {
    const i = slotOf[slot]!;
    if (cfg.blocks[cfg.blockOf[i]!]!.start === i) continue;
    const st = cfg.insns[i]!.stmt;
    const li = program.statements[st]!.lineIndex;
    if (!isSimpleLine(li) || stmtsOfLine.get(li)![0] !== st) continue;
    const list: number[] = [];
    for (let j = li - 1; j >= 0 && code[j] === 1 && !staysInPlace(program.lines[j]!.text); j--) list.unshift(j);
    if (list.length) { owned.set(i, list); for (const j of list) ownedLine.add(j); }
  }

  // the lines written for one line of the program, with the program's line each is a copy of
  // (-1: none); kept from line to line
  const emitted: string[] = [];
  const from: number[] = [];
  const add = (t: string, f = -1): void => { emitted.push(t); from.push(f); };
  /** Kernel instruction i written in a slot: its line (with the comment lines it owns), the last ending with `eol`. */
  const addMoved = (i: number, eol: string): void => {
    const st = cfg.insns[i]!.stmt;
    const s0 = program.statements[st]!;
    const li = s0.lineIndex;
    const line = program.lines[li]!;
    if (!isSimpleLine(li)) { add(indentOf(line.text) + s0.insn!.text + eol); return; }
    for (const j of owned.get(i) ?? []) add(program.lines[j]!.text + (program.lines[j]!.eol || '\n'), j);
    const first = stmtsOfLine.get(li)![0] === st;
    add((first ? line.text : indentOf(line.text) + line.text.slice(s0.loc.col - 1)) + eol, first ? li : -1);
  };


  // the lines written as they are go out in runs, cut from the program's text
  const text = program.lineIndex;
  const out = new EditedText(text, origins);
  let run = 0;
  const flush = (to: number) => out.copy(run, to);
  let skipTo = -1;
  const numbering = new MacroNumbering(program);
  for (let li = 0; li < text.count; li++) {
    const stmts = stmtsOfLine.get(li);
    const counted = numbering.due(li);
    if (!stmts && !ownedLine.has(li) && li > skipTo && !counted) continue;
    flush(li);
    run = li + 1;
    const line = { text: text.line(li), eol: text.eol(li) };
    const indent = indentOf(line.text);
    const eol = line.eol || '\n';
    if (counted) {
      for (const l of numbering.before(li)) out.write(`${indent}${l}${eol}`);
      if (!stmts && !ownedLine.has(li) && li > skipTo) { run = li; continue; } // the line itself goes out as it is
    }
    if (ownedLine.has(li) || li <= skipTo || !stmts) continue;
    const simple = isSimpleLine(li);
    emitted.length = 0;
    from.length = 0;
    if (!simple) {
      const call = stmts.map((x) => program.statements[x]!).find((x) => x.kind === 'macroCall' && !x.expansion);
      if (call?.blockEnd !== undefined) skipTo = call.blockEnd; // the rest of a repeat block's lines
      add(`${indent}// expanded from: ${call ? call.text : line.text.trim()}${eol}`);
    }
    let restFrom = 0;
    for (let q = 0; q < stmts.length; q++) {
      const st = stmts[q]!;
      const S = program.statements[st]!;
      if (S.kind === 'macroCall') continue;
      if (drop[st] === 1) continue;
      const now = slotOf[st]!;
      if (now >= 0) { addMoved(now, eol); continue; }
      if (simple) {
        // an untouched statement on a simple line that also holds a moved or dropped one: a label
        if (S.kind === 'label') { add(`${indent}${S.text}:${eol}`); restFrom = S.loc.col - 1 + S.text.length + 1; continue; }
        add(indent + line.text.slice(Math.max(restFrom, S.loc.col - 1)).trimStart() + eol);
        continue;
      }
      add(`${indent}${statementText(S)}${eol}`);
    }
    if (!simple) numbering.written(stmts);
    if (emitted.length === 0) continue; // a dropped wait or nop alone on its line
    const last = emitted.length - 1;
    if (line.eol === '') emitted[last] = emitted[last]!.slice(0, -eol.length); // keep "no final newline"
    // each line with the program's line it is a copy of (-1: none)
    for (let x = 0; x < emitted.length; x++) out.write(emitted[x]!, from[x]!);
  }
  flush(text.count);
  return out.text();
}


/** 1 for lines holding only a comment (no code, not blank). */
function commentOnlyLines(program: Program): Uint8Array {
  const out = new Uint8Array(program.lines.length);
  // 1: the line holds a statement; 2: only .loc directives (debug line rows), which move with
  // the instruction below them like a comment (isDebugLine)
  const hasStmt = new Uint8Array(program.lines.length);
  for (const s of program.statements) {
    const li = s.lineIndex;
    if (isDebugLine(s) && !s.expansion) { if (hasStmt[li] !== 1) hasStmt[li] = 2; } else hasStmt[li] = 1;
  }
  let inBlock = false;
  for (let i = 0; i < program.lines.length; i++) {
    const t = program.lines[i]!.text.trim();
    if (hasStmt[i] === 2) { inBlock = false; out[i] = 1; continue; }
    if (hasStmt[i]) { inBlock = false; continue; }
    if (t === '') { inBlock = false; continue; }
    if (inBlock || t.startsWith('//') || t.startsWith(';') || t.startsWith('/*') || t.startsWith('#')) {
      out[i] = 1;
      if (t.startsWith('/*') && !t.includes('*/')) inBlock = true;
      else if (inBlock && t.includes('*/')) inBlock = false;
    }
  }
  return out;
}

/**
 * What the parse of reorderedText's text may copy from the program's (LineReuse): the rows of the
 * lines it wrote as they are. Sound because a changed region holds no directive (kernel.ts
 * buildRegions), so a line moved within it reads every symbol as it did, except the register
 * counts `.amdgcn.next_free_*`, which each instruction naming a register raises in the order
 * written: none when the program names them.
 */
export function reorderReuse(program: Program, origins: LineOrigins): LineReuse | undefined {
  if (program instanceof ParsedProgram && program.source.includes(GPR_COUNT_PREFIX)) return undefined;
  return lineReuse(program, origins);
}
