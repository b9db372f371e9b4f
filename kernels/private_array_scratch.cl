// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// A dynamically indexed private array: lives in scratch memory (buffer or scratch instructions).
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void private_array_scratch(__global const int *idx, __global const float *in,
                                    __global float *out) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float buf[48];
  for (int k = 0; k < 48; ++k)
    buf[k] = in[i * 48u + (uint)k];
  float s = 0.0f;
  for (int k = 0; k < 16; ++k)
    s += buf[idx[i * 16u + (uint)k] % 48];
  buf[idx[i] & 31] = s;
  out[i] = buf[(idx[i + 1u] & 15) + 32] + s;
}
