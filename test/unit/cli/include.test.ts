/**
 * A kernel whose code is spread over `.include`d files, from the command line: `-I DIR`, errors
 * at the `.include` line, and `schedule -o` writing one flattened file that `verify` proves
 * equivalent to the input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, SMALL_KERNEL } from './harness.js';

/** The harness's small kernel with a macro from an included file in place of its add. */
const KERNEL = SMALL_KERNEL
  .replace('.text\n', '.include "ops.inc"\n.text\n')
  .replace('  v_add_u32 v3, v1, v2\n', '  addv 3, 1, 2\n');
const OPS = ['.macro addv d, a, b', '  v_add_u32 v\\d, v\\a, v\\b', '.endm', ''].join('\n');

test('-I names where .include files are; without it the load fails at the .include line; schedule -o writes one flattened file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    mkdirSync(join(dir, 'inc'));
    const k = join(dir, 'k.s');
    writeFileSync(k, KERNEL);
    writeFileSync(join(dir, 'inc', 'ops.inc'), OPS);
    assert.match(KERNEL, /^\.include "ops\.inc"\n\.text\n[^]*^ {2}addv 3, 1, 2$/m, 'the kernel includes the macro and calls it');
    const missing = run('check', k);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /k\.s:2:10: error: Could not find include file 'ops\.inc'/);
    const ok = run('-I', join(dir, 'inc'), 'check', k);
    assert.equal(ok.code, 0, ok.err);
    const out = join(dir, 'out.s');
    const s = run('-I', join(dir, 'inc'), 'schedule', k, '--budget', '200', '--jobs', '1', '--no-cache', '-o', out);
    assert.equal(s.code, 0, s.err);
    const written = readFileSync(out, 'utf8');
    assert.match(written, /^\/\/ \.include "ops\.inc"$/m, 'the directive stays as a comment');
    assert.match(written, /^ {2}v_add_u32 v\\d, v\\a, v\\b$/m, 'the included lines follow it');
    assert.doesNotMatch(written, /^\s*\.include/m);
    // the output reads without the include directory, and is the input's equivalent
    assert.equal(run('check', out).code, 0);
    const v = run('-I', join(dir, 'inc'), 'verify', k, out);
    assert.equal(v.code, 0, v.out + v.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('check --fix on a file with .include names the lines of the file that holds them, and writes one flattened file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    const k = join(dir, 'k.s');
    writeFileSync(join(dir, 'ops.inc'), OPS);
    writeFileSync(k, [
      '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.include "ops.inc"', '.text', 'k:',
      '  ds_read_b32 v1, v0', '  addv 2, 1, 1', '  s_endpgm', '',
    ].join('\n'));
    const out = join(dir, 'fixed.s');
    const r = run('check', '--fix', '-o', out, k);
    assert.equal(r.code, 0, r.err);
    // line 6 of k.s (line 9 of the written file, after the 3 lines of ops.inc and the commented .include)
    assert.match(r.out + r.err, /\n {2}line 6: addv 2, 1, 1 -> \/\/ expanded from: addv 2, 1, 1 ; s_waitcnt lgkmcnt\(0\) ; v_add_u32 v2, v1, v1\n/);
    const lines = readFileSync(out, 'utf8').split('\n');
    assert.deepEqual(lines.slice(7, 11), ['  ds_read_b32 v1, v0', '  // expanded from: addv 2, 1, 1', '  s_waitcnt lgkmcnt(0)', '  v_add_u32 v2, v1, v1']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('schedule of a file with .include reports its loops at the lines of the files the user wrote', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    const loop = (l: string) => [`${l}:`, '  global_load_dword v2, v0, s[4:5]', '  v_mul_lo_u32 v3, v0, v0', '  s_waitcnt vmcnt(0)',
      '  v_add_u32 v4, v2, v3', '  global_store_dword v0, v4, s[4:5]', '  s_sub_u32 s7, s7, 1', '  s_cmp_lg_u32 s7, 0', `  s_cbranch_scc1 ${l}`];
    // the included file: two macros of three lines, then a loop
    writeFileSync(join(dir, 'loop.inc'), [...OPS.trimEnd().split('\n'), ...OPS.replace('addv', 'addw').trimEnd().split('\n'), ...loop('.Linc'), ''].join('\n'));
    const main = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
      '  s_load_dwordx2 s[4:5], s[0:1], 0x0', '  s_mov_b32 s7, 8', '  s_waitcnt lgkmcnt(0)',
      '.include "loop.inc"', '  s_mov_b32 s7, 8', ...loop('.Lmain'), '  s_endpgm',
      '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 8', '.end_amdhsa_kernel', ''];
    const k = join(dir, 'k.s');
    writeFileSync(k, main.join('\n'));
    const r = run('schedule', k, '--budget', '50', '--jobs', '1', '--no-cache', '--json');
    assert.equal(r.code, 0, r.err);
    const loops = JSON.parse(r.out).loops.map((l: { line: number; file?: string; backEdgeLines: number[] }) => [l.file ?? k, l.line, l.backEdgeLines]);
    // the loop of loop.inc starts at its line 8 (after the two macros), its back edge at 15; the
    // main file's at line 13 (after '.Lmain:'), its back edge at 20
    assert.deepEqual(loops, [[join(dir, 'loop.inc'), 8, [15]], [k, 13, [20]]]);
    const text = run('schedule', k, '--budget', '50', '--jobs', '1', '--no-cache');
    assert.match(text.out, new RegExp(`^loop at ${join(dir, 'loop.inc').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:8 \\(`, 'm'));
    assert.match(text.out, /^loop at line 13 \(/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('schedule of a file with .include names the lines of the files the user wrote in its notes and its refusal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    // a loop whose add reads the load's register with no wait: check --fix inserts one before it
    const loop = (l: string, reg: string) => [`${l}:`, '  global_load_dword v2, v0, s[4:5]', `  v_mul_lo_u32 v3, v0, ${reg}`,
      '  v_add_u32 v4, v2, v3', '  global_store_dword v0, v4, s[4:5]', '  s_sub_u32 s7, s7, 1', '  s_cmp_lg_u32 s7, 0', `  s_cbranch_scc1 ${l}`];
    const kernel = (reg: string, vgprs: number) => {
      writeFileSync(join(dir, 'loop.inc'), [...OPS.trimEnd().split('\n'), ...loop('.Linc', 'v0'), ''].join('\n'));
      const k = join(dir, 'k.s');
      writeFileSync(k, ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
        '  s_load_dwordx2 s[4:5], s[0:1], 0x0', '  s_mov_b32 s7, 8', '  s_waitcnt lgkmcnt(0)',
        '.include "loop.inc"', '  s_mov_b32 s7, 8', ...loop('.Lmain', reg), '  s_endpgm',
        '.rodata', '.p2align 6', '.amdhsa_kernel k', `  .amdhsa_next_free_vgpr ${vgprs}`, '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 4', '.end_amdhsa_kernel', ''].join('\n'));
      return k;
    };
    const k = kernel('v0', 8);
    const r = run('schedule', k, '--budget', '50', '--jobs', '1', '--no-cache', '--no-pipeline');
    assert.equal(r.code, 0, r.err);
    // the included loop's add is line 7 of loop.inc (after the macro's 3 lines); the main loop's is
    // line 15 of k.s (in the written file, lines 17 and 26)
    const inc = join(dir, 'loop.inc').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    assert.match(r.out, new RegExp(`\\(before ${inc}:7: \\+ s_waitcnt vmcnt\\(0\\); before line 15: \\+ s_waitcnt vmcnt\\(0\\)\\)`));
    // a register beyond the descriptor's: the kernel is refused at the descriptor's line in k.s (23)
    const bad = run('schedule', kernel('v9', 6), '--budget', '50', '--jobs', '1', '--no-cache');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /k\.s:23:1: error: cannot schedule: kernel descriptor of 'k' does not cover the registers used/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a message names a line of another file by its file: the load in an included file, its reader in the main one; the peaks; schedule quotes the input\'s lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-cli-include-'));
  try {
    // loads.inc: a load, then the peak of live VGPRs (v0, v2, v3) at its line 2
    writeFileSync(join(dir, 'loads.inc'), ['  global_load_dword v2, v0, s[4:5]', '  v_mul_lo_u32 v3, v0, v0', ''].join('\n'));
    const kernel = (vgprs: number) => {
      const k = join(dir, 'k.s');
      writeFileSync(k, ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
        '  s_load_dwordx2 s[4:5], s[0:1], 0x0', '  s_waitcnt lgkmcnt(0)', '.include "loads.inc"',
        // line 10 reads the load's v2 with no wait and names v9
        '  v_add_u32 v9, v2, v3', '  global_store_dword v0, v9, s[4:5]', '  s_endpgm',
        '.rodata', '.p2align 6', '.amdhsa_kernel k', `  .amdhsa_next_free_vgpr ${vgprs}`, '  .amdhsa_next_free_sgpr 8', `  .amdhsa_accum_offset ${vgprs}`, '.end_amdhsa_kernel', ''].join('\n'));
      return k;
    };
    const k = kernel(12);
    const inc = join(dir, 'loads.inc').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const c = run('check', k);
    assert.equal(c.code, 1, c.err);
    assert.match(c.out, new RegExp(`k\\.s:10:3: error: v_add_u32 reads v2 loaded by global_load_dword \\(${inc}:1\\), which may still be in flight`));
    assert.match(c.out, new RegExp(`peak live VGPR 3 \\(${inc}:2\\)`));
    const a = run('analyze', k, '--json');
    const p = JSON.parse(a.out).kernels[0].pressure;
    assert.deepEqual([p.lines.vgpr, p.files?.vgpr], [2, join(dir, 'loads.inc')]);
    // schedule searches the flattened text (k.s line 10 is its line 11): its refusal quotes the
    // check with the input's lines
    const bad = run('schedule', kernel(8), '--budget', '50', '--jobs', '1', '--no-cache');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /k\.s:15:1: error: cannot schedule: kernel descriptor of 'k' does not cover the registers used: the highest register used is v9, but .amdhsa_next_free_vgpr is 8 \(the first use beyond it: v9 at line 10 \('v_add_u32 v9, v2, v3'\)\)/);
    // the first use beyond the descriptor in an included file: named by its file, its note there
    writeFileSync(join(dir, 'loads.inc'), ['  v_mov_b32 v9, 0', ''].join('\n'));
    const far = run('check', kernel(8));
    assert.match(far.out, new RegExp(`k\\.s:15:1: error: kernel descriptor of 'k' does not cover the registers used: the highest register used is v9, but \\.amdhsa_next_free_vgpr is 8 \\(the first use beyond it: v9 at ${inc}:1 \\('v_mov_b32 v9, 0'\\)\\)`));
    assert.match(far.out, new RegExp(`${inc}:1:3: note: first use of v9 beyond the descriptor`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
