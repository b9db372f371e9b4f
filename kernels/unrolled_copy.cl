// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Eight 128-bit loads in flight, then eight stores: vmcnt bookkeeping on a long memory clause.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void unrolled_copy(__global const float4 *src, __global float4 *dst, float scale) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 2048u + __builtin_amdgcn_workitem_id_x();
  float4 v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    v[k] = src[i + (uint)k * 256u];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    dst[i + (uint)k * 256u] = v[k] * scale;
}
