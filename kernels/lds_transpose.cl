// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 32x32 float tile transpose through a padded __local array with a barrier.
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void lds_transpose(__global const float *in, __global float *out, uint width) {
  __local float tile[32][33];
  uint tid = __builtin_amdgcn_workitem_id_x();
  uint tx = tid & 31u, ty = tid >> 5;
  uint bx = __builtin_amdgcn_workgroup_id_x(), by = __builtin_amdgcn_workgroup_id_y();
  for (uint r = ty; r < 32u; r += 8u)
    tile[r][tx] = in[(by * 32u + r) * width + bx * 32u + tx];
  WG_BARRIER();
  for (uint r = ty; r < 32u; r += 8u)
    out[(bx * 32u + r) * width + by * 32u + tx] = tile[tx][r];
}
