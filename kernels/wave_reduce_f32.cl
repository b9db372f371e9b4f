// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Float wave reduction with DPP-fused adds and readlane, then a max reduction via ds_swizzle.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void wave_reduce_f32(__global const float *in, __global float *out) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float v = in[g * 64u + lane];
  int b = __builtin_bit_cast(int, v);
  float s = v;
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0xb1, 0xf, 0xf, true));  // quad_perm:[1,0,3,2]
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0x4e, 0xf, 0xf, true));  // quad_perm:[2,3,0,1]
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0x114, 0xf, 0xe, false)); // row_shr:4
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0x118, 0xf, 0xc, false)); // row_shr:8
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0x142, 0xa, 0xf, false)); // row_bcast:15
  s += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, s), 0x143, 0xc, 0xf, false)); // row_bcast:31
  float total = __builtin_bit_cast(float, __builtin_amdgcn_readlane(__builtin_bit_cast(int, s), 63));
  float m = v;
  m = __builtin_fmaxf(m, __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, m), 0x041f)));
  m = __builtin_fmaxf(m, __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, m), 0x081f)));
  m = __builtin_fmaxf(m, __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, m), 0x101f)));
  m = __builtin_fmaxf(m, __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, m), 0x201f)));
  m = __builtin_fmaxf(m, __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, m), 0x401f)));
  if (lane == 0u)
    out[g * 2u] = total;
  if (lane == 31u)
    out[g * 2u + 1u] = m + (float)(b & 1);
}
