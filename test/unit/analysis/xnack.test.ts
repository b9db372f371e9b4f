/** XNACK from the target id: --arch's features win, a feature --arch leaves out is the file's. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';

const body = ['.text', 'k:', '  s_load_dwordx2 s[0:1], s[0:1], 0x0', '  s_endpgm', ''];
const xnackOf = (target: string | undefined, arch?: string) =>
  kernelContexts(loadText([...(target ? [`.amdgcn_target "amdgcn-amd-amdhsa--${target}"`] : []), ...body].join('\n'), 'x.s', { arch }))[0]!.xnack;

test('xnack: the file says it, --arch overrides it, and a feature --arch leaves out is the file\'s', () => {
  assert.equal(xnackOf('gfx942'), undefined);
  assert.equal(xnackOf('gfx942:xnack-'), false);
  assert.equal(xnackOf('gfx90a:xnack+'), true);
  assert.equal(xnackOf('gfx942', 'gfx942:xnack-'), false);
  assert.equal(xnackOf('gfx942:xnack-', 'gfx942:xnack+'), true);
  assert.equal(xnackOf('gfx942:xnack-', 'gfx942'), false);
  assert.equal(xnackOf(undefined, 'gfx90a:xnack+'), true);
});
