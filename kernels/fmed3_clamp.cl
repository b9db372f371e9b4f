// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Min/max/med3/clamp and float class tests, f32 and f16, including canonicalization.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void fmed3_clamp(__global const float *x, __global const half *h, __global float *out,
                          __global half *hout, __global int *cls) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i], w = x[i + 1u];
  float m = __builtin_amdgcn_fmed3f(v, w, 0.5f);
  float c = __builtin_fminf(__builtin_fmaxf(v * w, 0.0f), 1.0f);
  out[i] = m + c + __builtin_fmaxf(v, w) - __builtin_fminf(v, w);
  half hv = h[i];
  hout[i] = __builtin_amdgcn_fmed3h(hv, h[i + 1u], (half)2.0f) + __builtin_fminf16(hv, (half)1.0f);
  cls[i] = __builtin_amdgcn_classf(v, 0x3) | (__builtin_amdgcn_classh(hv, 0x60) << 1);
}
