/** Numeric command-line options, checked the same way by every command. */
import { ConductorError } from '../errors.js';

/** A whole number written in decimal digits, at least `min`; undefined when not given. */
export function intOption(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new ConductorError(`${name} takes an integer >= ${min}, got '${v}'`);
  return Number(v);
}

/** A finite number in [min, max]; undefined when not given. */
export function numberOption(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new ConductorError(`${name} takes a number in [${min}, ${max}], got '${v}'`);
  return n;
}

/** `--kernel` values: repeated and comma-separated. */
export function collectNames(v: string, prev: string[] = []): string[] {
  return [...prev, ...v.split(',').map((x) => x.trim()).filter((x) => x !== '')];
}
