// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Switch on a uniform kernel argument: scalar compare chains and uniform branches around VALU code.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void uniform_switch(__global float *x, int op, float k) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  switch (op) {
  case 0: v = v + k; break;
  case 1: v = v * k; break;
  case 2: v = __builtin_amdgcn_rcpf(v) * k; break;
  case 3: v = __builtin_fmaf(v, v, k); break;
  case 5: v = __builtin_amdgcn_sqrtf(v) - k; break;
  case 8: v = (float)((int)v << 2); break;
  default: v = -v; break;
  }
  if (op > 2)
    v *= 0.5f;
  x[i] = v;
}
