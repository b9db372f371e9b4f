/** Running the built command line from tests: paths, a runner and a small kernel. */
import { spawnSync } from 'node:child_process';
import { bin } from '../../repo.js';
export { root, bin, example } from '../../repo.js';

export interface Run { code: number; out: string; err: string }

/** `conductor ARGS...` in a child process: exit code, standard output and standard error. */
export function run(...args: string[]): Run {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** A small gfx90a kernel: three VALU, an LDS write, a barrier. */
export const SMALL_KERNEL = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"',
  '.text',
  'k:',
  '  v_mov_b32 v1, 1',
  '  v_mov_b32 v2, 2',
  '  v_add_u32 v3, v1, v2',
  '  ds_write_b32 v0, v3',
  '  s_waitcnt lgkmcnt(0)',
  '  s_barrier',
  '  v_mov_b32 v4, 4',
  '  s_endpgm',
  '',
].join('\n');
