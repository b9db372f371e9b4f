/**
 * LLVM's assembler tests (../shared/corpus/llvm-mc) and the project's own probe files
 * (test/oracle/probes: every literal form of the lexer, conditional and repeat directives,
 * operand legality): for each file and each of our targets (named by its RUN lines; all five
 * for the probes), every instruction line llvm-mc 22 accepts must parse and resolve with us
 * without error, and every line it rejects must be rejected by us too, unless a reviewed
 * allow-list entry (llvm-mc-allowlist.json) says why not. Stale allow-list entries fail the test
 * as well. Warnings (operands llvm-mc takes that LLVM never generates) are not rejections.
 * For the literal and directive probes, the values llvm-mc encodes and the instruction sequence
 * it assembles are compared with ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseProgram } from '../../src/asm/parser.js';
import { resolveTarget } from '../../src/targets/index.js';
import { resolveProgram } from '../../src/isa/resolve.js';
import type { Instruction, Operand } from '../../src/asm/ast.js';
import { corpusDir, llvmTool, readManifest, repoRoot, runLlvmMc } from './llvm.js';
import { execFileSync } from 'node:child_process';

interface AllowEntry { file: string; target: string; line: number; kind: 'missed-error' | 'false-error'; reason: string }

const dir = join(corpusDir(), 'llvm-mc');
const manifest = readManifest(readFileSync(join(dir, 'MANIFEST.tsv'), 'utf8'));
const allow: AllowEntry[] = JSON.parse(readFileSync(join(repoRoot(), 'test', 'oracle', 'llvm-mc-allowlist.json'), 'utf8'));
const allowKey = (e: { file: string; target: string; line: number; kind: string }) => `${e.file}|${e.target}|${e.line}|${e.kind}`;
const allowed = new Map(allow.map((e) => [allowKey(e), e]));
const used = new Set<string>();

/** Our targets for a RUN-line mcpu: gfx900 is judged as gfx906, gfx940 as gfx942; others are not ours. */
function ourTarget(mcpu: string): string | undefined {
  const name = mcpu.replace(/\(.*\)$/, '');
  if (name === 'gfx900') return 'gfx906';
  if (name === 'gfx940' || name === 'gfx941') return 'gfx942';
  return ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'].includes(name) ? name : undefined;
}

const totals = { accepted: 0, acceptedOk: 0, rejected: 0, rejectedOk: 0, allowMissed: 0, allowFalse: 0 };
const failures: string[] = [];

const probeDir = join(repoRoot(), 'test', 'oracle', 'probes');
const ALL_TARGETS = ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'];
const inputs = [
  ...manifest.map((row) => ({
    file: row['file']!, path: join(dir, row['file']!),
    targets: [...new Set(row['run_mcpus']!.split(',').map(ourTarget).filter((t): t is string => t !== undefined))],
  })),
  ...readdirSync(probeDir).filter((f) => f.endsWith('.s')).sort().map((f) => ({ file: `probes/${f}`, path: join(probeDir, f), targets: ALL_TARGETS })),
];

for (const { file, path, targets } of inputs) {
  for (const t of targets) {
    test(`llvm-mc corpus: ${file} as ${t}`, async () => {
      const text = readFileSync(path, 'utf8');
      const mc = await runLlvmMc(path, t, ['-filetype=null']);
      assert.ok(!mc.crashed, `llvm-mc crashed on ${file} -mcpu=${t}:\n${mc.stderr.slice(0, 2000)}`);
      const theirs = new Set(mc.errors.map((e) => e.line));
      const target = resolveTarget(t)!.target;
      const p = parseProgram(text, path);
      const r = resolveProgram(p, target);
      const ours = new Map<number, string>();
      for (const d of [...p.diagnostics, ...r.diagnostics]) if (d.severity === 'error' && !ours.has(d.loc.line)) ours.set(d.loc.line, d.message);
      const insnLines = new Set<number>();
      for (const s of p.statements) if (s.kind === 'instruction' || s.kind === 'raw') insnLines.add(s.loc.line);
      for (const line of theirs) insnLines.add(line);
      for (const line of [...insnLines].sort((a, b) => a - b)) {
        const src = p.lines[line - 1]?.text.trim() ?? '';
        if (theirs.has(line)) {
          totals.rejected++;
          if (ours.has(line)) { totals.rejectedOk++; continue; }
          const key = allowKey({ file, target: t, line, kind: 'missed-error' });
          if (allowed.has(key)) { used.add(key); totals.allowMissed++; continue; }
          failures.push(`${file}:${line} (${t}): llvm-mc rejects, we accept: ${src}   [llvm-mc: ${mc.errors.find((e) => e.line === line)!.message}]`);
        } else {
          totals.accepted++;
          if (!ours.has(line)) { totals.acceptedOk++; continue; }
          const key = allowKey({ file, target: t, line, kind: 'false-error' });
          if (allowed.has(key)) { used.add(key); totals.allowFalse++; continue; }
          failures.push(`${file}:${line} (${t}): llvm-mc accepts, we reject: ${src}   [ours: ${ours.get(line)}]`);
        }
      }
    });
  }
}

test('llvm-mc corpus: summary and allow-list', () => {
  console.log(`  accepted by llvm-mc: ${totals.accepted} lines, accepted by us: ${totals.acceptedOk}, allow-listed: ${totals.allowFalse}`);
  console.log(`  rejected by llvm-mc: ${totals.rejected} lines, rejected by us: ${totals.rejectedOk}, allow-listed: ${totals.allowMissed}`);
  const stale = allow.filter((e) => !used.has(allowKey(e)));
  if (failures.length > 0) console.log(failures.slice(0, 400).join('\n'));
  assert.equal(failures.length, 0, `${failures.length} lines where we disagree with llvm-mc and no allow-list entry explains why`);
  assert.deepEqual(stale.map(allowKey), [], 'allow-list entries that no longer disagree must be removed');
});

/** The 32-bit source value of an SOP1 / VOP1 encoding: its src0 byte, an inline constant or the literal after it. */
function encodedValue(bytes: number[]): number {
  const src = bytes[0]!;
  if (src === 255) return (bytes[4]! | bytes[5]! << 8 | bytes[6]! << 16 | bytes[7]! << 24) >>> 0;
  if (src >= 128 && src <= 192) return src - 128;
  if (src >= 193 && src <= 208) return (192 - src) >>> 0;
  const floats: Record<number, number> = { 240: 0.5, 241: -0.5, 242: 1, 243: -1, 244: 2, 245: -2, 246: 4, 247: -4 };
  if (src === 248) return 0x3e22f983; // 1/(2*pi)
  if (floats[src] !== undefined) return f32Bits(floats[src]!);
  throw new Error(`src0 byte ${src} is not a constant`);
}

function f32Bits(v: number): number {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, v);
  return b.getUint32(0);
}

/** Our value of an immediate source as the 32 bits it encodes to. */
function ourBits(o: Operand): number | string {
  if (o.kind !== 'imm') return o.kind;
  return o.float ? f32Bits(o.value) : Number(BigInt.asUintN(32, BigInt(o.value)));
}

function mcOutput(file: string, mcpu: string, extra: string[]): string {
  try {
    return execFileSync(llvmTool('llvm-mc'), ['-triple=amdgcn-amd-amdhsa', `-mcpu=${mcpu}`, ...extra, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    return (e as { stdout: string }).stdout; // the lines it rejects are left out of its output
  }
}

/** Instructions of a probe that parse and resolve without error, in order. */
function accepted(path: string, mcpu: string): Instruction[] {
  const p = parseProgram(readFileSync(path, 'utf8'), path);
  const r = resolveProgram(p, resolveTarget(mcpu)!.target);
  const bad = new Set([...p.diagnostics, ...r.diagnostics].filter((d) => d.severity === 'error').map((d) => d.loc.line));
  return p.instructions.filter((i) => !bad.has(i.loc.line));
}

test('llvm-mc literal forms: every accepted operand has the 32-bit value llvm-mc encodes', () => {
  const path = join(probeDir, 'literals.s');
  const encodings = [...mcOutput(path, 'gfx942', ['-show-encoding']).matchAll(/encoding: \[([^\]]*)\]/g)].map((m) => m[1]!.split(',').map(Number));
  const ours = accepted(path, 'gfx942');
  assert.equal(ours.length, encodings.length, 'the same lines are accepted');
  const wrong: string[] = [];
  ours.forEach((insn, k) => {
    const theirs = encodedValue(encodings[k]!);
    const mine = ourBits(insn.operands[1]!);
    if (mine !== theirs) wrong.push(`line ${insn.loc.line}: ${insn.text}: llvm-mc 0x${theirs.toString(16)}, ours ${typeof mine === 'number' ? `0x${mine.toString(16)}` : mine}`);
  });
  console.log(`  literal forms: ${ours.length} accepted lines compared with llvm-mc's encodings`);
  assert.deepEqual(wrong, []);
});

test('llvm-mc directives: the expansion of conditionals, repeat blocks and macros is the sequence llvm-mc assembles', () => {
  const path = join(probeDir, 'directives.s');
  const value = (t: string) => (/^-?(0x[0-9a-f]+|\d+)$/i.test(t) ? Number(t) : 'expr');
  const theirs = [...mcOutput(path, 'gfx942', []).matchAll(/^\s*s_mov_b32 s(\d+), (.*?)\s*$/gm)].map((m) => `s${m[1]} = ${value(m[2]!)}`);
  const ours = accepted(path, 'gfx942').map((i) => {
    const d = i.operands[0]!;
    const o = i.operands[1]!;
    return `s${d.kind === 'reg' ? d.index : '?'} = ${o.kind === 'imm' ? o.value : 'expr'}`;
  });
  console.log(`  directives: ${theirs.length} instructions in llvm-mc's expansion`);
  assert.deepEqual(ours, theirs);
});
