// targets: gfx950
// gfx950 double-K MFMAs: 16x16x32 and 32x32x16 for f16 and bf16 (8 elements per lane), i8 16x16x64.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_gfx950_f16_bf16(__global const half8 *ah, __global const bf16x8 *ab,
                                   __global const int4 *ai, __global float4 *c,
                                   __global float16 *d, __global int4 *e, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 c0 = 0.0f, c1 = 0.0f;
  float16 d0 = 0.0f, d1 = 0.0f;
  int4 e0 = 0;
  for (int kk = 0; kk < k; ++kk) {
    uint o = (uint)kk * 128u + lane;
    half8 h0 = ah[o], h1 = ah[o + 64u];
    bf16x8 b0 = ab[o], b1 = ab[o + 64u];
    int4 i0 = ai[o], i1 = ai[o + 64u];
    c0 = __builtin_amdgcn_mfma_f32_16x16x32_f16(h0, h1, c0, 0, 0, 0);
    d0 = __builtin_amdgcn_mfma_f32_32x32x16_f16(h1, h0, d0, 0, 0, 0);
    c1 = __builtin_amdgcn_mfma_f32_16x16x32_bf16(b0, b1, c1, 0, 0, 0);
    d1 = __builtin_amdgcn_mfma_f32_32x32x16_bf16(b1, b0, d1, 0, 0, 0);
    e0 = __builtin_amdgcn_mfma_i32_16x16x64_i8(i0, i1, e0, 0, 0, 0);
  }
  c[g * 64u + lane] = c0 + c1;
  d[g * 64u + lane] = d0 + d1;
  e[g * 64u + lane] = e0;
}
