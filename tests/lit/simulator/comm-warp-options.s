; The Warp model has no communication agent: a torus or a channel allocation is an
; error, and so are iWarp's agent operands in its code.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --topology torus:2x1 2>&1 | FileCheck --check-prefix=TORUS %s
; TORUS: warp-sim: {{.*}}: the warp model is a linear array: a torus needs -mcpu=iwarp
; RUN: not warp-sim %t.img --channels 2,1 2>&1 | FileCheck --check-prefix=CHAN %s
; CHAN: warp-sim: {{.*}}: --channels needs an iWarp image (-mcpu=iwarp)
; RUN: not warp-sim %t.img 2>&1 | FileCheck --check-prefix=FAULT %s
; RUN: warp-sim %t.img; test $? -eq 2
; FAULT: warp-sim: fault: cell 0 (cid 0): pc 0: iWarp's communication agent (@g0, @g1, control registers, creq ...) is not on the Warp model: compile with -mcpu=iwarp
        .model  warp
        .cells  0, 1
        .text
        .globl  main
main:   mv %gi0, 3
        halt
