        .text
        .globl  main
main:
        ret
