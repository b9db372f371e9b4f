// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 24-bit multiplies (v_mul_u32_u24 / v_mad_u32_u24), mul_hi, and 32x32->64 multiply-add (v_mad_u64_u32).
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void mul24_mad64(__global const uint *a, __global const uint *b, __global ulong *out,
                          __global int *o2) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint x = a[i], y = b[i];
  uint m24 = (x & 0xffffffu) * (y & 0xffffffu) + (y >> 8);
  int s24 = ((int)(x << 8) >> 8) * ((int)(y << 8) >> 8);
  ulong wide = (ulong)x * (ulong)y + (ulong)m24;
  uint hi = (uint)(((ulong)x * (ulong)y) >> 32);
  long sw = (long)(int)x * (long)(int)y + (long)s24;
  out[i * 2u] = wide;
  out[i * 2u + 1u] = (ulong)sw + hi;
  o2[i] = s24 + (int)m24;
}
