; A jump to a bundle past the end of program memory's program.
        .file   "jump.w2"
        .text
        .globl  main
main:
        .loc    3 1
        mv r1, 7
        .loc    4 2
        jmp 9000
