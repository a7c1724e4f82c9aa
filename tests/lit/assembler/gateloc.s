; .gateloc gives a bundle's receive or send the position of its own statement
; (the compiler's, for Warp flow-control diagnostics): one .warp.gates record per
; directive, for the next bundle: address, line, column, then the file index, the
; queue (<< 16) and whether it is a send (<< 24). An object without any has no
; .warp.gates at all.
; RUN: warp-as -o %t.o %s
; RUN: readelf -x .warp.gates %t.o | FileCheck %s
; CHECK: 0x00000000 00000000 05000000 07000000 00000000
; CHECK-NEXT: 0x00000010 28000000 06000000 09000000 00000201
; RUN: not warp-as -o %t.bad.o %S/Inputs/gateloc-errors.s 2>&1 | FileCheck --check-prefix=ERR %s
; ERR: gateloc-errors.s:3:18: error: expected 'receive' or 'send'
; ERR: gateloc-errors.s:4:26: error: expected a gate (@xl, @yl, @xr or @yr)
; ERR: gateloc-errors.s:5:9: error: '.gateloc' takes 3 arguments, got 2
; RUN: printf '        .model warp\nmain:\n        halt\n' > %t.none.s
; RUN: warp-as -o %t.none.o %t.none.s
; RUN: readelf -S %t.none.o | FileCheck --check-prefix=NONE %s
; NONE-NOT: .warp.gates
; NONE: .symtab
        .model  warp
        .file   "t.w2"
main:
        .loc    3 1
        .gateloc receive @xl, 5, 7
        mv r1, @xl
        .gateloc send @xr, 6, 9
        mv @xr, r1
        halt
