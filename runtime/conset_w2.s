; The W2 statements of phased connection sets (docs/w2.md, section 8.5) call these.
; W2 functions take no arguments, so the compiled program passes them in its own
; global w2_cs_args (which the frontend defines in every program that instantiates
; a set): [0] the set's plan, [1] its send table, [2] its receive table, each
; table a block (address, words) a slot, which sendcon and receivecon filled.
; warp-cc links this and conset.o into such programs.
        .model  iwarp
        .file   "conset_w2.s"
        .text
        .globl  w2_cs_instantiate
        .globl  w2_cs_range

w2_cs_instantiate:
        ld r1, [r0, w2_cs_args+4] | ld r2, [r0, w2_cs_args+8]
        ld r3, [r0, w2_cs_args]
        nop
        jmp cs_run_posted

; A connection's index outside its declared range: a fault (a misaligned load)
; that names this line.
w2_cs_range:
        .loc    22
        ld r1, [r0, 2]
        ret
