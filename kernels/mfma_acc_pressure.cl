// targets: gfx908 gfx90a gfx942 gfx950
// Eight live 32x32 accumulators (128 registers) in a K-loop: heavy AGPR/VGPR accumulator usage.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_acc_pressure(__global const half4 *a, __global const half4 *b,
                                __global float16 *c, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float16 acc[8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    acc[i] = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    half4 x0 = a[(uint)kk * 128u + lane], x1 = a[(uint)kk * 128u + 64u + lane];
    half4 y0 = b[(uint)kk * 256u + lane], y1 = b[(uint)kk * 256u + 64u + lane];
    half4 y2 = b[(uint)kk * 256u + 128u + lane], y3 = b[(uint)kk * 256u + 192u + lane];
    acc[0] = __builtin_amdgcn_mfma_f32_32x32x8f16(x0, y0, acc[0], 0, 0, 0);
    acc[1] = __builtin_amdgcn_mfma_f32_32x32x8f16(x0, y1, acc[1], 0, 0, 0);
    acc[2] = __builtin_amdgcn_mfma_f32_32x32x8f16(x0, y2, acc[2], 0, 0, 0);
    acc[3] = __builtin_amdgcn_mfma_f32_32x32x8f16(x0, y3, acc[3], 0, 0, 0);
    acc[4] = __builtin_amdgcn_mfma_f32_32x32x8f16(x1, y0, acc[4], 0, 0, 0);
    acc[5] = __builtin_amdgcn_mfma_f32_32x32x8f16(x1, y1, acc[5], 0, 0, 0);
    acc[6] = __builtin_amdgcn_mfma_f32_32x32x8f16(x1, y2, acc[6], 0, 0, 0);
    acc[7] = __builtin_amdgcn_mfma_f32_32x32x8f16(x1, y3, acc[7], 0, 0, 0);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
    c[(g * 8u + (uint)i) * 64u + lane] = acc[i];
}
