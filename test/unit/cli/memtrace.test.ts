/**
 * CONDUCTOR_MEMTRACE: `schedule` writes one memory line per phase to standard error and
 * nothing else changes (the scheduled file and the JSON report are the same without it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example } from './harness.js';

function schedule(out: string, env: Record<string, string>): { code: number; out: string; err: string; text: string } {
  const r = spawnSync(process.execPath, [bin, 'schedule', example, '--no-cache', '--budget', '60', '--jobs', '2', '--json', '-o', out],
    { encoding: 'utf8', env: { ...process.env, CONDUCTOR_MEMTRACE: '', ...env } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr, text: readFileSync(out, 'utf8') };
}

const timeless = (json: string) => JSON.stringify(JSON.parse(json, (k, v: unknown) => (/seconds|PerSecond|^output$/.test(k) ? undefined : v)));

test('CONDUCTOR_MEMTRACE: a line per phase on standard error, the same output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-memtrace-'));
  const off = schedule(join(dir, 'a.s'), {});
  const on = schedule(join(dir, 'b.s'), { CONDUCTOR_MEMTRACE: '1' });
  assert.equal(off.code, 0, off.err);
  assert.equal(on.code, 0, on.err);
  assert.equal(off.err, '');
  assert.equal(on.text, off.text);
  assert.equal(timeless(on.out), timeless(off.out));
  const lines = on.err.trimEnd().split('\n');
  for (const l of lines) assert.match(l, /^memtrace t\d+ \d+ [^:]+: rss [\d.]+ heapUsed [\d.]+ heapTotal [\d.]+ ext [\d.]+ ab [\d.]+$/);
  const labels = lines.map((l) => l.split(' ').slice(3).join(' ').split(':')[0]);
  for (const phase of ['loaded', 'fixed', 'evaluator', 'strategies done', 'candidates', 'scheduled']) assert.ok(labels.includes(phase), `${phase} in ${labels.join(', ')}`);
  // the worker thread marks its own phases
  assert.ok(lines.some((l) => /^memtrace t[1-9]\d* \d+ task loaded:/.test(l)), on.err);
});
