/**
 * Start-up: a command loads what it uses (the model client only for `agent`, the worker pool only
 * for a parallel `schedule`, the report page only for `report`), counted as the script files V8
 * reports for the process (NODE_V8_COVERAGE); and the published bundle (dist/bin/, built by
 * `npm run build`, scripts/bundle.ts) does what the compiled modules do, worker threads included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example, root } from './harness.js';
import { VERSION } from '../../../src/version.js';

const bundle = join(root, 'dist', 'bin', 'conductor.js');

interface Loaded { code: number; out: string; err: string; files: string[] }

/** Run `node SCRIPT ARGS` and list the script files (file: URLs, relative to the repository) it loaded. */
function loadedBy(script: string, ...args: string[]): Loaded {
  const cov = mkdtempSync(join(tmpdir(), 'conductor-cov-'));
  try {
    const r = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env: { ...process.env, NODE_V8_COVERAGE: cov }, maxBuffer: 64 << 20 });
    const files = new Set<string>();
    for (const f of readdirSync(cov)) {
      const j = JSON.parse(readFileSync(join(cov, f), 'utf8')) as { result: { url: string }[] };
      for (const s of j.result) if (s.url.startsWith('file:')) files.add(s.url.replace(`file://${root}/`, ''));
    }
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr, files: [...files].sort() };
  } finally {
    rmSync(cov, { recursive: true, force: true });
  }
}

const packageOf = (f: string): string | undefined => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1];
const packages = (l: Loaded) => [...new Set(l.files.map(packageOf).filter((p) => p !== undefined))].sort();
const under = (l: Loaded, dir: string) => l.files.filter((f) => f.startsWith(dir));

test('--version loads the argument parser and nothing of the commands', () => {
  const l = loadedBy(bin, '--version');
  assert.equal(l.code, 0);
  assert.equal(l.out.trim(), VERSION);
  assert.deepEqual(packages(l), ['commander', 'picocolors']);
  // the command line, its options, errors and the version: no command's module
  assert.ok(under(l, 'dist/src/').length <= 6, `--version loads ${under(l, 'dist/src/').join(', ')}`);
});

test('analyze and check load no model client, worker pool, progress bar, report, schedule or agent code', () => {
  for (const cmd of ['analyze', 'check']) {
    const l = loadedBy(bin, cmd, example);
    assert.equal(l.code, 0, l.err);
    assert.deepEqual(packages(l), ['commander', 'picocolors'], cmd);
    assert.deepEqual(l.files.filter((f) => /dist\/src\/(report|agent|schedule|verify|cycles)\//.test(f)), [], cmd);
    // of the project's modules about 90 (all of them: about 160)
    assert.ok(under(l, 'dist/src/').length <= 95, `${cmd} loads ${under(l, 'dist/src/').length} of the project's files`);
  }
});

test('the model client is loaded by agent only: schedule and report do not load it', () => {
  const out = mkdtempSync(join(tmpdir(), 'conductor-start-'));
  try {
    const s = loadedBy(bin, 'schedule', example, '--budget', '20', '--jobs', '1', '--no-cache', '-o', join(out, 'k.s'));
    assert.equal(s.code, 0, s.err);
    assert.ok(!packages(s).includes('openai') && !packages(s).includes('piscina'), `schedule on one thread: ${packages(s).join(', ')}`);
    assert.ok(!packages(s).includes('cli-progress'), 'no progress bar without a terminal');
    const r = loadedBy(bin, 'report', example, '-o', join(out, 'r.html'));
    assert.equal(r.code, 0, r.err);
    assert.ok(!packages(r).includes('openai'));
    assert.deepEqual(r.files.filter((f) => /dist\/src\/agent\//.test(f)), []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the bundle: an executable with a shebang that loads a few files', () => {
  accessSync(bundle, constants.X_OK);
  assert.match(readFileSync(bundle, 'utf8'), /^#!\/usr\/bin\/env -S node --v8-pool-size=1\n/);
  // run as the installed command runs it: the file itself, through its shebang
  const x = spawnSync(bundle, ['--version'], { encoding: 'utf8' });
  assert.equal(x.status, 0, x.stderr);
  assert.equal(x.stdout.trim(), VERSION);
  // a schedule on two threads runs again with node's default pool (src/cli/main.ts rerunArgs): the same report, the same exit codes
  const two = (...a: string[]) => ['schedule', ...a, '--jobs', '2', '--strategy', 'list,beam', '--budget', '30', '--no-cache', '--json'];
  const viaShebang = spawnSync(bundle, two(example), { encoding: 'utf8', maxBuffer: 64 << 20 });
  const direct = spawnSync(process.execPath, [bundle, ...two(example)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(viaShebang.status, 0, viaShebang.stderr);
  const strip = (o: string) => o.replace(/"(seconds|evaluationsPerSecond)": [0-9.]+/g, '');
  assert.equal(strip(viaShebang.stdout), strip(direct.stdout));
  assert.equal(spawnSync(bundle, two('no-such-file.s'), { encoding: 'utf8' }).status, 2);
  const v = loadedBy(bundle, '--version');
  assert.equal(v.out.trim(), VERSION);
  assert.deepEqual(packages(v), [], 'commander and picocolors are bundled');
  assert.ok(v.files.length <= 8, `--version loads ${v.files.length} files: ${v.files.join(', ')}`);
  const a = loadedBy(bundle, 'analyze', example);
  assert.ok(a.files.length < 30, `analyze loads ${a.files.length} files`);
});

test('the bundle prints what the compiled modules print, and schedules on worker threads', () => {
  const run = (script: string, ...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const args of [['analyze', example, '--json'], ['check', example, '--format', 'json'], ['tag', example], ['simulate', example, '--no-insns']]) {
    const x = run(bundle, ...args);
    const y = run(bin, ...args);
    assert.equal(x.status, y.status, args.join(' '));
    assert.equal(x.stdout, y.stdout, args.join(' '));
  }
  const out = mkdtempSync(join(tmpdir(), 'conductor-bundle-'));
  try {
    // two strategies on two threads: the pool starts dist/bin/task.js; the same seed and budget give the same file
    const args = (o: string) => ['schedule', example, '--jobs', '2', '--strategy', 'list,beam', '--budget', '60', '--no-cache', '-o', o, '--json'];
    const x = run(bundle, ...args(join(out, 'a.s')));
    assert.equal(x.status, 0, x.stderr);
    const y = run(bin, ...args(join(out, 'b.s')));
    assert.equal(y.status, 0, y.stderr);
    assert.equal(readFileSync(join(out, 'a.s'), 'utf8'), readFileSync(join(out, 'b.s'), 'utf8'));
    const rx = JSON.parse(x.stdout) as { runs: { label: string; evaluations: number }[] };
    assert.deepEqual(rx.runs.map((r) => r.label), ['list', 'beam', 'pipelined list', 'pipelined beam']);
    assert.ok(rx.runs.every((r) => r.evaluations > 0));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
