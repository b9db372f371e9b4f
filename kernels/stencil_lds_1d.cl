// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 1D 9-point stencil: tile plus halo loaded into LDS, then weighted sum of neighbours.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void stencil_lds_1d(__global const float *in, __global float *out, __constant float *w) {
  __local float tile[256 + 8];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  uint base = g * 256u;
  tile[t + 4u] = in[base + t + 4u];
  if (t < 4u) {
    tile[t] = in[base + t];
    tile[260u + t] = in[base + 260u + t];
  }
  WG_BARRIER();
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 9; ++k)
    s = __builtin_fmaf(w[k], tile[t + (uint)k], s);
  out[base + t] = s;
}
