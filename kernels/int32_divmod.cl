// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 32-bit signed and unsigned division and remainder by run-time divisors (expanded in VALU).
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void int32_divmod(__global const int *a, __global const int *b, __global int *q,
                           __global int *r, uint ud) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  int x = a[i], y = b[i] | 1;
  q[i] = x / y + (int)((uint)x / ud);
  r[i] = x % y + (int)((uint)x % (ud + 3u));
}
