// mcpu: gfx906
// refused: %expr must be a number where the call stands
.altmacro
.macro put val
  s_mov_b32 s0, \val
.endm
  s_nop 0
  put %later
.set later, 3
  s_endpgm
