; Two cells that each receive from the right before sending: cell 1's right side
; is the host, which is never fed, so nothing can move. The run stops at once
; with the wait-for report and exit status 3.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img 2>&1 | FileCheck %s
; RUN: warp-sim %t.img; test $? -eq 3
; CHECK: deadlock at cycle {{[0-9]+}}
; CHECK-DAG: cell 0{{.*}}xr
; CHECK-DAG: cell 1{{.*}}xr
        .cells  0, 1
        .text
        .globl  main
main:
        mv r1, @xr
        mv @xl, r1
        halt
