// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Software-pipelined loop: global loads for the next tile overlap LDS reads of the current one.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void lds_double_buffer(__global const float4 *src, __global float *dst, uint tiles) {
  __local float4 buf[2][256];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float acc = 0.0f;
  buf[0][t] = src[g * tiles * 256u + t];
  WG_BARRIER();
  for (uint k = 0; k < tiles; ++k) {
    uint cur = k & 1u;
    float4 next = (k + 1u < tiles) ? src[(g * tiles + k + 1u) * 256u + t] : (float4)(0.0f);
    float4 a = buf[cur][(t + 1u) & 255u], b = buf[cur][(t + 17u) & 255u];
    acc += __builtin_elementwise_fma(a, b, (float4)(acc)).x + a.w * b.z;
    buf[cur ^ 1u][t] = next;
    WG_BARRIER();
  }
  dst[g * 256u + t] = acc;
}
