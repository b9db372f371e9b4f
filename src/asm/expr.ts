/**
 * Assembler expressions: integer arithmetic over numbers and symbols, with the operator
 * precedence of LLVM's GNU-style assembler (from lowest): || ; && ; comparisons ; + - ;
 * | ^ & ; * / % << >>. Unary: - ~ ! +.
 */

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
export function parseExpr(text: string, start: number, lookup: (name: string) => number | undefined): ExprResult {
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
    if (isIdentStart(c)) {
      const s = pos;
      pos++;
      while (pos < text.length && isIdentChar(text.charCodeAt(pos))) pos++;
      // Relocation variants: sym@rel32@lo, sym@gotpcrel32@hi, sym@abs32@lo
      while (text[pos] === '@' && isIdentStart(text.charCodeAt(pos + 1) || 0)) {
        pos++;
        while (pos < text.length && isIdentChar(text.charCodeAt(pos))) pos++;
      }
      const name = text.slice(s, pos);
      if (name === '.') throw new ExprError("'.' (the location counter) is not supported here", s);
      const v = lookup(name);
      if (v === undefined) unresolved.push(name);
      return v;
    }
    throw new ExprError(`unexpected '${ch}' in expression`, pos);
  }

  function unaryOperand(): number | undefined {
    skipWs();
    return primary();
  }

  function number(): number {
    const s = pos;
    if (text[pos] === '0' && (text[pos + 1] === 'x' || text[pos + 1] === 'X')) {
      pos += 2;
      const ds = pos;
      while (pos < text.length && /[0-9a-fA-F]/.test(text[pos]!)) pos++;
      if (pos === ds) throw new ExprError('invalid hexadecimal number', s);
      return Number.parseInt(text.slice(ds, pos), 16);
    }
    if (text[pos] === '0' && (text[pos + 1] === 'b' || text[pos + 1] === 'B') && /[01]/.test(text[pos + 2] ?? '')) {
      pos += 2;
      const ds = pos;
      while (pos < text.length && (text[pos] === '0' || text[pos] === '1')) pos++;
      return Number.parseInt(text.slice(ds, pos), 2);
    }
    while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
    // Float literal: digits '.' digits [e[+-]digits]
    if (text[pos] === '.' && isDigit(text.charCodeAt(pos + 1) || 0) || (text[pos] === 'e' || text[pos] === 'E') && /[-+0-9]/.test(text[pos + 1] ?? '')) {
      if (text[pos] === '.') { pos++; while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++; }
      if (text[pos] === 'e' || text[pos] === 'E') {
        pos++;
        if (text[pos] === '+' || text[pos] === '-') pos++;
        while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++;
      }
      sawFloat = true;
      return Number.parseFloat(text.slice(s, pos));
    }
    if (text[pos] === '.' && !isIdentChar(text.charCodeAt(pos + 1) || 0)) {
      // "1." is a float
      pos++;
      sawFloat = true;
      return Number.parseFloat(text.slice(s, pos));
    }
    const lit = text.slice(s, pos);
    if (lit.length > 1 && lit[0] === '0' && /^[0-7]+$/.test(lit)) return Number.parseInt(lit, 8);
    return Number.parseInt(lit, 10);
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
export function evalExpr(text: string, lookup: (name: string) => number | undefined): number | undefined {
  try {
    const r = parseExpr(text, 0, lookup);
    if (text.slice(r.end).trim() !== '') return undefined;
    return r.value;
  } catch {
    return undefined;
  }
}

