// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Tiled SGEMM: 64x64 output tile per 16x16 work-group, 4x4 outputs per work-item, K-slices of A and B in LDS.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(16, 16, 1)))
__kernel void matmul_lds_f32(__global const float *A, __global const float *B, __global float *C,
                             uint n) {
  __local float As[16][64];
  __local float Bs[16][64];
  uint tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  uint row = __builtin_amdgcn_workgroup_id_y() * 64u + ty * 4u;
  uint col = __builtin_amdgcn_workgroup_id_x() * 64u + tx * 4u;
  float4 acc0 = 0.0f, acc1 = 0.0f, acc2 = 0.0f, acc3 = 0.0f;
  for (uint k0 = 0; k0 < n; k0 += 16u) {
    for (uint r = 0; r < 4u; ++r) {
      As[tx][ty * 4u + r] = A[(row + r) * n + k0 + tx];
      Bs[ty][tx * 4u + r] = B[(k0 + ty) * n + col + r];
    }
    WG_BARRIER();
#pragma unroll
    for (uint k = 0; k < 16u; ++k) {
      float4 a = *(__local float4 *)&As[k][ty * 4u];
      float4 b = *(__local float4 *)&Bs[k][tx * 4u];
      acc0 = __builtin_elementwise_fma((float4)(a.x), b, acc0);
      acc1 = __builtin_elementwise_fma((float4)(a.y), b, acc1);
      acc2 = __builtin_elementwise_fma((float4)(a.z), b, acc2);
      acc3 = __builtin_elementwise_fma((float4)(a.w), b, acc3);
    }
    WG_BARRIER();
  }
  *(__global float4 *)&C[row * n + col] = acc0;
  *(__global float4 *)&C[(row + 1u) * n + col] = acc1;
  *(__global float4 *)&C[(row + 2u) * n + col] = acc2;
  *(__global float4 *)&C[(row + 3u) * n + col] = acc3;
}
