; iWarp cells issue ahead a bundle left with only a pure operation whose result they
; drop and whose unit stays busy two clocks (an inner cell's `utof @fxl`): cells 1
; and 2 issue it at clock 3 with `mv r1, 5`, and when cell 3 divides by zero at clock
; 3 they take it back, as the run stepped a clock at a time (--trace) counts. The
; unit it kept busy is free again: a run to the end is that of one clock at a time.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --stats 2>&1 | FileCheck %s
; RUN: not warp-sim %t.img --stats --trace %t.json 2>&1 | FileCheck %s
; CHECK: warp-sim: fault: cell 3 (cid 3): pc 6: integer division by zero (idiv)
; CHECK-NEXT: cycles: 3
; CHECK-NEXT: cell 0 (cid 0): issued 4,
; CHECK-NEXT: cell 1 (cid 1): issued 4,
; CHECK-NEXT: cell 2 (cid 2): issued 4,
; CHECK-NEXT: cell 3 (cid 3): issued 3,
        .model  iwarp
        .cells  0, 3
        .text
        .globl  main
main:
        mv r2, cid
        isub r2, r2, 3
        bz r2, bad
        mv r1, 5
        utof @fxl, r1
        halt
bad:
        idiv r3, r1, r0
        halt
