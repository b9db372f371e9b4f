/**
 * Line differences between two texts (Myers' O((N+M)D) algorithm, E. W. Myers, "An O(ND)
 * Difference Algorithm and Its Variations", 1986), as hunks: input lines [a0, a1) replaced by
 * output lines [b0, b1). Used to tell what `check --fix` changed: its edits are few, so D (the
 * lines added and removed) stays small even on 40,000-line kernels.
 */

export interface Hunk {
  /** 0-based line ranges, end exclusive: input [a0, a1) became output [b0, b1). */
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/**
 * The hunks that turn `a` into `b`, or undefined when more than `maxD` lines differ (the trace
 * kept for the walk back grows with the square of that number).
 */
export function lineHunks(a: readonly string[], b: readonly string[], maxD = 4000): Hunk[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxD);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  /** trace[d]: v for diagonals -d-1 .. d+1 as it was before step d (index k + d + 1). */
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) { x++; y++; }
      v[off + k] = x;
      if (x >= n && y >= m) { found = true; break; }
    }
  }
  if (!found) return undefined;
  // walk the trace back to the start: the matched (snake) lines between edits
  const same: [number, number][] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const vd = trace[d]!;
    const at = (k: number) => vd[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const px = at(prevK);
    const py = px - prevK;
    const sx = prevK === k + 1 ? px : px + 1; // where the snake after this edit starts
    while (x > sx) { x--; y--; same.push([x, y]); }
    x = px;
    y = py;
  }
  while (x > 0 && y > 0) { x--; y--; same.push([x, y]); }
  same.reverse();
  const hunks: Hunk[] = [];
  let ia = 0;
  let ib = 0;
  for (const [sa, sb] of [...same, [n, m] as [number, number]]) {
    if (sa > ia || sb > ib) hunks.push({ a0: ia, a1: sa, b0: ib, b1: sb });
    ia = sa + 1;
    ib = sb + 1;
  }
  return hunks;
}

/**
 * The line of `a` (1-based) that line `line` of `b` came from, given the hunks that turn `a` into
 * `b` (lineHunks): a line outside every hunk moves by the lines the hunks before it added; a line
 * a hunk inserted maps to the line of `a` it was inserted before, one a hunk rewrote to the line
 * it replaced (the last of them when the hunk grew).
 */
export function lineBefore(hunks: readonly Hunk[], line: number): number {
  const y = line - 1;
  let shift = 0;
  for (const h of hunks) {
    if (y < h.b0) break;
    if (y < h.b1) return h.a0 + 1 + Math.min(y - h.b0, Math.max(0, h.a1 - h.a0 - 1));
    shift = h.b1 - h.a1;
  }
  return y - shift + 1;
}
