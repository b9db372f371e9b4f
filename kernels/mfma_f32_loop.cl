// targets: gfx908 gfx90a gfx942 gfx950
// f32 MFMA K-loop: 32x32x2f32 and 16x16x4f32 accumulating over K, results stored per lane.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_f32_loop(__global const float *a, __global const float *b, __global float16 *c,
                            __global float4 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float16 acc = 0.0f;
  float4 acc4 = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    float x = a[(uint)kk * 64u + lane];
    float y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(x, y, acc, 0, 0, 0);
    acc4 = __builtin_amdgcn_mfma_f32_16x16x4f32(y, x, acc4, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc4;
}
