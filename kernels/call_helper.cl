// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// A kernel calling a non-inlined device function: call setup, s_swappc/s_setpc, stack frame.
__attribute__((noinline)) static float poly(float x, __global const float *c, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc = __builtin_fmaf(acc, x, c[k]);
  return acc;
}

__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void call_helper(__global const float *x, __global const float *c, __global float *y,
                          int n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  float a = poly(v, c, n);
  float b = poly(a * 0.5f, c + n, n);
  y[i] = a + b;
}
