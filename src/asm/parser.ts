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
  AmdhsaDescriptor, Diagnostic, Instruction, KernelSymbol, Loc, MacroDef, MacroParam, Program, Statement,
} from './ast.js';
import { scanLines } from './source.js';
import { internWord, scanInstruction, splitTopLevel, trimWords, wordIdOf, wordLowerOf, wordString } from './instruction.js';
import { charLiteralLength, evalExpr, mcFunctions, quotedEnd, type ExprFunctions, type RangeLookup } from './expr.js';
import { isSpace, skipSpace, trimEndAt } from './intern.js';
import { ParsedProgram, REPEATS, type LineReuse } from './program.js';
import { FILE_NAMES, InsnStore, OP_EXPR, OP_IMM, OP_REG, OPCODES } from './store.js';
import { ConductorError } from '../errors.js';
import { flattenIncludes, mayInclude, type IncludeReader, type LineMap } from './include.js';
import { readLaunchBounds, type LaunchBounds } from './metadata.js';

/** Data directives that put words into the code (llvm-mc 22 does not take .word or .hword for amdgcn: unknown directives). */
const DATA_DIRECTIVES = new Set(['.long', '.4byte', '.int', '.byte', '.short', '.2byte', '.quad', '.8byte', '.value']);
const UNSUPPORTED_BLOCKS = new Set(['.incbin']);
/**
 * Every directive llvm-mc 22 knows for amdgcn-amd-amdhsa (generic, ELF and AMDGPU ones; a line
 * starting with any other `.name` that is neither a macro call nor an assignment is an "unknown
 * directive" there). Measured with llvm-mc 22 -triple=amdgcn-amd-amdhsa, one probe file per name
 * (test/oracle/directives.test.ts checks the list both ways); names compared in lower case, as
 * LLVM's AsmParser compares its directives. The .dc/.dcb/.ds size families are matched by pattern.
 */
export const KNOWN_DIRECTIVES: ReadonlySet<string> = new Set([
  '.abort', '.addrsig', '.addrsig_sym', '.align', '.align32', '.altmacro', '.amd_amdgpu_pal_metadata', '.amdgcn_target',
  '.amdgpu_lds', '.amdgpu_metadata', '.amdgpu_pal_metadata', '.amdhsa_code_object_version', '.ascii', '.asciz', '.balign',
  '.balignl', '.balignw', '.base64', '.bss', '.byte', '.cfi_adjust_cfa_offset', '.cfi_def_cfa', '.cfi_def_cfa_offset',
  '.cfi_def_cfa_register', '.cfi_endproc', '.cfi_escape', '.cfi_label', '.cfi_llvm_def_aspace_cfa', '.cfi_lsda',
  '.cfi_offset', '.cfi_personality', '.cfi_register', '.cfi_rel_offset', '.cfi_remember_state', '.cfi_restore',
  '.cfi_restore_state', '.cfi_return_column', '.cfi_same_value', '.cfi_sections', '.cfi_signal_frame', '.cfi_startproc',
  '.cfi_undefined', '.cfi_val_offset', '.cfi_window_save', '.cg_profile', '.code16', '.code16gcc', '.cold', '.comm',
  '.common', '.cv_def_range', '.cv_file', '.cv_filechecksumoffset', '.cv_filechecksums', '.cv_fpo_data', '.cv_func_id',
  '.cv_inline_linetable', '.cv_inline_site_id', '.cv_linetable', '.cv_loc', '.cv_string', '.cv_stringtable', '.data',
  '.dc', '.dcb', '.double', '.ds', '.else', '.elseif', '.end', '.endif', '.endm', '.endmacro', '.endr', '.equ', '.equiv',
  '.err', '.error', '.exitm', '.extern', '.file', '.fill', '.float', '.global', '.globl', '.hidden', '.ident', '.if',
  '.ifb', '.ifc', '.ifdef', '.ifeq', '.ifeqs', '.ifge', '.ifgt', '.ifle', '.iflt', '.ifnb', '.ifnc', '.ifndef', '.ifne',
  '.ifnes', '.ifnotdef', '.incbin', '.include', '.int', '.internal', '.irp', '.irpc', '.lazy_reference', '.lcomm',
  '.line', '.loc', '.loc_label', '.local', '.long', '.lto_discard', '.lto_set_conditional', '.macro', '.macros_off',
  '.macros_on', '.memtag', '.no_dead_strip', '.noaltmacro', '.octa', '.org', '.p2align', '.p2alignl', '.p2alignw',
  '.popsection', '.previous', '.print', '.private_extern', '.protected', '.pseudoprobe', '.purgem', '.pushsection',
  '.quad', '.reference', '.reloc', '.rep', '.rept', '.rodata', '.section', '.set', '.short', '.single', '.size', '.skip',
  '.sleb128', '.space', '.stabs', '.string', '.subsection', '.symbol_resolver', '.symver', '.tbss', '.tdata', '.text',
  '.type', '.uleb128', '.value', '.version', '.warning', '.weak', '.weak_def_can_be_hidden', '.weak_definition',
  '.weak_reference', '.weakref', '.zero',
  // handled before a statement is read (blocks) or kept for older code objects
  '.amdhsa_kernel', '.end_amdhsa_kernel', '.amdgpu_hsa_kernel', '.amd_kernel_code_t', '.end_amd_kernel_code_t',
  '.end_amdgpu_metadata', '.end_amdgpu_pal_metadata',
]);
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
/** A repeat block's directive (a macro's name may start with a dot too). */
export function isRepeatName(name: string): boolean { return REPEATS.has(name); }
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
  /** How `.include`d files are read (asm/include.ts): the text's own path and identity, and the reader. Without it an `.include` is an error. */
  include?: { path: string; id: string; read: IncludeReader };
  /**
   * The processor the file is assembled for (`gfx906`, as llvm-mc's -mcpu): llvm-mc predefines
   * `.amdgcn.gfx_generation_number/_minor/_stepping` from it. Without it the file's
   * `.amdgcn_target` defines them from where it stands.
   */
  processor?: string;
  /** Scan every instruction from its text (default false: an instruction written as an earlier one copies its rows; see State.written). */
  scanEach?: boolean;
  /**
   * Rows of an earlier parse to copy instead of scanning (LineReuse, which says when that is
   * sound): for a text made from the earlier one by lines of s_waitcnt and s_nop statements
   * inserted, replaced or removed, or by instruction lines moved within their regions.
   */
  reuse?: LineReuse;
}

interface State {
  file: string;
  /** The file's lines. */
  lines: Lines;
  store: InsnStore;
  /** Statements so far: objects, or an instruction's index in the store. */
  statements: (Statement | number)[];
  /** Expansions of the instruction statements that come from one, by instruction index. */
  expansions: Map<number, NonNullable<Expansion>>;
  /** Symbol values read without copying their names (the store's expressions). */
  rangeLookup: RangeLookup;
  /** store.aux entries already looked at for directional labels. */
  auxSeen: number;
  /** The macro a word (wordIdOf) calls, or null: cleared when a macro is defined or purged. */
  macroOfWord: Map<number, MacroDef | null>;
  symbols: Map<string, number>;
  /** Every symbol defined so far (labels, .set / = even when not a number): what `.ifdef` tests. */
  defined: Set<string>;
  macros: Map<string, MacroDef>;
  diagnostics: Diagnostic[];
  functionSymbols: Set<string>;
  descriptors: Map<string, AmdhsaDescriptor>;
  /** Launch bounds of the code-object metadata, by kernel name (metadata.ts). */
  launchBounds: Map<string, LaunchBounds>;
  /** Named labels defined so far: a second definition is an error (llvm-mc: "symbol ... is already defined"). */
  labels: Set<string>;
  /**
   * A block (`.rept`, `.macro`, `.amdgpu_metadata`, `.amdhsa_kernel`, ...) not closed before the
   * end of the file: the lines after its start were not read as code (notClosed).
   */
  unclosed?: true;
  /**
   * Symbols whose current `.set` value names symbols set later (LLVM writes `.set k.num_vgpr,
   * max(45, amdgpu.max_num_vgpr)` before the latter; MIOpen sets `gid_hw_size` from `w_per_wave`
   * set further down): evaluated where they are used, as llvm-mc evaluates a variable (see SymVersion).
   */
  deferred: Map<string, SymVersion>;
  /** The definition a symbol that is not set yet will get next, for the expressions that named it. */
  future: Map<string, SymVersion>;
  /** Assignments naming their own symbol before it is set (reported at the end, as llvm-mc does). */
  cycles: { name: string; loc: Loc }[];
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
  /** Where each line comes from when the text has files spliced in by `.include` (asm/include.ts). */
  map: LineMap | undefined;
  /** `.include` lines left as written (flattened line index -> why). */
  includeFailures: Map<number, string> | undefined;
  /** `.altmacro` mode (AsmParser's AltMacroMode): `%expr` and `<string>` arguments, parameters named without `\\`. */
  altMacro: boolean;
  /** The symbols llvm-mc predefines from the target (a `.set` of one is a redefinition). */
  predefined: Set<string> | undefined;
  /** Data directive expressions with a subtraction, checked once every label is known (checkDataSymbols). */
  dataChecks: { args: string; loc: Loc; col: number }[];
  /**
   * Instruction texts scanned so far, and the store index of the instruction scanned from each
   * (undefined with ParseOptions.scanEach). A text scans to the same rows wherever it stands
   * when the scan read no symbol, or read them while they had the values they have now: an
   * instruction written as an earlier one copies that one's rows (offsets moved) instead of
   * being scanned again. Kernels repeat their instructions a lot (the largest corpus kernel:
   * 41,567 instructions, 6,481 distinct texts). Left out: scans that failed or kept details in
   * `aux` (expressions, functions, s_waitcnt counters, modifier lists).
   */
  written: Map<string, { i: number; epoch: number }> | undefined;
  /** Symbol reads so far (the scanner's lookups). */
  reads: number;
  /** Bumped when a symbol is set: a scan that read symbols is valid in its epoch only. */
  epoch: number;
  /** Whether the text names `.amdgcn.next_free_vgpr` / `_sgpr` (countGprs keeps them then). */
  countsGprs: boolean;
  /** ParseOptions.reuse (never with files spliced in by `.include`). */
  reuse: LineReuse | undefined;
  /** With `reuse`: per instruction, the earlier store's row it copied (-1: scanned). */
  reusedFrom: Int32Array | undefined;
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

/** A UTF-8 byte order mark, kept in the text as read (io.ts sourceText) and read as a blank. */
const BOM = 0xfeff;
const BOM_MESSAGE = 'the file starts with a UTF-8 byte order mark, which llvm-mc and clang refuse in a .s file ' +
  "('invalid character in input'; clang's preprocessor skips it in a .S file); read as a blank, and kept in what Conductor writes";
const BOM_SOURCE = 'llvm-mc 22 and clang 22 -c on a .s file: error: invalid character in input, at 1:1 (AsmLexer); clang -c on a .S file: accepted';

export function parseProgram(text: string, file: string, options: ParseOptions = {}): ParsedProgram {
  trimWords();
  let map: LineMap | undefined;
  let includeFailures: Map<number, string> | undefined;
  // a text edited from one with no `.include` by lines that hold none (ParseOptions.reuse, whose
  // store has no line map) has none either: not looked for again
  if (options.include && options.reuse === undefined && mayInclude(text)) {
    const f = flattenIncludes(text, file, options.include.path, options.include.id, options.include.read);
    if (f) { text = f.text; map = f.map; includeFailures = f.failures; }
  }
  const scan = scanLines(text);
  const lines = fileLines(text, scan);
  const symbols = new Map<string, number>();
  const st: State = {
    file, lines, store: new InsnStore(file, text, Math.max(64, scan.n)), statements: [], expansions: new Map(),
    rangeLookup: (t, s, e) => symbols.get(internWord(t, s, e)), auxSeen: 0,
    symbols, defined: new Set(), macros: new Map(), macroOfWord: new Map(),
    diagnostics: [], functionSymbols: new Set(), descriptors: new Map(), launchBounds: new Map(), labels: new Set(), deferred: new Map(), future: new Map(), cycles: [], pendingValues: [],
    rawWords: 0, inCode: true, macroCounter: 0,
    macroCalls: new Map(), localLabels: new Map(), forwardRefs: [], definedLocal: new Set(),
    throwOnError: options.throwOnError ?? false,
    map, includeFailures, altMacro: false, predefined: undefined, dataChecks: [],
    written: options.scanEach ? undefined : new Map(), reads: 0, epoch: 0,
    countsGprs: text.includes(GPR_COUNT_PREFIX), reuse: map === undefined ? options.reuse : undefined, reusedFrom: undefined,
  };
  if (st.reuse) st.reusedFrom = new Int32Array(Math.max(64, scan.n)).fill(-1);
  st.store.lineMap = map;
  if (options.processor !== undefined) predefineTargetSymbols(st, options.processor);
  if (st.countsGprs) for (const name of GPR_COUNT_SYMBOLS) symbols.set(name, 0);
  st.rangeLookup = (t, s, e) => {
    st.reads++;
    const v = symbols.get(internWord(t, s, e));
    return v !== undefined || st.deferred.size === 0 ? v : symbolValue(st, internWord(t, s, e));
  };
  const lookup = (name: string) => {
    st.reads++;
    return symbols.get(name) ?? (st.deferred.size === 0 ? undefined : symbolValue(st, name));
  };
  processLines(st, lines, undefined, lookup);
  for (const r of st.forwardRefs) {
    if (!st.definedLocal.has(r.name)) report(st, `directional label '${r.text}' names no numeric label after it`, r.loc);
  }
  resolveForward(st);
  if (st.cycles.length > 0 && !st.diagnostics.some((d) => d.severity === 'error')) {
    for (const c of st.cycles) report(st, `cyclic dependency detected for symbol '${c.name}'`, c.loc);
  }
  undefinedBranchTargets(st);
  if (st.dataChecks.length > 0) checkDataSymbols(st);
  if (text.charCodeAt(0) === BOM && !file.endsWith('.S')) {
    st.diagnostics.unshift({ severity: 'warning', message: BOM_MESSAGE, loc: { file, line: 1, col: 1 }, rule: 'bom', source: BOM_SOURCE });
  }

  const kernels = findKernels(st);
  return new ParsedProgram({
    file, source: text, store: st.store, statements: st.statements, expansions: st.expansions, kernels,
    declaredTarget: st.declaredTarget, symbols: st.symbols, macros: st.macros, rawWords: st.rawWords,
    diagnostics: st.diagnostics, descriptors: st.descriptors,
    ...(st.reusedFrom ? { reusedFrom: st.reusedFrom.subarray(0, st.store.n) } : {}),
  });
}

/**
 * A sequence of lines to process: the file's, or an expansion's (after substitution). Line k's
 * code is txt[k][base[k], end[k]) (comments removed), column 1 at base[k]; idx[k] is the
 * source line it comes from; tid[k] the store text holding it (-1 until an instruction needs
 * one).
 */
interface Lines {
  n: number;
  txt: string[];
  base: Uint32Array;
  end: Uint32Array;
  idx: readonly number[] | undefined;
  tid: Int32Array;
}

function fileLines(text: string, scan: ReturnType<typeof scanLines>): Lines {
  const n = scan.n;
  const txt: string[] = new Array(n).fill(text);
  const base = scan.start.subarray(0, n);
  const end = scan.end;
  const tid = new Int32Array(n);
  for (const [k, code] of scan.override) {
    txt[k] = code;
    base[k] = 0;
    end[k] = code.length;
    tid[k] = -1;
  }
  // a byte order mark is no part of the first line: its column 1 is the character after the mark
  if (n > 0 && txt[0] === text && base[0] === 0 && end[0]! > 0 && text.charCodeAt(0) === BOM) base[0] = 1;
  return { n, txt, base, end, idx: undefined, tid };
}

function stringLines(texts: readonly string[], lineIndexes: readonly number[]): Lines {
  const n = texts.length;
  const end = new Uint32Array(n);
  for (let k = 0; k < n; k++) end[k] = texts[k]!.length;
  return { n, txt: texts as string[], base: new Uint32Array(n), end, idx: lineIndexes, tid: new Int32Array(n).fill(-1) };
}

/** Line k's code as a string (comments removed, trailing blanks removed). */
function codeOf(L: Lines, k: number): string {
  return L.txt[k]!.slice(L.base[k], L.end[k]);
}

/** Store text of line k (added on first use). */
function textIdOf(st: State, L: Lines, k: number): number {
  let id = L.tid[k]!;
  if (id < 0) { id = st.store.addText(L.txt[k]!); L.tid[k] = id; }
  return id;
}

/**
 * The lower-case first word of text[ts, te) when it starts with '.' (every block and
 * conditional directive does), else ''. It ends at a blank, a comma or '(' (LLVM's lexer ends
 * an identifier there: `.if(flag)` is `.if` and `(flag)`).
 */
function dotWord(T: string, ts: number, te: number): string {
  if (ts >= te || T.charCodeAt(ts) !== 46) return '';
  let e = ts;
  while (e < te) {
    const c = T.charCodeAt(e);
    if (c === 32 || c === 9 || c === 44 || c === 40) break;
    e++;
  }
  return T.slice(ts, e).toLowerCase();
}

/** dotWord of line k's trimmed code. */
function lineDotWord(L: Lines, k: number): string {
  const T = L.txt[k]!;
  const end = L.end[k]!;
  return dotWord(T, skipSpace(T, L.base[k]!, end), end);
}

/**
 * Process a sequence of lines (comments already removed): the file itself (`from` undefined:
 * line k is source line k) or an expansion's body (after substitution), whose line k came
 * from source line L.idx[k]. Conditional assembly is tracked per sequence, as LLVM requires it
 * balanced within each macro instantiation.
 * Returns true when an `.exitm` ended the expansion early.
 */
function processLines(st: State, L: Lines, from: Expanding | undefined, lookup: (n: string) => number | undefined): boolean {
  const cond: { cur: Cond; stack: Cond[] } = { cur: { kind: 'none', met: false, ignore: false }, stack: [] };
  let i = 0;
  while (i < L.n) {
    const T = L.txt[i]!;
    const base = L.base[i]!;
    const end = L.end[i]!;
    let ts = skipSpace(T, base, end);
    if (ts === end) { i++; continue; }
    const te = trimEndAt(T, ts, end);
    const li = L.idx ? L.idx[i]! : i;
    let col = ts - base + 1;
    const exp: Expansion = from && { macro: from.name, callLine: from.callLine, callCol: from.callCol, macroLoc: loc(st, li, col), macroIndex: li, depth: from.depth };
    // a line the earlier parse read as this instruction alone (ParseOptions.reuse): its rows copied
    if (st.reuse !== undefined && from === undefined && !cond.cur.ignore && L === st.lines && L.tid[i] === 0 && reused(st, st.reuse, i, ts, te, col)) { i++; continue; }
    let first = dotWord(T, ts, te);
    if (cond.cur.ignore && !CONDITIONALS.has(first)) { i++; continue; }
    if (first === '') {
      // The common line: a word that is not a label (`:`) or an assignment (`=`), then blanks,
      // a comma or the end: an instruction or a macro call.
      const fe = plainWordEnd(T, ts, te);
      if (fe > 0) {
        const lineIndex = exp ? exp.callLine - 1 : li;
        const w = wordIdOf(T, ts, fe);
        if (!callMacro(st, w, T, fe, te, lineIndex, exp ? exp.callCol : col, lookup, exp)) {
          instruction(st, L, i, ts, te, lineIndex, exp ? exp.callCol : col, lookup, exp, w);
        }
        i++;
        continue;
      }
    }
    if (!cond.cur.ignore && isLabelStart(T, ts, te)) {
      // Labels before a statement on the same line: defined first, then the statement.
      const rest = pushLabels(st, T.slice(ts, te), exp ? exp.callLine - 1 : li, col, exp);
      if (rest.t === '') { i++; continue; }
      col = rest.col;
      ts = te - rest.t.length;
      first = dotWord(T, ts, te);
    }
    const at = exp ? callLoc(st, exp) : loc(st, li, col);
    if (first !== '' && !(st.macros.size > 0 && namesMacro(st, T.slice(ts, ts + first.length)))) {
      const t = T.slice(ts, te);
      if (CONDITIONALS.has(first)) {
        conditional(st, cond, first, t.slice(first.length).trim(), at, exp ? undefined : { text: t, lineIndex: li }, lookup);
        i++;
        continue;
      }
      // Block directives: raw blocks, macro definitions and kernel descriptors (in the file itself), repeat blocks.
      const rawEnd = Object.hasOwn(RAW_BLOCKS, first) ? RAW_BLOCKS[first] : undefined;
      if (rawEnd) {
        // its lines (YAML, key = value) are not statements, in a macro body too
        const lineIndex = exp ? exp.callLine - 1 : li;
        pushStatement(st, { kind: 'directive', text: t, name: first, args: '', loc: at, lineIndex, expansion: exp });
        let j = i + 1;
        while (j < L.n && lineDotWord(L, j) !== rawEnd) j++;
        if (j >= L.n) notClosed(st, `${first} block is not closed by ${rawEnd}`, at);
        else {
          if (first === '.amdgpu_metadata' && !exp) {
            const yaml: string[] = [];
            for (let k = i + 1; k < j; k++) yaml.push(codeOf(L, k));
            for (const [name, b] of readLaunchBounds(yaml)) st.launchBounds.set(name, b);
          }
          const endLoc = exp ? at : loc(st, L.idx ? L.idx[j]! : j, 1);
          pushStatement(st, { kind: 'directive', text: rawEnd, name: rawEnd, args: '', loc: endLoc, lineIndex: exp ? lineIndex : j, expansion: exp });
        }
        i = j + 1;
        continue;
      }
      if (first === '.macro') {
        if (from) { report(st, 'a .macro definition inside a macro expansion is not supported', at); i++; continue; }
        i = readMacro(st, i, col, t);
        continue;
      }
      if (first === '.amdhsa_kernel') {
        i = readDescriptor(st, L, i, col, t, lookup, exp);
        continue;
      }
      if (REPEATS.has(first)) {
        i = repeatBlock(st, L, i, t, first, at, exp, from, lookup);
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
    }
    statement(st, L, i, ts, te, exp ? exp.callLine - 1 : li, exp ? exp.callCol : col, lookup, exp);
    i++;
  }
  if (cond.stack.length > 0) {
    const open = cond.stack.length === 1 ? cond.cur : cond.stack[1]!;
    report(st, `unmatched .if: ${cond.stack.length} conditional block${cond.stack.length > 1 ? 's are' : ' is'} not closed by .endif${from ? ` in this expansion of '${from.name}'` : ''}`,
      open.at ?? (from ? callLoc(st, from) : loc(st, L.n - 1, 1)));
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
      else decide(cond.cur, conditionValue(st, name, args, at, lookup));
    }
    return;
  }
  // .if and the other openers
  const ignore = cond.cur.ignore;
  cond.stack.push(cond.cur);
  cond.cur = { kind: 'if', met: false, ignore, at };
  if (ignore) return;
  push();
  decide(cond.cur, conditionValue(st, name, args, at, lookup));
}

/**
 * A branch whose condition holds is read, the later ones not. A condition that is an error
 * (reported) skips every branch of its conditional: reading the .else of a condition on an
 * undefined symbol would assemble what the file did not ask for, and a macro that recurses in
 * its .else (MIOpen's gray_walker on a symbol the build defines) would never stop.
 */
function decide(c: Cond, holds: boolean | undefined): void {
  c.met = holds !== false;
  c.ignore = holds !== true;
}

/** Whether the condition of an opener (or .elseif) holds; undefined after an error (reported). */
function conditionValue(st: State, name: string, args: string, at: Loc, lookup: (n: string) => number | undefined): boolean | undefined {
  switch (name) {
    case '.ifdef': case '.ifndef': case '.ifnotdef': {
      const sym = symbolName(args);
      if (sym === '' || /[\s,]/.test(args.startsWith('"') ? '' : args)) { report(st, `expected a symbol name after '${name}'`, at); return undefined; }
      return st.defined.has(sym) === (name === '.ifdef');
    }
    case '.ifb': case '.ifnb':
      return (args === '') === (name === '.ifb');
    case '.ifc': case '.ifnc': {
      const comma = topLevelComma(args);
      if (comma < 0) { report(st, `expected a comma in '${name}'`, at); return undefined; }
      return (args.slice(0, comma).trim() === args.slice(comma + 1).trim()) === (name === '.ifc');
    }
    case '.ifeqs': case '.ifnes': {
      const m = TWO_STRINGS.exec(args);
      if (!m) { report(st, `expected two quoted strings in '${name}'`, at); return undefined; }
      return (m[1] === m[2]) === (name === '.ifeqs');
    }
    default: {
      const v = evalExpr(args, lookup);
      if (v === undefined) {
        report(st, `cannot evaluate the condition of ${name} '${args}': it must be a number or use symbols set before it`, at);
        return undefined;
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
function repeatBlock(st: State, L: Lines, i: number, t: string,
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
      const split = st.altMacro ? altMacroArgs(st, m[2]!, lookup, at) : splitMacroArgs(m[2]!);
      if (split === undefined) return i + 1;
      values = split.map(unquote);
      while (values.length > 0 && values[values.length - 1] === '') values.pop();
    } else {
      const chars = m[2]!.trim();
      if (!/^[\w.$]*$/.test(chars)) { report(st, `.irpc takes one word of characters, not '${chars}'`, at); return i + 1; }
      values = [...chars];
    }
  }
  let depth = 0;
  let j = i + 1;
  for (; j < L.n; j++) {
    const w = lineDotWord(L, j);
    if (REPEATS.has(w)) depth++;
    else if (w === '.endr') {
      if (depth === 0) break;
      depth--;
    }
  }
  const li = L.idx ? L.idx[i]! : i;
  const header: Statement = { kind: 'macroCall', text: t, name, loc: at, lineIndex: exp ? exp.callLine - 1 : li, expansion: exp };
  if (!from && j < L.n) header.blockEnd = j;
  pushStatement(st, header);
  if (j >= L.n) {
    notClosed(st, `${name} is not closed by .endr`, at);
    return L.n;
  }
  const depthNow = (from?.depth ?? 0) + 1;
  if (depthNow > MAX_MACRO_DEPTH) { report(st, `${name} blocks nest too deeply`, at); return j + 1; }
  const body: string[] = [];
  for (let k = i + 1; k < j; k++) body.push(codeOf(L, k));
  const bodyLines = L.idx ? L.idx.slice(i + 1, j) : Array.from({ length: j - i - 1 }, (_, k) => i + 1 + k);
  const inner: Expanding = from ? { ...from, name, depth: depthNow } : { name, callLine: li + 1, callCol: at.col, depth: depthNow };
  const isRept = param === '';
  for (let k = 0; k < values.length; k++) {
    // `\@` is the macro instantiation count in .irp and .irpc bodies, and is not replaced in .rept bodies.
    const subst = substituter(isRept ? new Map() : new Map([[param, values[k]!]]), isRept ? undefined : String(st.macroCounter), String(k), st.altMacro);
    // All iterations are one instantiation for LLVM: an `.exitm` ends the remaining ones.
    if (processLines(st, stringLines(body.map(subst), bodyLines), inner, lookup)) break;
  }
  return j + 1;
}

/**
 * LLVM's expandMacro substitution: `\name` (a run of identifier characters) becomes the value
 * of that parameter and stays as written when it names none, `\()` disappears, `\@` is the
 * macro instantiation count (where enabled) and `\+` the instantiation count of this macro or
 * the iteration of a repeat block. In `.altmacro` mode a parameter is also named without the
 * backslash, and an `&` right after a parameter (or after any `\name`) joins it to what follows
 * (measured with llvm-mc 22, as LLVM's test MC/AsmParser/altmacro-arg.s shows it).
 */
function substituter(values: ReadonlyMap<string, string>, atValue: string | undefined, plusValue: string, alt = false): (s: string) => string {
  if (alt) return (s: string) => substituteAlt(s, values, atValue, plusValue);
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

/** substituter in `.altmacro` mode: every run of identifier characters that names a parameter is replaced. */
function substituteAlt(s: string, values: ReadonlyMap<string, string>, atValue: string | undefined, plusValue: string): string {
  let out = '';
  let k = 0;
  const n = s.length;
  while (k < n) {
    const c = s[k]!;
    if (c === '\\' && k + 1 < n) {
      const d = s[k + 1]!;
      if (d === '@' && atValue !== undefined) { out += atValue; k += 2; continue; }
      if (d === '+') { out += plusValue; k += 2; continue; }
      let e = k + 1;
      while (e < n && MACRO_NAME_CHAR.test(s[e]!)) e++;
      const name = s.slice(k + 1, e);
      if (name === '' && d === '(' && s[k + 2] === ')') { k += 3; continue; }
      const v = name === '' ? undefined : values.get(name);
      out += v ?? '\\' + name;
      k = e;
      if (name !== '' && s[k] === '&') k++;
      continue;
    }
    if (MACRO_NAME_CHAR.test(c)) {
      let e = k + 1;
      while (e < n && MACRO_NAME_CHAR.test(s[e]!)) e++;
      const name = s.slice(k, e);
      const v = values.get(name);
      if (v === undefined) out += name;
      else {
        out += v;
        if (s[e] === '&') e++;
      }
      k = e;
      continue;
    }
    out += c;
    k++;
  }
  return out;
}

/**
 * Macro (and .irp) arguments in `.altmacro` mode (AsmParser::parseMacroArguments): an argument
 * `%expr` is the expression's value in decimal (an error when it is not a number where the call
 * stands: "expected absolute expression"), and `<text>` is the text between the angle brackets
 * with `!` escaping the next character; other arguments split as splitMacroArgs does. Undefined
 * after an error.
 */
function altMacroArgs(st: State, text: string, lookup: (n: string) => number | undefined, at: Loc): string[] | undefined {
  // angle-bracket strings first, as placeholders, so that their blanks and commas stay inside
  // A `<` opens a string only where an argument starts (AsmParser::parseMacroArguments checks
  // for it before parseMacroArgument reads the argument's tokens): at the start, after a comma
  // outside parentheses, or right after another angle-bracket string. Elsewhere it is the
  // operator: inside parentheses, and after a blank too, since parseMacroArgument joins an
  // operator (isOperator: Less, LessEqual, ...) to the argument before it
  // (`static_assert (a <= 2 && a >= 0)`, MIOpen's conv1x1u_bias_activ.s).
  const angles: string[] = [];
  let t = '';
  let argStart = true;
  let angleStart = true;
  let depth = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!;
    if (c === '"') {
      const e = quotedEnd(text, k);
      const end = e < 0 ? text.length : e + 1;
      t += text.slice(k, end);
      k = end - 1;
      argStart = false;
      angleStart = false;
      continue;
    }
    if (c === '<' && angleStart) {
      let e = k + 1;
      let content = '';
      while (e < text.length && text[e] !== '>') {
        if (text[e] === '!' && e + 1 < text.length) e++;
        content += text[e]!;
        e++;
      }
      if (e < text.length) {
        t += `\uE000${angles.length}\uE000`;
        angles.push(content);
        k = e;
        argStart = false;
        angleStart = true;
        continue;
      }
    }
    if (c === '%' && argStart) {
      // `% expr`: the expression starts after the blanks
      t += c;
      while (k + 1 < text.length && (text[k + 1] === ' ' || text[k + 1] === '\t')) k++;
      argStart = false;
      angleStart = false;
      continue;
    }
    t += c;
    if (c === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    const blank = c === ' ' || c === '\t';
    argStart = depth === 0 && (c === ',' || blank);
    angleStart = depth === 0 && (c === ',' || (blank && angleStart));
  }
  const out: string[] = [];
  for (const a of splitMacroArgs(t)) {
    const kw = /^([A-Za-z_]\w*\s*=\s*)(.*)$/.exec(a);
    const head = kw ? kw[1]! : '';
    let v = kw ? kw[2]! : a;
    const ph = /^\uE000(\d+)\uE000$/.exec(v);
    if (ph) v = angles[Number(ph[1])]!;
    else if (v.startsWith('%')) {
      const x = evalExpr(v.slice(1).trim(), lookup, exprFunctions(st));
      if (x === undefined) {
        report(st, `expected absolute expression: the .altmacro argument '${v}' must be a number where the call stands`, at);
        return undefined;
      }
      v = String(x);
    }
    out.push(head + v);
  }
  return out;
}

function firstWord(t: string): string {
  let e = 0;
  while (e < t.length && t[e] !== ' ' && t[e] !== '\t' && t[e] !== ',') e++;
  return t.slice(0, e);
}

function loc(st: State, lineIndex: number, col: number): Loc {
  return st.map ? st.map.loc(lineIndex, col) : { file: st.file, line: lineIndex + 1, col };
}

/** Where the statements of an expansion are reported: its outermost invocation. */
function callLoc(st: State, x: { callLine: number; callCol: number }): Loc {
  return loc(st, x.callLine - 1, x.callCol);
}

/** A block not closed before the end of the file (State.unclosed). */
function notClosed(st: State, message: string, at: Loc): void {
  st.unclosed = true;
  report(st, message, at);
}

function report(st: State, message: string, at: Loc, severity: Diagnostic['severity'] = 'error'): void {
  if (st.map && at.file !== st.file) {
    const chain = st.map.chainOf(at.file);
    if (chain !== '') message += ` (included from ${chain})`;
  }
  if (severity === 'error' && st.throwOnError) throw new ConductorError(message, at);
  st.diagnostics.push({ severity, message, loc: at, rule: 'parse' });
}

function pushStatement(st: State, s: Statement): void {
  st.statements.push(s);
}

/** Does a label (`name:`, `"quoted name":`, `1:`) start text[ts, te)? */
function isLabelStart(T: string, ts: number, te: number): boolean {
  const c = T.charCodeAt(ts);
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 46 || c === 36) {
    // [A-Za-z_.$][\w.$@]*\s*:(?!:)
    let p = ts + 1;
    while (p < te) {
      const d = T.charCodeAt(p);
      if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || d === 46 || d === 36 || d === 64) p++;
      else break;
    }
    while (p < te && isSpace(T.charCodeAt(p))) p++;
    return p < te && T.charCodeAt(p) === 58 && !(p + 1 < te && T.charCodeAt(p + 1) === 58);
  }
  if (c === 34 || (c >= 48 && c <= 57)) return LABEL.test(T.slice(ts, te));
  return false;
}

type Expansion = Statement['expansion'];

/** `name:`, `"quoted name":` or a numeric local label `1:` at the start of a statement. */
const LABEL = new RegExp(`^(?:([A-Za-z_.$][\\w.$@]*)|"(${QUOTED_BODY})"|(\\d+))\\s*:(?!:)`);


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
    const at: Loc = exp ? callLoc(st, exp) : loc(st, lineIndex, col);
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
 * One statement without leading labels: text[ts, te) of line k of L (comments removed,
 * trimmed): a directive, an assignment, a macro call or an instruction. `lineIndex` is the
 * source line it belongs to; `col` the column of T[ts].
 */
function statement(st: State, L: Lines, k: number, ts: number, te: number, lineIndex: number, col: number,
  lookup: (n: string) => number | undefined, exp: Expansion): void {
  const T = L.txt[k]!;
  const mkLoc = (c: number): Loc => (exp ? callLoc(st, exp) : loc(st, lineIndex, c));
  let fe = ts;
  while (fe < te) {
    const c = T.charCodeAt(fe);
    if (c === 32 || c === 9 || c === 44 || c === 40) break;
    fe++;
  }
  if (T.charCodeAt(ts) === 46 /* . */) {
    // LLVM AsmParser::parseStatement: `.name = expr` is an assignment and `.name` a macro call
    // when a macro has that name; only then a directive
    const t = T.slice(ts, te);
    if (mayAssign(T, ts, te)) {
      const assign = ASSIGNMENT.exec(t);
      if (assign && assign[1] !== '.') {
        defineSymbol(st, symbolName(assign[1]!), assign[2]!, lookup, mkLoc(col));
        pushStatement(st, { kind: 'directive', text: t, name: '=', args: t, loc: mkLoc(col), lineIndex, expansion: exp });
        return;
      }
    }
    if (callMacro(st, wordIdOf(T, ts, fe), T, fe, te, lineIndex, col, lookup, exp)) return;
    directive(st, t, t.slice(0, fe - ts).toLowerCase(), lineIndex, lookup, exp, mkLoc(col));
    return;
  }
  // Symbol assignment: name = expr ("quoted name" = expr)
  if (mayAssign(T, ts, te)) {
    const t = T.slice(ts, te);
    const assign = ASSIGNMENT.exec(t);
    if (assign) {
      defineSymbol(st, symbolName(assign[1]!), assign[2]!, lookup, mkLoc(col));
      pushStatement(st, { kind: 'directive', text: t, name: '=', args: t, loc: mkLoc(col), lineIndex, expansion: exp });
      return;
    }
  }
  if (callMacro(st, wordIdOf(T, ts, fe), T, fe, te, lineIndex, col, lookup, exp)) return;
  instruction(st, L, k, ts, te, lineIndex, col, lookup, exp);
}

/**
 * End of the first word of text[ts, te) when it is a plain word ([A-Za-z_$][\w.$]*) followed by
 * blanks, a comma, '(' or the end, and is neither a label (`name:`) nor an assignment (`name =`);
 * else 0. (LLVM's lexer ends the word at '(': `static_assert(1 == 1)` calls the macro
 * static_assert with the argument `(1 == 1)`.)
 */
function plainWordEnd(T: string, ts: number, te: number): number {
  const c = T.charCodeAt(ts);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36)) return 0;
  let p = ts + 1;
  while (p < te) {
    const d = T.charCodeAt(p);
    if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || d === 46 || d === 36) p++;
    else break;
  }
  const fe = p;
  if (p < te) {
    const d = T.charCodeAt(p);
    if (d !== 32 && d !== 9 && d !== 44 && d !== 40) return 0;
    while (p < te && isSpace(T.charCodeAt(p))) p++;
    const n = p < te ? T.charCodeAt(p) : -1;
    if (n === 58 || n === 61) return 0;
  }
  return fe;
}

/** Is `w` (a statement's first word as written) a macro's name (a dotted name too: `.v_clear_acc`)? */
function namesMacro(st: State, w: string): boolean {
  return st.macros.has(w) || st.macros.has(w.toLowerCase());
}

/** When the word `w` (text[.., fe)) names a macro, expand the call (its arguments text[fe, te)) and return true. */
function callMacro(st: State, w: number, T: string, fe: number, te: number, lineIndex: number, col: number,
  lookup: (n: string) => number | undefined, exp: Expansion): boolean {
  if (st.macros.size === 0) return false;
  let macro = st.macroOfWord.get(w);
  if (macro === undefined) {
    macro = st.macros.get(wordString(w)) ?? st.macros.get(wordLowerOf(w)) ?? null;
    st.macroOfWord.set(w, macro);
  }
  if (!macro) return false;
  expandMacro(st, macro, T.slice(fe, te), lineIndex, col, lookup, exp);
  return true;
}

/** The instruction text[ts, te) of line k of L into the store, and its statement; a syntax error becomes a diagnostic and a raw statement. */
function instruction(st: State, L: Lines, k: number, ts: number, te: number, lineIndex: number, col: number,
  lookup: (n: string) => number | undefined, exp: Expansion, word = -1): void {
  const T = L.txt[k]!;
  const written = st.written;
  const key = written ? T.slice(ts, te) : '';
  const was = written?.get(key);
  if (was !== undefined && (was.epoch < 0 || was.epoch === st.epoch)) {
    const i = st.store.appendMoved(was.i, textIdOf(st, L, k), ts, exp ? exp.callLine : lineIndex + 1, exp ? exp.callCol : col, st.statements.length);
    if (st.countsGprs) countGprs(st, i);
    if (exp) st.expansions.set(i, exp);
    st.statements.push(i);
    return;
  }
  const reads = st.reads;
  const aux = st.store.aux.length;
  let i: number;
  try {
    i = scanInstruction(st.store, textIdOf(st, L, k), ts, te, st.file, lineIndex + 1, col, lookup, st.rangeLookup, st.statements.length,
      exp ? { line: exp.callLine, col: exp.callCol } : undefined, word);
  } catch (e) {
    if (e instanceof ConductorError) {
      const at = exp ? callLoc(st, exp) : loc(st, lineIndex, col);
      const msg = exp ? `${e.message} (${expansionName(exp)}, ${st.map ? `${exp.macroLoc.file}:` : 'line '}${exp.macroLoc.line})` : e.message;
      report(st, msg, exp ? at : e.loc ? (st.map ? loc(st, e.loc.line - 1, e.loc.col) : e.loc) : at);
      pushStatement(st, { kind: 'raw', text: T.slice(ts, te), loc: at, lineIndex, expansion: exp });
      return;
    }
    throw e;
  }
  if (written && st.store.aux.length === aux && st.store.tStart[i] === ts) written.set(key, { i, epoch: st.reads === reads ? -1 : st.epoch });
  if (st.countsGprs) countGprs(st, i);
  if (st.store.aux.length > st.auxSeen) {
    // expression operands: `1b` / `1f` name numeric labels
    resolveDirectionalLabels(st, i);
    st.auxSeen = st.store.aux.length;
  }
  if (exp) st.expansions.set(i, exp);
  st.statements.push(i);
}

/** Rows copied from an earlier parse (ParseOptions.reuse), for the tests and the bench. */
export const parseReuse = { rows: 0 };

/**
 * Line k of the file, its statements at text[ts, te) and column col, as the earlier parse's row
 * for it when it offers one (LineReuse) spanning exactly those characters: the line then holds
 * that one instruction (no label before it), which the same text at the same symbol values and
 * macros scans to again.
 */
function reused(st: State, reuse: LineReuse, k: number, ts: number, te: number, col: number): boolean {
  const r = reuse.row[k]!;
  if (r < 0) return false;
  const from = reuse.store;
  const shift = reuse.shift[k]!;
  if (from.tStart[r]! + shift !== ts || from.tEnd[r]! + shift !== te) return false;
  const i = st.store.appendCopy(from, r, 0, ts, k + 1, col, st.statements.length);
  let copied = st.reusedFrom!;
  if (i >= copied.length) { copied = new Int32Array(copied.length * 2).fill(-1); copied.set(st.reusedFrom!); st.reusedFrom = copied; }
  copied[i] = r;
  if (st.countsGprs) countGprs(st, i);
  st.statements.push(i);
  parseReuse.rows++;
  return true;
}

/** What the register-count symbols' names start with (countGprs). */
export const GPR_COUNT_PREFIX = '.amdgcn.next_free_';
const FILE_V = FILE_NAMES.indexOf('v');
const FILE_S = FILE_NAMES.indexOf('s');
const GPR_COUNT_SYMBOLS = ['.amdgcn.next_free_vgpr', '.amdgcn.next_free_sgpr'] as const;

/**
 * `.amdgcn.next_free_vgpr` and `.amdgcn.next_free_sgpr`, which llvm-mc keeps in code object v3+
 * (HSA ABI) mode for hand-written descriptors (`.amdhsa_next_free_vgpr .amdgcn.next_free_vgpr`):
 * 0 at the start (AMDGPUAsmParser::initializeGprCountSymbol), then one past the highest VGPR /
 * SGPR an instruction operand names so far, AGPRs, TTMPs and VCC/EXEC/M0 not counted
 * (AMDGPUAsmParser::updateGprCountSymbols, getGprCountSymbolName: IS_VGPR and IS_SGPR only).
 * A `.set` may give them another value, from which counting goes on; one that is not a number
 * here is left alone (llvm-mc refuses the next register then). An operand that names one is
 * evaluated again with the registers to its left counted, as llvm-mc reads it.
 */
function countGprs(st: State, i: number): void {
  const s = st.store;
  let changed = false;
  for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
    if (s.oKind[k] !== OP_REG) {
      // an operand naming a count reads it as the registers to its left left it (`v_mov_b32 v9,
      // .amdgcn.next_free_vgpr` is 10): llvm-mc parses the operands left to right
      if (changed && s.oKind[k] === OP_IMM) {
        const text = s.operandText(i, k);
        if (text.includes(GPR_COUNT_PREFIX)) {
          const v = evalExpr(text, (n) => symbolValue(st, n), exprFunctions(st));
          if (v !== undefined) s.oValue[k] = v;
        }
      }
      continue;
    }
    const file = s.oFile[k];
    const name = file === FILE_V ? GPR_COUNT_SYMBOLS[0] : file === FILE_S ? GPR_COUNT_SYMBOLS[1] : undefined;
    if (name === undefined) continue;
    const old = st.symbols.get(name);
    const next = s.oIndex[k]! + s.oCount[k]!;
    if (old === undefined || old >= next) continue;
    st.symbols.set(name, next);
    st.epoch++;
    changed = true;
  }
}

/** Could text[ts, te) be `name = expr` (ASSIGNMENT)? A quick test before the pattern. */
function mayAssign(T: string, ts: number, te: number): boolean {
  const c = T.charCodeAt(ts);
  if (c === 34) return true;
  let p = ts;
  while (p < te) {
    const d = T.charCodeAt(p);
    if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95 || d === 46 || d === 36) p++;
    else break;
  }
  while (p < te && isSpace(T.charCodeAt(p))) p++;
  return p < te && T.charCodeAt(p) === 61;
}

function expansionName(exp: NonNullable<Expansion>): string {
  return exp.macro.startsWith('.') ? `in an expansion of ${exp.macro}` : `in expansion of macro '${exp.macro}'`;
}

/** `1b` / `1f` operands name the numeric label `1:` before or after this point. */
function resolveDirectionalLabels(st: State, i: number): void {
  const s = st.store;
  for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
    if (s.oKind[k] !== OP_EXPR) continue;
    const symbols = s.aux[s.oAux[k]!] as string[];
    for (let j = 0; j < symbols.length; j++) {
      const c = symbols[j]!.charCodeAt(0);
      if (!(c >= 48 && c <= 57)) continue;
      const m = /^(\d+)([bf])$/.exec(symbols[j]!);
      if (!m) continue;
      const n = Number(m[1]);
      const defs = st.localLabels.get(n) ?? 0;
      if (m[2] === 'b') {
        if (defs === 0) report(st, `directional label '${m[0]}' names no numeric label ${n}: before it`, s.loc(i));
        else symbols[j] = localLabelName(n, defs);
      } else {
        symbols[j] = localLabelName(n, defs + 1);
        st.forwardRefs.push({ name: symbols[j]!, text: m[0], loc: s.loc(i) });
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
      if (tm && st.predefined === undefined) predefineTargetSymbols(st, tm[1]!);
      // llvm-mc 22 compares the id with its own canonical one: the features can only be
      // :sramecc± then :xnack± (the code object v2 spelling gfx908+sram-ecc matches no target)
      if (tm && !/^(:sramecc[+-])?(:xnack[+-])?$/.test(tm[2]!)) {
        report(st, `.amdgcn_target directive's target id ${id} is not one llvm-mc takes: after the processor come only :sramecc+/- then :xnack+/- (as in amdgcn-amd-amdhsa--${tm[1]}:sramecc+:xnack-)`, at);
      }
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
      st.macroOfWord.clear();
      return;
    }
    // Assembly-time assertions (written in conditional blocks): llvm-mc stops on an active .error / .err.
    case '.error': case '.err':
      report(st, name === '.err' ? '.err encountered' : symbolName(args) || '.error directive invoked in source file', at);
      return;
    case '.warning':
      report(st, symbolName(args) || '.warning directive invoked in source file', at, 'warning');
      return;
    case '.altmacro': case '.noaltmacro':
      st.altMacro = name === '.altmacro';
      return;
    case '.include': {
      // a file spliced in leaves a comment here (asm/include.ts): this one was not
      const why = st.includeFailures?.get(exp ? exp.macroIndex : lineIndex);
      // at the file name, as llvm-mc reports it
      const q = t.indexOf('"');
      report(st, why ?? (st.includeFailures
        ? `.include takes a file name in double quotes as its only argument (a name made by macro substitution is not read)`
        : `directive .include needs the file it names: load the file from disk`), exp || q < 0 ? at : { ...at, col: at.col + q });
      return;
    }
    default:
      if (DATA_DIRECTIVES.has(name)) {
        if (st.inCode) st.rawWords += splitTopLevel(args).length;
        if (args.indexOf('-') >= 0) st.dataChecks.push({ args, loc: at, col: at.col + t.indexOf(args, name.length) });
        return;
      }
      if (UNSUPPORTED_BLOCKS.has(name)) {
        report(st, `directive ${name} is not supported: the file it names would not be analysed`, at);
      } else if (name === '.amd_amdgpu_isa') {
        // llvm-mc takes it under the PAL triple only (amdgcn--amdpal: graphics shaders)
        report(st, `directive .amd_amdgpu_isa names a PAL (graphics) target: Conductor reads HSA code objects (compute kernels, -mtriple=amdgcn-amd-amdhsa, whose target is .amdgcn_target)`, at);
      } else if (!KNOWN_DIRECTIVES.has(name) && !/^\.(dc|dcb|ds)\.[a-z]$/.test(name)) {
        report(st, `unknown directive ${name} (llvm-mc does not know it; a macro of that name is not defined here)`, at);
      }
  }
}

/**
 * One definition of a `.set` / `=` symbol whose value did not evaluate where it stands, as llvm-mc
 * keeps it (MCParserUtils::parseAssignmentExpression keeps the expression; a redefinable symbol
 * set again becomes a new symbol, so earlier expressions keep naming the older definition):
 * each name in the expression is bound where the definition stands, to the value or definition
 * the name has there, or, when the name is not set yet, to the definition the name gets next.
 * The value is computed where it is needed (a condition, a count, an operand), and kept once
 * known. Measured with llvm-mc 22 (test/oracle/probes/llvm-forms/set-forward.s):
 * `a = b + 1; b = 5; b = 7` gives a = 6; `b = 1; a = b + 1; b = 5` gives a = 2; `.if a` before
 * `b` is set is refused ("expected absolute expression"); `b = b + 2` with b not set is refused
 * ("cyclic dependency detected for symbol 'b'").
 */
interface SymVersion {
  /** False for a definition still to come (`future`). */
  filled: boolean;
  text: string;
  bindings: Map<string, number | SymVersion>;
  value?: number;
  visiting?: boolean;
}

/** The symbol names an expression mentions (numbers, directional labels and quoted text skipped). */
function expressionNames(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) { i = quotedEnd(text, i) + 1; continue; }
    if (c === 39) { i += Math.max(1, charLiteralLength(text, i)); continue; }
    if (c >= 48 && c <= 57) { i++; while (i < n && /[\w.]/.test(text[i]!)) i++; continue; }
    if (/[A-Za-z_.$]/.test(text[i]!)) {
      const s = i;
      i++;
      while (i < n && /[\w.$@]/.test(text[i]!)) i++;
      const w = text.slice(s, i);
      if (w !== '.') out.push(w);
      continue;
    }
    i++;
  }
  return out;
}

function evalVersion(st: State, v: SymVersion, atEnd: boolean): number | undefined {
  if (v.value !== undefined) return v.value;
  if (!v.filled || v.visiting) return undefined;
  v.visiting = true;
  const r = evalExpr(v.text, (name) => {
    const b = v.bindings.get(name);
    if (b === undefined) return undefined;
    if (typeof b === 'number') return b;
    // a definition that never came (a label, or a name set nowhere): what the assembler has at the end
    if (!b.filled) return atEnd ? symbolValue(st, name, true) : undefined;
    return evalVersion(st, b, atEnd);
  }, exprFunctions(st));
  v.visiting = false;
  if (r !== undefined) v.value = r;
  return r;
}

/** A symbol's value where the reading stands (or at the end), its definition evaluated if needed. */
function symbolValue(st: State, name: string, atEnd = false): number | undefined {
  const v = st.symbols.get(name);
  if (v !== undefined) return v;
  const cur = st.deferred.get(name);
  if (cur === undefined) return undefined;
  const r = evalVersion(st, cur, atEnd);
  if (r !== undefined && cur.value !== undefined) { st.symbols.set(name, r); st.deferred.delete(name); }
  return r;
}

function defineSymbol(st: State, name: string, exprText: string, lookup: (n: string) => number | undefined, at: Loc): void {
  if (st.predefined !== undefined && st.predefined.has(name)) {
    report(st, `redefinition of '${name}' (llvm-mc defines it from the target)`, at);
    return;
  }
  const text = exprText.trim();
  const wasSet = st.symbols.has(name) || st.deferred.has(name);
  st.defined.add(name);
  st.epoch++;
  const v = evalExpr(text, lookup, exprFunctions(st));
  const next = st.future.get(name);
  st.future.delete(name);
  if (v !== undefined) {
    if (next) { next.filled = true; next.text = text; next.value = v; }
    st.deferred.delete(name);
    st.symbols.set(name, v);
    return;
  }
  // A label difference or a forward reference: not a number here. Bind its names as llvm-mc does
  // (SymVersion), evaluate it where it is used, and once the whole file is read (descriptors).
  const bindings = new Map<string, number | SymVersion>();
  for (const id of expressionNames(text)) {
    if (bindings.has(id)) continue;
    const n = st.symbols.get(id);
    if (n !== undefined) { bindings.set(id, n); continue; }
    const cur = st.deferred.get(id);
    if (cur !== undefined) { bindings.set(id, cur); continue; }
    if (id === name && !wasSet) {
      // llvm-mc finds it when it writes the object, so only in a file without other errors
      st.cycles.push({ name, loc: at });
      return;
    }
    let f = st.future.get(id);
    if (f === undefined) { f = { filled: false, text: '', bindings: new Map() }; st.future.set(id, f); }
    bindings.set(id, f);
  }
  const ver = next ?? { filled: false, text: '', bindings };
  ver.filled = true; ver.text = text; ver.bindings = bindings;
  st.symbols.delete(name);
  st.deferred.set(name, ver);
}

/**
 * The symbols AMDGPUAsmParser's constructor predefines for the target it assembles for (-mcpu),
 * in code object v3+ (HSA ABI) mode: `.amdgcn.gfx_generation_number`, `_minor` and `_stepping`,
 * the major, minor and stepping of AMDGPU::getIsaVersion (TargetParser: gfx906 is 9.0.6, gfx90a
 * 9.0.10, gfx942 9.4.2: the processor name's last digit is the stepping in hex, the one before
 * it the minor). They are constants: a `.set` of one is refused ("redefinition of").
 */
function predefineTargetSymbols(st: State, processor: string): void {
  const m = /^gfx(\d+)([0-9])([0-9a-f])$/i.exec(processor);
  if (!m) return;
  const values: [string, number][] = [
    ['.amdgcn.gfx_generation_number', Number(m[1])],
    ['.amdgcn.gfx_generation_minor', Number(m[2])],
    ['.amdgcn.gfx_generation_stepping', parseInt(m[3]!, 16)],
  ];
  st.predefined = new Set(values.map(([n]) => n));
  st.epoch++;
  for (const [name, v] of values) {
    st.symbols.set(name, v);
    st.defined.add(name);
  }
}

/**
 * Data directive values (`.long A-B`) whose subtracted symbol is defined nowhere in the file:
 * llvm-mc refuses them when it writes the object (ELFObjectWriter::recordRelocation, "symbol
 * 'B' can not be undefined in a subtraction expression"), at the expression's first operator.
 * Only sums and differences of symbols and numbers are read; anything else is left to llvm-mc.
 */
function checkDataSymbols(st: State): void {
  for (const d of st.dataChecks) {
    for (const part of splitDataArgs(d.args)) {
      const r = subtractedSymbol(part.text);
      if (r && !isDefinedSymbol(st, r.name)) {
        report(st, `symbol '${r.name}' can not be undefined in a subtraction expression`, { ...d.loc, col: d.col + part.start + r.at });
      }
    }
  }
}

function isDefinedSymbol(st: State, name: string): boolean {
  return name === '.' || st.defined.has(name) || st.labels.has(name) || st.symbols.has(name) || st.deferred.has(name);
}

/** A data directive's arguments split at top-level commas, each with its offset. */
function splitDataArgs(args: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k <= args.length; k++) {
    const c = args[k];
    if (c === '"') { const e = quotedEnd(args, k); if (e > 0) { k = e; continue; } }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (k === args.length || (c === ',' && depth === 0)) {
      out.push({ text: args.slice(start, k), start });
      start = k + 1;
    }
  }
  return out;
}

/**
 * For an expression made of symbols, numbers, `+`, `-` and parentheses: the one symbol it
 * subtracts (after equal symbols cancel) when it also adds one or more, and the offset of the
 * expression's first operator (where LLVM locates the expression); undefined otherwise.
 */
function subtractedSymbol(e: string): { name: string; at: number } | undefined {
  const signs: number[] = [1];
  let sign = 1;
  let expectOperand = true;
  let firstOp = -1;
  let firstOpDepth = Infinity;
  const count = new Map<string, number>();
  let k = 0;
  while (k < e.length) {
    const c = e[k]!;
    if (c === ' ' || c === '\t') { k++; continue; }
    if (c === '(') { signs.push(signs[signs.length - 1]! * sign); sign = 1; expectOperand = true; k++; continue; }
    if (c === ')') { if (signs.length <= 1) return undefined; signs.pop(); expectOperand = false; k++; continue; }
    if (c === '+' || c === '-') {
      if (!expectOperand && signs.length < firstOpDepth) { firstOp = k; firstOpDepth = signs.length; }
      if (c === '-') sign = -sign;
      expectOperand = true;
      k++;
      continue;
    }
    if (!expectOperand) return undefined;
    const id = /^[A-Za-z_.$][\w.$]*/.exec(e.slice(k));
    if (id) {
      const v = sign * signs[signs.length - 1]!;
      count.set(id[0], (count.get(id[0]) ?? 0) + v);
      k += id[0].length;
    } else {
      const num = /^\d\w*/.exec(e.slice(k));
      if (!num) return undefined;
      // a directional label (1b, 1f) names a numeric label
      if (/^\d+[bf]$/i.test(num[0])) return undefined;
      k += num[0].length;
    }
    sign = 1;
    expectOperand = false;
  }
  let minus: string | undefined;
  let plus = 0;
  for (const [name, n] of count) {
    if (n === 0) continue;
    if (n === -1 && minus === undefined) minus = name;
    else if (n === 1) plus++;
    else return undefined;
  }
  if (minus === undefined || plus === 0 || firstOp < 0) return undefined;
  return { name: minus, at: firstOp };
}

/**
 * A branch to a label the file does not define: llvm-mc refuses it ("undefined label"), and the
 * control flow would be unknown. Directional labels are checked with the forward references.
 */
function undefinedBranchTargets(st: State): void {
  // the rest of the file after a block left open was not read: its labels are not known (llvm-mc
  // names only the block, "no matching '.endr' in definition")
  if (st.unclosed) return;
  const store = st.store;
  for (let i = 0; i < store.n; i++) {
    const m = OPCODES.mnemonic[store.opcode[i]!]!;
    if (m !== 's_branch' && !m.startsWith('s_cbranch_')) continue;
    if (store.opBegin[i + 1]! <= store.opBegin[i]!) continue;
    const o = store.operandAt(i, store.opBegin[i]!);
    if (o.kind !== 'expr') continue;
    for (const sym of o.symbols) {
      if (/^\d+(#\d+|[bf])$/.test(sym) || st.labels.has(sym) || st.symbols.has(sym)) continue;
      report(st, `undefined label '${sym}'`, store.loc(i));
    }
  }
}

/**
 * Which register file `totalnumvgprs` sums over, by the `.amdgcn_target` processor: one unified
 * VGPR/AGPR file on gfx90a and later (LLVM GCNSubtarget::hasGFX90AInsts, AMDGPUMCExpr
 * totalnumvgprs), separate files on gfx908; unknown otherwise.
 */
const UNIFIED_FILE: Readonly<Record<string, boolean>> = { gfx908: false, gfx90a: true, gfx940: true, gfx941: true, gfx942: true, gfx950: true };

/**
 * Whether the hardware sets up flat scratch (`extrasgprs`), by the `.amdgcn_target` processor:
 * gfx940 and later (LLVM AMDGPU.td FeatureISAVersion9_4_Common, and 9_5 after it:
 * FeatureArchitectedFlatScratch), not the earlier GFX9 processors.
 */
const ARCHITECTED_FLAT_SCRATCH: Readonly<Record<string, boolean>> = { gfx906: false, gfx908: false, gfx90a: false, gfx940: true, gfx941: true, gfx942: true, gfx950: true };

function exprFunctions(st: State): ExprFunctions {
  const name = st.declaredTarget?.name;
  return mcFunctions(name === undefined ? {} : { unified: UNIFIED_FILE[name], architectedFlatScratch: ARCHITECTED_FLAT_SCRATCH[name] });
}

/**
 * Once the file is read: symbols whose value named later symbols, then the descriptor values
 * that named them, with the symbols' final values (what the assembler sees at the end). A value
 * that still does not evaluate is left out of the descriptor (unknown, never 0), with a warning.
 */
function resolveForward(st: State): void {
  if (st.deferred.size === 0 && st.pendingValues.length === 0) return;
  const fns = exprFunctions(st);
  const lookup = (name: string): number | undefined => symbolValue(st, name, true);
  for (const name of [...st.deferred.keys()]) symbolValue(st, name, true);
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
  const L = st.lines;
  for (; i < L.n; i++) {
    const w = lineDotWord(L, i);
    if (w === '.macro') depth++;
    if (w === '.endm' || w === '.endmacro') {
      depth--;
      if (depth === 0) break;
    }
    body.push({ text: codeOf(L, i), lineIndex: i });
  }
  if (i >= L.n) notClosed(st, `.macro ${m[1]} is not closed by .endm`, at);
  const def: MacroDef = { name: m[1]!, params, body, loc: at };
  st.macros.set(def.name, def);
  st.macroOfWord.clear();
  pushStatement(st, { kind: 'directive', text: t, name: '.macro', args: header, loc: at, lineIndex: start });
  if (i < L.n) pushStatement(st, { kind: 'directive', text: '.endm', name: '.endm', args: '', loc: loc(st, i, 1), lineIndex: i });
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
  const at: Loc = outer ? callLoc(st, outer) : loc(st, lineIndex, col);
  if (depth > MAX_MACRO_DEPTH) {
    report(st, `macro '${macro.name}' expands too deeply (recursion?)`, at);
    return;
  }
  pushStatement(st, { kind: 'macroCall', text: `${macro.name}${argText}`, name: macro.name, loc: at, lineIndex, expansion: outer });
  const args = st.altMacro ? altMacroArgs(st, argText, lookup, at) : splitMacroArgs(argText);
  if (args === undefined) return;
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
  const subst = substituter(values, String(st.macroCounter++), String(calls), st.altMacro);
  const from: Expanding = { name: macro.name, callLine: outer ? outer.callLine : lineIndex + 1, callCol: outer ? outer.callCol : col, depth };
  processLines(st, stringLines(macro.body.map((b) => subst(b.text)), macro.body.map((b) => b.lineIndex)), from, lookup);
}

/**
 * An `.amdhsa_kernel` block from line `start` of `L` (the file, or a macro's expansion: its lines
 * then stand at the call, as every statement of an expansion does) to its `.end_amdhsa_kernel`.
 */
function readDescriptor(st: State, L: Lines, start: number, col: number, t: string, lookup: (n: string) => number | undefined, exp: Expansion): number {
  const name = symbolName(t.slice('.amdhsa_kernel'.length));
  const lineOf = (k: number) => (exp ? exp.callLine - 1 : L.idx ? L.idx[k]! : k);
  const locOf = (k: number, c: number) => (exp ? callLoc(st, exp) : loc(st, lineOf(k), c));
  const at = locOf(start, col);
  pushStatement(st, { kind: 'directive', text: t, name: '.amdhsa_kernel', args: name, loc: at, lineIndex: lineOf(start), expansion: exp });
  const values: Record<string, number> = {};
  const directives: { name: string; loc: Loc }[] = [];
  let end: Loc | undefined;
  let i = start + 1;
  for (; i < L.n; i++) {
    const code = codeOf(L, i);
    const line = code.trim();
    if (line === '') continue;
    const w = firstWord(line).toLowerCase();
    const dcol = code.length - code.trimStart().length + 1;
    pushStatement(st, { kind: 'directive', text: line, name: w, args: line.slice(w.length).trim(), loc: locOf(i, dcol), lineIndex: lineOf(i), expansion: exp });
    if (w === '.end_amdhsa_kernel') { end = locOf(i, dcol); break; }
    if (w.startsWith('.amdhsa_')) {
      directives.push({ name: w, loc: locOf(i, dcol) });
      const text = line.slice(w.length).trim();
      const v = evalExpr(text, lookup, exprFunctions(st));
      if (v === undefined) st.pendingValues.push({ values, key: w.slice('.amdhsa_'.length), directive: w, text, loc: locOf(i, dcol) });
      else values[w.slice('.amdhsa_'.length)] = v;
    }
  }
  if (i >= L.n) notClosed(st, `.amdhsa_kernel ${name} is not closed by .end_amdhsa_kernel`, at);
  st.descriptors.set(name, end ? { name, values, loc: at, directives, end } : { name, values, loc: at, directives });
  return i + 1;
}

function findKernels(st: State): KernelSymbol[] {
  const starts: { name: string; index: number }[] = [];
  const stmts = st.statements;
  for (let k = 0; k < stmts.length; k++) {
    const s = stmts[k]!;
    // a label a macro writes counts too (MIOpen's Winograd v21 and xform kernels write the
    // .globl/.type/label and the .amdhsa_kernel block from macros)
    if (typeof s !== 'number' && s.kind === 'label' && (st.functionSymbols.has(s.name!) || st.descriptors.has(s.name!))) {
      starts.push({ name: s.name!, index: k });
    }
  }
  const kernels: KernelSymbol[] = [];
  // Instructions before the first function: a top-level region (LLVM MC tests, snippets).
  const firstStart = starts.length > 0 ? starts[0]!.index : stmts.length;
  if (st.store.n > 0 && st.store.stmt[0]! < firstStart) {
    kernels.push({ name: '(top level)', kind: 'function', start: 0, end: firstStart, loc: { file: st.file, line: 1, col: 1 } });
  }
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const end = k + 1 < starts.length ? starts[k + 1]!.index : stmts.length;
    const d = st.descriptors.get(s.name);
    const b = st.launchBounds.get(s.name);
    kernels.push({
      name: s.name, kind: d ? 'kernel' : 'function', start: s.index, end, descriptor: d, loc: (stmts[s.index] as Statement).loc,
      ...(b ? { launchBounds: b } : {}),
    });
  }
  return kernels;
}

/** Instructions of one kernel, in order. */
export function kernelInstructions(program: Program, kernel: KernelSymbol): Instruction[] {
  if (program instanceof ParsedProgram) {
    const [first, end] = program.kernelRange(kernel);
    return program.instructions.slice(first, end);
  }
  const out: Instruction[] = [];
  for (let k = kernel.start; k < kernel.end; k++) {
    const s = program.statements[k]!;
    if (s.insn) out.push(s.insn);
  }
  return out;
}
