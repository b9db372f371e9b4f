/**
 * Operand legality rules of GFX9 vector instructions that llvm-mc enforces and that are not a
 * matter of operand count or register range. Each rule was measured with llvm-mc 22
 * (-triple=amdgcn-amd-amdhsa, -mcpu=gfx906/gfx908/gfx90a/gfx942 on probe lines such as
 * `v_add_f32_e64 v0, s1, s2`) and names that measurement:
 *   - constant bus: a VALU instruction reads at most one scalar value (distinct SGPR-class
 *     registers, a literal, and the implicit VCC of e32 carry/select forms each count once; the
 *     same SGPR twice counts once; EXEC does not count);
 *   - VOP3 and VOP3P encodings take no literal constant on GFX9 (only inline constants);
 *   - VOP3P (packed math, dot, MFMA) sources take no -x / |x| / abs() / neg() modifiers
 *     (they use neg_lo / neg_hi);
 *   - MFMA SrcA/SrcB are VGPRs or AGPRs; SrcC may not be an inline constant on targets with the
 *     MFMA inline-literal bug (gfx908; LLVM AMDGPU.td / GCNSubtarget.h feature predicates);
 *   - v_accvgpr_write reads a VGPR or an inline constant (gfx90a+: also an SGPR), never an AGPR
 *     or a literal;
 *   - MFMA vdst and SrcC are AGPRs on gfx908 and in one file from gfx90a, and SrcC is either the
 *     destination tuple or disjoint from it (results over 128 bits); scaled-MFMA scale operands are VGPRs;
 *   - VOP3B (carry-out / condition destination) takes no abs modifier;
 *   - memory offsets: FLAT 0..4095, global/scratch -4096..4095, DS 0..65535 (offset0/1 0..255);
 *   - one unique literal per SALU instruction; tba/tma are not registers here; dlc is GFX10+.
 */
import type { Instruction, Operand } from '../asm/ast.js';
import type { Target } from '../targets/types.js';
import type { InsnDesc, OpSpec } from './types.js';
import { EXEC_HI, EXEC_LO, M0, VCC_HI, VCC_LO } from './registers.js';

const MEASURED = 'oracle: llvm-mc 22 probes';

/**
 * FeatureMFMAInlineLiteralBug: MFMA SrcC may not be an inline constant. The first MFMA
 * generation has it; the gfx90a generation and later fixed it.
 */
const MFMA_INLINE_LITERAL_BUG_SOURCE = 'LLVM AMDGPU.td / GCNSubtarget.h feature predicates (FeatureMFMAInlineLiteralBug: gfx908 yes, gfx90a/942/950 no); '
  + 'oracle: llvm-mc 22 -mcpu=gfx908 rejects `v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0`, -mcpu=gfx90a accepts it';
function hasMfmaInlineLiteralBug(t: Target): boolean {
  return t.has('mai') && !t.has('gfx90a-insts');
}

/** f32 / f16 bit patterns of the inline float constants (±0.5, ±1, ±2, ±4, 1/(2π)). */
const INLINE_F32_BITS = new Set([0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983]);
const INLINE_F16_BITS = new Set([0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118]);
const INLINE_FLOATS = new Set([0.5, -0.5, 1, -1, 2, -2, 4, -4]);
const INV_2PI = 0.15915494309189535;

/** An immediate the hardware encodes as an inline constant (permissive: any type's pattern). */
export function isInlineConstant(o: Operand): boolean {
  if (o.kind !== 'imm') return false;
  const v = o.value;
  if (o.float) return v === 0 || INLINE_FLOATS.has(v) || Math.abs(v - INV_2PI) < 1e-7;
  if (!Number.isInteger(v)) return false;
  if (v >= -16 && v <= 64) return true;
  const u32 = v < 0 ? v + 2 ** 32 : v;
  if (u32 >= 0x80000000 && u32 <= 0xffffffff && u32 - 2 ** 32 >= -16) return true;
  if (INLINE_F32_BITS.has(u32) || INLINE_F16_BITS.has(u32)) return true;
  // 64-bit operands: the f64 inline constants have their pattern in the high dword
  if (v > 0xffffffff && INLINE_F32_BITS.has(Math.floor(v / 2 ** 32))) return true;
  return false;
}

function isLiteral(o: Operand): boolean {
  return (o.kind === 'imm' && !isInlineConstant(o)) || o.kind === 'expr';
}

function isScalarReg(o: Operand): boolean {
  if (o.kind !== 'reg') return false;
  return o.file === 's' || o.file === 'ttmp' || (o.file === 'special' && !(o.first === EXEC_LO || o.first === EXEC_HI));
}

/** The first violated rule, as llvm-mc words it, or undefined. */
/** Registers of older generations that these targets do not have (GFX9 removed TBA/TMA as operands). */
const REMOVED_REGISTERS = new Set(['tba', 'tba_lo', 'tba_hi', 'tma', 'tma_lo', 'tma_hi']);

/** Offset ranges of memory instructions, the same on all five targets (oracle: llvm-mc 22 probes). */
const OFFSET_RANGES: Partial<Record<string, [number, number, string]>> = {
  flat: [0, 4095, 'expected a 12-bit unsigned offset'],
  global: [-4096, 4095, 'expected a 13-bit signed offset'],
  scratch: [-4096, 4095, 'expected a 13-bit signed offset'],
  ds: [0, 65535, 'expected a 16-bit unsigned offset'],
};

function modValue(insn: Instruction, name: string): number | undefined {
  for (const m of insn.modifiers) if (m.name === name) return m.num;
  return undefined;
}

/** Rules for every instruction class (registers, modifiers, offsets, scalar literals). */
function generalError(insn: Instruction, desc: InsnDesc, target: Target): string | undefined {
  for (const o of insn.operands) {
    if (o.kind === 'expr' && o.symbols.length === 1 && REMOVED_REGISTERS.has(o.symbols[0]!.toLowerCase())) {
      return `${o.symbols[0]} register not available on ${target.name} [${MEASURED}]`;
    }
  }
  for (const m of insn.modifiers) {
    if (m.name === 'dlc') return `dlc modifier is not supported on ${target.name} (GFX10+) [${MEASURED}]`;
    if (m.name === 'scc' && target.has('gfx940-insts')) return `scc modifier is not supported on ${target.name} (use sc0/sc1/nt) [${MEASURED}]`;
  }
  const range = OFFSET_RANGES[desc.encoding];
  const off = modValue(insn, 'offset');
  if (range && off !== undefined && (off < range[0] || off > range[1])) return `${range[2]}: offset:${off} is outside ${range[0]}..${range[1]} [${MEASURED}]`;
  if (desc.encoding === 'ds') {
    for (const n of ['offset0', 'offset1']) {
      const v = modValue(insn, n);
      if (v !== undefined && (v < 0 || v > 255)) return `expected an 8-bit unsigned offset: ${n}:${v} is outside 0..255 [${MEASURED}]`;
    }
  }
  if (desc.cls === 'salu' || desc.cls === 'branch') {
    // SALU encodings hold one 32-bit literal: two different literals cannot both be encoded.
    const lits = new Set<string>();
    for (const o of insn.operands) if (isLiteral(o)) lits.add(o.kind === 'imm' ? String(o.value) : o.text);
    if (lits.size > 1) return `only one unique literal operand is allowed: '${insn.mnemonic}' has ${[...lits].join(', ')} [${MEASURED}]`;
  }
  return undefined;
}

export function legalityError(insn: Instruction, desc: InsnDesc, variant: string | undefined, specs: readonly OpSpec[], target: Target): string | undefined {
  const general = generalError(insn, desc, target);
  if (general) return general;
  if (desc.cls !== 'valu' && desc.cls !== 'mfma') return undefined;
  // Interpolation (VINTRP and its VOP3 f16 forms) names attributes and parameters (attr0.x, p10):
  // they are neither literals nor scalar registers.
  if (desc.encoding === 'vintrp' || desc.name.startsWith('v_interp_')) return undefined;
  const ops = insn.operands;
  // VOP3B (an SGPR carry-out or condition destination) has no abs modifier.
  const vop3b = specs.some((sp) => sp.role === 'carryOut') || /^v_(div_scale_f(32|64)|mad_[iu]64_[iu]32)$/.test(desc.name);
  if (vop3b && ops.some((o) => (o.kind === 'reg' || o.kind === 'imm') && o.mods?.abs)) {
    return `ABS not allowed in VOP3B instructions: '${insn.mnemonic}' [${MEASURED}]`;
  }
  const vop3p = desc.encoding === 'vop3p' || desc.mfma !== undefined;
  const vop3Form = vop3p || desc.encoding === 'vop3' || variant === 'e64';

  if (vop3p) {
    for (const o of ops) {
      if ((o.kind === 'reg' || o.kind === 'imm' || o.kind === 'const') && o.mods && (o.mods.neg || o.mods.abs)) {
        return `not a valid operand: '${insn.mnemonic}' takes no source modifier on '${o.text}' (packed and matrix instructions use neg_lo/neg_hi) [${MEASURED}]`;
      }
    }
  }

  if (desc.mfma) {
    const dst = ops[0];
    const cIdx = specs.findIndex((sp) => sp.role === 'srcC');
    const c = cIdx >= 0 ? ops[cIdx] : undefined;
    if (dst && dst.kind === 'reg' && c && c.kind === 'reg') {
      if (!target.has('gfx90a-insts') && (dst.file !== 'a' || c.file !== 'a')) {
        return `invalid operand for instruction: '${insn.mnemonic}' vdst and SrcC are AGPRs on ${target.name} [${MEASURED}]`;
      }
      if (dst.file !== c.file) return `invalid operand for instruction: '${insn.mnemonic}' vdst and SrcC must be in the same register file [${MEASURED}]`;
      const overlap = dst.first < c.first + c.count && c.first < dst.first + dst.count;
      // Only results wider than 128 bits are checked (llvm-mc 22 accepts `v_mfma_f32_16x16x16f16 v[0:3], v[6:7], v[8:9], v[2:5]`
      // and rejects partial overlap for 8-, 16- and 32-register results).
      if (overlap && dst.count > 4 && (dst.first !== c.first || dst.count !== c.count)) {
        return `source 2 operand must not partially overlap with dst: '${insn.mnemonic}' ${c.text} and ${dst.text} [${MEASURED}]`;
      }
    }
    for (let i = 0; i < ops.length; i++) {
      const role = specs[i]?.role;
      const o = ops[i]!;
      if ((role === 'srcA' || role === 'srcB') && !(o.kind === 'reg' && (o.file === 'v' || o.file === 'a'))) {
        return `invalid operand for instruction: '${insn.mnemonic}' ${role} must be a VGPR or AGPR, not '${o.text}' [${MEASURED}]`;
      }
      if ((role === 'scaleA' || role === 'scaleB') && !(o.kind === 'reg' && o.file === 'v')) {
        return `invalid operand for instruction: '${insn.mnemonic}' scale operand must be a VGPR, not '${o.text}' [${MEASURED}]`;
      }
      if (role === 'srcC' && o.kind === 'imm' && hasMfmaInlineLiteralBug(target)) {
        return `inline constants are not allowed for this operand: '${insn.mnemonic}' SrcC on ${target.name} [${MFMA_INLINE_LITERAL_BUG_SOURCE}]`;
      }
    }
  }

  if (desc.name === 'v_mfma_ld_scale_b32') {
    const bad = insn.modifiers.find((m) => m.name !== 'op_sel' && m.name !== 'op_sel_hi');
    if (bad) return `not a valid operand: v_mfma_ld_scale_b32 takes op_sel/op_sel_hi only, not '${bad.text}' [${MEASURED}]`;
  }

  if (desc.name === 'v_accvgpr_write_b32') {
    const src = ops[1];
    if (src && src.kind === 'reg' && src.file === 'a') return `invalid operand for instruction: v_accvgpr_write_b32 reads a VGPR or an inline constant, not '${src.text}' [${MEASURED}]`;
    if (src && isLiteral(src)) return `invalid operand for instruction: v_accvgpr_write_b32 takes no literal constant ('${src.text}') [${MEASURED}]`;
    if (src && isScalarReg(src) && !target.has('gfx90a-insts')) {
      return `source operand must be either a VGPR or an inline constant: v_accvgpr_write_b32 on ${target.name} [${MEASURED}]`;
    }
  }

  if (vop3Form) {
    for (const o of ops) {
      if (isLiteral(o)) return `literal operands are not supported: '${insn.mnemonic}' is a VOP3/VOP3P encoding, which takes only inline constants on ${target.name} ('${o.text}') [${MEASURED}]`;
    }
  }

  // Constant bus: one scalar value per VALU instruction on GFX9.
  const seen = new Set<string>();
  let literals = 0;
  for (let i = 0; i < ops.length; i++) {
    const spec = specs[i];
    if (!spec || spec.access === 'd') continue;
    const o = ops[i]!;
    // An M0 lane select of v_writelane does not use the constant bus (oracle: llvm-mc 22 accepts
    // `v_writelane_b32 v1, s4, m0` and rejects `v_writelane_b32 v1, s4, s5`).
    if (spec.role === 'lane' && o.kind === 'reg' && o.first === M0) continue;
    if (isScalarReg(o) && o.kind === 'reg') seen.add(`${o.first}:${o.count}`);
    else if (isLiteral(o)) literals++;
  }
  if (desc.implicitUses.includes(VCC_LO) || desc.implicitUses.includes(VCC_HI)) seen.add(`${VCC_LO}:2`);
  if (seen.size + literals > 1) {
    return `invalid operand (violates constant bus restrictions): '${insn.mnemonic}' reads ${seen.size + literals} scalar values; a vector instruction may read one [${MEASURED}]`;
  }
  return undefined;
}
