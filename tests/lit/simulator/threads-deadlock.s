; A deadlock of 24 cells on threads: each receives from the right before sending,
; and the last cell's right is the host, which is never fed. The report, the
; statistics and the wait-for graph are one thread's.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --stats --deadlock-dot %t.1.dot > %t.1 2>&1
; RUN: not warp-sim %t.img --stats -j 3 --deadlock-dot %t.3.dot > %t.3 2>&1
; RUN: diff %t.1 %t.3 && diff %t.1.dot %t.3.dot
; RUN: FileCheck %s < %t.3
; CHECK: deadlock at cycle {{[0-9]+}}
; CHECK: cell 23{{.*}}xr
        .cells  0, 23
        .text
        .globl  main
main:
        mv r1, 5
loop:
        dbnz r1, loop
        mv r1, @xr
        mv @xl, r1
        halt
