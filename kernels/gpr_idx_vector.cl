// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// A dynamically indexed private vector kept in VGPRs: LLVM reads and writes it through the VGPR indexing mode.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void gpr_idx_vector(__global const float *in, __global const double *din, __global float *out,
                             __global double *dout, int j) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float v[16];
  for (int k = 0; k < 16; ++k) v[k] = in[i * 16u + (uint)k];
  v[j & 15] = v[(j + 3) & 15] * 2.0f;
  float s = 0.0f;
  for (int k = 0; k < 16; ++k) s += v[k] * (float)k;
  out[i] = s + v[(j >> 4) & 15];
  double d[8];
  for (int k = 0; k < 8; ++k) d[k] = din[i * 8u + (uint)k];
  d[(j >> 8) & 7] += 1.0;
  dout[i] = d[0] + d[(j >> 12) & 7] + d[7];
}
