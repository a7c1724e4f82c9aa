        .model  warp
        .cells  0, 0
        .text
        .globl  main
main:   nop || mov r1, 9
        nop || mov @adr, r1 | mov @adr, r1 | mv @adr, r1
        nop
        nop
        halt
