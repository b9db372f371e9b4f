// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Global 64-bit integer atomics: add, min, max, and, or, exchange, compare-exchange.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void global_atomics_64(__global const long *in, __global long *ctr, __global long *ret) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  long v = in[i];
  __atomic_fetch_add(&ctr[i & 7u], v, __ATOMIC_RELAXED);
  __atomic_fetch_min(&ctr[8], v, __ATOMIC_RELAXED);
  __atomic_fetch_max((__global ulong *)&ctr[9], (ulong)v, __ATOMIC_RELAXED);
  long a = __atomic_fetch_and(&ctr[10 + (i & 1u)], v, __ATOMIC_RELAXED);
  long o = __atomic_fetch_or(&ctr[12 + (i & 1u)], v, __ATOMIC_RELAXED);
  long e = __atomic_exchange_n(&ctr[14 + (i & 1u)], v, __ATOMIC_RELAXED);
  long expected = 0;
  __atomic_compare_exchange_n(&ctr[16 + (i & 3u)], &expected, v, false, __ATOMIC_RELAXED,
                              __ATOMIC_RELAXED);
  ret[i] = a ^ o ^ e ^ expected;
}
