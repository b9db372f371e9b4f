// targets: gfx942 gfx950
// fp8/bf8 MFMA K-loop: all four fp8/bf8 operand pairings of 16x16x32, plus 32x32x16 fp8.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_fp8_loop(__global const long *a, __global const long *b, __global float4 *c,
                            __global float16 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 acc0 = 0.0f, acc1 = 0.0f;
  float16 big = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    long x = a[(uint)kk * 64u + lane];
    long y = b[(uint)kk * 64u + lane];
    acc0 = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(x, y, acc0, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(x, y, acc1, 0, 0, 0);
    acc0 = __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8(y, x, acc0, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8(y, x, acc1, 0, 0, 0);
    big = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(x, y, big, 0, 0, 0);
  }
  c[g * 64u + lane] = acc0 + acc1;
  d[g * 64u + lane] = big;
}
