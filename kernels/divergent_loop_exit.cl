// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Per-lane trip counts: a loop whose exit condition is divergent (Collatz step count).
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void divergent_loop_exit(__global const uint *seed, __global uint *steps) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint n = seed[i] | 1u;
  uint count = 0;
  while (n != 1u && count < 1000u) {
    n = (n & 1u) ? 3u * n + 1u : n >> 1;
    ++count;
  }
  steps[i] = count;
}
