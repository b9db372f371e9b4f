/**
 * Counts in the messages Conductor writes: "1 region", "2 regions".
 */

/** `n` and the noun, in the singular when `n` is 1. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
