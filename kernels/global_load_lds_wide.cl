// targets: gfx950
// gfx950 wide direct-to-LDS loads: global_load_lds_dwordx3 and dwordx4, then LDS reads.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void global_load_lds_wide(__global int4 *src, __global int4 *dst) {
  __local int4 stage[2 * 64];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  __builtin_amdgcn_global_load_lds(src + g * 64u + t, stage, 16, 0, 0);
  __builtin_amdgcn_global_load_lds(src + 8192u + g * 64u + t, stage + 64, 12, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  dst[g * 64u + t] = stage[63u - t] + stage[64u + ((t + 1u) & 63u)];
}
