// Conditional assembly and repeat blocks as hand-written kernels use them. The oracle compares the
// instruction sequence llvm-mc 22 assembles (register and value of each s_mov_b32) with Conductor's
// expansion (test/oracle/llvm-mc-corpus.test.ts).
.set A, 3
.if A == 3
s_mov_b32 s1, 1
.elseif A == 4
s_mov_b32 s1, 2
.else
s_mov_b32 s1, 3
.endif
.if A > 5
s_mov_b32 s2, 1
.elseif A > 2
s_mov_b32 s2, 2
.else
s_mov_b32 s2, 3
.endif
.ifdef A
s_mov_b32 s3, 1
.endif
.ifndef B
s_mov_b32 s3, 2
.endif
.ifnotdef A
s_mov_b32 s3, 3
.endif
.ifdef lab
s_mov_b32 s3, 4
.endif
lab:
.ifdef lab
s_mov_b32 s3, 5
.endif
.if 0
.if 1
s_mov_b32 s4, 99
.else
s_mov_b32 s4, 98
.endif
.else
s_mov_b32 s4, 1
.endif
.ifeq A-3
s_mov_b32 s5, 1
.endif
.ifne A-3
s_mov_b32 s5, 2
.endif
.ifgt A
s_mov_b32 s5, 3
.endif
.ifge -1
s_mov_b32 s5, 4
.endif
.iflt -1
s_mov_b32 s5, 5
.endif
.ifle 0
s_mov_b32 s5, 6
.endif
.ifb
s_mov_b32 s6, 1
.endif
.ifnb x
s_mov_b32 s6, 2
.endif
.ifc a, a
s_mov_b32 s6, 3
.endif
.ifnc a,b
s_mov_b32 s6, 4
.endif
.ifeqs "a", "a"
s_mov_b32 s6, 5
.endif
.ifnes "a", "a"
s_mov_b32 s6, 6
.endif
.rept 3
s_mov_b32 s7, \+
.endr
.rep 2
s_mov_b32 s8, 7
.endr
.rept 0
s_mov_b32 s8, 8
.endr
.rept A - 1
s_mov_b32 s9, 9
.endr
.irp r, 10, 11 12
s_mov_b32 s\r, \r
.endr
.irpc c, 345
s_mov_b32 s1\c, \+
.endr
.rept 2
.irp x, 1, 2
s_mov_b32 s16, \x
.endr
.endr
.irp x, 1, 2
.rept \x
s_mov_b32 s17, \x
.endr
.endr
.rept 2
.rept 2
s_mov_b32 s18, \+
.endr
.endr
.macro M a
.if \a > 1
s_mov_b32 s19, \a
.else
s_mov_b32 s19, 100
.endif
.rept \a
s_mov_b32 s20, \+
.endr
.endm
M 1
M 2
.macro N
s_mov_b32 s21, \+
s_mov_b32 s22, \@
.endm
N
N
.irp x, 1, 2
s_mov_b32 s23, \@
.endr
.set B, 7
.ifdef B
s_mov_b32 s24, B
.endif
.macro S a b
s_mov_b32 s\a, \b
.endm
S 25 2+3
S 25 2 + 3
S 25 2+ 3
S 25, "4"
S 25 (2 + 3)
1:
s_mov_b32 s26, 1b-1b
"quoted sym" = 27
s_mov_b32 s27, "quoted sym"
.macro X a
s_mov_b32 s28, \a
.if \a > 1
.exitm
.endif
s_mov_b32 s29, \a
.endm
X 1
X 2
.rept 3
s_mov_b32 s30, \+
.if \+ == 1
.exitm
.endif
.endr
.purgem X
.macro X a
s_mov_b32 s31, \a
.endm
X 5
.if 0
.error "never"
.endif
