/**
 * Memory marks at the phases of a run, for finding where its memory goes. Off unless
 * CONDUCTOR_MEMTRACE is set; then each `memMark` writes one line to standard error: the thread,
 * the time in milliseconds, the process's resident set, this thread's V8 heap (used and
 * total), external memory and array buffers, in MiB.
 *   CONDUCTOR_MEMTRACE_SNAP=label    at the first mark with that label, a heap snapshot of the
 *                                    thread is written (v8.writeHeapSnapshot; its name is printed);
 *                                    label@n: at the n-th mark with that label
 *   CONDUCTOR_MEMTRACE_GC=1          with node --expose-gc: a full collection before each mark, so
 *                                    that heapUsed and ab are what is live there
 *   CONDUCTOR_MEMTRACE_SMAPS=file    with _SNAP: /proc/self/smaps copied to `file` instead
 *                                    (the mappings behind the resident set: heap pages, malloc
 *                                    arenas, code)
 */
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { readFileSync, writeFileSync } from 'node:fs';

const on = (process.env['CONDUCTOR_MEMTRACE'] ?? '') !== '';
const snapAt = process.env['CONDUCTOR_MEMTRACE_SNAP'];
const smaps = process.env['CONDUCTOR_MEMTRACE_SMAPS'];
let snapped = false;
const gcFirst = (process.env['CONDUCTOR_MEMTRACE_GC'] ?? '') !== '' ? (globalThis as { gc?: () => void }).gc : undefined;
const snapLabel = snapAt?.replace(/@\d+$/, '');
let snapLeft = Number(/@(\d+)$/.exec(snapAt ?? '')?.[1] ?? 1);

const mib = (x: number): string => (x / 1048576).toFixed(1);

export function memMark(label: string): void {
  if (!on) return;
  if (!snapped && snapLabel === label && --snapLeft === 0) {
    snapped = true;
    if (smaps) writeFileSync(smaps, readFileSync('/proc/self/smaps'));
    else process.stderr.write(`memtrace snapshot ${writeHeapSnapshot()}\n`);
  }
  if (gcFirst) gcFirst();
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  process.stderr.write(`memtrace t${threadId} ${Date.now()} ${label}: rss ${mib(m.rss)} heapUsed ${mib(h.used_heap_size)} ` +
    `heapTotal ${mib(h.total_heap_size)} ext ${mib(m.external)} ab ${mib(m.arrayBuffers)}\n`);
}
