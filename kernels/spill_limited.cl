// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Register pressure under an occupancy limit (8 waves/EU: at most 64 VGPRs) that forces spilling.
#define NACC 20
__attribute__((reqd_work_group_size(64, 1, 1), amdgpu_waves_per_eu(8, 8)))
__kernel void spill_limited(__global const float4 *x, __global const float *w,
                            __global float4 *out, int steps) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float4 acc[NACC];
#pragma unroll
  for (int a = 0; a < NACC; ++a)
    acc[a] = x[(uint)a * 4096u + i];
  for (int s = 0; s < steps; ++s) {
    float4 v = x[(uint)(s + NACC) * 4096u + i];
#pragma unroll
    for (int a = 0; a < NACC; ++a) {
      acc[a] = __builtin_elementwise_fma(v, (float4)(w[s * NACC + a]), acc[a]);
      v = v.wxyz + acc[(a + 7) % NACC];
    }
  }
#pragma unroll
  for (int a = 0; a < NACC; ++a)
    out[(uint)a * 4096u + i] = acc[a];
}
