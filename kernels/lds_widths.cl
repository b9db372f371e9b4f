// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// LDS stores and loads of 8, 16, 32, 64 and 128 bits, with and without sign extension.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void lds_widths(__global const int4 *in, __global int4 *out) {
  __local char c8[64];
  __local short c16[64];
  __local int c32[64];
  __local long c64[64];
  __local int4 c128[64];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int4 v = in[g * 64u + t];
  c8[t] = (char)v.x;
  c16[t] = (short)v.y;
  c32[t] = v.z;
  c64[t] = ((long)v.w << 32) | (uint)v.x;
  c128[t] = v;
  WG_BARRIER();
  uint u = 63u - t;
  long w = c64[u];
  int4 r = c128[(t + 5u) & 63u];
  r.x += c8[u];
  r.y += (uchar)c8[(u + 1u) & 63u];
  r.z += c16[u] + (ushort)c16[(u + 3u) & 63u];
  r.w += c32[u] + (int)w + (int)(w >> 32);
  out[g * 64u + t] = r;
}
