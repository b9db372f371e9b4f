/**
 * Removes from dist/ what tsc wrote for a source that no longer exists: tsc never deletes an
 * output, so a test file moved or deleted would otherwise still run from its old place under
 * dist/test/ (node --test reads the directory). Each .js, .js.map, .d.ts and .d.ts.map under
 * dist/src, dist/test and dist/scripts is kept only while its .ts source is there; folders left
 * empty go too. dist/bin (the bundle) is rebuilt by scripts/bundle.ts.
 *
 * Run by `npm run build` after tsc: node dist/scripts/prune-dist.js
 */
import { existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const dist = join(root, 'dist');
const OUTPUT = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

/** Prunes `dir` (under dist/); true when it is left empty. */
function prune(dir: string, removed: string[]): boolean {
  let left = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (prune(p, removed)) rmdirSync(p);
      else left++;
      continue;
    }
    const source = join(root, relative(dist, p)).replace(OUTPUT, '.ts');
    if (OUTPUT.test(name) && !existsSync(source)) {
      rmSync(p);
      removed.push(relative(root, p));
    } else left++;
  }
  return left === 0;
}

const removed: string[] = [];
for (const top of ['src', 'test', 'scripts']) {
  const d = join(dist, top);
  if (existsSync(d)) prune(d, removed);
}
if (removed.length > 0) console.log(`prune-dist: removed ${removed.length} files whose source is gone`);
