// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 64-bit integer multiply, shifts, division, remainder, bit counts and comparisons.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void int64_arith(__global const ulong *a, __global const ulong *b, __global ulong *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  ulong x = a[i], y = b[i] | 1ul;
  ulong p = x * y + (x >> 7) - (y << 13);
  ulong q = x / y;
  ulong r = x % (y + 2ul);
  long s = (long)x >> (y & 63ul);
  ulong c = (ulong)__builtin_popcountl(x) + (ulong)__builtin_clzl(y) + (ulong)__builtin_ctzl(y);
  ulong m = x > y ? x : y;
  out[i * 4u] = p ^ q;
  out[i * 4u + 1u] = r + (ulong)s;
  out[i * 4u + 2u] = c * m;
  out[i * 4u + 3u] = __builtin_bitreverse64(x) + (ulong)((long)(int)x * (long)(int)y);
}
