; The program runs off its end: no halt, no ret.
        .file   "fall.w2"
        .text
        .globl  main
main:
        .loc    7 3
        mv r1, 1
        mv r2, 2
