// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Data-dependent if/else on each lane: exec masking with saveexec, vcmp and execz branches.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void divergent_if_else(__global const float *x, __global const int *sel,
                                __global float *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  float r;
  if (sel[i] > 0) {
    float t = v * v;
    r = __builtin_amdgcn_sqrtf(t + 1.0f) * x[i + 1];
  } else {
    r = __builtin_amdgcn_rcpf(v - 2.0f) + x[i + 2];
  }
  if (v < 0.5f)
    r = -r;
  out[i] = r;
}
