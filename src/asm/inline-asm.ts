/**
 * LLVM's comments around an inline-asm statement: AsmPrinter::emitInlineAsm writes `;;#ASMSTART`
 * before the statement's text and `;;#ASMEND` after it. The code between is the author's own.
 */

/** Whether a line is LLVM's `;;#ASMSTART` or `;;#ASMEND` comment, and which. */
export function isInlineAsmMarker(text: string): 'start' | 'end' | undefined {
  const m = INLINE_ASM.exec(text);
  return m ? (m[1] === 'START' ? 'start' : 'end') : undefined;
}
const INLINE_ASM = /^\s*;;#ASM(START|END)\b/;
