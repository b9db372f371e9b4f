/**
 * Memory trace for measuring where a run's memory goes: with CONDUCTOR_MEMTRACE set, `memMark`
 * writes one line to standard error per call (thread, the time in milliseconds,
 * resident set, V8 heap used / total, external and array buffers, in MiB). Off by default.
 */
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { readFileSync, writeFileSync } from 'node:fs';

const on = process.env['CONDUCTOR_MEMTRACE'] !== undefined && process.env['CONDUCTOR_MEMTRACE'] !== '';

const mib = (x: number): string => (x / 1048576).toFixed(1);

export function memMark(label: string): void {
  if (!on) return;
  memSnap(label);
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  process.stderr.write(`memtrace t${threadId} ${Date.now()} ${label}: rss ${mib(m.rss)} heapUsed ${mib(h.used_heap_size)} heapTotal ${mib(h.total_heap_size)} ext ${mib(m.external)} ab ${mib(m.arrayBuffers)}\n`);
}

/** CONDUCTOR_MEMTRACE_SNAP=label: a heap snapshot is written at the first mark with that label. */
const snapAt = process.env['CONDUCTOR_MEMTRACE_SNAP'];
let snapped = false;
export function memSnap(label: string): void {
  if (!on || snapped || snapAt !== label) return;
  snapped = true;
  if (process.env['CONDUCTOR_MEMTRACE_SMAPS']) { writeFileSync(process.env['CONDUCTOR_MEMTRACE_SMAPS'], readFileSync('/proc/self/smaps')); return; }
  process.stderr.write(`memtrace snapshot ${writeHeapSnapshot()}\n`);
}
