// targets: gfx90a gfx942 gfx950
// f64 MFMA K-loop: 16x16x4f64 (double4 accumulator) and 4x4x4f64 (one double per lane).
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_f64_loop(__global const double *a, __global const double *b,
                            __global double4 *c, __global double *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  double4 acc = c[g * 64u + lane];
  double acc1 = 0.0;
  for (int kk = 0; kk < k; ++kk) {
    double x = a[(uint)kk * 64u + lane];
    double y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(x, y, acc, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f64_4x4x4f64(y, x, acc1, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc1 + acc.x;
}
