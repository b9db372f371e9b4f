// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Integer dot products: sdot4/udot4 (i8), sdot8/udot8 (i4), sdot2 (i16) accumulating in a loop.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void dot_int(__global const int *a, __global const int *b, __global int *out, int k) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  int s4 = 0, s8 = 0, s2 = 0;
  uint u4 = 0, u8 = 0;
  for (int j = 0; j < k; ++j) {
    int x = a[i * 16u + (uint)j], y = b[(uint)j];
    s4 = __builtin_amdgcn_sdot4(x, y, s4, false);
    u4 = __builtin_amdgcn_udot4((uint)x, (uint)y, u4, false);
    s8 = __builtin_amdgcn_sdot8(x, y, s8, true);
    u8 = __builtin_amdgcn_udot8((uint)x, (uint)y, u8, false);
    s2 = __builtin_amdgcn_sdot2(__builtin_bit_cast(short2, x), __builtin_bit_cast(short2, y), s2,
                                false);
  }
  out[i] = s4 + (int)u4 + s8 + (int)u8 + s2;
}
