// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Work-group inclusive prefix sum (Hillis-Steele) in LDS with a barrier per step.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void prefix_scan_lds(__global const int *in, __global int *out) {
  __local int buf[2][256];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int cur = 0;
  buf[0][t] = in[g * 256u + t];
  WG_BARRIER();
  for (uint off = 1u; off < 256u; off <<= 1) {
    int v = buf[cur][t];
    if (t >= off)
      v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    WG_BARRIER();
  }
  out[g * 256u + t] = buf[cur][t];
}
