; A load past the end of data memory on the second cell only (after the
; multiply's latency).
        .file   "load.w2"
        .cells  0, 1
        .text
        .globl  main
main:
        .loc    12 9
        imul r1, cid, 100000
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        nop
        ld r2, [r1, 0]
        halt
