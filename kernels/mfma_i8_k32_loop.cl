// targets: gfx942 gfx950
// i8 MFMA K-loop with 8 bytes per lane: 32x32x16_i8 and 16x16x32_i8, int32 accumulators.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_i8_k32_loop(__global const long *a, __global const long *b, __global int16 *c,
                               __global int4 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int16 acc = 0;
  int4 acc4 = 0;
  for (int kk = 0; kk < k; ++kk) {
    long x = a[(uint)kk * 64u + lane];
    long y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_i32_32x32x16_i8(x, y, acc, 0, 0, 0);
    acc4 = __builtin_amdgcn_mfma_i32_16x16x32_i8(y, x, acc4, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc4;
}
