/**
 * The model's prompt: a template with `{{placeholder}}`s, filled from the target's data (register
 * files, occupancy breakpoints, counters, latencies, MFMA and software hazard wait states, each
 * generated from src/targets and src/hazards, so every number is the one the engine uses), the
 * tagged region, the baseline metrics and the objective. `--prompt-file` replaces the template;
 * an unknown placeholder is an error (exit 2) so a typo never reaches the model silently.
 */
import type { Target } from '../isa/target.js';
import { defaultCycleParams, type CycleParams, type ParamKey } from '../targets/latency.js';
import { computeOccupancy, occupancyRuns, type OccupancyRun } from '../analysis/occupancy.js';
import { ALL_RULES } from '../hazards/rules/index.js';
import { generationOf, type WaitValue } from '../hazards/types.js';
import { ConductorError } from '../errors.js';
import type { ScheduleKernel } from '../schedule/kernel.js';
import { formatMetrics, type MetricName, type Metrics } from '../schedule/metrics.js';

/** Placeholders a template may use, with what they hold (printed in the README and --help). */
export const PLACEHOLDERS: Readonly<Record<string, string>> = {
  target: 'target name and products (gfx942: Instinct MI300X ...)',
  target_facts: 'the target\'s facts: register files, occupancy breakpoints, counters, latencies, MFMA and hazard wait states',
  kernel: 'kernel name',
  region: 'region number being scheduled',
  listing: 'the tagged region (tag, line, text; pinned instructions marked)',
  metrics: 'baseline metrics of the whole kernel',
  objective: 'the objective: metrics compared in order',
  focus: 'the agent\'s prompt variant (empty without --variants)',
  moves_per_call: 'how many moves to try per call ("one to three")',
  protocol: 'how to call the tools (native tool calling, or the fenced-JSON text protocol)',
};

export const DEFAULT_TEMPLATE = `You schedule AMD GPU assembly for {{target}}. You reorder the instructions of one scheduling region of kernel {{kernel}} so that the kernel's metrics improve, without changing what it computes.

## Commands
- \`move A after B\`: put instruction A right after B
- \`move A before B\`: put A right before B
- \`swap A B\`: exchange the positions of A and B
A and B are tags from the listing (e.g. v_mfma_f32_16x16x16_f16_3); a tag names an instruction, not a position. Only instructions of region {{region}} may move. Every command is validated: register dependencies (including EXEC, VCC, SCC, M0), memory order of accesses that may alias, pinned instructions and region boundaries. The first invalid command aborts its whole call (everything in it is undone) and you are told why. s_waitcnt and s_nop are removed and re-derived after every call; do not move or count on them. A call that makes the objective worse is reverted.

## Objective
Metrics are compared in this order (the first difference decides): {{objective}}.
Baseline: {{metrics}}

## How to work
Try {{moves_per_call}} moves per call, look at the result, and build on what improved. When no idea is left, call done.
{{protocol}}
{{focus}}
## Target facts
{{target_facts}}

## Scheduling strategy
1. Issue global loads early: move them as far above their consumers as dependencies allow, so that independent work hides their latency.
2. Interleave LDS reads with MFMAs (ds_read, mfma, ds_read, mfma) rather than grouping them.
3. Fill MFMA dependency gaps with independent LDS, VALU and global-load work.
4. Shorten live ranges: a producer moved next to its consumer, or a definition deferred until just before its use, lowers peak register pressure and may raise occupancy (see the breakpoints).
5. Barriers, branches and labels are hard boundaries; nothing crosses them.

## Region {{region}} (tag, line, text)
{{listing}}
`;

export const NATIVE_PROTOCOL = 'Call the tool evaluate_moves(moves, summary) with a list of commands and a one-line summary of your idea; call done(summary) to finish.';

export const TEXT_PROTOCOL = `Reply with exactly one fenced JSON block, and nothing else that looks like JSON:
\`\`\`json
{"tool": "evaluate_moves", "moves": ["move A after B", "swap C D"], "summary": "one line: your idea"}
\`\`\`
or, to finish:
\`\`\`json
{"tool": "done", "summary": "what you achieved"}
\`\`\`
The result comes back as a fenced JSON block.`;

/** Prompt variants for parallel agents (index 0: no particular focus). */
export const VARIANTS: readonly string[] = [
  '',
  'Focus: prioritize register pressure. Look for definitions that can move down next to their first use and last uses that can move up, to lower peak_vgpr first.',
  'Focus: prioritize latency hiding. Look for global and LDS loads that can move up, and independent work that can fill the gaps between dependent MFMAs and before waits.',
];

const fmtWait = (v: WaitValue): string =>
  typeof v === 'number' ? String(v) : Object.entries(v).map(([p, n]) => `${n} (${p} passes)`).join(', ');

function param(p: CycleParams, key: ParamKey): number { return p.values[key].value; }

/** VGPR counts at which the waves per SIMD change (from the target's occupancy rules). */
export function occupancyBreakpoints(t: Target): OccupancyRun[] {
  const max = t.registers.unifiedVgprFile.value ? t.registers.maxNextFreeVgpr.value : t.registers.maxVgprs.value;
  return occupancyRuns(max, (v) => computeOccupancy(t, { vgprs: v, agprs: 0, sgprs: 1, ldsBytes: 0, wavesPerWorkgroup: 1 }).wavesPerSimd);
}

/** The target's facts in Markdown, generated from the target and cycle-model data. */
export function targetFacts(t: Target, params: CycleParams = defaultCycleParams(t)): string {
  const r = t.registers;
  const o = t.occupancy;
  const out: string[] = [];
  out.push(`### ${t.name}: ${t.products}`, `${t.family}.`, '');
  out.push('### Register files and occupancy');
  out.push(`- Wave size ${o.wavefrontSize.value}; ${o.simdsPerCu.value} SIMDs per CU; at most ${o.maxWavesPerSimd.value} waves per SIMD.`);
  out.push(`- VGPRs v0-v${r.maxVgprs.value - 1}${r.maxAgprs.value > 0 ? `, AGPRs a0-a${r.maxAgprs.value - 1}` : ', no AGPRs'}` +
    `${r.unifiedVgprFile.value ? ` in one unified file of ${r.vgprsPerSimd.value} registers per SIMD lane (AGPRs follow the VGPRs at .amdhsa_accum_offset; a wave holds at most ${r.maxNextFreeVgpr.value})` : `; ${r.vgprsPerSimd.value} VGPRs per SIMD lane${r.agprsPerSimd.value ? ` and a separate file of ${r.agprsPerSimd.value} AGPRs` : ''}`}` +
    `; allocated in groups of ${r.vgprAllocGranule.value}. Source: ${r.vgprsPerSimd.source}.`);
  out.push(`- SGPRs s0-s${r.maxSgprs.value - 1} (VCC separate), ${r.sgprsPerSimd.value} per SIMD, allocated in groups of ${r.sgprAllocGranule.value}.`);
  out.push(`- LDS ${o.ldsBytesPerCu.value / 1024} KiB per CU (at most ${o.maxLdsPerWorkgroup.value / 1024} KiB per workgroup), allocated in ${o.ldsAllocGranule.value}-byte granules.`);
  out.push('', 'Waves per SIMD by VGPRs used (registers alone; occupancy is the minimum over VGPRs, AGPRs, SGPRs and LDS):', '',
    '| VGPRs used | waves/SIMD |', '|---|---|');
  for (const b of occupancyBreakpoints(t)) out.push(`| ${b.from === b.to ? b.from : `${b.from}-${b.to}`} | ${b.waves} |`);
  out.push('', 'Dropping below a breakpoint adds a wave per SIMD; the peak live VGPRs of the schedule decide it.', '');
  out.push('### Waitcnt counters');
  out.push(`- vmcnt up to ${t.counters.vmcnt.value} outstanding (vector memory loads and stores, returned in issue order).`);
  out.push(`- lgkmcnt up to ${t.counters.lgkmcnt.value} (LDS in order; scalar memory out of order, so only lgkmcnt(0) is safe after SMEM; FLAT counts on both).`);
  if (t.counters.expcnt.value > 0) out.push(`- expcnt up to ${t.counters.expcnt.value}.`);
  out.push('');
  out.push('### Latencies (cycles; one issue slot is ' + param(params, 'slot') + ' cycles)', '', '| class | cycles | source |', '|---|---|---|');
  const row = (what: string, key: ParamKey) => out.push(`| ${what} | ${param(params, key)} | ${params.values[key].source} |`);
  row('global / buffer load (to vmcnt and data)', 'vmem.latency');
  row('LDS read / write (to lgkmcnt and data)', 'ds.latency');
  row('scalar memory load', 'smem.latency');
  row('VALU', 'valu');
  row('VALU transcendental (exp, log, rcp, rsq, sqrt, sin, cos)', 'valu.trans.latency');
  row('SALU', 'salu');
  if (t.has('mai')) row('MFMA, per pass (an N-pass MFMA keeps the matrix pipe N passes)', 'mfma.pass');
  out.push('');
  if (t.has('mai')) {
    out.push('### MFMA dependency wait states (independent instructions or s_nop between producer and consumer)', '',
      '| producer | passes | same SrcC (accumulation chain) | overlapping SrcC | SrcA/SrcB | VALU read/write | memory read |', '|---|---|---|---|---|---|---|');
    for (const kind of ['xdl', 'sgemm', 'dgemm'] as const) {
      for (const n of [2, 4, 8, 16] as const) {
        const v = (c: string) => param(params, `mfma.${kind}.${c}.${n}` as ParamKey);
        const src = params.values[`mfma.${kind}.srcAB.${n}` as ParamKey].source;
        if (src.startsWith('estimate') || src.startsWith('no ')) continue;
        if (kind === 'dgemm' && !t.has('gfx90a-insts')) continue;
        out.push(`| ${kind.toUpperCase()} | ${n} | ${v('srcCSame')} | ${v('srcC')} | ${v('srcAB')} | ${v('valu')} | ${v('mem')} |`);
      }
    }
    out.push('', 'An accumulation chain (the next MFMA reads the previous result as SrcC, same registers) issues back to back; any other use of an MFMA result waits the table\'s wait states, so put independent work there.', '');
  }
  const gen = generationOf(t);
  const rows: string[] = [];
  for (const rule of ALL_RULES) {
    if (!rule.appliesTo(t)) continue;
    for (const f of rule.facts) {
      const w = f.w[gen];
      if (w === undefined || (typeof w === 'number' && w === 0)) continue;
      rows.push(`| ${f.what} | ${fmtWait(w)} |`);
    }
  }
  if (rows.length > 0) {
    out.push('### Software hazards (wait states the hardware does not enforce; the engine pads them with s_nop, which costs instructions)', '',
      '| producer -> consumer | wait states |', '|---|---|', ...rows.slice(0, 60));
    if (rows.length > 60) out.push(`| ... and ${rows.length - 60} more rules | |`);
    out.push('');
  }
  return out.join('\n');
}

/** The MFMAs the kernel uses, with their class, passes and cycles on the target (empty when none). */
export function kernelMfmaFacts(k: ScheduleKernel, params: CycleParams = defaultCycleParams(k.target)): string {
  const seen = new Map<string, { kind: string; passes: number }>();
  for (const r of k.insns) if (r.info.mfma && !seen.has(r.insn.mnemonic)) seen.set(r.insn.mnemonic, r.info.mfma);
  if (seen.size === 0) return '';
  const pass = param(params, 'mfma.pass');
  const out = ['### MFMAs in this kernel', '', '| instruction | class | passes | cycles in the matrix pipe |', '|---|---|---|---|'];
  for (const [m, f] of [...seen].sort((a, b) => a[0].localeCompare(b[0]))) out.push(`| ${m} | ${f.kind.toUpperCase()} | ${f.passes} | ${f.passes * pass} |`);
  return out.join('\n') + '\n';
}

export interface PromptInputs {
  template?: string;
  k: ScheduleKernel;
  region: number;
  listing: string;
  baseline: Metrics;
  objective: readonly MetricName[];
  focus?: string;
  textProtocol?: boolean;
  facts?: string;
}

/** Check that a template names only known placeholders (ConductorError naming the first unknown). */
export function checkTemplate(template: string, origin = 'prompt template'): void {
  for (const m of template.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)) {
    if (!(m[1]! in PLACEHOLDERS)) {
      throw new ConductorError(`${origin}: unknown placeholder {{${m[1]}}} (known: ${Object.keys(PLACEHOLDERS).map((p) => `{{${p}}}`).join(', ')})`);
    }
  }
}

/** Fill a template. */
export function renderPrompt(p: PromptInputs): string {
  const template = p.template ?? DEFAULT_TEMPLATE;
  checkTemplate(template);
  const t = p.k.target;
  const values: Record<string, string> = {
    target: `${t.name} (${t.products})`,
    target_facts: `${p.facts ?? targetFacts(t)}\n${kernelMfmaFacts(p.k)}`,
    kernel: p.k.name,
    region: String(p.region),
    listing: p.listing,
    metrics: formatMetrics(p.baseline),
    objective: p.objective.join(', '),
    focus: p.focus ? `\n${p.focus}\n` : '',
    moves_per_call: 'one to three',
    protocol: p.textProtocol ? TEXT_PROTOCOL : NATIVE_PROTOCOL,
  };
  return template.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_m, name: string) => values[name]!);
}
