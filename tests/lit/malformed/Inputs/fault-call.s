; Unbounded recursion: the hardware return stack overflows.
        .text
        .globl  main
main:
        call main
