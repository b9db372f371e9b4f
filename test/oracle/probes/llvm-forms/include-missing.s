// mcpu: gfx906
// refused: the file does not exist
  s_nop 0
.include "include-absent.inc"
  s_endpgm
