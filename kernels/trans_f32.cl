// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Transcendental VALU ops on f32: rcp, sqrt, rsq, exp2, log, sin, cos, fract, ldexp, frexp.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void trans_f32(__global const float *x, __global float *out, __global int *expo) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  float a = __builtin_amdgcn_rcpf(v);
  float b = __builtin_amdgcn_sqrtf(a + 1.0f);
  float c = __builtin_amdgcn_rsqf(b * v);
  float d = __builtin_amdgcn_exp2f(c - 0.5f);
  float e = __builtin_amdgcn_logf(d + a);
  float s = __builtin_amdgcn_sinf(e);
  float k = __builtin_amdgcn_cosf(e);
  float f = __builtin_amdgcn_fractf(s * k);
  float m = __builtin_amdgcn_frexp_mantf(f + v);
  expo[i] = __builtin_amdgcn_frexp_expf(f + v);
  out[i] = __builtin_amdgcn_ldexpf(m, 3) + s * k;
}
