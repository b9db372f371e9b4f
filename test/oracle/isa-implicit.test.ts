/**
 * Oracle: the implicit registers (EXEC, VCC, SCC, M0, MODE, FLAT_SCRATCH) of each catalogued
 * instruction against LLVM 22's instruction descriptions.
 *
 * Method: assemble a sample of the instruction with `llvm-mc --show-inst` to learn LLVM's opcode
 * name, then hand llc a one-instruction MIR function with that opcode and no operands. LLVM's
 * MIR parser names the first implicit register operand the opcode requires ("missing implicit
 * register operand 'implicit $exec'"); adding it and asking again lists them all. The list is
 * compared with the catalogue's implicit defs and uses.
 *
 * Every llc call costs a few tenths of a second, so by default the test probes a sample: for each
 * group of catalogue entries that share class, encoding, memory operation and implicit
 * registers (one family rule), up to two members, preferring mnemonics that occur in the shared
 * corpus and the project kernels. CONDUCTOR_ISA_PROBE=all probes every entry (about 20 minutes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allInsns, lookupInsn } from '../../src/isa/catalogue.js';
import { unavailableReason } from '../../src/isa/resolve.js';
import type { InsnDesc } from '../../src/isa/types.js';
import { splitMnemonic } from '../../src/asm/instruction.js';
import { EXEC_HI, EXEC_LO, FLAT_SCRATCH_HI, FLAT_SCRATCH_LO, M0, MODE, SCC, VCC_HI, VCC_LO } from '../../src/asm/registers.js';
import { TARGETS } from '../../src/targets/index.js';
import type { TargetName } from '../../src/isa/target.js';
import { corpusDir, llvmTool, repoRoot } from './llvm.js';
import { sampleLine } from './isa-samples.js';

const PREFERRED: TargetName[] = ['gfx950', 'gfx942', 'gfx90a', 'gfx908', 'gfx906'];

const MIR_REG: Record<string, number[]> = {
  $exec: [EXEC_LO, EXEC_HI], $vcc: [VCC_LO, VCC_HI], $scc: [SCC], $m0: [M0], $mode: [MODE],
  $flat_scr: [FLAT_SCRATCH_LO, FLAT_SCRATCH_HI], $exec_lo: [EXEC_LO], $vcc_lo: [VCC_LO],
};
const UNIT_NAME = new Map<number, string>([
  [EXEC_LO, 'exec'], [EXEC_HI, 'exec'], [VCC_LO, 'vcc'], [VCC_HI, 'vcc'], [SCC, 'scc'], [M0, 'm0'], [MODE, 'mode'],
  [FLAT_SCRATCH_LO, 'flat_scratch'], [FLAT_SCRATCH_HI, 'flat_scratch'],
]);

/**
 * Reviewed differences: mnemonic -> [difference, reason].
 */
const KNOWN: Record<string, [string, string]> = {
  scratch_load_lds_dword: ['uses ours+flat_scratch', 'LLVM gives the scratch LDS-DMA loads no $flat_scr use while every other scratch_* access has one; the address is formed the same way, so we keep the use (conservative).'],
  scratch_load_lds_ubyte: ['uses ours+flat_scratch', 'as scratch_load_lds_dword'],
  scratch_load_lds_sbyte: ['uses ours+flat_scratch', 'as scratch_load_lds_dword'],
  scratch_load_lds_ushort: ['uses ours+flat_scratch', 'as scratch_load_lds_dword'],
  scratch_load_lds_sshort: ['uses ours+flat_scratch', 'as scratch_load_lds_dword'],
  s_set_gpr_idx_mode: ['uses ours+m0', 'it writes M0[15:12] only (the ISA: "M0[15:12] = SIMM16[3:0]"), so the rest of M0 stays: a read as well as a write; LLVM lists M0 as a def only.'],
};

function run(cmd: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      res({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
    if (input !== undefined) { p.stdin!.write(input); p.stdin!.end(); }
  });
}

/** Mnemonics used in the corpus and in the built kernels. */
function usedMnemonics(): Set<string> {
  const out = new Set<string>();
  const files: string[] = [];
  const corpus = corpusDir();
  for (const sub of ['tensile', 'llvm-mc', join('llvm-hazards', 'pairs')]) {
    for (const f of readdirSync(join(corpus, sub))) if (f.endsWith('.s')) files.push(join(corpus, sub, f));
  }
  const kdir = join(repoRoot(), 'build', 'kernels');
  if (existsSync(kdir)) for (const f of readdirSync(kdir)) if (f.endsWith('.s')) files.push(join(kdir, f));
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      const m = /^\s*([a-z][a-z0-9_]*)\b/.exec(line.replace(/\/\/.*|;.*/, ''));
      if (!m || line.trimStart().startsWith('.')) continue;
      const { base } = splitMnemonic(m[1]!);
      const d = lookupInsn(base) ?? lookupInsn(m[1]!);
      if (d) out.add(d.name);
    }
  }
  return out;
}

/** LLVM opcode names to try for an MC opcode (the pseudo is the MC name without its encoding tag). */
function pseudoCandidates(mc: string): string[] {
  const base = mc.replace(/_(vi|gfx9|gfx90a|gfx940|gfx950|gfx9_gfx9)(_acd|_vcd)?$/, '')
    .replace(/_VE$/, '') // scratch with a VGPR address
    .replace(/^V_(ADDC|SUBB|SUBBREV)_CO_U32/, 'V_$1_U32') // GFX9 spelling of the carry-in ops
    .replace(/_LEGACY_(F16|U16|I16)/, '_$1'); // GFX9 "legacy" = the pre-GFX9 16-bit opcode
  const c: string[] = [];
  if (mc.startsWith('DS_')) c.push(`${base}_gfx9`);
  if (/_vcd$/.test(mc)) c.push(`${base}_vgprcd_e64`);
  c.push(base, `${base}_e64`, `${base}_e32`);
  return c;
}

async function llvmImplicit(llc: string, cpu: string, mc: string): Promise<string[] | undefined> {
  for (const opc of pseudoCandidates(mc)) {
    const ops: string[] = [];
    for (let i = 0; i < 12; i++) {
      const mir = `---\nname: f\ntracksRegLiveness: false\nbody: |\n  bb.0:\n    ${opc} ${ops.join(', ')}\n    S_ENDPGM 0\n...\n`;
      const r = await run(llc, ['-mtriple=amdgcn', `-mcpu=${cpu}`, '-run-pass=none', '-o', '/dev/null', '-x', 'mir', '-'], mir);
      const m = /missing implicit register operand '([^']+)'/.exec(r.stderr);
      if (m) { ops.push(m[1]!); continue; }
      if (/unknown machine instruction name/.test(r.stderr)) break;
      return ops;
    }
  }
  return undefined;
}

function names(units: readonly number[]): string {
  return [...new Set(units.map((u) => UNIT_NAME.get(u) ?? `unit${u}`))].sort().join(',');
}

test('implicit registers of the catalogued instructions equal LLVM 22 opcode descriptions', { timeout: 60 * 60 * 1000 }, async () => {
  const llc = llvmTool('llc');
  const mcTool = llvmTool('llvm-mc');
  const all = process.env['CONDUCTOR_ISA_PROBE'] === 'all';
  const used = usedMnemonics();
  const groups = new Map<string, InsnDesc[]>();
  for (const d of allInsns()) {
    if (d.never !== undefined) continue;
    const k = [d.cls, d.encoding, d.mem?.op ?? '', d.implicitDefs.join(','), d.implicitUses.join(',')].join('|');
    groups.set(k, [...(groups.get(k) ?? []), d]);
  }
  const chosen: InsnDesc[] = [];
  for (const members of groups.values()) {
    const ordered = [...members.filter((d) => used.has(d.name)), ...members.filter((d) => !used.has(d.name))];
    chosen.push(...(all ? ordered : ordered.slice(0, 2)));
  }
  const byTarget = new Map<TargetName, InsnDesc[]>();
  for (const d of chosen) {
    const t = PREFERRED.find((n) => unavailableReason(d, TARGETS[n]) === undefined);
    if (!t) continue;
    byTarget.set(t, [...(byTarget.get(t) ?? []), d]);
  }
  const dir = mkdtempSync(join(tmpdir(), 'conductor-implicit-'));
  const jobs: { d: InsnDesc; cpu: TargetName; mc: string }[] = [];
  for (const [cpu, descs] of byTarget) {
    const file = join(dir, `${cpu}.s`);
    writeFileSync(file, ['L0:', ...descs.map((d) => sampleLine(d, TARGETS[cpu]))].join('\n') + '\n');
    const r = await run(mcTool, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${cpu}`, '--show-inst', file]);
    const mcs = [...r.stdout.matchAll(/<MCInst #\d+ (\w+)/g)].map((m) => m[1]!);
    assert.equal(mcs.length, descs.length, `llvm-mc assembled every sample for ${cpu}`);
    descs.forEach((d, i) => jobs.push({ d, cpu, mc: mcs[i]! }));
  }
  const problems: string[] = [];
  let next = 0;
  let probed = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const { d, cpu, mc } = jobs[next++]!;
      const ops = await llvmImplicit(llc, cpu, mc);
      if (!ops) { problems.push(`${d.name}: no LLVM opcode found for ${mc}`); continue; }
      probed++;
      const defs: number[] = [];
      const uses: number[] = [];
      for (const o of ops) {
        const m = /^(implicit-def|implicit) (\$\w+)$/.exec(o);
        const u = m ? MIR_REG[m[2]!] : undefined;
        if (!m || !u) { problems.push(`${d.name}: unexpected implicit operand '${o}'`); continue; }
        (m[1] === 'implicit-def' ? defs : uses).push(...u);
      }
      const diff: string[] = [];
      const dl = defs.filter((u) => !d.implicitDefs.includes(u));
      const dO = d.implicitDefs.filter((u) => !defs.includes(u));
      const ul = uses.filter((u) => !d.implicitUses.includes(u));
      const uO = d.implicitUses.filter((u) => !uses.includes(u));
      if (dl.length) diff.push(`defs llvm+${names(dl)}`);
      if (dO.length) diff.push(`defs ours+${names(dO)}`);
      if (ul.length) diff.push(`uses llvm+${names(ul)}`);
      if (uO.length) diff.push(`uses ours+${names(uO)}`);
      const text = diff.join(' ');
      if (text && KNOWN[d.name]?.[0] !== text) problems.push(`${d.name} (${mc} on ${cpu}): ${text}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  console.log(`implicit registers: ${probed} instructions probed, ${problems.length} differences`);
  assert.deepEqual(problems.sort(), []);
});
