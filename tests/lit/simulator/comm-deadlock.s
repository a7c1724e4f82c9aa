; A ring of four iWarp cells (a 4x1 torus), each sending 40 words right before it
; reads one: every queue fills. warp-sim stops at once with the wait-for cycle, each
; waiting instruction's source line, exit status 3, and the graph for Graphviz.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --topology torus:4x1 --deadlock-dot %t.dot 2>&1 | FileCheck %s
; RUN: FileCheck --check-prefix=DOT %s < %t.dot
; RUN: warp-sim %t.img --topology=torus:4x1 --channels 3,1; test $? -eq 3
; CHECK: warp-sim: deadlock at cycle 33:
; CHECK-NEXT: wait-for cycle: cell 0 -> cell 1 -> cell 2 -> cell 3 -> cell 0
; CHECK-NEXT: cell 0 (cid 0): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 1 reads it through @xl
; CHECK: cell 3 (cid 3): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 0 reads it through @xl
; DOT: digraph deadlock {
; DOT: n0 -> n1 [label="reads @xl", color=red, penwidth=2];
; DOT: n3 -> n0 [label="reads @xl", color=red, penwidth=2];
; DOT: }
;
; On the linear array (the default) cell 3 sends to the host, reads its one word and
; halts; the others then wait on it: a chain that ends at a halted cell, no cycle.
; RUN: not warp-sim %t.img 2>&1 | FileCheck --check-prefix=LINEAR %s
; LINEAR: warp-sim: deadlock at cycle 85:
; LINEAR-NEXT: no wait-for cycle: every wait ends at a halted cell, the host or nothing
; LINEAR: cell 2 (cid 2): pc 1 (ring.s:7): waits to write @xr to local 14 (full); cell 3 reads it through @xl (cell 2 local 14 > cell 2 out XRight.0 > cell 3 in XLeft.0), which has halted
;
; The configuration must fit the program and the model.
; RUN: not warp-sim %t.img --topology torus:3x1 2>&1 | FileCheck --check-prefix=SIZE %s
; SIZE: warp-sim: {{.*}}: a 3x1 torus has 3 cells, the program runs on 4
; RUN: not warp-sim %t.img --topology mesh 2>&1 | FileCheck --check-prefix=TOPO %s
; TOPO: warp-sim: topology 'mesh': expected 'linear' or 'torus:WxH'
; RUN: not warp-sim %t.img --channels 9,9 2>&1 | FileCheck --check-prefix=CHAN %s
; CHAN: warp-sim: {{.*}}: 9 reserved and 9 open channels a bus: the 20 channels a cell has allow 1 to 5 a bus
        .model  iwarp
        .cells  0, 3
        .file   "ring.s"
        .text
        .globl  main
main:   mv r1, 40
        .loc 7
.L:     mv @xr, r1 | dbnz r1, .L
        .loc 9
        mv r2, @xl
        halt
