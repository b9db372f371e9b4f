/**
 * The five targets, and the names by which input may refer to them: a plain processor name
 * (`gfx90a`), a target id with feature suffixes (`gfx90a:sramecc+:xnack-`), or the full
 * `.amdgcn_target` spelling (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`).
 */
import type { Target, TargetName } from '../isa/target.js';
import { gfx906 } from './gfx906.js';
import { gfx908 } from './gfx908.js';
import { gfx90a } from './gfx90a.js';
import { gfx942 } from './gfx942.js';
import { gfx950 } from './gfx950.js';
import { REF } from './common.js';

export type { Target, TargetName, Feature, Sourced } from '../isa/target.js';
export { FEATURE_PROBES, ALL_FEATURES, probeCommand } from './common.js';
export type { FeatureProbe } from './common.js';
export { gfx906, gfx908, gfx90a, gfx942, gfx950 };

export const TARGETS: Readonly<Record<TargetName, Target>> = Object.freeze({ gfx906, gfx908, gfx90a, gfx942, gfx950 });

export const TARGET_NAMES: readonly TargetName[] = ['gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx950'];

/** Processor names accepted as another target, with the reason. */
export const TARGET_ALIASES: Readonly<Record<string, { target: TargetName; note: string }>> = Object.freeze({
  gfx900: {
    target: 'gfx906',
    note: 'gfx900 (Vega 10) is checked as gfx906: LLVM\'s hazard tests use gfx900 for the GCN5 family and the hazard ' +
      `predicates are the same for both (LLVM AMDGPU.td / GCNSubtarget.h feature predicates lists no gfx900/gfx906 difference). Instruction availability is ` +
      'gfx906\'s, which is not gfx900\'s: gfx900 lacks dl-insts and dot1/2/7/10 (oracle (LLVM 22.1.8): llvm-mc -mcpu=gfx900 ' +
      'rejects v_fmac_f32 and v_dot4_i32_i8) and has v_mad_mix_* instead of v_fma_mix_*.',
  },
  gfx940: {
    target: 'gfx942',
    note: 'gfx940 is checked as gfx942: LLVM removed gfx940/gfx941 (LLVM 22 llvm-mc -mcpu=gfx940 warns "not a recognized ' +
      `processor" and falls back to a generic target); older LLVMs gave all three the same hazard rules (GCNSubtarget::hasGFX940Insts).`,
  },
  gfx941: {
    target: 'gfx942',
    note: 'gfx941 is checked as gfx942: LLVM removed gfx940/gfx941 (LLVM 22 llvm-mc -mcpu=gfx941 warns "not a recognized ' +
      `processor" and falls back to a generic target); older LLVMs gave all three the same hazard rules (GCNSubtarget::hasGFX940Insts).`,
  },
});

export interface TargetId {
  /** Processor name as written (lower case), e.g. gfx90a, gfx900, gfx940. */
  name: string;
  /** Target-id features: true for `+`, false for `-`, absent when unspecified ("any"). */
  features: { xnack?: boolean; sramecc?: boolean };
}

const ID_RE = /^(?:([a-z0-9_]+)-([a-z0-9_]*)-([a-z0-9_]*)-([a-z0-9_]*)-)?(gfx[0-9a-f]+)((?::[a-z0-9-]+[+-])*)$/;

/**
 * Parses a processor name or target id: `gfx90a`, `gfx90a:xnack-`,
 * `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-` (surrounding quotes allowed). Feature suffixes
 * may come in any order. Returns undefined for text that is not a target id, or that names a
 * feature other than xnack/sramecc, or names one twice.
 */
export function parseTargetId(s: string): TargetId | undefined {
  let t = s.trim().toLowerCase();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) t = t.slice(1, -1).trim();
  const m = ID_RE.exec(t);
  if (!m) return undefined;
  if (m[1] !== undefined && m[1] !== 'amdgcn') return undefined;
  const features: TargetId['features'] = {};
  for (const part of (m[6] ?? '').split(':').filter((p) => p.length > 0)) {
    const key = part.slice(0, -1);
    const on = part.endsWith('+');
    if (key !== 'xnack' && key !== 'sramecc') return undefined;
    if (features[key] !== undefined) return undefined;
    features[key] = on;
  }
  return { name: m[5]!, features };
}

export interface ResolvedTarget {
  target: Target;
  id: TargetId;
  /** Set when the name was an alias (gfx900, gfx940, gfx941). */
  note?: string;
}

/** Like getTarget, but also returns the parsed id and the alias note. */
export function resolveTarget(s: string): ResolvedTarget | undefined {
  const id = parseTargetId(s);
  if (!id) return undefined;
  const direct = (TARGETS as Record<string, Target>)[id.name];
  if (direct) return { target: direct, id };
  const alias = TARGET_ALIASES[id.name];
  if (alias) return { target: TARGETS[alias.target], id, note: alias.note };
  return undefined;
}

/** The target for a processor name, target id or `.amdgcn_target` string; undefined if unknown. */
export function getTarget(name: string): Target | undefined {
  return resolveTarget(name)?.target;
}
