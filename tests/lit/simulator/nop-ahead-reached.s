; A clock that stops part-way takes back the nops the cells it reached issued for
; the next clock: cells 0 to 2 issue `mv r1, 5` at clock 3 and the nop of clock 4
; with it; cell 3 divides by zero at clock 3, so the run stops there and they issued
; 4 bundles, not 5, as the run stepped a clock at a time (--trace) counts.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --stats 2>&1 | FileCheck %s
; RUN: not warp-sim %t.img --stats --trace %t.json 2>&1 | FileCheck %s
; CHECK: warp-sim: fault: cell 3 (cid 3): pc 6: integer division by zero (idiv)
; CHECK-NEXT: cycles: 3
; CHECK-NEXT: cell 0 (cid 0): issued 4,
; CHECK-NEXT: cell 1 (cid 1): issued 4,
; CHECK-NEXT: cell 2 (cid 2): issued 4,
; CHECK-NEXT: cell 3 (cid 3): issued 3,
        .cells  0, 3
        .text
        .globl  main
main:
        mv r2, cid
        isub r2, r2, 3
        bz r2, bad
        mv r1, 5
        nop
        halt
bad:
        idiv r3, r1, r0
        halt
