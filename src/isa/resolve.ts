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
 * The resolver reads the instruction store (asm/store.ts) and writes a ResolvedStore
 * (resolved-store.ts): numbers in typed arrays, register-unit lists interned in one pool. One
 * instruction is resolved in steps: its opcode (a memo per opcode id), availability on the
 * target, its form (the operand specs and facts that depend on modifiers: a memo per opcode
 * and form), the operand count, the legality rules, the destination bits kept by DPP / SDWA /
 * op_sel, the operands (kind, width, registers, def/use units), the implicit registers. On the
 * common path nothing is allocated but the interned lists the first time they are seen.
 */
import type { Diagnostic, Instruction, Program } from '../asm/ast.js';
import {
  FILE_A, FILE_NAMES, FILE_S, FILE_SPECIAL, FILE_TTMP, FILE_V, InsnStore, MF_LIST, MF_NUM, MF_VALUE, MODIFIER_NAMES, OPCODES,
  OPF_ABS, OPF_FLOAT, OPF_INEXACT, OPF_NEG, OPF_SEXT, OP_CONST, OP_EXPR, OP_FUNC, OP_IMM, OP_OFF, OP_REG, OP_WAITCNT, StoredInstruction,
} from '../asm/store.js';
import { expansionNote, ExpansionRepeats, inExpansions, ParsedProgram } from '../asm/program.js';
import { descriptorError } from './descriptor.js';
import { ConductorError, type Loc } from '../errors.js';
import type { Target } from './target.js';
import { lookupInsn } from './catalogue.js';
import { applyKernelEffects } from './kernel-effects.js';
import {
  isFp64, isVop3b, issue, legalityIssues, vectorRulesApply, type LegalityForm, type LegalityIssue,
} from './legality.js';
import { f8f6f4Units, mfmaKindOn, mfmaPasses, parseMfma } from './mfma.js';
import type { MfmaShape } from './mfma.js';
import { EXEC_HI, EXEC_LO, M0, SCC, VCC_HI, VCC_LO } from '../asm/registers.js';
import type { RegUnit } from '../asm/registers.js';
import { ACC_DEF, ACC_USE, ROLE_IMM, RS_ISSUES, RS_UNKNOWN, ResolvedStore, roleId } from './resolved-store.js';
import type { InsnDesc, InsnInfo, MemDesc, OpSpec, ResolvedInsn, ResolvedOperand } from './types.js';
import { SUFFIX } from './types.js';
import { DPP_CONTROLS } from './special-operands.js';
import { counted } from '../text.js';

export { ResolvedStore } from './resolved-store.js';

const SUFFIX_BITS: Record<string, number> = { e32: SUFFIX.e32, e64: SUFFIX.e64, sdwa: SUFFIX.sdwa, dpp: SUFFIX.dpp };

/** Modifier names the resolver looks at. */
const M = (n: string) => MODIFIER_NAMES.idOf(n);
const MOD_GLC = M('glc');
const MOD_SC0 = M('sc0');
const MOD_LDS = M('lds');
const MOD_GDS = M('gds');
const MOD_CBSZ = M('cbsz');
const MOD_BLGP = M('blgp');
const MOD_OFFSET = M('offset');
const MOD_OFFEN = M('offen');
const MOD_IDXEN = M('idxen');
const MOD_ROW_MASK = M('row_mask');
const MOD_BANK_MASK = M('bank_mask');
const MOD_BOUND_CTRL = M('bound_ctrl');
const MOD_DST_SEL = M('dst_sel');
const MOD_DST_UNUSED = M('dst_unused');
const MOD_OP_SEL = M('op_sel');
/**
 * Modifiers that make an instruction written without an encoding suffix its DPP or SDWA form:
 * llvm-mc reads `v_add_f32 v0, v1, v2 row_shl:1` as v_add_f32_dpp and `v_cvt_f32_f16 v0, v1
 * src0_sel:WORD_1` as v_cvt_f32_f16_sdwa (the AMDGPU asm matcher tries every encoding of the
 * mnemonic; vLLM's inline-asm DPP reductions are written so).
 */
const DPP_IMPLICIT = new Set([...DPP_CONTROLS, 'row_mask', 'bank_mask', 'bound_ctrl'].map(M));
const SDWA_IMPLICIT = new Set(['dst_sel', 'dst_unused', 'src0_sel', 'src1_sel'].map(M));

/* ------------------------------------------------------------------------------------------ */
/* Step 1: the opcode (target independent, per opcode id)                                      */
/* ------------------------------------------------------------------------------------------ */

interface OpcodeEntry {
  desc: InsnDesc | undefined;
  variant: InsnInfo['variant'];
  /** Why the mnemonic cannot be read (unknown, or a suffix its instruction lacks). */
  error: string | undefined;
}

/**
 * Families llvm-mc assembles for some of our targets that the catalogue leaves out: graphics
 * image (MIMG) instructions (gfx906/gfx908/gfx90a; LLVM has none on gfx940+). A kernel that uses
 * one is not read: the message says it is a limit of ours, not an error in the file.
 */
const UNSUPPORTED_FAMILIES: [RegExp, string][] = [
  [/^image_/, 'image (MIMG) instructions are not supported by Conductor (the buffer, global, flat, scratch, LDS and scalar memory instructions are)'],
];

function unknownInstruction(mnemonic: string): string {
  for (const [re, why] of UNSUPPORTED_FAMILIES) if (re.test(mnemonic)) return `'${mnemonic}': ${why}`;
  return `unknown instruction '${mnemonic}'`;
}

const opcodeEntries: (OpcodeEntry | undefined)[] = [];

function opcodeEntry(op: number): OpcodeEntry {
  let e = opcodeEntries[op];
  if (e === undefined) {
    const mnemonic = OPCODES.mnemonic[op]!;
    let desc = lookupInsn(OPCODES.base[op]!);
    let suffix = OPCODES.suffix[op];
    if (!desc && suffix) { desc = lookupInsn(mnemonic); suffix = undefined; }
    let variant: InsnInfo['variant'];
    let error: string | undefined;
    if (!desc) error = unknownInstruction(mnemonic);
    else if (suffix) {
      if (suffix === 'e64_dpp' || !(desc.suffixes & SUFFIX_BITS[suffix]!)) error = `'${mnemonic}': ${desc.name} has no ${suffix} encoding`;
      else variant = suffix as InsnInfo['variant'];
    } else if (desc.suffixes) {
      variant = 'e32';
    }
    e = { desc, variant, error };
    opcodeEntries[op] = e;
  }
  return e;
}

/* ------------------------------------------------------------------------------------------ */
/* Per-target memo                                                                             */
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
 * Per-target memo: availability of each descriptor (null when available), the forms by opcode
 * and form key, and the shared InsnInfo objects per descriptor and form.
 */
interface TargetMemo {
  avail: Map<InsnDesc, string | null>;
  forms: Map<number, Form>;
  infos: Map<InsnDesc, Map<string, InsnInfo>>;
}
const memos = new WeakMap<Target, TargetMemo>();
let lastTarget: Target | undefined;
let lastMemo: TargetMemo | undefined;

function memoFor(target: Target): TargetMemo {
  if (target === lastTarget) return lastMemo!;
  let m = memos.get(target);
  if (!m) { m = { avail: new Map(), infos: new Map(), forms: new Map() }; memos.set(target, m); }
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
/* Step 2: availability                                                                        */
/* ------------------------------------------------------------------------------------------ */

/** Why the instruction is not available on the target, or undefined when it is. */
export function unavailableReason(desc: InsnDesc, target: Target): string | undefined {
  if (desc.never !== undefined) return desc.never;
  for (const f of desc.requires) if (!target.has(f)) return `needs ${f}`;
  for (const f of desc.removedBy) if (target.has(f)) return `removed with ${f}`;
  return undefined;
}

function availability(memo: TargetMemo, desc: InsnDesc, target: Target): string | null {
  let why = memo.avail.get(desc);
  if (why === undefined) { why = unavailableReason(desc, target) ?? null; memo.avail.set(desc, why); }
  return why;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: the form (operand specs and facts that depend on modifiers)                         */
/* ------------------------------------------------------------------------------------------ */

/** Everything about an instruction that its opcode, its form-setting modifiers and the target decide. */
interface Form extends LegalityForm {
  /** A number of its own (ResolvedStore.formDefs and the like are indexed by it). */
  id: number;
  /** Why the form is not available on the target (the instruction fails), given its mnemonic. */
  error: ((mnemonic: string) => string) | undefined;
  mem: MemDesc | undefined;
  /** The form also reads M0 (LDS-DMA, GDS). */
  readsM0: boolean;
  /** An e32 form written without its vcc operand: vcc is written ('d') or read ('u') implicitly. */
  vccAccess: 'd' | 'u' | undefined;
  /** Atomic cmpswap with return into its data operand: only the first `retUnits` are written. */
  retUnits: number;
  min: number;
  max: number;
  info: InsnInfo;
  /** Role ids of the specs. */
  roles: Uint8Array;
  /** The DPP / SDWA / op_sel rules that decide whether the destination is also read. */
  dstRule: 0 | 1 | 2 | 3;
  /** Number of source operands (op_sel's destination bit index) for dstRule 3. */
  srcs: number;
}
const DST_NONE = 0;
const DST_DPP = 1;
const DST_SDWA = 2;
const DST_OPSEL = 3;

/** num of the first modifier named `name` of instruction i, or `dflt`. */
function modNum(s: InsnStore, i: number, name: number, dflt: number): number {
  const m = s.findModifier(i, name);
  return m >= 0 && s.mFlags[m]! & MF_NUM ? s.mNum[m]! : dflt;
}

function hasMod(s: InsnStore, i: number, name: number): boolean {
  return s.findModifier(i, name) >= 0;
}

/** The form of instruction i (opcode `op`, descriptor `desc`) on the target, from the memo. */
function formOf(memo: TargetMemo, s: InsnStore, i: number, op: number, entry: OpcodeEntry, target: Target): Form {
  const desc = entry.desc!;
  const mem = desc.mem;
  let bits = 0;
  const hasMods = s.modBegin[i + 1]! > s.modBegin[i]!;
  if (mem && hasMods) {
    if (mem.op === 'atomic' && (hasMod(s, i, MOD_GLC) || hasMod(s, i, MOD_SC0))) bits = 1;
    else if (hasMod(s, i, MOD_LDS) && mem.op === 'load' && desc.encoding !== 'ds') bits = 2;
    else if (desc.encoding === 'ds' && hasMod(s, i, MOD_GDS)) bits = 3;
  }
  let cbsz = 0;
  let blgp = 0;
  if (desc.mfma && hasMods) {
    const shape = shapeOf(desc);
    if (shape && shape.type === 'f8f6f4') {
      cbsz = modNum(s, i, MOD_CBSZ, 0);
      blgp = modNum(s, i, MOD_BLGP, 0);
    }
  }
  // no encoding suffix written (the entry's 'e32' is the default): DPP or SDWA modifiers choose that form
  let variant = entry.variant;
  let implicit = 0;
  if (variant === 'e32' && hasMods && !OPCODES.suffix[op]) {
    for (let m = s.modBegin[i]!; m < s.modBegin[i + 1]!; m++) {
      const name = s.mName[m]!;
      if (desc.suffixes & SUFFIX.dpp && DPP_IMPLICIT.has(name)) { variant = 'dpp'; implicit = 1; break; }
      if (desc.suffixes & SUFFIX.sdwa && SDWA_IMPLICIT.has(name)) { variant = 'sdwa'; implicit = 2; break; }
    }
  }
  const vcc = variant === 'e32' && s.opBegin[i + 1]! - s.opBegin[i]! === desc.ops.length - 1 ? omittableVcc(desc) : -1;
  const small = Number.isInteger(cbsz) && Number.isInteger(blgp) && cbsz >= 0 && cbsz < 8 && blgp >= 0 && blgp < 8;
  if (!small) return buildForm(memo, desc, variant, bits, cbsz, blgp, vcc, target);
  const key = ((((op * 4 + bits) * 8 + cbsz) * 8 + blgp) * 2 + (vcc >= 0 ? 1 : 0)) * 3 + implicit;
  let f = memo.forms.get(key);
  if (f === undefined) {
    f = buildForm(memo, desc, variant, bits, cbsz, blgp, vcc, target);
    memo.forms.set(key, f);
  }
  return f;
}

/**
 * The operand index of the `vcc` operand an e32 VOPC / VOP2 instruction may be written without
 * (-1 when it has none): the VOPC destination, the VOP2 carry-out of an instruction without a
 * carry-in (v_add_co_u32), the VOP2 mask of v_cndmask_b32. llvm-mc reads `v_cmp_eq_u32_e32 0, v0`
 * as `v_cmp_eq_u32_e32 vcc, 0, v0` (LLVM AMDGPU VOPCInstructions.td / VOP2Instructions.td: the
 * e32 InstAlias forms without vcc); v_addc_co_u32_e32, which has both, needs both written.
 */
function omittableVcc(desc: InsnDesc): number {
  const ops = desc.ops;
  if (desc.encoding === 'vopc') return ops[0]?.role === 'sdst' ? 0 : -1;
  if (desc.encoding !== 'vop2' || ops.some((o) => o.role === 'carryIn')) return -1;
  return ops.findIndex((o) => o.role === 'carryOut' || o.role === 'mask');
}

let formCount = 0;

function buildForm(memo: TargetMemo, desc: InsnDesc, variant: InsnInfo['variant'], bits: number, cbsz: number, blgp: number,
  vcc: number, target: Target): Form {
  let specs = desc.ops;
  let vccAccess: 'd' | 'u' | undefined;
  if (vcc >= 0) {
    vccAccess = specs[vcc]!.access === 'd' ? 'd' : 'u';
    specs = specs.filter((_, k) => k !== vcc);
  }
  let mem = desc.mem;
  let readsM0 = false;
  let infoKey = variant ?? '';
  let retUnits = 0;
  let error: Form['error'];
  if (bits === 1 && mem) {
    // atomic with return: FLAT/GLOBAL gain a vdst; MUBUF/SMEM return into the data operand
    if (!target.has('atomic-fadd-rtn') && /^(buffer|global)_atomic_(add_f32|pk_add_f16|pk_add_bf16)$/.test(desc.name)) {
      error = (m) => `'${m}' with a return value is not available on ${target.name} (needs atomic-fadd-rtn)`;
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
  } else if (bits === 2 && mem) {
    // LDS-DMA spelled as a load with the lds modifier: no data register, LDS address in M0
    mem = { ...mem, op: 'load-lds' };
    specs = specs.slice(1);
    readsM0 = true;
    infoKey += '+lds';
  } else if (bits === 3 && mem) {
    if (mem.space !== 'gws' && !target.has('gds')) error = (m) => `'${m}': the gds modifier is not available on ${target.name} (needs gds)`;
    if (mem.space !== 'gws') mem = { ...mem, space: 'gds' };
    readsM0 = true;
    infoKey += '+gds';
  }
  const shape = desc.mfma ? shapeOf(desc) : undefined;
  if (shape && shape.type === 'f8f6f4') {
    const a = f8f6f4Units(cbsz);
    const b = f8f6f4Units(blgp);
    specs = specs.map((sp) => (sp.role === 'srcA' ? { ...sp, width: a } : sp.role === 'srcB' ? { ...sp, width: b } : sp));
    infoKey += `+${cbsz}.${blgp}`;
  }
  const finalMem = mem;
  const info = infoFor(memo, desc, infoKey, () => {
    let counters = desc.counters;
    let events = desc.events;
    if (finalMem && finalMem.space === 'gds' && desc.encoding === 'ds') {
      counters = { vm: 0, lgkm: 1, exp: 1 };
      events = ['gds'];
    } else if (finalMem && finalMem.op === 'atomic-rtn' && desc.cls === 'vmem') {
      events = ['vmem-load'];
    } else if (finalMem && finalMem.op === 'load-lds') {
      events = ['vmem-store'];
    }
    const inf: InsnInfo = {
      desc, cls: desc.cls, encoding: desc.encoding, variant, mem: finalMem, counters, events, latency: desc.latency,
    };
    if (shape) {
      const p = mfmaPasses(shape, target, cbsz, blgp);
      inf.mfma = { kind: mfmaKindOn(shape, target), passes: p.passes, source: p.source };
    }
    return inf;
  });
  const vop3p = desc.encoding === 'vop3p' || desc.mfma !== undefined;
  const roles = new Uint8Array(specs.length);
  specs.forEach((sp, k) => { roles[k] = roleId(sp.role); });
  let dstRule: Form['dstRule'] = DST_NONE;
  if (variant === 'dpp') dstRule = DST_DPP;
  else if (variant === 'sdwa') dstRule = DST_SDWA;
  else if (desc.valu && desc.encoding !== 'vop3p' && desc.ops[0]?.role === 'vdst') dstRule = DST_OPSEL;
  return {
    id: formCount++, desc, variant, specs, error, mem, readsM0, vccAccess, retUnits, info, roles, dstRule, srcs: desc.ops.length - 1,
    min: desc.minOperands - (desc.ops.length - specs.length), max: specs.length,
    fp64: specs.map((sp) => isFp64(desc, sp)),
    vector: vectorRulesApply(desc),
    vop3b: isVop3b(desc, specs),
    vop3p,
    vop3Form: vop3p || desc.encoding === 'vop3' || variant === 'e64',
    srcC: specs.findIndex((sp) => sp.role === 'srcC'),
    soff: specs.findIndex((sp) => sp.role === 'soff'),
    implicitVcc: desc.implicitUses.includes(VCC_LO) || desc.implicitUses.includes(VCC_HI),
  };
}

/* ------------------------------------------------------------------------------------------ */
/* Steps 5-6: address forms and the destination bits that are kept                             */
/* ------------------------------------------------------------------------------------------ */

/** SMEM offset: and MUBUF idxen/offen order (rules of the operand matcher). */
function addressIssues(s: InsnStore, i: number, f: Form, found: LegalityIssue[]): void {
  const enc = f.desc.encoding;
  // SMEM: `offset:` is the immediate added to an SGPR offset operand (s_load_dword s5, s[8:9], s2 offset:0x10);
  // without an SGPR offset it is not a valid operand (llvm-mc 22 -mcpu=gfx90a rejects `s_load_dword s5, s[8:9] offset:0x10`).
  if (enc === 'smem' && hasMod(s, i, MOD_OFFSET)) {
    const nOps = s.opBegin[i + 1]! - s.opBegin[i]!;
    const last = nOps === f.max ? s.opBegin[i]! + f.max - 1 : -1;
    if (last < 0 || s.oKind[last] !== OP_REG) {
      found.push(issue('operand-address', `not a valid operand: '${s.mnemonic(i)}' accepts offset: only after an SGPR offset operand (write the immediate offset as an operand)`));
    }
  }
  // MUBUF with both: `idxen offen` is the only order llvm-mc 22 takes (`offen idxen` is refused).
  if (enc === 'mubuf' || enc === 'mtbuf') {
    const offen = s.findModifier(i, MOD_OFFEN);
    const idxen = s.findModifier(i, MOD_IDXEN);
    if (offen >= 0 && idxen >= 0 && offen < idxen) {
      found.push(issue('operand-address', `invalid operand for instruction: '${s.mnemonic(i)}' writes offen before idxen (the order is idxen offen)`));
    }
  }
}

/** Does modifier m's value read `word` (exactly)? */
function valueIs(s: InsnStore, i: number, m: number, word: string): boolean {
  if (!(s.mFlags[m]! & MF_VALUE)) return false;
  const t = s.texts[s.textId[i]!]!;
  return s.mEnd[m]! - s.mVStart[m]! === word.length && t.startsWith(word, s.mVStart[m]!);
}

/** DPP, SDWA and VOP3 op_sel forms that keep part of the destination: it is also read. */
function destinationAlsoRead(s: InsnStore, i: number, f: Form): boolean {
  switch (f.dstRule) {
    case DST_DPP: {
      // Lanes whose source is disabled or out of range keep the old destination unless bound_ctrl
      // zero-fills them and all rows/banks are enabled.
      const full = modNum(s, i, MOD_ROW_MASK, 0xf) === 0xf && modNum(s, i, MOD_BANK_MASK, 0xf) === 0xf;
      return !(full && hasMod(s, i, MOD_BOUND_CTRL));
    }
    case DST_SDWA: {
      const sel = s.findModifier(i, MOD_DST_SEL);
      const unused = s.findModifier(i, MOD_DST_UNUSED);
      return sel >= 0 && !valueIs(s, i, sel, 'DWORD') && (unused < 0 || valueIs(s, i, unused, 'UNUSED_PRESERVE'));
    }
    case DST_OPSEL: {
      // VOP3 op_sel with the destination bit set writes the high half and keeps the low half
      // (GFX9 16-bit results): the destination is also read. LLVM's MIR models a full write.
      if (s.modBegin[i + 1] === s.modBegin[i]) return false;
      const sel = s.findModifier(i, MOD_OP_SEL);
      if (sel < 0 || s.mAux[sel]! < 0) return false;
      const list = s.aux[s.mAux[sel]!] as number[];
      return list.length === f.srcs + 1 && list[f.srcs] === 1;
    }
    default:
      return false;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Step 7: operands                                                                            */
/* ------------------------------------------------------------------------------------------ */

function fail(s: InsnStore, i: number, message: string): never {
  throw new ConductorError(message, s.loc(i));
}

/** As fail, at operand k's column. */
function failAt(s: InsnStore, i: number, k: number, message: string): never {
  throw new ConductorError(message, s.operandLoc(i, k));
}

function fileName(s: InsnStore, i: number, k: number): string {
  switch (s.oFile[k]) {
    case FILE_V: return 'a VGPR';
    case FILE_A: return 'an AGPR';
    case FILE_S: return 'an SGPR';
    case FILE_TTMP: return 'a trap temporary';
    default: return `'${s.operandText(i, k)}'`;
  }
}

function kindAccepts(spec: OpSpec, kind: number, file: number): boolean {
  const reg = kind === OP_REG;
  const vector = reg && (file === FILE_V || file === FILE_A);
  const scalar = reg && (file === FILE_S || file === FILE_SPECIAL || file === FILE_TTMP);
  switch (spec.kind) {
    case 'any': return true;
    case 'v': return reg && file === FILE_V;
    case 'a': return reg && file === FILE_A;
    case 'va': return vector;
    case 's': return scalar;
    case 'src': return kind !== OP_OFF && kind !== OP_WAITCNT && kind !== OP_FUNC;
    case 'ssrc': return kind !== OP_OFF && kind !== OP_WAITCNT && kind !== OP_FUNC && !vector;
    case 'vaddr': return kind === OP_OFF || (reg && file === FILE_V);
    case 'saddr': return kind === OP_OFF || scalar;
    case 'imm': return kind === OP_IMM || kind === OP_EXPR;
    case 'label': return kind === OP_EXPR || kind === OP_IMM;
    case 'func': return kind === OP_FUNC || kind === OP_IMM || kind === OP_EXPR;
  }
}

/**
 * Check a register against the target's register files: a register the target does not have is
 * unreadable (thrown); a misaligned tuple is an operand-legality issue (pushed to `found`).
 */
function checkRegister(s: InsnStore, i: number, k: number, target: Target, found: LegalityIssue[]): void {
  const regs = target.registers;
  const file = s.oFile[k]!;
  const index = s.oIndex[k]!;
  const count = s.oCount[k]!;
  const misaligned = (what: string) => {
    found.push(issue('operand-alignment', `invalid register alignment: ${s.operandText(i, k)} must start at ${what} ('${s.mnemonic(i)}')`));
  };
  if (file === FILE_V) {
    const max = regs.maxVgprs.value;
    if (index + count > max) failAt(s, i, k, `register ${s.operandText(i, k)} is out of range: ${target.name} has v0..v${max - 1} ('${s.mnemonic(i)}')`);
    if (count > 1 && (index & 1) && target.has('gfx90a-insts')) misaligned(`an even register on ${target.name}`);
  } else if (file === FILE_A) {
    const max = regs.maxAgprs.value;
    if (max === 0) failAt(s, i, k, `register ${s.operandText(i, k)} does not exist: ${target.name} has no AGPRs ('${s.mnemonic(i)}')`);
    if (index + count > max) failAt(s, i, k, `register ${s.operandText(i, k)} is out of range: ${target.name} has a0..a${max - 1} ('${s.mnemonic(i)}')`);
    if (count > 1 && (index & 1) && target.has('gfx90a-insts')) misaligned(`an even register on ${target.name}`);
  } else if (file === FILE_S) {
    const max = regs.maxSgprs.value;
    if (index + count > max) failAt(s, i, k, `register ${s.operandText(i, k)} is out of range: ${target.name} has s0..s${max - 1} ('${s.mnemonic(i)}')`);
    if (count > 1 && index % (count >= 4 ? 4 : 2) !== 0) misaligned(`a multiple of ${count >= 4 ? 4 : 2}`);
  } else if (file === FILE_TTMP) {
    if (count > 1 && (index % (count >= 4 ? 4 : 2)) !== 0) misaligned(`a multiple of ${count >= 4 ? 4 : 2}`);
  }
}

function checkOperand(s: InsnStore, i: number, k: number, spec: OpSpec, width: number, target: Target, found: LegalityIssue[]): void {
  const kind = s.oKind[k]!;
  if (!kindAccepts(spec, kind, s.oFile[k]!)) {
    const what = kind === OP_REG ? fileName(s, i, k) : kind === OP_OFF ? "'off'" : `'${s.operandText(i, k)}'`;
    failAt(s, i, k, `invalid operand for instruction: '${s.mnemonic(i)}' does not take ${what} as ${spec.role} ('${s.operandText(i, k)}')`);
  }
  if (kind !== OP_REG) return;
  checkRegister(s, i, k, target, found);
  const count = s.oCount[k]!;
  if (width > 0 && count !== width && (s.oFile[k] !== FILE_SPECIAL || count > 1 || width > 1)) {
    failAt(s, i, k, `invalid operand for instruction: ${spec.role} of '${s.mnemonic(i)}' is ${width} register${width > 1 ? 's' : ''} wide, '${s.operandText(i, k)}' is ${count}`);
  }
}

/** Width of a buffer/global/scratch address operand as written with its modifiers. */
function vaddrWidth(s: InsnStore, i: number, desc: InsnDesc): number {
  switch (desc.encoding) {
    case 'mubuf': case 'mtbuf':
      return (hasMod(s, i, MOD_OFFEN) ? 1 : 0) + (hasMod(s, i, MOD_IDXEN) ? 1 : 0);
    case 'global': {
      const e = s.opBegin[i + 1]!;
      return e > s.opBegin[i]! && s.oKind[e - 1] === OP_OFF ? 2 : 1;
    }
    case 'scratch':
      return 1;
    case 'exp':
      return 1;
    default:
      return 0;
  }
}

/** Scratch unit lists: explicit defs and uses, then defs and uses with the implicit registers. */
const DEFS = new Uint16Array(1024);
const USES = new Uint16Array(1024);
let nDefs = 0;
let nUses = 0;
/** The pool entry of DEFS / USES when one operand wrote all of it (-1: intern the scratch list). */
let defsEntry = 0;
let usesEntry = 0;

function addUnits(list: Uint16Array, n: number, first: number, count: number): number {
  for (let u = first; u < first + count; u++) {
    let k = 0;
    while (k < n && list[k] !== u) k++;
    if (k === n) list[n++] = u;
  }
  return n;
}

function addList(list: Uint16Array, n: number, units: readonly RegUnit[]): number {
  for (const u of units) {
    let k = 0;
    while (k < n && list[k] !== u) k++;
    if (k === n) list[n++] = u;
  }
  return n;
}

/**
 * Walk the operands: check each against its spec and the target, record its role, access and
 * units, and collect the explicit defs and uses in DEFS / USES (nDefs / nUses).
 */
function walkOperands(s: InsnStore, i: number, f: Form, rs: ResolvedStore, dstAlsoRead: boolean, target: Target, found: LegalityIssue[]): void {
  const desc = f.desc;
  const b = s.opBegin[i]!;
  const e = s.opBegin[i + 1]!;
  const pool = rs.pool;
  nDefs = 0;
  nUses = 0;
  defsEntry = 0;
  usesEntry = 0;
  for (let k = b; k < e; k++) {
    const spec = f.specs[k - b]!;
    const kind = s.oKind[k]!;
    let width = spec.width;
    if (spec.kind === 'vaddr') {
      width = vaddrWidth(s, i, desc);
      if (kind === OP_OFF && width > 0 && (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf' || desc.encoding === 'global')) {
        failAt(s, i, k, `invalid operand for instruction: '${s.mnemonic(i)}' needs a VGPR address here, not 'off'`);
      }
      if (kind === OP_REG && width === 0 && (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf')) {
        failAt(s, i, k, `invalid operand for instruction: '${s.mnemonic(i)}' has an address VGPR '${s.operandText(i, k)}' but neither offen nor idxen`);
      }
    }
    checkOperand(s, i, k, spec, width, target, found);
    let def = spec.access !== 'u';
    let use = spec.access !== 'd';
    if (k === b && def && dstAlsoRead) use = true;
    let units = 0;
    if (kind === OP_REG) {
      const first = s.oFirst[k]!;
      const count = s.oCount[k]!;
      units = pool.range(first, count);
      if (def) {
        const n = k === b && f.retUnits > 0 ? Math.min(count, f.retUnits) : count;
        defsEntry = nDefs === 0 && n === count ? units : -1;
        nDefs = addUnits(DEFS, nDefs, first, n);
      }
      if (use) {
        usesEntry = nUses === 0 ? units : -1;
        nUses = addUnits(USES, nUses, first, count);
      }
    } else if (kind === OP_CONST && use) {
      // a source that reads machine state: src_scc SCC, src_execz EXEC, src_vccz VCC, lds_direct M0
      const reads = STATE_SOURCES[s.aux[s.oAux[k]!] as string];
      if (reads) {
        usesEntry = -1;
        for (const u of reads) nUses = addUnits(USES, nUses, u, 1);
      }
    }
    if (units === 0) {
      def = false;
      use = false;
    }
    rs.oRole[k] = f.roles[k - b]!;
    rs.oAccess[k] = (def ? ACC_DEF : 0) | (use ? ACC_USE : 0);
    rs.oUnits[k] = units;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Step 8: implicit registers, and the whole instruction                                       */
/* ------------------------------------------------------------------------------------------ */

const M0_LIST: readonly RegUnit[] = [M0];

/** The registers a source operand named by a constant word reads (the rest read none: apertures, wave ids). */
const STATE_SOURCES: Record<string, readonly RegUnit[] | undefined> = {
  src_scc: [SCC], src_execz: [EXEC_LO, EXEC_HI], execz: [EXEC_LO, EXEC_HI], src_vccz: [VCC_LO, VCC_HI], vccz: [VCC_LO, VCC_HI],
  src_lds_direct: [M0], lds_direct: [M0],
};
const VCC_LIST: readonly RegUnit[] = [VCC_LO, VCC_HI];

/** Scratch list of the legality issues of the instruction being resolved. */
const scratchIssues: LegalityIssue[] = [];

/**
 * Resolve instruction i of `s` into `rs` (same index). Throws ConductorError for an unknown
 * mnemonic, an encoding suffix the instruction lacks, an instruction the target does not have,
 * a wrong operand count, an operand of the wrong kind or width, and a register the target
 * does not have. Operand-legality issues are appended to `issues` when it is given (the
 * instruction still resolves); without it, the first legality error is thrown like the others.
 */
function resolveAt(s: InsnStore, i: number, rs: ResolvedStore, target: Target, issues?: LegalityIssue[]): void {
  const op = s.opcode[i]!;
  const entry = opcodeEntry(op);
  if (entry.error !== undefined) fail(s, i, entry.error);
  const desc = entry.desc!;
  const memo = memoFor(target);
  const why = availability(memo, desc, target);
  if (why !== null) fail(s, i, `'${s.mnemonic(i)}' is not available on ${target.name} (${why})`);
  const f = formOf(memo, s, i, op, entry, target);
  if (f.error !== undefined) fail(s, i, f.error(s.mnemonic(i)));

  const nOps = s.opBegin[i + 1]! - s.opBegin[i]!;
  if (nOps < f.min || nOps > f.max) {
    // an LDS-DMA load names no data register (the data goes to LDS at M0): `buffer_load_dword v1, s[4:7], 0 offen lds`
    const lds = nOps === f.max + 1 && s.mnemonic(i).startsWith('buffer_load_') && hasMod(s, i, MOD_LDS)
      ? ` (the lds form names no data register: ${s.mnemonic(i)} vaddr, srsrc, soffset ... lds)` : '';
    fail(s, i, `'${s.mnemonic(i)}' takes ${countText(f.min, f.max)}, got ${nOps}${lds}`);
  }

  const found = scratchIssues;
  if (found.length > 0) found.length = 0;
  legalityIssues(s, i, f, target, found);
  addressIssues(s, i, f, found);
  walkOperands(s, i, f, rs, destinationAlsoRead(s, i, f), target, found);

  if (found.length > 0) {
    if (issues) issues.push(...found);
    else {
      const e = found.find((x) => x.severity === 'error');
      if (e) fail(s, i, e.message);
    }
  }

  const pool = rs.pool;
  const explicitDefs = defsEntry >= 0 ? defsEntry : pool.intern(DEFS, nDefs);
  const explicitUses = usesEntry >= 0 ? usesEntry : pool.intern(USES, nUses);
  let implicitDefs = rs.formDefs[f.id];
  let implicitUses = rs.formUses[f.id]!;
  if (implicitDefs === undefined) {
    implicitDefs = f.vccAccess === 'd'
      ? pool.intern(DEFS, addList(DEFS, addList(DEFS, 0, desc.implicitDefs), VCC_LIST))
      : pool.intern(desc.implicitDefs, desc.implicitDefs.length);
    if (f.readsM0 || f.vccAccess === 'u') {
      const n = addList(DEFS, addList(DEFS, 0, desc.implicitUses), f.readsM0 ? M0_LIST : VCC_LIST);
      implicitUses = pool.intern(DEFS, n);
    } else {
      implicitUses = pool.intern(desc.implicitUses, desc.implicitUses.length);
    }
    rs.formDefs[f.id] = implicitDefs;
    rs.formUses[f.id] = implicitUses;
    rs.formInfo[f.id] = rs.idOfInfo(f.info);
  }
  rs.explicitDefs[i] = explicitDefs;
  rs.explicitUses[i] = explicitUses;
  rs.implicitDefs[i] = implicitDefs;
  rs.implicitUses[i] = implicitUses;
  rs.defs[i] = pool.union(explicitDefs, implicitDefs);
  rs.uses[i] = pool.union(explicitUses, implicitUses);
  rs.infoId[i] = rs.formInfo[f.id]!;
  rs.flags[i] = 0;
}

function countText(min: number, max: number): string {
  return min === max ? counted(max, 'operand') : `${min} to ${max} operands`;
}

/* ------------------------------------------------------------------------------------------ */
/* Placeholders for instructions that could not be resolved                                    */
/* ------------------------------------------------------------------------------------------ */

const PLACEHOLDER_DESC: InsnDesc = Object.freeze({
  name: '<unknown>', cls: 'other', encoding: 'sopp', ops: [], minOperands: 0, implicitDefs: [], implicitUses: [],
  counters: { vm: 0, lgkm: 0, exp: 0 }, events: [], latency: 'other', requires: [], removedBy: [], suffixes: 0,
}) as InsnDesc;

/** A conservative resolution: class 'other', every register operand both read and written. */
function placeholderAt(s: InsnStore, i: number, rs: ResolvedStore): void {
  const pool = rs.pool;
  let n = 0;
  for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
    let units = 0;
    if (s.oKind[k] === OP_REG) {
      units = pool.range(s.oFirst[k]!, s.oCount[k]!);
      n = addUnits(DEFS, n, s.oFirst[k]!, s.oCount[k]!);
    }
    rs.oRole[k] = ROLE_IMM;
    rs.oAccess[k] = units > 0 ? ACC_DEF | ACC_USE : 0;
    rs.oUnits[k] = units;
  }
  const all = pool.intern(DEFS, n);
  rs.defs[i] = all;
  rs.uses[i] = all;
  rs.explicitDefs[i] = all;
  rs.explicitUses[i] = all;
  rs.implicitDefs[i] = 0;
  rs.implicitUses[i] = 0;
  const info: InsnInfo = {
    desc: lookupInsn(s.base(i)) ?? PLACEHOLDER_DESC, cls: 'other', encoding: 'sopp',
    counters: { vm: 0, lgkm: 0, exp: 0 }, events: [], latency: 'other',
  };
  rs.infoId[i] = rs.idOfInfo(info);
  rs.flags[i] = RS_UNKNOWN;
}

/* ------------------------------------------------------------------------------------------ */
/* One instruction (the object API)                                                            */
/* ------------------------------------------------------------------------------------------ */

/**
 * Resolve one instruction. Throws ConductorError for an unknown mnemonic, an encoding suffix the
 * instruction lacks, an instruction the target does not have, a wrong operand count, an operand
 * of the wrong kind or width, and a register the target does not have. Operand-legality issues
 * are appended to `issues` when it is given (the instruction still resolves); without it, the
 * first legality error is thrown like the others. Knows no kernel: the kernel effects
 * (kernel-effects.ts) are resolveProgram's.
 */
export function resolveInstruction(insn: Instruction, target: Target, issues?: LegalityIssue[]): ResolvedInsn {
  const s = insn instanceof StoredInstruction ? copyInstruction(insn.store, insn.index) : encodeInstruction(insn);
  const rs = new ResolvedStore(s, target, () => [insn]);
  resolveAt(s, 0, rs, target, issues);
  return plainResolved(rs, 0, insn);
}

/** A store holding only instruction i of `from` (its text, operands and modifiers as they are). */
function copyInstruction(from: InsnStore, i: number): InsnStore {
  const s = new InsnStore(from.file, from.texts[from.textId[i]!]!, 4);
  s.lineMap = from.lineMap;
  s.appendFrom(from, i, 0);
  return s;
}

const FILE_CODES: Record<string, number> = Object.fromEntries(FILE_NAMES.map((f, k) => [f, k]));
const KIND_CODES: Record<string, number> = { reg: OP_REG, imm: OP_IMM, expr: OP_EXPR, off: OP_OFF, const: OP_CONST, waitcnt: OP_WAITCNT, func: OP_FUNC };

/**
 * A store holding an Instruction object (one not read from a store): its operands and
 * modifiers as the objects say; their texts laid out one after the other in the store's text.
 */
function encodeInstruction(insn: Instruction): InsnStore {
  const parts: string[] = [insn.text];
  let at = insn.text.length + 1;
  const place = (t: string) => { const p = at; parts.push(t); at += t.length + 1; return p; };
  const s = new InsnStore(insn.loc.file, '', 4);
  s.begin();
  for (const o of insn.operands) {
    const p = place(o.text);
    const k = s.addOperand(KIND_CODES[o.kind]!, p, p + o.text.length);
    switch (o.kind) {
      case 'reg':
        s.oFile[k] = FILE_CODES[o.file]!;
        s.oFirst[k] = o.first;
        s.oCount[k] = o.count;
        s.oIndex[k] = o.index;
        break;
      case 'imm':
        s.oValue[k] = o.value;
        if (o.float) s.oFlags[k] = OPF_FLOAT;
        if (o.inexact) s.oFlags[k] |= OPF_INEXACT;
        break;
      case 'expr': s.setAux(k, [...o.symbols]); break;
      case 'const': s.setAux(k, o.name); break;
      case 'waitcnt': s.setAux(k, { vmcnt: o.vmcnt, expcnt: o.expcnt, lgkmcnt: o.lgkmcnt, raw: o.raw }); break;
      case 'func': s.setAux(k, { name: o.name, args: [...o.args] }); break;
      default: break;
    }
    if (o.kind === 'reg' || o.kind === 'imm' || o.kind === 'expr' || o.kind === 'const') {
      const mods = o.mods;
      if (mods) s.oFlags[k] |= (mods.neg ? OPF_NEG : 0) | (mods.abs ? OPF_ABS : 0) | (mods.sext ? OPF_SEXT : 0);
    }
  }
  for (const m of insn.modifiers) {
    const p = place(m.text);
    const end = p + m.text.length;
    const hasValue = m.value !== undefined;
    const vStart = hasValue && m.text.endsWith(m.value!) ? end - m.value!.length : hasValue ? place(m.value!) : p;
    const vEnd = hasValue && !m.text.endsWith(m.value!) ? vStart + m.value!.length : end;
    const c = s.addModifier(MODIFIER_NAMES.idOf(m.name), vEnd === end ? p : vStart, vStart, vEnd, (hasValue ? MF_VALUE : 0) | (m.num !== undefined ? MF_NUM : 0));
    if (m.num !== undefined) s.mNum[c] = m.num;
    if (m.list) { s.mFlags[c] |= MF_LIST; s.mAux[c] = s.aux.length; s.aux.push([...m.list]); }
  }
  s.texts[0] = parts.join('\n');
  s.commit(OPCODES.of(insn.mnemonic), 0, 0, insn.text.length, insn.loc.line, insn.loc.col, insn.stmt >>> 0);
  return s;
}

/** A plain ResolvedInsn object for instruction i of `rs`, with `insn` as its instruction. */
function plainResolved(rs: ResolvedStore, i: number, insn: Instruction): ResolvedInsn {
  const pool = rs.pool;
  const r: ResolvedInsn = {
    insn, info: rs.info(i), operands: rs.operandRecords(i) as ResolvedOperand[],
    defs: pool.list(rs.defs[i]!), uses: pool.list(rs.uses[i]!),
    explicitDefs: pool.list(rs.explicitDefs[i]!), explicitUses: pool.list(rs.explicitUses[i]!),
    implicitDefs: pool.list(rs.implicitDefs[i]!), implicitUses: pool.list(rs.implicitUses[i]!),
  };
  if (rs.flags[i]! & RS_UNKNOWN) r.unknown = true;
  return r;
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
  /** The same resolution as numbers (the kernel effects applied). */
  store: ResolvedStore;
}

/** True for the diagnostics of operand legality (the instruction is readable and resolved). */
export function isOperandLegality(d: Diagnostic): boolean {
  return d.rule !== undefined && d.rule.startsWith('operand-');
}

const locKey = (l: Loc): string => `${l.file}:${l.line}:${l.col}`;

/**
 * What resolveProgram may copy: `rs`, an earlier program's resolution, and per instruction of this
 * program the one of `rs` its rows were copied from by the parser (ParsedProgram.reusedFrom; -1:
 * none). The same rows resolve the same way, but for the kernel's effects, which are the same
 * kernel's again (the text was edited by waits and nops, or lines moved within a region), and the
 * unified file's remapping of them changes a remapped list no further. A row that did not resolve
 * cleanly (RS_UNKNOWN, an issue reported) is resolved again, and nothing is copied from a store a
 * VGPR indexing mode changed (ResolvedStore.indexed).
 */
export interface ResolveReuse { rs: ResolvedStore; from: Int32Array }

/** Instructions whose resolution was copied from an earlier program's (ResolveReuse), for the tests. */
export const resolveReuse = { rows: 0 };

/**
 * Resolve every instruction of a program. Instructions that fail get a conservative placeholder
 * (class 'other', every register operand both read and written, marked `unknown`) and an error
 * diagnostic; nothing is thrown for them. Legality violations become diagnostics with their
 * rule. Then, per kernel, the effects that depend on the kernel around an instruction
 * (kernel-effects.ts): on a unified VGPR/AGPR file the VGPRs at or above accum_offset become
 * the AGPR units they are, and inside the VGPR indexing mode the indexed operands reach the
 * registers the index may select.
 */
export function resolveProgram(program: Program, target: Target, opts: { alike?: boolean; reuse?: ResolveReuse } = {}): ResolvedProgram {
  const store = program instanceof ParsedProgram ? program.store : storeOf(program);
  const reuse = opts.reuse && !opts.reuse.rs.indexed && opts.reuse.rs.target === target ? opts.reuse : undefined;
  const rs = new ResolvedStore(store, target, () => program.instructions, reuse?.rs);
  const diagnostics: Diagnostic[] = [];
  const issues: LegalityIssue[] = [];
  const alike = opts.alike === false ? undefined : new Alike(store);
  // A problem at an instruction a macro or repeat block wrote: at the call, with a note at the
  // body line (expansionNote; the store's statement index is the program's, parsed or built).
  // The same problem again at the same call and body line (each repetition of a `.rept`) is
  // counted in the note, not repeated.
  const repeats = new ExpansionRepeats<Diagnostic>();
  const report = (d: Diagnostic, i: number): void => {
    const note = expansionNote(program, store.stmt[i]!);
    if (!note) { diagnostics.push(d); return; }
    const key = `${locKey(d.loc)} ${locKey(note.loc)} ${d.message}`;
    if (repeats.again(key, (first, n) => { first.related = [{ ...note, message: inExpansions(note.message, n) }]; })) return;
    const x = { ...d, related: [note] };
    repeats.keep(key, x);
    diagnostics.push(x);
  };
  for (let i = 0; i < store.n; i++) {
    if (reuse) {
      const j = reuse.from[i]!;
      if (j >= 0 && reuse.rs.flags[j] === 0) { rs.copyFrom(reuse.rs, j, i); resolveReuse.rows++; continue; }
    }
    const key = alike ? alike.key(i) : -1;
    if (key >= 0) {
      const r = alike!.first.get(key);
      if (r !== undefined && alike!.equal(r, i)) {
        rs.copyResolution(r, i);
        rs.alike[i] = r;
        continue;
      }
    }
    try {
      resolveAt(store, i, rs, target, issues);
      if (issues.length > 0) {
        rs.flags[i] |= RS_ISSUES;
        const loc = store.loc(i);
        for (const f of issues) report({ severity: f.severity, message: f.message, loc, rule: f.rule, source: f.source }, i);
        issues.length = 0;
      } else if (key >= 0 && !alike!.first.has(key)) alike!.first.set(key, i);
    } catch (e) {
      if (!(e instanceof ConductorError)) throw e;
      if (issues.length > 0) issues.length = 0;
      report({ severity: 'error', message: e.message, loc: e.loc ?? store.loc(i), rule: 'isa' }, i);
      placeholderAt(store, i, rs);
    }
  }
  let first = 0;
  for (const kernel of program.kernels) {
    while (first < store.n && store.stmt[first]! < kernel.start) first++;
    let end = first;
    while (end < store.n && store.stmt[end]! < kernel.end) end++;
    if (end > first) diagnostics.push(...applyKernelEffects(program, kernel, target, rs, first, end - first).diagnostics);
    first = end;
  }
  // a kernel's effects (its unified register file, indexing mode) may have changed one of two alike
  for (let i = 0; i < store.n; i++) {
    const r = rs.alike[i]!;
    if (r !== i && !rs.sameResolution(r, i)) rs.alike[i] = i;
  }
  for (const k of program.kernels) {
    const e = k.descriptor ? descriptorError(k.descriptor, target) : undefined;
    if (e) diagnostics.push(e);
  }
  return { insns: rs.all(), diagnostics, store: rs };
}

/**
 * Instructions written alike resolve alike. resolveAt reads an instruction's opcode, its
 * operands' kinds, files, registers, values and flags, and its modifiers' names, flags and
 * numbers (their text only for messages, and for the value words and lists of DPP, SDWA and
 * op_sel, which are left out here with the operand kinds that carry more than numbers:
 * expressions, functions, named constants, s_waitcnt's counters). Two instructions whose rows
 * are equal there get the same resolution, so the second copies the first's (when the first
 * resolved without an issue). Kernels repeat their instructions a lot: the largest corpus kernel
 * (Tensile, 41,536 instructions) has 34,346 written as an earlier one is. `resolveProgram(p, t,
 * { alike: false })` resolves every instruction itself (the unit test compares the two).
 */
class Alike {
  readonly first = new Map<number, number>();
  constructor(private readonly s: InsnStore) {}

  /** A hash of instruction i's rows, or -1 when its resolution reads more than they hold. */
  key(i: number): number {
    const s = this.s;
    let h = Math.imul(s.opcode[i]! + 1, 0x9e3779b1);
    for (let k = s.opBegin[i]!, e = s.opBegin[i + 1]!; k < e; k++) {
      const kind = s.oKind[k]!;
      if (kind !== OP_REG && kind !== OP_IMM && kind !== OP_OFF) return -1;
      h = Math.imul(h ^ (kind | (s.oFile[k]! << 3) | (s.oFlags[k]! << 6) | (s.oCount[k]! << 14)), 0x85ebca6b);
      h = Math.imul(h ^ (s.oFirst[k]! | (s.oIndex[k]! << 16)), 0xc2b2ae35);
      if (kind === OP_IMM) h = Math.imul(h ^ (s.oValue[k]! | 0), 0x27d4eb2f);
    }
    for (let m = s.modBegin[i]!, e = s.modBegin[i + 1]!; m < e; m++) {
      const f = s.mFlags[m]!;
      if (f & MF_LIST || (f & MF_VALUE && !(f & MF_NUM))) return -1;
      h = Math.imul(h ^ (s.mName[m]! | (f << 24)), 0x165667b1);
      if (f & MF_NUM) h = Math.imul(h ^ (s.mNum[m]! | 0), 0x27d4eb2f);
    }
    return (h ^ (h >>> 15)) >>> 0;
  }

  /** Are the rows of instructions a and b (both with a key) equal? */
  equal(a: number, b: number): boolean {
    const s = this.s;
    if (s.opcode[a] !== s.opcode[b]) return false;
    const oa = s.opBegin[a]!, ob = s.opBegin[b]!, n = s.opBegin[a + 1]! - oa;
    if (s.opBegin[b + 1]! - ob !== n) return false;
    for (let x = 0; x < n; x++) {
      const ka = oa + x, kb = ob + x;
      if (s.oKind[ka] !== s.oKind[kb] || s.oFile[ka] !== s.oFile[kb] || s.oFlags[ka] !== s.oFlags[kb] || s.oFirst[ka] !== s.oFirst[kb]
        || s.oCount[ka] !== s.oCount[kb] || s.oIndex[ka] !== s.oIndex[kb] || !Object.is(s.oValue[ka], s.oValue[kb])) return false;
    }
    const ma = s.modBegin[a]!, mb = s.modBegin[b]!, m = s.modBegin[a + 1]! - ma;
    if (s.modBegin[b + 1]! - mb !== m) return false;
    for (let x = 0; x < m; x++) {
      const ka = ma + x, kb = mb + x;
      if (s.mName[ka] !== s.mName[kb] || s.mFlags[ka] !== s.mFlags[kb] || !Object.is(s.mNum[ka], s.mNum[kb])) return false;
    }
    return true;
  }
}

/** A store of a Program that was not parsed into one (its instructions encoded one by one). */
function storeOf(program: Program): InsnStore {
  const out = new InsnStore(program.file, '', Math.max(4, program.instructions.length));
  for (const insn of program.instructions) {
    const one = encodeInstruction(insn);
    out.appendFrom(one, 0, out.addText(one.texts[0]!));
  }
  return out;
}
