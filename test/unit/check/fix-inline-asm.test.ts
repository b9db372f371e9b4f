/**
 * Padding in front of an inline asm goes before LLVM's `;;#ASMSTART` comment, not between it and
 * the author's first instruction: a VALU write of an SGPR (an SGPR restored by v_readlane) right
 * before an inline-asm buffer_load that reads it (LLVM's hazard recognizer does not pad the
 * inputs of an inline asm). Written between the markers, the s_nop would read as the author's
 * code, and a later schedule would pin it as such.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadText } from '../../../src/load.js';
import { fixLoaded } from '../../../src/check/fix.js';
import { checkLoaded } from '../../../src/check/check.js';

const src = [
  '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
  '.text',
  'k:',
  '\tv_readlane_b32 s4, v127, 18',
  '\tv_readlane_b32 s5, v127, 19',
  '\tv_readlane_b32 s6, v127, 20',
  '\tv_readlane_b32 s7, v127, 21',
  '\t;;#ASMSTART',
  '\tbuffer_load_dword v0, v1, s[4:7], 0 offen offset:0',
  'v_mov_b32 v1, v2',
  '\t;;#ASMEND',
  '\tv_readlane_b32 s8, v127, 22',
  '\ts_waitcnt vmcnt(0)',
  '\ts_endpgm',
  '',
].join('\n');

describe('check --fix before an inline asm', () => {
  it('puts the s_nop before ;;#ASMSTART and leaves the inline asm as written', () => {
    const r = fixLoaded(loadText(src, 'k.s'));
    assert.equal(r.insertedNops, 1);
    const lines = r.text.split('\n');
    const start = lines.indexOf('\t;;#ASMSTART');
    assert.equal(lines[start - 1], '\ts_nop 4');
    assert.deepEqual(lines.slice(start, start + 4), ['\t;;#ASMSTART', '\tbuffer_load_dword v0, v1, s[4:7], 0 offen offset:0', 'v_mov_b32 v1, v2', '\t;;#ASMEND']);
    const again = checkLoaded(loadText(r.text, 'k.s'));
    assert.equal(again.findings.filter((f) => f.severity === 'error').length, 0);
  });

  it('an instruction inside the inline asm keeps its padding where it is (only the first moves out)', () => {
    const inner = src.replace('v_mov_b32 v1, v2', 'v_readlane_b32 s9, v127, 23\nbuffer_load_dword v3, v1, s[8:11], 0 offen offset:0');
    const r = fixLoaded(loadText(inner, 'k.s'));
    const lines = r.text.split('\n');
    const start = lines.indexOf('\t;;#ASMSTART');
    assert.equal(lines[start - 1], '\ts_nop 4');
    const load2 = lines.indexOf('buffer_load_dword v3, v1, s[8:11], 0 offen offset:0');
    assert.match(lines[load2 - 1]!, /^\s*s_nop \d+$/);
    assert.ok(load2 > start && load2 < lines.indexOf('\t;;#ASMEND'));
  });
});
