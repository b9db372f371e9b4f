// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Uniform table lookups from __constant memory: wide scalar loads (dwordx4/x8/x16) and SALU math.
typedef struct { float m[16]; int k[8]; uint flags; } params_t;
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void scalar_const_table(__constant params_t *p, __global const float4 *x,
                                 __global float4 *y) {
  uint g = __builtin_amdgcn_workgroup_id_x();
  uint i = g * 256u + __builtin_amdgcn_workitem_id_x();
  float4 v = x[i];
  __constant params_t *q = &p[g & 3u];
  float4 r;
  r.x = q->m[0] * v.x + q->m[1] * v.y + q->m[2] * v.z + q->m[3] * v.w;
  r.y = q->m[4] * v.x + q->m[5] * v.y + q->m[6] * v.z + q->m[7] * v.w;
  r.z = q->m[8] * v.x + q->m[9] * v.y + q->m[10] * v.z + q->m[11] * v.w;
  r.w = q->m[12] * v.x + q->m[13] * v.y + q->m[14] * v.z + q->m[15] * v.w;
  int s = 0;
  for (int k = 0; k < 8; ++k)
    s += q->k[k] << k;
  if (q->flags & 1u)
    r *= (float)s;
  y[i] = r;
}
