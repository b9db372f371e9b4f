// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Cross-lane data exchange through ds_bpermute, ds_permute and ds_swizzle.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void bpermute_rotate(__global const int *in, __global int *out, int shift) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int v = in[g * 64u + lane];
  int src = (int)((lane + (uint)shift) & 63u) * 4;
  int a = __builtin_amdgcn_ds_bpermute(src, v);
  int b = __builtin_amdgcn_ds_permute(src, v + 1);
  int c = __builtin_amdgcn_ds_swizzle(v, 0x041f); // xor lanes by 1 within groups of 32
  int d = __builtin_amdgcn_ds_swizzle(a, 0x801b); // quad permute mode
  out[g * 64u + lane] = a + b * 3 + c * 5 + d * 7;
}
