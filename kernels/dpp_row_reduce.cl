// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Wave-wide integer sum with DPP row shifts and row broadcasts (update_dpp), lane 63 stores.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void dpp_row_reduce(__global const int *in, __global int *out) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int v = in[g * 64u + lane];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false); // row_shr:1
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false); // row_shr:2
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xe, false); // row_shr:4
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xc, false); // row_shr:8
  v += __builtin_amdgcn_update_dpp(0, v, 0x142, 0xa, 0xf, false); // row_bcast:15
  v += __builtin_amdgcn_update_dpp(0, v, 0x143, 0xc, 0xf, false); // row_bcast:31
  int total = __builtin_amdgcn_readlane(v, 63);
  if (lane == 0)
    out[g] = total;
}
