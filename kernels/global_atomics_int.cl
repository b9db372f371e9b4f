// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Global 32-bit integer atomics with and without returned values, at agent and workgroup scope.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void global_atomics_int(__global const int *in, __global int *ctr, __global int *ret) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  int v = in[i];
  __atomic_fetch_add(&ctr[i & 15u], v, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&ctr[16 + (i & 7u)], 1, __ATOMIC_RELAXED);
  __atomic_fetch_min(&ctr[24 + (i & 3u)], v, __ATOMIC_RELAXED);
  __atomic_fetch_max(&ctr[28 + (i & 3u)], v, __ATOMIC_RELAXED);
  __atomic_fetch_min((__global uint *)&ctr[32 + (i & 3u)], (uint)v, __ATOMIC_RELAXED);
  __atomic_fetch_max((__global uint *)&ctr[36 + (i & 3u)], (uint)v, __ATOMIC_RELAXED);
  int a = __atomic_fetch_and(&ctr[40 + (i & 3u)], v, __ATOMIC_RELAXED);
  int o = __atomic_fetch_or(&ctr[44 + (i & 3u)], v, __ATOMIC_RELAXED);
  int x = __opencl_atomic_fetch_xor((__global atomic_int *)&ctr[48 + (i & 3u)], v,
                                    memory_order_relaxed, memory_scope_work_group);
  int e = __atomic_exchange_n(&ctr[52 + (i & 3u)], v, __ATOMIC_RELAXED);
  int expected = v - 1;
  bool ok = __atomic_compare_exchange_n(&ctr[56 + (i & 3u)], &expected, v, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  int h = __hip_atomic_fetch_add(&ctr[60], v, __ATOMIC_RELAXED, 3 /* agent */);
  ret[i] = a + o + x + e + (ok ? expected : -expected) + h;
}
