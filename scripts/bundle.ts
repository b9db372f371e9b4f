/**
 * The published command as a bundle: esbuild joins the compiled modules (dist/src, from tsc) into
 * a few files under dist/bin/, so that a command reads a handful of files instead of a hundred:
 *
 *   dist/bin/conductor.js   the command (package.json "bin"), with its shebang
 *   dist/bin/task.js        the worker-thread entry of `schedule` (piscina loads it by its URL,
 *                           which src/schedule/search/run.ts takes relative to its own module)
 *   dist/bin/chunk-*.js     code shared between them and loaded when a command needs it (each
 *                           command's module is imported lazily by src/cli/main.ts)
 *
 * Every file lies in the one directory, so `new URL('./task.js', import.meta.url)` finds the
 * worker entry from whichever chunk holds the search. The small CommonJS packages on the start-up
 * path (commander, picocolors) are bundled; the others stay packages, loaded from node_modules:
 * piscina (it starts its own worker script), openai and cli-progress (loaded only by `agent` and
 * a `schedule` on a terminal), uplot (its browser build is read as a file by `report`).
 * The library (package.json "exports": dist/src/index.js) is not bundled.
 *
 * Run by `npm run build` and `prepare` after tsc: node dist/scripts/bundle.js
 */
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Packages bundled into the command; every other dependency stays external. */
export const BUNDLED_PACKAGES = ['commander', 'picocolors'];

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const out = join(root, 'dist', 'bin');

async function main(): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const external = Object.keys(pkg.dependencies ?? {}).filter((d) => !BUNDLED_PACKAGES.includes(d));
  rmSync(out, { recursive: true, force: true });
  const t0 = performance.now();
  const r = await build({
    entryPoints: { conductor: join(root, 'dist', 'src', 'cli', 'bin.js'), task: join(root, 'dist', 'src', 'schedule', 'search', 'task.js') },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    external: [...external, ...external.map((d) => `${d}/*`)],
    // commander is CommonJS: its require() of node's modules needs a require in the ES modules
    banner: { js: "import { createRequire as __conductorRequire } from 'node:module'; const require = __conductorRequire(import.meta.url);" },
    logLevel: 'warning',
    metafile: true,
  });
  const files = Object.keys(r.metafile.outputs).length;
  const bytes = Object.values(r.metafile.outputs).reduce((s, o) => s + o.bytes, 0);
  process.stdout.write(`bundle: dist/bin/conductor.js and ${files - 1} more files, ${(bytes / 1024).toFixed(0)} KiB, in ${(performance.now() - t0).toFixed(0)} ms\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bundle: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
