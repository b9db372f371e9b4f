/**
 * `conductor tag`: the regions of a kernel with the tag, line and text of every instruction,
 * the pinned instructions between regions, and per-region metrics (peak VGPR/AGPR/SGPR,
 * s_waitcnt, s_nop, instructions) — the view a person or a model schedules from.
 */
import { ROLE, type ScheduleKernel } from './kernel.js';
import type { ScheduleState } from './state.js';
import { sequencePeaks } from '../analysis/pressure-incremental.js';
import { counted } from '../text.js';

export interface TaggedInsn {
  tag: string;
  line: number;
  text: string;
  /** Set for pinned instructions: why. */
  pinned?: string;
}

export interface RegionListing {
  region: number;
  block: number;
  /** Labels of the block when the region starts it. */
  labels: string[];
  lines: [number, number];
  metrics: { peak_vgpr: number; peak_agpr: number; peak_sgpr: number; s_waitcnt: number; s_nop: number; instructions: number };
  /** Pinned instructions right before the region (since the previous region). */
  pinnedBefore: TaggedInsn[];
  instructions: TaggedInsn[];
}

export interface KernelListing {
  /** The kernel's name, under the key every command's `kernels` array uses. */
  name: string;
  arch: string;
  instructions: number;
  movable: number;
  pinned: number;
  regions: RegionListing[];
  /** Pinned instructions after the last region. */
  pinnedAfter: TaggedInsn[];
}

/** The listing of `k`, regions in the order of `state` when given (else the original order). */
export function kernelListing(k: ScheduleKernel, only?: number, state?: ScheduleState): KernelListing {
  const cfg = k.ctx.cfg;
  const out3 = new Int32Array(3);
  const tagged = (i: number): TaggedInsn => {
    const t: TaggedInsn = { tag: k.tags[i]!, line: cfg.insns[i]!.loc.line, text: cfg.insns[i]!.text };
    if (k.role[i] === ROLE.pinned) t.pinned = k.pinReason[i];
    return t;
  };
  const regions: RegionListing[] = [];
  let prevEnd = 0;
  for (const rg of k.regions) {
    const pinnedBefore: TaggedInsn[] = [];
    for (let i = prevEnd; i < rg.first; i++) if (k.role[i] === ROLE.pinned) pinnedBefore.push(tagged(i));
    prevEnd = rg.last + 1;
    if (only !== undefined && rg.id !== only) continue;
    const seq = state ? state.regionSequence(rg.id) : rg.nodes;
    sequencePeaks(k, seq, rg.liveOut, out3);
    const block = cfg.blocks[rg.block]!;
    regions.push({
      region: rg.id, block: rg.block, labels: block.start === rg.first ? block.labels : [], lines: rg.lines,
      metrics: {
        peak_vgpr: out3[0]!, peak_agpr: out3[1]!, peak_sgpr: out3[2]!, s_waitcnt: rg.strippedWaits, s_nop: rg.strippedNops,
        instructions: rg.nodes.length + rg.stripped.length,
      },
      pinnedBefore,
      instructions: Array.from(seq, (i) => tagged(i)),
    });
  }
  const pinnedAfter: TaggedInsn[] = [];
  if (only === undefined) for (let i = prevEnd; i < k.n; i++) if (k.role[i] === ROLE.pinned) pinnedAfter.push(tagged(i));
  let movable = 0;
  let pinned = 0;
  for (let i = 0; i < k.n; i++) { if (k.role[i] === ROLE.pinned) pinned++; else if (k.tags[i]) movable++; }
  return { name: k.name, arch: k.target.name, instructions: k.n, movable, pinned, regions, pinnedAfter };
}

/** `line 9`, `lines 4-7`. */
const lines = (first: number, last: number): string => (first === last ? `line ${first}` : `lines ${first}-${last}`);

export function formatListing(l: KernelListing): string {
  const out: string[] = [];
  out.push(`kernel ${l.name} (${l.arch}): ${l.instructions} instructions, ${l.movable} movable, ${l.pinned} pinned, ${counted(l.regions.length, 'region')} shown`);
  const w = Math.max(8, ...l.regions.flatMap((r) => [...r.instructions, ...r.pinnedBefore].map((x) => x.tag.length)));
  const row = (x: TaggedInsn) => `  ${String(x.line).padStart(6)}  ${x.tag.padEnd(w)}  ${x.text}${x.pinned ? `    [pinned: ${x.pinned}]` : ''}`;
  // pinned instructions between regions under their own heading, not under the region above
  const pinned = (p: readonly TaggedInsn[]) => {
    if (p.length === 0) return;
    const one = p.length === 1;
    out.push(`pinned: ${lines(p[0]!.line, p[p.length - 1]!.line)}: ${p.length} instruction${one ? ' that stays' : 's that stay'} in place`);
    for (const x of p) out.push(row(x));
  };
  for (const r of l.regions) {
    pinned(r.pinnedBefore);
    const m = r.metrics;
    out.push(`region ${r.region}: ${lines(r.lines[0], r.lines[1])}${r.labels.length ? ` (${r.labels.join(', ')})` : ''}: ` +
      `peak VGPR ${m.peak_vgpr}, AGPR ${m.peak_agpr}, SGPR ${m.peak_sgpr}; s_waitcnt ${m.s_waitcnt}, s_nop ${m.s_nop}; ${counted(m.instructions, 'instruction')}`);
    for (const x of r.instructions) out.push(row(x));
  }
  pinned(l.pinnedAfter);
  return out.join('\n');
}
