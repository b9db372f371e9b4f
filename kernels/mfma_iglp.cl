// targets: gfx908 gfx90a gfx942 gfx950
// MFMA block with LDS operand reads under iglp_opt scheduling strategies 0 and 1.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_iglp(__global const half4 *A, __global float4 *C, int n) {
  __local half4 tile[8][64];
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  for (uint s = 0; s < 8u; ++s)
    tile[s][lane] = A[g * 512u + s * 64u + lane];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  float4 acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int it = 0; it < n; ++it) {
    __builtin_amdgcn_iglp_opt(0);
#pragma unroll
    for (uint s = 0; s < 8u; ++s)
      acc[s & 3u] = __builtin_amdgcn_mfma_f32_16x16x16f16(tile[s][lane], tile[7u - s][lane ^ (uint)it],
                                                         acc[s & 3u], 0, 0, 0);
  }
  float4 r = acc[0] + acc[1];
  __builtin_amdgcn_iglp_opt(1);
  r = __builtin_amdgcn_mfma_f32_16x16x16f16(tile[0][lane], tile[1][lane], r, 0, 0, 0);
  C[g * 64u + lane] = r + acc[2] + acc[3];
}
