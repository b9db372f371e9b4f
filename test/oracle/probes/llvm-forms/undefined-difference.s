// mcpu: gfx942
// refused: a subtracted symbol defined nowhere (when the object is written)
.text
probe:
  s_endpgm
.Lend:
.section .debug_info,"",@progbits
  .long .Lend-probe
  .long probe-.Lmissing
  .long 8+.Lend - .Lgone
