/** xnack-soft-clause: an error with xnack+, a warning with XNACK unspecified, nothing with xnack-. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCase, type Case } from '../harness.js';

const R = 'xnack-soft-clause';
const SMEM = 's_load_dwordx2 s[0:1], s[0:1], 0x0\ns_load_dwordx2 s[2:3], s[0:1], 0x8';
const CASES: Case[] = [
  { name: 'SMEM clause reads what it writes (xnack+)', arch: 'gfx942', rule: R, required: 1, actual: 0, xnack: '+', asm: SMEM },
  { name: 'XNACK unspecified: warning', arch: 'gfx90a', rule: R, required: 1, actual: 0, severity: 'warning', asm: SMEM },
  { name: 'xnack-: no clause hazard', arch: 'gfx90a', rule: R, xnack: '-', asm: SMEM },
  { name: 'a store joins a VMEM clause that writes', arch: 'gfx906', rule: R, required: 1, actual: 0, xnack: '+',
    asm: 'global_load_dword v0, v[2:3], off\nglobal_store_dword v[4:5], v6, off' },
  { name: 'independent loads', arch: 'gfx906', rule: R, xnack: '+',
    asm: 'global_load_dword v0, v[2:3], off\nglobal_load_dword v1, v[4:5], off' },
  { name: 'an s_nop breaks the clause', arch: 'gfx942', rule: R, xnack: '+',
    asm: 's_load_dwordx2 s[0:1], s[0:1], 0x0\ns_nop 0\ns_load_dwordx2 s[2:3], s[0:1], 0x8' },
];

describe(R, () => {
  for (const c of CASES) it(`${c.arch}: ${c.name}`, () => runCase(c));
});

it('the warning says why and how to make it an error or silence it; the error does not', async () => {
  const { checkLoaded } = await import('../../../../src/check/check.js');
  const { loadText } = await import('../../../../src/load.js');
  const msg = (arch: string) => checkLoaded(loadText(`${SMEM}\n`, 's.s', { arch })).findings.find((f) => f.rule === R)?.message ?? '';
  assert.match(msg('gfx90a'), /\(the target id leaves XNACK unspecified: an error with gfx90a:xnack\+, nothing with gfx90a:xnack- \(--arch or \.amdgcn_target\)\)$/);
  assert.doesNotMatch(msg('gfx90a:xnack+'), /unspecified/);
});
