// mcpu: gfx906 gfx90a gfx942
// The symbols the AMDGPU parser predefines from -mcpu.
.if .amdgcn.gfx_generation_number == 9
  s_mov_b32 s0, .amdgcn.gfx_generation_minor
  s_mov_b32 s1, .amdgcn.gfx_generation_stepping
.else
  .error "not gfx9"
.endif
.if .amdgcn.gfx_generation_minor == 4 && .amdgcn.gfx_generation_stepping == 2
  v_mov_b32 v0, 42
.elseif .amdgcn.gfx_generation_stepping >= 6
  v_mov_b32 v0, .amdgcn.gfx_generation_stepping * 10
.endif
  s_endpgm
