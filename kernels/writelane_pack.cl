// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// writelane: scalar values written into chosen lanes of a vector register.
int wl(int value, int lane, int old) __asm("llvm.amdgcn.writelane.i32");

__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void writelane_pack(__global const int *scal, __global int *out) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int v = (int)lane;
  for (int i = 0; i < 8; ++i)
    v = wl(scal[g * 8u + i] + i, i * 7, v);
  out[g * 64u + lane] = v;
}
