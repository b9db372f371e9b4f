// mcpu: gfx906
// refused: the assertion fails at the call
.macro check_that cond
  .if !\cond
    .error "check failed"
  .endif
.endm
  s_nop 0
  check_that(2 + 2 == 5)
  s_endpgm
