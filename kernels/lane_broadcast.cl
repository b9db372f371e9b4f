// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// readfirstlane and readlane (constant and uniform lane index) feeding scalar and vector math.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void lane_broadcast(__global const int *in, __global int *out, int src_lane) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int v = in[g * 64u + lane];
  int first = __builtin_amdgcn_readfirstlane(v);
  int l7 = __builtin_amdgcn_readlane(v, 7);
  int ls = __builtin_amdgcn_readlane(v * 3, src_lane & 63);
  int s = first * l7 + (ls ^ 0x55);
  out[g * 64u + lane] = v + s;
}
