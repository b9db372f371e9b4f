/**
 * The interner: the same word gets the same id and string wherever it is cut from, and the
 * strings it keeps are copies (ownString) equal to the words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Interner, ownString } from '../../../src/asm/intern.js';

test('interned words, short and long, come back equal to the text they were cut from, with one id per word', () => {
  const long = 'Custom_Cijk_Alik_Bljk_F8BS_BH_BiasSB_AS_SABV_SAV_UserArgs_MT256x256x128';
  const text = `v_add_u32 ${long}: s_nop 0 ${long}\n"quoted \\" word" ${'x'.repeat(5000)}`;
  const words = new Interner();
  const a = words.id(text, 10, 10 + long.length);
  const b = words.id(text, text.lastIndexOf(long), text.lastIndexOf(long) + long.length);
  assert.equal(a, b);
  assert.equal(words.str(a), long);
  assert.equal(words.idOf(long), a);
  const nop = words.id(text, text.indexOf('s_nop'), text.indexOf('s_nop') + 5);
  assert.notEqual(nop, a);
  assert.equal(words.str(nop), 's_nop');
  const q = text.indexOf('"quoted');
  assert.equal(words.str(words.id(text, q, q + 16)), '"quoted \\" word"');
  assert.equal(words.size, 3);
  for (const s of ['', 'a', long, 'ü\u2028\\"', text]) assert.equal(ownString(s), s);
});
