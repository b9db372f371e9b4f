/** Helpers shared by the scheduling tests. */
import type { ScheduleKernel } from '../../../src/schedule/kernel.js';
import { ScheduleState, canMove, moveTo } from '../../../src/schedule/state.js';

/** A random legal schedule of `k`: `moves` random moves, each applied when it keeps every dependency. */
export function randomSchedule(k: ScheduleKernel, rand: () => number, moves: number): ScheduleState {
  const s = new ScheduleState(k);
  for (let step = 0; step < moves; step++) {
    const r = Math.floor(rand() * k.regions.length);
    const m = k.regions[r]!.nodes.length;
    if (m < 2) continue;
    const from = Math.floor(rand() * m);
    const to = Math.floor(rand() * m);
    if (canMove(s, r, from, to)) moveTo(s, r, from, to);
  }
  return s;
}

/** A loop with global loads, LDS traffic, an MFMA chain and VALU work: every cache of the Evaluator has work. */
export const LOOP = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', 'k:',
  '  s_mov_b32 s8, 16',
  'loop:',
  '  global_load_dwordx4 v[0:3], v[40:41], off',
  '  global_load_dwordx4 v[4:7], v[40:41], off offset:16',
  '  ds_read_b64 v[8:9], v42',
  '  ds_read_b64 v[10:11], v42 offset:8',
  '  v_add_u32 v40, 64, v40',
  '  s_waitcnt lgkmcnt(0)',
  '  v_mfma_f32_32x32x8f16 a[0:15], v[8:9], v[10:11], a[0:15]',
  '  v_mfma_f32_32x32x8f16 a[16:31], v[8:9], v[10:11], a[16:31]',
  '  s_waitcnt vmcnt(0)',
  '  ds_write_b128 v43, v[0:3]',
  '  ds_write_b128 v43, v[4:7] offset:16',
  '  v_add_u32 v42, 0x100, v42',
  '  v_accvgpr_read_b32 v20, a0',
  '  v_add_f32 v21, v20, v20',
  '  s_sub_u32 s8, s8, 1',
  '  s_cmp_lg_u32 s8, 0',
  '  s_cbranch_scc1 loop',
  '  s_endpgm', '',
].join('\n');

/**
 * Files of gfx942 kernels written in a test, for the tests of kernels left as written (raw-offset
 * jumps, data words among the instructions): `kernel` one `.globl` function-typed kernel, `text`
 * a file of several; `PLAIN` a body that schedules; `LAYOUT_OPTS` a small deterministic search.
 */
const HEAD = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text'];
export const kernel = (name: string, body: string[]): string[] => ['.globl ' + name, '.p2align 8', `.type ${name},@function`, `${name}:`, ...body.map((l) => `  ${l}`), '  s_endpgm'];
export const PLAIN = ['v_mov_b32 v1, 1', 'v_mov_b32 v2, 2', 'v_add_u32 v3, v4, v5', 'v_mul_lo_u32 v6, v7, v8'];
export const text = (...ks: string[][]): string => [...HEAD, ...ks.flat(), ''].join('\n');
export const LAYOUT_OPTS = { budget: 20, jobs: 1, cache: false, seed: 1 } as const;


/** The same text with LF, CRLF and no final newline: what a writer that copies lines as they are must keep. */
export const TEXT_VARIANTS: readonly [string, (t: string) => string][] = [
  ['lf', (t) => t],
  ['crlf', (t) => t.replace(/\r?\n/g, '\r\n')],
  ['no final newline', (t) => t.replace(/\s+$/, '')],
];
