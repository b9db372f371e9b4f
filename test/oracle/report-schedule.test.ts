/**
 * `report --after` on the scheduler's real output: for the Tensile kernels llvm-mc accepts (up to
 * 10,000 instructions), `schedule --strategy list` writes a schedule, `report --after` reads the
 * moves back from the two files, and `apply` with those moves rebuilds the scheduled order
 * (byte for byte when the input checks clean).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadText } from '../../src/load.js';
import type { ReportModel } from '../../src/report/index.js';
import { acceptedTensileKernels, repoRoot } from './llvm.js';

const bin = join(repoRoot(), 'dist', 'src', 'cli', 'bin.js');
const work = mkdtempSync(join(tmpdir(), 'conductor-report-schedule-'));

function run(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function modelOfPage(file: string): ReportModel {
  const m = /id="report-data">([A-Za-z0-9+/=]+)<\/script>/.exec(readFileSync(file, 'utf8'));
  assert.ok(m);
  return JSON.parse(gunzipSync(Buffer.from(m[1]!, 'base64')).toString('utf8')) as ReportModel;
}

/** Instruction texts without s_waitcnt and s_nop. */
function order(text: string, file: string): string[] {
  return loadText(text, file).program.instructions.filter((i) => i.base !== 's_waitcnt' && i.base !== 's_nop').map((i) => i.text.trim());
}

const kernels = (await acceptedTensileKernels()).filter((k) => {
  const n = loadText(k.text, k.path).program.instructions.length;
  return n > 0 && n <= 10_000;
});

test('Tensile kernels of up to 10,000 instructions are there', () => {
  assert.ok(kernels.length >= 3, `${kernels.length} kernels`);
});

for (const k of kernels) {
  test(`report --after a list schedule: ${basename(k.path).slice(0, 60)}`, () => {
    const name = basename(k.path, '.s');
    const sched = join(work, `${name}.sched.s`);
    let r = run('schedule', k.path, '--strategy', 'list', '--budget', '300', '--seed', '1', '--jobs', '1', '--no-cache', '-o', sched);
    assert.equal(r.code, 0, r.err);
    const html = join(work, `${name}.html`);
    r = run('report', k.path, '--after', sched, '-o', html);
    assert.equal(r.code, 0, r.err);
    const model = modelOfPage(html);
    const c = model.comparison!;
    assert.equal(model.after!.file, sched);
    const movesFile = join(work, `${name}.moves`);
    writeFileSync(movesFile, c.moves.join('\n') + '\n');
    const rebuilt = join(work, `${name}.rebuilt.s`);
    r = run('apply', k.path, '--moves-file', movesFile, '-o', rebuilt);
    assert.equal(r.code, 0, r.err);
    // The same instructions in the same order. Waits may differ: `schedule` starts from the
    // input with its check errors fixed (extra or stronger s_waitcnt), `apply` from the input.
    const a = order(readFileSync(rebuilt, 'utf8'), rebuilt);
    const b = order(readFileSync(sched, 'utf8'), sched);
    const first = a.findIndex((x, i) => x !== b[i]);
    assert.ok(a.length === b.length && first < 0, `the moves rebuild the schedule: ${a.length} vs ${b.length} instructions, first difference at ${first}: '${a[first]}' vs '${b[first]}'`);
    if (readFileSync(rebuilt, 'utf8') !== readFileSync(sched, 'utf8')) {
      assert.match(r.err + r.out + run('check', k.path).out, /error/, 'waits differ only when the input has check errors');
    }
    const delta = c.deltas.find((d) => d.metric === 'total_instructions')!;
    assert.equal(delta.after, model.after!.instructions);
    assert.equal(delta.before, model.kernels[0]!.instructions);
    console.log(`  ${name.slice(0, 50)}: ${c.moves.length} moves in ${c.changedRegions} regions; ` +
      c.deltas.filter((d) => d.delta !== 0).map((d) => `${d.metric} ${d.before} -> ${d.after}`).join(', '));
  });
}
