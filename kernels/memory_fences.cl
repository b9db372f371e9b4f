// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Memory ordering: release/acquire fences at several scopes, acquire loads and release stores.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void memory_fences(__global int *data, __global int *flag, __global int *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  data[i] = (int)i * 3;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  if (__builtin_amdgcn_workitem_id_x() == 0u)
    __atomic_store_n(&flag[__builtin_amdgcn_workgroup_id_x()], 1, __ATOMIC_RELEASE);
  int f = __atomic_load_n(&flag[0], __ATOMIC_ACQUIRE);
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  int d = data[i ^ 1u];
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int e = __opencl_atomic_load((__global atomic_int *)&data[i ^ 2u], memory_order_acquire,
                               memory_scope_all_svm_devices);
  __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "wavefront");
  out[i] = f + d + e;
}
