; Any name may be a symbol when quoted, as in GNU as; unquoted, the names of
; operands are rejected with a hint.
; RUN: warp-as -o %t.o %s
; RUN: readelf -s %t.o | FileCheck --check-prefix=SYM %s
; RUN: not warp-as -o %t.bad.o %S/Inputs/unquoted-operand-symbol.s 2>&1 | FileCheck --check-prefix=ERR %s
; SYM-DAG: OBJECT  GLOBAL DEFAULT {{.*}} r5
; SYM-DAG: OBJECT  GLOBAL DEFAULT {{.*}} nan
; SYM-DAG: FUNC    GLOBAL DEFAULT {{.*}} cid
; ERR: unquoted-operand-symbol.s:2:17: error: 'r5' cannot be used in an expression (a symbol of that name is written "r5")
        .model  warp
        .bss
        .globl  "r5", "nan"
        .type   "r5", @object
        .size   "r5", 4
"r5":
        .zero   4
        .type   "nan", @object
        .size   "nan", .-"r5"
"nan":
        .zero   4
        .text
        .globl  "cid"
        .type   "cid", @function
"cid":
        ld r1, [r0, "r5"] | st [r0, "nan"+0], r1
        call "cid"
