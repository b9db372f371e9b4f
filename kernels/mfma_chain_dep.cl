// targets: gfx908 gfx90a gfx942 gfx950
// Back-to-back MFMAs with accumulator dependencies (srcC = previous result) and independent chains.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_chain_dep(__global const half4 *a, __global const float *f,
                             __global float4 *out4, __global float16 *out16) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  half4 x0 = a[lane], x1 = a[64u + lane], x2 = a[128u + lane], x3 = a[192u + lane];
  float y = f[lane], z = f[64u + lane];
  // one dependent chain of 16x16x16 MFMAs
  float4 c = 0.0f;
  c = __builtin_amdgcn_mfma_f32_16x16x16f16(x0, x1, c, 0, 0, 0);
  c = __builtin_amdgcn_mfma_f32_16x16x16f16(x1, x2, c, 0, 0, 0);
  c = __builtin_amdgcn_mfma_f32_16x16x16f16(x2, x3, c, 0, 0, 0);
  c = __builtin_amdgcn_mfma_f32_16x16x16f16(x3, x0, c, 0, 0, 0);
  // two interleaved independent 32x32 chains
  float16 p = 0.0f, q = 0.0f;
  p = __builtin_amdgcn_mfma_f32_32x32x8f16(x0, x2, p, 0, 0, 0);
  q = __builtin_amdgcn_mfma_f32_32x32x2f32(y, z, q, 0, 0, 0);
  p = __builtin_amdgcn_mfma_f32_32x32x8f16(x1, x3, p, 0, 0, 0);
  q = __builtin_amdgcn_mfma_f32_32x32x2f32(z, y, q, 0, 0, 0);
  // a 4x4 chain with broadcast modifiers (cbsz/abid/blgp)
  float4 s = 0.0f;
  s = __builtin_amdgcn_mfma_f32_4x4x1f32(y, z, s, 0, 0, 0);
  s = __builtin_amdgcn_mfma_f32_4x4x1f32(y, z, s, 4, 1, 0);
  s = __builtin_amdgcn_mfma_f32_4x4x4f16(x0, x1, s, 0, 0, 2);
  out4[g * 128u + lane] = c;
  out4[g * 128u + 64u + lane] = s;
  out16[g * 64u + lane] = p + q;
}
