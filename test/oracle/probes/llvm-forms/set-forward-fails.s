// mcpu: gfx906
// refused: a condition needs the value where it stands (the symbol it names is set later)
  a = b + 1
.if a == 6
  s_nop 0
.endif
  b = 5
  s_endpgm
