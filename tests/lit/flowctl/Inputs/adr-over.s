        .model  warp
        .cells  0, 1
        .flowctl
        .text
        .globl  main
main:   mov r1, 65 || mov r2, 7
.L:     dbnz r1, .L || mov @adr, r2 | mov @adr, r2
        iadd r3, @adr, 0
        halt
