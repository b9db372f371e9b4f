/**
 * Oracle test: the project's own kernels build with LLVM 22 for every target in their headers,
 * the assembly LLVM prints assembles again, and the final MIR lines up with the assembly
 * (the i-th printed MIR instruction of a function is the i-th instruction line of that
 * function in the .s file), which the MIR def/use oracle relies on.
 *
 * Needs LLVM 22 (/usr/lib/llvm-22/bin or $LLVM_BIN); fails, never skips, when it is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import {
  buildKernels, enumerateKernelTargets, KERNEL_TARGETS, llvmTool, type KernelBuild,
} from '../../scripts/build-kernels.js';
import { parseMir, scanAsmFunctions } from './mir.js';

const MIN_KERNELS_PER_TARGET = 35;
const MIN_DISTINCT_KERNELS = 40;

/** Runs fn over items, at most `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function assemble(mc: string, b: KernelBuild): Promise<string | undefined> {
  return new Promise((res) => {
    execFile(mc, ['-triple=amdgcn-amd-amdhsa', `-mcpu=${b.target}`, '-filetype=obj', '-o', '/dev/null', b.s],
      { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, _stdout, stderr) => {
        if (err) res(`${b.s}: llvm-mc failed\n${stderr.split('\n').slice(0, 10).join('\n')}`);
        else if (/error:/.test(stderr)) res(`${b.s}: llvm-mc reported errors\n${stderr.split('\n').slice(0, 10).join('\n')}`);
        else res(undefined);
      });
  });
}

/** First two `_`-separated words of an opcode or mnemonic, lower case: V_ADD_U32_e32 -> v_add. */
function opKey(name: string): string {
  return name.toLowerCase().split('_').slice(0, 2).join('_');
}

/** Pseudo opcodes that the printer lowers to a differently named instruction. */
const LOWERED_NAMES: Readonly<Record<string, string>> = {
  SI_CALL: 's_swappc',
  SI_TCRETURN: 's_setpc',
};

describe('kernels build with LLVM 22', () => {
  let builds: KernelBuild[] = [];

  before(async () => {
    // Throws a clear "LLVM tool ... not found" error when LLVM is absent: the suite fails.
    builds = await buildKernels();
  });

  it('builds every kernel for every target of its header', () => {
    const expected = enumerateKernelTargets();
    assert.equal(builds.length, expected.length);
    for (let i = 0; i < expected.length; i++) {
      assert.equal(builds[i]!.name, expected[i]!.kernel.name);
      assert.equal(builds[i]!.target, expected[i]!.target);
    }
  });

  it(`has at least ${MIN_DISTINCT_KERNELS} kernels and ${MIN_KERNELS_PER_TARGET} per target`, () => {
    const distinct = new Set(builds.map((b) => b.name));
    assert.ok(distinct.size >= MIN_DISTINCT_KERNELS, `only ${distinct.size} distinct kernels`);
    for (const t of KERNEL_TARGETS) {
      const n = builds.filter((b) => b.target === t).length;
      assert.ok(n >= MIN_KERNELS_PER_TARGET, `${t}: only ${n} kernels`);
    }
  });

  it('every .s assembles with llvm-mc for its target', async () => {
    const mc = llvmTool('llvm-mc');
    const failures = (await pool(builds, 2, (b) => assemble(mc, b))).filter((f): f is string => f !== undefined);
    assert.deepEqual(failures, [], failures.join('\n\n'));
  });

  it('calls only functions defined in the same file (no library calls)', () => {
    const problems: string[] = [];
    for (const b of builds) {
      const text = readFileSync(b.s, 'utf8');
      const defined = new Set(scanAsmFunctions(text).keys());
      for (const m of text.matchAll(/([A-Za-z_$][\w.$]*)@(?:rel32|gotpcrel32|gotpcrel|rel64|abs32)/g)) {
        if (!defined.has(m[1]!)) problems.push(`${b.name}.${b.target}: reference to undefined ${m[1]}`);
      }
      if (/^\s*s_swappc_b64/m.test(text) && b.name !== 'call_helper') {
        problems.push(`${b.name}.${b.target}: unexpected call`);
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('printed MIR instructions line up one-to-one with the .s instructions', () => {
    const problems: string[] = [];
    let functions = 0;
    let instructions = 0;
    for (const b of builds) {
      const mir = parseMir(readFileSync(b.mir, 'utf8'));
      const asm = scanAsmFunctions(readFileSync(b.s, 'utf8'));
      const where = `${b.name}.${b.target}`;
      const mirNames = mir.map((f) => f.name).sort();
      const asmNames = [...asm.keys()].sort();
      if (mirNames.join() !== asmNames.join()) {
        problems.push(`${where}: functions differ: MIR [${mirNames.join(', ')}] vs .s [${asmNames.join(', ')}]`);
      }
      for (const f of mir) {
        if (f.name.startsWith('__clang_ocl_kern_imp_')) problems.push(`${where}: ${f.name} was not removed`);
        const lines = asm.get(f.name);
        if (!lines) continue;
        functions++;
        const printed = f.instrs.filter((i) => i.printed);
        if (printed.length !== lines.length) {
          problems.push(`${where} ${f.name}: ${printed.length} printed MIR instructions, ${lines.length} .s instructions`);
          continue;
        }
        instructions += printed.length;
        // Same instruction at the same position (compared by the first two name words).
        for (let i = 0; i < printed.length; i++) {
          const op = printed[i]!.opcode;
          const mnemonic = lines[i]!.text.split(/\s+/)[0]!;
          const want = LOWERED_NAMES[op] ?? opKey(op);
          if (opKey(mnemonic) !== want) {
            problems.push(`${where} ${f.name}: MIR line ${printed[i]!.line} ${op} vs .s line ${lines[i]!.line} ${mnemonic}`);
            break;
          }
        }
      }
    }
    assert.deepEqual(problems, [], problems.slice(0, 40).join('\n'));
    assert.ok(functions >= builds.length, `only ${functions} functions compared`);
    assert.ok(instructions > 0);
  });
});

describe('parseMir on hand-written MIR', () => {
  const text = [
    '---',
    'name:            demo',
    'body:             |',
    '  bb.0 (%ir-block.0):',
    '    successors: %bb.1(0x80000000)',
    '    liveins: $vgpr0, $sgpr0_sgpr1',
    '  ',
    '    renamable $sgpr4_sgpr5 = S_LOAD_DWORDX2_IMM killed renamable $sgpr0_sgpr1, 0, 0 :: (dereferenceable invariant load (s64), addrspace 4)',
    '    renamable $vgpr1 = nuw nsw V_LSHLREV_B32_e32 2, killed $vgpr0, implicit $exec',
    '    dead $vcc = V_CMP_EQ_U32_e64 0, $vgpr1_lo16, implicit $exec',
    '    $vgpr2 = V_MOV_B32_e32 $src_shared_base, implicit $exec, implicit $exec',
    '    early-clobber renamable $agpr0_agpr1_agpr2_agpr3 = V_MFMA_F32_16X16X16F16_e64 $vgpr0_vgpr1, $vgpr2_vgpr3, 0, 0, 0, 0, implicit $mode, implicit $exec',
    '    $m0 = S_MOV_B32 $sgpr_null',
    '    KILL killed renamable $vgpr4',
    '    $vgpr5 = IMPLICIT_DEF',
    '    BUNDLE implicit-def $sgpr10_sgpr11, implicit-def $scc {',
    '      $sgpr10_sgpr11 = S_GETPC_B64',
    '      $sgpr10 = S_ADD_U32 internal $sgpr10, target-flags(amdgpu-rel32-lo) @f + 4, implicit-def $scc',
    '    }',
    '    SCHED_BARRIER 0',
    '    dead $sgpr30_sgpr31 = SI_CALL killed renamable $sgpr10_sgpr11, @f, CustomRegMask($vgpr0,$exec,$sgpr_null), implicit $vgpr0, implicit-def $vgpr0',
    '    S_ENDPGM 0',
    '...',
    '',
  ].join('\n');

  it('reads opcodes, printed flags, bundles and line numbers', () => {
    const [f, ...rest] = parseMir(text);
    assert.equal(rest.length, 0);
    assert.equal(f!.name, 'demo');
    assert.deepEqual(f!.instrs.map((i) => i.opcode), [
      'S_LOAD_DWORDX2_IMM', 'V_LSHLREV_B32_e32', 'V_CMP_EQ_U32_e64', 'V_MOV_B32_e32',
      'V_MFMA_F32_16X16X16F16_e64', 'S_MOV_B32', 'KILL', 'IMPLICIT_DEF', 'BUNDLE', 'S_GETPC_B64',
      'S_ADD_U32', 'SCHED_BARRIER', 'SI_CALL', 'S_ENDPGM',
    ]);
    assert.deepEqual(f!.instrs.filter((i) => !i.printed).map((i) => i.opcode),
      ['KILL', 'IMPLICIT_DEF', 'BUNDLE', 'SCHED_BARRIER']);
    assert.deepEqual(f!.instrs.filter((i) => i.bundled).map((i) => i.opcode), ['S_GETPC_B64', 'S_ADD_U32']);
    assert.equal(f!.instrs[0]!.line, 8);
  });

  it('maps defs and uses to register units', () => {
    const i = parseMir(text)[0]!.instrs;
    assert.deepEqual(i[0]!.explicitDefs, [4, 5]);
    assert.deepEqual(i[0]!.explicitUses, [0, 1]);
    assert.deepEqual(i[1]!.explicitDefs, [257]);
    assert.deepEqual(i[1]!.explicitUses, [256]);
    assert.deepEqual(i[1]!.implicitUses, [126, 127]);
    assert.deepEqual(i[2]!.explicitDefs, [106, 107]);
    assert.deepEqual(i[2]!.deadDefs, [106, 107]);
    assert.deepEqual(i[2]!.explicitUses, [257]); // $vgpr1_lo16 -> v1
    assert.deepEqual(i[3]!.explicitUses, []); // $src_shared_base: a constant
    assert.deepEqual(i[4]!.explicitDefs, [768, 769, 770, 771]);
    assert.deepEqual(i[4]!.explicitUses, [256, 257, 258, 259]);
    assert.deepEqual(i[4]!.implicitUses, [126, 127, 129]);
    assert.deepEqual(i[5]!.explicitDefs, [124]);
    assert.deepEqual(i[5]!.explicitUses, []); // $sgpr_null
    assert.deepEqual(i[8]!.implicitDefs, [10, 11, 128]);
    assert.deepEqual(i[10]!.explicitUses, [10]);
    assert.deepEqual(i[12]!.explicitDefs, [30, 31]);
    assert.deepEqual(i[12]!.explicitUses, [10, 11]); // the register mask is not a register
    assert.deepEqual(i[12]!.implicitUses, [256]);
    assert.deepEqual(i[12]!.implicitDefs, [256]);
  });
});
