/** Sample instructions for the isa oracle tests: operands of the kinds and widths a catalogue entry expects. */
import type { InsnDesc, OpSpec } from '../../src/isa/types.js';
import type { Target } from '../../src/isa/target.js';

function reg(prefix: string, base: number, width: number): string {
  return width <= 1 ? `${prefix}${base}` : `${prefix}[${base}:${base + width - 1}]`;
}

function sgprBase(width: number): number {
  return width >= 16 ? 16 : 8;
}

/** A sample operand for a spec (even-aligned, inside every target's register files). */
export function sample(desc: InsnDesc, spec: OpSpec, target: Target): string {
  const w = Math.max(1, spec.width);
  const mfma = desc.cls === 'mfma';
  switch (spec.kind) {
    case 'v': return reg('v', spec.access === 'u' ? 2 : 16, w);
    case 'a': return reg('a', spec.access === 'u' ? 2 : 24, w); // not a16: the parser reads it as a modifier
    case 'va': return mfma && !target.has('gfx90a-insts') ? reg('a', 32, w) : reg('v', spec.access === 'u' ? 40 : 16, w);
    case 's': return reg('s', sgprBase(w), w);
    case 'src':
      if (spec.role === 'srcC') return target.has('gfx90a-insts') ? reg('v', 128, w) : reg('a', 128, w);
      return reg('v', spec.role === 'srcB' ? 80 : spec.role === 'src1' ? 4 : spec.role === 'src2' ? 8 : 2, w);
    case 'ssrc': return reg('s', 4, w);
    case 'vaddr':
      if (desc.encoding === 'mubuf' || desc.encoding === 'mtbuf') return 'off';
      if (desc.encoding === 'global') return 'v[2:3]';
      return 'v2';
    case 'saddr': return 'off';
    case 'imm':
      if (desc.name.includes('mk_') || desc.name.includes('ak_')) return desc.name.endsWith('f16') ? '0x4120' : '0x41200000';
      return '0';
    case 'label': return 'L0';
    case 'func':
      if (desc.name.includes('reg')) return 'hwreg(HW_REG_MODE)';
      if (desc.name.includes('sendmsg')) return 'sendmsg(MSG_INTERRUPT)';
      return 'gpr_idx(SRC0)';
    case 'any':
      if (spec.role === 'waitcnt') return 'vmcnt(0)';
      if (spec.role === 'target') return 'mrt0';
      if (spec.role === 'attr') return 'attr0.x';
      if (spec.role === 'soff') return '0x10';
      return 'p10';
  }
}

/** Modifiers an instruction needs to be written at all (LDS-DMA forms, GWS, tbuffer). */
function modifiersFor(desc: InsnDesc): string {
  if (desc.name === 'buffer_store_lds_dword') return ' lds';
  if (desc.mem?.space === 'gws') return ' gds';
  if (desc.encoding === 'mtbuf') return ' format:116'; // BUF_DATA_FORMAT_32, BUF_NUM_FORMAT_FLOAT
  return '';
}

export function sampleLine(desc: InsnDesc, target: Target): string {
  const ops = desc.ops.map((s) => sample(desc, s, target));
  return `${desc.name}${ops.length ? ' ' + ops.join(', ') : ''}${modifiersFor(desc)}`;
}
