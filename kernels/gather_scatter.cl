// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Indirect addressing: index-driven gathers of bytes, shorts and floats, and scattered stores.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void gather_scatter(__global const uint *idx, __global const float *src,
                             __global const uchar *bytes, __global const short *shorts,
                             __global float *dst, __global uchar *bdst) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint j = idx[i];
  float v = src[j] + (float)bytes[j ^ 3u] + (float)shorts[j >> 1];
  dst[idx[i + 1u]] = v;
  bdst[j] = (uchar)(v * 0.25f);
  ((__global ushort *)bdst)[(j >> 1) + 4096u] = (ushort)j;
}
