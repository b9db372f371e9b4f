// targets: gfx942
// xf32 MFMA K-loop (gfx942 only): 16x16x8_xf32 and 32x32x4_xf32 with float2 operands.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_xf32_loop(__global const float2 *a, __global const float2 *b,
                             __global float4 *c, __global float16 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 acc4 = 0.0f;
  float16 acc = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    float2 x = a[(uint)kk * 64u + lane];
    float2 y = b[(uint)kk * 64u + lane];
    acc4 = __builtin_amdgcn_mfma_f32_16x16x8_xf32(x, y, acc4, 0, 0, 0);
    acc = __builtin_amdgcn_mfma_f32_32x32x4_xf32(y, x, acc, 0, 0, 0);
  }
  c[g * 64u + lane] = acc4;
  d[g * 64u + lane] = acc;
}
