; A Warp cell issues a nop bundle a clock early (warp_clock's issue_ahead): cells 1
; to 3 issue clock 6's nop at clock 5, and cell 0 divides by zero at clock 6 before
; one pass reaches them, so it takes their nop back (6 bundles each, not 7). A run
; stopped at its limit has issued nothing ahead past it.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --stats 2>&1 | FileCheck %s
; RUN: not warp-sim %t.img --stats --max-cycles 4 2>&1 | FileCheck %s --check-prefix=LIMIT
; CHECK: warp-sim: fault: cell 0 (cid 0): pc 8: integer division by zero (idiv)
; CHECK-NEXT: cycles: 6
; CHECK-NEXT: cell 0 (cid 0): issued 6,
; CHECK-NEXT: cell 1 (cid 1): issued 6,
; CHECK-NEXT: cell 2 (cid 2): issued 6,
; CHECK-NEXT: cell 3 (cid 3): issued 6,
; LIMIT: stopped at the cycle limit (4 cycles)
; LIMIT-NEXT: cycles: 4
; LIMIT-NEXT: cell 0 (cid 0): issued 4,
; LIMIT-NEXT: cell 1 (cid 1): issued 4,
        .cells  0, 3
        .text
        .globl  main
main:
        mv r2, cid
        mv r1, 5
        nop
        nop
        nop
        bz r2, bad
        nop
        halt
bad:
        idiv r3, r1, r0
        halt
