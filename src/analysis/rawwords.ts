/**
 * Data words among a kernel's instructions (`.long 0xE0511000`: an instruction encoded by hand,
 * as kernels written for an assembler without a form do, such as `buffer_load_dword ... lds`).
 * llvm-mc emits them as written; Conductor does not decode them, so what they read, write and
 * count is unknown: check warns (raw-code-words), claims no wait redundant or too strong there,
 * schedule and apply leave the kernel as written, and verify requires its layout unchanged.
 */
import type { Instruction, Program, Statement } from '../asm/ast.js';
import type { Loc } from '../errors.js';
import { counted } from '../text.js';

/** The data directives of llvm-mc 22 that put words in the section. */
const DATA_WORDS = new Set(['.long', '.4byte', '.int', '.byte', '.short', '.2byte', '.quad', '.8byte', '.value']);

/**
 * The first data directive between a kernel's first and last instruction (`insns`, in order),
 * in a code section (`.text`, `.section .text...`), and how many there are; undefined if none.
 */
export function firstRawWords(program: Program, insns: readonly Instruction[]): { loc: Loc; text: string; count: string } | undefined {
  if (program.rawWords === 0 || insns.length < 2) return undefined; // rawWords: the words in code sections
  const from = insns[0]!.stmt;
  const to = insns[insns.length - 1]!.stmt;
  const statements = program.statements;
  let first: { loc: Loc; text: string } | undefined;
  let n = 0;
  let code = true;
  for (let k = from + 1; k < to; k++) {
    const st = statements[k]!;
    if (st.kind !== 'directive') continue;
    const name = st.name ?? '';
    const section = sectionIsCode(st);
    if (section !== undefined) code = section;
    else if (code && DATA_WORDS.has(name)) {
      first ??= { loc: st.loc, text: st.text };
      n++;
    }
  }
  return first && { ...first, count: counted(n, 'data directive') };
}

/**
 * After a section directive, whether the section is code (`.text`, `.section .text...`): true or
 * false; undefined for a statement that does not switch sections.
 */
export function sectionIsCode(st: Statement): boolean | undefined {
  if (st.kind !== 'directive') return undefined;
  const name = st.name ?? '';
  if (name === '.text') return true;
  if (name === '.data' || name === '.rodata' || name === '.bss') return false;
  if (name === '.section') return (st.args ?? '').trim().replace(/^"/, '').startsWith('.text');
  return undefined;
}
