import { loadSyntax } from '../load.js';
import { printProgram } from '../asm/printer.js';
import { outputName, summaryStream, writeOutput } from '../io.js';
import { singleOutputPath, warnBom } from './files.js';

/**
 * `conductor emit FILE -o OUT` (`-o -`: the standard output; `-o DIR`: DIR/<FILE's name>): parse and
 * print; unmodified programs print byte-identical.
 */
export async function commandEmit(file: string, opts: { output: string }): Promise<number> {
  const out = await singleOutputPath(file, opts.output);
  const program = await loadSyntax(file);
  warnBom(program);
  await writeOutput(out, printProgram(program));
  // as the other commands say what they wrote (on the standard error when the text is on the standard output)
  summaryStream([out]).write(`wrote ${outputName(out)}\n`);
  return 0;
}
