/**
 * A small on-disk result cache in the user's cache directory: entries are JSON files named by the
 * SHA-256 of a canonical JSON key. A cache that cannot be read or written never fails a run (the
 * caller recomputes); entries are written atomically (temporary file + rename).
 *
 * Directory: $CONDUCTOR_CACHE_DIR, else $XDG_CACHE_HOME/conductor, else ~/.cache/conductor
 * (~/Library/Caches/conductor on macOS, %LOCALAPPDATA%\conductor\cache on Windows).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function cacheDir(): string {
  const env = process.env;
  if (env['CONDUCTOR_CACHE_DIR']) return env['CONDUCTOR_CACHE_DIR'];
  if (env['XDG_CACHE_HOME']) return path.join(env['XDG_CACHE_HOME'], 'conductor');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'conductor');
  if (process.platform === 'win32' && env['LOCALAPPDATA']) return path.join(env['LOCALAPPDATA'], 'conductor', 'cache');
  return path.join(os.homedir(), '.cache', 'conductor');
}

/** JSON with object keys sorted, so equal keys hash equally whatever their construction order. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The SHA-256 naming a cache entry for a key (any JSON value: input text, target, options). */
export function cacheKey(key: unknown): string { return sha256(canonicalJson(key)); }

export class ResultCache {
  readonly dir: string;
  /** Set when an entry could not be written (the run goes on). */
  lastError?: string;

  /** `namespace` separates kinds of results (e.g. 'schedule', 'agent'). */
  constructor(namespace: string, dir: string = cacheDir()) {
    this.dir = path.join(dir, namespace);
  }

  private file(hash: string): string { return path.join(this.dir, hash.slice(0, 2), `${hash}.json`); }

  /** The entry stored under a hash, or undefined (missing or unreadable). */
  get<T>(hash: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.file(hash), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /** Store an entry; false (and lastError) when it could not be written. */
  set(hash: string, value: unknown): boolean {
    const f = this.file(hash);
    const tmp = `${f}.${process.pid}.${Date.now()}.tmp`;
    try {
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(tmp, JSON.stringify(value), 'utf8');
      renameSync(tmp, f);
      return true;
    } catch (e) {
      try { rmSync(tmp, { force: true }); } catch { /* nothing to clean */ }
      this.lastError = `cannot write the cache entry ${f}: ${(e as Error).message}`;
      return false;
    }
  }

  /** Remove an entry (e.g. one that no longer replays). */
  delete(hash: string): void {
    try { rmSync(this.file(hash), { force: true }); } catch { /* already gone */ }
  }
}
