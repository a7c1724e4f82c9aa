        .model  warp
        .cells  0, 1
        .flowctl
        .text
        .globl  main
main:   iadd r3, @adr, 1 || mov @adr, 5
        halt
