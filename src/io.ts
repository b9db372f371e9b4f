import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ConductorError } from './errors.js';

/** Read an input file; a missing or unreadable file is a ConductorError (exit code 2). */
export async function readInput(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(e);
    throw new ConductorError(`cannot read '${file}': ${why}`);
  }
}

/**
 * Write a whole output file or nothing: the text goes to a temporary file beside the target,
 * which is then renamed over it, so a failure never leaves a partial file.
 */
export async function writeOutputAtomic(file: string, text: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await fs.writeFile(tmp, text, 'utf8');
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw new ConductorError(`cannot write '${file}': ${(e as Error).message}`);
  }
}
