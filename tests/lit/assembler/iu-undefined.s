; A symbol only the interface unit's code names is still a symbol the link needs:
; undefined, it is reported like any other (warp-ld read the missing definition and
; crashed, found by fuzz.as with crt0 linked before an IU program).
; RUN: warp-as -o %t.o %s
; RUN: not warp-ld -e main -o %t.img %t.o 2>&1 | FileCheck %s
; CHECK: warp-ld: {{.*}}.o: undefined symbol 'x'
; CHECK-NEXT: warp-ld: {{.*}}.o: undefined symbol 'y'
; CHECK-NOT: undefined
        .globl main
main:   mv r1, 4 || mv r1, x | mv r2, y
        halt
