/**
 * Assembler expressions: integer arithmetic over numbers and symbols, with the operator
 * precedence of LLVM's GNU-style assembler (from lowest): || ; && ; comparisons ; + - ;
 * | ^ & ; * / % << >>. Unary: - ~ ! +.
 *
 * Literals are read as LLVM's assembler lexer reads them (AsmLexer::LexDigit, LexSingleQuote,
 * LexFloatLiteral, LexHexFloatLiteral; every form checked with llvm-mc 22, see
 * test/oracle/llvm-mc-literals.test.ts):
 *   - integers: decimal `[1-9][0-9]*`, octal `0[0-7]*`, hexadecimal `0x[0-9a-f]+`, binary
 *     `0b[01]+`, each followed by an ignored C suffix `U`, `L`, `UL`, `LL` or `ULL` in any case
 *     (AsmLexer's SkipIgnoredIntegerSuffix; `LU` is not one); there are no `0o` prefixes and no
 *     `h`/`b`/`o` radix suffixes (those are MASM-only); `08` is an invalid octal number; a
 *     value of 64 bits is signed (`0xffffffffffffffff` is -1), one of more bits an error;
 *   - characters: `'a'` and the escapes `'\n'`, `'\t'`, `'\r'`, `'\b'`, `'\f'`, `'\''`, `'\\'`;
 *   - floats: `1.5`, `1.`, `.5`, `1e3`, `2E-1`, and hexadecimal `0x1.8p1`;
 *   - directional labels: `1b` and `1f` name the nearest numeric label `1:` before or after
 *     (returned as the symbol `1b` / `1f`; the program parser resolves them);
 *   - quoted symbol names: `"my func"` is the symbol `my func`.
 *
 * Functions: the resource expressions LLVM's AMDGPU back end writes in descriptors and `.set`
 * lines (AMDGPUMCExpr: `max`, `or`, `alignto`, `totalnumvgprs`), called as `name(a, b, ...)`.
 * `totalnumvgprs` depends on the target's register file, so its meaning is passed in
 * (`ExprFunctions`); a function the caller does not provide does not evaluate.
 */

/** Functions an expression may call, by lower-case name. */
export type ExprFunctions = Readonly<Record<string, (args: number[]) => number | undefined>>;

const alignTo = (x: number, a: number) => (a > 0 ? Math.ceil(x / a) * a : undefined);

/**
 * AMDGPUMCExpr's functions (LLVM AMDGPUMCExpr.cpp, evaluateExtraSGPRs and friends): max and or
 * of any number of operands, alignto(x, align); totalnumvgprs(agprs, vgprs) is
 * alignto(vgprs, 4) + agprs when there are AGPRs on a unified file (gfx90a+), max(vgprs, agprs)
 * on separate files (gfx908), given by `unified` (undefined: unknown target, only the cases
 * where both agree evaluate).
 */
export function mcFunctions(unified: boolean | undefined): ExprFunctions {
  return {
    max: (a) => (a.length > 0 ? Math.max(...a) : undefined),
    or: (a) => (a.length > 0 ? a.reduce((x, y) => bitop(x, y, (p, q) => p | q)) : undefined),
    alignto: (a) => (a.length === 2 ? alignTo(a[0]!, a[1]!) : undefined),
    totalnumvgprs: (a) => {
      if (a.length !== 2) return undefined;
      const [agprs, vgprs] = a as [number, number];
      if (agprs === 0) return vgprs;
      if (unified === undefined) return undefined;
      return unified ? alignTo(vgprs, 4)! + agprs : Math.max(vgprs, agprs);
    },
  };
}

export interface ExprResult {
  /** The value, or undefined when a symbol is not (yet) known. */
  value: number | undefined;
  /** Symbols referenced that had no value. */
  unresolved: string[];
  /** True when a float literal was read. */
  float: boolean;
  /** Index in the input just past the expression. */
  end: number;
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 46 || c === 36;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean { return c >= 48 && c <= 57; }
function isHexDigit(c: number): boolean { return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70); }

/** Escapes of character literals (AsmLexer::LexSingleQuote); any other escaped character stands for itself. */
const CHAR_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, b: 8, f: 12, r: 13 };

/**
 * Index of the closing quote of the string starting at `open` (a backslash escapes the next
 * character), or -1 when it is not closed on this line.
 */
export function quotedEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return -1;
}

/**
 * Length of the character literal starting at `at` ('c' or '\\c'), or 0 when there is none.
 * Comment and separator scanners skip such literals: `';'` is the number 59, not a comment.
 */
export function charLiteralLength(text: string, at: number): number {
  if (text.charCodeAt(at) !== 39) return 0;
  if (text.charCodeAt(at + 1) === 92) return text.charCodeAt(at + 3) === 39 ? 4 : 0;
  return at + 2 < text.length && text.charCodeAt(at + 2) === 39 ? 3 : 0;
}

const BINARY_PREC: Record<string, number> = {
  '||': 1, '&&': 2,
  '==': 3, '!=': 3, '<>': 3, '<': 3, '<=': 3, '>': 3, '>=': 3,
  '+': 4, '-': 4,
  '|': 5, '^': 5, '&': 5, '!': 5,
  '*': 6, '/': 6, '%': 6, '<<': 6, '>>': 6,
};

/**
 * Evaluate the expression starting at `start` in `text`. Stops at the first character that
 * cannot continue an expression (a comma, a closing bracket, a colon, or a token that is not
 * a binary operator after a complete operand). `lookup` gives symbol values.
 */
export function parseExpr(text: string, start: number, lookup: (name: string) => number | undefined, fns?: ExprFunctions): ExprResult {
  let pos = start;
  const unresolved: string[] = [];
  let sawFloat = false;

  function skipWs(): void {
    while (pos < text.length && (text.charCodeAt(pos) === 32 || text.charCodeAt(pos) === 9)) pos++;
  }

  function peekBinary(): string | undefined {
    skipWs();
    const c = text[pos];
    const d = text[pos + 1];
    if (c === undefined) return undefined;
    const two = c + (d ?? '');
    if (two === '||' || two === '&&' || two === '==' || two === '!=' || two === '<>' || two === '<=' || two === '>='
      || two === '<<' || two === '>>') return two;
    if (c === '+' || c === '-' || c === '*' || c === '/' || c === '%' || c === '|' || c === '^' || c === '&'
      || c === '<' || c === '>') return c;
    return undefined;
  }

  function primary(): number | undefined {
    skipWs();
    const c = text.charCodeAt(pos);
    if (Number.isNaN(c)) throw new ExprError('expected an expression', pos);
    const ch = text[pos]!;
    if (ch === '(') {
      pos++;
      const v = binary(0);
      skipWs();
      if (text[pos] !== ')') throw new ExprError("expected ')'", pos);
      pos++;
      return v;
    }
    if (ch === '-' || ch === '~' || ch === '!' || ch === '+') {
      pos++;
      const v = unaryOperand();
      if (v === undefined) return undefined;
      if (ch === '-') return -v;
      if (ch === '~') return Number(BigInt.asIntN(64, ~BigInt(Math.trunc(v))));
      if (ch === '!') return v === 0 ? 1 : 0;
      return v;
    }
    if (isDigit(c)) return number();
    if (c === 39 /* ' */) return charLiteral();
    if (c === 46 /* . */ && isDigit(text.charCodeAt(pos + 1) || 0)) {
      // `.5` is a float unless the digits run on into an identifier (`.5foo`), as LexIdentifier decides.
      let e = pos + 1;
      while (e < text.length && isDigit(text.charCodeAt(e))) e++;
      const n = text.charCodeAt(e) || 0;
      if (!isIdentChar(n) || n === 101 || n === 69) return floatTail(pos, e);
    }
    if (c === 34 /* " */) {
      // A quoted symbol name: the text between the quotes, taken as written (LLVM does not unescape it).
      const s = pos;
      const close = quotedEnd(text, pos);
      if (close < 0) throw new ExprError('unterminated string constant', s);
      pos = close + 1;
      return symbol(text.slice(s + 1, close));
    }
    if (isIdentStart(c)) {
      const s = pos;
      pos++;
      while (pos < text.length && isIdentChar(text.charCodeAt(pos))) pos++;
      const name = text.slice(s, pos);
      if (name === '.') throw new ExprError("'.' (the location counter) is not supported here", s);
      const fn = fns?.[name.toLowerCase()];
      if (fn) {
        const save = pos;
        skipWs();
        if (text[pos] === '(') return call(fn);
        pos = save;
      }
      return symbol(name);
    }
    throw new ExprError(`unexpected '${ch}' in expression`, pos);
  }

  /** `fn(a, b, ...)`, at the '('. */
  function call(fn: (args: number[]) => number | undefined): number | undefined {
    pos++;
    const args: (number | undefined)[] = [];
    for (;;) {
      args.push(binary(0));
      skipWs();
      if (text[pos] === ',') { pos++; continue; }
      if (text[pos] === ')') { pos++; break; }
      throw new ExprError("expected ',' or ')' in a function's arguments", pos);
    }
    return args.some((a) => a === undefined) ? undefined : fn(args as number[]);
  }

  /** A symbol reference; relocation variants (sym@rel32@lo, sym@gotpcrel32@hi, sym@abs32@lo) stay part of its name. */
  function symbol(base: string): number | undefined {
    const s = pos;
    while (text[pos] === '@' && isIdentStart(text.charCodeAt(pos + 1) || 0)) {
      pos++;
      while (pos < text.length && isIdentChar(text.charCodeAt(pos))) pos++;
    }
    const name = pos === s ? base : base + text.slice(s, pos);
    const v = lookup(name);
    if (v === undefined) unresolved.push(name);
    return v;
  }

  /** 'c' or '\\c' (AsmLexer::LexSingleQuote). */
  function charLiteral(): number {
    const s = pos;
    let k = pos + 1;
    if (k >= text.length) throw new ExprError('unterminated single quote', s);
    let value = text.charCodeAt(k);
    if (value === 92 /* \\ */) {
      k++;
      if (k >= text.length) throw new ExprError('unterminated single quote', s);
      const e = text[k]!;
      value = CHAR_ESCAPES[e] ?? text.charCodeAt(k);
    }
    if (text[k + 1] !== "'") throw new ExprError('single quote way too long', s);
    pos = k + 2;
    return value;
  }

  function unaryOperand(): number | undefined {
    skipWs();
    return primary();
  }

  /** The integer literal forms of AsmLexer::LexDigit, the decimal floats and the directional labels. */
  function number(): number | undefined {
    const s = pos;
    const c1 = text[pos + 1];
    if (text[pos] !== '0' || c1 === '.') {
      while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
      const n = text[pos];
      if (n === '.' || n === 'e' || n === 'E') return floatTail(s, n === '.' ? pos + 1 : pos);
      return integerEnd(s, s, 10);
    }
    if (c1 === 'x' || c1 === 'X') {
      pos += 2;
      const ds = pos;
      while (pos < text.length && isHexDigit(text.charCodeAt(pos))) pos++;
      const n = text[pos];
      if (n === '.' || n === 'p' || n === 'P') return hexFloat(s, ds);
      if (pos === ds) throw new ExprError('invalid hexadecimal number', s);
      return integerEnd(s, ds, 16);
    }
    if ((c1 === 'b' || c1 === 'B') && isDigit(text.charCodeAt(pos + 2) || 0)) {
      pos += 2;
      const ds = pos;
      while (text[pos] === '0' || text[pos] === '1') pos++;
      if (pos === ds) throw new ExprError('invalid binary number', s);
      return integerEnd(s, ds, 2);
    }
    // Octal (a lone `0` included): every decimal digit is taken, and 8 or 9 makes it invalid.
    while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    return integerEnd(s, s, 8);
  }

  /**
   * The digits digits[ds, pos) in `radix`; then the ignored suffix, or a directional label
   * reference (`1b`, `1f`) when a decimal or octal number is followed by a lone b or f.
   */
  function integerEnd(s: number, ds: number, radix: number): number | undefined {
    const digits = text.slice(ds, pos);
    if (radix === 8 && /[89]/.test(digits)) throw new ExprError('invalid octal number', s);
    let value: number;
    if (digits.length <= (radix === 16 ? 13 : radix === 2 ? 53 : 15)) {
      value = Number.parseInt(digits, radix);
    } else {
      const big = BigInt((radix === 16 ? '0x' : radix === 2 ? '0b' : radix === 8 ? '0o' : '') + digits);
      if (big >= 2n ** 64n) throw new ExprError('integer literal does not fit in 64 bits', s);
      // A 64-bit integer token is a signed 64-bit value (0xffffffffffffffff is -1), as LLVM reads it.
      value = Number(BigInt.asIntN(64, big));
    }
    if (radix !== 16 && radix !== 2) {
      const d = text[pos];
      if ((d === 'b' || d === 'f') && !isIdentChar(text.charCodeAt(pos + 1) || 0)) {
        pos++;
        return symbol(`${value}${d}`);
      }
    }
    skipIntegerSuffix();
    return value;
  }

  function skipIntegerSuffix(): void {
    if (text[pos] === 'u' || text[pos] === 'U') pos++;
    if (text[pos] === 'l' || text[pos] === 'L') pos++;
    if (text[pos] === 'l' || text[pos] === 'L') pos++;
  }

  /** The rest of a decimal float whose integer part (and '.') end before `from` (AsmLexer::LexFloatLiteral). */
  function floatTail(s: number, from: number): number {
    pos = from;
    while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    if (text[pos] === '-' || text[pos] === '+') throw new ExprError('invalid sign in float literal', pos);
    if (text[pos] === 'e' || text[pos] === 'E') {
      pos++;
      if (text[pos] === '+' || text[pos] === '-') pos++;
      while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    }
    sawFloat = true;
    const v = Number.parseFloat(text.slice(s, pos));
    if (Number.isNaN(v)) throw new ExprError('invalid floating point literal', s);
    return v;
  }

  /** 0x[hex][.hex]p[+-]dec (AsmLexer::LexHexFloatLiteral); `ds` is the first digit after 0x. */
  function hexFloat(s: number, ds: number): number {
    const intDigits = text.slice(ds, pos);
    let frac = '';
    if (text[pos] === '.') {
      pos++;
      const fs = pos;
      while (pos < text.length && isHexDigit(text.charCodeAt(pos))) pos++;
      frac = text.slice(fs, pos);
    }
    if (intDigits === '' && frac === '') throw new ExprError('invalid hexadecimal floating-point constant: expected at least one significand digit', s);
    if (text[pos] !== 'p' && text[pos] !== 'P') throw new ExprError("invalid hexadecimal floating-point constant: expected exponent part 'p'", s);
    pos++;
    let sign = 1;
    if (text[pos] === '+' || text[pos] === '-') { if (text[pos] === '-') sign = -1; pos++; }
    const es = pos;
    while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    if (pos === es) throw new ExprError('invalid hexadecimal floating-point constant: expected at least one exponent digit', s);
    const mantissa = Number.parseInt(intDigits + frac || '0', 16);
    sawFloat = true;
    return mantissa * 2 ** (sign * Number(text.slice(es, pos)) - 4 * frac.length);
  }

  function apply(op: string, a: number, b: number): number {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': if (b === 0) throw new ExprError('division by zero', pos); return Math.trunc(a / b);
      case '%': if (b === 0) throw new ExprError('division by zero', pos); return a % b;
      case '<<': return a * 2 ** b;
      case '>>': return Math.floor(a / 2 ** b);
      case '|': return bitop(a, b, (x, y) => x | y);
      case '&': return bitop(a, b, (x, y) => x & y);
      case '^': return bitop(a, b, (x, y) => x ^ y);
      case '||': return a !== 0 || b !== 0 ? 1 : 0;
      case '&&': return a !== 0 && b !== 0 ? 1 : 0;
      case '==': return a === b ? -1 : 0;
      case '!=': case '<>': return a !== b ? -1 : 0;
      case '<': return a < b ? -1 : 0;
      case '<=': return a <= b ? -1 : 0;
      case '>': return a > b ? -1 : 0;
      case '>=': return a >= b ? -1 : 0;
      default: throw new ExprError(`unknown operator '${op}'`, pos);
    }
  }

  function binary(minPrec: number): number | undefined {
    let lhs = primary();
    for (;;) {
      const save = pos;
      const op = peekBinary();
      if (op === undefined) { pos = save; return lhs; }
      const prec = BINARY_PREC[op]!;
      if (prec <= minPrec) { pos = save; return lhs; }
      pos += op.length;
      // A binary operator must be followed by an operand; otherwise it is not ours.
      skipWs();
      if (pos >= text.length || text[pos] === ',' || text[pos] === ']' || text[pos] === ':') { pos = save; return lhs; }
      const rhs = binary(prec);
      lhs = lhs === undefined || rhs === undefined ? undefined : apply(op, lhs, rhs);
    }
  }

  const value = binary(0);
  return { value, unresolved, float: sawFloat, end: pos };
}

function bitop(a: number, b: number, f: (x: bigint, y: bigint) => bigint): number {
  return Number(BigInt.asIntN(64, f(BigInt(Math.trunc(a)), BigInt(Math.trunc(b)))));
}

export class ExprError extends Error {
  constructor(message: string, public readonly pos: number) { super(message); }
}

/** Evaluate a whole string as one expression; undefined when it does not evaluate. */
export function evalExpr(text: string, lookup: (name: string) => number | undefined, fns?: ExprFunctions): number | undefined {
  try {
    const r = parseExpr(text, 0, lookup, fns);
    if (text.slice(r.end).trim() !== '') return undefined;
    return r.value;
  } catch {
    return undefined;
  }
}

