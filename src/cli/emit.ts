import { loadSyntax } from '../load.js';
import { printProgram } from '../asm/printer.js';
import { writeOutput } from '../io.js';

/** `conductor emit FILE -o OUT` (`-o -`: the standard output): parse and print; unmodified programs print byte-identical. */
export async function commandEmit(file: string, opts: { output: string }): Promise<number> {
  const program = await loadSyntax(file);
  await writeOutput(opts.output, printProgram(program));
  return 0;
}
