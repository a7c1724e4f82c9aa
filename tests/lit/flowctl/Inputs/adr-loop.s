        .model  warp
        .cells  0, 3
        .flowctl
        .file   "adr-loop.s"
        .host   x, in, int, 4
        .host   y, out, int, 4
        .text
        .globl  main
main:   nop || mv r1, x | mv r2, y
        nop || mov r3, 4 | mov r4, 100
.L:     nop || hld @fxl, [r1] | lea r1, [r1, 4] | mv @adr, r4 | isub r3, r3, 1
        nop || mov @adr, r3
        iadd @xr, @xl, @adr || mov @axr, r2 | iadd r2, r2, 4
        bnz @adr, .L
        halt
