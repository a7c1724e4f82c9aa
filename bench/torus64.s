; Communication-agent benchmark: the 8x8 iWarp torus, every cell opening a pathway
; to the cell two to its right (forwarded by the one between) and streaming 2000
; words along it while it reads the pathway that arrives from two to its left. Each
; XRight bus carries two pathways (a word each every 4 clocks at most); each cell
; writes a word and then reads one, so the loop runs at the pathways' latency.
;   warp-as -o torus64.o torus64.s && warp-ld -e main -o torus64.img torus64.o
;   bench-simspeed torus64.img --topology torus:8x8
        .model  iwarp
        .cells  0, 63
        .text
        .globl  main
main:   and r1, cid, 7
        shr r2, cid, 3
        iadd r3, r1, 2
        and r3, r3, 7 | shl r4, r2, 3
        or r5, r3, r4
        creq r6, 0, 0
        nop
        nop
        and r7, r6, 255
        mv %go0, r7
        pbegin @g0, r5
        evwait r8
        and r9, r8, 255
        mv %gi0, r9
        mv r10, 2000
.L:     mv @g0, r10
        iadd r11, r11, @g0 | dbnz r10, .L
        pend @g0, 0
        evwait r12
        halt
