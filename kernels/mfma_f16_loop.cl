// targets: gfx908 gfx90a gfx942 gfx950
// f16 MFMA K-loop: 32x32x8f16 and 16x16x16f16 with half4 operands loaded as 64-bit values.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_f16_loop(__global const half4 *a, __global const half4 *b, __global float16 *c,
                            __global float4 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float16 acc = c[g * 64u + lane];
  float4 acc4 = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    half4 x = a[(uint)kk * 64u + lane];
    half4 y = b[(uint)kk * 64u + lane];
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(x, y, acc, 0, 0, 0);
    acc4 = __builtin_amdgcn_mfma_f32_16x16x16f16(x, y, acc4, 0, 0, 0);
  }
  c[g * 64u + lane] = acc;
  d[g * 64u + lane] = acc4;
}
