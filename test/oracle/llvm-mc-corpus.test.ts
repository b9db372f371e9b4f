/**
 * LLVM's assembler tests (../shared/corpus/llvm-mc): for each file and each of our targets named
 * by its RUN lines, every instruction line llvm-mc 22 accepts must parse and resolve with us,
 * and every line it rejects must be rejected by us too, unless a reviewed allow-list entry
 * (llvm-mc-allowlist.json) says why not. Stale allow-list entries fail the test as well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProgram } from '../../src/asm/parser.js';
import { resolveTarget } from '../../src/targets/index.js';
import { resolveProgram } from '../../src/isa/resolve.js';
import { corpusDir, readManifest, repoRoot, runLlvmMc } from './llvm.js';

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

for (const row of manifest) {
  const file = row['file']!;
  const targets = [...new Set(row['run_mcpus']!.split(',').map(ourTarget).filter((t): t is string => t !== undefined))];
  for (const t of targets) {
    test(`llvm-mc corpus: ${file} as ${t}`, async () => {
      const path = join(dir, file);
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
