// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// 3D indexing: workgroup ids x/y/z, workitem ids x/y/z, and sizes from the dispatch packet.
__kernel void workgroup_dims(__global uint *out) {
  __constant ushort *pkt = (__constant ushort *)__builtin_amdgcn_dispatch_ptr();
  uint lx = pkt[2], ly = pkt[3], lz = pkt[4]; // workgroup_size_x/y/z
  uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y(),
       gz = __builtin_amdgcn_workgroup_id_z();
  uint tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y(),
       tz = __builtin_amdgcn_workitem_id_z();
  uint flat = (tz * ly + ty) * lx + tx;
  uint group = (gz * 64u + gy) * 64u + gx;
  __constant uint *implicit = (__constant uint *)__builtin_amdgcn_implicitarg_ptr();
  out[group * lx * ly * lz + flat] = flat ^ (group << 10) ^ implicit[0];
}
