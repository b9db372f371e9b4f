// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Long dependent FMA/MUL/ADD chains (VALU latency bound) with a few independent chains interleaved.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void f32_fma_chain(__global const float *x, __global float *y) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float a = x[i], b = x[i + 256u], c = x[i + 512u];
  float p = a, q = b, r = c;
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    p = __builtin_fmaf(p, a, 0.25f * (float)k);
    q = q * b + c;
    r = __builtin_fmaf(r, p, -q);
  }
  y[i] = p + q + r;
}
