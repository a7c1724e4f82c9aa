; Debug sections take data directives; the assembler adds the line program of the
; .loc records to .debug_line. Mistakes are diagnosed like any other.
; RUN: rm -rf %t && mkdir -p %t
; RUN: grep '^;G ' %s | sed 's/^;G //' > %t/good.s
; RUN: warp-as -o %t/good.o %t/good.s
; RUN: readelf --debug-dump=line,info %t/good.o 2>&1 >/dev/null | count 0
; RUN: readelf -x .debug_str %t/good.o | FileCheck %s --check-prefix=STR
; STR: 0x00000000 01020304 ff7f8001 e58e2668 6900
; RUN: readelf --debug-dump=decodedline %t/good.o | FileCheck %s --check-prefix=LINE
; LINE: t.w2 7 0 x
; LINE-NEXT: t.w2 7 0x28 {{$}}
; LINE-NEXT: t.w2 7 0x50 x
; LINE-NEXT: t.w2 9 0x78 x
; RUN: readelf --debug-dump=rawline %t/good.o | FileCheck %s --check-prefix=RAW
; RUN: readelf --debug-dump=rawline %t/good.o 2>&1 >/dev/null | count 0
; RAW: Minimum Instruction Length: 40
; RAW: Set basic block
; RAW: set Discriminator to 3
; RUN: not warp-as -o %t/bad.o %s 2>&1 | FileCheck %s
; CHECK: debug-sections.s:[[@LINE+1]]:18: error: section '.comment' is not supported (.text, .data, .bss and .debug_* only)
        .section .comment
; CHECK: debug-sections.s:[[@LINE+1]]:9: error: '.byte' is only allowed in debug sections (.section .debug_...)
        .byte   1
        .section .debug_str
; CHECK: debug-sections.s:[[@LINE+1]]:17: error: -129 is out of range (-128..255)
        .byte   -129
; CHECK: debug-sections.s:[[@LINE+1]]:17: error: expected a quoted string, not 'abc'
        .asciz  abc
        .text
; CHECK: debug-sections.s:[[@LINE+1]]:21: error: unknown '.loc' option 'prologue' (expected is_stmt, basic_block or discriminator)
        .loc    3 1 prologue
; CHECK: debug-sections.s:[[@LINE+1]]:29: error: 2 is out of range (0..1)
        .loc    3 1 is_stmt 2
        nop
;G         .file   "t.w2"
;G         .section .debug_str
;G         .byte   1, 2
;G         .short  0x403
;G         .word   0x01807fff
;G         .uleb128 624485
;G         .asciz  "hi"
;G         .text
;G         .loc    7 1 basic_block
;G         nop
;G         .loc    7 5 is_stmt 0
;G         nop
;G         .loc    7 5 discriminator 3
;G         nop
;G         .loc    9 1
;G         halt
