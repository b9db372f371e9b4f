// Every literal form of LLVM's assembler lexer (AsmLexer::LexDigit, LexSingleQuote, LexFloatLiteral,
// LexHexFloatLiteral), one per line. test/oracle/llvm-mc-corpus.test.ts checks that Conductor accepts
// exactly the lines llvm-mc 22 accepts, and that the value of every accepted operand is the 32-bit
// value llvm-mc encodes (llvm-mc -show-encoding). A bad character literal such as 'ab' is left out:
// llvm-mc's lexer loses its place after one (and hangs when it ends the file).

// integer suffixes, every radix, any case
s_mov_b32 s0, 0x40000001L
s_mov_b32 s0, 0x40000001l
s_mov_b32 s0, 0x40000001U
s_mov_b32 s0, 0x40000001u
s_mov_b32 s0, 0x40000001UL
s_mov_b32 s0, 0x40000001ul
s_mov_b32 s0, 0x40000001uL
s_mov_b32 s0, 0x40000001LL
s_mov_b32 s0, 0x40000001ll
s_mov_b32 s0, 0x40000001ULL
s_mov_b32 s0, 0x40000001ull
s_mov_b32 s0, 0x40000001Ull
s_mov_b32 s0, 0x40000001LU
s_mov_b32 s0, 1000L
s_mov_b32 s0, 1000ULL
s_mov_b32 s0, 1000u
s_mov_b32 s0, 0b1010
s_mov_b32 s0, 0B1010
s_mov_b32 s0, 0b1010UL
s_mov_b32 s0, 0b11111111111111111111111111111111
s_mov_b32 s0, 0777
s_mov_b32 s0, 0777L
s_mov_b32 s0, 017777777777
s_mov_b32 s0, 0X1F
s_mov_b32 s0, 0xDeadBeef
s_mov_b32 s0, 0
s_mov_b32 s0, 00
s_mov_b32 s0, 0L
s_mov_b32 s0, 10U+1
s_mov_b32 s0, 0x10L<<4
s_mov_b32 s0, -0x10L
s_mov_b32 s0, ~0x0fUL
s_mov_b32 s0, 4294967295
s_mov_b32 s0, 0xffffffff80000000
s_mov_b32 s0, 0xfffffffffffffff0

// forms LLVM's AMDGPU assembler does not read as numbers
s_mov_b32 s0, 0o17
s_mov_b32 s0, 017o
s_mov_b32 s0, 0ffh
s_mov_b32 s0, 10h
s_mov_b32 s0, 1010y
s_mov_b32 s0, 089
s_mov_b32 s0, 0x
s_mov_b32 s0, 0b2
s_mov_b32 s0, 0x10Lx
s_mov_b32 s0, 100000000000000000000
s_mov_b32 s0, 0x1ffffffffffffffffLL

// character literals
s_mov_b32 s0, 'a'
s_mov_b32 s0, 'Z'
s_mov_b32 s0, '0'
s_mov_b32 s0, ' '
s_mov_b32 s0, '\n'
s_mov_b32 s0, '\t'
s_mov_b32 s0, '\r'
s_mov_b32 s0, '\b'
s_mov_b32 s0, '\f'
s_mov_b32 s0, '\''
s_mov_b32 s0, '\\'
s_mov_b32 s0, '\q'
s_mov_b32 s0, ';'
s_mov_b32 s0, '"'
s_mov_b32 s0, '/'
s_mov_b32 s0, 'a'+1

// floats
v_mov_b32 v0, 1.5
v_mov_b32 v0, 1.
v_mov_b32 v0, .5
v_mov_b32 v0, 0.5
v_mov_b32 v0, 1e1
v_mov_b32 v0, 1.e1
v_mov_b32 v0, 2E-1
v_mov_b32 v0, 1.25e+2
v_mov_b32 v0, 0x1.8p1
v_mov_b32 v0, 0x10p-4
v_mov_b32 v0, 0x.8p1
v_mov_b32 v0, -1.5
v_mov_b32 v0, 0.15915494
v_mov_b32 v0, 1.5-2
v_mov_b32 v0, 0x1.8
s_mov_b32 s0, 1.5
s_mov_b32 s0, 0x1.8p1

// lit(N): a 32-bit literal even when N is an inline constant (llvm-mc 22 takes it on GFX9 too)
s_mov_b32 s0, lit(1)
s_mov_b32 s0, lit(1.0)
s_mov_b32 s0, lit(1.5)
s_mov_b32 s0, lit(0x12345678)
s_mov_b32 s0, lit(-1)
s_mov_b32 s0, lit(2+3)
s_mov_b32 s0, lit (2)
v_mov_b32 v0, lit(1.5)
v_mov_b32 v0, lit(0x12345678)
s_mov_b32 s0, lit(lit(1))
s_mov_b32 s0, LIT(2)
s_mov_b32 s0, lit(s1)
s_mov_b32 s0, lit()
v_mov_b32 v0, -lit(1.0)
v_mov_b32 v0, |lit(1.0)|
