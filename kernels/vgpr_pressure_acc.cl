// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// High VGPR pressure: 52 live float4 accumulators updated in a loop (over 200 VGPRs).
#define NACC 52
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void vgpr_pressure_acc(__global const float4 *x, __global const float *w,
                                __global float4 *out, int steps) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float4 acc[NACC];
#pragma unroll
  for (int a = 0; a < NACC; ++a)
    acc[a] = (float4)((float)a);
  for (int s = 0; s < steps; ++s) {
    float4 v = x[(uint)s * 4096u + i];
#pragma unroll
    for (int a = 0; a < NACC; ++a) {
      float c = w[s * NACC + a];
      acc[a] = __builtin_elementwise_fma(v, (float4)(c), acc[a]);
      v = v.yzwx;
    }
  }
#pragma unroll
  for (int a = 0; a < NACC; ++a)
    out[(uint)a * 4096u + i] = acc[a];
}
