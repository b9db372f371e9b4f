/**
 * The .amdhsa_kernel descriptor's directives as llvm-mc 22 reads them on the target
 * (AMDGPUAsmParser::ParseDirectiveAMDHSAKernel): an unknown .amdhsa_* directive, one written
 * twice, one the target's generation lacks, and a descriptor without a required directive are
 * errors. llvm-mc stops reading a descriptor at its first error, so each descriptor gets at most
 * one. Messages and the targets of each rule were measured with llvm-mc 22 -triple=amdgcn-amd-amdhsa
 * on gfx906, gfx908, gfx90a, gfx942 and gfx950 (test/oracle/descriptor-directives.test.ts).
 * Of the values, these are judged as llvm-mc judges them, in its order, at the end of the
 * descriptor: .amdhsa_next_free_sgpr and .amdhsa_next_free_vgpr (at most the target's
 * maxNextFreeSgpr / maxNextFreeVgpr, at the directive's line), the user SGPR count (at least what
 * the enabled user SGPRs take, at most 31) and .amdhsa_accum_offset (a multiple of 4 in [4, 256],
 * at most next_free_vgpr rounded up to 4). The other values are not range-checked here, and
 * .amdhsa_reserve_xnack_mask (which llvm-mc compares with the target id's xnack setting) is not
 * judged.
 */
import type { AmdhsaDescriptor, Diagnostic } from '../asm/ast.js';
import type { Target } from './target.js';
import { validAccumOffset } from './layout.js';

const SOURCE = 'llvm-mc 22 (AMDGPUAsmParser::ParseDirectiveAMDHSAKernel); measured by test/oracle/descriptor-directives.test.ts';

/** Directives llvm-mc 22 knows, each with the generations that take it (undefined: every GFX9 target). */
type Rule = undefined | ((t: Target) => string | undefined);
const gfx90a: Rule = (t) => (t.has('gfx90a-insts') ? undefined : 'directive requires gfx90a+');
const later = (msg: string): Rule => () => msg;
const withArchitected: Rule = (t) => (t.has('architected-flat-scratch') ? 'directive is not supported with architected flat scratch' : undefined);
const withoutArchitected: Rule = (t) => (t.has('architected-flat-scratch') ? undefined : 'directive is not supported without architected flat scratch');

export const AMDHSA_DIRECTIVES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ...['group_segment_fixed_size', 'private_segment_fixed_size', 'kernarg_size', 'user_sgpr_count', 'user_sgpr_dispatch_ptr',
    'user_sgpr_queue_ptr', 'user_sgpr_kernarg_segment_ptr', 'user_sgpr_dispatch_id', 'user_sgpr_private_segment_size',
    'uses_dynamic_stack', 'system_sgpr_workgroup_id_x', 'system_sgpr_workgroup_id_y', 'system_sgpr_workgroup_id_z',
    'system_sgpr_workgroup_info', 'system_vgpr_workitem_id', 'next_free_vgpr', 'next_free_sgpr', 'reserve_vcc',
    'reserve_xnack_mask', 'float_round_mode_32', 'float_round_mode_16_64', 'float_denorm_mode_32', 'float_denorm_mode_16_64',
    'dx10_clamp', 'ieee_mode', 'fp16_overflow', 'exception_fp_ieee_invalid_op', 'exception_fp_denorm_src',
    'exception_fp_ieee_div_zero', 'exception_fp_ieee_overflow', 'exception_fp_ieee_underflow', 'exception_fp_ieee_inexact',
    'exception_int_div_zero'].map((n): [string, Rule] => [n, undefined]),
  ...['accum_offset', 'tg_split', 'user_sgpr_kernarg_preload_length', 'user_sgpr_kernarg_preload_offset'].map((n): [string, Rule] => [n, gfx90a]),
  ...['user_sgpr_private_segment_buffer', 'user_sgpr_flat_scratch_init', 'system_sgpr_private_segment_wavefront_offset',
    'reserve_flat_scratch'].map((n): [string, Rule] => [n, withArchitected]),
  ['enable_private_segment', withoutArchitected],
  ['wavefront_size32', later('directive requires gfx10+')],
  ['memory_ordered', later('directive requires gfx10+')],
  ['forward_progress', later('directive requires gfx10+')],
  ['workgroup_processor_mode', undefined], // message names the target: below
  ['shared_vgpr_count', later('directive requires gfx10 or gfx11')],
  ['inst_pref_size', later('directive requires gfx11+')],
  ['round_robin_scheduling', later('directive requires gfx12+')],
  ['named_barrier_count', later('directive requires gfx1250+')],
].map(([k, v]) => [`.amdhsa_${k as string}`, v as Rule]));

/** The first error of a descriptor on the target, as a diagnostic (undefined when llvm-mc reads it). */
export function descriptorError(d: AmdhsaDescriptor, target: Target): Diagnostic | undefined {
  if (!d.directives) return undefined;
  const err = (message: string, loc: AmdhsaDescriptor['loc']): Diagnostic => ({ severity: 'error', message, loc, rule: 'descriptor-directive', source: SOURCE });
  const seen = new Set<string>();
  for (const { name, loc } of d.directives) {
    if (!AMDHSA_DIRECTIVES.has(name)) return err(`unknown .amdhsa_kernel directive: ${name}`, loc);
    if (seen.has(name)) return err(`.amdhsa_ directives cannot be repeated: ${name} is written twice in .amdhsa_kernel ${d.name}`, loc);
    seen.add(name);
    if (name === '.amdhsa_workgroup_processor_mode') return err(`directive unsupported on ${target.name}: ${name} is a GFX10+ setting`, loc);
    const why = AMDHSA_DIRECTIVES.get(name)?.(target);
    if (why) return err(`${why}: ${name} on ${target.name}`, loc);
  }
  if (!d.end) return undefined;
  const required = ['.amdhsa_next_free_vgpr', '.amdhsa_next_free_sgpr', ...(target.descriptor.accumOffsetRequired.value ? ['.amdhsa_accum_offset'] : [])];
  for (const r of required) {
    if (!seen.has(r)) return err(`${r} directive is required (.amdhsa_kernel ${d.name} on ${target.name})`, d.end);
  }
  const at = (name: string) => d.directives!.find((x) => x.name === `.amdhsa_${name}`)!.loc;
  for (const [name, max] of [['next_free_sgpr', target.registers.maxNextFreeSgpr], ['next_free_vgpr', target.registers.maxNextFreeVgpr]] as const) {
    const v = d.values[name];
    if (v !== undefined && (v < 0 || v > max.value)) return err(`value out of range: .amdhsa_${name} ${v} in .amdhsa_kernel ${d.name} (${target.name}: 0 to ${max.value})`, at(name));
  }
  const users = userSgprCountError(d);
  if (users) return err(users, d.end);
  return seen.has('.amdhsa_accum_offset') ? accumOffsetError(d, target, (m) => err(m, d.end!)) : undefined;
}

/**
 * The SGPRs each user SGPR directive enables (llvm-mc 22's implied user SGPR count; its sum with
 * every one enabled, 15, measured); .amdhsa_user_sgpr_kernarg_preload_length adds its value.
 */
const USER_SGPRS: readonly [string, number][] = [
  ['user_sgpr_private_segment_buffer', 4], ['user_sgpr_dispatch_ptr', 2], ['user_sgpr_queue_ptr', 2],
  ['user_sgpr_kernarg_segment_ptr', 2], ['user_sgpr_dispatch_id', 2], ['user_sgpr_flat_scratch_init', 2],
  ['user_sgpr_private_segment_size', 1],
];

/** The widest user SGPR count COMPUTE_PGM_RSRC2.USER_SGPR_COUNT holds (5 bits; llvm-mc 22: 31 accepted, 32 refused). */
const MAX_USER_SGPRS = 31;

/**
 * llvm-mc 22's two messages on the user SGPR count (at the .end_amdhsa_kernel line): a count
 * written below what the enabled user SGPRs take, and a count (written, else implied) above 31.
 */
function userSgprCountError(d: AmdhsaDescriptor): string | undefined {
  let implied = d.values['user_sgpr_kernarg_preload_length'] ?? 0;
  for (const [name, n] of USER_SGPRS) if ((d.values[name] ?? 0) !== 0) implied += n;
  const written = d.values['user_sgpr_count'];
  if (written !== undefined && written < implied) {
    return `amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs (llvm-mc's words): .amdhsa_user_sgpr_count ${written} in .amdhsa_kernel ${d.name}, the user SGPRs enabled take ${implied}`;
  }
  const count = written ?? implied;
  return count > MAX_USER_SGPRS ? `too many user SGPRs enabled: ${count} in .amdhsa_kernel ${d.name} (at most ${MAX_USER_SGPRS})` : undefined;
}

/**
 * .amdhsa_accum_offset, the first AGPR of the unified register file: a multiple of the granule
 * (4) in [4, 256], and not past the VGPRs allocated, next_free_vgpr rounded up to the granule
 * (at least 1): llvm-mc 22's two messages, at the .end_amdhsa_kernel line (target data
 * accumOffsetGranule and maxVgprs).
 */
function accumOffsetError(d: AmdhsaDescriptor, target: Target, err: (message: string) => Diagnostic): Diagnostic | undefined {
  const a = d.values['accum_offset'];
  if (a === undefined) return undefined;
  const g = target.registers.accumOffsetGranule?.value ?? 4;
  const at = `.amdhsa_accum_offset ${a} in .amdhsa_kernel ${d.name}`;
  if (!validAccumOffset(a, target)) return err(`accum_offset should be in range [${g}..${target.registers.maxVgprs.value}] in increments of ${g}: ${at}`);
  const v = d.values['next_free_vgpr'];
  if (v === undefined) return undefined;
  const alloc = Math.ceil(Math.max(1, v) / g) * g;
  return a > alloc ? err(`accum_offset exceeds total VGPR allocation: ${at}, .amdhsa_next_free_vgpr ${v} allocates ${alloc}`) : undefined;
}

/**
 * The kernel-argument preload header. A kernel that preloads arguments into SGPRs
 * (.amdhsa_user_sgpr_kernarg_preload_length > 0) is entered 256 bytes after its start by
 * firmware that preloads; firmware that does not runs those 256 bytes (LLVM AMDGPUUsage,
 * "Preloaded Kernel Arguments"; AMDGPUPreloadKernArgProlog). LLVM 18 wrote the block as 64
 * `s_nop 0`: they are not hazard padding, and removing any moves the code the preloading
 * firmware enters. (Later LLVMs write `s_trap 2` and a `.fill`, which nothing moves across, or
 * a prologue of loads closed by `s_branch` and `.p2align 8`.) The number of the kernel's leading
 * instructions (`base(i)`: instruction i's mnemonic without its encoding suffix) that form it:
 * the leading s_nop, at most 256 bytes of them, or the prologue's loads, s_waitcnt and s_branch;
 * 0 when the kernel preloads nothing.
 */
export function preloadHeaderLength(d: AmdhsaDescriptor | undefined, n: number, base: (i: number) => string): number {
  if (!d || !((d.values.user_sgpr_kernarg_preload_length ?? 0) > 0)) return 0;
  let k = 0;
  while (k < Math.min(n, PRELOAD_HEADER_BYTES / 4) && base(k) === 's_nop') k++;
  if (k > 0) return k;
  // LLVM 20+ (AMDGPUPreloadKernArgProlog): the arguments loaded as older firmware expects them,
  // s_load_* (8 bytes each), an s_waitcnt and an s_branch to the code at byte 256 (llc 22:
  // `s_load_dwordx4 s[8:11], s[4:5], 0x0`, `s_waitcnt lgkmcnt(0)`, `s_branch .LBB0_0`, then
  // `.p2align 8`). Firmware that preloads never runs it: nothing in it is moved.
  while (k < Math.min(n, (PRELOAD_HEADER_BYTES - 8) / 8) && base(k).startsWith('s_load_')) k++;
  return k > 0 && k + 1 < n && base(k) === 's_waitcnt' && base(k + 1) === 's_branch' ? k + 2 : 0;
}

/** Bytes the preloading firmware skips (LLVM AMDGPUUsage, "Preloaded Kernel Arguments"). */
export const PRELOAD_HEADER_BYTES = 256;
