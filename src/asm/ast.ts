import type { RegFile, RegUnit } from './registers.js';

import type { Loc, Note } from '../errors.js';
import type { LineIndex } from './source.js';
import type { LaunchBounds } from './metadata.js';

export type { Loc };

/** Operand modifiers that wrap a source: -v0, |v0|, abs(v0), neg(v0), sext(v0). */
export interface SourceMods {
  neg?: boolean;
  abs?: boolean;
  sext?: boolean;
}

export interface RegOperand {
  kind: 'reg';
  file: RegFile;
  /** First register unit (see asm/registers.ts). */
  first: RegUnit;
  /** Number of 32-bit units. */
  count: number;
  /** Register index in its own file (v[4:7] -> 4); for specials, the unit. */
  index: number;
  text: string;
  mods?: SourceMods;
}

export interface ImmOperand {
  kind: 'imm';
  /** Integer value (already evaluated, including .set symbols), or the float value for float literals. */
  value: number;
  /** True when written as a floating point literal (1.0, -0.5). */
  float: boolean;
  /** An integer beyond 2^53 that `value` (a double) does not hold exactly (OPF_INEXACT). */
  inexact?: true;
  text: string;
  mods?: SourceMods;
}

/** A symbolic operand whose value is not known at parse time (a label, a relocation). */
export interface ExprOperand {
  kind: 'expr';
  text: string;
  /** Symbols referenced (labels). */
  symbols: string[];
  mods?: SourceMods;
}

/** `off` (no address / no offset register) in global, scratch and buffer instructions. */
export interface OffOperand {
  kind: 'off';
  text: string;
}

/** A read-only hardware constant source such as src_shared_base, src_vccz, lds_direct. */
export interface ConstOperand {
  kind: 'const';
  name: string;
  text: string;
  mods?: SourceMods;
}

/** The operand of s_waitcnt (and s_waitcnt_vmcnt etc.) after decoding every spelling. */
export interface WaitcntOperand {
  kind: 'waitcnt';
  /** Undefined means "not waited on" (the counter's maximum). */
  vmcnt?: number;
  expcnt?: number;
  lgkmcnt?: number;
  /** The raw 16-bit immediate when written as a number. */
  raw?: number;
  text: string;
}

/** hwreg(HW_REG_MODE, 0, 4) / sendmsg(MSG_...) / swizzle(...) / gpr_idx(...) style operands. */
export interface FuncOperand {
  kind: 'func';
  name: string;
  args: string[];
  text: string;
}

export type Operand = RegOperand | ImmOperand | ExprOperand | OffOperand | ConstOperand | WaitcntOperand | FuncOperand;

/**
 * Trailing keyword modifiers: glc, slc, nt, sc0, sc1, offen, idxen, addr64, lds, clamp, gds,
 * offset:N, offset0:N, offset1:N, op_sel:[..], op_sel_hi:[..], neg_lo:[..], neg_hi:[..],
 * cbsz:N, abid:N, blgp:N, mul:N, div:N, DPP controls (quad_perm:[..], row_shl:N, row_mask:N,
 * bank_mask:N, bound_ctrl:N, ...), SDWA controls (dst_sel:WORD_1, src0_sel:BYTE_0, dst_unused:...).
 */
export interface Modifier {
  name: string;
  /** The text after ':' (undefined for bare keywords). */
  value?: string;
  /** Numeric value when the value is a number or an evaluable expression. */
  num?: number;
  /** Parsed list for [a,b,...] values. */
  list?: number[];
  text: string;
}

/** Encoding suffix written on the mnemonic. */
export type EncodingSuffix = 'e32' | 'e64' | 'sdwa' | 'dpp' | 'e64_dpp' | undefined;

export interface Instruction {
  /** The mnemonic as written, lower-cased (v_add_co_u32_e32). */
  mnemonic: string;
  /** Mnemonic without the encoding suffix (v_add_co_u32). */
  base: string;
  suffix: EncodingSuffix;
  operands: Operand[];
  modifiers: Modifier[];
  /** Source text of the statement (without comments), as written. */
  text: string;
  loc: Loc;
  /** Index of this instruction's statement in Program.statements. */
  stmt: number;
}

export type StatementKind = 'instruction' | 'label' | 'directive' | 'macroCall' | 'raw';

/**
 * One statement of the expanded program. Statements that come from a macro expansion or a
 * repeat block carry the invocation they came from; their `loc` is the invocation line (the
 * macro call, or the block's `.rept` line: where a user can act), and `macroLoc` is the line
 * inside the body. Labels keep `text` as written (`"my func"`, `1`) and `name` as the symbol
 * (`my func`; numeric local labels get a unique internal name, `1#2` for the second `1:`).
 */
export interface Statement {
  kind: StatementKind;
  /** Statement text (comments removed, trimmed). */
  text: string;
  loc: Loc;
  /** 0-based index of the source line this statement belongs to (the invocation line for expansions). */
  lineIndex: number;
  /** For instructions: the parsed instruction. */
  insn?: Instruction;
  /** For labels: the label name. For directives: the directive name (".set"). For macro calls: the macro name. */
  name?: string;
  /** For directives: the argument text. */
  args?: string;
  /**
   * Set when the statement was produced by expanding a macro or a repeat block (`macro` is the
   * macro name, or `.rept` / `.irp` / `.irpc`).
   */
  expansion?: {
    macro: string;
    /** The invocation's 1-based line in the text parsed (with `.include`d files spliced in: not a line of `loc.file` then). */
    callLine: number;
    callCol: number;
    macroLoc: Loc;
    /** The body line's 0-based index in the text parsed (an index into Program.lines). */
    macroIndex: number;
    depth: number;
  };
  /**
   * For a `.rept` / `.irp` / `.irpc` block written in the file (a 'macroCall' statement on its
   * first line): the 0-based line index of its `.endr`. An edit that writes the expansion out
   * in place of the block replaces the lines up to it.
   */
  blockEnd?: number;
}

/** One physical source line, kept byte-exact so that printing is lossless. */
export interface SourceLine {
  /** The line's text without its terminator. */
  text: string;
  /** The terminator as found: "\n", "\r\n", or "" for a last line without one. */
  eol: string;
}

export interface AmdhsaDescriptor {
  name: string;
  /** All .amdhsa_* values by directive name without the prefix (next_free_vgpr -> 132). */
  values: Record<string, number>;
  loc: Loc;
  /** Every .amdhsa_* directive in the order written (lower-case, with the prefix), and where. */
  directives?: { name: string; loc: Loc }[];
  /** The .end_amdhsa_kernel line (absent when the descriptor is not closed). */
  end?: Loc;
}

export interface KernelSymbol {
  name: string;
  /** 'kernel' when an .amdhsa_kernel descriptor names it, 'function' otherwise. */
  kind: 'kernel' | 'function';
  /** Statement index of its label. */
  start: number;
  /** Statement index one past its last statement. */
  end: number;
  descriptor?: AmdhsaDescriptor;
  /** What its `.amdgpu_metadata` entry says of its launch (metadata.ts). */
  launchBounds?: LaunchBounds;
  loc: Loc;
}

export interface Diagnostic {
  severity: 'error' | 'warning' | 'note';
  message: string;
  loc: Loc;
  rule?: string;
  /** Where the rule comes from (the LLVM check, the ISA section), when it is not the parser's own. */
  source?: string;
  /** Notes at other places (the macro body line an expanded instruction came from: program.ts expansionNote). */
  related?: (Note & { loc: Loc })[];
}

export interface Program {
  file: string;
  lines: SourceLine[];
  /** Where each line starts in the text parsed, without building `lines` (source.ts LineIndex). */
  readonly lineIndex: LineIndex;
  /** The expanded statement stream (macros expanded, .set evaluated in file order). */
  statements: Statement[];
  /** The instructions of `statements`, in order. */
  instructions: Instruction[];
  kernels: KernelSymbol[];
  /** The target named by `.amdgcn_target`, if any (gfx942), and where. */
  declaredTarget?: { name: string; features: string; loc: Loc };
  /** Symbols defined by .set / = (final values). */
  symbols: Map<string, number>;
  /** Macro definitions by name. */
  macros: Map<string, MacroDef>;
  /** Number of raw data words (.long/.byte/...) in code sections. */
  rawWords: number;
  diagnostics: Diagnostic[];
}

export interface MacroParam {
  name: string;
  required: boolean;
  vararg: boolean;
  defaultValue?: string;
}

export interface MacroDef {
  name: string;
  params: MacroParam[];
  /** Body lines (raw text) and their 0-based source line indexes. */
  body: { text: string; lineIndex: number }[];
  loc: Loc;
}
