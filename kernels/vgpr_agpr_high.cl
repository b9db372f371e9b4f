// targets: gfx908 gfx90a gfx942 gfx950
// High VGPRs and AGPRs together: 64 live float4 accumulators and four 32x32 MFMA results overflow 256 VGPRs into AGPRs.
typedef float float16_t __attribute__((ext_vector_type(16)));
#define NACC 64
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void vgpr_agpr_high(__global const float4 *x, __global const float *w, __global const float *a,
                             __global float4 *out, __global float16_t *mout, int steps) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float4 acc[NACC];
#pragma unroll
  for (int k = 0; k < NACC; ++k) acc[k] = (float4)((float)k);
  float16_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  for (int s = 0; s < steps; ++s) {
    float4 v = x[(uint)s * 4096u + i];
    float av = a[(uint)s * 64u + i], bv = a[(uint)s * 64u + i + 4096u];
    m0 = __builtin_amdgcn_mfma_f32_32x32x2f32(av, bv, m0, 0, 0, 0);
    m1 = __builtin_amdgcn_mfma_f32_32x32x2f32(bv, av, m1, 0, 0, 0);
    m2 = __builtin_amdgcn_mfma_f32_32x32x2f32(av, av, m2, 0, 0, 0);
    m3 = __builtin_amdgcn_mfma_f32_32x32x2f32(bv, bv, m3, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < NACC; ++k) {
      float c = w[s * NACC + k];
      acc[k] = __builtin_elementwise_fma(v, (float4)(c), acc[k]);
      v = v.yzwx;
    }
  }
#pragma unroll
  for (int k = 0; k < NACC; ++k) out[(uint)k * 4096u + i] = acc[k];
  mout[i * 4u] = m0; mout[i * 4u + 1u] = m1; mout[i * 4u + 2u] = m2; mout[i * 4u + 3u] = m3;
}
