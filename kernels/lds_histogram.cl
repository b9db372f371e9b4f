// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 256-bin byte histogram: LDS atomic increments per work-group, then global atomic merge.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void lds_histogram(__global const uint *data, __global uint *hist, uint words_per_group) {
  __local uint bins[256];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  bins[t] = 0u;
  WG_BARRIER();
  for (uint w = t; w < words_per_group; w += 256u) {
    uint x = data[g * words_per_group + w];
    __atomic_fetch_add(&bins[x & 0xffu], 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bins[(x >> 8) & 0xffu], 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bins[(x >> 16) & 0xffu], 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bins[x >> 24], 1u, __ATOMIC_RELAXED);
  }
  WG_BARRIER();
  uint c = bins[t];
  if (c != 0u)
    __atomic_fetch_add(&hist[t], c, __ATOMIC_RELAXED);
}
