; The interface unit runs sel (A ? B : C) with its third source: the IU's decoded
; program once took every third source for 0, so a false condition sent 0 where it
; sends C (randprog seed 1921551: a boundary expression's ?: in the IU on Warp).
; Here the IU reads x[i] and feeds x[i] ? 100 : 201+i into the array.
; RUN: warp-as -o %t.o %s && warp-ld -e main -o %t.img %t.o
; RUN: printf '0\n7\n0\n9\n' > %t.x
; RUN: warp-sim %t.img --in x=%t.x | FileCheck %s
; CHECK: 201
; CHECK-NEXT: 100
; CHECK-NEXT: 203
; CHECK-NEXT: 100
        .model  warp
        .cells  0, 1
        .file   "iu-sel.s"
        .host   x, in, int, 4
        .host   y, out, int, 4
        .text
        .globl  main
main:   nop || mv r1, x | mv r2, y
        nop || mov r3, 4 | mov r5, 200
        nop || mov r7, 100
.L:     nop || hld r4, [r1, r0] | isub r3, r3, 1
        nop || lea r1, [r1, 4] | iadd r5, r5, 1 | mov @adr, r3
        nop || sel @fxl, r4, r7, r5
        mv @xr, @xl || mov @axr, r2 | iadd r2, r2, 4
        bnz @adr, .L
        halt
