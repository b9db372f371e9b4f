// mcpu: gfx906
.set flag, 0
.set other, 2
.if(flag)
  s_mov_b32 s0, 1
.elseif(other == 2)
  s_mov_b32 s0, 2
.else
  s_mov_b32 s0, 3
.endif
.if(flag + other)*2 == 4
  s_mov_b32 s1, 4
.endif
  s_endpgm
