/**
 * Resolve parsed instructions against a target: find the catalogue entry, check that the
 * instruction exists on the target and that its operands fit, and list every register unit it
 * reads and writes (explicit operands as written, plus implicit registers).
 *
 * Errors: `resolveInstruction` throws a ConductorError (clang-style message, with the
 * instruction's location). `resolveProgram` never throws for bad instructions: it returns one
 * ResolvedInsn per program instruction (a conservative placeholder marked `unknown` for the ones
 * that failed) plus an error Diagnostic for each failure, so a caller can report them all and
 * must refuse to write output while any error diagnostic exists.
 *
 * Hot path: the catalogue lookup is one Map access; no regular expression runs per instruction.
 */
import type { Diagnostic, Instruction, Modifier, Operand, Program, RegOperand } from '../asm/ast.js';
import { ConductorError } from '../errors.js';
import type { Target } from '../targets/types.js';
import { lookupInsn } from './catalogue.js';
import { f8f6f4Units, mfmaKindOn, mfmaPasses, parseMfma } from './mfma.js';
import type { MfmaShape } from './mfma.js';
import { AGPR_BASE, M0, TTMP_BASE, VGPR_BASE, rangeName } from './registers.js';
import type { RegUnit } from './registers.js';
import type {
  InsnDesc, InsnInfo, MemDesc, OpSpec, ResolvedInsn, ResolvedOperand,
} from './types.js';
import { SUFFIX_DPP, SUFFIX_E32, SUFFIX_E64, SUFFIX_SDWA } from './types.js';

const EMPTY: readonly RegUnit[] = Object.freeze([]);

function hasMod(mods: readonly Modifier[], name: string): boolean {
  for (let i = 0; i < mods.length; i++) if (mods[i]!.name === name) return true;
  return false;
}

function modOf(mods: readonly Modifier[], name: string): Modifier | undefined {
  for (let i = 0; i < mods.length; i++) if (mods[i]!.name === name) return mods[i];
  return undefined;
}

function modNum(mods: readonly Modifier[], name: string, dflt: number): number {
  const m = modOf(mods, name);
  return m?.num ?? dflt;
}

const SUFFIX_BITS: Record<string, number> = { e32: SUFFIX_E32, e64: SUFFIX_E64, sdwa: SUFFIX_SDWA, dpp: SUFFIX_DPP };

function fail(insn: Instruction, message: string, operand?: Operand): never {
  void operand;
  throw new ConductorError(message, insn.loc);
}

/* ------------------------------------------------------------------------------------------ */
/* Per-descriptor caches                                                                       */
/* ------------------------------------------------------------------------------------------ */

const mfmaShapes = new Map<string, MfmaShape | undefined>();
function shapeOf(desc: InsnDesc): MfmaShape | undefined {
  let s = mfmaShapes.get(desc.name);
  if (s === undefined && !mfmaShapes.has(desc.name)) {
    s = parseMfma(desc.name);
    mfmaShapes.set(desc.name, s);
  }
  return s;
}

/** InsnInfo objects are shared: per target, per descriptor, per form (variant and modifiers). */
const infoCache = new WeakMap<Target, Map<InsnDesc, Map<string, InsnInfo>>>();

function infoFor(desc: InsnDesc, target: Target, key: string, build: () => InsnInfo): InsnInfo {
  let t = infoCache.get(target);
  if (!t) { t = new Map(); infoCache.set(target, t); }
  let m = t.get(desc);
  if (!m) { m = new Map(); t.set(desc, m); }
  let info = m.get(key);
  if (!info) { info = Object.freeze(build()); m.set(key, info); }
  return info;
}

/* ------------------------------------------------------------------------------------------ */
/* Availability                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Why the instruction is not available on the target, or undefined when it is. */
export function unavailableReason(desc: InsnDesc, target: Target): string | undefined {
  for (const f of desc.requires) if (!target.has(f)) return `needs ${f}`;
  for (const f of desc.removedBy) if (target.has(f)) return `removed with ${f}`;
  return undefined;
}

/* ------------------------------------------------------------------------------------------ */
/* Operand checks                                                                              */
/* ------------------------------------------------------------------------------------------ */

function fileName(r: RegOperand): string {
  switch (r.file) {
    case 'v': return 'a VGPR';
    case 'a': return 'an AGPR';
    case 's': return 'an SGPR';
    case 'ttmp': return 'a trap temporary';
    default: return `'${r.text}'`;
  }
}

function kindAccepts(spec: OpSpec, o: Operand): boolean {
  switch (spec.kind) {
    case 'any': return true;
    case 'v': return o.kind === 'reg' && o.file === 'v';
    case 'a': return o.kind === 'reg' && o.file === 'a';
    case 'va': return o.kind === 'reg' && (o.file === 'v' || o.file === 'a');
    case 's': return o.kind === 'reg' && (o.file === 's' || o.file === 'special' || o.file === 'ttmp');
    case 'src': return o.kind !== 'off' && o.kind !== 'waitcnt' && o.kind !== 'func';
    case 'ssrc': return o.kind !== 'off' && o.kind !== 'waitcnt' && o.kind !== 'func' && !(o.kind === 'reg' && (o.file === 'v' || o.file === 'a'));
    case 'vaddr': return o.kind === 'off' || (o.kind === 'reg' && o.file === 'v');
    case 'saddr': return o.kind === 'off' || (o.kind === 'reg' && (o.file === 's' || o.file === 'special' || o.file === 'ttmp'));
    case 'imm': return o.kind === 'imm' || o.kind === 'expr';
    case 'label': return o.kind === 'expr' || o.kind === 'imm';
    case 'func': return o.kind === 'func' || o.kind === 'imm' || o.kind === 'expr';
  }
}

/** Check a register against the target's register files (range, AGPR presence, alignment). */
function checkRegister(insn: Instruction, r: RegOperand, target: Target): void {
  const regs = target.registers;
  if (r.file === 'v') {
    const max = regs.maxVgprs.value;
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has v0..v${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && (r.index & 1) && target.has('gfx90a-insts')) {
      fail(insn, `invalid register alignment: ${r.text} must start at an even register on ${target.name} ('${insn.mnemonic}')`);
    }
  } else if (r.file === 'a') {
    const max = regs.maxAgprs.value;
    if (max === 0) fail(insn, `register ${r.text} does not exist: ${target.name} has no AGPRs ('${insn.mnemonic}')`);
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has a0..a${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && (r.index & 1) && target.has('gfx90a-insts')) {
      fail(insn, `invalid register alignment: ${r.text} must start at an even register on ${target.name} ('${insn.mnemonic}')`);
    }
  } else if (r.file === 's') {
    const max = regs.maxSgprs.value;
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has s0..s${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && r.index % (r.count >= 4 ? 4 : 2) !== 0) {
      fail(insn, `invalid register alignment: ${r.text} must start at a multiple of ${r.count >= 4 ? 4 : 2} ('${insn.mnemonic}')`);
    }
  } else if (r.file === 'ttmp') {
    if (r.count > 1 && (r.index % (r.count >= 4 ? 4 : 2)) !== 0) {
      fail(insn, `invalid register alignment: ${r.text} must start at a multiple of ${r.count >= 4 ? 4 : 2} ('${insn.mnemonic}')`);
    }
  }
}

function checkOperand(insn: Instruction, spec: OpSpec, o: Operand, width: number, target: Target): void {
  if (!kindAccepts(spec, o)) {
    const what = o.kind === 'reg' ? fileName(o) : o.kind === 'off' ? "'off'" : `'${o.text}'`;
    fail(insn, `invalid operand for instruction: '${insn.mnemonic}' does not take ${what} as ${spec.role} ('${o.text}')`, o);
  }
  if (o.kind !== 'reg') return;
  checkRegister(insn, o, target);
  if (width > 0 && o.count !== width && (o.file !== 'special' || o.count > 1 || width > 1)) {
    fail(insn, `invalid operand for instruction: ${spec.role} of '${insn.mnemonic}' is ${width} register${width > 1 ? 's' : ''} wide, '${o.text}' is ${o.count}`, o);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Resolution                                                                                  */
/* ------------------------------------------------------------------------------------------ */

function pushUnits(out: RegUnit[], first: RegUnit, count: number): void {
  for (let u = first; u < first + count; u++) if (!out.includes(u)) out.push(u);
}

function pushAll(out: RegUnit[], src: readonly RegUnit[]): void {
  for (let i = 0; i < src.length; i++) if (!out.includes(src[i]!)) out.push(src[i]!);
}

/** Frozen unit lists shared by every operand naming the same registers. */
const unitLists = new Map<number, readonly RegUnit[]>();

function unitsOf(o: Operand): readonly RegUnit[] {
  if (o.kind !== 'reg') return EMPTY;
  const key = o.first * 64 + o.count;
  let a = unitLists.get(key);
  if (!a) {
    const arr: RegUnit[] = new Array(o.count);
    for (let i = 0; i < o.count; i++) arr[i] = o.first + i;
    a = Object.freeze(arr);
    unitLists.set(key, a);
  }
  return a;
}

function countText(min: number, max: number): string {
  return min === max ? `${max} operand${max === 1 ? '' : 's'}` : `${min} to ${max} operands`;
}

/**
 * Resolve one instruction. Throws ConductorError for an unknown mnemonic, an encoding suffix the
 * instruction lacks, an instruction the target does not have, a wrong operand count, an operand
 * of the wrong kind or width, and a register the target does not have.
 */
export function resolveInstruction(insn: Instruction, target: Target): ResolvedInsn {
  let desc = lookupInsn(insn.base);
  let suffix = insn.suffix;
  if (!desc && suffix) { desc = lookupInsn(insn.mnemonic); suffix = undefined; }
  if (!desc) fail(insn, `unknown instruction '${insn.mnemonic}'`);

  // encoding suffix
  let variant: InsnInfo['variant'];
  if (suffix) {
    if (suffix === 'e64_dpp' || !(desc.suffixes & SUFFIX_BITS[suffix]!)) {
      fail(insn, `'${insn.mnemonic}': ${desc.name} has no ${suffix} encoding`);
    }
    variant = suffix as InsnInfo['variant'];
  } else if (desc.suffixes) {
    variant = 'e32';
  }

  // availability
  const why = unavailableReason(desc, target);
  if (why !== undefined) fail(insn, `'${insn.mnemonic}' is not available on ${target.name} (${why})`);

  const mods = insn.modifiers;
  const operands = insn.operands;
  let specs = desc.ops;
  let mem: MemDesc | undefined = desc.mem;
  let extraUses: RegUnit[] | undefined;
  let infoKey = variant ?? '';
  let passesCbsz = 0;
  let passesBlgp = 0;
  let dstAlsoRead = false;

  // --- forms that depend on modifiers --------------------------------------------------------
  if (mem) {
    if (mem.op === 'atomic' && (hasMod(mods, 'glc') || hasMod(mods, 'sc0'))) {
      // atomic with return: FLAT/GLOBAL gain a vdst; MUBUF/SMEM return into the data operand
      const n = mem.dwords;
      const ret = desc.name.includes('cmpswap') ? n / 2 : n;
      mem = { ...mem, op: 'atomic-rtn' };
      infoKey += '+rtn';
      if (desc.encoding === 'flat' || desc.encoding === 'global') {
        specs = [{ role: 'vdst', access: 'd', kind: 'va', width: ret }, ...specs];
      } else {
        const first = specs[0]!;
        if (ret === first.width) specs = [{ ...first, access: 'du' }, ...specs.slice(1)];
        else specs = [{ ...first, access: 'u' }, ...specs.slice(1)];
        dstAlsoRead = ret !== first.width; // cmpswap: the first half is returned
      }
    } else if (hasMod(mods, 'lds') && mem.op === 'load' && desc.encoding !== 'ds') {
      // LDS-DMA spelled as a load with the lds modifier: no data register, LDS address in M0
      mem = { ...mem, op: 'load-lds' };
      specs = specs.slice(1);
      extraUses = [M0];
      infoKey += '+lds';
    } else if (desc.encoding === 'ds' && hasMod(mods, 'gds')) {
      mem = { ...mem, space: 'gds' };
      extraUses = [M0];
      infoKey += '+gds';
    }
  }

  const shape = desc.mfma ? shapeOf(desc) : undefined;
  if (shape && shape.type === 'f8f6f4') {
    passesCbsz = modNum(mods, 'cbsz', 0);
    passesBlgp = modNum(mods, 'blgp', 0);
    const a = f8f6f4Units(passesCbsz);
    const b = f8f6f4Units(passesBlgp);
    specs = specs.map((s) => (s.role === 'srcA' ? { ...s, width: a } : s.role === 'srcB' ? { ...s, width: b } : s));
    infoKey += `+${passesCbsz}.${passesBlgp}`;
  }

  // --- operand count -----------------------------------------------------------------------
  const max = specs.length;
  const min = desc.minOperands - (desc.ops.length - specs.length);
  if (operands.length < min || operands.length > max) {
    fail(insn, `'${insn.mnemonic}' takes ${countText(min, max)}, got ${operands.length}`);
  }

  // --- DPP / SDWA / op_sel: destination bits that are kept are read ---------------------------
  if (variant === 'dpp') {
    // Lanes whose source is disabled or out of range keep the old destination unless bound_ctrl
    // zero-fills them and all rows/banks are enabled.
    const full = modNum(mods, 'row_mask', 0xf) === 0xf && modNum(mods, 'bank_mask', 0xf) === 0xf;
    if (!(full && hasMod(mods, 'bound_ctrl'))) dstAlsoRead = true;
  } else if (variant === 'sdwa') {
    const sel = modOf(mods, 'dst_sel');
    const unused = modOf(mods, 'dst_unused');
    if (sel && sel.value !== 'DWORD' && (!unused || unused.value === 'UNUSED_PRESERVE')) dstAlsoRead = true;
  }

  // --- walk operands -------------------------------------------------------------------------
  const rops: ResolvedOperand[] = new Array(operands.length);
  const explicitDefs: RegUnit[] = [];
  const explicitUses: RegUnit[] = [];
  for (let i = 0; i < operands.length; i++) {
    const o = operands[i]!;
    const spec = specs[i]!;
    let width = spec.width;
    if (spec.kind === 'vaddr' && o.kind === 'reg') width = vaddrWidth(desc, mods, operands, i);
    checkOperand(insn, spec, o, width, target);
    let def = spec.access !== 'u';
    let use = spec.access !== 'd';
    if (i === 0 && def && dstAlsoRead) use = true;
    if (spec.kind === 'vaddr' && o.kind === 'off' && width > 0) {
      fail(insn, `invalid operand for instruction: '${insn.mnemonic}' needs a VGPR address here, not 'off'`);
    }
    const units = unitsOf(o);
    if (units.length) {
      if (def) pushAll(explicitDefs, units);
      if (use) pushAll(explicitUses, units);
    } else {
      def = false;
      use = false;
    }
    rops[i] = { index: i, role: spec.role, def, use, units };
  }
  if (shape && desc.mfma) {
    // MFMA srcC may be an inline constant; nothing else to do. SMFMAC reads vdst as C (access du).
  }

  // --- implicit registers --------------------------------------------------------------------
  let implicitUses = desc.implicitUses;
  if (extraUses) {
    const u = [...implicitUses];
    pushAll(u, extraUses);
    implicitUses = u;
  }
  const implicitDefs = desc.implicitDefs;

  let defs: readonly RegUnit[] = explicitDefs;
  if (implicitDefs.length) { const d = explicitDefs.slice(); pushAll(d, implicitDefs); defs = d; }
  let uses: readonly RegUnit[] = explicitUses;
  if (implicitUses.length) { const u = explicitUses.slice(); pushAll(u, implicitUses); uses = u; }

  // --- info ---------------------------------------------------------------------------------
  const info = infoFor(desc, target, infoKey, () => {
    let counters = desc.counters;
    let events = desc.events;
    if (mem && mem.space === 'gds' && desc.encoding === 'ds') {
      counters = { vm: 0, lgkm: 1, exp: 1 };
      events = ['gds'];
    } else if (mem && mem.op === 'atomic-rtn' && desc.cls === 'vmem') {
      events = ['vmem-load'];
    } else if (mem && mem.op === 'load-lds') {
      events = ['vmem-store'];
    }
    const i: InsnInfo = {
      desc, cls: desc.cls, encoding: desc.encoding, variant, mem, counters, events, latency: desc.latency,
    };
    if (shape) {
      const p = mfmaPasses(shape, target, passesCbsz, passesBlgp);
      i.mfma = { kind: mfmaKindOn(shape, target), passes: p.passes, source: p.source };
    }
    return i;
  });

  return {
    insn, info, operands: rops, defs, uses, explicitDefs, explicitUses,
    implicitDefs, implicitUses,
  };
}

/** Width of a buffer/global/scratch address operand as written with its modifiers. */
function vaddrWidth(desc: InsnDesc, mods: readonly Modifier[], operands: readonly Operand[], i: number): number {
  switch (desc.encoding) {
    case 'mubuf': case 'mtbuf':
      return (hasMod(mods, 'offen') ? 1 : 0) + (hasMod(mods, 'idxen') ? 1 : 0);
    case 'global': {
      const saddr = operands[operands.length - 1];
      return saddr && saddr.kind === 'off' ? 2 : 1;
    }
    case 'scratch':
      return 1;
    case 'exp':
      return 1;
    default:
      void i;
      return 0;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Programs                                                                                    */
/* ------------------------------------------------------------------------------------------ */

export interface ResolvedProgram {
  /** One entry per program.instructions[i]; failed ones are placeholders with `unknown: true`. */
  insns: ResolvedInsn[];
  /** One error per instruction that could not be resolved (rule 'isa'). */
  diagnostics: Diagnostic[];
}

/**
 * Resolve every instruction of a program. Instructions that fail get a conservative placeholder
 * (class 'other', every register operand both read and written, marked `unknown`) and an error
 * diagnostic; nothing is thrown for them.
 */
export function resolveProgram(program: Program, target: Target): ResolvedProgram {
  const insns: ResolvedInsn[] = new Array(program.instructions.length);
  const diagnostics: Diagnostic[] = [];
  for (let i = 0; i < program.instructions.length; i++) {
    const insn = program.instructions[i]!;
    try {
      insns[i] = resolveInstruction(insn, target);
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      diagnostics.push({ severity: 'error', message: e.message, loc: e.loc ?? insn.loc, rule: 'isa' });
      insns[i] = placeholder(insn);
    }
  }
  return { insns, diagnostics };
}

const PLACEHOLDER_DESC: InsnDesc = Object.freeze({
  name: '<unknown>', cls: 'other', encoding: 'sopp', ops: [], minOperands: 0, implicitDefs: [], implicitUses: [],
  counters: { vm: 0, lgkm: 0, exp: 0 }, events: [], latency: 'other', requires: [], removedBy: [], suffixes: 0,
}) as InsnDesc;

function placeholder(insn: Instruction): ResolvedInsn {
  const units: RegUnit[] = [];
  const rops: ResolvedOperand[] = insn.operands.map((o, index) => {
    const u = unitsOf(o);
    if (o.kind === 'reg') pushUnits(units, o.first, o.count);
    return { index, role: 'imm', def: u.length > 0, use: u.length > 0, units: u };
  });
  const info: InsnInfo = {
    desc: lookupInsn(insn.base) ?? PLACEHOLDER_DESC, cls: 'other', encoding: 'sopp',
    counters: { vm: 0, lgkm: 0, exp: 0 }, events: [], latency: 'other',
  };
  return {
    insn, info, operands: rops, defs: units, uses: units.slice(), explicitDefs: units, explicitUses: units.slice(),
    implicitDefs: EMPTY, implicitUses: EMPTY, unknown: true,
  };
}

/** Printable register list of a unit set (for messages). */
export function describeUnits(units: readonly RegUnit[]): string {
  return units.map((u) => rangeName(u, 1)).join(', ');
}

// Keep the register-file bases referenced for readers of this module.
void AGPR_BASE; void VGPR_BASE; void TTMP_BASE;
