// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Generic (flat) pointers that may point to LDS or global memory: flat loads/stores, aperture checks.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void flat_generic_ptr(__global float *g, int use_lds) {
  __local float l[64 * 4];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + t;
  l[t * 4u] = g[i];
  l[t * 4u + 1u] = g[i + 1u];
  l[t * 4u + 2u] = g[i + 2u];
  l[t * 4u + 3u] = g[i + 3u];
  WG_BARRIER();
  float *p = (g[i] > 0.0f) ? (float *)&l[((t + 1u) & 63u) * 4u] : (float *)&g[i * 4u];
  p[1] = p[0] * 2.0f;
  g[i + 8192u] = p[2] + p[3] * (float)use_lds;
}
