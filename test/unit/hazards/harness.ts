/**
 * Shared helpers of the hazard rule tests (not a test file itself): wrap an assembly snippet in a
 * function, check it for one target, and compare the findings with a table row.
 */
import assert from 'node:assert/strict';
import { kernelContextsFromText } from '../../../src/analysis/context.js';
import type { Finding, KernelContext } from '../../../src/analysis/types.js';
import { checkHazards, computeNops } from '../../../src/hazards/index.js';

/** A snippet becomes the body of function `k` (labels inside are allowed). */
export function wrap(body: string, xnack?: '+' | '-'): string {
  const lines = body.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  const target = xnack ? [`.amdgcn_target "amdgcn-amd-amdhsa--TARGET:xnack${xnack}"`] : [];
  return [...target, '.text', '.globl k', '.p2align 8', '.type k,@function', 'k:', ...lines.map((l) => (l.endsWith(':') ? l : `  ${l}`)), '  s_endpgm', ''].join('\n');
}

export function context(arch: string, body: string, xnack?: '+' | '-'): KernelContext {
  const text = wrap(body, xnack).replace('TARGET', arch);
  const ctxs = kernelContextsFromText(text, 'snippet.s', arch);
  const k = ctxs.find((c) => c.kernel.name === 'k');
  assert.ok(k, 'snippet kernel found');
  return k;
}

export function findings(arch: string, body: string, xnack?: '+' | '-'): Finding[] {
  return checkHazards(context(arch, body, xnack));
}

/** One row of a rule's table. `required`/`actual` given = bad snippet; omitted = good snippet. */
export interface Case {
  name: string;
  arch: string;
  asm: string;
  rule: string;
  required?: number;
  actual?: number;
  /** Other rules that may fire too on a bad snippet (otherwise the rule must be the only one). */
  alsoRules?: string[];
  xnack?: '+' | '-';
  severity?: 'error' | 'warning';
}

function show(fs: Finding[]): string {
  return fs.map((f) => `  ${f.loc.line}: ${f.message}`).join('\n') || '  (none)';
}

export function runCase(c: Case): void {
  const fs = findings(c.arch, c.asm, c.xnack);
  if (c.required === undefined) {
    assert.deepEqual(fs.filter((f) => f.rule === c.rule).map((f) => f.message), [], `expected no ${c.rule} finding:\n${show(fs)}`);
    if (!c.alsoRules) assert.equal(fs.length, 0, `expected a clean snippet:\n${show(fs)}`);
    return;
  }
  const mine = fs.filter((f) => f.rule === c.rule);
  assert.equal(mine.length, 1, `expected exactly one ${c.rule} finding:\n${show(fs)}`);
  const f = mine[0]!;
  assert.equal(f.required, c.required, `required wait states:\n${show(fs)}`);
  assert.equal(f.actual, c.actual, `wait states present:\n${show(fs)}`);
  assert.equal(f.severity, c.severity ?? 'error');
  assert.ok(f.fix && f.fix.kind === 'nop' && f.fix.waitStates === c.required - (c.actual ?? 0), 'nop fix for the shortfall');
  assert.ok(f.source && f.source.length > 0, 'the finding names its source');
  const others = fs.filter((x) => x.rule !== c.rule && !(c.alsoRules ?? []).includes(x.rule));
  assert.deepEqual(others.map((x) => x.message), [], 'no other rule fires');
  // The minimal padding fixes the snippet.
  const ctx = context(c.arch, c.asm, c.xnack);
  const plan = computeNops(ctx);
  assert.ok(plan.total >= c.required - (c.actual ?? 0), 'padding covers the shortfall');
}
