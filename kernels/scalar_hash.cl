// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// SALU-heavy uniform work: a hash over kernel arguments and workgroup id (s_mul, s_xor, s_bfe, s_ff1, s_bcnt1).
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void scalar_hash(__global const uint *keys, __global uint *out, uint nkeys, uint seed) {
  uint g = __builtin_amdgcn_workgroup_id_x();
  uint h = seed ^ (g * 0x9e3779b9u);
  for (uint k = 0; k < nkeys; ++k) {
    uint key = keys[k];
    h ^= key + 0x7f4a7c15u + (h << 6) + (h >> 2);
    h = __builtin_rotateleft32(h, 13) * 5u + 0xe6546b64u;
    h += (uint)__builtin_popcount(key) << ((h >> 27) & 7u);
    h ^= (uint)__builtin_ctz(key | 0x10000u) + ((key >> 8) & 0xffu);
  }
  ulong wide = (ulong)h * 0xff51afd7ed558ccdul;
  h ^= (uint)(wide >> 33);
  out[g * 64u + __builtin_amdgcn_workitem_id_x()] = h + __builtin_amdgcn_workitem_id_x();
}
