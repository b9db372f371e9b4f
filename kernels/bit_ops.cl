// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Bit manipulation: popcount, clz/ctz, bitreverse, bfe, alignbit/alignbyte, perm, rotates, bfi.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void bit_ops(__global const uint *a, __global const uint *b, __global uint *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint x = a[i], y = b[i];
  uint p = (uint)__builtin_popcount(x) + (uint)__builtin_clz(y | 1u) + (uint)__builtin_ctz(x | 0x80000000u);
  uint r = __builtin_bitreverse32(x) ^ __builtin_rotateleft32(y, 7);
  uint f = __builtin_amdgcn_ubfe(x, 3, 5) + (uint)__builtin_amdgcn_sbfe((int)y, x & 31u, 7);
  uint al = __builtin_amdgcn_alignbit(x, y, y & 31u) ^ __builtin_amdgcn_alignbyte(y, x, 2);
  uint pm = __builtin_amdgcn_perm(x, y, 0x05010400u);
  uint bfi = (x & 0x00ff00ffu) | (y & ~0x00ff00ffu);
  out[i * 2u] = p + r + f;
  out[i * 2u + 1u] = al ^ pm ^ bfi;
}
