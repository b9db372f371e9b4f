// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 16- and 8-bit global loads packed into half2, ushort2 and uchar4 values (v_perm, SDWA, shifts).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void subdword_pack(__global const half *h, __global const ushort *s, __global const uchar *b,
                            __global half2 *oh, __global ushort2 *os, __global uchar4 *ob) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  half2 p = (half2)(h[i], h[i + 4096u]);
  oh[i] = p * p;
  os[i] = (ushort2)(s[i], s[i * 3u]) + (ushort2)(1, 2);
  ob[i] = (uchar4)(b[i], b[i + 1u], b[i * 2u], b[i * 5u]);
}
