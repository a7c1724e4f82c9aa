        .model  warp
main:
        nop  || fadd r1, r2, r3
        nop  || jmp main
        nop  || ld r1, [r2, 0]
        nop  || mv r1, @xl
        nop  || mv @xr, r1
        nop  || iadd r1, cid, 1
        halt
