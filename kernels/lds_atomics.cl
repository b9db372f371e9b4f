// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// LDS atomics: add, sub, min, max, and, or, xor, exchange, compare-exchange, float add.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void lds_atomics(__global const int *in, __global const float *fin, __global int *out,
                          __global float *fout) {
  __local int slots[16];
  __local float fsum[4];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  if (t < 16u)
    slots[t] = 0;
  if (t < 4u)
    fsum[t] = 0.0f;
  WG_BARRIER();
  int v = in[g * 256u + t];
  __atomic_fetch_add(&slots[t & 3u], v, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&slots[4], v & 15, __ATOMIC_RELAXED);
  __atomic_fetch_min(&slots[5], v, __ATOMIC_RELAXED);
  __atomic_fetch_max(&slots[6], v, __ATOMIC_RELAXED);
  __atomic_fetch_and(&slots[7], ~v, __ATOMIC_RELAXED);
  __atomic_fetch_or(&slots[8], v, __ATOMIC_RELAXED);
  int old = __atomic_fetch_xor(&slots[9 + (t & 1u)], v, __ATOMIC_RELAXED);
  int prev = __atomic_exchange_n(&slots[11 + (t & 3u)], (int)t, __ATOMIC_RELAXED);
  int expected = 0;
  __atomic_compare_exchange_n(&slots[15], &expected, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  __atomic_fetch_add(&fsum[t & 3u], fin[g * 256u + t], __ATOMIC_RELAXED);
  WG_BARRIER();
  if (t < 16u)
    out[g * 16u + t] = slots[t] + old + prev + expected;
  if (t < 4u)
    fout[g * 4u + t] = fsum[t];
}
