// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// f16 pair dot products accumulated in f32 (v_dot2_f32_f16) in a loop with two interleaved accumulators.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void fdot2_f16(__global const half2 *a, __global const half2 *b, __global float *out,
                        int k) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float acc0 = 0.0f, acc1 = 0.0f;
  for (int j = 0; j < k; j += 2) {
    acc0 = __builtin_amdgcn_fdot2(a[i * 64u + (uint)j], b[j], acc0, false);
    acc1 = __builtin_amdgcn_fdot2(a[i * 64u + (uint)j + 1u], b[j + 1], acc1, true);
  }
  out[i] = acc0 + acc1;
}
