// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// y = a*x + y on float4 vectors, two elements per work-item (128-bit loads and stores).
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void saxpy_vec4(float a, __global const float4 *x, __global float4 *y) {
  uint i = (__builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x()) * 2u;
  float4 x0 = x[i], x1 = x[i + 1];
  float4 y0 = y[i], y1 = y[i + 1];
  y[i] = __builtin_elementwise_fma((float4)(a), x0, y0);
  y[i + 1] = __builtin_elementwise_fma((float4)(a), x1, y1);
}
