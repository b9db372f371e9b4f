// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Mixed-precision FMA: f16 inputs widened to f32 inside the FMA (v_fma_mix_f32 / v_fma_mixlo_f16).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void mad_mix_f16(__global const half *a, __global const half *b, __global float *c,
                          __global half *d) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  half x = a[i], y = b[i];
  float acc = c[i];
  acc = __builtin_fmaf((float)x, (float)y, acc);
  acc = __builtin_fmaf((float)a[i + 256u], (float)b[i + 256u], acc);
  c[i] = acc;
  d[i] = (half)__builtin_fmaf((float)x, acc, (float)y);
}
