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
import type { Instruction, Operand } from '../asm/ast.js';
import type { Target } from './target.js';
import type { InsnDesc, OpSpec } from './types.js';
import { M0, VCC_HI, VCC_LO } from '../asm/registers.js';

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
  if (o.kind !== 'imm') return false;
  const v = o.value;
  if (o.float) return v === 0 || INLINE_FLOATS.has(v) || Math.abs(v - INV_2PI) < 1e-7;
  if (!Number.isInteger(v)) return false;
  if (v >= -16 && v <= 64) return true;
  const u32 = v < 0 ? v + TWO32 : v;
  if (u32 >= 0x80000000 && u32 <= 0xffffffff && u32 - TWO32 >= -16) return true;
  if (fp64 && u32 <= 0xffffffff && INLINE_F64_HIGH.has(u32)) return true;
  if (INLINE_F32_BITS.has(u32) || INLINE_F16_BITS.has(u32)) return true;
  // 64-bit values: the f64 inline constants' full patterns.
  if (v > 0xffffffff && v % TWO32 === 0 && INLINE_F64_HIGH.has(v / TWO32)) return true;
  return false;
}

/** A 64-bit float operand (its literal is the high dword): two units wide in an f64 instruction. */
function isFp64(desc: InsnDesc, spec: OpSpec | undefined): boolean {
  return spec !== undefined && spec.width === 2 && desc.name.includes('_f64');
}

function isLiteral(o: Operand, fp64 = false): boolean {
  return (o.kind === 'imm' && !isInlineConstant(o, fp64)) || o.kind === 'expr';
}

/** A scalar value read through the constant bus: SGPRs, trap temporaries, VCC, EXEC, M0 and the src_* constants. */
function scalarKey(o: Operand): string | undefined {
  if (o.kind === 'reg') return o.file === 'v' || o.file === 'a' ? undefined : `${o.first}:${o.count}`;
  if (o.kind === 'const') return o.name === 'lds_direct' || o.name === 'src_lds_direct' ? undefined : o.name;
  return undefined;
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
const OLD_POLICY = new Set(['glc', 'slc', 'noglc', 'noslc']);
const NEW_POLICY = new Set(['sc0', 'sc1', 'nt']);

function modValue(insn: Instruction, name: string): number | undefined {
  for (const m of insn.modifiers) if (m.name === name) return m.num;
  return undefined;
}

function outside(v: number, r: [number, number, string]): boolean {
  return v < r[0] || v > r[1];
}

/** Append every operand-legality violation of an instruction whose operand count is right to `out`. */
export function legalityIssues(insn: Instruction, desc: InsnDesc, variant: string | undefined, specs: readonly OpSpec[], target: Target,
  out: LegalityIssue[]): void {
  generalIssues(insn, desc, specs, target, out);
  if ((desc.cls === 'valu' || desc.cls === 'mfma') && !(desc.encoding === 'vintrp' || desc.name.startsWith('v_interp_'))) {
    // Interpolation (VINTRP and its VOP3 f16 forms) names attributes and parameters (attr0.x, p10):
    // they are neither literals nor scalar registers.
    vectorIssues(insn, desc, variant, specs, target, out);
  }
}

/** Rules for every instruction class (registers, modifiers, offsets, literals). */
function generalIssues(insn: Instruction, desc: InsnDesc, specs: readonly OpSpec[], target: Target, out: LegalityIssue[]): void {
  for (const o of insn.operands) {
    if (o.kind === 'expr' && o.symbols.length === 1 && REMOVED_REGISTERS.has(o.symbols[0]!.toLowerCase())) {
      out.push(issue('operand-register', `${o.symbols[0]} register not available on ${target.name}`));
    }
    if (o.kind === 'const' && (o.name === 'lds_direct' || o.name === 'src_lds_direct') && target.has('gfx90a-insts')) {
      out.push(issue('operand-register', `lds_direct is not supported on ${target.name}`));
    }
  }
  for (const m of insn.modifiers) {
    let why: string | undefined;
    if (m.name === 'dlc') why = 'dlc is a GFX10+ bit';
    else if (m.name === 'scc' && !(target.has('gfx90a-insts') && !target.has('gfx940-insts'))) why = 'scc is a cache bit of gfx90a only';
    else if (VECTOR_MEMORY.has(desc.encoding) && OLD_POLICY.has(m.name) && target.has('gfx940-insts')) why = `${target.name} writes the cache policy as sc0/sc1/nt`;
    else if (VECTOR_MEMORY.has(desc.encoding) && NEW_POLICY.has(m.name) && !target.has('gfx940-insts')) why = `${m.name} is a gfx940+ cache bit (${target.name} uses glc/slc)`;
    if (why) out.push(issue('operand-cache-policy', `${m.name} modifier is not supported on ${target.name}: ${why}`));
  }
  const range = OFFSET_RANGES[desc.encoding];
  const off = modValue(insn, 'offset');
  if (range && off !== undefined && outside(off, range)) {
    out.push(issue('operand-offset', `${range[2]}: offset:${off} is outside ${range[0]}..${range[1]}`));
  }
  if (desc.encoding === 'ds') {
    for (const n of ['offset0', 'offset1']) {
      const v = modValue(insn, n);
      if (v !== undefined && (v < 0 || v > 255)) out.push(issue('operand-offset', `expected an 8-bit unsigned offset: ${n}:${v} is outside 0..255`));
    }
  }
  if (desc.encoding === 'smem') {
    const r = desc.name.startsWith('s_buffer_') ? SMEM_BUFFER : SMEM_SIGNED;
    const k = specs.findIndex((sp) => sp.role === 'soff');
    const o = k >= 0 ? insn.operands[k] : undefined;
    const v = o && o.kind === 'imm' ? o.value : off;
    if (v !== undefined && outside(v, r)) out.push(issue('operand-offset', `${r[2]}: ${v} is outside ${r[0]}..${r[1]}`));
  }
  if (desc.cls === 'salu' || desc.cls === 'branch') {
    // SALU encodings hold one 32-bit literal: two different literals cannot both be encoded.
    const lits = new Set<string>();
    insn.operands.forEach((o, k) => { if (isLiteral(o, isFp64(desc, specs[k]))) lits.add(o.kind === 'imm' ? String(o.value) : o.text); });
    if (lits.size > 1) out.push(issue('operand-scalar-literals', `only one unique literal operand is allowed: '${insn.mnemonic}' has ${[...lits].join(', ')}`));
  }
  // Integer literals are 32 bits (GFX9 has no 64-bit literals): a 64-bit integer operand takes a
  // sign- or zero-extended 32-bit one, a 64-bit float operand one whose low dword is 0.
  insn.operands.forEach((o, k) => {
    const spec = specs[k];
    if (o.kind !== 'imm' || o.float || !spec || (spec.kind !== 'src' && spec.kind !== 'ssrc')) return;
    const fp64 = isFp64(desc, spec);
    if (isInlineConstant(o, fp64)) return;
    const v = o.value;
    const fits = v >= -(2 ** 31) && v <= 0xffffffff;
    if (!fits && !(fp64 && v % TWO32 === 0 && v / TWO32 <= 0xffffffff)) {
      out.push(issue('operand-literal-range', `invalid operand for instruction: the literal '${o.text}' of '${insn.mnemonic}' does not fit in 32 bits`));
    }
  });
}

/** Rules for vector ALU and MFMA instructions. */
function vectorIssues(insn: Instruction, desc: InsnDesc, variant: string | undefined, specs: readonly OpSpec[], target: Target, out: LegalityIssue[]): void {
  const ops = insn.operands;
  // VOP3B (an SGPR carry-out or condition destination) has no abs modifier.
  const vop3b = specs.some((sp) => sp.role === 'carryOut') || /^v_(div_scale_f(32|64)|mad_[iu]64_[iu]32)$/.test(desc.name);
  if (vop3b && ops.some((o) => (o.kind === 'reg' || o.kind === 'imm') && o.mods?.abs)) {
    out.push(issue('operand-modifier', `ABS not allowed in VOP3B instructions: '${insn.mnemonic}'`));
  }
  const vop3p = desc.encoding === 'vop3p' || desc.mfma !== undefined;
  const vop3Form = vop3p || desc.encoding === 'vop3' || variant === 'e64';

  if (vop3p) {
    const o = ops.find((x) => (x.kind === 'reg' || x.kind === 'imm' || x.kind === 'const') && x.mods && (x.mods.neg || x.mods.abs));
    if (o) {
      out.push(issue('operand-modifier', `not a valid operand: '${insn.mnemonic}' takes no source modifier on '${o.text}' (packed and matrix instructions use neg_lo/neg_hi)`));
    }
  }

  if (desc.mfma) mfmaIssues(insn, desc, specs, target, out);

  if (desc.name === 'v_mfma_ld_scale_b32') {
    const bad = insn.modifiers.find((m) => m.name !== 'op_sel' && m.name !== 'op_sel_hi');
    if (bad) out.push(issue('operand-modifier', `not a valid operand: v_mfma_ld_scale_b32 takes op_sel/op_sel_hi only, not '${bad.text}'`));
  }

  if (desc.name === 'v_accvgpr_write_b32') {
    const src = ops[1];
    if (src && src.kind === 'reg' && src.file === 'a') {
      out.push(issue('operand-accvgpr-write', `invalid operand for instruction: v_accvgpr_write_b32 reads a VGPR or an inline constant, not '${src.text}'`));
    } else if (src && isLiteral(src)) {
      out.push(issue('operand-accvgpr-write', `invalid operand for instruction: v_accvgpr_write_b32 takes no literal constant ('${src.text}')`));
    } else if (src && scalarKey(src) !== undefined && !target.has('gfx90a-insts')) {
      out.push(issue('operand-accvgpr-write', `source operand must be either a VGPR or an inline constant: v_accvgpr_write_b32 on ${target.name}`));
    }
  }

  if (vop3Form) {
    const k = ops.findIndex((o, i) => isLiteral(o, isFp64(desc, specs[i])));
    if (k >= 0) {
      out.push(issue('operand-vop3-literal', `literal operands are not supported: '${insn.mnemonic}' is a VOP3/VOP3P encoding, which takes only inline constants on ${target.name} ('${ops[k]!.text}')`));
    }
  }

  // Constant bus: one scalar value per VALU instruction on GFX9.
  const seen = new Set<string>();
  let literals = 0;
  for (let i = 0; i < ops.length; i++) {
    const spec = specs[i];
    if (!spec || spec.access === 'd') continue;
    const o = ops[i]!;
    // An M0 lane select of v_writelane does not use the constant bus (llvm-mc 22 accepts
    // `v_writelane_b32 v1, s4, m0` and rejects `v_writelane_b32 v1, s4, s5`).
    if (spec.role === 'lane' && o.kind === 'reg' && o.first === M0) continue;
    const key = scalarKey(o);
    if (key !== undefined) seen.add(key);
    else if (isLiteral(o, isFp64(desc, spec))) literals++;
  }
  if (desc.implicitUses.includes(VCC_LO) || desc.implicitUses.includes(VCC_HI)) seen.add(`${VCC_LO}:2`);
  if (seen.size + literals > 1) {
    out.push(issue('operand-constant-bus', `invalid operand (violates constant bus restrictions): '${insn.mnemonic}' reads ${seen.size + literals} scalar values; a vector instruction may read one`));
  }
}

function mfmaIssues(insn: Instruction, desc: InsnDesc, specs: readonly OpSpec[], target: Target, out: LegalityIssue[]): void {
  const ops = insn.operands;
  const dst = ops[0];
  const cIdx = specs.findIndex((sp) => sp.role === 'srcC');
  const c = cIdx >= 0 ? ops[cIdx] : undefined;
  if (dst && dst.kind === 'reg' && c && c.kind === 'reg') {
    if (!target.has('gfx90a-insts') && (dst.file !== 'a' || c.file !== 'a')) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${insn.mnemonic}' vdst and SrcC are AGPRs on ${target.name}`));
    } else if (dst.file !== c.file) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${insn.mnemonic}' vdst and SrcC must be in the same register file`));
    }
    const overlap = dst.first < c.first + c.count && c.first < dst.first + dst.count;
    // Results of at most 128 bits may overlap SrcC in any way (llvm-mc 22 accepts
    // `v_mfma_f32_16x16x16f16 v[0:3], v[6:7], v[8:9], v[2:5]`).
    if (overlap && dst.count > 4 && (dst.first !== c.first || dst.count !== c.count)) {
      const message = `source 2 operand must not partially overlap with dst: '${insn.mnemonic}' ${c.text} and ${dst.text}`;
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
  for (let i = 0; i < ops.length; i++) {
    const role = specs[i]?.role;
    const o = ops[i]!;
    if ((role === 'srcA' || role === 'srcB') && !(o.kind === 'reg' && (o.file === 'v' || o.file === 'a'))) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${insn.mnemonic}' ${role} must be a VGPR or AGPR, not '${o.text}'`));
    }
    if ((role === 'scaleA' || role === 'scaleB') && !(o.kind === 'reg' && o.file === 'v')) {
      out.push(issue('operand-mfma', `invalid operand for instruction: '${insn.mnemonic}' scale operand must be a VGPR, not '${o.text}'`));
    }
    if (role === 'srcC' && o.kind === 'imm' && hasMfmaInlineLiteralBug(target)) {
      out.push(issue('operand-mfma-inline-srcc', `inline constants are not allowed for this operand: '${insn.mnemonic}' SrcC on ${target.name} (FeatureMFMAInlineLiteralBug)`));
    }
  }
}
