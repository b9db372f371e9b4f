import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import { kernelResources } from '../../../src/analysis/resources.js';
import { applyStatementEdits, emptyEdits, addInsert } from '../../../src/check/edit.js';
import { nopLines, planFixes, waitcntText } from '../../../src/check/fix.js';
import { checkContexts, checkLoaded } from '../../../src/check/check.js';
import { formatReportClang, formatReportJson, formatReportSarif, formatFindingClang } from '../../../src/check/format.js';
import type { Finding } from '../../../src/analysis/types.js';
import { parseProgram } from '../../../src/asm/parser.js';
import { loadText } from '../../../src/load.js';
import { analyzeLoaded, formatAnalysis } from '../../../src/check/analyze.js';

const ctxOf = (text: string, arch = 'gfx90a') => kernelContextsFromText(text, 't.s', arch);

test('cfg: loop back-edge, conditional branch, fall-through, exits', () => {
  const [c] = ctxOf([
    's_mov_b32 s0, 4',
    '.LBB0_1:',
    '  v_add_u32 v0, v0, v1',
    '  s_sub_u32 s0, s0, 1',
    '  s_cmp_eq_u32 s0, 0',
    '  s_cbranch_scc0 .LBB0_1',
    '  s_branch .LBB0_3',
    '.LBB0_2:',
    '  v_mov_b32 v1, 0',
    '.LBB0_3:',
    '  s_endpgm',
  ].join('\n'));
  const blocks = c!.cfg.blocks.map((b) => ({ start: b.start, end: b.end, succs: b.succs, exits: b.exits }));
  assert.deepEqual(blocks, [
    { start: 0, end: 1, succs: [1], exits: false },
    { start: 1, end: 5, succs: [1, 2], exits: false },
    { start: 5, end: 6, succs: [4], exits: false },
    { start: 6, end: 7, succs: [4], exits: false },
    { start: 7, end: 8, succs: [], exits: true },
  ]);
});

test('cfg: a Tensile long branch (s_getpc ... s_setpc) jumps to its label', () => {
  const [c] = ctxOf([
    's_getpc_b64 s[60:61]', 's_add_i32 s62, label_End, 0x4', 's_add_u32 s60, s60, s62', 's_addc_u32 s61, s61, 0',
    's_setpc_b64 s[60:61]', 'v_mov_b32 v0, 0', 'label_End:', 's_endpgm',
  ].join('\n'));
  assert.equal(c!.cfg.longBranches.length, 1);
  assert.equal(c!.cfg.longBranches[0]!.label, 'label_End');
  const b0 = c!.cfg.blocks[0]!;
  assert.deepEqual(b0.succs, [2]);
});

test('cfg: s_setpc_b64 of the address an earlier s_getpc_b64 took loops back to the label after it (MIOpen conv1x1wrw)', () => {
  // S_GETPC_B64 writes the address of the next instruction; the pair is not touched in between
  const loop = [
    's_getpc_b64 s[6:7]', 'loop_begin:', 'v_add_f32 v2, v1, v1', 'global_load_dword v1, v[4:5], off',
    's_add_u32 s4, s4, 4', 's_cmp_ge_u32 s4, 16', 's_cbranch_scc1 loop_exit', 's_setpc_b64 s[6:7]',
    'loop_exit:', 's_waitcnt vmcnt(0)', 's_endpgm',
  ];
  const [c] = ctxOf(loop.join('\n'), 'gfx906');
  assert.deepEqual(c!.cfg.longBranches.map((lb) => lb.label), ['loop_begin']);
  const setpcBlock = c!.cfg.blocks[c!.cfg.blockOf[6]!]!; // instructions: s_getpc_b64 is 0, s_setpc_b64 6
  assert.deepEqual(setpcBlock.succs, [c!.cfg.blockOf[1]!]);
  assert.equal(setpcBlock.exits, false);
  // the load of one iteration is read at the head of the next: found as over a s_branch back edge
  const waits = (text: string) => checkContexts(ctxOf(text, 'gfx906'))[0]!.findings
    .filter((f) => f.rule === 'waitcnt-missing').map((f) => `${f.loc.line} ${f.severity}`);
  const viaSetpc = waits(loop.join('\n'));
  assert.deepEqual(viaSetpc, ['3 warning']);
  assert.deepEqual(viaSetpc, waits(loop.map((l) => (l === 's_setpc_b64 s[6:7]' ? 's_branch loop_begin' : l)).join('\n')));
  // the pair changed in between, or no label right after s_getpc_b64: not a loop (a return)
  for (const other of [
    loop.map((l) => (l === 's_add_u32 s4, s4, 4' ? 's_add_u32 s6, s6, 4' : l)),
    loop.filter((l) => l !== 'loop_begin:'),
  ]) {
    const [o] = ctxOf(other.join('\n'), 'gfx906');
    assert.equal(o!.cfg.longBranches.length, 0);
  }
});

test('pressure: peak live VGPRs with the line, used registers, loop liveness', () => {
  const text = [
    'v_mov_b32 v0, 1', // 1
    'v_mov_b32 v1, 2', // 2
    'v_mov_b32 v2, 3', // 3
    'v_add_u32 v3, v0, v1', // 4: v0 and v1 die here
    'v_add_u32 v0, v3, v2', // 5
    'global_store_dword v[4:5], v0, off', // 6: v4 v5 live-in (address)
    's_endpgm',
  ].join('\n');
  const [c] = ctxOf(text);
  const { resources } = kernelResources(c!);
  assert.equal(resources.used.vgpr, 6);
  // v4, v5 are live from the start (read, never written); after line 3: v0 v1 v2 v4 v5 = 5
  assert.equal(resources.peak.vgpr.value, 5);
  assert.equal(resources.peak.vgpr.line, 3);
});

test('descriptor that does not cover the registers used is an error', () => {
  const text = [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', '.globl k', '.type k,@function', 'k:',
    '  v_mov_b32 v40, 0', '  s_endpgm',
    '.rodata', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 32', '  .amdhsa_next_free_sgpr 8', '  .amdhsa_accum_offset 32', '.end_amdhsa_kernel',
  ].join('\n');
  const [c] = ctxOf(text, undefined as unknown as string);
  const { findings } = kernelResources(c!);
  assert.equal(findings.length, 1);
  assert.equal(findings[0]!.rule, 'descriptor-registers');
  assert.match(findings[0]!.message, /the highest register used is v40, but \.amdhsa_next_free_vgpr is 32 \(the first use beyond it: v40 at line 6/);
  assert.equal(findings[0]!.related[0]!.loc.line, 6);
});

test('SGPRs beyond next_free_sgpr but below the reserved block of the count the descriptor encodes: a warning; into the block: an error', () => {
  // gfx906 xnack-: next_free_sgpr n plus the reserved SGPRs (VCC 2, FLAT_SCRATCH 6) rounded up to
  // 8 is the count the descriptor encodes (llvm-mc: 101 + 2 -> 104, 101 + 6 -> 112); the reserved
  // block is its top (LLVM getBaseReservedNumSGPRs: FLAT_SCRATCH, XNACK, VCC in that order)
  const text = (next: number, flat: boolean) => [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx906:xnack-"', '.text', '.globl k', '.type k,@function', 'k:',
    '  s_mov_b64 s[100:101], 0', '  v_cmp_eq_u32 vcc, 0, v0', '  s_endpgm',
    '.rodata', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 4', `  .amdhsa_next_free_sgpr ${next}`, '  .amdhsa_reserve_vcc 1',
    `  .amdhsa_reserve_flat_scratch ${flat ? 1 : 0}`, '.end_amdhsa_kernel',
  ].join('\n');
  const finding = (next: number, flat: boolean) => {
    const fs = kernelResources(ctxOf(text(next, flat), 'gfx906')[0]!).findings.filter((f) => f.rule === 'descriptor-registers');
    assert.equal(fs.length, 1, `next_free_sgpr ${next}`);
    return fs[0]!;
  };
  // 101 + 2 -> 104: s0-s101 the wave's own (MIOpen's Winograd v30 dilation2 kernel)
  const own = finding(101, false);
  assert.equal(own.severity, 'warning');
  assert.match(own.message, /the highest register used is s101, but \.amdhsa_next_free_sgpr is 101 .*the wave gets s0-s101 of its own and the code runs/);
  assert.equal(finding(99, true).severity, 'warning'); // 99 + 6 -> 112: s0-s105
  // 92 + 2 -> 96: s94 and s95 are VCC, s101 is not allocated
  const into = finding(92, false);
  assert.equal(into.severity, 'error');
  assert.doesNotMatch(into.message, /the code runs/);
  assert.equal(finding(95, true).severity, 'error'); // 95 + 6 -> 104: s98-s103 reserved
});

test('a descriptor value that does not evaluate is not called a missing directive', () => {
  const text = (sgpr: string[]) => [
    '.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"', '.text', '.globl k', '.type k,@function', 'k:',
    '  s_mov_b32 s20, 0', '  s_endpgm',
    '.rodata', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 8', ...sgpr, '  .amdhsa_accum_offset 8', '.end_amdhsa_kernel',
  ].join('\n');
  const message = (sgpr: string[]) => kernelResources(ctxOf(text(sgpr), undefined as unknown as string)[0]!).findings[0]!.message;
  assert.match(message(['  .amdhsa_next_free_sgpr undefined_count']), /the highest register used is s20, but \.amdhsa_next_free_sgpr is 0 \(its value could not be evaluated\)/);
});

test('edits: insert before an instruction keeps indentation and the rest byte-identical', () => {
  const text = 'a:\n\tv_mov_b32 v0, 1 // c\n  v_add_u32 v1, v0, v0 ; use\nlbl: v_mov_b32 v2, v1\n';
  const p = parseProgram(text, 'e.s');
  const e = emptyEdits();
  const add = p.statements.findIndex((s) => s.insn?.base === 'v_add_u32');
  addInsert(e, add, 's_nop 1');
  const mov2 = p.statements.findIndex((s) => s.insn?.text === 'v_mov_b32 v2, v1');
  addInsert(e, mov2, 's_nop 0');
  assert.equal(applyStatementEdits(p, e), 'a:\n\tv_mov_b32 v0, 1 // c\n  s_nop 1\n  v_add_u32 v1, v0, v0 ; use\nlbl:\ns_nop 0\nv_mov_b32 v2, v1\n');
});

test('edits: an edited macro invocation is written out expanded; other calls keep the macro', () => {
  const text = '.macro M d\n  v_mov_b32 v[\\d], 0\n  v_add_u32 v[\\d], v[\\d], 1\n.endm\n  M 3\n  M 4\n';
  const p = parseProgram(text, 'm.s');
  const e = emptyEdits();
  const k = p.statements.findIndex((s) => s.insn?.text === 'v_add_u32 v[3], v[3], 1');
  addInsert(e, k, 's_nop 1');
  assert.equal(applyStatementEdits(p, e),
    '.macro M d\n  v_mov_b32 v[\\d], 0\n  v_add_u32 v[\\d], v[\\d], 1\n.endm\n  // expanded from: M 3\n  v_mov_b32 v[3], 0\n  s_nop 1\n  v_add_u32 v[3], v[3], 1\n  M 4\n');
});

test('fix planning: nops merge with an s_nop in front and split into chunks of maxNopImm+1', () => {
  assert.deepEqual(nopLines(19, 7), ['s_nop 7', 's_nop 7', 's_nop 2']);
  assert.equal(waitcntText({ vmcnt: 0, lgkmcnt: 2 }), 's_waitcnt vmcnt(0) lgkmcnt(2)');
  // gfx90a: a 16-pass XDL result read by a VALU needs 19 wait states; s_nop 1 gives 2.
  const [c] = ctxOf('v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]\ns_nop 1\nv_accvgpr_read_b32 v2, a0\n');
  const [k] = checkContexts([c!]);
  const f = k!.findings.find((x) => x.severity === 'error');
  assert.equal(f?.required, 19);
  assert.equal(f?.actual, 2);
  const plan = planFixes([{ ctx: c!, findings: k!.findings }]);
  // s_nop 1 becomes s_nop 7 (6 more), then 11 more as s_nop 7 and s_nop 2
  const out = applyStatementEdits(c!.program, plan.edits);
  assert.equal(out, 'v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31]\ns_nop 7\ns_nop 7\ns_nop 2\nv_accvgpr_read_b32 v2, a0\n');
  assert.equal(plan.waitStates, 17);
});

test('fix planning: waits merge with an s_waitcnt in front (the smaller value per counter)', () => {
  const [c] = ctxOf('global_load_dword v0, v[2:3], off\ns_waitcnt lgkmcnt(0)\nv_add_u32 v1, v0, v0\n');
  const f: Finding = { rule: 'test', severity: 'error', message: 'm', loc: c!.cfg.insns[2]!.loc, insn: 2, related: [], fix: { kind: 'waitcnt', before: 2, vmcnt: 0 } };
  const out = applyStatementEdits(c!.program, planFixes([{ ctx: c!, findings: [f] }]).edits);
  assert.equal(out, 'global_load_dword v0, v[2:3], off\ns_waitcnt vmcnt(0) lgkmcnt(0)\nv_add_u32 v1, v0, v0\n');
});

test('formats: clang, JSON and SARIF carry the same finding', () => {
  const f: Finding = {
    rule: 'mfma-xdl-write-valu-read', severity: 'error', message: 'v_add_f32 reads v0', loc: { file: 'k.s', line: 9, col: 3 }, insn: 4,
    required: 7, actual: 3, related: [{ loc: { file: 'k.s', line: 5, col: 3 }, message: 'written here' }], source: 'ref §2.4',
  };
  assert.equal(formatFindingClang(f), 'k.s:9:3: error: v_add_f32 reads v0 [mfma-xdl-write-valu-read]\nk.s:5:3: note: written here');
  const report = { file: 'k.s', arch: 'gfx942', notes: [], kernels: [], findings: [f], errors: 1, warnings: 0 };
  const j = JSON.parse(formatReportJson(report));
  assert.deepEqual(j.diagnostics[0], {
    file: 'k.s', line: 9, column: 3, severity: 'error', rule: 'mfma-xdl-write-valu-read', message: 'v_add_f32 reads v0',
    required: 7, actual: 3, related: [{ line: 5, column: 3, message: 'written here' }], source: 'ref §2.4',
  });
  const s = JSON.parse(formatReportSarif(report, '0.1.0'));
  assert.equal(s.version, '2.1.0');
  const r = s.runs[0].results[0];
  assert.equal(r.ruleId, 'mfma-xdl-write-valu-read');
  assert.equal(r.level, 'error');
  assert.equal(r.locations[0].physicalLocation.region.startLine, 9);
  assert.equal(s.runs[0].tool.driver.rules[0].id, 'mfma-xdl-write-valu-read');
});

test('summary line: gfx908 declares the larger of its VGPR and AGPR counts in one field, said as such; gfx90a splits them at accum_offset', () => {
  const kernel = (target: string, mfma: string, extra: string) => [
    `.amdgcn_target "amdgcn-amd-amdhsa--${target}"`, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:',
    `  ${mfma}`, '  s_endpgm', '.rodata', '.p2align 6', '.amdhsa_kernel k', '  .amdhsa_next_free_vgpr 8', '  .amdhsa_next_free_sgpr 8', extra, '.end_amdhsa_kernel', '',
  ].join('\n');
  const summary = (text: string) => formatReportClang(checkLoaded(loadText(text, 'k.s'))).split('\n').find((l) => l.includes('kernel k:'))!;
  const s908 = summary(kernel('gfx908', 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]', ''));
  assert.match(s908, /declared 8 VGPR or AGPR \(the larger count: the descriptor does not split them\), 8 SGPR/);
  const s90a = summary(kernel('gfx90a', 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]', '  .amdhsa_accum_offset 4'));
  assert.match(s90a, /declared 8 VGPR\+AGPR \(split at accum_offset 4: 4 VGPR, 4 AGPR\), 8 SGPR/);
  // an allocation padded past accum_offset (clang does so for amdgpu_waves_per_eu) by code that
  // uses no AGPR: said as the registers allocated, split at accum_offset, beside what is used (no AGPR: the 'used' list names none)
  const padded = kernel('gfx942', 'v_add_f32 v0, v1, v2', '  .amdhsa_accum_offset 4').replace('.amdhsa_next_free_vgpr 8', '.amdhsa_next_free_vgpr 97');
  assert.match(summary(padded), /used v0\.\.v2, no SGPRs; declared 97 VGPR\+AGPR \(split at accum_offset 4: 4 VGPR, 93 AGPR\)/);
  assert.match(summary(kernel('gfx942', 'v_add_f32 v0, v1, v2', '  .amdhsa_accum_offset 8')), /declared 8 VGPR, 0 AGPR, 8 SGPR/);
  // analyze says the same
  const analyzed = (text: string) => formatAnalysis(analyzeLoaded(loadText(text, 'k.s')));
  assert.match(analyzed(padded), /declared: 97 VGPR\+AGPR \(split at accum_offset 4: 4 VGPR, 93 AGPR\), 8 SGPR/);
  assert.match(analyzed(kernel('gfx908', 'v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]', '')), /declared: 8 VGPR or AGPR \(the larger count/);
});

test('clang text shows three warnings of a rule and counts the rest in one note; errors and JSON list every finding', () => {
  // five v_cmpx -> buffer_load pairs without padding (valu-exec-write-vmem-read, a warning) and
  // four VALU SGPR writes read by a buffer load at once (valu-sgpr-write-vmem-read, an error)
  const pair = (k: number) => [`  v_cmpx_le_u32 exec, 1, v${k}`, `  buffer_load_dword v${20 + k}, v10, s[4:7], 0 offen`, '  s_mov_b64 exec, -1'];
  const sgpr = (k: number) => [`  v_readfirstlane_b32 s${8 + k}, v${k}`, `  buffer_load_dword v${30 + k}, v10, s[4:7], s${8 + k} offen`];
  const text = ['.amdgcn_target "amdgcn-amd-amdhsa--gfx942"', '.text', 'k:',
    ...[0, 1, 2, 3, 4].flatMap(pair), '  s_nop 7', ...[0, 1, 2, 3].flatMap(sgpr), '  s_waitcnt vmcnt(0)', '  s_endpgm', ''].join('\n');
  const r = checkLoaded(loadText(text, 'k.s'));
  const warnings = r.findings.filter((f) => f.rule === 'valu-exec-write-vmem-read');
  const errors = r.findings.filter((f) => f.rule === 'valu-sgpr-write-vmem-read');
  assert.equal(warnings.length, 5);
  assert.equal(errors.length, 4);
  const lines = formatReportClang(r).split('\n');
  assert.equal(lines.filter((l) => l.includes(': warning:') && l.endsWith('[valu-exec-write-vmem-read]')).length, 3);
  assert.equal(lines.filter((l) => l.includes(': error:') && l.endsWith('[valu-sgpr-write-vmem-read]')).length, 4);
  assert.ok(lines.includes('k.s: note: 2 more warnings [valu-exec-write-vmem-read] like the 3 above (--format json lists every finding)'), lines.join('\n'));
  assert.match(lines.at(-1)!, /^4 errors, 5 warnings/);
  const json = JSON.parse(formatReportJson(r)) as { diagnostics: { rule: string }[] };
  assert.equal(json.diagnostics.filter((f) => f.rule === 'valu-exec-write-vmem-read').length, 5);
});
