/**
 * Statement edits copy the lines they leave as they are in runs cut from the program's text
 * (LineIndex), without building a line object per source line. LineIndex cuts lines as
 * splitLines does; with LF, CRLF and no final newline, an edited program reads back as the
 * edits say (its instructions in order: the inserted ones, the replacements, none of the
 * removed), keeps every untouched line byte for byte with its terminator, ends as the input
 * ends, and never builds `lines`; nor does emission build them for the programs it writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex, splitLines } from '../../../src/asm/source.js';
import { ParsedProgram } from '../../../src/asm/program.js';
import { loadText } from '../../../src/load.js';
import { addInsert, applyStatementEdits, emptyEdits } from '../../../src/check/edit.js';
import { mulberry32 } from '../../../src/schedule/search/rng.js';
import { LOOP, TEXT_VARIANTS, randomSchedule } from '../schedule/helpers.js';
import { pickKernel } from '../../../src/schedule/kernel.js';
import { emitSchedule } from '../../../src/schedule/emit.js';
import { root } from '../../repo.js';

const example = readFileSync(join(root, 'examples', 'mfma_lds_gemm.gfx942.s'), 'utf8');


test('LineIndex cuts the lines splitLines cuts: starts, texts and terminators', () => {
  const odd = ['', 'a', '\n', '\r\n', 'a\r', 'a\rb\n', '\n\n', 'x\r\n\r\ny', '\r', 'a\n\r\nb\r\n'];
  for (const t of [...odd, ...TEXT_VARIANTS.map(([, make]) => make(LOOP))]) {
    const lines = splitLines(t);
    const ix = new LineIndex(t);
    assert.equal(ix.count, lines.length, JSON.stringify(t));
    let at = 0;
    for (let li = 0; li < lines.length; li++) {
      assert.equal(ix.start[li], at, `${JSON.stringify(t)} line ${li}`);
      assert.equal(ix.line(li), lines[li]!.text, `${JSON.stringify(t)} line ${li}`);
      assert.equal(ix.eol(li), lines[li]!.eol, `${JSON.stringify(t)} line ${li}`);
      assert.equal(ix.slice(li, li + 1), lines[li]!.text + lines[li]!.eol);
      at += lines[li]!.text.length + lines[li]!.eol.length;
    }
    assert.equal(ix.start[ix.count], t.length);
    assert.equal(ix.slice(0, ix.count), t);
  }
});

test('applyStatementEdits writes the edits and every untouched line as it was, without building the lines', () => {
  let edited = 0;
  for (const [name, base] of [['example.s', example], ['loop.s', LOOP]] as const) {
    for (const [variant, make] of TEXT_VARIANTS) {
      const text = make(base);
      const rand = mulberry32(11);
      for (let round = 0; round < 4; round++) {
        const program = loadText(text, name).program;
        const insns: number[] = [];
        program.statements.forEach((s, k) => { if (s.insn) insns.push(k); });
        // random edits: a nop before some instructions, some replaced, some removed
        const e = emptyEdits();
        const expected: string[] = [];
        for (const k of insns) {
          const own = program.statements[k]!.insn!.text;
          const pick = rand();
          if (pick < 0.15) { addInsert(e, k, 's_nop 0'); expected.push('s_nop 0', own); }
          else if (pick < 0.25) { e.replace.set(k, 's_nop 1'); expected.push('s_nop 1'); }
          else if (pick < 0.35) e.remove.add(k);
          else expected.push(own);
        }
        const out = applyStatementEdits(program, e);
        edited++;
        assert.ok(program instanceof ParsedProgram && !program.linesBuilt, `${name} ${variant}: the lines were built`);
        const back = loadText(out, name).program;
        assert.deepEqual(back.statements.filter((s) => s.insn).map((s) => s.insn!.text), expected, `${name} ${variant}: the instructions`);
        // (a removed last line takes no terminator with it: the line before keeps its own)
        const lastRemoved = [...e.remove].some((k) => program.statements[k]!.lineIndex === program.lineIndex.count - 1);
        if (!lastRemoved) assert.equal(out.endsWith('\n'), text.endsWith('\n'), `${name} ${variant}: the end`);
        if (variant === 'crlf') assert.ok(!/[^\r]\n/.test(out), `${name}: a bare LF in CRLF text`);
        // the lines no edit touched come out in order, byte for byte with their terminators
        const touched = new Set([...e.insertBefore.keys(), ...e.replace.keys(), ...e.remove].map((k) => program.statements[k]!.lineIndex));
        const lines = text.split(/(?<=\n)/);
        const outLines = out.split(/(?<=\n)/);
        let at = 0;
        for (let li = 0; li < lines.length; li++) {
          if (touched.has(li)) continue;
          while (at < outLines.length && outLines[at] !== lines[li]) at++;
          assert.ok(at < outLines.length, `${name} ${variant}: line ${li + 1} '${lines[li]!.trimEnd()}' lost or out of order`);
          at++;
        }
      }
    }
  }
  assert.equal(edited, 24);
});

test('emission builds no line objects for the programs it writes (only the original\'s, for its roles)', () => {
  const k = pickKernel(loadText(example, 'example.s'));
  const original = k.loaded.program;
  const built: string[] = [];
  const lines = Object.getOwnPropertyDescriptor(ParsedProgram.prototype, 'lines')!;
  Object.defineProperty(ParsedProgram.prototype, 'lines', {
    configurable: true,
    get(this: ParsedProgram) {
      if (this !== original && !this.linesBuilt) built.push(new Error().stack!.split('\n').slice(2, 4).join(' < '));
      return lines.get!.call(this) as unknown;
    },
  });
  try {
    let changed = 0;
    for (const moves of [20, 200, 2000]) {
      const e = emitSchedule(randomSchedule(k, mulberry32(moves), moves));
      if (e.changedRegions.length > 0) changed++;
    }
    assert.ok(changed >= 2, `only ${changed} schedules changed anything`);
  } finally {
    Object.defineProperty(ParsedProgram.prototype, 'lines', lines);
  }
  assert.deepEqual(built, []);
});
