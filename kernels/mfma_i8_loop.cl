// targets: gfx908 gfx90a
// i8 MFMA K-loop with 4 bytes per lane: 32x32x8i8 and 16x16x16i8, int32 accumulators.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_i8_loop(__global const int *a, __global const int *b, __global int16 *c,
                           __global int4 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int16 acc = 0;
  int4 acc4 = 0;
  for (int kk = 0; kk < k; ++kk) {
    int x = a[(uint)kk * 64u + lane];
    int y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_i32_32x32x8i8(x, y, acc, 0, 0, 0);
    acc4 = __builtin_amdgcn_mfma_i32_16x16x16i8(x, y, acc4, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc4;
}
