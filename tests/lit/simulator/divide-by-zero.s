; An integer division by zero is a run-time fault naming the cell and pc: exit 2.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img 2>&1 | FileCheck %s
; RUN: warp-sim %t.img; test $? -eq 2
; CHECK: warp-sim: fault: cell 0 (cid 0): pc 1{{.*}}division by zero
        .cells  0, 0
        .text
        .globl  main
main:
        mv r1, 7
        idiv r2, r1, r0
        halt
