// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Reading and writing hardware registers (s_getreg/s_setreg): FP rounding/denorm mode switches.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void mode_setreg(__global const float *x, __global float *y, __global uint *modes) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  // hwreg(HW_REG_MODE, 0, 4): the rounding-mode field
  uint old = __builtin_amdgcn_s_getreg((1 << 0) | (0 << 6) | (3 << 11));
  __builtin_amdgcn_s_setreg((1 << 0) | (0 << 6) | (3 << 11), 0x3); // round toward zero
  float v = x[i] * 3.0f + 1.0f / 3.0f;
  __builtin_amdgcn_s_setreg((1 << 0) | (0 << 6) | (3 << 11), old);
  y[i] = v;
  if (__builtin_amdgcn_workitem_id_x() == 0u)
    modes[__builtin_amdgcn_workgroup_id_x()] = old | (__builtin_amdgcn_s_getreg((1 << 0) | (4 << 6) | (3 << 11)) << 8);
}
