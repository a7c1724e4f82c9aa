; RUN: not warp-as -o %t.o %s 2>&1 | FileCheck %s
; RUN: not test -e %t.o
main:
        fadd r1, r2
; CHECK: errors.s:[[@LINE-1]]:{{[0-9]+}}: error:
        frobnicate r1, r2
; CHECK: errors.s:[[@LINE-1]]:9: error: {{.*}}frobnicate
        fadd r1, r2, r3 | fsub r4, r5, r6
; CHECK: errors.s:[[@LINE-1]]:{{[0-9]+}}: error:
