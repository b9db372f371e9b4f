/**
 * A reader for the final MIR that `llc -stop-after=amdgpu-resource-usage` writes (used by the
 * oracle tests; not a test itself). It lists, per function and in order, every instruction with
 * its opcode, whether the assembly printer turns it into a line of the .s file, and its
 * register defs and uses as sets of the project's 32-bit register units (src/asm/registers.ts).
 *
 * Instruction syntax (one per line in `body:`):
 *   [explicit defs =] [MI flags] OPCODE [operand, operand, ...] [:: memory operands]
 * Explicit defs come before `=`; after the opcode come explicit uses, then `implicit-def $r`
 * and `implicit $r`. Register flags (`renamable`, `killed`, `dead`, `undef`, `internal`,
 * `early-clobber`, `debug-use`) are dropped (a `dead` explicit def is recorded in deadDefs).
 * Immediates, `%bb.N`, `@symbols`, `%stack.N`, target flags, metadata, memory operands and
 * register masks (`CustomRegMask(...)`, `csr_*`) are not registers. `$noreg` is ignored.
 *
 * Register name mapping (MIR physical register -> units):
 *   $vgprN / $agprN / $sgprN / $ttmpN  -> 256+N / 768+N / N / 108+N
 *   tuples  $vgpr4_vgpr5_vgpr6_vgpr7   -> each component's unit
 *   16-bit halves  $vgprN_lo16, $vgprN_hi16, $sgprN_lo16, $agprN_hi16, $m0_lo16, $vcc_lo_lo16 ...
 *                                      -> the whole 32-bit unit that holds the half
 *   $vcc = vcc_lo+vcc_hi (106,107), $vcc_lo 106, $vcc_hi 107
 *   $exec = 126,127, $exec_lo 126, $exec_hi 127, $m0 124, $scc 128, $mode 129
 *   $flat_scr = 102,103 ($flat_scr_lo 102, $flat_scr_hi 103)
 *   $xnack_mask = 104,105 ($xnack_mask_lo 104, $xnack_mask_hi 105)
 *   no unit: $sgpr_null / $sgpr_null64 (reads as zero, writes are dropped), and the read-only
 *     constant sources $src_shared_base/_limit, $src_private_base/_limit,
 *     $src_pops_exiting_wave_id, $src_vccz, $src_execz, $src_scc, $lds_direct (as in
 *     CONSTANT_SOURCES of registers.ts), and the 32-bit halves $src_*_lo / $src_*_hi.
 *   Any other name throws, so a new kind of register is noticed rather than silently dropped.
 */
import {
  AGPR_BASE, CONSTANT_SOURCES, EXEC_HI, EXEC_LO, FLAT_SCRATCH_HI, FLAT_SCRATCH_LO, M0, MODE, SCC, SGPR_BASE, TTMP_BASE, VCC_HI, VCC_LO, VGPR_BASE, XNACK_MASK_HI, XNACK_MASK_LO,
} from '../../src/asm/registers.js';

export interface MirInstr {
  /** LLVM opcode name, e.g. V_ADD_U32_e32, S_LOAD_DWORDX2_IMM, BUNDLE, KILL. */
  opcode: string;
  /** True when the assembly printer emits this instruction as a line of the .s file. */
  printed: boolean;
  explicitDefs: number[];
  explicitUses: number[];
  implicitDefs: number[];
  implicitUses: number[];
  /** Units of explicit defs marked `dead` (a subset of explicitDefs). */
  deadDefs: number[];
  /** 1-based line number in the MIR text. */
  line: number;
  /** True for instructions inside a `BUNDLE ... { ... }` (not for the BUNDLE header). */
  bundled: boolean;
}

export interface MirFunction {
  name: string;
  instrs: MirInstr[];
}

/**
 * Opcodes that the AMDGPU assembly printer does not emit as instructions (at most as a `;`
 * comment). Established against the .s files of the project's kernels (see the
 * kernels-build oracle test); the generic meta opcodes that did not occur there are listed
 * because LLVM treats them the same way.
 */
export const NON_PRINTED_OPCODES: ReadonlySet<string> = new Set([
  // seen in the kernels' MIR
  'BUNDLE', 'KILL', 'IMPLICIT_DEF', 'SCHED_BARRIER', 'SCHED_GROUP_BARRIER', 'IGLP_OPT',
  'WAVE_BARRIER',
  // generic and AMDGPU meta instructions that print nothing (or a comment)
  'CFI_INSTRUCTION', 'DBG_VALUE', 'DBG_VALUE_LIST', 'DBG_INSTR_REF', 'DBG_PHI', 'DBG_LABEL',
  'LIFETIME_START', 'LIFETIME_END', 'PSEUDO_PROBE', 'ARITH_FENCE', 'MEMBARRIER', 'FAKE_USE',
  'JUMP_TABLE_DEBUG_INFO', 'EH_LABEL', 'GC_LABEL', 'ANNOTATION_LABEL',
  'SI_MASKED_UNREACHABLE', 'ATOMIC_FENCE', 'SI_RETURN_TO_EPILOG',
]);

/** Register units of one MIR physical register name (without `$`); [] for constants. */
export function mirRegUnits(name: string): number[] {
  return [...regUnits(name)];
}

/** Cached, shared (never mutate) unit list of one register name. */
function regUnits(name: string): readonly number[] {
  const cached = unitCache.get(name);
  if (cached) return cached;
  const units = computeUnits(name);
  unitCache.set(name, units);
  return units;
}

const unitCache = new Map<string, number[]>();

const SPECIAL: Readonly<Record<string, readonly number[]>> = {
  vcc: [VCC_LO, VCC_HI], vcc_lo: [VCC_LO], vcc_hi: [VCC_HI],
  exec: [EXEC_LO, EXEC_HI], exec_lo: [EXEC_LO], exec_hi: [EXEC_HI],
  m0: [M0], scc: [SCC], mode: [MODE],
  flat_scr: [FLAT_SCRATCH_LO, FLAT_SCRATCH_HI], flat_scr_lo: [FLAT_SCRATCH_LO], flat_scr_hi: [FLAT_SCRATCH_HI],
  xnack_mask: [XNACK_MASK_LO, XNACK_MASK_HI], xnack_mask_lo: [XNACK_MASK_LO], xnack_mask_hi: [XNACK_MASK_HI],
};

/** Names that occupy no unit: the null register and read-only constant sources. */
const NO_UNIT: ReadonlySet<string> = new Set([
  'sgpr_null', 'sgpr_null64', 'sgpr_null_hi', 'lds_direct',
  'src_shared_base', 'src_shared_limit', 'src_private_base', 'src_private_limit',
  'src_pops_exiting_wave_id', 'src_vccz', 'src_execz', 'src_scc',
  ...[...CONSTANT_SOURCES].filter((n) => n.startsWith('src_')),
]);

const COMPONENT = /^(vgpr|agpr|sgpr|ttmp)(\d+)$/;

function componentUnit(file: string, n: number, name: string): number {
  switch (file) {
    case 'vgpr': if (n < 512) return VGPR_BASE + n; break;
    case 'agpr': if (n < 256) return AGPR_BASE + n; break;
    case 'sgpr': if (n < 106) return SGPR_BASE + n; break;
    case 'ttmp': if (n < 16) return TTMP_BASE + n; break;
  }
  throw new Error(`MIR register $${name}: ${file}${n} is out of range`);
}

function computeUnits(name: string): number[] {
  // 16-bit halves map to the unit that holds them.
  const half = /^(.*)_(lo16|hi16)$/.exec(name);
  if (half) return [...regUnits(half[1]!)];
  const special = SPECIAL[name];
  if (special) return [...special];
  if (NO_UNIT.has(name)) return [];
  // 32-bit halves of 64-bit constant sources ($src_shared_base_lo ...).
  const srcHalf = /^(src_\w+)_(lo|hi)$/.exec(name);
  if (srcHalf && NO_UNIT.has(srcHalf[1]!)) return [];
  const parts = name.split('_');
  const units: number[] = [];
  for (const p of parts) {
    const m = COMPONENT.exec(p);
    if (!m) throw new Error(`MIR register $${name}: unknown register name`);
    units.push(componentUnit(m[1]!, Number(m[2]), name));
  }
  return units;
}

/** Register flags that may precede a register operand. */
const REG_FLAGS: ReadonlySet<string> = new Set([
  'implicit', 'implicit-def', 'def', 'dead', 'killed', 'undef', 'internal', 'early-clobber',
  'renamable', 'debug-use',
]);

/** Splits at top-level commas (outside (), [], {}, <>, and quotes). */
function splitTopLevel(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === '"') quote = false;
      continue;
    }
    if (c === '"') quote = true;
    else if (c === '(' || c === '[' || c === '{' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '}' || c === '>') depth--;
    else if (depth === 0 && text.startsWith(sep, i)) {
      out.push(text.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Index of the first top-level occurrence of `sep`, or -1. */
function indexTopLevel(text: string, sep: string): number {
  const parts = splitTopLevel(text, sep);
  return parts.length > 1 ? parts[0]!.length : -1;
}

interface RegOperand { flags: Set<string>; units: readonly number[] }

/** Parses one operand; undefined when it is not a register. */
function parseRegOperand(op: string, line: number): RegOperand | undefined {
  const words = op.trim().split(/\s+/);
  const flags = new Set<string>();
  let i = 0;
  while (i < words.length && REG_FLAGS.has(words[i]!)) flags.add(words[i++]!);
  const w = words[i];
  if (w === undefined || !w.startsWith('$')) return undefined;
  // strip "(tied-def N)" / "(s32)"-style suffixes and a trailing subregister index
  let reg = w.slice(1).replace(/\(.*$/, '');
  if (reg === 'noreg') return undefined;
  let sub: string | undefined;
  const dot = reg.indexOf('.');
  if (dot >= 0) { sub = reg.slice(dot + 1); reg = reg.slice(0, dot); }
  let units: readonly number[];
  try {
    units = regUnits(reg);
  } catch (e) {
    throw new Error(`MIR line ${line}: ${(e as Error).message}`);
  }
  if (sub !== undefined) units = subRegUnits(units, sub, line);
  return { flags, units };
}

/** Units selected by a subregister index (sub0, sub1_sub2, lo16, hi16 ...) of a tuple. */
function subRegUnits(units: readonly number[], sub: string, line: number): number[] {
  if (sub === 'lo16' || sub === 'hi16') return units.slice(0, 1);
  const out: number[] = [];
  for (const part of sub.split('_')) {
    const m = /^sub(\d+)$/.exec(part);
    const u = m ? units[Number(m[1])] : undefined;
    if (u === undefined) throw new Error(`MIR line ${line}: unsupported subregister index .${sub}`);
    out.push(u);
  }
  return out;
}

const OPCODE = /^[A-Z][A-Za-z0-9_]*$/;

function addAll(set: Set<number>, units: readonly number[]): void { for (const u of units) set.add(u); }
function sorted(set: Set<number>): number[] { return [...set].sort((a, b) => a - b); }

/** Parses one instruction line (without leading spaces). */
function parseInstr(text: string, line: number, bundled: boolean): MirInstr {
  // memory operands are not registers
  const memAt = indexTopLevel(text, ' :: ');
  const body = memAt >= 0 ? text.slice(0, memAt) : text;
  const eq = indexTopLevel(body, ' = ');
  const explicitDefs = new Set<number>();
  const explicitUses = new Set<number>();
  const implicitDefs = new Set<number>();
  const implicitUses = new Set<number>();
  const deadDefs = new Set<number>();
  let rest = body;
  if (eq >= 0) {
    for (const op of splitTopLevel(body.slice(0, eq), ',')) {
      const r = parseRegOperand(op, line);
      if (!r) continue;
      addAll(explicitDefs, r.units);
      if (r.flags.has('dead')) addAll(deadDefs, r.units);
    }
    rest = body.slice(eq + 3);
  }
  rest = rest.trim();
  // MI flags (nuw, nsw, nofpexcept, contract, frame-setup ...) precede the opcode
  let opcode = '';
  for (;;) {
    const m = /^(\S+)\s*/.exec(rest);
    if (!m) break;
    rest = rest.slice(m[0].length);
    if (OPCODE.test(m[1]!)) { opcode = m[1]!; break; }
  }
  if (!opcode) throw new Error(`MIR line ${line}: cannot find the opcode in "${text}"`);
  if (rest.endsWith('{')) rest = rest.slice(0, -1); // BUNDLE header
  if (rest.trim().length > 0) {
    for (const op of splitTopLevel(rest, ',')) {
      const r = parseRegOperand(op, line);
      if (!r) continue;
      if (r.flags.has('implicit-def')) addAll(implicitDefs, r.units);
      else if (r.flags.has('implicit')) addAll(implicitUses, r.units);
      else if (r.flags.has('def')) {
        addAll(explicitDefs, r.units);
        if (r.flags.has('dead')) addAll(deadDefs, r.units);
      } else addAll(explicitUses, r.units);
    }
  }
  return {
    opcode,
    printed: !NON_PRINTED_OPCODES.has(opcode),
    explicitDefs: sorted(explicitDefs),
    explicitUses: sorted(explicitUses),
    implicitDefs: sorted(implicitDefs),
    implicitUses: sorted(implicitUses),
    deadDefs: sorted(deadDefs),
    line,
    bundled,
  };
}

/** Parses every function of a MIR file (YAML documents `--- ... `) in file order. */
export function parseMir(text: string): MirFunction[] {
  const lines = text.split('\n');
  const funcs: MirFunction[] = [];
  let cur: MirFunction | undefined;
  let inBody = false;
  let inBundle = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    if (raw.startsWith('---') || raw.startsWith('...')) {
      inBody = false;
      inBundle = false;
      cur = undefined;
      continue;
    }
    if (!inBody) {
      const name = /^name:\s*'?("?)([^'"\s]+)\1'?\s*$/.exec(raw);
      if (name) {
        cur = { name: name[2]!, instrs: [] };
        funcs.push(cur);
      } else if (/^body:\s*\|/.test(raw)) {
        if (!cur) throw new Error(`MIR line ${lineNo}: body without a function name`);
        inBody = true;
      }
      continue;
    }
    // inside body: a non-indented line ends the block scalar
    if (raw.length > 0 && !/^\s/.test(raw)) {
      inBody = false;
      continue;
    }
    const s = raw.trim();
    if (s.length === 0 || s.startsWith(';')) continue;
    if (/^bb\.\d+/.test(s) || s.startsWith('successors:') || s.startsWith('liveins:')) continue;
    if (s === '}') {
      inBundle = false;
      continue;
    }
    const instr = parseInstr(s, lineNo, inBundle);
    cur!.instrs.push(instr);
    if (instr.opcode === 'BUNDLE' && s.endsWith('{')) inBundle = true;
  }
  return funcs;
}

/** One instruction line of a .s function. */
export interface AsmInstrLine {
  /** The instruction text, trimmed (may carry a trailing `;` comment). */
  text: string;
  /** 1-based line number in the .s text. */
  line: number;
}

/**
 * The instruction lines of every function of an LLVM-printed .s file, keyed by function name:
 * the lines between the function label (`name:` in column 0, declared `.type name,@function`) and its `.Lfunc_endN:` label that
 * are not blank, not `;` comments, not labels and not directives. The i-th entry corresponds to
 * the i-th printed instruction of the same function in the MIR (see parseMir).
 */
export function scanAsmFunctions(text: string): Map<string, AsmInstrLine[]> {
  const out = new Map<string, AsmInstrLine[]>();
  const lines = text.split('\n');
  const functions = new Set<string>();
  let cur: AsmInstrLine[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (cur === undefined) {
      const type = /^\s*\.type\s+([^\s,]+)\s*,\s*@function/.exec(raw);
      if (type) functions.add(type[1]!);
      const label = /^([A-Za-z_$][\w.$]*):/.exec(raw);
      if (label && functions.has(label[1]!)) {
        cur = [];
        out.set(label[1]!, cur);
      }
      continue;
    }
    if (/^\.Lfunc_end\d+:/.test(raw)) {
      cur = undefined;
      continue;
    }
    const s = raw.trim();
    if (s.length === 0 || s.startsWith(';') || s.startsWith('.') || /^[\w.$]+:/.test(s)) continue;
    cur.push({ text: s, line: i + 1 });
  }
  return out;
}
