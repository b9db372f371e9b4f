// targets: gfx908 gfx90a
// Original bf16 MFMA K-loop (2 bf16 per lane): 32x32x4bf16 and 16x16x8bf16.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_bf16_loop(__global const short2 *a, __global const short2 *b,
                             __global float16 *c, __global float4 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float16 acc = 0.0f;
  float4 acc4 = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    short2 x = a[(uint)kk * 64u + lane];
    short2 y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_f32_32x32x4bf16(x, y, acc, 0, 0, 0);
    acc4 = __builtin_amdgcn_mfma_f32_16x16x8bf16(x, y, acc4, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc4;
}
