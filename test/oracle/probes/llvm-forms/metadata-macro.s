// mcpu: gfx906
.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
.text
.globl probe
.p2align 8
.type probe,@function
probe:
  s_mov_b32 s0, 1
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel probe
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 8
.end_amdhsa_kernel
.altmacro
.macro KERNEL_META sgprs, vgprs
.amdgpu_metadata
---
amdhsa.version: [ 1, 0 ]
amdhsa.kernels:
  - .name: probe
    .symbol: probe.kd
    .sgpr_count: \sgprs
    .vgpr_count: \vgprs
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .max_flat_workgroup_size: 64
...
.end_amdgpu_metadata
.endm
.set probe_sgprs, 8
KERNEL_META %probe_sgprs+2, 1
