/**
 * Register units: every 32-bit register (and each 1-bit state register such as SCC) is one
 * unit, numbered in a single dense space so that sets of units can be bitsets.
 *
 *   0..127    the scalar operand space, numbered by hardware operand encoding on GFX9
 *             (s0..s105 = 0..105, flat_scratch_lo/hi = 102/103, xnack_mask_lo/hi = 104/105,
 *             vcc_lo/hi = 106/107, ttmp0..15 = 108..123, m0 = 124, exec_lo/hi = 126/127).
 *             Source: the GFX9 SSRC encoding table (AMD Vega / CDNA ISA, "SSRC0" operand field);
 *             vcc aliases the top SGPR pair, as LLVM's MIR shows (SIRegisterInfo.td).
 *   128       SCC
 *   129       MODE (the FP mode register, read by floating point VALU instructions)
 *   256..767  v0..v511 (architectural VGPRs; targets allow at most v255)
 *   768..1023 a0..a255 (accumulation VGPRs, "AGPRs", gfx908+)
 *
 * One unit per physical register: on a unified VGPR/AGPR file (gfx90a+) a VGPR at or above the
 * kernel's accum_offset is the AGPR it aliases, v(accum_offset+k) resolving to the unit of a_k
 * (layout.ts). A unit's name (unitName, rangeName) is then its AGPR name; names.ts names units
 * as an instruction writes them.
 */

export type RegUnit = number;

export const SGPR_BASE = 0;
export const FLAT_SCRATCH_LO = 102;
export const FLAT_SCRATCH_HI = 103;
export const XNACK_MASK_LO = 104;
export const XNACK_MASK_HI = 105;
export const VCC_LO = 106;
export const VCC_HI = 107;
export const TTMP_BASE = 108;
export const M0 = 124;
export const EXEC_LO = 126;
export const EXEC_HI = 127;
export const SCC = 128;
export const MODE = 129;
export const VGPR_BASE = 256;
export const AGPR_BASE = 768;
export const UNIT_COUNT = 1024;

export type RegFile = 'v' | 's' | 'a' | 'ttmp' | 'special';

/** Named registers of the GFX9 family: name -> [first unit, number of units]. */
export const SPECIAL_REGISTERS: Readonly<Record<string, readonly [RegUnit, number]>> = {
  vcc: [VCC_LO, 2],
  vcc_lo: [VCC_LO, 1],
  vcc_hi: [VCC_HI, 1],
  exec: [EXEC_LO, 2],
  exec_lo: [EXEC_LO, 1],
  exec_hi: [EXEC_HI, 1],
  m0: [M0, 1],
  scc: [SCC, 1],
  mode: [MODE, 1],
  flat_scratch: [FLAT_SCRATCH_LO, 2],
  flat_scratch_lo: [FLAT_SCRATCH_LO, 1],
  flat_scratch_hi: [FLAT_SCRATCH_HI, 1],
  xnack_mask: [XNACK_MASK_LO, 2],
  xnack_mask_lo: [XNACK_MASK_LO, 1],
  xnack_mask_hi: [XNACK_MASK_HI, 1],
};

/**
 * Read-only operand sources that name no allocatable register (they read as constants or
 * hardware state); they occupy no register unit. Source: GFX9 SSRC encoding table.
 */
export const CONSTANT_SOURCES: ReadonlySet<string> = new Set([
  'src_shared_base', 'src_shared_limit', 'src_private_base', 'src_private_limit',
  'src_pops_exiting_wave_id', 'src_vccz', 'src_execz', 'src_scc', 'src_lds_direct',
  'shared_base', 'shared_limit', 'private_base', 'private_limit', 'pops_exiting_wave_id',
  'vccz', 'execz', 'lds_direct',
]);

export function vgpr(n: number): RegUnit { return VGPR_BASE + n; }
export function agpr(n: number): RegUnit { return AGPR_BASE + n; }
export function sgpr(n: number): RegUnit { return SGPR_BASE + n; }
export function ttmp(n: number): RegUnit { return TTMP_BASE + n; }

export function isVgprUnit(u: RegUnit): boolean { return u >= VGPR_BASE && u < AGPR_BASE; }
export function isAgprUnit(u: RegUnit): boolean { return u >= AGPR_BASE && u < UNIT_COUNT; }
/** s0..s105 (the allocatable SGPRs and the registers that alias them on GFX9). */
export function isSgprUnit(u: RegUnit): boolean { return u >= 0 && u < VCC_LO; }

const SCALAR_NAMES: Record<number, string> = {
  [VCC_LO]: 'vcc_lo', [VCC_HI]: 'vcc_hi', [M0]: 'm0', [125]: 'null', [EXEC_LO]: 'exec_lo',
  [EXEC_HI]: 'exec_hi', [SCC]: 'scc', [MODE]: 'mode',
};

/** Printable name of one unit: v12, a3, s40, vcc_lo, ttmp4, scc, mode ... */
export function unitName(u: RegUnit): string {
  if (isAgprUnit(u)) return `a${u - AGPR_BASE}`;
  if (isVgprUnit(u)) return `v${u - VGPR_BASE}`;
  if (u >= TTMP_BASE && u < TTMP_BASE + 16) return `ttmp${u - TTMP_BASE}`;
  const n = SCALAR_NAMES[u];
  if (n) return n;
  if (u >= 0 && u < VCC_LO) return `s${u}`;
  return `unit${u}`;
}

/** Name of a contiguous register range as LLVM prints it (v[4:7], s8, vcc, exec). */
export function rangeName(first: RegUnit, count: number): string {
  if (count === 2 && first === VCC_LO) return 'vcc';
  if (count === 2 && first === EXEC_LO) return 'exec';
  if (count === 1) return unitName(first);
  const prefix = isAgprUnit(first) ? 'a' : isVgprUnit(first) ? 'v'
    : first >= TTMP_BASE && first < TTMP_BASE + 16 ? 'ttmp' : 's';
  const base = prefix === 'a' ? AGPR_BASE : prefix === 'v' ? VGPR_BASE : prefix === 'ttmp' ? TTMP_BASE : 0;
  return `${prefix}[${first - base}:${first - base + count - 1}]`;
}

/**
 * Compact names for a set of units, merging runs within one register file (VGPRs, AGPRs, SGPRs,
 * trap temporaries) and naming vcc and exec as pairs: "v[0:3], s4, vcc, exec, ttmp[4:7], m0".
 */
export function unitsToString(units: Iterable<RegUnit>): string {
  const s = [...new Set(units)].sort((a, b) => a - b);
  const file = (u: RegUnit) => (isAgprUnit(u) ? 2 : isVgprUnit(u) ? 1 : isSgprUnit(u) ? 0 : u >= TTMP_BASE && u < TTMP_BASE + 16 ? 3 : 4);
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const u = s[i]!;
    const pair = (lo: RegUnit, hi: RegUnit) => u === lo && s[i + 1] === hi;
    if (pair(VCC_LO, VCC_HI) || pair(EXEC_LO, EXEC_HI) || pair(FLAT_SCRATCH_LO, FLAT_SCRATCH_HI)) {
      out.push(rangeName(u, 2));
      i += 2;
      continue;
    }
    let j = i;
    if (file(u) < 4) while (j + 1 < s.length && s[j + 1] === s[j]! + 1 && file(s[j + 1]!) === file(u)) j++;
    out.push(j === i ? unitName(u) : rangeName(u, j - i + 1));
    i = j + 1;
  }
  return out.join(', ');
}
