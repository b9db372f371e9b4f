/**
 * Program parser. Keeps every source line byte-exact (printing is lossless) and builds the
 * expanded statement stream that analysis works on: macros, `.rept` / `.irp` / `.irpc` blocks
 * and conditional assembly (`.if` and its family) expanded as LLVM's assembler expands them
 * (AsmParser: parseDirectiveIf/Ifdef/Ifb/Ifc/ElseIf/Else/EndIf, parseDirectiveRept/Irp/Irpc,
 * expandMacro, parseDirectiveExitMacro, parseDirectivePurgeMacro, parseDirectiveError/Warning),
 * `.set` / `=` symbols evaluated in file order (they may be redefined mid-file), kernel
 * descriptors read.
 *
 * Expansions are analysed and printed as written: a statement produced by a macro call or a
 * repeat block carries `expansion` (where it was expanded); the lines of an inactive
 * conditional branch produce no statements and print unchanged.
 */
import type {
  AmdhsaDescriptor, Diagnostic, Instruction, KernelSymbol, Loc, MacroDef, MacroParam, Program, SourceLine, Statement,
} from './ast.js';
import { splitLines, stripComments } from './source.js';
import { parseInstructionText, splitTopLevel } from './instruction.js';
import { charLiteralLength, evalExpr, mcFunctions, quotedEnd, type ExprFunctions } from './expr.js';
import { ConductorError } from '../errors.js';

const DATA_DIRECTIVES = new Set(['.long', '.word', '.4byte', '.int', '.byte', '.short', '.2byte', '.hword', '.quad', '.8byte', '.value']);
const UNSUPPORTED_BLOCKS = new Set(['.include', '.incbin']);
const RAW_BLOCKS: Record<string, string> = {
  '.amdgpu_metadata': '.end_amdgpu_metadata',
  '.amd_kernel_code_t': '.end_amd_kernel_code_t',
  '.amdgpu_pal_metadata': '.end_amdgpu_pal_metadata',
};
/** Conditional assembly directives: handled even inside an inactive branch (to track nesting). */
const CONDITIONALS = new Set([
  '.if', '.ifeq', '.ifne', '.ifge', '.ifgt', '.ifle', '.iflt', '.ifb', '.ifnb', '.ifc', '.ifnc', '.ifeqs', '.ifnes',
  '.ifdef', '.ifndef', '.ifnotdef', '.elseif', '.else', '.endif',
]);
/** Repeat blocks, closed by `.endr` (`.rep` is LLVM's other spelling of `.rept`). */
const REPEATS = new Set(['.rept', '.rep', '.irp', '.irpc']);
const MAX_MACRO_DEPTH = 64;
/** The text of a quoted string or symbol name between its quotes (a backslash escapes the next character). */
const QUOTED_BODY = '(?:[^"\\\\]|\\\\.)*';
/** A symbol name: an identifier or a quoted name. */
const SYMBOL = `"${QUOTED_BODY}"|[A-Za-z_.$][\\w.$]*`;
const TWO_STRINGS = new RegExp(`^("${QUOTED_BODY}")\\s*,\\s*("${QUOTED_BODY}")$`);
/** `.irp sym, values` / `.irpc sym, chars`. */
const REPEAT_PARAM = new RegExp(`^(${SYMBOL})\\s*,(.*)$`);
/** `name = expr` (also `"quoted name" = expr`). */
const ASSIGNMENT = new RegExp(`^(${SYMBOL})\\s*=(?!=)\\s*(.*)$`);
/** LLVM's identifier characters in macro bodies (`\name` runs over them: `\a.b` is the parameter `a.b`). */
const MACRO_NAME_CHAR = /[A-Za-z0-9_$.]/;

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
  /** Every symbol defined so far (labels, .set / = even when not a number): what `.ifdef` tests. */
  defined: Set<string>;
  macros: Map<string, MacroDef>;
  diagnostics: Diagnostic[];
  functionSymbols: Set<string>;
  descriptors: Map<string, AmdhsaDescriptor>;
  /** Named labels defined so far: a second definition is an error (llvm-mc: "symbol ... is already defined"). */
  labels: Set<string>;
  /** Symbols whose `.set` value names symbols set later (LLVM writes `.set k.num_vgpr, max(45, amdgpu.max_num_vgpr)` before the latter): evaluated once the file is read. */
  deferred: Map<string, string>;
  /** Descriptor values that did not evaluate where they stand (forward references): evaluated once the file is read. */
  pendingValues: { values: Record<string, number>; key: string; directive: string; text: string; loc: Loc }[];
  declaredTarget?: Program['declaredTarget'];
  rawWords: number;
  inCode: boolean;
  /** Macro instantiations so far (`\@`). */
  macroCounter: number;
  /** Instantiations of each macro so far (`\+` in its body). */
  macroCalls: Map<string, number>;
  /** Definitions of each numeric local label so far (`1:`); the k-th is named localLabelName(1, k). */
  localLabels: Map<number, number>;
  /** Forward references (`1f`) to check once the whole file is read. */
  forwardRefs: { name: string; text: string; loc: Loc }[];
  definedLocal: Set<string>;
  throwOnError: boolean;
}

/** Where the lines being processed come from: undefined for the file itself, else an expansion. */
interface Expanding {
  /** The macro name, or `.rept` / `.irp` / `.irpc`. */
  name: string;
  /** Line and column of the outermost invocation (where its statements are reported). */
  callLine: number;
  callCol: number;
  depth: number;
}

/** The state of conditional assembly (LLVM's AsmCond): which branch, whether one was taken, whether lines are skipped. */
interface Cond {
  kind: 'none' | 'if' | 'elseif' | 'else';
  met: boolean;
  ignore: boolean;
  at?: Loc;
}

export function parseProgram(text: string, file: string, options: ParseOptions = {}): Program {
  const lines = splitLines(text);
  const code = stripComments(lines);
  const st: State = {
    file, lines, code, statements: [], instructions: [], symbols: new Map(), defined: new Set(), macros: new Map(),
    diagnostics: [], functionSymbols: new Set(), descriptors: new Map(), labels: new Set(), deferred: new Map(), pendingValues: [], rawWords: 0, inCode: true, macroCounter: 0,
    macroCalls: new Map(), localLabels: new Map(), forwardRefs: [], definedLocal: new Set(),
    throwOnError: options.throwOnError ?? false,
  };
  const lookup = (name: string) => st.symbols.get(name);
  processLines(st, code, undefined, undefined, lookup);
  for (const r of st.forwardRefs) {
    if (!st.definedLocal.has(r.name)) report(st, `directional label '${r.text}' names no numeric label after it`, r.loc);
  }
  resolveForward(st);
  undefinedBranchTargets(st);

  const kernels = findKernels(st);
  return {
    file, lines, statements: st.statements, instructions: st.instructions, kernels,
    declaredTarget: st.declaredTarget, symbols: st.symbols, macros: st.macros, rawWords: st.rawWords,
    diagnostics: st.diagnostics,
  };
}

/**
 * Process a sequence of lines (comments already removed): the file itself (`from` undefined,
 * `lineIndexes` undefined: line k is source line k) or an expansion's body (after
 * substitution), whose line k came from source line lineIndexes[k]. Conditional assembly is
 * tracked per sequence, as LLVM requires it balanced within each macro instantiation.
 * Returns true when an `.exitm` ended the expansion early.
 */
function processLines(st: State, texts: readonly string[], lineIndexes: readonly number[] | undefined, from: Expanding | undefined,
  lookup: (n: string) => number | undefined): boolean {
  const cond: { cur: Cond; stack: Cond[] } = { cur: { kind: 'none', met: false, ignore: false }, stack: [] };
  let i = 0;
  while (i < texts.length) {
    const c = texts[i]!;
    let t = c.trim();
    if (t === '') { i++; continue; }
    const li = lineIndexes ? lineIndexes[i]! : i;
    let col = c.length - c.trimStart().length + 1;
    const exp: Expansion = from && { macro: from.name, callLine: from.callLine, callCol: from.callCol, macroLoc: loc(st, li, col), depth: from.depth };
    let first = firstWord(t).toLowerCase();
    if (cond.cur.ignore && !CONDITIONALS.has(first)) { i++; continue; }
    if (!cond.cur.ignore && isLabelStart(t)) {
      // Labels before a statement on the same line: defined first, then the statement.
      const rest = pushLabels(st, t, exp ? exp.callLine - 1 : li, col, exp);
      if (rest.t === '') { i++; continue; }
      col = rest.col;
      t = rest.t;
      first = firstWord(t).toLowerCase();
    }
    const at = exp ? { file: st.file, line: exp.callLine, col: exp.callCol } : loc(st, li, col);
    if (CONDITIONALS.has(first)) {
      conditional(st, cond, first, t.slice(first.length).trim(), at, exp ? undefined : { text: t, lineIndex: li }, lookup);
      i++;
      continue;
    }
    // Block directives: raw blocks, macro definitions and kernel descriptors (in the file itself), repeat blocks.
    const rawEnd = RAW_BLOCKS[first];
    if (rawEnd && !from) {
      pushStatement(st, { kind: 'directive', text: t, name: first, args: '', loc: at, lineIndex: li });
      let j = i + 1;
      while (j < texts.length && firstWord(texts[j]!.trim()).toLowerCase() !== rawEnd) j++;
      if (j >= texts.length) report(st, `${first} block is not closed by ${rawEnd}`, at);
      else pushStatement(st, { kind: 'directive', text: rawEnd, name: rawEnd, args: '', loc: loc(st, j, 1), lineIndex: j });
      i = j + 1;
      continue;
    }
    if (first === '.macro') {
      if (from) { report(st, 'a .macro definition inside a macro expansion is not supported', at); i++; continue; }
      i = readMacro(st, i, col, t);
      continue;
    }
    if (first === '.amdhsa_kernel' && !from) {
      i = readDescriptor(st, i, col, t, lookup);
      continue;
    }
    if (REPEATS.has(first)) {
      i = repeatBlock(st, texts, lineIndexes, i, t, first, at, exp, from, lookup);
      continue;
    }
    if (first === '.endr') {
      report(st, "unmatched '.endr' directive: no .rept, .irp or .irpc is open", at);
      i++;
      continue;
    }
    if (first === '.exitm') {
      // Leaves the innermost expansion (a repeat block's remaining iterations too) and its open conditionals.
      if (from) return true;
      report(st, '.exitm outside a macro or repeat block', at);
      i++;
      continue;
    }
    statement(st, t, exp ? exp.callLine - 1 : li, exp ? exp.callCol : col, lookup, exp);
    i++;
  }
  if (cond.stack.length > 0) {
    const open = cond.stack.length === 1 ? cond.cur : cond.stack[1]!;
    report(st, `unmatched .if: ${cond.stack.length} conditional block${cond.stack.length > 1 ? 's are' : ' is'} not closed by .endif${from ? ` in this expansion of '${from.name}'` : ''}`,
      open.at ?? (from ? { file: st.file, line: from.callLine, col: from.callCol } : loc(st, texts.length - 1, 1)));
  }
  return false;
}

/**
 * One conditional directive (LLVM's AsmParser::parseDirectiveIf and family). `args` is the text
 * after the directive name. In the file itself, the directives that delimit active code become
 * directive statements (`stmt`): code may not move across them.
 */
function conditional(st: State, cond: { cur: Cond; stack: Cond[] }, name: string, args: string, at: Loc,
  stmt: { text: string; lineIndex: number } | undefined, lookup: (n: string) => number | undefined): void {
  const parentIgnore = (stack: Cond[]) => (stack.length > 0 ? stack[stack.length - 1]!.ignore : false);
  const push = () => {
    if (stmt) pushStatement(st, { kind: 'directive', text: stmt.text, name, args, loc: at, lineIndex: stmt.lineIndex });
  };
  if (name === '.endif') {
    if (cond.cur.kind === 'none' || cond.stack.length === 0) { report(st, '.endif without a matching .if', at); return; }
    if (!parentIgnore(cond.stack)) push();
    cond.cur = cond.stack.pop()!;
    return;
  }
  if (name === '.else' || name === '.elseif') {
    if (cond.cur.kind !== 'if' && cond.cur.kind !== 'elseif') { report(st, `${name} without a matching .if (or after .else)`, at); return; }
    const outer = parentIgnore(cond.stack);
    if (!outer) push();
    if (name === '.else') {
      cond.cur.kind = 'else';
      cond.cur.ignore = outer || cond.cur.met;
    } else {
      cond.cur.kind = 'elseif';
      if (outer || cond.cur.met) cond.cur.ignore = true;
      else {
        cond.cur.met = conditionValue(st, name, args, at, lookup);
        cond.cur.ignore = !cond.cur.met;
      }
    }
    return;
  }
  // .if and the other openers
  const ignore = cond.cur.ignore;
  cond.stack.push(cond.cur);
  cond.cur = { kind: 'if', met: false, ignore, at };
  if (ignore) return;
  push();
  cond.cur.met = conditionValue(st, name, args, at, lookup);
  cond.cur.ignore = !cond.cur.met;
}

/** Whether the condition of an opener (or .elseif) holds. An error (reported) counts as false. */
function conditionValue(st: State, name: string, args: string, at: Loc, lookup: (n: string) => number | undefined): boolean {
  switch (name) {
    case '.ifdef': case '.ifndef': case '.ifnotdef': {
      const sym = symbolName(args);
      if (sym === '' || /[\s,]/.test(args.startsWith('"') ? '' : args)) { report(st, `expected a symbol name after '${name}'`, at); return false; }
      return st.defined.has(sym) === (name === '.ifdef');
    }
    case '.ifb': case '.ifnb':
      return (args === '') === (name === '.ifb');
    case '.ifc': case '.ifnc': {
      const comma = topLevelComma(args);
      if (comma < 0) { report(st, `expected a comma in '${name}'`, at); return false; }
      return (args.slice(0, comma).trim() === args.slice(comma + 1).trim()) === (name === '.ifc');
    }
    case '.ifeqs': case '.ifnes': {
      const m = TWO_STRINGS.exec(args);
      if (!m) { report(st, `expected two quoted strings in '${name}'`, at); return false; }
      return (m[1] === m[2]) === (name === '.ifeqs');
    }
    default: {
      const v = evalExpr(args, lookup);
      if (v === undefined) {
        report(st, `cannot evaluate the condition of ${name} '${args}': it must be a number or use symbols set before it`, at);
        return false;
      }
      switch (name) {
        case '.ifeq': return v === 0;
        case '.ifge': return v >= 0;
        case '.ifgt': return v > 0;
        case '.ifle': return v <= 0;
        case '.iflt': return v < 0;
        default: return v !== 0; // .if, .ifne, .elseif
      }
    }
  }
}

/**
 * A `.rept N`, `.irp sym, values` or `.irpc sym, chars` block starting at texts[i]: its body
 * runs to the matching `.endr` (nested repeat blocks counted). The body is substituted and
 * processed once per iteration, as LLVM does: `\sym` is the value, `\+` the iteration, `\()`
 * nothing, `\@` the macro instantiation count (.irp and .irpc only). Returns the index after `.endr`.
 */
function repeatBlock(st: State, texts: readonly string[], lineIndexes: readonly number[] | undefined, i: number, t: string,
  name: string, at: Loc, exp: Expansion, from: Expanding | undefined, lookup: (n: string) => number | undefined): number {
  // The header first: when it is bad, LLVM reads no body (its lines are statements, `.endr` is unmatched).
  const args = t.slice(name.length).trim();
  let param = '';
  let values: string[];
  if (name === '.rept' || name === '.rep') {
    const n = evalExpr(args, lookup);
    if (n === undefined || !Number.isInteger(n)) { report(st, `cannot evaluate the count of ${name} '${args}': it must be a number or use symbols set before it`, at); return i + 1; }
    if (n < 0) { report(st, `${name} count is negative (${n})`, at); return i + 1; }
    values = new Array<string>(n).fill('');
  } else {
    const m = REPEAT_PARAM.exec(args);
    if (!m) { report(st, `expected a symbol name and a comma after ${name}`, at); return i + 1; }
    param = symbolName(m[1]!);
    if (name === '.irp') {
      values = splitMacroArgs(m[2]!).map(unquote);
      while (values.length > 0 && values[values.length - 1] === '') values.pop();
    } else {
      const chars = m[2]!.trim();
      if (!/^[\w.$]*$/.test(chars)) { report(st, `.irpc takes one word of characters, not '${chars}'`, at); return i + 1; }
      values = [...chars];
    }
  }
  let depth = 0;
  let j = i + 1;
  for (; j < texts.length; j++) {
    const w = firstWord(texts[j]!.trim()).toLowerCase();
    if (REPEATS.has(w)) depth++;
    else if (w === '.endr') {
      if (depth === 0) break;
      depth--;
    }
  }
  const li = lineIndexes ? lineIndexes[i]! : i;
  const header: Statement = { kind: 'macroCall', text: t, name, loc: at, lineIndex: exp ? exp.callLine - 1 : li, expansion: exp };
  if (!from && j < texts.length) header.blockEnd = j;
  pushStatement(st, header);
  if (j >= texts.length) {
    report(st, `${name} is not closed by .endr`, at);
    return texts.length;
  }
  const depthNow = (from?.depth ?? 0) + 1;
  if (depthNow > MAX_MACRO_DEPTH) { report(st, `${name} blocks nest too deeply`, at); return j + 1; }
  const body = texts.slice(i + 1, j);
  const bodyLines = lineIndexes ? lineIndexes.slice(i + 1, j) : Array.from({ length: j - i - 1 }, (_, k) => i + 1 + k);
  const inner: Expanding = from ? { ...from, name, depth: depthNow } : { name, callLine: at.line, callCol: at.col, depth: depthNow };
  const isRept = param === '';
  for (let k = 0; k < values.length; k++) {
    // `\@` is the macro instantiation count in .irp and .irpc bodies, and is not replaced in .rept bodies.
    const subst = substituter(isRept ? new Map() : new Map([[param, values[k]!]]), isRept ? undefined : String(st.macroCounter), String(k));
    // All iterations are one instantiation for LLVM: an `.exitm` ends the remaining ones.
    if (processLines(st, body.map(subst), bodyLines, inner, lookup)) break;
  }
  return j + 1;
}

/**
 * LLVM's expandMacro substitution: `\name` (a run of identifier characters) becomes the value
 * of that parameter and stays as written when it names none, `\()` disappears, `\@` is the
 * macro instantiation count (where enabled) and `\+` the instantiation count of this macro or
 * the iteration of a repeat block.
 */
function substituter(values: ReadonlyMap<string, string>, atValue: string | undefined, plusValue: string): (s: string) => string {
  return (s: string) => {
    if (s.indexOf('\\') < 0) return s;
    let out = '';
    let k = 0;
    while (k < s.length) {
      const b = s.indexOf('\\', k);
      if (b < 0 || b + 1 >= s.length) { out += s.slice(k); break; }
      out += s.slice(k, b);
      const n = s[b + 1]!;
      if (n === '@' && atValue !== undefined) { out += atValue; k = b + 2; continue; }
      if (n === '+') { out += plusValue; k = b + 2; continue; }
      let e = b + 1;
      while (e < s.length && MACRO_NAME_CHAR.test(s[e]!)) e++;
      const name = s.slice(b + 1, e);
      const v = name === '' ? undefined : values.get(name);
      if (v !== undefined) { out += v; k = e; continue; }
      if (name === '' && n === '(' && s[b + 2] === ')') { k = b + 3; continue; }
      out += '\\' + name;
      k = e;
    }
    return out;
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

/** `name:`, `"quoted name":` or a numeric local label `1:` at the start of a statement. */
const LABEL = new RegExp(`^(?:([A-Za-z_.$][\\w.$@]*)|"(${QUOTED_BODY})"|(\\d+))\\s*:(?!:)`);

function isLabelStart(t: string): boolean {
  return LABEL.test(t);
}

/** A symbol name as written in a directive or label: a quoted name without its quotes. */
function symbolName(text: string): string {
  const t = text.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

/** Internal name of the k-th definition of numeric label n (`1:`); no user symbol can be spelled so. */
function localLabelName(n: number, k: number): string {
  return `${n}#${k}`;
}

/**
 * Push the labels at the front of statement t (several may share a line) and return the rest
 * of the statement and its column. Statements of an expansion are located at the invocation.
 */
function pushLabels(st: State, t: string, lineIndex: number, col: number, exp: Expansion): { t: string; col: number } {
  for (;;) {
    const m = LABEL.exec(t);
    if (!m) break;
    const at: Loc = exp ? { file: st.file, line: exp.callLine, col: exp.callCol } : loc(st, lineIndex, col);
    let name: string;
    let text: string;
    if (m[3] !== undefined) {
      const n = evalExpr(m[3], () => undefined) ?? 0;
      const k = (st.localLabels.get(n) ?? 0) + 1;
      st.localLabels.set(n, k);
      name = localLabelName(n, k);
      st.definedLocal.add(name);
      text = m[3];
    } else {
      name = m[1] ?? m[2]!;
      text = m[1] ?? `"${m[2]}"`;
      if (st.labels.has(name)) report(st, `symbol '${name}' is already defined`, at);
      st.labels.add(name);
      st.defined.add(name);
    }
    pushStatement(st, { kind: 'label', text, name, loc: at, lineIndex, expansion: exp });
    const rest = t.slice(m[0].length);
    const trimmed = rest.trimStart();
    col += m[0].length + (rest.length - trimmed.length);
    t = trimmed;
    if (t === '') break;
  }
  return { t, col };
}

/**
 * One statement without leading labels (comments removed, trimmed): a directive, an
 * assignment, a macro call or an instruction. `lineIndex` is the source line it belongs to;
 * `col` the column of t[0].
 */
function statement(st: State, t: string, lineIndex: number, col: number, lookup: (n: string) => number | undefined, exp: Expansion): void {
  const mkLoc = (c: number): Loc => (exp ? { file: st.file, line: exp.callLine, col: exp.callCol } : loc(st, lineIndex, c));
  const first = firstWord(t);
  const lower = first.toLowerCase();
  if (first.startsWith('.')) {
    directive(st, t, lower, lineIndex, lookup, exp, mkLoc(col));
    return;
  }
  // Symbol assignment: name = expr ("quoted name" = expr)
  const assign = ASSIGNMENT.exec(t);
  if (assign) {
    defineSymbol(st, symbolName(assign[1]!), assign[2]!, lookup, mkLoc(col));
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
      const msg = exp ? `${e.message} (${expansionName(exp)}, line ${exp.macroLoc.line})` : e.message;
      report(st, msg, where);
      pushStatement(st, { kind: 'raw', text: t, loc: mkLoc(col), lineIndex, expansion: exp });
      return;
    }
    throw e;
  }
  resolveDirectionalLabels(st, insn);
  pushStatement(st, { kind: 'instruction', text: t, loc: insn.loc, lineIndex, insn, expansion: exp });
  st.instructions.push(insn);
}

function expansionName(exp: NonNullable<Expansion>): string {
  return exp.macro.startsWith('.') ? `in an expansion of ${exp.macro}` : `in expansion of macro '${exp.macro}'`;
}

/** `1b` / `1f` operands name the numeric label `1:` before or after this point. */
function resolveDirectionalLabels(st: State, insn: Instruction): void {
  for (const o of insn.operands) {
    if (o.kind !== 'expr') continue;
    for (let k = 0; k < o.symbols.length; k++) {
      const m = /^(\d+)([bf])$/.exec(o.symbols[k]!);
      if (!m) continue;
      const n = Number(m[1]);
      const defs = st.localLabels.get(n) ?? 0;
      if (m[2] === 'b') {
        if (defs === 0) report(st, `directional label '${m[0]}' names no numeric label ${n}: before it`, insn.loc);
        else o.symbols[k] = localLabelName(n, defs);
      } else {
        o.symbols[k] = localLabelName(n, defs + 1);
        st.forwardRefs.push({ name: o.symbols[k]!, text: m[0], loc: insn.loc });
      }
    }
  }
}

function directive(st: State, t: string, name: string, lineIndex: number,
  lookup: (n: string) => number | undefined, exp: Expansion, at: Loc): void {
  const args = t.slice(name.length).trim();
  pushStatement(st, { kind: 'directive', text: t, name, args, loc: at, lineIndex, expansion: exp });
  switch (name) {
    case '.set': case '.equ': case '.equiv': {
      const parts = splitTopLevel(args);
      if (parts.length < 2) { report(st, `${name} needs a name and a value`, at); return; }
      defineSymbol(st, symbolName(parts[0]!), parts.slice(1).join(','), lookup, at);
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
      if (parts.length >= 2 && /function/.test(parts[1]!)) st.functionSymbols.add(symbolName(parts[0]!));
      return;
    }
    case '.amdgpu_hsa_kernel':
      st.functionSymbols.add(symbolName(args));
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
    case '.purgem': {
      const m = symbolName(args);
      if (!st.macros.delete(m)) report(st, `.purgem: macro '${m}' is not defined`, at);
      return;
    }
    // Assembly-time assertions (written in conditional blocks): llvm-mc stops on an active .error / .err.
    case '.error': case '.err':
      report(st, name === '.err' ? '.err encountered' : symbolName(args) || '.error directive invoked in source file', at);
      return;
    case '.warning':
      report(st, symbolName(args) || '.warning directive invoked in source file', at, 'warning');
      return;
    case '.altmacro':
      report(st, '.altmacro is not supported: macro arguments would not be read as LLVM reads them', at);
      return;
    default:
      if (DATA_DIRECTIVES.has(name)) {
        if (st.inCode) st.rawWords += splitTopLevel(args).length;
        return;
      }
      if (UNSUPPORTED_BLOCKS.has(name)) {
        report(st, `directive ${name} is not supported: the file it names would not be analysed`, at);
      }
  }
}

function defineSymbol(st: State, name: string, exprText: string, lookup: (n: string) => number | undefined, at: Loc): void {
  st.defined.add(name);
  const v = evalExpr(exprText.trim(), lookup, exprFunctions(st));
  if (v === undefined) {
    // A label difference or a forward reference: not a number here; forget older values, and
    // try again once the whole file is read (descriptors name such symbols).
    st.symbols.delete(name);
    st.deferred.set(name, exprText.trim());
    return;
  }
  void at;
  st.deferred.delete(name);
  st.symbols.set(name, v);
}

/**
 * A branch to a label the file does not define: llvm-mc refuses it ("undefined label"), and the
 * control flow would be unknown. Directional labels are checked with the forward references.
 */
function undefinedBranchTargets(st: State): void {
  for (const insn of st.instructions) {
    const m = insn.mnemonic;
    if (m !== 's_branch' && !m.startsWith('s_cbranch_')) continue;
    const o = insn.operands[0];
    if (!o || o.kind !== 'expr') continue;
    for (const sym of o.symbols) {
      if (/^\d+(#\d+|[bf])$/.test(sym) || st.labels.has(sym) || st.symbols.has(sym)) continue;
      report(st, `undefined label '${sym}'`, insn.loc);
    }
  }
}

/**
 * Which register file `totalnumvgprs` sums over, by the `.amdgcn_target` processor: one unified
 * VGPR/AGPR file on gfx90a and later (LLVM GCNSubtarget::hasGFX90AInsts, AMDGPUMCExpr
 * totalnumvgprs), separate files on gfx908; unknown otherwise.
 */
const UNIFIED_FILE: Readonly<Record<string, boolean>> = { gfx908: false, gfx90a: true, gfx940: true, gfx941: true, gfx942: true, gfx950: true };

function exprFunctions(st: State): ExprFunctions {
  return mcFunctions(st.declaredTarget ? UNIFIED_FILE[st.declaredTarget.name] : undefined);
}

/**
 * Once the file is read: symbols whose value named later symbols, then the descriptor values
 * that named them, with the symbols' final values (what the assembler sees at the end). A value
 * that still does not evaluate is left out of the descriptor (unknown, never 0), with a warning.
 */
function resolveForward(st: State): void {
  if (st.deferred.size === 0 && st.pendingValues.length === 0) return;
  const fns = exprFunctions(st);
  const visiting = new Set<string>();
  const lookup = (name: string): number | undefined => {
    const v = st.symbols.get(name);
    if (v !== undefined) return v;
    const text = st.deferred.get(name);
    if (text === undefined || visiting.has(name)) return undefined;
    visiting.add(name);
    const r = evalExpr(text, lookup, fns);
    visiting.delete(name);
    if (r !== undefined) { st.symbols.set(name, r); st.deferred.delete(name); }
    return r;
  };
  for (const p of st.pendingValues) {
    const v = evalExpr(p.text, lookup, fns);
    if (v === undefined) report(st, `cannot evaluate ${p.directive} value '${p.text}': the descriptor leaves it unknown`, p.loc, 'warning');
    else p.values[p.key] = v;
  }
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

/**
 * Macro (and .irp) arguments as LLVM's parseMacroArgument splits them: at commas, and at
 * blanks unless an operator stands before or after the blank (`a + 1` is one argument, `a b`
 * two); parentheses, brackets, quoted strings and character literals are kept whole. An empty
 * argument between commas stays '' (the parameter's default applies).
 */
function splitMacroArgs(text: string): string[] {
  const t = text.trim();
  if (t === '') return [];
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  let k = 0;
  while (k < t.length) {
    const ch = t[k]!;
    if (ch === '"') {
      const e = quotedEnd(t, k);
      const end = e < 0 ? t.length : e + 1;
      cur += t.slice(k, end);
      k = end;
      continue;
    }
    if (ch === "'") {
      const n = charLiteralLength(t, k);
      if (n > 0) { cur += t.slice(k, k + n); k += n; continue; }
    }
    if (ch === '(' || ch === '[') depth++;
    else if ((ch === ')' || ch === ']') && depth > 0) depth--;
    if (depth === 0 && ch === ',') { out.push(cur.trim()); cur = ''; k++; continue; }
    if (depth === 0 && (ch === ' ' || ch === '\t')) {
      let e = k;
      while (e < t.length && (t[e] === ' ' || t[e] === '\t')) e++;
      const next = t[e];
      const prev = cur.trimEnd();
      if (next === undefined || next === ',' || isOperatorAt(t, e) || (prev !== '' && OPERATOR_CHARS.has(prev[prev.length - 1]!))) { k = e; continue; }
      if (cur !== '') out.push(cur);
      cur = '';
      k = e;
      continue;
    }
    cur += ch;
    k++;
  }
  out.push(cur.trim());
  return out;
}

/** Characters that begin or end an operator token (LLVM's isOperator: + - ~ / * . = == | || ^ & && ! != < <= << <> > >= >>). */
const OPERATOR_CHARS = new Set(['+', '-', '~', '/', '*', '=', '|', '^', '&', '!', '<', '>']);

function isOperatorAt(t: string, k: number): boolean {
  const c = t[k];
  if (c === undefined) return false;
  if (OPERATOR_CHARS.has(c)) return true;
  // '.' alone is the Dot token; '.name' is an identifier.
  return c === '.' && !/[\w.$]/.test(t[k + 1] ?? '');
}

/** Index of the first comma outside parentheses, brackets and quotes, or -1. */
function topLevelComma(t: string): number {
  let depth = 0;
  for (let k = 0; k < t.length; k++) {
    const ch = t[k];
    if (ch === '"') { const e = quotedEnd(t, k); if (e > 0) { k = e; continue; } }
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) return k;
  }
  return -1;
}

/** A quoted macro argument stands for its contents (AsmParser::expandMacro). */
function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
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
    if (kw && macro.params.some((p) => p.name === kw[1])) { values.set(kw[1]!, unquote(kw[2]!)); continue; }
    const p = macro.params[positional];
    if (!p) { report(st, `too many arguments for macro '${macro.name}' (takes ${macro.params.length})`, at); return; }
    if (p.vararg) { values.set(p.name, args.slice(k).join(', ')); break; }
    if (a !== '') values.set(p.name, unquote(a));
    positional++;
  }
  for (const p of macro.params) {
    if (!values.has(p.name)) {
      if (p.required) { report(st, `missing value for required parameter '${p.name}' of macro '${macro.name}'`, at); return; }
      values.set(p.name, p.defaultValue ?? '');
    }
  }
  const calls = st.macroCalls.get(macro.name) ?? 0;
  st.macroCalls.set(macro.name, calls + 1);
  const subst = substituter(values, String(st.macroCounter++), String(calls));
  const from: Expanding = { name: macro.name, callLine: at.line, callCol: at.col, depth };
  processLines(st, macro.body.map((b) => subst(b.text)), macro.body.map((b) => b.lineIndex), from, lookup);
}

function readDescriptor(st: State, start: number, col: number, t: string, lookup: (n: string) => number | undefined): number {
  const name = symbolName(t.slice('.amdhsa_kernel'.length));
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
      const text = line.slice(w.length).trim();
      const v = evalExpr(text, lookup, exprFunctions(st));
      if (v === undefined) st.pendingValues.push({ values, key: w.slice('.amdhsa_'.length), directive: w, text, loc: loc(st, i, dcol) });
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
