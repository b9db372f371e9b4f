/**
 * The bench's phases of a `schedule` run (scripts/phases.ts), read from the memory marks: on a
 * written set of marks with known times, and on a real run of the example with two jobs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, example } from './harness.js';
import { formatPhases, parseMarks, schedulePhases, searchSeconds } from '../../../scripts/phases.js';

const mark = (thread: number, ms: number, label: string) => `memtrace t${thread} ${ms} ${label}: rss 1.0 heapUsed 1.0 heapTotal 1.0 ext 0.0 ab 0.0`;

test('phases: the marks of a run give the time before the search, each phase with the workers\' late start and this thread\'s wait, and the time after', () => {
  const stderr = [
    mark(0, 1000, 'read'), mark(0, 1100, 'loaded'), 'a line that is not a mark', mark(0, 1500, 'fixed'), mark(1, 1300, 'task load'),
    mark(0, 1900, 'evaluator'), mark(0, 1900, 'task start list'), mark(1, 2200, 'task start beam'),
    mark(0, 2800, 'task done list'), mark(1, 3000, 'task done beam'),
    mark(0, 3010, 'task start anneal#1'), mark(1, 3020, 'task start anneal#2'), mark(1, 3400, 'task done anneal#2'), mark(0, 3500, 'task done anneal#1'),
    mark(0, 3600, 'candidates'), mark(0, 4500, 'scheduled'),
  ].join('\n');
  const p = schedulePhases(parseMarks(stderr))!;
  assert.deepEqual(p, {
    before: 0.9, load: 0.1, fix: 0.4, prepare: 0.4, total: 3.5, after: 1.0,
    phases: [
      { name: 'phase 1', seconds: 1.1, lateStart: 0.3, waited: 0.2 },
      { name: 'phase 2', seconds: 0.49, lateStart: 0.01, waited: 0 },
    ],
  });
  assert.match(formatPhases(p), /^before the search 0\.90 s \(load 0\.10, check and fix 0\.40, kernel and evaluator 0\.40\); phase 1 1\.10 s .*; after the search 1\.00 s .*; 3\.50 s in all$/);
  // one job: every run on this thread, one after the other
  const one = schedulePhases(parseMarks([
    mark(0, 1000, 'read'), mark(0, 1100, 'task start list'), mark(0, 1400, 'task done list'), mark(0, 1410, 'task start beam'), mark(0, 1600, 'task done beam'),
    mark(0, 1610, 'task start anneal#1'), mark(0, 1700, 'task done anneal#1'), mark(0, 1710, 'task start anneal#2'), mark(0, 1800, 'task done anneal#2'), mark(0, 2000, 'scheduled'),
  ].join('\n')))!;
  assert.deepEqual(one.phases, [{ name: 'phase 1', seconds: 0.5, lateStart: 0, waited: 0 }, { name: 'phase 2', seconds: 0.19, lateStart: 0, waited: 0 }]);
  assert.equal(one.after, 0.2);
  // a warm worker's run starts while this thread still makes its evaluator: the parts of `before` end where the search begins
  const early = schedulePhases(parseMarks([
    mark(0, 1000, 'read'), mark(0, 1100, 'loaded'), mark(0, 1200, 'fixed'), mark(1, 1300, 'task start beam'), mark(0, 1450, 'evaluator'),
    mark(0, 1450, 'task start list'), mark(1, 1700, 'task done beam'), mark(0, 1800, 'task done list'), mark(0, 1900, 'scheduled'),
  ].join('\n')))!;
  assert.deepEqual([early.before, early.load, early.fix, early.prepare], [0.3, 0.1, 0.1, 0.1]);
  assert.equal(schedulePhases(parseMarks('no marks here')), undefined);
  assert.equal(schedulePhases(parseMarks([mark(0, 1, 'read'), mark(0, 2, 'scheduled')].join('\n'))), undefined, 'no strategy ran');
});

test('phases: the search lasts, per phase, as long as its busiest thread\'s runs', () => {
  const runs = [{ label: 'list', seconds: 1.0 }, { label: 'beam', seconds: 0.75 }, { label: 'anneal#1', seconds: 0.5 }, { label: 'anneal#2', seconds: 0.25 }];
  // two threads: each phase as long as its slowest run
  const two = parseMarks([mark(0, 1, 'task start list'), mark(1, 2, 'task start beam'), mark(0, 3, 'task start anneal#1'), mark(1, 4, 'task start anneal#2')].join('\n'));
  assert.equal(searchSeconds(runs, two), 1.5);
  // one thread: every run one after the other
  const one = parseMarks([mark(0, 1, 'task start list'), mark(0, 2, 'task start beam'), mark(0, 3, 'task start anneal#1'), mark(0, 4, 'task start anneal#2')].join('\n'));
  assert.equal(searchSeconds(runs, one), 2.5);
  // runs without marks count as threads of their own
  assert.equal(searchSeconds(runs, []), 1.5);
});

test('phases: a real schedule of the example with two jobs adds up to its marks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conductor-phases-'));
  try {
    const r = spawnSync(process.execPath, [bin, 'schedule', example, '--no-cache', '--jobs', '2', '-o', join(dir, 'out.s')],
      { encoding: 'utf8', env: { ...process.env, CONDUCTOR_MEMTRACE: '1' } });
    assert.equal(r.status, 0, r.stderr);
    const marks = parseMarks(r.stderr);
    assert.ok(marks.some((m) => m.thread !== marks[0]!.thread), 'a worker thread made marks');
    const p = schedulePhases(marks)!;
    assert.deepEqual(p.phases.map((x) => x.name), ['phase 1', 'phase 2']);
    for (const x of [p.before, p.after, p.load!, p.fix!, p.prepare!, ...p.phases.flatMap((x) => [x.seconds, x.lateStart, x.waited])]) assert.ok(x >= 0, formatPhases(p));
    // the phases follow one another: their spans and the time around them make the whole run at most
    assert.ok(p.before + p.phases.reduce((a, x) => a + x.seconds, 0) + p.after <= p.total + 1e-9, formatPhases(p));
    assert.ok(p.load! + p.fix! + p.prepare! <= p.before + 1e-9, formatPhases(p));
    for (const x of p.phases) assert.ok(x.waited <= x.seconds && x.lateStart <= x.seconds, formatPhases(p));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
