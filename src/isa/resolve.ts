/**
 * Resolve parsed instructions against a target: find the catalogue entry, check that the
 * instruction exists on the target and that its operands fit, and list every register unit it
 * reads and writes (explicit operands as written, plus implicit registers).
 *
 * Errors: `resolveInstruction` throws a ConductorError (clang-style message, with the
 * instruction's location) for an instruction it cannot read. `resolveProgram` never throws for
 * bad instructions: it returns one ResolvedInsn per program instruction (a conservative
 * placeholder marked `unknown` for the ones that failed) plus an error Diagnostic (rule 'isa')
 * for each failure, so a caller can report them all and must refuse to write output while any
 * error diagnostic exists.
 *
 * Operand-legality violations (legality.ts: operands llvm-mc refuses to combine, although every
 * one of them is readable) do not stop resolution: the instruction resolves normally and each
 * violation is a Diagnostic with its own rule id (`operand-*`) and source. Callers choose whether
 * they refuse such a program (scheduling, fixing) or report it (check).
 *
 * Hot path: the catalogue lookup is one Map access; no regular expression runs per instruction.
 */
import { issue, legalityIssues, type LegalityIssue } from './legality.js';
import type { Diagnostic, Instruction, Modifier, Operand, Program, RegOperand } from '../asm/ast.js';
import { ConductorError } from '../errors.js';
import type { Target } from './target.js';
import { lookupInsn } from './catalogue.js';
import { applyKernelEffects } from './kernel-effects.js';
import { f8f6f4Units, mfmaKindOn, mfmaPasses, parseMfma } from './mfma.js';
import type { MfmaShape } from './mfma.js';
import { M0 } from '../asm/registers.js';
import type { RegUnit } from '../asm/registers.js';
import type {
  InsnDesc, InsnInfo, MemDesc, OpSpec, ResolvedInsn, ResolvedOperand,
} from './types.js';
import { SUFFIX } from './types.js';

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

const SUFFIX_BITS: Record<string, number> = { e32: SUFFIX.e32, e64: SUFFIX.e64, sdwa: SUFFIX.sdwa, dpp: SUFFIX.dpp };

function fail(insn: Instruction, message: string): never {
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

/**
 * Per-target memo: availability of each descriptor (null when available) and the shared InsnInfo
 * objects per descriptor and form (variant and modifiers).
 */
interface TargetMemo {
  avail: Map<InsnDesc, string | null>;
  infos: Map<InsnDesc, Map<string, InsnInfo>>;
}
const memos = new WeakMap<Target, TargetMemo>();
let lastTarget: Target | undefined;
let lastMemo: TargetMemo | undefined;

function memoFor(target: Target): TargetMemo {
  if (target === lastTarget) return lastMemo!;
  let m = memos.get(target);
  if (!m) { m = { avail: new Map(), infos: new Map() }; memos.set(target, m); }
  lastTarget = target;
  lastMemo = m;
  return m;
}

function infoFor(memo: TargetMemo, desc: InsnDesc, key: string, build: () => InsnInfo): InsnInfo {
  let m = memo.infos.get(desc);
  if (!m) { m = new Map(); memo.infos.set(desc, m); }
  let info = m.get(key);
  if (!info) { info = Object.freeze(build()); m.set(key, info); }
  return info;
}

/* ------------------------------------------------------------------------------------------ */
/* Availability                                                                                */
/* ------------------------------------------------------------------------------------------ */

/** Why the instruction is not available on the target, or undefined when it is. */
export function unavailableReason(desc: InsnDesc, target: Target): string | undefined {
  if (desc.never !== undefined) return desc.never;
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

/**
 * Check a register against the target's register files: a register the target does not have is
 * unreadable (thrown); a misaligned tuple is an operand-legality issue (pushed to `found`).
 */
function checkRegister(insn: Instruction, r: RegOperand, target: Target, found: LegalityIssue[]): void {
  const regs = target.registers;
  const misaligned = (what: string) => {
    found.push(issue('operand-alignment', `invalid register alignment: ${r.text} must start at ${what} ('${insn.mnemonic}')`));
  };
  if (r.file === 'v') {
    const max = regs.maxVgprs.value;
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has v0..v${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && (r.index & 1) && target.has('gfx90a-insts')) misaligned(`an even register on ${target.name}`);
  } else if (r.file === 'a') {
    const max = regs.maxAgprs.value;
    if (max === 0) fail(insn, `register ${r.text} does not exist: ${target.name} has no AGPRs ('${insn.mnemonic}')`);
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has a0..a${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && (r.index & 1) && target.has('gfx90a-insts')) misaligned(`an even register on ${target.name}`);
  } else if (r.file === 's') {
    const max = regs.maxSgprs.value;
    if (r.index + r.count > max) fail(insn, `register ${r.text} is out of range: ${target.name} has s0..s${max - 1} ('${insn.mnemonic}')`);
    if (r.count > 1 && r.index % (r.count >= 4 ? 4 : 2) !== 0) misaligned(`a multiple of ${r.count >= 4 ? 4 : 2}`);
  } else if (r.file === 'ttmp') {
    if (r.count > 1 && (r.index % (r.count >= 4 ? 4 : 2)) !== 0) misaligned(`a multiple of ${r.count >= 4 ? 4 : 2}`);
  }
}

function checkOperand(insn: Instruction, spec: OpSpec, o: Operand, width: number, target: Target, found: LegalityIssue[]): void {
  if (!kindAccepts(spec, o)) {
    const what = o.kind === 'reg' ? fileName(o) : o.kind === 'off' ? "'off'" : `'${o.text}'`;
    fail(insn, `invalid operand for instruction: '${insn.mnemonic}' does not take ${what} as ${spec.role} ('${o.text}')`);
  }
  if (o.kind !== 'reg') return;
  checkRegister(insn, o, target, found);
  if (width > 0 && o.count !== width && (o.file !== 'special' || o.count > 1 || width > 1)) {
    fail(insn, `invalid operand for instruction: ${spec.role} of '${insn.mnemonic}' is ${width} register${width > 1 ? 's' : ''} wide, '${o.text}' is ${o.count}`);
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Resolution                                                                                  */
/* ------------------------------------------------------------------------------------------ */

function pushUnits(out: RegUnit[], first: RegUnit, count: number): void {
  for (let u = first; u < first + count; u++) if (!out.includes(u)) out.push(u);
}

/** a ∪ b as a list (a's order first); returns a or b itself when the other adds nothing. */
function merge(a: readonly RegUnit[], b: readonly RegUnit[]): readonly RegUnit[] {
  if (a.length === 0) return b;
  let out: RegUnit[] | undefined;
  for (let i = 0; i < b.length; i++) {
    const u = b[i]!;
    if (a.includes(u) || (out !== undefined && out.includes(u))) continue;
    if (!out) out = a.slice();
    out.push(u);
  }
  return out ?? a;
}

/*
 * Interning. Unrolled kernels repeat the same register sets and operand shapes thousands of
 * times; sharing frozen lists and records keeps a resolved 40k-instruction program small (a
 * few MB) and cheap to allocate. The tables are bounded: they are cleared when they grow large.
 */
const INTERN_LIMIT = 1 << 20;
const ROLE_IDS: Record<string, number> = Object.create(null) as Record<string, number>;
let roleCount = 0;
const operandRecords = new Map<number, ResolvedOperand>();
/** Key of the record operandRecord returned last (saves a lookup per operand). */
let lastRecordKey = 0;
const unitSets = new Map<number, (readonly RegUnit[])[]>();
const operandLists = new Map<number, (readonly ResolvedOperand[])[]>();

function hashStep(h: number, x: number): number {
  return Math.imul(h ^ x, 0x9e3779b1) ^ (h >>> 15);
}

/**
 * The shared frozen copy of a list whose elements compare by identity, from the bucket of its
 * hash in `table` (cleared when it grows past INTERN_LIMIT).
 */
function internList<T>(table: Map<number, (readonly T[])[]>, a: readonly T[], h: number): readonly T[] {
  let bucket = table.get(h);
  if (bucket) {
    outer: for (const c of bucket) {
      if (c.length !== a.length) continue;
      for (let i = 0; i < a.length; i++) if (c[i] !== a[i]) continue outer;
      return c;
    }
  } else {
    if (table.size > INTERN_LIMIT) table.clear();
    bucket = [];
    table.set(h, bucket);
  }
  const frozen = Object.isFrozen(a) ? a : Object.freeze(a.slice());
  bucket.push(frozen);
  return frozen;
}

/** The shared frozen copy of a unit list. */
function internUnits(a: readonly RegUnit[]): readonly RegUnit[] {
  if (a.length === 0) return EMPTY;
  let h = a.length;
  for (let i = 0; i < a.length; i++) h = hashStep(h, a[i]!);
  return internList(unitSets, a, h);
}

/** Scratch list reused by every call (interned lists are copies). */
const scratchOps: ResolvedOperand[] = [];

/** The shared frozen copy of an operand-record list (records are interned, compared by identity). */
function internOperands(a: ResolvedOperand[], h: number): readonly ResolvedOperand[] {
  return internList(operandLists, a, h);
}

const unions = new Map<readonly RegUnit[], Map<readonly RegUnit[], readonly RegUnit[]>>();

/** internUnits(merge(a, b)) for interned a and b, memoised on the pair. */
function union(a: readonly RegUnit[], b: readonly RegUnit[]): readonly RegUnit[] {
  let m = unions.get(a);
  if (!m) {
    if (unions.size > INTERN_LIMIT) unions.clear();
    m = new Map();
    unions.set(a, m);
  }
  let r = m.get(b);
  if (!r) { r = internUnits(merge(a, b)); m.set(b, r); }
  return r;
}

/** Interned ResolvedOperand (same position, role, access and registers -> same object). */
function operandRecord(index: number, role: ResolvedOperand['role'], def: boolean, use: boolean, units: readonly RegUnit[], o: Operand): ResolvedOperand {
  let r = ROLE_IDS[role];
  if (r === undefined) { r = roleCount++; ROLE_IDS[role] = r; }
  const regKey = o.kind === 'reg' ? o.first * 64 + o.count : 0;
  const key = ((regKey * 64 + r) * 16 + index) * 4 + (def ? 2 : 0) + (use ? 1 : 0);
  let rec = operandRecords.get(key);
  if (!rec) {
    if (operandRecords.size > INTERN_LIMIT) operandRecords.clear();
    rec = Object.freeze({ index, role, def, use, units });
    operandRecords.set(key, rec);
  }
  lastRecordKey = key;
  return rec;
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
    a = internUnits(arr);
    unitLists.set(key, a);
  }
  return a;
}

function countText(min: number, max: number): string {
  return min === max ? `${max} operand${max === 1 ? '' : 's'}` : `${min} to ${max} operands`;
}

/** Scratch list of the legality issues of the instruction being resolved (copied out when not empty). */
const scratchIssues: LegalityIssue[] = [];

/**
 * Resolve one instruction. Throws ConductorError for an unknown mnemonic, an encoding suffix the
 * instruction lacks, an instruction the target does not have, a wrong operand count, an operand
 * of the wrong kind or width, and a register the target does not have. Operand-legality issues
 * are appended to `issues` when it is given (the instruction still resolves); without it, the
 * first legality error is thrown like the others.
 */
export function resolveInstruction(insn: Instruction, target: Target, issues?: LegalityIssue[]): ResolvedInsn {
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
  const memo = memoFor(target);
  let why = memo.avail.get(desc);
  if (why === undefined) { why = unavailableReason(desc, target) ?? null; memo.avail.set(desc, why); }
  if (why !== null) fail(insn, `'${insn.mnemonic}' is not available on ${target.name} (${why})`);

  const mods = insn.modifiers;
  const operands = insn.operands;
  let specs = desc.ops;
  let mem: MemDesc | undefined = desc.mem;
  let extraUses: RegUnit[] | undefined;
  let infoKey = variant ?? '';
  let passesCbsz = 0;
  let passesBlgp = 0;
  let dstAlsoRead = false;
  /** Atomic cmpswap with return into its data operand: only the first `retUnits` are written. */
  let retUnits = 0;

  // --- forms that depend on modifiers --------------------------------------------------------
  if (mem) {
    if (mem.op === 'atomic' && (hasMod(mods, 'glc') || hasMod(mods, 'sc0'))) {
      // atomic with return: FLAT/GLOBAL gain a vdst; MUBUF/SMEM return into the data operand
      if (!target.has('atomic-fadd-rtn') && /^(buffer|global)_atomic_(add_f32|pk_add_f16|pk_add_bf16)$/.test(desc.name)) {
        fail(insn, `'${insn.mnemonic}' with a return value is not available on ${target.name} (needs atomic-fadd-rtn)`);
      }
      const n = mem.dwords;
      const ret = desc.name.includes('cmpswap') ? n / 2 : n;
      mem = { ...mem, op: 'atomic-rtn' };
      infoKey += '+rtn';
      if (desc.encoding === 'flat' || desc.encoding === 'global') {
        specs = [{ role: 'vdst', access: 'd', kind: 'va', width: ret }, ...specs];
      } else {
        // MUBUF / SMEM: the old value comes back in the data operand (cmpswap: its first half)
        const first = specs[0]!;
        specs = [{ ...first, access: 'du' }, ...specs.slice(1)];
        if (ret !== first.width) retUnits = ret;
      }
    } else if (hasMod(mods, 'lds') && mem.op === 'load' && desc.encoding !== 'ds') {
      // LDS-DMA spelled as a load with the lds modifier: no data register, LDS address in M0
      mem = { ...mem, op: 'load-lds' };
      specs = specs.slice(1);
      extraUses = [M0];
      infoKey += '+lds';
    } else if (desc.encoding === 'ds' && hasMod(mods, 'gds')) {
      if (mem.space !== 'gws' && !target.has('gds')) fail(insn, `'${insn.mnemonic}': the gds modifier is not available on ${target.name} (needs gds)`);
      if (mem.space !== 'gws') mem = { ...mem, space: 'gds' };
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
  const found = scratchIssues;
  found.length = 0;
  legalityIssues(insn, desc, variant, specs, target, found);
  // SMEM: `offset:` is the immediate added to an SGPR offset operand (s_load_dword s5, s[8:9], s2 offset:0x10);
  // without an SGPR offset it is not a valid operand (llvm-mc 22 -mcpu=gfx90a rejects `s_load_dword s5, s[8:9] offset:0x10`).
  if (desc.encoding === 'smem' && hasMod(mods, 'offset')) {
    const last = operands.length === max ? operands[max - 1] : undefined;
    if (!last || last.kind !== 'reg') {
      found.push(issue('operand-address', `not a valid operand: '${insn.mnemonic}' accepts offset: only after an SGPR offset operand (write the immediate offset as an operand)`));
    }
  }
  // MUBUF with both: `idxen offen` is the only order llvm-mc 22 takes (`offen idxen` is refused).
  if ((desc.encoding === 'mubuf' || desc.encoding === 'mtbuf') && hasMod(mods, 'offen') && hasMod(mods, 'idxen')
    && mods.findIndex((m) => m.name === 'offen') < mods.findIndex((m) => m.name === 'idxen')) {
    found.push(issue('operand-address', `invalid operand for instruction: '${insn.mnemonic}' writes offen before idxen (the order is idxen offen)`));
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
  } else if (desc.valu && desc.encoding !== 'vop3p' && desc.ops[0]?.role === 'vdst') {
    // VOP3 op_sel with the destination bit set writes the high half and keeps the low half
    // (GFX9 16-bit results): the destination is also read. LLVM's MIR models a full write.
    const sel = modOf(mods, 'op_sel');
    const srcs = desc.ops.length - 1;
    if (sel?.list && sel.list.length === srcs + 1 && sel.list[srcs] === 1) dstAlsoRead = true;
  }

  // --- walk operands -------------------------------------------------------------------------
  // Unit lists, operand records and record lists are interned (see above): in the common case
  // resolving an instruction allocates nothing but its result object.
  const nOps = operands.length;
  const rops = scratchOps;
  rops.length = nOps;
  let opsHash = nOps;
  let explicitDefs: readonly RegUnit[] = EMPTY;
  let explicitUses: readonly RegUnit[] = EMPTY;
  let defsMerged = false;
  let usesMerged = false;
  for (let i = 0; i < nOps; i++) {
    const o = operands[i]!;
    const spec = specs[i]!;
    let width = spec.width;
    if (spec.kind === 'vaddr') {
      width = vaddrWidth(desc, mods, operands);
      if (o.kind === 'off' && width > 0 && (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf' || desc.encoding === 'global')) {
        fail(insn, `invalid operand for instruction: '${insn.mnemonic}' needs a VGPR address here, not 'off'`);
      }
      if (o.kind === 'reg' && width === 0 && (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf')) {
        fail(insn, `invalid operand for instruction: '${insn.mnemonic}' has an address VGPR '${o.text}' but neither offen nor idxen`);
      }
    }
    checkOperand(insn, spec, o, width, target, found);
    let def = spec.access !== 'u';
    let use = spec.access !== 'd';
    if (i === 0 && def && dstAlsoRead) use = true;
    const units = unitsOf(o);
    if (units.length) {
      if (def) {
        const d = i === 0 && retUnits > 0 ? internUnits(units.slice(0, retUnits)) : units;
        if (explicitDefs.length === 0) explicitDefs = d;
        else { explicitDefs = merge(explicitDefs, d); defsMerged = true; }
      }
      if (use) {
        if (explicitUses.length === 0) explicitUses = units;
        else { explicitUses = merge(explicitUses, units); usesMerged = true; }
      }
    } else {
      def = false;
      use = false;
    }
    const rec = operandRecord(i, spec.role, def, use, units, o);
    rops[i] = rec;
    opsHash = hashStep(opsHash, lastRecordKey);
  }
  if (defsMerged) explicitDefs = internUnits(explicitDefs);
  if (usesMerged) explicitUses = internUnits(explicitUses);
  const ropsShared = internOperands(rops, opsHash);

  // --- implicit registers --------------------------------------------------------------------
  let implicitUses = desc.implicitUses;
  if (extraUses) implicitUses = internUnits(merge(implicitUses, extraUses));
  const implicitDefs = desc.implicitDefs;

  const defs = implicitDefs.length ? union(explicitDefs, implicitDefs) : explicitDefs;
  const uses = implicitUses.length ? union(explicitUses, implicitUses) : explicitUses;

  // --- info ---------------------------------------------------------------------------------
  const info = infoFor(memo, desc, infoKey, () => {
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

  if (found.length > 0) {
    if (issues) issues.push(...found);
    else {
      const e = found.find((f) => f.severity === 'error');
      if (e) fail(insn, e.message);
    }
  }
  return {
    insn, info, operands: ropsShared, defs, uses, explicitDefs, explicitUses,
    implicitDefs, implicitUses,
  };
}

/** Width of a buffer/global/scratch address operand as written with its modifiers. */
function vaddrWidth(desc: InsnDesc, mods: readonly Modifier[], operands: readonly Operand[]): number {
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
      return 0;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Programs                                                                                    */
/* ------------------------------------------------------------------------------------------ */

export interface ResolvedProgram {
  /** One entry per program.instructions[i]; failed ones are placeholders with `unknown: true`. */
  insns: ResolvedInsn[];
  /**
   * One error per instruction that could not be resolved (rule 'isa'), and one diagnostic per
   * operand-legality violation (rule 'operand-*', error or warning; the instruction resolved).
   */
  diagnostics: Diagnostic[];
}

/** True for the diagnostics of operand legality (the instruction is readable and resolved). */
export function isOperandLegality(d: Diagnostic): boolean {
  return d.rule !== undefined && d.rule.startsWith('operand-');
}

/**
 * Resolve every instruction of a program. Instructions that fail get a conservative placeholder
 * (class 'other', every register operand both read and written, marked `unknown`) and an error
 * diagnostic; nothing is thrown for them. Legality violations become diagnostics with their
 * rule. Then, per kernel, the effects that depend on the
 * kernel around an instruction (kernel-effects.ts): on a unified VGPR/AGPR file the VGPRs at or
 * above accum_offset become the AGPR units they are, and inside the VGPR indexing mode the
 * indexed operands reach the registers the index may select.
 */
export function resolveProgram(program: Program, target: Target): ResolvedProgram {
  const insns: ResolvedInsn[] = new Array(program.instructions.length);
  const diagnostics: Diagnostic[] = [];
  const issues: LegalityIssue[] = [];
  for (let i = 0; i < program.instructions.length; i++) {
    const insn = program.instructions[i]!;
    try {
      insns[i] = resolveInstruction(insn, target, issues);
      if (issues.length > 0) {
        for (const f of issues) diagnostics.push({ severity: f.severity, message: f.message, loc: insn.loc, rule: f.rule, source: f.source });
        issues.length = 0;
      }
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      diagnostics.push({ severity: 'error', message: e.message, loc: e.loc ?? insn.loc, rule: 'isa' });
      insns[i] = placeholder(insn);
    }
  }
  let first = 0;
  for (const kernel of program.kernels) {
    while (first < insns.length && program.instructions[first]!.stmt < kernel.start) first++;
    let end = first;
    while (end < insns.length && program.instructions[end]!.stmt < kernel.end) end++;
    if (end > first) diagnostics.push(...applyKernelEffects(program, kernel, target, insns, first, end - first).diagnostics);
    first = end;
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
