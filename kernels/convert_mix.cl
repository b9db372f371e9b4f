// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Conversions: int/float, f64/f32, f32/f16 (pkrtz), byte unpacking, packed norm and u16 packing.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void convert_mix(__global const uint *u, __global const float *f, __global float *of,
                          __global double *od, __global half2 *oh, __global int *oi) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  uint w = u[i];
  float x = f[i];
  float bytes = (float)(w & 0xffu) + (float)((w >> 8) & 0xffu) * 2.0f
              + (float)((w >> 16) & 0xffu) * 3.0f + (float)(w >> 24) * 4.0f;
  of[i] = bytes + (float)(int)w + (float)w;
  od[i] = (double)x * (double)(int)w + (double)w;
  oh[i] = __builtin_amdgcn_cvt_pkrtz(x, bytes);
  short2 n = __builtin_amdgcn_cvt_pknorm_i16(x, -x * 0.5f);
  ushort2 p = __builtin_amdgcn_cvt_pk_u16(w, w >> 3);
  oi[i] = (int)x + (int)(uint)(x * 3.0f) + n.x + n.y + p.x * p.y + (int)(half)x;
}
