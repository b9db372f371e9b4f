// mcpu: gfx906
// include-defs.inc includes include-more.inc; llvm-mc finds both with -I (this folder)
.include "include-defs.inc"
  s_mov_b32 s0, DEFS_VALUE
  add3 1, 2, 3
  s_mov_b32 s2, MORE_VALUE
  s_endpgm
