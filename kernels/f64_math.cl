// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Double precision: fma, division (div_scale/div_fmas/div_fixup), sqrt, rcp, rsq, fract, min/max.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void f64_math(__global const double *a, __global const double *b, __global double *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  double x = a[i], y = b[i];
  double f = __builtin_fma(x, y, 1.0);
  double d = x / (y + 2.0);
  double s = __builtin_sqrt(__builtin_fabs(f));
  double r = __builtin_amdgcn_rcp(s + 1.0) + __builtin_amdgcn_rsq(d * d + 1.0);
  double m = __builtin_fmax(x, y) - __builtin_fmin(x, y);
  out[i * 2u] = f + d + __builtin_amdgcn_fract(r);
  out[i * 2u + 1u] = m * s + (double)(float)r;
}
