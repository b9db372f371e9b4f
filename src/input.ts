/** Loading a command's input: the file must hold code to work on. */
import { loadFile, type LoadOptions, type Loaded } from './load.js';
import { ConductorError } from './errors.js';

/**
 * A file with nothing to work on is bad input (exit 2) with the reason: no instructions at all, or
 * a kernel shipped as raw data words.
 */
export function requireCode(l: Loaded): void {
  const p = l.program;
  if (p.instructions.length > 0) return;
  if (p.rawWords > 0) {
    throw new ConductorError(`${p.file}: no instructions: the code is ${p.rawWords} raw data words (.long); Conductor reads assembly source`);
  }
  throw new ConductorError(`${p.file}: no kernel: the file has no instructions (a kernel is the code after a label that an .amdhsa_kernel ` +
    'descriptor or .type NAME,@function names; instructions before the first such label are read as one top-level function)');
}

/** loadFile, then requireCode. */
export async function loadInput(file: string, opts: LoadOptions = {}): Promise<Loaded> {
  const l = await loadFile(file, opts);
  requireCode(l);
  return l;
}
