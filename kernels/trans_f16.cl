// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Transcendental VALU ops on f16 scalars: rcp, sqrt, rsq, sin, cos, with f16 arithmetic around them.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void trans_f16(__global const half *x, __global half *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  half v = x[i];
  half a = __builtin_amdgcn_rcph(v);
  half b = __builtin_amdgcn_sqrth(a + (half)1.0f);
  half c = __builtin_amdgcn_rsqh(b * v);
  half s = __builtin_amdgcn_sinh(c);
  half k = __builtin_amdgcn_cosh(c);
  out[i] = s * k + a;
}
