// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Element-wise float addition with a bounds check: the smallest real kernel.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void vadd_f32(__global const float *a, __global const float *b,
                       __global float *c, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    c[i] = a[i] + b[i];
}
