// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Buffer instructions through a buffer resource: raw loads of 1..4 dwords and raw stores.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void buffer_load_store(__global float *src, __global float *dst, int nbytes) {
  uint t = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  __amdgpu_buffer_rsrc_t in = __builtin_amdgcn_make_buffer_rsrc(src, (short)0, nbytes, 0x27000);
  __amdgpu_buffer_rsrc_t out = __builtin_amdgcn_make_buffer_rsrc(dst, (short)0, nbytes, 0x27000);
  int off = (int)(g * 256u + t) * 16;
  float a = __builtin_amdgcn_raw_buffer_load_b32(in, off, 0, 0);
  float2 b = __builtin_bit_cast(float2, __builtin_amdgcn_raw_buffer_load_b64(in, off + 4, 16, 0));
  float4 c = __builtin_bit_cast(float4, __builtin_amdgcn_raw_buffer_load_b128(in, off, 4096, 0));
  __builtin_amdgcn_raw_buffer_store_b32(__builtin_bit_cast(uint, a * 2.0f), out, off, 0, 0);
  float2 s = b + c.xy;
  __builtin_amdgcn_raw_buffer_store_b64(__builtin_bit_cast(uint2, s), out, off + 4, 0, 0);
  __builtin_amdgcn_raw_buffer_store_b128(__builtin_bit_cast(uint4, c * a), out, off, 8192, 0);
}
