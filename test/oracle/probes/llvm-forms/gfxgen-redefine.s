// mcpu: gfx906
// refused: the predefined symbols are constants
  s_nop 0
.set .amdgcn.gfx_generation_number, 9
  s_endpgm
