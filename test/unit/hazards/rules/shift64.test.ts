/** shift64-high-reg: gfx90a+ 64-bit shift with the amount in v(8k+7) and v(8k+8) unused: no s_nop fix. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findings } from '../harness.js';

describe('shift64-high-reg', () => {
  it('reports v7 when v8 is unused, without a nop fix', () => {
    const fs = findings('gfx90a', 'v_lshrrev_b64 v[2:3], v7, v[2:3]');
    assert.equal(fs.length, 1);
    assert.equal(fs[0]!.rule, 'shift64-high-reg');
    assert.equal(fs[0]!.fix, undefined);
    assert.equal(fs[0]!.required, undefined);
    assert.match(fs[0]!.message, /v7.*v8 is not used/);
  });
  it('reports v255 on gfx950', () => {
    assert.equal(findings('gfx950', 'v_lshlrev_b64 v[2:3], v255, v[2:3]').filter((f) => f.rule === 'shift64-high-reg').length, 1);
  });
  it('no finding when the next VGPR is used', () => {
    assert.equal(findings('gfx942', 'v_mov_b32 v8, 0\nv_ashrrev_i64 v[2:3], v7, v[2:3]').length, 0);
  });
  it('no finding for other amounts or before gfx90a', () => {
    assert.equal(findings('gfx90a', 'v_lshrrev_b64 v[2:3], v6, v[2:3]').length, 0);
    assert.equal(findings('gfx908', 'v_lshrrev_b64 v[2:3], v7, v[2:3]').length, 0);
  });
});
