/**
 * Operand legality of GFX9 instructions: the combinations of operands that llvm-mc refuses
 * although every operand is readable (its registers and effect are known), so an instruction
 * that breaks one is reported as an error diagnostic with a rule id and the rest of the file is
 * still analysed. What llvm-mc 22 assembles is legal; where LLVM's code generation or the ISA
 * forbids something llvm-mc takes, the finding is a warning that says so.
 *
 * Every rule was measured with llvm-mc 22 (-triple=amdgcn-amd-amdhsa, each of the five targets)
 * on test/oracle/probes/legality.s, which the oracle suite re-runs, and names the check of
 * LLVM's AMDGPUAsmParser that refuses it (validateInstruction's validators, or the operand
 * matcher of MatchAndEmitInstruction; LEGALITY_RULES lists them by rule id):
 *   - registers the target does not have as operands (tba/tma; lds_direct from gfx90a on);
 *   - cache-policy bits per target: dlc is GFX10+; glc/slc on memory instructions before gfx940,
 *     sc0/sc1/nt from gfx940 on; scc on gfx90a only;
 *   - memory offsets: FLAT 0..4095, global/scratch -4096..4095, DS 0..65535 (offset0/1 0..255),
 *     SMEM -2^20..2^20-1 (s_buffer_*: 0..2^20-1);
 *   - one unique literal per SALU instruction; integer literals fit in 32 bits; a 64-bit
 *     float operand takes a 32-bit literal as its high half (0x3ff00000 is the inline 1.0);
 *   - VOP3 and VOP3P encodings take no literal constant on GFX9 (only inline constants);
 *   - constant bus: a VALU instruction reads at most one scalar value (distinct SGPRs, EXEC, M0,
 *     the src_* constants, a literal, and the implicit VCC of e32 carry/select forms each count
 *     once; the same register twice counts once; an M0 lane select and lds_direct do not count);
 *   - VOP3P (packed math, dot, MFMA) sources take no -x / |x| / abs() / neg() modifiers;
 *     VOP3B (carry-out / condition destination) takes no abs;
 *   - MFMA: SrcA/SrcB are VGPRs or AGPRs, scale operands VGPRs; vdst and SrcC are AGPRs on
 *     gfx908 and in one file from gfx90a; SrcC may not be an inline constant on gfx908; a
 *     result over 128 bits and SrcC are the same registers or disjoint;
 *   - v_accvgpr_write reads a VGPR or an inline constant (gfx90a+: also an SGPR).
 * FeatureMFMAInlineLiteralBug comes from LLVM AMDGPU.td / GCNSubtarget.h feature predicates.
 * Register alignment (gfx90a+ even VGPR/AGPR tuples, SGPR pairs and quads) and the buffer and
 * SMEM address forms are checked where operands are resolved (isa/resolve.ts) with the same rule ids.
 */
import type { Operand } from '../asm/ast.js';
import {
  FILE_A, FILE_V, MF_NUM, MODIFIER_NAMES, OPCODES, OPF_ABS, OPF_FLOAT, OPF_INEXACT, OPF_LIT, OPF_NEG, OP_CONST, OP_EXPR, OP_FUNC, OP_IMM, OP_REG,
  type FuncAux, type InsnStore,
} from '../asm/store.js';
import type { Target } from './target.js';
import { SUFFIX, type InsnDesc, type OpSpec } from './types.js';
import { M0, VCC_LO } from '../asm/registers.js';
import { VOP3_OP_SEL } from './catalogue.js';
import {
  DPP_CONTROLS, DPP_GFX10, branchOffsetError, dppControlError, hwregError, sendmsgError, simm16Error, swizzleError,
} from './special-operands.js';

export interface LegalityIssue {
  /** Rule id (`operand-constant-bus`, ...: LEGALITY_RULES). */
  rule: LegalityRule;
  /** error: llvm-mc refuses the instruction; warning: llvm-mc takes it but the cited source forbids it. */
  severity: 'error' | 'warning';
  message: string;
  /** Where the rule comes from: the LLVM check and the probe file that measured it. */
  source: string;
}

const PROBES = 'test/oracle/probes/legality.s';

/** Every legality rule and the checks of LLVM's AMDGPUAsmParser that refuse what it reports. */
export const LEGALITY_RULES = {
  'operand-register': 'subtargetHasRegister, validateLdsDirect',
  'operand-cache-policy': 'validateCoherencyBits and the operand matcher',
  'operand-offset': 'validateOffset',
  'operand-scalar-literals': 'validateSOPLiteral',
  'operand-literal-range': 'the operand matcher (AMDGPUOperand::isLiteralImm)',
  'operand-vop3-literal': 'validateVOPLiteral',
  'operand-constant-bus': 'validateConstantBusLimitations',
  'operand-modifier': 'validateDivScale and the operand matcher',
  'operand-accvgpr-write': 'validateMAIAccWrite and the operand matcher',
  'operand-mfma': 'the operand matcher',
  'operand-mfma-inline-srcc': 'validateMAISrc2 (FeatureMFMAInlineLiteralBug)',
  'operand-mfma-overlap': 'validateMFMA',
  'operand-alignment': 'validateVGPRAlign and the operand matcher',
  'operand-address': 'the operand matcher',
  'operand-hwreg': 'parseHwregFunc, validateHwreg',
  'operand-sendmsg': 'parseSendMsgBody, validateSendMsg',
  'operand-swizzle': 'parseSwizzleOperand',
  'operand-dpp': 'parseDPPCtrl, validateDPPCtrl and the operand matcher',
  'operand-simm16': 'parseSOPPBrTarget and the 16-bit immediate operands',
} as const;
export type LegalityRule = keyof typeof LEGALITY_RULES;

/** An error of a rule llvm-mc 22 enforces (its source: the LLVM check and the probe file that measured it). */
export function issue(rule: LegalityRule, message: string): LegalityIssue {
  return { rule, severity: 'error', message, source: `llvm-mc 22 (AMDGPUAsmParser: ${LEGALITY_RULES[rule]}); measured by ${PROBES}` };
}

/**
 * FeatureMFMAInlineLiteralBug: MFMA SrcC may not be an inline constant. The first MFMA
 * generation has it; the gfx90a generation and later fixed it (llvm-mc 22 -mcpu=gfx908 rejects
 * `v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0`, -mcpu=gfx90a accepts it).
 */
const MFMA_INLINE_LITERAL_BUG_SOURCE = 'LLVM AMDGPU.td / GCNSubtarget.h feature predicates (FeatureMFMAInlineLiteralBug: gfx908 yes, gfx90a/942/950 no); '
  + 'oracle: llvm-mc 22 -mcpu=gfx908 rejects `v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0`, -mcpu=gfx90a accepts it';
function hasMfmaInlineLiteralBug(t: Target): boolean {
  return t.has('mai') && !t.has('gfx90a-insts');
}

/** f32 / f16 bit patterns of the inline float constants (±0.5, ±1, ±2, ±4, 1/(2π)). */
const INLINE_F32_BITS = new Set([0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983]);
const INLINE_F16_BITS = new Set([0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118]);
/** High dwords of the f64 inline constants ±0.5, ±1, ±2, ±4 (their low dwords are 0). */
const INLINE_F64_HIGH = new Set([0x3fe00000, 0xbfe00000, 0x3ff00000, 0xbff00000, 0x40000000, 0xc0000000, 0x40100000, 0xc0100000]);
const INLINE_FLOATS = new Set([0.5, -0.5, 1, -1, 2, -2, 4, -4]);
const INV_2PI = 0.15915494309189535;
const TWO32 = 2 ** 32;

/**
 * An immediate the hardware encodes as an inline constant (permissive about the operand type:
 * any type's pattern counts). `fp64`: the operand is a 64-bit float, whose 32-bit literals are
 * its high dword (`0x3ff00000` is 1.0).
 */
export function isInlineConstant(o: Operand, fp64 = false): boolean {
  return o.kind === 'imm' && isInlineValue(o.value, o.float, fp64);
}

/**
 * isInlineConstant of an immediate's value. `narrow`: the operand is 32 bits wide, so a 64-bit
 * value is never inline there (llvm-mc 22 refuses `s_mov_b32 s0, 0x4000000000000000`, which
 * `s_mov_b64` takes as 2.0: AMDGPUAsmParser::isInlinableImm checks a 32-bit operand's value with
 * isInlinableLiteral32, which takes no 64-bit pattern).
 */
export function isInlineValue(v: number, float: boolean, fp64: boolean, narrow = false): boolean {
  if (float) return v === 0 || INLINE_FLOATS.has(v) || Math.abs(v - INV_2PI) < 1e-7;
  if (!Number.isInteger(v)) return false;
  if (v >= -16 && v <= 64) return true;
  const u32 = v < 0 ? v + TWO32 : v;
  if (u32 >= 0x80000000 && u32 <= 0xffffffff && u32 - TWO32 >= -16) return true;
  if (fp64 && u32 <= 0xffffffff && INLINE_F64_HIGH.has(u32)) return true;
  if (INLINE_F32_BITS.has(u32) || INLINE_F16_BITS.has(u32)) return true;
  // 64-bit values: the f64 inline constants' full patterns.
  if (!narrow && v > 0xffffffff && v % TWO32 === 0 && INLINE_F64_HIGH.has(v / TWO32)) return true;
  return false;
}

/**
 * What the legality rules need to know of an instruction's form (its descriptor, encoding
 * variant and operand specs), computed once per form by the resolver.
 */
export interface LegalityForm {
  desc: InsnDesc;
  variant: string | undefined;
  specs: readonly OpSpec[];
  /** Per spec: a 64-bit float operand (its literal is the high dword). */
  fp64: readonly boolean[];
  /** The vector rules apply (VALU and MFMA, not interpolation). */
  vector: boolean;
  /** VOP3B: an SGPR carry-out or condition destination (no abs). */
  vop3b: boolean;
  /** VOP3P encoding (packed math, dot, MFMA). */
  vop3p: boolean;
  /** A VOP3 or VOP3P encoding (no literal on GFX9). */
  vop3Form: boolean;
  /** Spec index of SrcC (MFMA), of an SMEM soff operand; -1 when none. */
  srcC: number;
  soff: number;
  /** The implicit VCC read of e32 carry and select forms (one constant-bus value). */
  implicitVcc: boolean;
}

/** A 64-bit float operand (its literal is the high dword): two units wide in an f64 instruction. */
export function isFp64(desc: InsnDesc, spec: OpSpec | undefined): boolean {
  return spec !== undefined && spec.width === 2 && desc.name.includes('_f64');
}

/** Can the form's vector rules apply (VALU, MFMA; not interpolation, whose attr0.x / p10 operands are neither literals nor scalars)? */
export function vectorRulesApply(desc: InsnDesc): boolean {
  return (desc.cls === 'valu' || desc.cls === 'mfma') && !(desc.encoding === 'vintrp' || desc.name.startsWith('v_interp_'));
}

export function isVop3b(desc: InsnDesc, specs: readonly OpSpec[]): boolean {
  return specs.some((sp) => sp.role === 'carryOut') || /^v_(div_scale_f(32|64)|mad_[iu]64_[iu]32)$/.test(desc.name);
}

/* Modifier names the rules look at. */
const M = (n: string) => MODIFIER_NAMES.idOf(n);
const MOD_DLC = M('dlc');
const MOD_SCC = M('scc');
const MOD_OFFSET = M('offset');
const MOD_OFFSET0 = M('offset0');
const MOD_OFFSET1 = M('offset1');
const MOD_OP_SEL = M('op_sel');
const MOD_OP_SEL_HI = M('op_sel_hi');
const OLD_POLICY_IDS = new Set(['glc', 'slc', 'noglc', 'noslc'].map(M));
const NEW_POLICY_IDS = new Set(['sc0', 'sc1', 'nt'].map(M));

/** Constant sources by name: the constant bus key of one (negative, apart from register keys). */
const CONST_KEYS = new Map<string, number>();
function constKey(name: string): number {
  let k = CONST_KEYS.get(name);
  if (k === undefined) { k = -(CONST_KEYS.size + 1); CONST_KEYS.set(name, k); }
  return k;
}

/* What the rules read of the store, for instruction I of store S (set by legalityIssues). */
let S: InsnStore;
let I = 0;

function mnemonic(): string {
  return OPCODES.mnemonic[S.opcode[I]!]!;
}

function text(k: number): string {
  return S.operandText(I, k);
}

/**
 * Whether operand k is a literal: an expression, or an immediate that is not an inline constant
 * (an integer beyond what a double holds exactly never is: its value is not the one written).
 * `narrow`: a 32-bit operand (isInlineValue).
 */
function isLiteralAt(k: number, fp64: boolean, narrow = false): boolean {
  const kind = S.oKind[k]!;
  if (kind === OP_EXPR) return true;
  if (kind !== OP_IMM) return false;
  const flags = S.oFlags[k]!;
  return (flags & OPF_INEXACT) !== 0 || !isInlineValue(S.oValue[k]!, (flags & OPF_FLOAT) !== 0, fp64, narrow);
}

/** A 32-bit operand of the form (a source one unit wide). */
function narrowAt(specs: readonly OpSpec[], i: number): boolean {
  return specs[i]?.width === 1;
}

/** The constant-bus key of a scalar value (SGPRs, trap temporaries, VCC, EXEC, M0, the src_* constants), else 0. */
function scalarKeyAt(k: number): number {
  const kind = S.oKind[k]!;
  if (kind === OP_REG) {
    const f = S.oFile[k]!;
    return f === FILE_V || f === FILE_A ? 0 : 1 + S.oFirst[k]! * 64 + S.oCount[k]!;
  }
  if (kind === OP_CONST) {
    const name = S.aux[S.oAux[k]!] as string;
    return name === 'lds_direct' || name === 'src_lds_direct' ? 0 : constKey(name);
  }
  return 0;
}

/** num of the first modifier named `name` (undefined when absent or without a number). */
function modValue(name: number): number | undefined {
  const m = S.findModifier(I, name);
  return m >= 0 && S.mFlags[m]! & 2 /* MF_NUM */ ? S.mNum[m] : undefined;
}

/** Registers of older generations that these targets do not have as operands (GFX9 removed TBA/TMA). */
const REMOVED_REGISTERS = new Set(['tba', 'tba_lo', 'tba_hi', 'tma', 'tma_lo', 'tma_hi']);

/** Offset ranges of memory instructions, the same on all five targets. */
const OFFSET_RANGES: Partial<Record<string, [number, number, string]>> = {
  flat: [0, 4095, 'expected a 12-bit unsigned offset'],
  global: [-4096, 4095, 'expected a 13-bit signed offset'],
  scratch: [-4096, 4095, 'expected a 13-bit signed offset'],
  ds: [0, 65535, 'expected a 16-bit unsigned offset'],
};
const SMEM_SIGNED: [number, number, string] = [-(2 ** 20), 2 ** 20 - 1, 'expected a 21-bit signed offset'];
const SMEM_BUFFER: [number, number, string] = [0, 2 ** 20 - 1, 'expected a 20-bit unsigned offset'];

/** Encodings whose cache-policy bits are glc/slc before gfx940 and sc0/sc1/nt from gfx940 on. */
const VECTOR_MEMORY = new Set(['mubuf', 'mtbuf', 'flat', 'global', 'scratch', 'mimg']);

function outside(v: number, r: [number, number, string]): boolean {
  return v < r[0] || v > r[1];
}

/** Scratch keys of the constant-bus and SALU-literal counts. */
const KEYS = new Float64Array(64);

/**
 * Append every operand-legality violation of instruction i of the store (whose operand count
 * is right) to `out`. Allocates nothing when there is none.
 */
export function legalityIssues(store: InsnStore, i: number, f: LegalityForm, target: Target, out: LegalityIssue[]): void {
  S = store;
  I = i;
  generalIssues(f, target, out);
  specialIssues(f, target, out);
  if (f.vector) vectorIssues(f, target, out);
}

const SPECIAL_ROLES = new Set(['hwreg', 'msg']);
const MOD_DPP_MASKS = new Set(['row_mask', 'bank_mask', 'bound_ctrl'].map(M));
const MOD_BOUND_CTRL = M('bound_ctrl');
const DPP_CONTROL_IDS = new Set([...DPP_CONTROLS].map(M));
const DPP_GFX10_IDS = new Set([...DPP_GFX10].map(M));
/** Roles of a DPP form that may name VCC (the select, carry in and out, a VOPC result). */
const DPP_VCC_ROLES = new Set(['mask', 'carryIn', 'carryOut', 'sdst']);

/** hwreg(), sendmsg(), swizzle(), 16-bit immediates, branch offsets and DPP controls (special-operands.ts). */
function specialIssues(f: LegalityForm, target: Target, out: LegalityIssue[]): void {
  const { desc, specs } = f;
  const b = S.opBegin[I]!;
  const e = S.opBegin[I + 1]!;
  for (let k = b; k < e; k++) {
    const kind = S.oKind[k]!;
    const role = specs[k - b]?.role;
    if (kind === OP_FUNC) {
      const fa = S.aux[S.oAux[k]!] as FuncAux;
      const why = fa.name === 'hwreg' ? hwregError(fa, target) : fa.name === 'sendmsg' ? sendmsgError(fa) : undefined;
      if (why) out.push(issue(fa.name === 'hwreg' ? 'operand-hwreg' : 'operand-sendmsg', `${why}: '${text(k)}'${fa.name === 'hwreg' ? ` on ${target.name}` : ''}`));
    } else if (kind === OP_IMM && role !== undefined) {
      const v = S.oValue[k]!;
      if (S.oFlags[k]! & OPF_LIT) {
        // lit(N) is a 32-bit literal: llvm-mc 22 takes it for 32-bit operands outside SDWA only.
        const spec = specs[k - b]!;
        if (spec.width === 2 && (f.fp64[k - b] || desc.cls !== 'salu')) out.push(issue('operand-literal-range', `literal operands are not supported: '${text(k)}' is a 32-bit literal and '${mnemonic()}' reads 64 bits`));
        else if (spec.width === 2 || f.variant === 'sdwa') out.push(issue('operand-literal-range', `invalid operand for instruction: '${mnemonic()}' takes no lit() literal here ('${text(k)}')`));
      }
      const why = SPECIAL_ROLES.has(role) ? simm16Error(v) : role === 'label' && desc.cls === 'branch' ? branchOffsetError(v) : undefined;
      if (why) out.push(issue('operand-simm16', `${why}: '${text(k)}'`));
    }
  }
  const mb = S.modBegin[I]!;
  const me = S.modBegin[I + 1]!;
  if (desc.name === 'ds_swizzle_b32') {
    const m = S.findModifier(I, MOD_OFFSET);
    const v = m >= 0 ? S.modifierValue(I, m) : undefined;
    const why = v !== undefined ? swizzleError(v) : undefined;
    if (why) out.push(issue('operand-swizzle', `${why}: '${v}'`));
  }
  if (!desc.valu) return;
  if (f.variant === 'sdwa') {
    // VOP2 SDWA keeps the VOP2 carry and select in VCC (an SGPR pair needs VOP3).
    for (let k = b; k < e; k++) {
      const role = specs[k - b]?.role;
      if ((role === 'mask' || role === 'carryIn' || role === 'carryOut') && S.oKind[k] === OP_REG && !(S.oFirst[k] === VCC_LO && S.oCount[k] === 2)) {
        out.push(issue('operand-dpp', `invalid operand for instruction: SDWA '${mnemonic()}' takes VCC, not '${text(k)}'`));
        return;
      }
    }
  }
  // The DPP rules are for instructions with a DPP encoding (v_permlane*_swap take bound_ctrl and fi of their own).
  if (!(desc.suffixes & SUFFIX.dpp)) return;
  let controls = 0;
  let dppMods = false;
  for (let m = mb; m < me; m++) {
    const name = S.mName[m]!;
    if (DPP_GFX10_IDS.has(name)) {
      out.push(issue('operand-dpp', `not a valid operand.: '${S.modifierText(I, m)}' is a GFX10+ DPP modifier`));
      return;
    }
    if (DPP_CONTROL_IDS.has(name)) {
      controls++;
      const why = dppControlError(MODIFIER_NAMES.str(name), S.mFlags[m]! & MF_NUM ? S.mNum[m] : undefined, target);
      if (why) { out.push(issue('operand-dpp', `${why}: '${S.modifierText(I, m)}' on ${target.name}`)); return; }
    } else if (MOD_DPP_MASKS.has(name)) {
      dppMods = true;
      if (name === MOD_BOUND_CTRL) {
        const why = dppControlError('bound_ctrl', S.mFlags[m]! & MF_NUM ? S.mNum[m] : undefined, target);
        if (why) { out.push(issue('operand-dpp', `${why}: '${S.modifierText(I, m)}'`)); return; }
      }
    }
  }
  if (f.variant !== 'dpp' && controls === 0 && !dppMods) return;
  if (controls !== 1) {
    out.push(issue('operand-dpp', controls === 0
      ? `not a valid operand.: a DPP instruction needs a control (quad_perm, row_shl, ...): '${mnemonic()}'`
      : `not a valid operand.: '${mnemonic()}' has more than one DPP control`));
    return;
  }
  // DPP sources are VGPRs; only the select, carry and compare result may be VCC.
  for (let k = b; k < e; k++) {
    const kind = S.oKind[k]!;
    const role = specs[k - b]?.role;
    if (kind === OP_REG) {
      const file = S.oFile[k]!;
      if (file === FILE_V || file === FILE_A) continue;
      if (S.oFirst[k] === VCC_LO && S.oCount[k] === 2 && role !== undefined && DPP_VCC_ROLES.has(role)) continue;
    } else if (kind !== OP_IMM && kind !== OP_CONST && kind !== OP_EXPR) continue;
    out.push(issue('operand-dpp', `invalid operand for instruction: DPP '${mnemonic()}' reads '${text(k)}' (DPP operands are VGPRs${role && DPP_VCC_ROLES.has(role) ? ', this one VCC' : ''})`));
    return;
  }
}

/** Operand k names a register the target does not have (tma_hi on gfx906: read as a symbol). */
function isRemovedRegister(k: number): boolean {
  if (S.oKind[k] !== OP_EXPR) return false;
  const syms = S.aux[S.oAux[k]!] as string[];
  return syms.length === 1 && syms[0]!.length <= 6 && REMOVED_REGISTERS.has(syms[0]!.toLowerCase());
}

/** Rules for every instruction class (registers, modifiers, offsets, literals). */
function generalIssues(f: LegalityForm, target: Target, out: LegalityIssue[]): void {
  const { desc, specs } = f;
  const b = S.opBegin[I]!;
  const e = S.opBegin[I + 1]!;
  for (let k = b; k < e; k++) {
    const kind = S.oKind[k]!;
    if (kind === OP_EXPR) {
      if (isRemovedRegister(k)) out.push(issue('operand-register', `${text(k)} register not available on ${target.name}`));
    } else if (kind === OP_CONST) {
      const name = S.aux[S.oAux[k]!] as string;
      if ((name === 'lds_direct' || name === 'src_lds_direct') && target.has('gfx90a-insts')) {
        out.push(issue('operand-register', `lds_direct is not supported on ${target.name}`));
      }
    }
  }
  const mb = S.modBegin[I]!;
  const me = S.modBegin[I + 1]!;
  const vmem = VECTOR_MEMORY.has(desc.encoding);
  for (let m = mb; m < me; m++) {
    const name = S.mName[m]!;
    let why: string | undefined;
    if (name === MOD_DLC) why = 'dlc is a GFX10+ bit';
    else if (name === MOD_SCC && !(target.has('gfx90a-insts') && !target.has('gfx940-insts'))) why = 'scc is a cache bit of gfx90a only';
    else if (vmem && OLD_POLICY_IDS.has(name) && target.has('gfx940-insts')) why = `${target.name} writes the cache policy as sc0/sc1/nt`;
    else if (vmem && NEW_POLICY_IDS.has(name) && !target.has('gfx940-insts')) why = `${MODIFIER_NAMES.str(name)} is a gfx940+ cache bit (${target.name} uses glc/slc)`;
    if (why) out.push(issue('operand-cache-policy', `${MODIFIER_NAMES.str(name)} modifier is not supported on ${target.name}: ${why}`));
  }
  const range = OFFSET_RANGES[desc.encoding];
  const off = mb < me ? modValue(MOD_OFFSET) : undefined;
  if (range && off !== undefined && outside(off, range)) {
    out.push(issue('operand-offset', `${range[2]}: offset:${off} is outside ${range[0]}..${range[1]}`));
  }
  if (desc.encoding === 'ds' && mb < me) {
    for (const [id, n] of [[MOD_OFFSET0, 'offset0'], [MOD_OFFSET1, 'offset1']] as const) {
      const v = modValue(id);
      if (v !== undefined && (v < 0 || v > 255)) out.push(issue('operand-offset', `expected an 8-bit unsigned offset: ${n}:${v} is outside 0..255`));
    }
  }
  if (desc.encoding === 'smem') {
    const r = desc.name.startsWith('s_buffer_') ? SMEM_BUFFER : SMEM_SIGNED;
    const k = f.soff >= 0 && b + f.soff < e ? b + f.soff : -1;
    const v = k >= 0 && S.oKind[k] === OP_IMM ? S.oValue[k] : off;
    if (v !== undefined && outside(v, r)) out.push(issue('operand-offset', `${r[2]}: ${v} is outside ${r[0]}..${r[1]}`));
  }
  if (desc.cls === 'salu' || desc.cls === 'branch') {
    // SALU encodings hold one 32-bit literal: two different literals cannot both be encoded.
    // A register the target lacks (reported above) is not a literal as well.
    const literal = (k: number): boolean => isLiteralAt(k, f.fp64[k - b] ?? false, narrowAt(specs, k - b)) && !isRemovedRegister(k);
    let lits = 0;
    for (let k = b; k < e; k++) if (literal(k)) lits++;
    if (lits > 1) {
      const keys = new Set<string>();
      for (let k = b; k < e; k++) if (literal(k)) keys.add(S.oKind[k] === OP_IMM ? String(S.oValue[k]) : text(k));
      if (keys.size > 1) out.push(issue('operand-scalar-literals', `only one unique literal operand is allowed: '${mnemonic()}' has ${[...keys].join(', ')}`));
    }
  }
  // Integer literals are 32 bits (GFX9 has no 64-bit literals): a 64-bit integer operand takes a
  // sign- or zero-extended 32-bit one, a 64-bit float operand one whose low dword is 0.
  for (let k = b; k < e; k++) {
    const spec = specs[k - b];
    if (S.oKind[k] !== OP_IMM || S.oFlags[k]! & OPF_FLOAT || !spec || (spec.kind !== 'src' && spec.kind !== 'ssrc')) continue;
    const fp64 = f.fp64[k - b]!;
    const v = S.oValue[k]!;
    const exact = (S.oFlags[k]! & OPF_INEXACT) === 0;
    if (exact && isInlineValue(v, false, fp64, narrowAt(specs, k - b))) continue;
    const fits = exact && v >= -(2 ** 31) && v <= 0xffffffff;
    if (!fits && !(exact && fp64 && v % TWO32 === 0 && v / TWO32 <= 0xffffffff)) {
      out.push(issue('operand-literal-range', `invalid operand for instruction: the literal '${text(k)}' of '${mnemonic()}' does not fit in 32 bits`));
    }
  }
}

/** The VOP3P mixed-precision FMA/MAD instructions (they take neg and abs source modifiers). */
const MIX = /^v_(fma|mad)_mix(lo|hi)?_/;

/** Rules for vector ALU and MFMA instructions. */
function vectorIssues(f: LegalityForm, target: Target, out: LegalityIssue[]): void {
  const { desc, specs } = f;
  const b = S.opBegin[I]!;
  const e = S.opBegin[I + 1]!;
  // VOP3B (an SGPR carry-out or condition destination) has no abs modifier.
  if (f.vop3b) {
    for (let k = b; k < e; k++) {
      if ((S.oKind[k] === OP_REG || S.oKind[k] === OP_IMM) && S.oFlags[k]! & OPF_ABS) {
        out.push(issue('operand-modifier', `ABS not allowed in VOP3B instructions: '${mnemonic()}'`));
        break;
      }
    }
  }
  // v_fma_mix* / v_mad_mix* are VOP3P but take the VOP3 neg and abs source modifiers (LLVM
  // VOP3PInstructions.td VOP3P_Mix_Profile, FP input modifiers; llvm-mc 22 accepts
  // 'v_fma_mix_f32 v0, |v1|, -v2, v3' on gfx906: ggml's gfx906 mmq kernels have it)
  if (f.vop3p && !MIX.test(desc.name)) {
    for (let k = b; k < e; k++) {
      const kind = S.oKind[k]!;
      if ((kind === OP_REG || kind === OP_IMM || kind === OP_CONST) && S.oFlags[k]! & (OPF_NEG | OPF_ABS)) {
        out.push(issue('operand-modifier', `not a valid operand: '${mnemonic()}' takes no source modifier on '${text(k)}' (packed and matrix instructions use neg_lo/neg_hi)`));
        break;
      }
    }
  }

  if (desc.mfma) mfmaIssues(f, target, out);

  // op_sel outside VOP3P only where the instruction has it (catalogue VOP3_OP_SEL)
  if (!f.vop3p && desc.cls === 'valu' && !VOP3_OP_SEL.has(desc.name) && S.findModifier(I, MOD_OP_SEL) >= 0) {
    out.push(issue('operand-modifier', `not a valid operand.: '${mnemonic()}' takes no op_sel modifier`));
  }

  if (desc.name === 'v_mfma_ld_scale_b32') {
    for (let m = S.modBegin[I]!; m < S.modBegin[I + 1]!; m++) {
      if (S.mName[m] !== MOD_OP_SEL && S.mName[m] !== MOD_OP_SEL_HI) {
        out.push(issue('operand-modifier', `not a valid operand: v_mfma_ld_scale_b32 takes op_sel/op_sel_hi only, not '${S.modifierText(I, m)}'`));
        break;
      }
    }
  }

  if (desc.name === 'v_accvgpr_write_b32' && b + 1 < e) {
    const k = b + 1;
    if (S.oKind[k] === OP_REG && S.oFile[k] === FILE_A) {
      out.push(issue('operand-accvgpr-write', `invalid operand for instruction: v_accvgpr_write_b32 reads a VGPR or an inline constant, not '${text(k)}'`));
    } else if (isLiteralAt(k, false)) {
      out.push(issue('operand-accvgpr-write', `invalid operand for instruction: v_accvgpr_write_b32 takes no literal constant ('${text(k)}')`));
    } else if (scalarKeyAt(k) !== 0 && !target.has('gfx90a-insts')) {
      out.push(issue('operand-accvgpr-write', `source operand must be either a VGPR or an inline constant: v_accvgpr_write_b32 on ${target.name}`));
    }
  }

  if (f.vop3Form) {
    for (let k = b; k < e; k++) {
      if (isLiteralAt(k, f.fp64[k - b] ?? false, narrowAt(specs, k - b))) {
        out.push(issue('operand-vop3-literal', `literal operands are not supported: '${mnemonic()}' is a VOP3/VOP3P encoding, which takes only inline constants on ${target.name} ('${text(k)}')`));
        break;
      }
    }
  }

  // Constant bus: one scalar value per VALU instruction on GFX9.
  let seen = 0;
  let literals = 0;
  const add = (key: number) => {
    for (let j = 0; j < seen; j++) if (KEYS[j] === key) return;
    KEYS[seen++] = key;
  };
  for (let k = b; k < e; k++) {
    const spec = specs[k - b];
    if (!spec || spec.access === 'd') continue;
    // An M0 lane select of v_writelane does not use the constant bus (llvm-mc 22 accepts
    // `v_writelane_b32 v1, s4, m0` and rejects `v_writelane_b32 v1, s4, s5`).
    if (spec.role === 'lane' && S.oKind[k] === OP_REG && S.oFirst[k] === M0) continue;
    const key = scalarKeyAt(k);
    if (key !== 0) add(key);
    else if (isLiteralAt(k, f.fp64[k - b]!, narrowAt(specs, k - b))) literals++;
  }
  if (f.implicitVcc) add(1 + VCC_LO * 64 + 2);
  if (seen + literals > 1) {
    out.push(issue('operand-constant-bus', `invalid operand (violates constant bus restrictions): '${mnemonic()}' reads ${seen + literals} scalar values; a vector instruction may read one`));
  }
}

function mfmaIssues(f: LegalityForm, target: Target, out: LegalityIssue[]): void {
  const { desc, specs } = f;
  const b = S.opBegin[I]!;
  const e = S.opBegin[I + 1]!;
  const c = f.srcC >= 0 && b + f.srcC < e ? b + f.srcC : -1;
  if (b < e && S.oKind[b] === OP_REG && c >= 0 && S.oKind[c] === OP_REG) {
    const dFile = S.oFile[b]!;
    const cFile = S.oFile[c]!;
    if (!target.has('gfx90a-insts') && (dFile !== FILE_A || cFile !== FILE_A)) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${mnemonic()}' vdst and SrcC are AGPRs on ${target.name}`));
    } else if (dFile !== cFile) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${mnemonic()}' vdst and SrcC must be in the same register file`));
    }
    const dFirst = S.oFirst[b]!;
    const dCount = S.oCount[b]!;
    const cFirst = S.oFirst[c]!;
    const cCount = S.oCount[c]!;
    const overlap = dFirst < cFirst + cCount && cFirst < dFirst + dCount;
    // Results of at most 128 bits may overlap SrcC in any way (llvm-mc 22 accepts
    // `v_mfma_f32_16x16x16f16 v[0:3], v[6:7], v[8:9], v[2:5]`).
    if (overlap && dCount > 4 && (dFirst !== cFirst || dCount !== cCount)) {
      const message = `source 2 operand must not partially overlap with dst: '${mnemonic()}' ${text(c)} and ${text(b)}`;
      if (desc.name.includes('f8f6f4')) {
        // llvm-mc 22 does not check the gfx950 f8f6f4 forms, but LLVM never writes such an
        // overlap: code generation makes every MFMA result over 128 bits early-clobber against SrcC.
        out.push({
          rule: 'operand-mfma-overlap', severity: 'warning',
          message: `${message} (llvm-mc accepts it for this instruction; LLVM never generates it)`,
          source: 'LLVM VOP3PInstructions.td: VOPProfileMAI sets NoDstOverlap for results over 128 bits '
            + '(vdst early-clobber against SrcC); AMDGPUAsmParser::validateMFMA rejects it for every other MFMA; '
            + `llvm-mc 22 accepts it for the f8f6f4 forms (measured by ${PROBES})`,
        });
      } else {
        out.push(issue('operand-mfma-overlap', message));
      }
    }
  }
  for (let k = b; k < e; k++) {
    const role = specs[k - b]?.role;
    const kind = S.oKind[k]!;
    const file = S.oFile[k]!;
    if ((role === 'srcA' || role === 'srcB') && !(kind === OP_REG && (file === FILE_V || file === FILE_A))) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${mnemonic()}' ${role} must be a VGPR or AGPR, not '${text(k)}'`));
    }
    if ((role === 'scaleA' || role === 'scaleB') && !(kind === OP_REG && file === FILE_V)) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${mnemonic()}' scale operand must be a VGPR, not '${text(k)}'`));
    }
    if (role === 'srcC' && kind === OP_IMM && hasMfmaInlineLiteralBug(target)) {
      out.push({ ...issue('operand-mfma-inline-srcc', `inline constants are not allowed for this operand: '${mnemonic()}' SrcC on ${target.name} (FeatureMFMAInlineLiteralBug)`), source: MFMA_INLINE_LITERAL_BUG_SOURCE });
    }
  }
}


