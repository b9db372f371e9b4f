// targets: gfx942 gfx950
// Sparse (2:4 structured) MFMA: smfmac f16, bf16, i8 and fp8 with per-lane sparsity indices.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void smfmac_sparse(__global const half4 *ah, __global const half8 *bh,
                            __global const short4 *abf, __global const short8 *bbf,
                            __global const int2 *a8, __global const int4 *b8,
                            __global const int *idx, __global float4 *c, __global float16 *d,
                            __global int4 *e, int k) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  float4 acc = 0.0f, accf8 = 0.0f;
  float16 accb = 0.0f;
  int4 acci = 0;
  for (int kk = 0; kk < k; ++kk) {
    uint o = (uint)kk * 64u + lane;
    int ix = idx[o];
    acc = __builtin_amdgcn_smfmac_f32_16x16x32_f16(ah[o], bh[o], acc, ix, 0, 0);
    accb = __builtin_amdgcn_smfmac_f32_32x32x16_bf16(abf[o], bbf[o], accb, ix, 0, 0);
    acci = __builtin_amdgcn_smfmac_i32_16x16x64_i8(a8[o], b8[o], acci, ix, 0, 0);
    accf8 = __builtin_amdgcn_smfmac_f32_16x16x64_fp8_fp8(a8[o], b8[o], accf8, ix, 0, 0);
  }
  c[g * 64u + lane] = acc + accf8;
  d[g * 64u + lane] = accb;
  e[g * 64u + lane] = acci;
}
