// mcpu: gfx906
.altmacro
.macro put dst, val
  s_mov_b32 s\dst, val
  v_mov_b32 v0, val
  s_mov_b32 s1, vdst
  s_mov_b32 s1, val&0
.endm
.set base, 5
.set vdst, 3
  put 2, 7
  put 4, %base*3+1
  put 6, % (base - 9)
  put 8, <12>
.irp reg, 10, 11
  s_mov_b32 s\reg, reg+1
.endr
.irpc c, 12
  s_add_u32 s\c, s\c, c
.endr
.noaltmacro
.macro keep x
  s_mov_b32 s\x, x
.endm
.set x, 9
  keep 3
  s_endpgm
