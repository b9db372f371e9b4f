// targets: gfx906 gfx908 gfx90a gfx942 gfx950
// Floating point global atomics: f32 add (hardware or compare-swap loop), f64 add, f32 min/max.
__attribute__((reqd_work_group_size(256, 1, 1)))
__kernel void global_atomic_float(__global const float *x, __global const double *y,
                                  __global float *fsum, __global double *dsum) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 256u + __builtin_amdgcn_workitem_id_x();
  float v = x[i];
  __hip_atomic_fetch_add(&fsum[i & 3u], v, __ATOMIC_RELAXED, 3 /* agent */);
  __atomic_fetch_min(&fsum[4], v, __ATOMIC_RELAXED);
  __atomic_fetch_max(&fsum[5], v, __ATOMIC_RELAXED);
  __hip_atomic_fetch_add(&dsum[i & 1u], y[i], __ATOMIC_RELAXED, 3 /* agent */);
}
