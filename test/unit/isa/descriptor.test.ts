/** .amdhsa_kernel directives llvm-mc 22 refuses are bad input at the directive's line (src/isa/descriptor.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { InputErrors } from '../../../src/errors.js';

function kernel(arch: string, directives: string[]): string {
  return [`.amdgcn_target "amdgcn-amd-amdhsa--${arch}"`, '.text', 'k:', '  v_mov_b32 v40, 0', '  s_endpgm', '.amdhsa_kernel k',
    ...directives.map((d) => `  ${d}`), '.end_amdhsa_kernel', ''].join('\n');
}

/** The errors loading the text gives, as [line, message]. */
function errors(text: string): [number, string][] {
  try {
    loadText(text, 'd.s');
    return [];
  } catch (e) {
    if (!(e instanceof InputErrors)) throw e;
    return e.errors.map((d) => [d.loc?.line ?? 0, d.message]);
  }
}

const FULL = ['.amdhsa_next_free_vgpr 48', '.amdhsa_next_free_sgpr 8'];

test('descriptor: a complete descriptor loads', () => {
  assert.deepEqual(errors(kernel('gfx906', FULL)), []);
  assert.deepEqual(errors(kernel('gfx942', [...FULL, '.amdhsa_accum_offset 48'])), []);
});

test('descriptor: a GFX10+ directive, an unknown one and a repeated one are errors at their line', () => {
  const w32 = errors(kernel('gfx942', [...FULL, '.amdhsa_accum_offset 48', '.amdhsa_wavefront_size32 1']));
  assert.equal(w32.length, 1);
  assert.equal(w32[0]![0], 10);
  assert.match(w32[0]![1], /^directive requires gfx10\+: \.amdhsa_wavefront_size32 on gfx942/);
  assert.match(errors(kernel('gfx90a', [...FULL, '.amdhsa_accum_offset 48', '.amdhsa_bogus_thing 7']))[0]![1], /^unknown \.amdhsa_kernel directive/);
  const rep = errors(kernel('gfx942', [...FULL, '.amdhsa_accum_offset 4', '.amdhsa_accum_offset 6']));
  assert.deepEqual(rep.map((e) => e[0]), [10]);
  assert.match(rep[0]![1], /^\.amdhsa_ directives cannot be repeated/);
  assert.match(errors(kernel('gfx908', [...FULL, '.amdhsa_accum_offset 4']))[0]![1], /^directive requires gfx90a\+/);
  assert.match(errors(kernel('gfx942', [...FULL, '.amdhsa_accum_offset 48', '.amdhsa_reserve_flat_scratch 0']))[0]![1],
    /^directive is not supported with architected flat scratch/);
});

test('descriptor: a missing required directive is named as missing, at .end_amdhsa_kernel', () => {
  const noV = errors(kernel('gfx906', ['.amdhsa_next_free_sgpr 8']));
  assert.deepEqual(noV.map((e) => e[0]), [8]);
  assert.match(noV[0]![1], /^\.amdhsa_next_free_vgpr directive is required/);
  assert.match(errors(kernel('gfx942', FULL))[0]![1], /^\.amdhsa_accum_offset directive is required/);
  assert.deepEqual(errors(kernel('gfx908', FULL)), [], 'accum_offset is gfx90a+');
});

test('descriptor: accum_offset a multiple of 4 in [4, 256], within next_free_vgpr rounded up to 4 (llvm-mc 22)', () => {
  const acc = (vgprs: number, a: number) => errors(kernel('gfx90a', [`.amdhsa_next_free_vgpr ${vgprs}`, '.amdhsa_next_free_sgpr 8', `.amdhsa_accum_offset ${a}`]));
  for (const a of [0, 3, 6, 260]) {
    const e = acc(256, a);
    assert.deepEqual(e.map((x) => x[0]), [10], `accum_offset ${a}`);
    assert.match(e[0]![1], /^accum_offset should be in range \[4\.\.256\] in increments of 4: \.amdhsa_accum_offset \d+ in \.amdhsa_kernel k/);
  }
  assert.deepEqual(acc(9, 12), [], '9 VGPRs allocate 12');
  assert.match(acc(9, 16)[0]![1], /^accum_offset exceeds total VGPR allocation: \.amdhsa_accum_offset 16 .*next_free_vgpr 9 allocates 12/);
  assert.deepEqual(acc(0, 4), [], 'an empty VGPR file still allocates 4');
  assert.deepEqual(acc(256, 256), []);
});

test('descriptor: register counts within the target\'s budget, at the directive\'s line; the SGPRs\' error first (llvm-mc 22)', () => {
  // lines: 7 next_free_vgpr, 8 next_free_sgpr, 9 accum_offset (gfx90a+), 10 .end_amdhsa_kernel
  const counts = (arch: string, v: number, s: number, ...more: string[]) =>
    errors(kernel(arch, [`.amdhsa_next_free_vgpr ${v}`, `.amdhsa_next_free_sgpr ${s}`, ...more]));
  for (const [arch, max] of [['gfx906', 256], ['gfx908', 256], ['gfx90a', 512], ['gfx942', 512], ['gfx950', 512]] as const) {
    const acc = arch === 'gfx906' || arch === 'gfx908' ? [] : ['.amdhsa_accum_offset 4'];
    assert.deepEqual(counts(arch, max, 102, ...acc), [], arch);
    const v = counts(arch, max + 1, 8, ...acc);
    assert.deepEqual(v.map((e) => e[0]), [7], arch);
    assert.equal(v[0]![1], `value out of range: .amdhsa_next_free_vgpr ${max + 1} in .amdhsa_kernel k (${arch}: 0 to ${max})`);
    assert.match(counts(arch, 8, 103, ...acc)[0]![1], /^value out of range: \.amdhsa_next_free_sgpr 103 in \.amdhsa_kernel k \(gfx9\d\w: 0 to 102\)$/);
    assert.deepEqual(counts(arch, max + 1, 103, ...acc).map((e) => e[0]), [8], 'the SGPRs first');
    assert.deepEqual(counts(arch, -1, 8, ...acc).map((e) => e[0]), [7]);
  }
  // the VGPRs' error comes before the accum_offset's
  assert.deepEqual(counts('gfx90a', 1000, 8, '.amdhsa_accum_offset 6').map((e) => e[0]), [7]);
});

test('descriptor: the user SGPR count at least what the enabled user SGPRs take, at most 31, at .end_amdhsa_kernel (llvm-mc 22)', () => {
  const users = (...more: string[]) => errors(kernel('gfx908', [...FULL, ...more]));
  assert.deepEqual(users('.amdhsa_user_sgpr_count 31'), []);
  const many = users('.amdhsa_user_sgpr_count 32');
  assert.deepEqual(many.map((e) => e[0]), [10]);
  assert.match(many[0]![1], /^too many user SGPRs enabled: 32 in \.amdhsa_kernel k \(at most 31\)$/);
  // a queue pointer takes 2; four pointers and the segment size 9
  assert.match(users('.amdhsa_user_sgpr_count 1', '.amdhsa_user_sgpr_queue_ptr 1')[0]![1],
    /^amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs \(llvm-mc's words\): \.amdhsa_user_sgpr_count 1 in \.amdhsa_kernel k, the user SGPRs enabled take 2$/);
  assert.deepEqual(users('.amdhsa_user_sgpr_count 2', '.amdhsa_user_sgpr_queue_ptr 1'), []);
  const five = ['.amdhsa_user_sgpr_dispatch_ptr 1', '.amdhsa_user_sgpr_queue_ptr 1', '.amdhsa_user_sgpr_kernarg_segment_ptr 1', '.amdhsa_user_sgpr_dispatch_id 1', '.amdhsa_user_sgpr_private_segment_size 1'];
  assert.equal(users(...five, '.amdhsa_user_sgpr_count 8').length, 1);
  assert.deepEqual(users(...five, '.amdhsa_user_sgpr_count 9'), []);
  // without a count written, the implied count is the count
  assert.deepEqual(users(...five), []);
});
