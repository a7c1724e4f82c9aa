; Seed 000, section 4: each of the four internal buses between the computation and
; the communication agent (two in, two out) carries 40 MB/s, a word every second
; clock at 20 MHz. A loop that writes a word to gate @g0 and reads it back through
; the same channel moves one word each way an iteration: 1000 iterations take at
; least 2000 clocks, the bundle waiting for the gate's bus every other clock (a unit
; stall): 2006 clocks (the reproducer gaterate.s; 1004 with a word a clock).
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: warp-sim --stats %t.img 2>&1 | FileCheck %s
; CHECK: cycles: 2006
; CHECK-NEXT: cell 0 (cid 0): issued 1005, stalls 1001 (queue 0, unit 1001)
        .model iwarp
        .cells 0, 0
        .text
        .globl main
main:   mv %go0, 12 | mv %gi0, 12
        mv r1, 1000
        mv @g0, 0
.L:     mv @g0, r1 | iadd r2, r2, @g0 | dbnz r1, .L
        iadd r2, r2, @g0
        halt
