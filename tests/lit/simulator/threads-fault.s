; Threads give one thread's report of a fault: cells 0 to 23 divide at the same
; clock, and cell 13 divides by zero. One pass stops at cell 13, so cells 14 to 23
; have not issued their division (42 bundles, not 43); on threads they had, and the
; run is made again alone. A deadlock of 24 cells is reported alike on every count.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --stats > %t.1 2>&1
; RUN: not warp-sim %t.img --stats -j 2 > %t.2 2>&1
; RUN: not warp-sim %t.img --stats --threads=4 > %t.4 2>&1
; RUN: not warp-sim %t.img --stats -j8 > %t.8 2>&1
; RUN: diff %t.1 %t.2 && diff %t.1 %t.4 && diff %t.1 %t.8
; RUN: FileCheck %s < %t.4
; RUN: warp-sim %t.img -j 4; test $? -eq 2
; RUN: not warp-sim %t.img -j 0 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: not warp-sim %t.img --threads x 2>&1 | FileCheck %s --check-prefix=BAD
; CHECK: warp-sim: fault: cell 13 (cid 13): pc 3: integer division by zero (idiv)
; CHECK: cell 12 (cid 12): issued 43,
; CHECK-NEXT: cell 13 (cid 13): issued 42,
; CHECK-NEXT: cell 14 (cid 14): issued 42,
; CHECK: cell 23 (cid 23): issued 42,
; BAD: warp-sim: --threads wants a number of threads from 1 to 256, not '{{0|x}}'
        .cells  0, 23
        .text
        .globl  main
main:
        mv r1, 40
loop:
        dbnz r1, loop
        isub r2, cid, 13
        idiv r3, r1, r2
        halt
