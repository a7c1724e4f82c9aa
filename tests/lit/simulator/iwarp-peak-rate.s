; Seed 000, section 1: the iWarp computation agent delivers 20 MFLOPS (single
; precision) plus 20 MIPS at 20 MHz: a float operation and an integer operation a
; clock, not more. A loop whose bundle holds a float add, a float multiply and two
; integer adds therefore runs at one iteration every 2 clocks: 1000 iterations take
; at least 2000 clocks (the adder and the multiplier each accept an operation every
; second clock; the two ALU fields share one integer unit). Every unit is then busy
; at its peak, which --stats shows as 100%.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: warp-sim --stats %t.img 2>&1 | FileCheck %s
; CHECK: cycles: 2003
; CHECK-NEXT: cell 0 (cid 0): issued 1003, stalls 0 (queue 0, unit 0), FA 99.9%, FM 99.9%, ALU 99.9%
;
; The peak is reachable: a float operation and an integer operation every clock,
; the adder and the multiplier taking turns (2000 of each in 2000 clocks; the last
; multiply lands 3 clocks after the halt).
; RUN: sed -e '/^\.L:/s/| fmul r4, r2, r2 | iadd r5, r5, 1 |/| iadd r5, r5, 1\n        fmul r4, r2, r2 |/' %s > %t.turns.s
; RUN: warp-as -o %t.turns.o %t.turns.s && warp-ld -e main -o %t.turns.img %t.turns.o
; RUN: warp-sim --stats %t.turns.img 2>&1 | FileCheck --check-prefix=TURNS %s
; TURNS: cycles: 2004
; TURNS-NEXT: cell 0 (cid 0): issued 2003, stalls 0 (queue 0, unit 0), FA 99.8%, FM 99.8%, ALU 99.8%
;
; The Warp cell issues the whole bundle every clock (two ALUs, pipelined float
; units: seed 002).
; RUN: sed -e 's/model iwarp/model warp/' %s > %t.warp.s
; RUN: warp-as -o %t.warp.o %t.warp.s && warp-ld -e main -o %t.warp.img %t.warp.o
; RUN: warp-sim --stats %t.warp.img 2>&1 | FileCheck --check-prefix=WARP %s
; WARP: cycles: 1006
        .model iwarp
        .cells 0, 0
        .text
        .globl main
main:   mv r1, 1000
        mv r2, 1.0
.L:     fadd r3, r2, r2 | fmul r4, r2, r2 | iadd r5, r5, 1 | iadd r6, r6, 1 | dbnz r1, .L
        halt
