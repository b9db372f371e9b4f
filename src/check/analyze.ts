/**
 * `analyze`: per kernel, what it is made of: target, instruction count, basic blocks, counts by
 * class, s_waitcnt and s_nop counts, and the resources its descriptor declares.
 */
import type { Loaded } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts, type KernelCheck } from './check.js';
import type { KernelContext } from '../analysis/types.js';
import { occupancyJson, peakPlace } from './format.js';
import { formatOccupancies, ldsAssumption, type OccupancyKind } from '../analysis/occupancy.js';
import { declaredRegistersText, declaredSgprText, ldsText, type DeclaredRegisters, type DeclaredSgprs, type KernelResources } from '../analysis/resources.js';
import { counted } from '../text.js';

export interface KernelAnalysis {
  name: string;
  kind: 'kernel' | 'function';
  arch: string;
  line: number;
  instructions: number;
  blocks: number;
  /** Instructions by class (salu, valu, mfma, vmem, ds, waitcnt, nop: v_nop, ds_nop and s_nop, ...). */
  counts: Record<string, number>;
  /** s_waitcnt and s_nop instructions. */
  s_waitcnt: number;
  s_nop: number;
  /** MFMA instructions by kind (xdl, sgemm, dgemm, smfmac) on this target. */
  mfma: Record<string, number>;
  /** From .amdhsa_* directives (undefined when the kernel has no descriptor). */
  declared?: DeclaredRegisters & DeclaredSgprs & { lds: number };
  /** LDS bytes per workgroup the launch adds (--lds), counted in the occupancies. */
  ldsAtLaunch?: number;
  /** Peak live registers (computed), with the line where the peak is first reached. */
  /** `files`: the file of a peak's line when it is not the kernel's (an `.include`d file), present only then. */
  pressure: { vgpr: number; agpr: number; sgpr: number; lines: { vgpr?: number; agpr?: number; sgpr?: number }; files?: { vgpr?: string; agpr?: string; sgpr?: string } };
  /** Highest register index used + 1 per file (what the hardware must allocate). */
  used: { vgpr: number; agpr: number; sgpr: number };
  /**
   * Waves per SIMD from the descriptor (what the hardware runs; absent without one), from the
   * registers used and from the peak live registers (each with the declared LDS and the launch's).
   */
  occupancy: Partial<Record<OccupancyKind, { wavesPerSimd: number; limiter: string }>>;
  /** Set when LDS binds an occupancy and the workgroup size was assumed (ldsAssumption). */
  occupancyAssumption?: string;
  /** Findings of check. */
  diagnostics: { errors: number; warnings: number };
}

export interface FileAnalysis {
  file: string;
  arch: string;
  /** Raw data words in code sections (kernels shipped as .long words). */
  rawWords: number;
  notes: string[];
  kernels: KernelAnalysis[];
}

export function analyzeLoaded(l: Loaded): FileAnalysis {
  const { program, target } = l;
  const contexts = kernelContexts(l);
  const checks = checkContexts(contexts);
  const kernels = contexts.map((ctx, k) => analyzeKernel(ctx, checks[k]!));
  const notes: string[] = [];
  if (l.targetNote) notes.push(l.targetNote);
  checks.forEach((c) => { for (const n of c.resources.notes) notes.push(`${c.name}: ${n}`); });
  if (program.instructions.length === 0 && program.rawWords > 0) {
    notes.push(`no decodable instructions: the code is ${program.rawWords} raw data words (.long); nothing to analyse`);
  }
  return { file: program.file, arch: target.name, rawWords: program.rawWords, notes, kernels };
}

function analyzeKernel(ctx: KernelContext, check: KernelCheck): KernelAnalysis {
  const { cfg, kernel: k } = ctx;
  const counts: Record<string, number> = {};
  const mfma: Record<string, number> = {};
  let waits = 0;
  let nops = 0;
  cfg.insns.forEach((insn, i) => {
    const r = ctx.insns[i]!;
    counts[r.info.cls] = (counts[r.info.cls] ?? 0) + 1;
    if (r.info.mfma) mfma[r.info.mfma.kind] = (mfma[r.info.mfma.kind] ?? 0) + 1;
    if (insn.base === 's_waitcnt') waits++;
    if (insn.base === 's_nop') nops++;
  });
  const res = check.resources;
  const assumption = ldsAssumption(res.occupancy);
  return {
    name: k.name, kind: k.kind, arch: ctx.target.name, line: k.loc.line, instructions: cfg.insns.length,
    blocks: cfg.blocks.length, counts, s_waitcnt: waits, s_nop: nops, mfma, declared: res.declared, ...(res.ldsAtLaunch !== undefined ? { ldsAtLaunch: res.ldsAtLaunch } : {}),
    pressure: {
      vgpr: res.peak.vgpr.value, agpr: res.peak.agpr.value, sgpr: res.peak.sgpr.value,
      lines: { vgpr: res.peak.vgpr.line, agpr: res.peak.agpr.line, sgpr: res.peak.sgpr.line },
      ...(peakFiles(res.peak) ?? {}),
    },
    used: res.used,
    occupancy: occupancyJson(res.occupancy),
    ...(assumption !== undefined ? { occupancyAssumption: assumption } : {}),
    diagnostics: {
      errors: check.findings.filter((f) => f.severity === 'error').length,
      warnings: check.findings.filter((f) => f.severity === 'warning').length,
    },
  };
}

export function formatAnalysis(a: FileAnalysis): string {
  const out: string[] = [];
  for (const n of a.notes) out.push(`${a.file}: note: ${n}`);
  for (const k of a.kernels) {
    out.push(`${a.file}:${k.line}: ${k.kind} ${k.name} (${k.arch})`);
    out.push(`  instructions ${k.instructions} in ${counted(k.blocks, 'basic block')}`);
    const classes = Object.entries(k.counts)
      .sort((x, y) => y[1] - x[1]).map(([c, n]) => `${c} ${n}`);
    out.push(`  classes: ${classes.join(', ')}`);
    const mf = Object.entries(k.mfma).map(([c, n]) => `${c} ${n}`);
    if (mf.length > 0) out.push(`  mfma: ${mf.join(', ')}`);
    out.push(`  s_waitcnt ${k.s_waitcnt}, s_nop ${k.s_nop}`);
    if (k.declared) {
      const d = k.declared;
      out.push(`  declared: ${declaredRegistersText(d)}, ${declaredSgprText(d)}, ${ldsText(d.lds, k.ldsAtLaunch, 'bytes')}`);
    }
    const p = k.pressure;
    const ln = (r: 'vgpr' | 'agpr' | 'sgpr') => peakPlace({ line: p.lines[r], file: p.files?.[r] });
    out.push(`  peak live: ${p.vgpr} VGPRs${ln('vgpr')}, ${p.agpr} AGPRs${ln('agpr')}, ${p.sgpr} SGPRs${ln('sgpr')}; ` +
      `used: ${k.used.vgpr} VGPRs, ${k.used.agpr} AGPRs, ${k.used.sgpr} SGPRs`);
    out.push(`  ${formatOccupancies(k.occupancy, k.occupancyAssumption)}`);
    out.push(`  check: ${counted(k.diagnostics.errors, 'error')}, ${counted(k.diagnostics.warnings, 'warning')}`);
  }
  return out.join('\n');
}

/** The files of the peaks in an `.include`d file (`{ files }`), or undefined when every peak is in the kernel's file. */
function peakFiles(peak: KernelResources['peak']): { files: { vgpr?: string; agpr?: string; sgpr?: string } } | undefined {
  const files = Object.fromEntries((['vgpr', 'agpr', 'sgpr'] as const).flatMap((r) => (peak[r].file !== undefined ? [[r, peak[r].file]] : [])));
  return Object.keys(files).length > 0 ? { files } : undefined;
}
