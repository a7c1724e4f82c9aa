        .file   "align.w2"
        .text
        .globl  main
main:
        .loc    5 4
        st [r0, 6], r1
        halt
