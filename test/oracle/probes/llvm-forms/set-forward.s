// mcpu: gfx906 gfx90a
// A `.set` / `=` whose value names symbols set later: llvm-mc keeps the expression and
// evaluates it where it is used; each name is bound where the assignment stands (the value it
// has there, or, when it is not set yet, the definition it gets next). The .if blocks check
// the values Conductor computes: a wrong value leaves an instruction out or puts another in.
  a = b + 1
  b = 5
  b = 7                       // a keeps b's first definition: 6
.if a == 6
  s_mov_b32 s0, 1
.else
  s_mov_b32 s0, 0
.endif
  c = 1
  d = c + 1
  c = 5                       // d was computed with c = 1: 2
.if d == 2
  s_mov_b32 s1, 2
.endif
  .set e, f * 2
  f = g + 1
  .set g, 3                   // e = (3 + 1) * 2 = 8
  g = 10
.if e == 8
  s_mov_b32 s2, 8
.endif
  h = k + 1
  h = h + 1                   // the second h names the first: k + 2
  k = 5
.if h == 7
  s_mov_b32 s3, 7
.endif
  m = max(n, 3)
  n = 5
.rept m - 4
  s_nop 0
.endr
  p = q + 1
  q = 5
.if q == 5
  p = 0                        // redefined before any use
.endif
.if p == 0
  s_mov_b32 s4, 0
.endif
  s_endpgm
