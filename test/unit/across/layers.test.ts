/**
 * The layers of src/ import only downwards. Each folder (and each file at the top of src/) sits
 * on one layer; a module may import its own folder and any lower layer, never a higher one nor a
 * folder of its own layer (peers such as hazards and waitcnt know nothing of each other). Every
 * import counts: `import type`, re-exports and dynamic `import()`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { root } from '../../repo.js';

const SRC = join(root, 'src');

/** Lowest first. A folder name, or a file directly in src/. */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'text.ts'],
  ['io.ts', 'version.ts', 'cache.ts', 'memtrace.ts', 'threads.ts'],
  ['asm'],
  ['isa'],
  ['targets'],
  ['load.ts'],
  ['input.ts'],
  ['analysis'],
  ['hazards', 'waitcnt', 'cycles'],
  ['check'],
  ['schedule', 'verify'],
  ['agent', 'report'],
  ['cli'],
  ['index.ts'],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** Relative module specifiers of every import, re-export and dynamic import of a source text. */
export function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  const re = /(?:^|[\n;])\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

const unitOf = (src: string, file: string) => relative(src, file).split('/')[0]!;
const layerOf = (unit: string) => LAYERS.findIndex((l) => l.includes(unit));

/** Every import under `src` that does not go downwards: "from -> to". */
function upwardImports(src: string): string[] {
  const bad: string[] = [];
  for (const f of sources(src)) {
    const from = unitOf(src, f);
    for (const spec of importSpecifiers(readFileSync(f, 'utf8'))) {
      if (!spec.startsWith('.')) continue; // packages and node: modules
      const to = unitOf(src, resolve(dirname(f), spec).replace(/\.js$/, '.ts'));
      if (to === from) continue;
      if (!(layerOf(to) < layerOf(from))) bad.push(`${relative(src, f)} -> ${spec}`);
    }
  }
  return bad;
}

test('every folder and top-level file of src/ has a layer', () => {
  const units = new Set(sources(SRC).map((f) => unitOf(SRC, f)));
  assert.deepEqual([...units].filter((u) => layerOf(u) < 0), []);
});

test('imports go only downwards through the layers', () => {
  assert.deepEqual(upwardImports(SRC), []);
});

test('an upward or sideways import is reported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    const put = (f: string, text: string) => { mkdirSync(dirname(join(dir, f)), { recursive: true }); writeFileSync(join(dir, f), text); };
    put('asm/parser.ts', "import type { Finding } from '../analysis/types.js';\nimport { lex } from './lexer.js';\n");
    put('asm/lexer.ts', "import { ConductorError } from '../errors.js';\n");
    put('hazards/engine.ts', "import { kernelEffects } from '../waitcnt/model.js';\n");
    put('check/check.ts', "import { checkHazards } from '../hazards/engine.js';\n");
    assert.deepEqual(upwardImports(dir).sort(), ['asm/parser.ts -> ../analysis/types.js', 'hazards/engine.ts -> ../waitcnt/model.js']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the import scanner sees every form of import', () => {
  const text = [
    "import { a } from '../x/a.js';",
    "import type { B } from './b.js';",
    "import { \n  c, \n  d, \n } from '../c.js';",
    "export { e } from '../e.js';",
    "export type * from './f.js';",
    "import './g.js';",
    "const h = await import('../h.js');",
    "// from '../not-an-import.js' in a comment line without import",
  ].join('\n');
  assert.deepEqual(importSpecifiers(text), ['../x/a.js', './b.js', '../c.js', '../e.js', './f.js', './g.js', '../h.js']);
});
