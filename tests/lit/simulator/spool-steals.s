; Seed 000, section 7.2: the memory agent "steals memory and computation cycles"
; when it spools, and "spooling one message queue at peak rate consumes one quarter
; of the total memory and computation bandwidth": the 64-bit memory bus moves an
; aligned double word a cycle, and a channel's word every 2 clocks fills one every
; 4. Here one cell copies 64 words through local channel 12 (spool gate 1 out of
; memory at 0x800, spool gate 0 into memory at 0x1000) while it counts to 1000:
; each spool touches 32 double words, and each takes a clock from the count (64
; unit stalls: 1074 clocks, against 1008 without the spools and their two %spc
; writes).
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: warp-sim --stats %t.img 2>&1 | FileCheck %s
; CHECK: cycles: 1074
; CHECK-NEXT: cell 0 (cid 0): issued 1010, stalls 64 (queue 0, unit 64)
; RUN: sed -e '/%%spc/d' %s > %t.none.s
; RUN: warp-as -o %t.none.o %t.none.s && warp-ld -e main -o %t.none.img %t.none.o
; RUN: warp-sim --stats %t.none.img 2>&1 | FileCheck --check-prefix=NONE %s
; NONE: cycles: 1008
; NONE-NEXT: cell 0 (cid 0): issued 1008, stalls 0 (queue 0, unit 0)
;
; A run that starts in the middle of a double word takes a cycle for its first word
; too: 64 words out of 0x804 touch 33 double words.
; RUN: sed -e 's/mv %%spa, 0x800/mv %%spa, 0x804/' %s > %t.odd.s
; RUN: warp-as -o %t.odd.o %t.odd.s && warp-ld -e main -o %t.odd.img %t.odd.o
; RUN: warp-sim --stats %t.odd.img 2>&1 | FileCheck --check-prefix=ODD %s
; ODD: cell 0 (cid 0): issued 1010, stalls 65 (queue 0, unit 65)
        .model iwarp
        .cells 0, 0
        .text
        .globl main
main:   mv %sps, 0
        mv %spa, 0x1000 | mv %spl, 0x2000
        mv %spn, 64
        mv %spc, 12
        mv %sps, 1
        mv %spa, 0x800 | mv %spl, 0x2000
        mv %spn, 64
        mv %spc, 44
        mv r1, 1000
.L:     iadd r5, r5, 1 | dbnz r1, .L
        halt
