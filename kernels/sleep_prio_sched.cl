// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Scheduling hints: s_sleep, s_setprio, sched_barrier, sched_group_barrier, wave_barrier, s_memtime.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void sleep_prio_sched(__global const float *x, __global float *y, __global ulong *t) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  ulong t0 = __builtin_amdgcn_s_memtime();
  __builtin_amdgcn_s_setprio(3);
  float a = x[i], b = x[i + 256u], c = x[i + 512u], d = x[i + 768u];
  float r0 = a * b + c, r1 = b * c + d, r2 = c * d + a, r3 = d * a + b;
  // two loads, then two VALU, then the rest in any order
  __builtin_amdgcn_sched_group_barrier(0x20, 2, 0);
  __builtin_amdgcn_sched_group_barrier(0x2, 2, 0);
  __builtin_amdgcn_sched_barrier(0);
  __builtin_amdgcn_s_setprio(0);
  __builtin_amdgcn_s_sleep(2);
  __builtin_amdgcn_wave_barrier();
  y[i] = r0 + r1 * r2 - r3;
  ulong t1 = __builtin_amdgcn_s_memrealtime();
  if (__builtin_amdgcn_workitem_id_x() == 0u)
    t[__builtin_amdgcn_workgroup_id_x()] = t1 - t0;
}
