// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Divergent branches nested inside a loop with a data-dependent break.
__attribute__((reqd_work_group_size(128, 1, 1)))
__kernel void nested_divergence(__global const int *data, __global int *out, int len) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 128u + __builtin_amdgcn_workitem_id_x();
  int acc = 0;
  for (int k = 0; k < len; ++k) {
    int d = data[i * 4u + (uint)k];
    if (d < 0)
      break;
    if (d & 1) {
      acc += d * 3;
      if (acc > 1000)
        acc -= 999;
    } else {
      acc ^= d << 2;
    }
  }
  out[i] = acc;
}
