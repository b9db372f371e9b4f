/**
 * reorderedText writes the lines it leaves as they are in runs cut from the program's text
 * (its LineIndex, made once per program). With LF, CRLF and no final newline: an unchanged schedule gives
 * the text back; a changed one keeps every untouched line byte for byte, in order, with its
 * terminator, ends as the input ends, loads, and lines up with the schedule; and the second
 * schedule of the same program (the kept line index) is written as a fresh program writes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadText } from '../../../src/load.js';
import { kernelContexts } from '../../../src/analysis/context.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { alignToOriginal } from '../../../src/schedule/align.js';
import { reorderedText } from '../../../src/schedule/reorder.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP, TEXT_VARIANTS, randomSchedule } from './helpers.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');


test('reorderedText keeps untouched lines byte for byte (runs of the program\'s text), with their terminators and the input\'s end', () => {
  let changed = 0;
  for (const [name, base] of [['example.s', example], ['loop.s', LOOP]] as const) {
    for (const [variant, make] of TEXT_VARIANTS) {
      const text = make(base);
      const k = pickKernel(loadText(text, name));
      const rand = mulberry32(5);
      assert.equal(reorderedText(randomSchedule(k, rand, 0)), text, `${name} ${variant}: nothing changed`);
      const lines = text.split(/(?<=\n)/);
      for (const moves of [4, 12, 40]) {
        const s = randomSchedule(k, rand, moves);
        if (s.changedRegions().length === 0) continue;
        changed++;
        const out = reorderedText(s);
        assert.equal(out.endsWith('\n'), text.endsWith('\n'), `${name} ${variant}: the end`);
        if (variant === 'crlf') assert.ok(!/[^\r]\n/.test(out), `${name}: a bare LF in CRLF text`);
        // the lines outside the changed regions' instructions come out in order, as they were
        const touched = new Set<number>();
        for (const r of s.changedRegions()) {
          const rg = k.regions[r]!;
          for (const i of [...rg.nodes, ...rg.stripped]) touched.add(k.loaded.program.statements[k.ctx.cfg.insns[i]!.stmt]!.lineIndex);
        }
        const outLines = out.split(/(?<=\n)/);
        let at = 0;
        for (let li = 0; li < lines.length; li++) {
          if (touched.has(li) || /^\s*(;|\/\/)/.test(lines[li]!)) continue;
          while (at < outLines.length && outLines[at] !== lines[li]) at++;
          assert.ok(at < outLines.length, `${name} ${variant}: line ${li + 1} '${lines[li]!.trimEnd()}' lost or out of order`);
          at++;
        }
        // it loads and lines up with the schedule; a fresh program of the same text writes the same
        const ctx = kernelContexts(loadText(out, name, { arch: k.target.name })).find((c) => c.kernel.name === k.name)!;
        assert.equal(alignToOriginal(s, ctx).length, ctx.insns.length);
        const again = pickKernel(loadText(text, name));
        const s2 = randomSchedule(again, mulberry32(0), 0);
        for (let r = 0; r < s.order.length; r++) s2.order[r] = s.order[r]!.slice();
        assert.equal(reorderedText(s2), out, `${name} ${variant}: a fresh program writes otherwise`);
      }
    }
  }
  assert.ok(changed >= 10, `only ${changed} schedules changed anything`);
});
