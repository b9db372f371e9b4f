// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Loops with uniform trip counts from kernel arguments: SALU counters and s_cbranch back edges.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void scalar_uniform_loop(__global const float *coef, __global float *x, int n, int iters) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  for (int it = 0; it < iters; ++it) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc = __builtin_fmaf(acc, v, coef[k]); // coef[k] is uniform: scalar load
    v = acc * 0.5f + v;
  }
  x[i] = v;
}
