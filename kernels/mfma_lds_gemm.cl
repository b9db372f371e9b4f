// targets: gfx908 gfx90a gfx942 gfx950
// LDS-staged f16 GEMM tile for one wave: global->LDS copies, ds_read operands, MFMA with sched groups.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// Work-group barrier with the LDS release/acquire fences that make it a real barrier.
#define WG_BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
  __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void mfma_lds_gemm(__global const half4 *A, __global const half4 *B, __global float16 *C,
                            int ktiles) {
  __local half4 As[4][64];
  __local half4 Bs[4][64];
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float16 acc0 = 0.0f, acc1 = 0.0f;
  for (int kt = 0; kt < ktiles; ++kt) {
    uint base = ((uint)kt * 4u) * 64u + lane;
    for (uint s = 0; s < 4u; ++s) {
      As[s][lane] = A[base + s * 64u];
      Bs[s][lane] = B[base + s * 64u];
    }
    WG_BARRIER();
    for (uint s = 0; s < 4u; s += 2u) {
      half4 a0 = As[s][lane], b0 = Bs[s][lane];
      half4 a1 = As[s + 1u][lane ^ 32u], b1 = Bs[s + 1u][lane ^ 32u];
      acc0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a0, b0, acc0, 0, 0, 0);
      acc1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a1, b1, acc1, 0, 0, 0);
      acc0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a1, b0, acc0, 0, 0, 0);
      acc1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a0, b1, acc1, 0, 0, 0);
      // interleave: 1 MFMA, 2 DS reads, 1 MFMA, 2 DS reads
      __builtin_amdgcn_sched_group_barrier(0x008, 1, 0);
      __builtin_amdgcn_sched_group_barrier(0x100, 2, 0);
      __builtin_amdgcn_sched_group_barrier(0x008, 1, 0);
      __builtin_amdgcn_sched_group_barrier(0x100, 2, 0);
    }
    WG_BARRIER();
  }
  C[g * 128u + lane] = acc0;
  C[g * 128u + 64u + lane] = acc1;
}
