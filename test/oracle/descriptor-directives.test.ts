/**
 * The .amdhsa_kernel descriptor's directives, judged by llvm-mc 22 (src/isa/descriptor.ts): for
 * every directive llvm-mc knows, an unknown one, one written twice and each required one left
 * out, on all five targets, a small kernel is assembled; the first line llvm-mc rejects (none or
 * one: it stops reading the descriptor there) must be the first line with an error of ours, with
 * llvm-mc's message at the start of ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProgram } from '../../src/asm/parser.js';
import { resolveProgram } from '../../src/isa/resolve.js';
import { AMDHSA_DIRECTIVES } from '../../src/isa/descriptor.js';
import { getTarget } from '../../src/targets/index.js';
import { runLlvmMc } from './llvm.js';

const TARGETS = ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'];
const REQUIRED = ['.amdhsa_next_free_vgpr 8', '.amdhsa_next_free_sgpr 8'];

/** A kernel whose descriptor has the required directives (but those named in `drop`), then `extra`. */
function kernel(target: string, extra: string[], ...drop: string[]): string {
  const acc = getTarget(target)!.has('gfx90a-insts') ? ['.amdhsa_accum_offset 4'] : [];
  const body = [...REQUIRED, ...acc].filter((d) => !drop.includes(d.split(' ')[0]!));
  return ['.text', 'k:', '  s_endpgm', '.amdhsa_kernel k', ...body.map((d) => `  ${d}`), ...extra.map((d) => `  ${d}`), '.end_amdhsa_kernel', ''].join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'conductor-desc-'));
const cases: { name: string; make: (t: string) => string }[] = [
  // reserve_xnack_mask is compared with the target id's xnack setting, which is not judged
  ...[...AMDHSA_DIRECTIVES.keys()].filter((d) => d !== '.amdhsa_reserve_xnack_mask' && !/next_free|accum_offset/.test(d))
    .map((d) => ({ name: d, make: (t: string) => kernel(t, [`${d} 0`]) })),
  { name: 'accum_offset', make: (t) => (getTarget(t)!.has('gfx90a-insts') ? kernel(t, []) : kernel(t, ['.amdhsa_accum_offset 4'])) },
  { name: 'unknown', make: (t) => kernel(t, ['.amdhsa_bogus_thing 7']) },
  { name: 'repeated', make: (t) => kernel(t, ['.amdhsa_ieee_mode 0', '.amdhsa_ieee_mode 0']) },
  { name: 'no next_free_vgpr', make: (t) => kernel(t, [], '.amdhsa_next_free_vgpr') },
  { name: 'no next_free_sgpr', make: (t) => kernel(t, [], '.amdhsa_next_free_sgpr') },
  { name: 'no accum_offset', make: (t) => kernel(t, [], '.amdhsa_accum_offset') },
  // accum_offset values (next_free_vgpr 8 here; 9 allocates 12): the range, the step, the allocation
  ...[0, 3, 6, 8, 12, 256, 260].map((a) => ({ name: `accum_offset ${a}`, make: (t: string) => kernel(t, [`.amdhsa_accum_offset ${a}`], '.amdhsa_accum_offset') })),
  ...[12, 16].map((a) => ({ name: `9 VGPRs, accum_offset ${a}`, make: (t: string) => kernel(t, ['.amdhsa_next_free_vgpr 9', `.amdhsa_accum_offset ${a}`], '.amdhsa_next_free_vgpr', '.amdhsa_accum_offset') })),
  // the register counts' ranges (the per-wave VGPR budget differs by target)
  ...[-1, 0, 256, 257, 512, 513].map((v) => ({ name: `next_free_vgpr ${v}`, make: (t: string) => kernel(t, [`.amdhsa_next_free_vgpr ${v}`], '.amdhsa_next_free_vgpr') })),
  ...[-1, 0, 102, 103, 106].map((v) => ({ name: `next_free_sgpr ${v}`, make: (t: string) => kernel(t, [`.amdhsa_next_free_sgpr ${v}`], '.amdhsa_next_free_sgpr') })),
  // both out of range: the first error is the SGPRs'; and the VGPRs' comes before the accum_offset's
  { name: 'both counts out of range', make: (t) => kernel(t, ['.amdhsa_next_free_vgpr 1000', '.amdhsa_next_free_sgpr 200'], '.amdhsa_next_free_vgpr', '.amdhsa_next_free_sgpr') },
  { name: 'VGPRs and accum_offset wrong', make: (t) => kernel(t, ['.amdhsa_next_free_vgpr 1000', '.amdhsa_accum_offset 6'], '.amdhsa_next_free_vgpr', '.amdhsa_accum_offset') },
  // the user SGPR count: at most 31, at least what the enabled user SGPRs take
  ...[31, 32, 40].map((n) => ({ name: `user_sgpr_count ${n}`, make: (t: string) => kernel(t, [`.amdhsa_user_sgpr_count ${n}`]) })),
  ...[1, 2].map((n) => ({ name: `user_sgpr_count ${n}, queue_ptr`, make: (t: string) => kernel(t, [`.amdhsa_user_sgpr_count ${n}`, '.amdhsa_user_sgpr_queue_ptr 1']) })),
  { name: 'user_sgpr_count 8, four user SGPR pointers and the segment size (9)', make: (t) => kernel(t, ['.amdhsa_user_sgpr_dispatch_ptr 1', '.amdhsa_user_sgpr_queue_ptr 1',
    '.amdhsa_user_sgpr_kernarg_segment_ptr 1', '.amdhsa_user_sgpr_dispatch_id 1', '.amdhsa_user_sgpr_private_segment_size 1', '.amdhsa_user_sgpr_count 8']) },
  { name: 'user_sgpr_count 9, four user SGPR pointers and the segment size (9)', make: (t) => kernel(t, ['.amdhsa_user_sgpr_dispatch_ptr 1', '.amdhsa_user_sgpr_queue_ptr 1',
    '.amdhsa_user_sgpr_kernarg_segment_ptr 1', '.amdhsa_user_sgpr_dispatch_id 1', '.amdhsa_user_sgpr_private_segment_size 1', '.amdhsa_user_sgpr_count 9']) },
  { name: 'user_sgpr_count too small and accum_offset wrong', make: (t) => kernel(t, ['.amdhsa_user_sgpr_count 1', '.amdhsa_user_sgpr_queue_ptr 1', '.amdhsa_accum_offset 6'], '.amdhsa_accum_offset') },
  { name: 'user_sgpr_count 32 and accum_offset wrong', make: (t) => kernel(t, ['.amdhsa_user_sgpr_count 32', '.amdhsa_accum_offset 6'], '.amdhsa_accum_offset') },
];

for (const t of TARGETS) {
  test(`descriptor directives as llvm-mc 22 reads them: ${t}`, async () => {
    const wrong: string[] = [];
    let rejected = 0;
    for (const c of cases) {
      const text = c.make(t);
      const path = join(dir, `${t}-${c.name.replace(/[^a-z0-9_]/gi, '_')}.s`);
      writeFileSync(path, text);
      const mc = await runLlvmMc(path, t, ['-filetype=null']);
      const theirs = mc.errors[0];
      const p = parseProgram(text, path);
      const r = resolveProgram(p, getTarget(t)!);
      const ours = [...p.diagnostics, ...r.diagnostics].filter((d) => d.severity === 'error').sort((a, b) => a.loc.line - b.loc.line)[0];
      if (theirs) rejected++;
      const same = theirs === undefined ? ours === undefined
        : ours !== undefined && ours.loc.line === theirs.line && ours.message.startsWith(theirs.message);
      if (!same) wrong.push(`${c.name}: llvm-mc ${theirs ? `${theirs.line}: ${theirs.message}` : 'accepts'}; ours ${ours ? `${ours.loc.line}: ${ours.message}` : 'accepts'}`);
    }
    console.log(`  ${t}: ${cases.length} descriptors, ${rejected} rejected by llvm-mc`);
    assert.deepEqual(wrong, []);
  });
}
