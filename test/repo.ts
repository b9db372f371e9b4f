/**
 * The repository's paths for tests, wherever the compiled test lies (dist/test/unit/<folder>/,
 * dist/test/oracle/...): the root is the nearest directory above this module holding the
 * project's package.json, so no test counts '..' to reach examples/ or the built command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'conductor') return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of conductor above ${from}`);
  }
}

/** The repository's root directory. */
export const root = findRoot(dirname(fileURLToPath(import.meta.url)));
/** The compiled command (tsc's output, not the bundle). */
export const bin = join(root, 'dist', 'src', 'cli', 'bin.js');
/** The example kernel the package ships. */
export const example = join(root, 'examples', 'mfma_lds_gemm.gfx942.s');
