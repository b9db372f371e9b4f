import { loadSyntax } from '../load.js';
import { printProgram } from '../asm/printer.js';
import { writeOutputAtomic } from '../io.js';

/** `conductor emit FILE -o OUT`: parse and print; unmodified programs print byte-identical. */
export async function commandEmit(file: string, opts: { output: string }): Promise<number> {
  const program = await loadSyntax(file);
  await writeOutputAtomic(opts.output, printProgram(program));
  return 0;
}
