/**
 * String interning over source text: a word (a run of characters of a larger string) gets a
 * small integer id without its text being copied, and the same word always gets the same id
 * and the same string. The parser reads mnemonics, modifier names and symbol names through
 * it, so a 40,000-line kernel allocates each distinct word once instead of once per line.
 *
 * Open addressing over an Int32Array; the hash is FNV-1a over UTF-16 code units.
 */
export class Interner {
  private readonly strings: string[] = [];
  private hashes = new Int32Array(0);
  private table = new Int32Array(1024).fill(-1);
  private mask = 1023;

  /** Number of distinct strings interned. */
  get size(): number {
    return this.strings.length;
  }

  /** The string of an id. */
  str(id: number): string {
    return this.strings[id]!;
  }

  /** The id of text[start, end), interning it on first sight. */
  id(text: string, start: number, end: number): number {
    let h = 0x811c9dc5 | 0;
    for (let k = start; k < end; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193);
    const len = end - start;
    let slot = h & this.mask;
    for (;;) {
      const id = this.table[slot]!;
      if (id < 0) break;
      if (this.hashes[id] === h) {
        const s = this.strings[id]!;
        if (s.length === len && text.startsWith(s, start)) return id;
      }
      slot = (slot + 1) & this.mask;
    }
    return this.add(ownString(text.slice(start, end)), h, slot);
  }

  /** The id of a whole string. */
  idOf(s: string): number {
    return this.id(s, 0, s.length);
  }

  private add(s: string, h: number, slot: number): number {
    const id = this.strings.length;
    this.strings.push(s);
    if (id >= this.hashes.length) {
      const grown = new Int32Array(Math.max(256, this.hashes.length * 2));
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[id] = h;
    this.table[slot] = id;
    if ((id + 1) * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.table = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let id = 0; id < this.strings.length; id++) {
      let slot = this.hashes[id]! & this.mask;
      while (this.table[slot]! >= 0) slot = (slot + 1) & this.mask;
      this.table[slot] = id;
    }
  }
}

/**
 * A copy of `s` that shares no memory with the string it was cut from. A slice of a string may
 * be kept as a view of the whole (V8 does so from 13 characters on), and a word kept for the
 * life of the process (an interned word, a kernel's name) would then keep the whole text it
 * was read from alive; the copy is made once per distinct word.
 */
export function ownString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** JavaScript's trim() whitespace (also what `\s` matches): WhiteSpace and LineTerminator code points. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f
    || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** First index in [start, end) that is not whitespace (end when none). */
export function skipSpace(text: string, start: number, end: number): number {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  return start;
}

/** One past the last index in [start, end) that is not whitespace (start when none). */
export function trimEndAt(text: string, start: number, end: number): number {
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return end;
}
