// targets: gfx950
// Block-scaled MFMA (gfx950): 16x16x128 and 32x32x64 f8f6f4 with fp8, bf8, fp6 and fp4 formats.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_scale_f8f6f4(__global const int8 *a, __global const int8 *b,
                                __global const int *scales, __global float4 *c,
                                __global float16 *d, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 acc4 = 0.0f;
  float16 acc = 0.0f;
  for (int kk = 0; kk < k; ++kk) {
    int8 x = a[(uint)kk * 64u + lane];
    int8 y = b[(uint)kk * 64u + lane];
    int sa = scales[(uint)kk * 128u + lane], sb = scales[(uint)kk * 128u + 64u + lane];
    // formats: 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4
    acc4 = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(x, y, acc4, 0, 0, 0, sa, 0, sb);
    acc4 = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(y, x, acc4, 1, 4, 1, sb, 2, sa);
    acc = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(x, y, acc, 2, 3, 0, sa, 0, sb);
    acc = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(x, x, acc, 4, 0, 3, sa, 1, sa);
  }
  c[g * 64u + lane] = acc4;
  d[g * 64u + lane] = acc;
}
