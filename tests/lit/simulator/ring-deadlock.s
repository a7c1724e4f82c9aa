; The ring deadlock of issue 13 (../shared/reproducers/ring_deadlock.s): on an 8x1
; torus with one open-pool channel a bus, cells 0 to 6 each open a pathway four cells
; on, spool its words out and send its end marker when the spool stops. Each begin
; marker waits in the next cell's agent for the XRight channel that cell's own
; pathway holds; cells 4 to 6 turn at cell 7 onto the reservation pool, which this
; array does not have, as cell 7's own request wants. A cell's events come from its
; spool or from a pathway to it: cell 6's pathway from cell 2 waits in cell 3's agent,
; so the waits close through the channels cells 3 to 6 hold. The report named no
; cycle before.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: not warp-sim %t.img --topology torus:8x1 --channels 0,1 --deadlock-dot %t.dot 2>&1 | FileCheck %s
; RUN: FileCheck --check-prefix=DOT %s < %t.dot
; RUN: warp-sim %t.img --topology torus:8x1 --channels 0,1; test $? -eq 3
; CHECK: warp-sim: deadlock at cycle 73:
; CHECK-NEXT: wait-for cycle: agent of cell 3 -> cell 3 out XRight.0 -> cell 3 -> spool 0 of cell 3 -> agent of cell 4 -> cell 4 out XRight.0 -> cell 4 -> spool 0 of cell 4 -> agent of cell 5 -> cell 5 out XRight.0 -> cell 5 -> spool 0 of cell 5 -> agent of cell 6 -> cell 6 out XRight.0 -> cell 6 -> agent of cell 3
; CHECK-NEXT: agent of cell 3 (cid 3): holds a pathway begin marker at the head of in XLeft.0, waiting for a free open channel on XRight; its channels are held: out XRight.0 by the pathway of cell 3
; CHECK-NEXT: cell 3 (cid 3) out XRight.0: held by the pathway of cell 3; cell 3 has not sent its end marker
; CHECK-NEXT: cell 3 (cid 3): pc 49: evwait waits for an event (none waiting); spool gate 0 of this cell posts one when it stops
; CHECK-NEXT: spool 0 of cell 3 (cid 3): spools out to local 4 (full); its pathway's begin marker waits in cell 4 (cell 3 local 4 > cell 3 out XRight.0 > cell 4 in XLeft.0); 49 words to go
; CHECK: cell 6 (cid 6): pc 49: evwait waits for an event (none waiting); spool gate 0 of this cell posts one when it stops; a pathway to it waits in the agent of cell 3
; CHECK-NEXT: also waiting:
; CHECK: cell 7 (cid 7): pc 101: creq waits for a free reservation channel on bus XRight; XRight has no reservation channel (--channels gives none)
; CHECK: agent of cell 7 (cid 7): holds a pathway begin marker at the head of in XLeft.0, waiting for a free reservation channel on XRight; XRight has no reservation channel (--channels gives none)
; DOT: label="deadlock at clock 73 (red: the wait-for cycle)";
; DOT-DAG: [label="open channel out XRight.0 of cell 3", color=red, penwidth=2];
; DOT-DAG: [label="must send the pathway's end marker", color=red, penwidth=2];
; DOT-DAG: [label="posts an event when it stops", color=red, penwidth=2];
; DOT-DAG: [label="pathway begin marker", color=red, penwidth=2];
; DOT-DAG: [label="a pathway to it waits here", color=red, penwidth=2];
        .model iwarp
        .cells 0, 7
        .data
tab:
        .word 0, 1, 1, 32772, 0, 0, 0, 0
        .word 0, 1, 1, 32773, 0, 0, 0, 0
        .word 0, 1, 1, 32774, 0, 0, 0, 0
        .word 0, 1, 1, 32775, 0, 0, 0, 0
        .word 0, 1, 2, 36871, 0, 0, 0, 0
        .word 0, 1, 2, 36871, 1, 0, 0, 0
        .word 0, 1, 2, 36871, 2, 0, 0, 0
        .word 0, 0, 1, 3, 0, 0, 0, 0
        .text
        .globl main
main:   nop
        ieq r7, cid, 0
        bnz r7, .Lc0
        ieq r7, cid, 1
        bnz r7, .Lc1
        ieq r7, cid, 2
        bnz r7, .Lc2
        ieq r7, cid, 3
        bnz r7, .Lc3
        ieq r7, cid, 4
        bnz r7, .Lc4
        ieq r7, cid, 5
        bnz r7, .Lc5
        ieq r7, cid, 6
        bnz r7, .Lc6
        ieq r7, cid, 7
        bnz r7, .Lc7
        halt
.Lc0:  mv r1, 0 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc1:  mv r1, 32 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc2:  mv r1, 64 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc3:  mv r1, 96 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc4:  mv r1, 128 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc5:  mv r1, 160 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc6:  mv r1, 192 | mv r2, 1
        mv r3, 1
        jmp .Lstart
.Lc7:  mv r1, 224 | mv r2, 1
        mv r3, 1
        jmp .Lstart

.Lstart: mv r20, 0xFE | mv r22, 0
        mv r23, 0 | mv r8, 0
        bz r2, .Lloop
        call .Lsend
.Lloop: or r7, r2, r3
        or r7, r7, r8
        bz r7, .Ldone
        evwait r4
        shr r5, r4, 8 | and r6, r4, 255
        ieq r7, r5, 8
        bnz r7, .Lbegin
        ieq r7, r5, 6
        bnz r7, .Lspool
        jmp .Lloop
.Lbegin: bz r20, .Lqueue
        mv r10, 1
.Lfind: shr r11, r20, r10
        and r11, r11, 1
        bnz r11, .Lgot
        iadd r10, r10, 1
        jmp .Lfind
.Lgot:  mv r12, 1
        shl r12, r12, r10
        xor r20, r20, r12
        mv %sps, r10
        mv %spa, 196608
        mv %spl, 0x40000
        mv %spn, 64
        mv %spc, r6
        jmp .Lloop
.Lqueue: st [r23, 0x1F000], r6
        iadd r23, r23, 4
        jmp .Lloop
.Lspool: mv r7, %evdata
        and r10, r7, 255
        bz r10, .Lsent
        isub r3, r3, 1
        mv r12, 1
        shl r12, r12, r10
        or r20, r20, r12
        ieq r7, r22, r23
        bnz r7, .Lloop
        ld r6, [r22, 0x1F000]
        iadd r22, r22, 4
        nop
        jmp .Lbegin
.Lsent: mv %go0, r9
        pend @g0, 0
        mv r8, 0
        nop
        mv %go0, -1
        bz r2, .Lloop
        call .Lsend
        jmp .Lloop
.Ldone: halt
.Lsend: ld r10, [r1, 0] | ld r11, [r1, 4]
        ld r12, [r1, 8] | ld r13, [r1, 12]
        ld r14, [r1, 16] | ld r16, [r1, 20]
        ld r17, [r1, 24] | ld r18, [r1, 28]
        creq r15, r10, r11
        nop
        nop
        and r9, r15, 255
        mv %go0, r9
        pbegin @g0, r13
        isub r12, r12, 1
        bz r12, .Lhd
        mv @g0, r14 | isub r12, r12, 1
        bz r12, .Lhd
        mv @g0, r16 | isub r12, r12, 1
        bz r12, .Lhd
        mv @g0, r17 | isub r12, r12, 1
        bz r12, .Lhd
        mv @g0, r18
.Lhd:   nop
        nop
        mv %go0, -1
        mv %sps, 0
        mv %spa, 131072
        mv %spl, 0x30000
        mv %spn, 64
        iadd r15, r9, 32
        mv %spc, r15
        mv r8, 1 | isub r2, r2, 1
        iadd r1, r1, 32
        ret

