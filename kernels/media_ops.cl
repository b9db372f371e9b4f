// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Media instructions: sad_u8/u16/hi, msad, lerp, qsad/mqsad packed, cube map helpers.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void media_ops(__global const uint *a, __global const uint *b, __global uint *out,
                        __global const float4 *dir, __global float4 *cube) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint x = a[i], y = b[i], z = a[i + 1u];
  uint s = __builtin_amdgcn_sad_u8(x, y, z) + __builtin_amdgcn_sad_hi_u8(x, y, z)
         + __builtin_amdgcn_sad_u16(x, y, z) + __builtin_amdgcn_msad_u8(x, z, y)
         + __builtin_amdgcn_lerp(x, y, z);
  ulong q = __builtin_amdgcn_qsad_pk_u16_u8(((ulong)y << 32) | x, z, (ulong)s)
          ^ __builtin_amdgcn_mqsad_pk_u16_u8(((ulong)x << 32) | y, z, (ulong)s);
  out[i * 2u] = (uint)q;
  out[i * 2u + 1u] = (uint)(q >> 32);
  float4 d = dir[i];
  cube[i] = (float4)(__builtin_amdgcn_cubeid(d.x, d.y, d.z), __builtin_amdgcn_cubesc(d.x, d.y, d.z),
                     __builtin_amdgcn_cubetc(d.x, d.y, d.z), __builtin_amdgcn_cubema(d.x, d.y, d.z));
}
