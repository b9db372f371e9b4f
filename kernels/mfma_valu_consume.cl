// targets: gfx908 gfx90a gfx942 gfx950
// MFMA results read by VALU ops (scale, relu, convert), fed back as srcC, and stored.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_valu_consume(__global const half4 *a, __global const half4 *b,
                                __global half4 *out, __global float *rowmax, float scale, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 acc = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a[(uint)kk * 64u + lane], b[(uint)kk * 64u + lane],
                                                acc, 0, 0, 0);
    // VALU reads the MFMA result right away and writes the next srcC
    acc = __builtin_elementwise_max(acc * scale, (float4)(0.0f));
  }
  float m = __builtin_fmaxf(__builtin_fmaxf(acc.x, acc.y), __builtin_fmaxf(acc.z, acc.w));
  float4 second = __builtin_amdgcn_mfma_f32_16x16x16f16(a[lane], b[lane], acc, 0, 0, 0);
  out[g * 64u + lane] = __builtin_convertvector(second, half4);
  rowmax[g * 64u + lane] = m;
}
