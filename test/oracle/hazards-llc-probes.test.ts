/**
 * Oracle measurements behind hazard facts that the reference files do not state (each cited in
 * the rule's data as "oracle (LLVM 22.1.8): ..."): a tiny MIR function is run through LLVM's hazard
 * recognizer (llc -start-before=post-RA-hazard-rec) and the s_nop it inserts is read back; the
 * same instructions, written as assembly, must get the same requirement from our checker.
 * Fails, never skips, when llc is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { llvmTool } from './llvm.js';
import { kernelContextsFromText } from '../../src/analysis/context.js';
import { checkHazards } from '../../src/hazards/index.js';

interface Probe {
  name: string;
  mcpu: string;
  /** MIR body instructions (bb.0, liveins given). */
  mir: string[];
  liveins: string;
  /** The same code as assembly. */
  asm: string[];
  rule: string;
  waitStates: number;
}

const PROBES: Probe[] = [
  {
    name: 'gfx908 v_accvgpr_write after v_accvgpr_write of the same AGPR (WAW)',
    mcpu: 'gfx908',
    liveins: '$vgpr0, $vgpr1',
    mir: ['$agpr0 = V_ACCVGPR_WRITE_B32_e64 killed $vgpr0, implicit $exec', '$agpr0 = V_ACCVGPR_WRITE_B32_e64 killed $vgpr1, implicit $exec'],
    asm: ['v_accvgpr_write_b32 a0, v0', 'v_accvgpr_write_b32 a0, v1'],
    rule: 'accvgpr-write-agpr-read',
    waitStates: 3,
  },
];

function llc(args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    execFile(llvmTool('llc'), args, { encoding: 'utf8' }, (err, stdout, stderr) => (err ? rej(new Error(stderr)) : res(stdout)));
  });
}

for (const p of PROBES) {
  test(`llc probe: ${p.name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conductor-hz-'));
    const file = join(dir, 'p.mir');
    writeFileSync(file, ['---', 'name: probe', 'tracksRegLiveness: true', 'body: |', '  bb.0:', `    liveins: ${p.liveins}`,
      ...p.mir.map((l) => `    ${l}`), '    S_ENDPGM 0', '...', ''].join('\n'));
    const out = await llc(['-mtriple=amdgcn', `-mcpu=${p.mcpu}`, '-start-before=post-RA-hazard-rec', '-o', '-', file]);
    const nops = [...out.matchAll(/^\s*s_nop\s+(\d+)/gm)].reduce((n, m) => n + Number(m[1]) + 1, 0);
    assert.equal(nops, p.waitStates, `LLVM inserted ${nops} wait states:\n${out}`);
    const text = ['.text', '.globl k', '.type k,@function', 'k:', ...p.asm.map((l) => `  ${l}`), '  s_endpgm', ''].join('\n');
    const [ctx] = kernelContextsFromText(text, 'probe.s', p.mcpu);
    const f = checkHazards(ctx!).filter((x) => x.rule === p.rule);
    assert.equal(f.length, 1, `our ${p.rule} finding`);
    assert.equal(f[0]!.required, p.waitStates);
  });
}
