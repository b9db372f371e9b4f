/**
 * MFMA / SMFMAC shapes, kinds and pass counts.
 *
 * Shapes come from the mnemonic (v_mfma_<out>_<M>x<N>x<K>[_<B>b]_<type>, the gfx908/gfx90a
 * spelling v_mfma_f32_32x32x8f16, and v_smfmac_<out>_<M>x<N>x<K>_<type>); register widths
 * follow from the shape: per lane, D and C hold B*M*N/64 elements (two units each for f64) and
 * A/B hold B*M*K elements (SMFMAC: A is half of that, being 2:4 sparse). Checked against the
 * LLVM 22 disassembler on all five targets (test/oracle/isa-catalogue.test.ts).
 *
 * Kinds: LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl) and GCNHazardRecognizer isXDL; pass
 * counts: LLVM SISchedule.td (the scheduling model of each target); the CDNA3 ISA (§7.5 Table 37)
 * and the CDNA4 ISA agree.
 */
import type { Target } from './target.js';
import type { MfmaKind } from './types.js';

export interface MfmaShape {
  /** 'mfma' or 'smfmac'. */
  op: 'mfma' | 'smfmac';
  scaled: boolean;
  out: 'f32' | 'i32' | 'f64';
  m: number;
  n: number;
  k: number;
  /** Number of blocks (the _Nb of gfx940 names; implied by K in the gfx908 spelling). */
  blocks: number;
  /** Input element type: f32, xf32, f16, bf16, bf16_1k, i8, fp8 (any fp8/bf8 pair), f8f6f4, f64. */
  type: string;
  /** True for the gfx908/gfx90a spelling (v_mfma_f32_32x32x8f16, _1k, f64 without underscore). */
  legacy: boolean;
  /** Units of D (= C), A and B. A and B of f8f6f4 depend on cbsz/blgp (see f8f6f4Units). */
  dstUnits: number;
  aUnits: number;
  bUnits: number;
}

const BYTES: Record<string, number> = { f32: 4, xf32: 4, f16: 2, bf16: 2, bf16_1k: 2, i8: 1, fp8: 1, f8f6f4: 1, f64: 8 };

const NEW_RE = /^v_(mfma|smfmac)_(?:(scale)_)?(f32|i32|f64)_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?_(f32|xf32|f16|bf16|i8|f64|f8f6f4|(?:fp8|bf8)_(?:fp8|bf8))$/;
const OLD_RE = /^v_mfma_(f32|i32|f64)_(\d+)x(\d+)x(\d+)(f32|f16|bf16_1k|bf16|i8|f64)$/;

/** Parse an MFMA/SMFMAC mnemonic; undefined when it is not one. */
export function parseMfma(name: string): MfmaShape | undefined {
  let m = NEW_RE.exec(name);
  let legacy = false;
  let op: 'mfma' | 'smfmac';
  let scaled = false;
  let out: string;
  let M: number; let N: number; let K: number; let blocks: number; let type: string;
  if (m) {
    op = m[1] as 'mfma' | 'smfmac';
    scaled = m[2] === 'scale';
    out = m[3]!; M = +m[4]!; N = +m[5]!; K = +m[6]!;
    blocks = m[7] ? +m[7] : 1;
    type = m[8]!.includes('8_') ? 'fp8' : m[8]!;
  } else {
    m = OLD_RE.exec(name);
    if (!m) return undefined;
    legacy = true;
    op = 'mfma';
    out = m[1]!; M = +m[2]!; N = +m[3]!; K = +m[4]!; type = m[5]!;
    blocks = legacyBlocks(M, K, type);
  }
  const bytes = BYTES[type];
  if (bytes === undefined) return undefined;
  const outUnits = out === 'f64' ? 2 : 1;
  const dstUnits = (blocks * M * N * outUnits) / 64;
  let aUnits = (blocks * M * K * bytes) / 256;
  let bUnits = aUnits;
  if (op === 'smfmac') { aUnits = (M * K * bytes) / 512; bUnits = (M * K * bytes) / 256; }
  return {
    op, scaled, out: out as MfmaShape['out'], m: M, n: N, k: K, blocks, type, legacy,
    dstUnits, aUnits: Math.max(1, aUnits), bUnits: Math.max(1, bUnits),
  };
}

/**
 * Blocks of a gfx908-spelled MFMA: the smallest K of each type is the multi-block form
 * (32x32: 2 blocks, 16x16: 4 blocks, 4x4: 16 blocks; f64 4x4x4: 4 blocks).
 */
function legacyBlocks(M: number, K: number, type: string): number {
  if (type === 'f64') return M === 4 ? 4 : 1;
  if (M === 4) return 16;
  const minK: Record<string, number> = { f32: 1, f16: 4, i8: 4, bf16: 2, bf16_1k: 4 };
  if (K !== minK[type]) return 1;
  return M === 32 ? 2 : 4;
}

/** gfx940 name of an MFMA (the gfx908 spelling maps to it on gfx940+ targets). */
export function mfma940Name(s: MfmaShape, name: string): string {
  if (!s.legacy) return name;
  const t = s.type === 'bf16_1k' ? 'bf16' : s.type;
  const b = s.blocks > 1 ? `_${s.blocks}b` : '';
  return `v_mfma_${s.out}_${s.m}x${s.n}x${s.k}${b}_${t}`;
}

/** MFMA kind on gfx940+ (SGEMM = f32 inputs, DGEMM = f64, SMFMAC, else XDL). */
export function mfmaKind(s: MfmaShape): MfmaKind {
  if (s.op === 'smfmac') return 'smfmac';
  if (s.type === 'f64') return 'dgemm';
  if (s.type === 'f32') return 'sgemm';
  return 'xdl';
}

/**
 * Kind as the hazard rules of a target see it: without gfx940-insts every non-DGEMM MFMA is
 * XDL (LLVM VOP3PInstructions.td (is_dgemm, is_gfx940_xdl) and GCNHazardRecognizer isXDL).
 */
export function mfmaKindOn(s: MfmaShape, target: Target): MfmaKind {
  const k = mfmaKind(s);
  if (k === 'sgemm' && !target.has('gfx940-insts')) return 'xdl';
  return k;
}

/**
 * Units of an f8f6f4 A or B operand for its format code (cbsz for A, blgp for B: 0 fp8, 1 bf8,
 * 2 fp6, 3 bf6, 4 fp4). Both 16x16x128 and 32x32x64 hold 32 elements per lane.
 */
export function f8f6f4Units(code: number): number {
  const bits = code <= 1 ? 8 : code <= 3 ? 6 : 4;
  return (32 * bits) / 32;
}

const SRC_942 = 'LLVM SISchedule.td (SIDPGFX942FullSpeedModel)';
const SRC_950 = 'LLVM SISchedule.td (SIDPGFX950FullSpeedModel)';
const SRC_908 = 'LLVM SISchedule.td (SIQuarterSpeedModel / SIDPFullSpeedModel)';

/**
 * Pass count (1 pass = 4 cycles) of an MFMA on a target. `cbsz`/`blgp` select the f8f6f4
 * formats (gfx950): either being FP8/BF8 (code 0 or 1) doubles the passes.
 */
export function mfmaPasses(s: MfmaShape, target: Target, cbsz = 0, blgp = 0): { passes: number; source: string } {
  const byM = (m: number) => (m === 4 ? 2 : m === 16 ? 8 : 16);
  if (!target.has('gfx940-insts')) {
    if (s.type === 'f64') return { passes: s.m === 4 ? 4 : 8, source: SRC_908 };
    return { passes: byM(s.m), source: SRC_908 };
  }
  const src = target.has('gfx950-insts') ? SRC_950 : SRC_942;
  if (s.op === 'smfmac') return { passes: s.m === 16 ? 4 : 8, source: src };
  if (s.type === 'f64') {
    if (s.m === 4) return { passes: 4, source: src };
    return { passes: target.has('gfx950-insts') ? 16 : 8, source: src };
  }
  if (s.type === 'f32' || s.blocks > 1) return { passes: byM(s.m), source: src };
  if (s.type === 'f8f6f4') {
    // the compiler's passes (SISchedule.td's f8f6f4 InstRW and llc's padding after them); llvm-mca 22
    // reports the un-doubled 4/8 for the FP8 formats, as the model's InstRW leaves them (a TODO there)
    const f8 = cbsz <= 1 || blgp <= 1;
    const base = s.m === 16 ? 4 : 8;
    return { passes: f8 ? base * 2 : base, source: src };
  }
  // single-block f16/bf16/i8/fp8/xf32 and the gfx950 double-K forms
  return { passes: s.m === 16 ? 4 : 8, source: src };
}
