/**
 * The catalogue as data: size, invariants, and which instructions exist on which target
 * (asked of the Target's features; llvm-mc confirms the whole matrix in the oracle suite).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allInsns, catalogueSize, lookupInsn } from '../../../src/isa/catalogue.js';
import { unavailableReason } from '../../../src/isa/resolve.js';
import { parseMfma } from '../../../src/isa/mfma.js';
import { TARGETS, TARGET_NAMES } from '../../../src/targets/index.js';

test('the catalogue covers the GFX9-family ISA', () => {
  assert.ok(catalogueSize() > 1300, `${catalogueSize()} mnemonics`);
  for (const d of allInsns()) {
    assert.ok(d.minOperands <= d.ops.length, `${d.name}: minOperands`);
    assert.ok(!/_(e32|e64|sdwa|dpp)$/.test(d.name), `${d.name}: names carry no encoding suffix`);
    for (const o of d.ops) assert.ok(o.width >= 0 && o.width <= 32, `${d.name}: width ${o.width}`);
    if (d.cls === 'valu' || d.cls === 'mfma' || d.cls === 'vmem' || d.cls === 'ds' || d.cls === 'flat') {
      if (!/^v_(readlane_b32|writelane_b32)$/.test(d.name)) {
        assert.ok(d.implicitUses.includes(126) && d.implicitUses.includes(127), `${d.name} reads EXEC`);
      }
    }
    if (d.cls === 'mfma') assert.ok(parseMfma(d.name), `${d.name} has an MFMA shape`);
  }
});

/** name -> the targets (of gfx906 gfx908 gfx90a gfx942 gfx950) where it exists. */
const MATRIX: [string, string][] = [
  ['v_add_u32', '906 908 90a 942 950'],
  ['v_fmac_f32', '906 908 90a 942 950'],
  ['v_mac_f32', '906 908 90a'],
  ['v_pk_fmac_f16', '908 90a 942 950'],
  ['v_dot2c_f32_f16', '908 90a 942 950'],
  ['v_dot2c_f32_bf16', '950'],
  ['v_accvgpr_write_b32', '908 90a 942 950'],
  ['v_accvgpr_mov_b32', '90a 942 950'],
  ['v_mfma_f32_32x32x8f16', '908 90a 942 950'],
  ['v_mfma_f32_32x32x8_f16', '942 950'],
  ['v_mfma_f32_32x32x4bf16', '908 90a'],
  ['v_mfma_f32_32x32x8bf16_1k', '90a 942 950'],
  ['v_mfma_i32_32x32x8i8', '908 90a'],
  ['v_mfma_i32_32x32x16_i8', '942 950'],
  ['v_mfma_f64_16x16x4f64', '90a 942 950'],
  ['v_mfma_f32_16x16x8_xf32', '942'],
  ['v_mfma_f32_16x16x32_fp8_fp8', '942 950'],
  ['v_mfma_f32_16x16x32_f16', '950'],
  ['v_mfma_scale_f32_16x16x128_f8f6f4', '950'],
  ['v_smfmac_f32_16x16x32_f16', '942 950'],
  ['v_pk_fma_f32', '90a 942 950'],
  ['v_mov_b64', '942 950'],
  ['v_lshl_add_u64', '942 950'],
  ['v_cvt_pk_fp8_f32', '942 950'],
  ['v_permlane16_swap_b32', '950'],
  ['v_prng_b32', '950'],
  ['v_interp_p1_f32', '906 908'],
  ['exp', '906 908'],
  ['ds_add_src2_u32', '906 908'],
  ['ds_ordered_count', '906 908'],
  ['ds_gws_init', '906 908 90a 942 950'],
  ['ds_pk_add_f16', '942 950'],
  ['ds_read_b64_tr_b16', '950'],
  ['buffer_wbinvl1_vol', '906 908 90a'],
  ['buffer_wbl2', '90a 942 950'],
  ['buffer_invl2', '90a'],
  ['buffer_inv', '942 950'],
  ['global_atomic_add_f32', '908 90a 942 950'],
  ['global_atomic_add_f64', '90a 942 950'],
  ['flat_atomic_add_f32', '942 950'],
  ['global_load_lds_dword', '942 950'],
  ['global_load_lds_dwordx4', '950'],
  ['s_setprio', '906 908 90a 942 950'],
];

test('availability per target comes from the Target features', () => {
  for (const [name, where] of MATRIX) {
    const d = lookupInsn(name);
    assert.ok(d, `${name} is catalogued`);
    const got = TARGET_NAMES.filter((t) => unavailableReason(d, TARGETS[t]) === undefined).map((t) => t.slice(3)).join(' ');
    assert.equal(got, where, `${name} exists on`);
  }
});

test('aliases map to their instruction', () => {
  assert.equal(lookupInsn('v_accvgpr_write')?.name, 'v_accvgpr_write_b32');
  assert.equal(lookupInsn('v_accvgpr_read')?.name, 'v_accvgpr_read_b32');
  assert.equal(lookupInsn('v_mul_lo_i32')?.name, 'v_mul_lo_u32'); // llvm-mc 22: the same encoding
  assert.equal(lookupInsn('v_bogus'), undefined);
});
