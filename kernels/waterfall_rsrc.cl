// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Buffer access with a per-lane (divergent) resource: the compiler emits a readfirstlane waterfall loop.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void waterfall_rsrc(__global const ulong *tables, __global const uint *which,
                             __global float *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  __global float *base = (__global float *)tables[which[i] & 3u];
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(base, (short)0, 65536, 0x27000);
  float v = __builtin_amdgcn_raw_buffer_load_b32(r, (int)(i & 255u) * 4, 0, 0);
  out[i] = v * 2.0f;
}
