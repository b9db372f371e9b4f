// mcpu: gfx906
.macro check_that cond
  .if !\cond
    .error "check failed"
  .endif
.endm
.macro twice x
  s_add_u32 s0, s0, \x
  s_add_u32 s0, s0, \x
.endm
  check_that(1 == 1)
  twice(3)
  check_that(4 > 3)
  s_endpgm
