// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Direct global-to-LDS loads (global_load ... lds / global_load_lds_dword) and buffer loads to LDS.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void global_load_lds_dword(__global int *src, __global int *dst) {
  __local int stage[2 * 64];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  __builtin_amdgcn_global_load_lds(src + g * 64u + t, stage, 4, 0, 0);
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc((__global void *)src, (short)0,
                                                               1 << 20, 0x27000);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r, stage + 64, 4, (int)(g * 256u + t * 4u), 0, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  dst[g * 64u + t] = stage[63u - t] + stage[64u + ((t + 1u) & 63u)];
}
