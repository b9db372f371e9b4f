/**
 * The launch bounds a kernel's code-object metadata states (the YAML of `.amdgpu_metadata`,
 * AMDGPU code object V3+ "amdhsa.kernels" entries: LLVM AMDGPUUsage, "Code Object V3 Metadata"):
 * `.reqd_workgroup_size` (the exact workgroup every launch has: OpenCL `reqd_work_group_size`)
 * and `.max_flat_workgroup_size` (the most work-items a launch may have: HIP
 * `__launch_bounds__`, `amdgpu-flat-work-group-size`). Only these keys are read; the rest of
 * the block stays raw text.
 */

export interface LaunchBounds {
  /** `.reqd_workgroup_size` as written (x, y, z). */
  reqdWorkgroupSize?: number[];
  /** `.max_flat_workgroup_size`. */
  maxFlatWorkgroupSize?: number;
}

const indentOf = (s: string): number => s.length - s.trimStart().length;
const NUMBER = /^\d+$/;

/**
 * The launch bounds of each kernel entry of `amdhsa.kernels`, by kernel name (`.name`, or
 * `.symbol` without `.kd`). Lines are the block's lines without comments. An entry is a list
 * item of `amdhsa.kernels`; its keys are those at the item's key column (an argument's `.name`
 * in `.args`, deeper, is not the kernel's). Lists are flow (`[ 64, 1, 1 ]`) or block
 * (`- 64` on the lines after the key, as LLVM writes them). Anything else is left unread.
 */
export function readLaunchBounds(lines: readonly string[]): Map<string, LaunchBounds> {
  const out = new Map<string, LaunchBounds>();
  let i = lines.findIndex((l) => /^\s*amdhsa\.kernels\s*:/.test(l));
  if (i < 0) return out;
  const listIndent = indentOf(lines[i]!);
  let keyCol = -1;
  let itemIndent = -1;
  let name: string | undefined;
  let bounds: LaunchBounds = {};
  const close = () => {
    if (name !== undefined && (bounds.reqdWorkgroupSize || bounds.maxFlatWorkgroupSize !== undefined)) out.set(name, bounds);
    name = undefined;
    bounds = {};
  };
  for (i++; i < lines.length; i++) {
    const line = lines[i]!;
    const t = line.trim();
    if (t === '' || t === '---') continue;
    if (t === '...') break;
    const ind = indentOf(line);
    let body = t;
    let col = ind;
    if (t.startsWith('- ')) {
      if (ind < listIndent) break;
      if (itemIndent < 0) itemIndent = ind;
      if (ind !== itemIndent) continue; // an item of a nested list
      close();
      body = t.slice(2).trimStart();
      col = ind + (t.length - body.length);
      keyCol = col;
    } else if (ind <= listIndent) {
      break; // the next top-level key (amdhsa.version)
    }
    if (col !== keyCol) continue;
    const m = /^(\.[A-Za-z_]+)\s*:\s*(.*)$/.exec(body);
    if (!m) continue;
    const [, key, value] = m as unknown as [string, string, string];
    const v = value.trim().replace(/^(['"])(.*)\1$/, '$2');
    if (key === '.name' && v !== '') name = v;
    else if (key === '.symbol' && name === undefined && v !== '') name = v.replace(/\.kd$/, '');
    else if (key === '.max_flat_workgroup_size' && NUMBER.test(v)) bounds.maxFlatWorkgroupSize = Number(v);
    else if (key === '.reqd_workgroup_size') {
      const items: string[] = [];
      if (v.startsWith('[')) items.push(...v.replace(/^\[|\]$/g, '').split(',').map((x) => x.trim()));
      else if (v === '') {
        for (let j = i + 1; j < lines.length; j++) {
          const n = lines[j]!.trim();
          if (!n.startsWith('- ') || indentOf(lines[j]!) < keyCol) break;
          items.push(n.slice(2).trim());
        }
      }
      if (items.length === 3 && items.every((x) => NUMBER.test(x))) bounds.reqdWorkgroupSize = items.map(Number);
    }
  }
  close();
  return out;
}

/**
 * The work-items a launch has, as far as the bounds tell: the product of `.reqd_workgroup_size`
 * (exact), else `.max_flat_workgroup_size` when it is below `assumed` (the size otherwise
 * assumed; no launch exceeds the maximum), else undefined.
 */
export function boundedWorkgroupSize(b: LaunchBounds | undefined, assumed: number): number | undefined {
  if (!b) return undefined;
  if (b.reqdWorkgroupSize) {
    const n = b.reqdWorkgroupSize.reduce((a, x) => a * x, 1);
    if (n > 0) return n;
  }
  if (b.maxFlatWorkgroupSize !== undefined && b.maxFlatWorkgroupSize > 0 && b.maxFlatWorkgroupSize < assumed) return b.maxFlatWorkgroupSize;
  return undefined;
}
