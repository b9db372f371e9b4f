// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Stream compaction inside a wave: ballot, mbcnt lo/hi, popcount and one atomic per wave.
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void ballot_compact(__global const float *in, __global float *out, __global uint *count,
                             float threshold) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  float v = in[i];
  bool keep = v > threshold;
  ulong mask = __builtin_amdgcn_ballot_w64(keep);
  uint rank = __builtin_amdgcn_mbcnt_hi((uint)(mask >> 32), __builtin_amdgcn_mbcnt_lo((uint)mask, 0u));
  uint base = 0;
  if (__builtin_amdgcn_workitem_id_x() == 0u)
    base = __atomic_fetch_add(count, (uint)__builtin_popcountl(mask), __ATOMIC_RELAXED);
  base = __builtin_amdgcn_readfirstlane(base);
  if (keep)
    out[base + rank] = v;
}
