// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// DPP data movement with mov_dpp: quad permutes, row rotates, wave shifts and rotates.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void dpp_mov_shift(__global const int *in, __global int *out) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint base = __builtin_amdgcn_workgroup_id_x() * 64u * 6u;
  int v = in[__builtin_amdgcn_workgroup_id_x() * 64u + lane];
  int q = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, false);   // quad_perm:[3,2,1,0]
  int r = __builtin_amdgcn_mov_dpp(v, 0x124, 0xf, 0xf, false);  // row_ror:4
  int wl = __builtin_amdgcn_mov_dpp(v, 0x130, 0xf, 0xf, true);  // wave_shl:1
  int wr = __builtin_amdgcn_mov_dpp(v, 0x13c, 0xf, 0xf, false); // wave_ror:1
  int m = __builtin_amdgcn_mov_dpp(v, 0x140, 0xf, 0xf, false);  // row_mirror
  int h = __builtin_amdgcn_mov_dpp(v, 0x141, 0xf, 0xf, false);  // row_half_mirror
  out[base + lane] = q;
  out[base + 64u + lane] = r;
  out[base + 128u + lane] = wl;
  out[base + 192u + lane] = wr;
  out[base + 256u + lane] = m;
  out[base + 320u + lane] = h;
}
