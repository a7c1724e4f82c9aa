        .model  warp
        .cells  0, 1
        .text
        .globl  main
main:   nop || mov @adr, 3
        iadd r3, @adr, 0
        iadd r3, @adr, 0
        halt
