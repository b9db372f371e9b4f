/**
 * Program parser. Keeps every source line byte-exact (printing is lossless) and builds the
 * expanded statement stream that analysis works on: macros expanded, `.set` / `=` symbols
 * evaluated in file order (they may be redefined mid-file), kernel descriptors read.
 */
import type {
  AmdhsaDescriptor, Diagnostic, Instruction, KernelSymbol, Loc, MacroDef, MacroParam, Program, SourceLine, Statement,
} from './ast.js';
import { splitLines, stripComments } from './source.js';
import { parseInstructionText, splitTopLevel } from './instruction.js';
import { evalExpr } from './expr.js';
import { ConductorError } from '../errors.js';

const DATA_DIRECTIVES = new Set(['.long', '.word', '.4byte', '.int', '.byte', '.short', '.2byte', '.hword', '.quad', '.8byte', '.value']);
const UNSUPPORTED_BLOCKS = new Set(['.rept', '.irp', '.irpc', '.if', '.ifdef', '.ifndef', '.ifeq', '.ifne', '.ifb', '.ifnb', '.include', '.incbin']);
const RAW_BLOCKS: Record<string, string> = {
  '.amdgpu_metadata': '.end_amdgpu_metadata',
  '.amd_kernel_code_t': '.end_amd_kernel_code_t',
  '.amdgpu_pal_metadata': '.end_amdgpu_pal_metadata',
};
const MAX_MACRO_DEPTH = 64;

export interface ParseOptions {
  /** Stop at the first error and throw it (default false: errors become diagnostics). */
  throwOnError?: boolean;
}

interface State {
  file: string;
  lines: SourceLine[];
  code: string[];
  statements: Statement[];
  instructions: Instruction[];
  symbols: Map<string, number>;
  macros: Map<string, MacroDef>;
  diagnostics: Diagnostic[];
  functionSymbols: Set<string>;
  descriptors: Map<string, AmdhsaDescriptor>;
  declaredTarget?: Program['declaredTarget'];
  rawWords: number;
  inCode: boolean;
  macroCounter: number;
  throwOnError: boolean;
}

export function parseProgram(text: string, file: string, options: ParseOptions = {}): Program {
  const lines = splitLines(text);
  const code = stripComments(lines);
  const st: State = {
    file, lines, code, statements: [], instructions: [], symbols: new Map(), macros: new Map(), diagnostics: [],
    functionSymbols: new Set(), descriptors: new Map(), rawWords: 0, inCode: true, macroCounter: 0,
    throwOnError: options.throwOnError ?? false,
  };
  const lookup = (name: string) => st.symbols.get(name);

  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    const t = c.trim();
    if (t === '') { i++; continue; }
    const col = c.length - c.trimStart().length + 1;
    // Block directives handled at the top level: raw blocks, macro definitions, kernel descriptors.
    const first = firstWord(t).toLowerCase();
    const rawEnd = RAW_BLOCKS[first];
    if (rawEnd) {
      pushStatement(st, { kind: 'directive', text: t, name: first, args: '', loc: loc(st, i, col), lineIndex: i });
      let j = i + 1;
      while (j < code.length && firstWord(code[j]!.trim()).toLowerCase() !== rawEnd) j++;
      if (j >= code.length) report(st, `${first} block is not closed by ${rawEnd}`, loc(st, i, col));
      else pushStatement(st, { kind: 'directive', text: rawEnd, name: rawEnd, args: '', loc: loc(st, j, 1), lineIndex: j });
      i = j + 1;
      continue;
    }
    if (first === '.macro') {
      i = readMacro(st, i, col, t);
      continue;
    }
    if (first === '.amdhsa_kernel') {
      i = readDescriptor(st, i, col, t, lookup);
      continue;
    }
    processStatement(st, t, i, col, lookup, undefined);
    i++;
  }

  const kernels = findKernels(st);
  return {
    file, lines, statements: st.statements, instructions: st.instructions, kernels,
    declaredTarget: st.declaredTarget, symbols: st.symbols, macros: st.macros, rawWords: st.rawWords,
    diagnostics: st.diagnostics,
  };
}

function firstWord(t: string): string {
  let e = 0;
  while (e < t.length && t[e] !== ' ' && t[e] !== '\t' && t[e] !== ',') e++;
  return t.slice(0, e);
}

function loc(st: State, lineIndex: number, col: number): Loc {
  return { file: st.file, line: lineIndex + 1, col };
}

function report(st: State, message: string, at: Loc, severity: Diagnostic['severity'] = 'error'): void {
  if (severity === 'error' && st.throwOnError) throw new ConductorError(message, at);
  st.diagnostics.push({ severity, message, loc: at, rule: 'parse' });
}

function pushStatement(st: State, s: Statement): void {
  st.statements.push(s);
}

type Expansion = Statement['expansion'];

/**
 * One statement (comments removed, trimmed). `lineIndex` is the source line it belongs to;
 * `col` the column of t[0]. Labels at the front are split off.
 */
function processStatement(st: State, t: string, lineIndex: number, col: number, lookup: (n: string) => number | undefined, exp: Expansion): void {
  const mkLoc = (c: number): Loc => (exp ? { file: st.file, line: exp.callLine, col: exp.callCol } : loc(st, lineIndex, c));
  // Labels: name: (possibly several, possibly followed by a statement).
  for (;;) {
    const m = /^([A-Za-z_.$][\w.$@]*)\s*:(?!:)/.exec(t);
    if (!m) break;
    // A mnemonic immediately followed by ':' cannot be an instruction, so this is a label.
    pushStatement(st, { kind: 'label', text: m[1]!, name: m[1]!, loc: mkLoc(col), lineIndex, expansion: exp });
    const rest = t.slice(m[0].length);
    const trimmed = rest.trimStart();
    col += m[0].length + (rest.length - trimmed.length);
    t = trimmed;
    if (t === '') return;
  }
  const first = firstWord(t);
  const lower = first.toLowerCase();
  if (first.startsWith('.')) {
    directive(st, t, lower, lineIndex, col, lookup, exp, mkLoc(col));
    return;
  }
  // Symbol assignment: name = expr
  const assign = /^([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*(.*)$/.exec(t);
  if (assign) {
    defineSymbol(st, assign[1]!, assign[2]!, lookup, mkLoc(col));
    pushStatement(st, { kind: 'directive', text: t, name: '=', args: t, loc: mkLoc(col), lineIndex, expansion: exp });
    return;
  }
  const macro = st.macros.get(first) ?? st.macros.get(lower);
  if (macro) {
    expandMacro(st, macro, t.slice(first.length), lineIndex, col, lookup, exp);
    return;
  }
  let insn: Instruction;
  try {
    insn = parseInstructionText(t, exp ? { file: st.file, line: exp.callLine, col: exp.callCol } : loc(st, lineIndex, col), lookup, st.statements.length);
    if (exp) insn.loc = { file: st.file, line: exp.callLine, col: exp.callCol };
  } catch (e) {
    if (e instanceof ConductorError) {
      const where = exp ? mkLoc(col) : e.loc ?? mkLoc(col);
      const msg = exp ? `${e.message} (in expansion of macro '${exp.macro}', line ${exp.macroLoc.line})` : e.message;
      report(st, msg, where);
      pushStatement(st, { kind: 'raw', text: t, loc: mkLoc(col), lineIndex, expansion: exp });
      return;
    }
    throw e;
  }
  pushStatement(st, { kind: 'instruction', text: t, loc: insn.loc, lineIndex, insn, expansion: exp });
  st.instructions.push(insn);
}

function directive(st: State, t: string, name: string, lineIndex: number, col: number,
  lookup: (n: string) => number | undefined, exp: Expansion, at: Loc): void {
  const args = t.slice(name.length).trim();
  pushStatement(st, { kind: 'directive', text: t, name, args, loc: at, lineIndex, expansion: exp });
  switch (name) {
    case '.set': case '.equ': case '.equiv': {
      const parts = splitTopLevel(args);
      if (parts.length < 2) { report(st, `${name} needs a name and a value`, at); return; }
      defineSymbol(st, parts[0]!, parts.slice(1).join(','), lookup, at);
      return;
    }
    case '.amdgcn_target': {
      const m = /"([^"]*)"/.exec(args);
      const id = m ? m[1]! : args;
      const tm = /(gfx[0-9a-z]+)(.*)$/.exec(id);
      if (tm) st.declaredTarget = { name: tm[1]!, features: tm[2]!.replace(/^:/, ''), loc: at };
      return;
    }
    case '.type': {
      const parts = splitTopLevel(args);
      if (parts.length >= 2 && /function/.test(parts[1]!)) st.functionSymbols.add(parts[0]!);
      return;
    }
    case '.amdgpu_hsa_kernel':
      st.functionSymbols.add(args);
      return;
    case '.text':
      st.inCode = true;
      return;
    case '.data': case '.bss': case '.rodata':
      st.inCode = false;
      return;
    case '.section': {
      const sec = splitTopLevel(args)[0] ?? '';
      st.inCode = sec.startsWith('.text');
      return;
    }
    case '.endm': case '.endmacro':
      report(st, `${name} without .macro`, at);
      return;
    default:
      if (DATA_DIRECTIVES.has(name)) {
        if (st.inCode) st.rawWords += splitTopLevel(args).length;
        return;
      }
      if (UNSUPPORTED_BLOCKS.has(name)) {
        report(st, `directive ${name} is not supported: its body would not be analysed`, at);
      }
  }
}

function defineSymbol(st: State, name: string, exprText: string, lookup: (n: string) => number | undefined, at: Loc): void {
  const v = evalExpr(exprText.trim(), lookup);
  if (v === undefined) {
    // A label difference or a forward reference: not a number we can use; forget older values.
    st.symbols.delete(name);
    return;
  }
  void at;
  st.symbols.set(name, v);
}

function readMacro(st: State, start: number, col: number, t: string): number {
  const header = t.slice('.macro'.length).trim();
  const m = /^([A-Za-z_.$][\w.$]*)\s*,?\s*(.*)$/.exec(header);
  const at = loc(st, start, col);
  if (!m) {
    report(st, '.macro needs a name', at);
    return start + 1;
  }
  const params: MacroParam[] = [];
  const paramText = m[2]!.trim();
  if (paramText !== '') {
    const pieces = paramText.includes(',') ? splitTopLevel(paramText) : paramText.split(/\s+/);
    for (const p of pieces) {
      if (p === '') continue;
      const pm = /^([A-Za-z_][\w]*)\s*(?::\s*(req|vararg))?\s*(?:=\s*(.*))?$/.exec(p);
      if (!pm) { report(st, `invalid macro parameter '${p}'`, at); continue; }
      params.push({ name: pm[1]!, required: pm[2] === 'req', vararg: pm[2] === 'vararg', defaultValue: pm[3] });
    }
  }
  const body: MacroDef['body'] = [];
  let depth = 1;
  let i = start + 1;
  for (; i < st.code.length; i++) {
    const w = firstWord(st.code[i]!.trim()).toLowerCase();
    if (w === '.macro') depth++;
    if (w === '.endm' || w === '.endmacro') {
      depth--;
      if (depth === 0) break;
    }
    body.push({ text: st.code[i]!, lineIndex: i });
  }
  if (i >= st.code.length) report(st, `.macro ${m[1]} is not closed by .endm`, at);
  const def: MacroDef = { name: m[1]!, params, body, loc: at };
  st.macros.set(def.name, def);
  pushStatement(st, { kind: 'directive', text: t, name: '.macro', args: header, loc: at, lineIndex: start });
  if (i < st.code.length) pushStatement(st, { kind: 'directive', text: '.endm', name: '.endm', args: '', loc: loc(st, i, 1), lineIndex: i });
  return i + 1;
}

function splitMacroArgs(text: string): string[] {
  const t = text.trim();
  if (t === '') return [];
  if (hasTopLevelComma(t)) return splitTopLevel(t);
  // Blank-separated, keeping bracketed and parenthesised groups together.
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of t) {
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if ((ch === ' ' || ch === '\t') && depth === 0) {
      if (cur !== '') out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur !== '') out.push(cur);
  return out;
}

function hasTopLevelComma(t: string): boolean {
  let depth = 0;
  for (const ch of t) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) return true;
  }
  return false;
}

function expandMacro(st: State, macro: MacroDef, argText: string, lineIndex: number, col: number,
  lookup: (n: string) => number | undefined, outer: Expansion): void {
  const depth = (outer?.depth ?? 0) + 1;
  const at: Loc = outer ? { file: st.file, line: outer.callLine, col: outer.callCol } : loc(st, lineIndex, col);
  if (depth > MAX_MACRO_DEPTH) {
    report(st, `macro '${macro.name}' expands too deeply (recursion?)`, at);
    return;
  }
  pushStatement(st, { kind: 'macroCall', text: `${macro.name}${argText}`, name: macro.name, loc: at, lineIndex, expansion: outer });
  const args = splitMacroArgs(argText);
  const values = new Map<string, string>();
  let positional = 0;
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    const kw = /^([A-Za-z_]\w*)\s*=\s*(.*)$/.exec(a);
    if (kw && macro.params.some((p) => p.name === kw[1])) { values.set(kw[1]!, kw[2]!); continue; }
    const p = macro.params[positional];
    if (!p) { report(st, `too many arguments for macro '${macro.name}' (takes ${macro.params.length})`, at); return; }
    if (p.vararg) { values.set(p.name, args.slice(k).join(', ')); positional++; break; }
    values.set(p.name, a);
    positional++;
  }
  for (const p of macro.params) {
    if (!values.has(p.name)) {
      if (p.required) { report(st, `missing value for required parameter '${p.name}' of macro '${macro.name}'`, at); return; }
      values.set(p.name, p.defaultValue ?? '');
    }
  }
  const counter = String(st.macroCounter++);
  const subst = (s: string) => s.replace(/\\(\(\)|@|[A-Za-z_]\w*)/g, (whole, name: string) => {
    if (name === '()') return '';
    if (name === '@') return counter;
    const v = values.get(name);
    return v === undefined ? whole : v;
  });
  for (const b of macro.body) {
    const expanded = subst(b.text);
    const tt = expanded.trim();
    if (tt === '') continue;
    const bcol = expanded.length - expanded.trimStart().length + 1;
    if (firstWord(tt).toLowerCase() === '.macro') {
      report(st, 'a .macro definition inside a macro expansion is not supported', at);
      continue;
    }
    // Statements from an expansion are located at the invocation (line and column) and remember the body line.
    const exp: Expansion = { macro: macro.name, callLine: at.line, callCol: at.col, macroLoc: loc(st, b.lineIndex, bcol), depth };
    processStatement(st, tt, at.line - 1, at.col, lookup, exp);
  }
}

function readDescriptor(st: State, start: number, col: number, t: string, lookup: (n: string) => number | undefined): number {
  const name = t.slice('.amdhsa_kernel'.length).trim();
  const at = loc(st, start, col);
  pushStatement(st, { kind: 'directive', text: t, name: '.amdhsa_kernel', args: name, loc: at, lineIndex: start });
  const values: Record<string, number> = {};
  let i = start + 1;
  for (; i < st.code.length; i++) {
    const line = st.code[i]!.trim();
    if (line === '') continue;
    const w = firstWord(line).toLowerCase();
    const dcol = st.code[i]!.length - st.code[i]!.trimStart().length + 1;
    pushStatement(st, { kind: 'directive', text: line, name: w, args: line.slice(w.length).trim(), loc: loc(st, i, dcol), lineIndex: i });
    if (w === '.end_amdhsa_kernel') break;
    if (w.startsWith('.amdhsa_')) {
      const v = evalExpr(line.slice(w.length).trim(), lookup);
      if (v === undefined) report(st, `cannot evaluate ${w} value '${line.slice(w.length).trim()}'`, loc(st, i, dcol), 'warning');
      else values[w.slice('.amdhsa_'.length)] = v;
    }
  }
  if (i >= st.code.length) report(st, `.amdhsa_kernel ${name} is not closed by .end_amdhsa_kernel`, at);
  st.descriptors.set(name, { name, values, loc: at });
  return i + 1;
}

function findKernels(st: State): KernelSymbol[] {
  const starts: { name: string; index: number }[] = [];
  for (let k = 0; k < st.statements.length; k++) {
    const s = st.statements[k]!;
    if (s.kind === 'label' && !s.expansion && (st.functionSymbols.has(s.name!) || st.descriptors.has(s.name!))) {
      starts.push({ name: s.name!, index: k });
    }
  }
  const kernels: KernelSymbol[] = [];
  // Instructions before the first function: a top-level region (LLVM MC tests, snippets).
  const firstStart = starts.length > 0 ? starts[0]!.index : st.statements.length;
  if (st.statements.slice(0, firstStart).some((s) => s.kind === 'instruction')) {
    kernels.push({ name: '(top level)', kind: 'function', start: 0, end: firstStart, loc: { file: st.file, line: 1, col: 1 } });
  }
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const end = k + 1 < starts.length ? starts[k + 1]!.index : st.statements.length;
    const d = st.descriptors.get(s.name);
    kernels.push({
      name: s.name, kind: d ? 'kernel' : 'function', start: s.index, end, descriptor: d, loc: st.statements[s.index]!.loc,
    });
  }
  return kernels;
}

/** Instructions of one kernel, in order. */
export function kernelInstructions(program: Program, kernel: KernelSymbol): Instruction[] {
  const out: Instruction[] = [];
  for (let k = kernel.start; k < kernel.end; k++) {
    const s = program.statements[k]!;
    if (s.insn) out.push(s.insn);
  }
  return out;
}
