/**
 * Reading inputs and writing outputs. Every command that writes a file goes through
 * `writeOutputs`, which decides per output how it is written:
 *
 *  - `-`, or a path that is the standard output itself (`/dev/stdout`, `/proc/self/fd/1`, or the
 *    file the standard output is redirected to): written to the standard output;
 *  - a path that is not a regular file (a device, a FIFO, a socket, a terminal) or that leads to
 *    one through a link the kernel makes (`/proc/<pid>/fd/N`): opened and written directly,
 *    never replaced;
 *  - a regular file, a symlink to one (written through: its final target is replaced, the link
 *    stays) or a new file: written to a temporary file beside the target and renamed over it,
 *    so a reader never sees half a file and a failure leaves the old file as it was; an existing
 *    file keeps its permission bits (and, when run as root, its owner). The directories a new
 *    file's path names and that do not exist are created (as `mkdir -p`), and removed again when
 *    the command writes nothing after all.
 *
 * Several outputs of one command are staged together (every temporary file written) before any
 * is put in place, so a failure while writing leaves none of them behind.
 */
import { constants as fsc, fstatSync, promises as fs, rmdirSync, rmSync, statSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { ConductorError } from './errors.js';

/** The output path that means the standard output. */
export const STDOUT_PATH = '-';

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT': return 'no such file or directory';
    case 'EISDIR': return 'is a directory';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'ENOTDIR': return 'a component of the path is not a directory';
    case 'EROFS': return 'read-only file system';
    case 'ENOSPC': return 'no space left on the device';
    case 'ELOOP': return 'too many levels of symbolic links';
    default: return e instanceof Error ? e.message : String(e);
  }
}

/** Read a file as UTF-8 text; a missing or unreadable file is a ConductorError (exit code 2). */
export async function readInput(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new ConductorError(`cannot read '${file}': ${reason(e)}`);
  }
}

/**
 * Read an assembly source: as `readInput`, and the file must be text (no NUL byte, valid UTF-8)
 * holding something besides blanks. An empty or binary file is a ConductorError (exit code 2).
 */
export async function readSource(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    throw new ConductorError(`cannot read '${file}': ${reason(e)}`);
  }
  return sourceText(bytes, file);
}

/**
 * The text of a source file's bytes, or the reason it is not an assembly source. A UTF-8 byte order
 * mark is kept (U+FEFF, which the parser reads as a blank and warns about), so that what a command
 * writes keeps the input's bytes where it changed nothing.
 */
export function sourceText(bytes: Uint8Array, file: string): string {
  const text = decodeText(bytes, file, 'assembly source (.s)', true);
  if (text.trim() === '') throw new ConductorError(`${file}: the file is empty${text.length > 0 ? ' (only blanks)' : ''}: nothing to read`);
  return text;
}

/**
 * Bytes as UTF-8 text, or a ConductorError naming what was `expected` when they are not text
 * (a NUL byte, invalid UTF-8): a binary file is refused rather than echoed back in messages. A
 * byte order mark is dropped unless `keepBom`.
 */
function decodeText(bytes: Uint8Array, file: string, expected: string, keepBom = false): string {
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new ConductorError(`${file}: not a text file (a NUL byte at offset ${nul}); expected ${expected}`);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom }).decode(bytes);
  } catch {
    throw new ConductorError(`${file}: not a text file (not valid UTF-8); expected ${expected}`);
  }
}

/**
 * Read a text file that is not assembly (a move list, a prompt template): as `readInput`, and a
 * binary file is a ConductorError (exit code 2) saying what was `expected`. An empty file is text.
 */
export async function readTextFile(file: string, expected: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    throw new ConductorError(`cannot read '${file}': ${reason(e)}`);
  }
  return decodeText(bytes, file, expected);
}

/* ---------------------------------------------------------------------------------------------- */
/* Writing                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

export interface Output {
  /** Where: a path, or `-` for the standard output. */
  path: string;
  text: string;
}

/** How an output is written. */
export type WriteMode =
  | { kind: 'stdout' }
  | { kind: 'direct'; path: string }
  | { kind: 'replace'; path: string; existing?: { mode: number; uid: number; gid: number } };

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** True when `file` is `-` or names the file the standard output writes to. */
export function isStandardOutput(file: string): boolean {
  if (file === STDOUT_PATH) return true;
  try {
    return sameFile(statSync(file), fstatSync(1));
  } catch {
    return false;
  }
}

/** How the text of an output will be written (see the file comment). */
export async function writeMode(file: string): Promise<WriteMode> {
  if (file === '') throw new ConductorError('empty output path');
  if (isStandardOutput(file)) return { kind: 'stdout' };
  // `out/` names a directory: never written as a file named `out`
  if (file.endsWith('/') || file.endsWith(path.sep)) throw new ConductorError(`cannot write '${file}': names a directory (give a file name)`);
  let st: Stats | undefined;
  try {
    st = await fs.stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ConductorError(`cannot write '${file}': ${reason(e)}`);
  }
  if (st?.isDirectory()) throw new ConductorError(`cannot write '${file}': is a directory`);
  if (st && !st.isFile()) return { kind: 'direct', path: file };
  // A regular file or a new one: follow the symlinks to the file that gets replaced.
  let p = path.resolve(file);
  for (let hops = 0; ; hops++) {
    let l: Stats;
    try {
      l = await fs.lstat(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') break; // a new file (or a dangling link's target)
      throw new ConductorError(`cannot write '${file}': ${reason(e)}`);
    }
    if (!l.isSymbolicLink()) break;
    if (hops >= 40) throw new ConductorError(`cannot write '${file}': too many levels of symbolic links`);
    // The kernel's links to open files (/proc/<pid>/fd/N) are written through, never replaced.
    if (p.startsWith('/proc/')) return { kind: 'direct', path: file };
    p = path.resolve(path.dirname(p), await fs.readlink(p));
  }
  // A file its user may not write (read-only) is refused, as `>` or cp refuses it, though the rename
  // that replaces it needs only the directory (root may write any file, so root replaces it).
  if (st) {
    try {
      await fs.access(p, fsc.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ConductorError(`cannot write '${file}': ${code === 'EACCES' || code === 'EPERM' ? 'permission denied (the file is read-only)' : reason(e)}`);
    }
  }
  return { kind: 'replace', path: p, existing: st ? { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid } : undefined };
}

interface Staged { out: Output; mode: WriteMode; tmp?: string }

let tmpCounter = 0;

/*
 * Temporary files not yet renamed into place. An interrupt (Ctrl-C), SIGTERM or SIGHUP while any
 * exists removes them, then the signal is raised again with its default action, so the process
 * still ends as the signal ends it (exit 130 for SIGINT) and leaves no half-written file behind.
 */
const pendingTemps = new Set<string>();
/** Directories this command created for outputs not yet in place: each one's chain, deepest first. */
const pendingDirs = new Set<readonly string[]>();
const CLEANUP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function removeTempsAndReraise(signal: NodeJS.Signals): void {
  for (const t of pendingTemps) rmSync(t, { force: true });
  pendingTemps.clear();
  for (const chain of pendingDirs) removeDirChain(chain);
  pendingDirs.clear();
  for (const s of CLEANUP_SIGNALS) process.removeListener(s, removeTempsAndReraise);
  process.kill(process.pid, signal);
}

function pendingCount(): number {
  return pendingTemps.size + pendingDirs.size;
}

/** Track a temporary file or a chain of created directories; the signal handlers are on while any is tracked. */
function track<T>(set: Set<T>, x: T): void {
  if (pendingCount() === 0) for (const s of CLEANUP_SIGNALS) process.on(s, removeTempsAndReraise);
  set.add(x);
}

function untrack<T>(set: Set<T>, x: T): void {
  if (!set.delete(x) || pendingCount() > 0) return;
  for (const s of CLEANUP_SIGNALS) process.removeListener(s, removeTempsAndReraise);
}

/** Remove created directories, deepest first, while they are empty (a file put there meanwhile keeps its own). */
function removeDirChain(chain: readonly string[]): void {
  for (const d of chain) {
    try { rmdirSync(d); } catch { return; }
  }
}

/**
 * Create the missing directories above `file` (as `mkdir -p`); the ones created, deepest first
 * (empty when the directory was there), tracked until the write is done or undone.
 */
async function makeParents(file: string, output: string): Promise<readonly string[]> {
  const dir = path.dirname(file);
  let first: string | undefined;
  try {
    first = await fs.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new ConductorError(`cannot write '${output}': ${(e as NodeJS.ErrnoException).code === 'EEXIST' ? 'a component of the path is not a directory' : reason(e)}`);
  }
  if (first === undefined) return [];
  const chain: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    chain.push(d);
    if (d === first || path.dirname(d) === d) break;
  }
  track(pendingDirs, chain);
  return chain;
}

/** Remove a temporary file (when it is still there) and stop tracking it. */
async function dropTemp(tmp: string): Promise<void> {
  await fs.rm(tmp, { force: true });
  untrack(pendingTemps, tmp);
}

async function stage(out: Output, mode: WriteMode): Promise<Staged> {
  if (mode.kind !== 'replace') return { out, mode };
  const dir = path.dirname(mode.path);
  const tmp = path.join(dir, `.${path.basename(mode.path)}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`);
  track(pendingTemps, tmp);
  let h: FileHandle | undefined;
  try {
    h = await fs.open(tmp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, mode.existing ? 0o600 : 0o666);
    await h.writeFile(out.text, 'utf8');
    if (mode.existing) {
      const { mode: bits, uid, gid } = mode.existing;
      if (process.getuid?.() === 0) await h.chown(uid, gid).catch(() => undefined);
      await h.chmod(bits);
    }
    await h.sync();
    await h.close();
    h = undefined;
    return { out, mode, tmp };
  } catch (e) {
    await h?.close().catch(() => undefined);
    await dropTemp(tmp);
    throw new ConductorError(`cannot write '${out.path}': ${reason(e)}`);
  }
}

/**
 * Write every output, or none when one cannot be written: the missing directories of new files
 * are created and the regular files staged first, then put in place; the standard output and
 * direct writes (devices, FIFOs) come last. A failure before anything is in place removes the
 * directories it created.
 */
export async function writeOutputs(outputs: readonly Output[]): Promise<void> {
  checkOutputs(false, outputs.map((o) => o.path));
  const modes = [];
  for (const o of outputs) modes.push(await writeMode(o.path));
  const staged: Staged[] = [];
  const created: (readonly string[])[] = [];
  // the temporary files not yet renamed, then the directories while empty (an output already in
  // place keeps its own: removeDirChain stops at a directory that is not empty)
  const undo = async () => {
    for (const s of staged) if (s.tmp) await dropTemp(s.tmp);
    for (const chain of created.reverse()) { removeDirChain(chain); untrack(pendingDirs, chain); }
  };
  try {
    for (let x = 0; x < outputs.length; x++) {
      const mode = modes[x]!;
      if (mode.kind === 'replace' && !mode.existing) created.push(await makeParents(mode.path, outputs[x]!.path));
      staged.push(await stage(outputs[x]!, mode));
    }
  } catch (e) {
    await undo();
    throw e;
  }
  for (const s of staged) {
    if (!s.tmp || s.mode.kind !== 'replace') continue;
    try {
      await fs.rename(s.tmp, s.mode.path);
      untrack(pendingTemps, s.tmp);
    } catch (e) {
      await undo();
      throw new ConductorError(`cannot write '${s.out.path}': ${reason(e)}`);
    }
  }
  for (const chain of created) untrack(pendingDirs, chain);
  for (const s of staged) {
    if (s.mode.kind === 'direct') {
      try {
        await fs.writeFile(s.mode.path, s.out.text, 'utf8');
      } catch (e) {
        throw new ConductorError(`cannot write '${s.out.path}': ${reason(e)}`);
      }
    } else if (s.mode.kind === 'stdout') {
      await writeStdout(s.out.text);
    }
  }
}

/** Write one output (see writeOutputs). */
export async function writeOutput(file: string, text: string): Promise<void> {
  await writeOutputs([{ path: file, text }]);
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (e) => (e ? reject(new ConductorError(`cannot write to the standard output: ${e.message}`)) : resolve()));
  });
}

/** How an output path is named in messages. */
export function outputName(file: string): string {
  return file === STDOUT_PATH ? 'the standard output' : file;
}

/**
 * Where a command prints its summary: the standard error when one of its outputs goes to the
 * standard output (so the two never mix), else the standard output.
 */
export function summaryStream(outputs: readonly (string | undefined)[]): NodeJS.WriteStream {
  return outputs.some((o) => o !== undefined && isStandardOutput(o)) ? process.stderr : process.stdout;
}

/**
 * Usage errors found before any work: two outputs to the standard output, or one there beside a
 * JSON report (which is printed there too).
 */
export function checkOutputs(json: boolean | undefined, outputs: readonly (string | undefined)[]): void {
  const toStdout = outputs.filter((x): x is string => x !== undefined && isStandardOutput(x));
  if (toStdout.length > 1) throw new ConductorError(`only one output can go to the standard output (${toStdout.join(', ')})`);
  if (json && toStdout.length > 0) throw new ConductorError(`--json and -o ${toStdout[0]} both print to the standard output; write the output to a file`);
}
