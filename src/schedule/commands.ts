/**
 * Move commands, one per line:
 *
 *   move A after B      put A right after B
 *   move A before B     put A right before B
 *   swap A B            exchange the positions of A and B
 *   done                stop
 *
 * `#` starts a comment (whole line or the end of a line); blank lines are ignored. A line `---`
 * or `round` (optionally `round N`) ends a round. Keywords are case-insensitive; tags are not.
 */
import { ConductorError } from '../errors.js';

export type Command =
  | { op: 'move'; a: string; b: string; where: 'after' | 'before'; text: string; line?: number }
  | { op: 'swap'; a: string; b: string; text: string; line?: number }
  | { op: 'done'; text: string; line?: number };

export interface CommandSyntaxError {
  line: number;
  text: string;
  message: string;
}

export interface ParsedRounds {
  rounds: Command[][];
  errors: CommandSyntaxError[];
}

const USAGE = "expected 'move A after B', 'move A before B', 'swap A B' or 'done'";

/**
 * A move written as the scheduler writes its moves (movesFromState: `move A after B` or
 * `move A before B`, lower case, one space between the words), read without splitting it (a
 * candidate's tens of thousands of moves are read again each time they are replayed); undefined
 * for any other text, which parseCommand reads in full. The same command parseCommand gives.
 */
function writtenMove(text: string, line: number | undefined): Command | undefined {
  if (!text.startsWith('move ')) return undefined;
  const s2 = text.indexOf(' ', 5);
  const s3 = s2 < 0 ? -1 : text.indexOf(' ', s2 + 1);
  if (s3 < 0 || s2 === 5 || s3 === text.length - 1) return undefined;
  const where = text.slice(s2 + 1, s3);
  if (where !== 'after' && where !== 'before') return undefined;
  // no other blank or control character (a tab, a second space, a trailing newline)
  for (let p = 5; p < text.length; p++) if (p !== s2 && p !== s3 && text.charCodeAt(p) <= 32) return undefined;
  return { op: 'move', a: text.slice(5, s2), b: text.slice(s3 + 1), where, text, line };
}

/** Parse one command (no comment, trimmed). Returns a command or an error message. */
export function parseCommand(text: string, line?: number): Command | string {
  const fast = writtenMove(text, line);
  if (fast) return fast;
  const t = text.trim();
  const w = t.split(/\s+/);
  const kw = w[0]?.toLowerCase();
  if (kw === 'done') {
    if (w.length > 1) return `'done' takes no arguments, got '${t}'`;
    return { op: 'done', text: t, line };
  }
  if (kw === 'swap') {
    if (w.length !== 3) return `'swap' takes two tags ('swap A B'), got '${t}'`;
    return { op: 'swap', a: w[1]!, b: w[2]!, text: `swap ${w[1]} ${w[2]}`, line };
  }
  if (kw === 'move') {
    if (w.length !== 4) return `'move' takes a tag, 'after' or 'before', and a tag ('move A after B'), got '${t}'`;
    const where = w[2]!.toLowerCase();
    if (where !== 'after' && where !== 'before') return `'move A ${w[2]} B': expected 'after' or 'before', got '${w[2]}'`;
    return { op: 'move', a: w[1]!, b: w[3]!, where, text: `move ${w[1]} ${where} ${w[3]}`, line };
  }
  return `${USAGE}, got '${t}'`;
}

function stripComment(line: string): string {
  const h = line.indexOf('#');
  return (h >= 0 ? line.slice(0, h) : line).trim();
}

function isRoundSeparator(t: string): boolean {
  return /^-{3,}$/.test(t) || /^round(\s+\d+)?:?$/i.test(t);
}

/** Parse a moves text into rounds; syntax errors are collected, not thrown. */
export function parseRounds(text: string): ParsedRounds {
  const rounds: Command[][] = [];
  const errors: CommandSyntaxError[] = [];
  let cur: Command[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const t = stripComment(lines[i]!);
    if (t === '') continue;
    if (isRoundSeparator(t)) {
      if (cur.length > 0) rounds.push(cur);
      cur = [];
      continue;
    }
    const c = parseCommand(t, i + 1);
    if (typeof c === 'string') errors.push({ line: i + 1, text: t, message: c });
    else cur.push(c);
  }
  if (cur.length > 0) rounds.push(cur);
  return { rounds, errors };
}

/** Parse rounds and throw a ConductorError (exit 2) listing every malformed line. */
export function parseRoundsOrThrow(text: string, file = 'moves'): Command[][] {
  const r = parseRounds(text);
  if (r.errors.length > 0) {
    const e = r.errors[0]!;
    throw new ConductorError(`${file}:${e.line}: malformed command: ${e.message}`, undefined,
      r.errors.slice(1).map((x) => ({ message: `${file}:${x.line}: malformed command: ${x.message}` })));
  }
  return r.rounds;
}

/** Commands given one per argument (--moves "CMD" ...): one round; `---` arguments split rounds. */
export function parseCommandArgs(args: readonly string[]): Command[][] {
  return parseRoundsOrThrow(args.join('\n'), '--moves');
}
