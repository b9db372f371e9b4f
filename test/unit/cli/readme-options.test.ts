/**
 * The README documents every option of every command: each long option `--help` lists (or its
 * one-letter form) is named in the command's row of the command table, and for `agent` in its
 * options table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, run } from './harness.js';

const README = readFileSync(join(root, 'README.md'), 'utf8');
const COMMANDS = ['emit', 'analyze', 'check', 'simulate', 'tag', 'apply', 'schedule', 'verify', 'agent', 'report'];

/** The options of a command's --help: long name and one-letter form. */
function options(cmd: string): { long: string; short?: string }[] {
  const r = run(cmd, '--help');
  assert.equal(r.code, 0, r.err);
  const out: { long: string; short?: string }[] = [];
  for (const m of r.out.matchAll(/^ {2}(?:(-[a-zA-Z]), )?(--[a-z][a-z-]*)/gm)) if (m[2] !== '--help') out.push({ long: m[2]!, ...(m[1] ? { short: m[1] } : {}) });
  return out;
}

/** Where the README documents a command's options: its rows of the command table; agent's own table too. */
function documentation(cmd: string): string {
  const row = README.split('\n').filter((l) => l.startsWith(`| \`conductor ${cmd} `)).join('\n');
  assert.ok(row, `the command table has a row for ${cmd}`);
  if (cmd !== 'agent') return row;
  const at = README.indexOf('| `--model M` |');
  assert.ok(at > 0, 'the agent options table');
  return row + README.slice(at, README.indexOf('\n\n', at));
}

test('the README names every option of every command', () => {
  const named = (text: string, flag: string) => new RegExp(`${flag}(?![a-z-])`).test(text);
  const missing: string[] = [];
  for (const cmd of COMMANDS) {
    const doc = documentation(cmd);
    const opts = options(cmd);
    assert.ok(opts.length > 0, `${cmd} --help lists options`);
    for (const o of opts) if (!named(doc, o.long) && !(o.short && named(doc, o.short))) missing.push(`${cmd} ${o.long}`);
  }
  assert.deepEqual(missing, []);
});
