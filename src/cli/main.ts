/**
 * The conductor command. Argument handling only: every command is a thin shell over a library
 * function. Exit codes: 0 clean, 1 findings (errors reported by a check), 2 bad input or usage.
 */
import { Command, CommanderError } from 'commander';
import pc from 'picocolors';
import { ConductorError } from '../errors.js';
import { commandEmit } from './emit.js';
import { commandAnalyze } from './analyze.js';
import { commandCheck } from './check.js';
import { VERSION } from '../version.js';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_BAD_INPUT = 2;

function program(): Command {
  const cmd = new Command('conductor')
    .description('Check, explain and schedule AMD GPU assembly (gfx906, gfx908, gfx90a, gfx942, gfx950)')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError();

  cmd.command('emit')
    .description('parse FILE and print it again (byte-identical when nothing changes)')
    .argument('<file>', 'assembly file (.s)')
    .requiredOption('-o, --output <out>', 'output file')
    .action(async (file: string, opts: { output: string }) => {
      process.exitCode = await commandEmit(file, opts);
    });

  cmd.command('analyze')
    .description('per kernel: target, instructions, basic blocks, counts by class, waits and NOPs, declared resources')
    .argument('<file>', 'assembly file (.s)')
    .option('--arch <target>', 'target (gfx906, gfx908, gfx90a, gfx942, gfx950); default: the file\'s .amdgcn_target')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { arch?: string; json?: boolean }) => {
      process.exitCode = await commandAnalyze(file, opts);
    });
  cmd.command('check')
    .description('hazards (missing s_nop wait states), missing or wasted s_waitcnt, register pressure and occupancy')
    .argument('<file>', 'assembly file (.s)')
    .option('--arch <target>', 'target; default: the file\'s .amdgcn_target')
    .option('--json', 'same as --format json')
    .option('--format <fmt>', 'clang (default), json or sarif')
    .option('--fix', 'insert the minimal s_nop and s_waitcnt; needs -o')
    .option('-o, --output <out>', 'output file for --fix')
    .action(async (file: string, opts: { arch?: string; json?: boolean; format?: string; fix?: boolean; output?: string }) => {
      process.exitCode = await commandCheck(file, opts);
    });
  return cmd;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    if (e instanceof ConductorError) {
      process.stderr.write(colourDiagnostic(e.format()) + '\n');
      return EXIT_BAD_INPUT;
    }
    throw e;
  }
}

export function colourDiagnostic(text: string): string {
  if (!process.stderr.isTTY) return text;
  return text.replace(/: (error|warning|note):/g, (_m, sev: string) =>
    `: ${sev === 'error' ? pc.red(pc.bold('error')) : sev === 'warning' ? pc.magenta(pc.bold('warning')) : pc.cyan('note')}:`);
}

