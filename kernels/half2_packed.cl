// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Packed f16 math on half2 vectors: v_pk_fma/mul/add/min/max_f16 and a horizontal f16 sum.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void half2_packed(__global const half2 *a, __global const half2 *b, __global half2 *c,
                           __global half *dot) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  half2 x = a[i], y = b[i], z = c[i];
  half2 f = __builtin_elementwise_fma(x, y, z);
  half2 m = x * y + (half2)((half)0.25f, (half)-1.5f);
  half2 mx = __builtin_elementwise_max(f, m);
  half2 mn = __builtin_elementwise_min(x - y, z);
  c[i] = mx + mn;
  half2 p = x * y;
  dot[i] = p.x + p.y + z.x * z.y;
}
